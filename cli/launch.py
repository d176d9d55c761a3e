"""``hookport run``: start hookport inside an unmodified program, before its own code runs.

The launcher writes the settings into environment variables and replaces itself
with the program. Inside it, hookport starts from whichever start-up hook comes
first: the ``hookport-autostart.pth`` the package installs (hookport.cli._autostart:
no ``sitecustomize`` can shadow it, ``-I`` and ``-E`` do not skip it), or the
``sitecustomize.py`` in `bootstrap_path()`, which the launcher puts in front of the
child's ``PYTHONPATH`` as ``opentelemetry-instrument`` does (it also stops a Python
that cannot import hookport). Either one installs the adapters, imports the hook
modules and loads the policy before the program's ``__main__``; `bootstrap` runs
once. ``python -S`` skips both, so the launcher refuses it (`skips_site`).

The environment variables are the interface; the launcher only sets them, so
they work without it too (``PYTHONPATH="$(hookport bootstrap-path)"``), or from
code with `start_from_environment()`:

==================  ============================================================
HOOKPORT_ADAPTERS   comma-separated adapter names; unset = every one installed
HOOKPORT_HOOKS      comma-separated modules to import (they register hooks)
HOOKPORT_POLICY     a TOML policy file (docs/policy.md)
HOOKPORT_OTEL       ``1``: export each dispatch that ran hooks to OpenTelemetry
HOOKPORT_AUTOSTART  ``1``: start from the installed ``.pth`` hook too (the launcher sets it)
==================  ============================================================
"""

from __future__ import annotations

import importlib
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ADAPTERS_VARIABLE = "HOOKPORT_ADAPTERS"
HOOKS_VARIABLE = "HOOKPORT_HOOKS"
POLICY_VARIABLE = "HOOKPORT_POLICY"
OTEL_VARIABLE = "HOOKPORT_OTEL"
AUTOSTART_VARIABLE = "HOOKPORT_AUTOSTART"
"""Set by the launcher: the installed ``hookport-autostart.pth`` starts hookport (hookport.cli._autostart)."""
EXIT_BAD_SETTINGS = 2
"""The status of a launch refused before the program started (argparse uses 2 for usage errors too)."""

TRUE_WORDS = ("1", "true", "yes", "on")


class LaunchError(Exception):
    """A setting that stops the program before it starts; the message says what to fix."""


def bootstrap_path() -> str:
    """The directory with hookport's ``sitecustomize.py``, for the child's PYTHONPATH."""
    return str(Path(__file__).resolve().parent / "_bootstrap")


def split_names(text: str | None) -> tuple[str, ...]:
    return tuple(name.strip() for name in (text or "").split(",") if name.strip())


@dataclass(frozen=True)
class LaunchSettings:
    """What to start: adapters (None = every adapter whose framework is installed), hooks, policy, otel."""

    adapters: tuple[str, ...] | None = None
    hooks: tuple[str, ...] = ()
    policy: str | None = None
    otel: bool = False

    @classmethod
    def from_options(
        cls, adapters: str | None, hooks: str | None, policy: str | None, otel: bool = False
    ) -> LaunchSettings:
        return cls(
            adapters=split_names(adapters) if adapters is not None else None,
            hooks=split_names(hooks),
            policy=str(Path(policy).resolve()) if policy else None,
            otel=otel,
        )

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> LaunchSettings:
        env = os.environ if environ is None else environ
        adapters = env.get(ADAPTERS_VARIABLE)
        return cls(
            adapters=split_names(adapters) if adapters is not None and adapters.strip() else None,
            hooks=split_names(env.get(HOOKS_VARIABLE)),
            policy=env.get(POLICY_VARIABLE) or None,
            otel=env.get(OTEL_VARIABLE, "").strip().lower() in TRUE_WORDS,
        )

    @property
    def requested(self) -> bool:
        """True when any HOOKPORT_* setting asks for something."""
        return self.adapters is not None or bool(self.hooks) or self.policy is not None or self.otel

    def environment(self) -> dict[str, str]:
        env: dict[str, str] = {}
        if self.adapters is not None:
            env[ADAPTERS_VARIABLE] = ",".join(self.adapters)
        if self.hooks:
            env[HOOKS_VARIABLE] = ",".join(self.hooks)
        if self.policy:
            env[POLICY_VARIABLE] = self.policy
        if self.otel:
            env[OTEL_VARIABLE] = "1"
        return env


# -- in the launcher ---------------------------------------------------------------------------


def check_before_launch(settings: LaunchSettings, program: Sequence[str] = ()) -> None:
    """What the launcher can check without running the program: adapter names, the policy file, and
    that the command lets Python's ``site`` run (the start-up hook's only way in).

    The child checks the rest before the program's code runs, with the program's own
    interpreter and path: whether each framework is installed, and the hook modules and
    approval hooks (``myteam/approvals.py`` next to ``app.py``).
    """
    from hookport import adapters
    from hookport.policy import load_policy

    for name in settings.adapters or ():
        adapters.adapter_class(name)
    if settings.policy:
        load_policy(settings.policy, register=False, import_hooks=False)
    skipping = skips_site(program)
    if skipping:
        raise LaunchError(
            f"{shlex.join(program)} runs Python with {skipping}, which skips the start-up hook hookport starts "
            "from, so the program would run unguarded; drop that option"
        )


def skips_site(program: Sequence[str]) -> str | None:
    """The option (``-S``) with which a Python in `program` would skip ``site``, or None.

    `program` may start with wrappers (``opentelemetry-instrument python -S app.py``): the
    first word named ``python*`` is the interpreter; its options end at the script, ``-c`` or ``-m``.
    """
    words = list(program)
    start = next((i for i, word in enumerate(words) if os.path.basename(word).startswith("python")), None)
    if start is None:
        return None
    options = iter(words[start + 1 :])
    for option in options:
        if not option.startswith("-") or option in ("-", "--") or option.startswith("--"):
            return None  # the script, stdin, or a long option (--version, --help)
        for position, letter in enumerate(option[1:], start=1):
            if letter == "S":
                return option
            if letter in "cm":
                return None  # the rest is the command or module
            if letter in "XW":  # the rest, or the next word, is this option's value
                if position == len(option) - 1:
                    next(options, None)
                break
    return None


def child_environment(settings: LaunchSettings, base: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if base is None else base)
    for variable in (ADAPTERS_VARIABLE, HOOKS_VARIABLE, POLICY_VARIABLE, OTEL_VARIABLE):
        env.pop(variable, None)  # the command line says everything; nothing inherited mixes in
    env.update(settings.environment())
    env[AUTOSTART_VARIABLE] = "1"
    paths = [bootstrap_path(), *[p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    return env


def launch(settings: LaunchSettings, program: Sequence[str]) -> int:
    """Replace this process with `program`, hookport starting inside it; returns only on failure."""
    if not program:
        print("hookport run: no program given; usage: hookport run [options] -- python app.py", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    try:
        check_before_launch(settings, program)
    except Exception as error:  # every refusal here is a clear message, never a traceback
        print(f"hookport run: {error}", file=sys.stderr)
        return EXIT_BAD_SETTINGS
    env = child_environment(settings)
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name != "posix":  # no real exec on Windows: wait for the child and pass its status on
        return subprocess.call(list(program), env=env)
    try:
        os.execvpe(program[0], list(program), env)
    except OSError as error:
        print(f"hookport run: cannot run {shlex.join(program)}: {error.strerror or error}", file=sys.stderr)
        return 127 if isinstance(error, FileNotFoundError) else 126
    return 0  # not reached: exec does not return


# -- in the program (the bootstrap) -----------------------------------------------------------------


def start(settings: LaunchSettings) -> None:
    """Install the adapters, turn OpenTelemetry on, import the hook modules, load the policy.

    Raises `LaunchError`, or the adapters' own errors (`UnknownAdapterError`,
    `FrameworkNotInstalledError`, ...), or `PolicyError`.
    """
    from hookport import adapters, load_policy

    if settings.adapters is None:
        adapters.install()
    else:
        for name in settings.adapters:
            adapters.install(name)
    if settings.otel:
        try:
            from hookport import otel

            otel.instrument()
        except ImportError as error:
            from hookport._extras import install_hint

            raise LaunchError(f"{OTEL_VARIABLE}=1 needs OpenTelemetry: {install_hint('otel')} ({error})") from None
    with program_directories_importable():
        for module in settings.hooks:
            import_hook_module(module)
        if settings.policy:
            load_policy(settings.policy)


def import_hook_module(module: str) -> None:
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name and (module == error.name or module.startswith(f"{error.name}.")):
            raise LaunchError(
                f"the hook module {module!r} cannot be found (searched the program's path and "
                f"the current directory {os.getcwd()}): {error}"
            ) from None
        raise LaunchError(f"the hook module {module!r} failed to import: {type(error).__name__}: {error}") from error
    except Exception as error:
        raise LaunchError(f"the hook module {module!r} failed to import: {type(error).__name__}: {error}") from error


@contextmanager
def program_directories_importable() -> Iterator[None]:
    """Hook modules are found where the program would find them, although at start-up its
    sys.path[0] (the script's directory, or the current one for ``-m`` / ``-c``) is not set yet.

    The directories go to the end of sys.path, so they never shadow an installed
    module, and are removed again afterwards.
    """
    script = sys.argv[0] if sys.argv else ""
    directories = [os.getcwd()]
    if script not in ("", "-c", "-m") and os.path.isfile(script):
        directories.insert(0, os.path.dirname(os.path.abspath(script)))
    added = [d for d in dict.fromkeys(directories) if d not in sys.path]
    sys.path.extend(added)
    try:
        yield
    finally:
        for directory in added:
            if directory in sys.path:
                sys.path.remove(directory)


def start_from_environment(environ: Mapping[str, str] | None = None) -> LaunchSettings:
    """Start hookport from HOOKPORT_* (what the bootstrap calls); a no-op when none is set."""
    settings = LaunchSettings.from_environment(environ)
    if settings.requested:
        start(settings)
    return settings


_bootstrapped = False
"""The .pth start-up hook and the sitecustomize bootstrap both call `bootstrap`; the first one starts."""


def bootstrap() -> None:
    """The bootstrap's body: start, or stop the program before it runs with a clear message."""
    global _bootstrapped
    if _bootstrapped:
        return
    _bootstrapped = True
    try:
        start_from_environment()
    except Exception as error:
        program = " ".join(sys.argv) or sys.executable
        print(f"hookport: not starting {program}: {error}", file=sys.stderr)
        sys.stderr.flush()
        sys.stdout.flush()
        os._exit(EXIT_BAD_SETTINGS)  # SystemExit raised in sitecustomize would not stop the interpreter cleanly
