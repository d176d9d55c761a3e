"""``hookport doctor``: the frameworks found here, their versions, and a dry install.

For every adapter hookport knows (built-in and entry-point plugins) it reports whether
the framework is installed, its version, whether that version is inside the adapter's
supported range and among the versions the compatibility matrix tests, and the result
of a dry install: every target resolved (importing the framework) without patching.
A missing target means hookport would silently miss those calls, so it is an error.
"""

from __future__ import annotations

import json
import platform
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO

from hookport import __version__, adapters
from hookport._extras import install_hint
from hookport.adapters._base import Adapter
from hookport.adapters._versions import in_range, installed_version


@dataclass
class FrameworkDiagnosis:
    """What the doctor found for one adapter."""

    adapter: str
    distribution: str | None = None
    extra: str | None = None
    supported: str | None = None
    test_versions: list[str] = field(default_factory=list)
    version: str | None = None
    in_supported_range: bool | None = None
    tested: bool | None = None
    optional: dict[str, str | None] = field(default_factory=dict)
    """Distributions some targets need (e.g. langgraph), with their installed version."""
    found: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    not_offered: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def installed(self) -> bool:
        return self.version is not None

    @property
    def healthy(self) -> bool:
        """Not installed is fine; installed must be in range, with every target found."""
        if self.error:
            return False
        return not self.installed or (bool(self.in_supported_range) and not self.missing)


def diagnose_adapter(name: str) -> FrameworkDiagnosis:
    diagnosis = FrameworkDiagnosis(adapter=name)
    try:
        cls = adapters.adapter_class(name)
    except Exception as error:  # a broken plugin must not hide the others
        diagnosis.error = f"cannot load the adapter: {type(error).__name__}: {error}"
        return diagnosis
    diagnosis.distribution = cls.distribution
    diagnosis.extra = getattr(cls, "extra", None)
    diagnosis.supported = cls.supported
    diagnosis.test_versions = list(getattr(cls, "test_versions", ()) or ())
    diagnosis.not_offered = sorted(p.value for p in cls.not_offered)
    diagnosis.version = installed_version(cls.distribution)
    if diagnosis.version is None:
        return diagnosis
    diagnosis.in_supported_range = in_range(diagnosis.version, cls.supported)
    diagnosis.tested = diagnosis.version in diagnosis.test_versions
    dry_install(cls(), diagnosis)
    return diagnosis


def dry_install(adapter: Adapter, diagnosis: FrameworkDiagnosis) -> None:
    """Resolve every target without patching; a target whose module is gone is missing."""
    try:
        targets = list(adapter.targets())
    except Exception as error:
        diagnosis.error = f"the adapter could not list its targets: {type(error).__name__}: {error}"
        return
    diagnosis.optional = {
        dist: installed_version(dist)
        for dist in sorted({t.distribution for t in targets if t.distribution} - {adapter.distribution})
    }
    for target in targets:
        try:
            state = adapter._resolve(target, import_module=True)
        except ImportError as error:
            if module_is_gone(target.module, error):
                diagnosis.missing.append(f"{target.name} ({type(error).__name__}: {error})")
            else:  # the module is there but needs an optional dependency that is not installed
                diagnosis.skipped.append(f"{target.name} (cannot be imported here: {error})")
            continue
        except Exception as error:  # importing the framework itself failed
            diagnosis.error = f"importing {target.module} failed: {type(error).__name__}: {error}"
            return
        {"found": diagnosis.found, "skipped": diagnosis.skipped}.get(state, diagnosis.missing).append(target.name)


def module_is_gone(module: str, error: ImportError) -> bool:
    """True when the target's own module (or a parent package) does not exist: the framework moved it.

    Any other import failure (a provider module raising because its optional extra is
    missing) is a piece of the framework that is not installed, like a skipped target;
    the real install patches it lazily, if it is ever imported.
    """
    name = getattr(error, "name", None)
    return isinstance(error, ModuleNotFoundError) and bool(name) and (module == name or module.startswith(f"{name}."))


def diagnose() -> list[FrameworkDiagnosis]:
    return [diagnose_adapter(name) for name in sorted(adapters.available())]


def environment() -> dict[str, str | None]:
    return {
        "hookport": __version__,
        "python": platform.python_version(),
        "wrapt": installed_version("wrapt"),
        "pydantic": installed_version("pydantic"),
    }


def render_text(diagnoses: list[FrameworkDiagnosis], out: TextIO) -> None:
    env = environment()
    print(f"hookport {env['hookport']} on Python {env['python']}, wrapt {env['wrapt']}", file=out)
    for d in diagnoses:
        print("", file=out)
        if d.error and d.distribution is None:
            print(f"{d.adapter}: {d.error}", file=out)
            continue
        if not d.installed:
            print(f"{d.adapter}: not installed ({d.distribution}); {install_hint(d.extra, [d.distribution])}", file=out)
            continue
        where = "inside" if d.in_supported_range else "OUTSIDE"
        print(f"{d.adapter}: {d.distribution} {d.version}", file=out)
        print(f"  supported range: {d.supported} ({where})", file=out)
        tested = ", ".join(d.test_versions) or "none declared"
        print(f"  tested by the matrix: {'yes' if d.tested else 'no'} (tested versions: {tested})", file=out)
        for dist, version in d.optional.items():
            print(f"  optional: {dist} {version or 'not installed'}", file=out)
        if d.error:
            print(f"  dry install FAILED: {d.error}", file=out)
        else:
            print(
                f"  dry install: {len(d.found)} targets found, {len(d.missing)} missing, "
                f"{len(d.skipped)} skipped (optional piece not installed)",
                file=out,
            )
        for target in d.missing:
            print(f"    MISSING {target}", file=out)
        for target in d.skipped:
            print(f"    skipped {target}", file=out)
        if d.not_offered:
            print(f"  points this framework has no moment for: {', '.join(d.not_offered)}", file=out)
    print("", file=out)
    problems = [d.adapter for d in diagnoses if not d.healthy]
    print(f"verdict: {'problems with ' + ', '.join(problems) if problems else 'ok'}", file=out)


def as_json(diagnoses: list[FrameworkDiagnosis]) -> dict[str, Any]:
    return {
        "environment": environment(),
        "frameworks": [asdict(d) | {"installed": d.installed, "healthy": d.healthy} for d in diagnoses],
        "ok": all(d.healthy for d in diagnoses),
    }


def run(out: TextIO, json_output: bool = False, policy: str | None = None) -> int:
    """Print the diagnosis; exit 1 when an installed framework cannot be attached to as declared,
    or when the `policy` file given is not valid."""
    from hookport.cli import policy_report

    diagnoses = diagnose()
    if json_output:
        document = as_json(diagnoses)
        if policy is not None:
            document["policy"] = policy_report.as_json(policy)
            document["ok"] = document["ok"] and document["policy"]["ok"]
        print(json.dumps(document, indent=2), file=out)
        return 0 if document["ok"] else 1
    render_text(diagnoses, out)
    policy_ok = policy_report.render_text(policy, out) if policy is not None else True
    return 0 if all(d.healthy for d in diagnoses) and policy_ok else 1
