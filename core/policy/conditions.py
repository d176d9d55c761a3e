"""``when = "<expression>"``: a rule's condition, in CEL, compiled once when the file loads.

CEL (the Common Expression Language of Kubernetes admission rules, Envoy and Google
IAM conditions) is sandboxed: no I/O, no loops that do not end, no access to Python.
Conditions are evaluated by `common-expression-language` (Rust bindings, about 2 µs
an evaluation here); on Python 3.10, where that package does not install, by
`cel-python` (pure Python, about 270 µs). Both come with ``pip install
'hookport[policy]'``; docs/policy.md says why this choice, docs/performance.md what
it costs. Neither is imported until a file has a ``when``.

A condition reads six fields (`FIELDS`); any other name is an error at load time,
reported with its position, and so is a syntax error. It must give a boolean: any
other value, or an error while it runs (a missing key, a type mismatch), is an
`EvaluationError`, which each rule kind answers in its own documented way (a deny
refuses, an approval refuses, a warn warns, a redact redacts).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Optional

from hookport.policy.expressions import references

FIELDS = ("tool", "args", "agent", "run", "calls", "result")
"""What a condition can read: the tool's name, its arguments, the agent's role, the run
(``id``, ``metadata``), the calls so far (``model``, ``tool``, per tool) and, after the call,
its ``result`` text."""

INSTALL = "pip install 'hookport[policy]'"
Program = Callable[[dict[str, Any]], Any]


class ConditionError(ValueError):
    """A condition that cannot be compiled; `position` is the 1-based column in the expression."""

    def __init__(self, message: str, position: Optional[int] = None, line: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.position = position
        self.line = line


class EvaluationError(Exception):
    """A condition that failed while it ran, or gave something other than a boolean."""


@dataclass(frozen=True)
class Condition:
    """One compiled ``when``: the program and what it reads."""

    text: str
    program: Program
    fields: frozenset[str]
    arg_keys: Optional[frozenset[str]]
    """The ``args`` keys it selects; None: the whole map."""
    call_keys: Optional[frozenset[str]]
    """The ``calls`` keys it selects; None: the whole map."""

    def holds(self, activation: dict[str, Any]) -> bool:
        """Run the condition; raises `EvaluationError` unless it gives true or false."""
        try:
            result = self.program(activation)
        except Exception as error:
            raise EvaluationError(describe_failure(error)) from None
        if result is True or result is False:
            return result
        if type(result).__name__ == "BoolType":  # cel-python's boolean
            return bool(result)
        raise EvaluationError(f"it gave {result!r}, not true or false")


def compile_condition(text: str) -> Condition:
    """Compile `text`; raises `ConditionError` (syntax, an unknown field) or `MissingPackage`."""
    if not text.strip():
        raise ConditionError("the expression is empty")
    found = references(text)
    for name, offset in found.names.items():
        if name not in FIELDS:
            line, column = line_and_column(text, offset)
            raise ConditionError(
                f"unknown field {name!r} (a condition reads {', '.join(FIELDS)})", column, line
            )
    program = backend().compile(text)
    keys = found.keys
    return Condition(
        text,
        program,
        frozenset(found.names),
        frozenset(keys["args"]) if keys.get("args") is not None else None,  # type: ignore[arg-type]
        frozenset(keys["calls"]) if keys.get("calls") is not None else None,  # type: ignore[arg-type]
    )


def line_and_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def describe_failure(error: BaseException) -> str:
    message = str(error.args[0]) if getattr(error, "args", None) else str(error)
    if isinstance(error, KeyError) or "KeyError" in type(error).__name__:
        message = f"no such key: {message}"
    first = message.strip().splitlines()[0] if message.strip() else type(error).__name__
    return f"{type(error).__name__}: {first[:200]}"


# -- the evaluators -------------------------------------------------------------------


class MissingPackage(ImportError):
    """No CEL package is installed."""


class RustCel:
    """`common-expression-language` (import name ``cel``)."""

    name = "common-expression-language"
    _ERROR = re.compile(r"<input>:(\d+):(\d+): (.*)")

    def __init__(self) -> None:
        import cel

        self.cel = cel

    def compile(self, text: str) -> Program:
        try:
            program = self.cel.compile(text)
        except Exception as error:
            found = self._ERROR.search(str(error))
            if found is None:
                raise ConditionError(str(error).splitlines()[0]) from None
            raise ConditionError(found.group(3).strip(), int(found.group(2)), int(found.group(1))) from None
        return program.execute  # type: ignore[no-any-return]


class PythonCel:
    """`cel-python` (import name ``celpy``): the evaluator where the Rust one does not install."""

    name = "cel-python"

    def __init__(self) -> None:
        import logging

        logging.getLogger("celpy").setLevel(logging.ERROR)  # it logs every evaluation error as a warning
        import celpy

        self.celpy = celpy
        self.environment = celpy.Environment()

    def compile(self, text: str) -> Program:
        try:
            ast = self.environment.compile(text)
        except Exception as error:
            line, column = getattr(error, "line", None), getattr(error, "column", None)
            message = str(error.args[0]).splitlines()[0] if error.args else str(error)
            raise ConditionError(f"syntax error near: {message.strip()}", column and column + 1, line or 1) from None
        program = self.environment.program(ast)
        to_cel = self.celpy.json_to_cel

        def run(activation: dict[str, Any]) -> Any:
            result = program.evaluate({name: to_cel(value) for name, value in activation.items()})
            if isinstance(result, Exception):
                raise result
            return result

        return run


BACKENDS: dict[str, type[RustCel] | type[PythonCel]] = {"cel": RustCel, "celpy": PythonCel}
_backend: Optional[RustCel | PythonCel] = None


def backend() -> RustCel | PythonCel:
    """The evaluator: ``HOOKPORT_CEL=cel|celpy`` picks one, else the Rust one if it imports."""
    global _backend
    if _backend is None:
        chosen = os.environ.get("HOOKPORT_CEL", "").strip()
        order = [chosen] if chosen else ["cel", "celpy"]
        for name in order:
            factory = BACKENDS.get(name)
            if factory is None:
                raise MissingPackage(f"HOOKPORT_CEL={chosen!r} names no CEL evaluator (cel or celpy)")
            try:
                _backend = factory()
                break
            except ImportError:
                continue
        else:
            raise MissingPackage(
                "conditions (`when`) need a CEL package, and none is installed: " + INSTALL
                + " (common-expression-language; cel-python on Python 3.10)"
            )
    return _backend


def reset_backend() -> None:
    """Choose the evaluator again on the next compile (tests, the benchmark)."""
    global _backend
    _backend = None


def plain(value: Any, depth: int = 0) -> Any:
    """`value` as CEL can take it: JSON-like values as they are, models as their JSON dump,
    tuples and sets as lists, anything else as its text."""
    kind = type(value)
    if kind is str or kind is int or kind is float or kind is bool or value is None:
        return value
    if depth > 32:
        return str(value)
    if isinstance(value, Mapping):
        return {str(key): plain(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(item, depth + 1) for item in value]
    if isinstance(value, (str, int, float, bytes)):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return plain(dump(mode="json"), depth + 1)
    return str(value)
