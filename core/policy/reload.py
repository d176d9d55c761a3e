"""Reload a policy when its file, or a file it includes, changes.

    watcher = hookport.policy.watch("policy.toml")     # loaded, registered, watched
    watcher.policy                                     # the policy in force now
    watcher.stop()                                     # stop watching (the policy stays registered)

A daemon thread reads the files every `interval` seconds (their bytes, so an
edit within one mtime tick is seen too; no dependency). On a change the new
files are loaded and validated in full (approval hooks imported) before
anything changes. Then `Policy.replace` swaps every chain in one step
(`hookport.registry.replace_hooks`): a dispatch already running finishes under
the old rules, the next one runs under the new, and at no moment is there no
policy. A file that does not load leaves the old policy in force; that is
logged as a warning on ``hookport.policy`` and reported as a `PolicyReload`
(to `subscribe_reloads` subscribers, and as an OpenTelemetry span
``hookport policy_reload`` when `hookport.otel` exports); it is tried again
at the next change.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from time import time

from hookport.policy import Policy, PolicyError, load_policy

__all__ = ["PolicyReload", "PolicyWatcher", "subscribe_reloads", "unsubscribe_reloads"]

logger = logging.getLogger("hookport.policy")


@dataclass(frozen=True)
class PolicyReload:
    """One reload: ``reloaded`` (the new files are in force) or ``rejected`` (the old stay)."""

    path: str
    status: str
    policy: str
    files: tuple[str, ...]
    problems: tuple[str, ...] = ()
    time: float = field(default_factory=time)


ReloadSubscriber = Callable[[PolicyReload], object]
_subscribers: list[ReloadSubscriber] = []


def subscribe_reloads(fn: ReloadSubscriber) -> ReloadSubscriber:
    """Call `fn(PolicyReload)` after every reload or rejected reload of any watched policy."""
    _subscribers.append(fn)
    return fn


def unsubscribe_reloads(fn: ReloadSubscriber) -> bool:
    if fn in _subscribers:
        _subscribers.remove(fn)
        return True
    return False


def fingerprint(files: tuple[Path, ...]) -> tuple[str | None, ...]:
    """Each file's content digest (None: it cannot be read)."""
    digests: list[str | None] = []
    for file in files:
        try:
            digests.append(hashlib.sha256(file.read_bytes()).hexdigest())
        except OSError:
            digests.append(None)
    return tuple(digests)


class PolicyWatcher:
    """Keeps the policy at `path` registered and up to date with its files."""

    def __init__(self, path: str | Path, *, interval: float = 1.0) -> None:
        if not interval > 0:
            raise ValueError(f"the watch interval must be a positive number of seconds, got {interval!r}")
        self.path = Path(path)
        self.interval = float(interval)
        self.policy: Policy = load_policy(self.path)  # a bad file at start is an error, as without watching
        self._seen = fingerprint(self.policy.files)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        os.register_at_fork(after_in_child=self._restart_in_child)

    def start(self) -> PolicyWatcher:
        """Start the polling thread (a daemon: it never keeps the program alive)."""
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(target=self._run, name=f"hookport-policy-watch:{self.path.name}", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop watching; the policy in force stays registered (`watcher.policy.unregister()` removes it)."""
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=max(5.0, 2 * self.interval))
        self._thread = None

    def close(self) -> None:
        """Stop watching and unregister the policy."""
        self.stop()
        self.policy.unregister()

    def __enter__(self) -> PolicyWatcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.check()
            except Exception:  # the watcher must outlive anything a reload does
                logger.exception("the policy watcher for %s failed; it keeps watching", self.path)

    def check(self) -> PolicyReload | None:
        """Reload now if any file changed since the last look; returns what happened (None: no change)."""
        with self._lock:
            seen = fingerprint(self.policy.files)
            if seen == self._seen:
                return None
            self._seen = seen
            try:
                new = load_policy(self.path, register=False)
            except PolicyError as error:
                return self._report("rejected", error.problems)
            self.policy = self.policy.replace(new)
            self._seen = fingerprint(new.files)  # an include added or dropped changes what is watched
            return self._report("reloaded", [])

    def _report(self, status: str, problems: list[str]) -> PolicyReload:
        reload = PolicyReload(
            str(self.path), status, self.policy.name, tuple(str(f) for f in self.policy.files), tuple(problems)
        )
        if status == "rejected":
            logger.warning(
                "hookport: the policy %s changed but cannot be applied, so the policy as it was stays in force: %s",
                self.path, "; ".join(problems),
            )
        else:
            logger.info("hookport: the policy %s changed and is in force now (%d hooks)", self.path, len(self.policy.hooks))
        for fn in list(_subscribers):
            try:
                fn(reload)
            except Exception:
                logger.exception("policy reload subscriber %r failed", fn)
        export_span(reload)
        return reload

    def _restart_in_child(self) -> None:
        """A forked child has no watcher thread: it gets its own (its policy is a copy of the parent's)."""
        self._lock = threading.Lock()
        if self._thread is not None and not self._stop.is_set():
            self._thread = None
            self.start()

    def __repr__(self) -> str:
        state = "watching" if self._thread is not None else "stopped"
        return f"<PolicyWatcher {self.path} every {self.interval:g}s, {state}: {self.policy!r}>"


def export_span(reload: PolicyReload) -> None:
    """The reload as an OpenTelemetry span, when hookport exports to OpenTelemetry (on the tracer
    its dispatch spans use)."""
    try:
        from hookport import otel

        if not otel.is_instrumented():
            return
        from opentelemetry import trace
        from opentelemetry.trace import Status, StatusCode
    except ImportError:
        return
    exporter = getattr(otel, "_subscriber", None)
    tracer = getattr(exporter, "tracer", None) or trace.get_tracer(otel.INSTRUMENTATION_NAME)
    span = tracer.start_span("hookport policy_reload", attributes={
        "hookport.policy.path": reload.path,
        "hookport.policy.name": reload.policy,
        "hookport.policy.reload": reload.status,
        **({"hookport.policy.problems": list(reload.problems), "error.type": "PolicyError"} if reload.problems else {}),
    })
    if reload.problems:
        span.set_status(Status(StatusCode.ERROR, "; ".join(reload.problems)))
    span.end()
