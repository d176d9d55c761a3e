"""Generated code that runs where no hook can: its tool calls decided from the code, before it runs.

A code agent whose code runs in another process or machine (smolagents' remote
executors, AutoGen's command-line executors, a LlamaIndex ``CodeActAgent`` whose
``code_execute_fn`` ships the code elsewhere) calls its tools *there*, out of reach of
every hook of this process. What this process still sees is the moment the run hands
the code over, so that is the call site: `read` finds each use of an offered tool in
the code, each use is one PRE_TOOL_CALL (`decide` / `adecide`), and a refusal means
none of the code runs. POST_TOOL_CALL sees the execution's output.

What a hook sees: ``ctx.tool_input`` holds the arguments the code writes out literally
(positional ones named after the tool's parameters); those it computes are not known
before it runs and are named, with their source text, in ``ctx.metadata["unread_arguments"]``
(``"*"`` for a tool passed around as a value or named in a string). Edits of
``ctx.tool_input`` cannot reach code that is already written.

Code in which hookport cannot find every use is *hidden* (`Reading.hidden` says why):
code that does not parse or is not Python, code that reaches names or builds code at
run time (``exec``, ``eval``, ``compile``, ``__import__``, ``globals()`` / ``locals()`` /
``vars()``, ``getattr`` and friends with a computed name, dunder attributes, frames,
``sys.modules``, the reflective modules: ``importlib``, ``inspect``, ``pickle``, ``marshal``,
``ctypes``, ``runpy``, ...), code importing a module that does not exist here (one the code
may have written itself), and, where the tools are importable by any process (AutoGen's
functions module), code that starts processes. While a hook that may refuse one of the
offered tools is registered (a PRE_TOOL_CALL or wrap hook whose ``tools=`` admits it),
hidden code is refused before it runs: the guard fails closed.

Where the code may yet run in this process after all (an executor hookport cannot
classify), a guard on the tool's function there asks `claim_decided` first: a call the
text decided with every argument written out is not dispatched again.
"""

from __future__ import annotations

import ast
import re
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from importlib.util import find_spec
from typing import Any, TypeVar

from hookport.calls import ToolShape, atool_call, tool_call, tool_hooks_active
from hookport.contexts import ToolCallHookContext
from hookport.dispatch import adispatch, dispatch
from hookport.errors import HookAborted
from hookport.hooks import HookEntry, sanitize_tool_name
from hookport.points import ExtensionPoint, InterceptionPoint
from hookport.registry import hooks_for

__all__ = ["Offered", "Reading", "Use", "UNREAD", "adecide", "claim_decided", "decide", "guards_any", "read",
           "read_blocks"]

R = TypeVar("R")
Offered = Mapping[str, Sequence[str]]
"""Each tool the code may call, by the name the code calls it by -> its parameters in order."""
UNREAD = "unread_arguments"
"""The ``ctx.metadata`` key of the arguments the code computes: parameter -> source text."""
SOURCE = "hookport"

_BUILDS_CODE = frozenset({"exec", "eval", "compile", "__import__", "globals", "locals", "vars", "breakpoint",
                          "get_ipython", "execfile", "reload"})
_BY_NAME = frozenset({"getattr", "hasattr", "setattr", "delattr", "attrgetter", "methodcaller"})
"""Fine with a literal name (a use of that name when it is a tool's), hidden with a computed one."""
_REFLECTIVE_MODULES = frozenset({"importlib", "builtins", "inspect", "gc", "pickle", "cPickle", "marshal", "dill",
                                 "cloudpickle", "ctypes", "cffi", "runpy", "code", "codeop", "imp", "pydoc",
                                 "pkgutil", "zipimport", "shelve", "copyreg", "joblib"})
_SPAWN_MODULES = frozenset({"subprocess", "pty", "multiprocessing", "pexpect", "sh", "plumbum", "popen2",
                            "commands"})
_FRAMES = frozenset({"f_globals", "f_locals", "f_builtins", "f_back", "f_code", "tb_frame", "gi_frame",
                     "cr_frame", "ag_frame", "_getframe", "_current_frames"})
_SAFE_DUNDERS = frozenset({"__init__", "__name__", "__doc__", "__class__", "__qualname__", "__module__",
                           "__file__", "__len__", "__iter__", "__next__", "__enter__", "__exit__", "__str__",
                           "__repr__"})
"""Dunder names that reach nothing."""


@dataclass
class Use:
    """One place the code uses an offered tool."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    unread: dict[str, str] = field(default_factory=dict)
    """The arguments the code computes (not known before it runs): parameter -> source text."""


@dataclass
class Reading:
    """What `read` found in a piece of code."""

    uses: list[Use] = field(default_factory=list)
    hidden: str | None = None
    """Why hookport cannot find every use of a tool in this code (None: it found them all)."""

    def add(self, other: Reading) -> None:
        self.uses.extend(other.uses)
        self.hidden = self.hidden or other.hidden


def read(code: str, offered: Offered, *, spawns_reach: bool = False, known: Iterable[str] = (),
         also: Mapping[str, str] | None = None) -> Reading:
    """Every use of an `offered` tool in Python `code`, or why some could be hidden.

    `spawns_reach`: a process the code starts can reach the tools (they are an importable
    module); `known`: modules the code may import that this process cannot find (the
    tools' own module, packages installed where the code runs); `also`: other names in the
    code's namespace that reach a tool (its class) -> the tool's name."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Reading(hidden="it is not Python hookport can parse")
    reader = _Reader(offered, spawns_reach, frozenset(known), also or {})
    try:
        reader.visit(tree)
    except RecursionError:
        return Reading(hidden="it is nested too deeply to read")
    return Reading(reader.uses, reader.hidden)


def read_blocks(blocks: Iterable[tuple[str, str]], offered: Offered, python: Iterable[str], *,
                spawns_reach: bool = False, known: Iterable[str] = (), also: Mapping[str, str] | None = None,
                ) -> Reading:
    """`read` over (language, code) blocks; a block in another language (a shell) is hidden."""
    reading = Reading()
    languages = {p.lower() for p in python}
    for language, code in blocks:
        if language.lower() in languages:
            reading.add(read(code, offered, spawns_reach=spawns_reach, known=known, also=also))
        else:
            reading.add(Reading(uses=_mentions(code, {**{n: n for n in offered}, **(also or {})}),
                                hidden=f"it runs a {language or 'shell'} block, whose calls hookport cannot read"))
    return reading


def _mentions(text: str, names: Mapping[str, str]) -> list[Use]:
    """A use per tool named (as a word) in `text`; `names`: a name the text may use -> its tool."""
    found = {tool for name, tool in names.items()
             if name in text and re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text)}
    return [Use(tool, unread={"*": "named in a string"}) for tool in sorted(found)]


def _literal(node: ast.AST) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None


def _source(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - only a description
        return "<code>"


class _Reader(ast.NodeVisitor):
    def __init__(self, offered: Offered, spawns_reach: bool, known: frozenset[str], also: Mapping[str, str]) -> None:
        self.offered = offered
        self.names: dict[str, str] = {**{n: n for n in offered}, **also}
        """Every name in the code's namespace that reaches a tool -> the tool's name."""
        self.spawns_reach = spawns_reach
        self.known = known
        self.uses: list[Use] = []
        self.hidden: str | None = None
        self.aliases: dict[str, str] = {}
        """Local name -> what it was imported as: ``wipe`` -> ``purge_records``, ``s`` -> ``sys``."""
        self._read_callees: set[int] = set()

    def _hide(self, why: str) -> None:
        self.hidden = self.hidden or why

    def _tool(self, name: str | None) -> str | None:
        return None if name is None else self.names.get(self.aliases.get(name, name))

    # -- imports ------------------------------------------------------------------------------------------

    def _module(self, dotted: str) -> None:
        top = dotted.split(".")[0]
        if top in _REFLECTIVE_MODULES or (top.startswith("_") and top != "__future__"):
            self._hide(f"it imports {top}, which reaches names at run time")
        elif self.spawns_reach and top in _SPAWN_MODULES:
            self._hide(f"it imports {top}, which starts processes")
        elif not _importable(top, self.known):
            self._hide(f"it imports {top}, a module hookport cannot read")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._module(alias.name)
            if alias.asname:
                self.aliases[alias.asname] = alias.name
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self._hide("it imports relatively")
        self._module(node.module or "")
        for alias in node.names:
            qualified = f"{node.module}.{alias.name}"
            if alias.name in self.names:
                self.aliases[alias.asname or alias.name] = alias.name
            elif _reaches(qualified, self.spawns_reach):
                self._hide(f"it imports {qualified}")
            else:
                self.aliases[alias.asname or alias.name] = qualified
        self.generic_visit(node)

    # -- names, attributes, strings -----------------------------------------------------------------------

    def visit_Name(self, node: ast.Name) -> None:
        name = self.aliases.get(node.id, node.id)
        if id(node) in self._read_callees:
            return
        if name in _BUILDS_CODE or name in _BY_NAME or name.split(".")[-1] in _BY_NAME:
            self._hide(f"it uses {node.id} other than to call it with a literal name")
        elif node.id.startswith("__") and node.id.endswith("__") and node.id not in _SAFE_DUNDERS:
            self._hide(f"it reads {node.id}")
        elif (tool := self._tool(node.id)) is not None:
            self.uses.append(Use(tool, unread={"*": f"{node.id} used as a value"}))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        dotted = _dotted(node, self.aliases)
        if node.attr.startswith("__") and node.attr.endswith("__") and node.attr not in _SAFE_DUNDERS:
            self._hide(f"it reads .{node.attr}")
        elif node.attr in _FRAMES:
            self._hide(f"it reads .{node.attr}")
        elif dotted is not None and _reaches(dotted, self.spawns_reach):
            self._hide(f"it uses {dotted}")
        elif dotted is not None and dotted.split(".")[-1] in _BY_NAME and id(node) not in self._read_callees:
            self._hide(f"it uses {dotted} other than to call it with a literal name")
        elif id(node) not in self._read_callees and node.attr in self.names:
            self.uses.append(Use(self.names[node.attr], unread={"*": f"{_source(node)} used as a value"}))
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and id(node) not in self._read_callees:
            self.uses.extend(_mentions(node.value, self.names))

    # -- calls --------------------------------------------------------------------------------------------

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        callee = _callee_name(func, self.aliases)
        if callee in _BUILDS_CODE:
            self._hide(f"it calls {callee}")
        elif callee is not None and callee.split(".")[-1] in _BY_NAME:
            self._by_name(node, callee)
        tool = self._tool(func.id) if isinstance(func, ast.Name) else (
            self.names.get(func.attr) if isinstance(func, ast.Attribute) else None)
        if tool is None and isinstance(func, ast.Call):  # getattr(functions, "purge_records")("users")
            inner = _callee_name(func.func, self.aliases)
            if inner in ("getattr", "operator.attrgetter") and len(func.args) >= 2:
                named = func.args[1]
                if isinstance(named, ast.Constant) and named.value in self.names:
                    tool = self.names[named.value]
                    self._read_callees.add(id(named))
        if tool is not None:
            self.uses.append(self._use(tool, node))
            self._read_callees.add(id(func))
        self.generic_visit(node)

    def _by_name(self, node: ast.Call, callee: str) -> None:
        index = 0 if callee.split(".")[-1] in ("attrgetter", "methodcaller") else 1
        self._read_callees.add(id(node.func))
        named = node.args[index] if len(node.args) > index else None
        if not (isinstance(named, ast.Constant) and isinstance(named.value, str)):
            self._hide(f"it calls {callee} with a computed name")
        elif named.value in self.names and id(named) not in self._read_callees:
            self.uses.append(Use(self.names[named.value], unread={"*": f"reached by {callee}"}))
            self._read_callees.add(id(named))

    def _use(self, tool: str, node: ast.Call) -> Use:
        use = Use(tool)
        params = list(self.offered.get(tool) or ())
        for index, arg in enumerate(node.args):
            key = params[index] if index < len(params) else f"arg{index}"
            if isinstance(arg, ast.Starred):
                use.unread["*"] = _source(arg)
                continue
            self._set(use, key, arg)
        for keyword in node.keywords:
            if keyword.arg is None:
                use.unread["**"] = _source(keyword.value)
            else:
                self._set(use, keyword.arg, keyword.value)
        return use

    @staticmethod
    def _set(use: Use, key: str, value: ast.AST) -> None:
        ok, literal = _literal(value)
        if ok:
            use.arguments[key] = literal
        else:
            use.unread[key] = _source(value)


def _callee_name(func: ast.AST, aliases: Mapping[str, str]) -> str | None:
    if isinstance(func, ast.Name):
        return aliases.get(func.id, func.id)
    if isinstance(func, ast.Attribute):
        return _dotted(func, aliases)
    return None


def _dotted(node: ast.AST, aliases: Mapping[str, str]) -> str | None:
    """``os.system`` for ``os.system`` (and for ``o.system`` after ``import os as o``)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(aliases.get(node.id, node.id))
    return ".".join(reversed(parts))


def _reaches(dotted: str, spawns_reach: bool) -> bool:
    """A module member that reaches names at run time (or starts a process, where that reaches the tools)."""
    module, _, member = dotted.rpartition(".")
    if module == "sys" and member in ("modules", "_getframe", "_current_frames"):
        return True
    if module == "operator" and member in ("attrgetter", "methodcaller"):
        return False  # read as a call, like getattr
    if not spawns_reach:
        return False
    if module == "os" and (member in ("system", "popen", "fork", "forkpty", "startfile")
                           or member.startswith(("exec", "spawn", "posix_spawn"))):
        return True
    return module == "asyncio" and member.startswith("create_subprocess")


_found: dict[str, bool] = {}


def _importable(top: str, known: frozenset[str]) -> bool:
    if not top or top in known or top in sys.stdlib_module_names or top in sys.builtin_module_names:
        return True
    if top not in _found:
        try:
            _found[top] = find_spec(top) is not None
        except (ImportError, ValueError):
            _found[top] = False
    return _found[top]


# -- deciding ---------------------------------------------------------------------------------------------


def guards_any(names: Iterable[str]) -> bool:
    """True when a hook that may refuse one of `names` is registered here: a PRE_TOOL_CALL or
    wrap hook whose ``tools=`` filter admits it (or that has none)."""
    if not tool_hooks_active():
        return False
    wanted = {sanitize_tool_name(n) for n in names}
    for point in (InterceptionPoint.PRE_TOOL_CALL, ExtensionPoint.WRAP_TOOL_CALL):
        for hook in hooks_for(point):
            tools = hook.tools if isinstance(hook, HookEntry) else None
            if tools is None or wanted & tools:
                return True
    return False


Context = Callable[[Use], ToolCallHookContext]
"""Makes the context of one use (the adapter's framework, agent, tool object)."""


def _context(use: Use, context: Context) -> ToolCallHookContext:
    ctx = context(use)
    if use.unread:
        ctx.metadata[UNREAD] = dict(use.unread)
    return ctx


def _hidden_refusal(reading: Reading, offered: Offered, context: Context,
                    shape: ToolShape[R]) -> tuple[ToolCallHookContext, HookAborted]:
    guarded = [n for n in offered if guards_any([n])] or list(offered)
    ctx = context(Use(", ".join(guarded)))
    refusal = HookAborted(reason=f"hookport cannot tell which tools this code calls: {reading.hidden}",
                          source=SOURCE)
    ctx.refused, ctx.refusal, ctx.duration_ms = True, refusal, 0.0
    ctx.tool_result = shape.refusal_text(ctx, refusal)
    return ctx, refusal


def must_refuse(reading: Reading, offered: Offered) -> bool:
    """Hidden code while a hook may refuse one of the offered tools: refused, unread."""
    return reading.hidden is not None and guards_any(offered)


class _Decided:
    """The uses of one code execution that the text decided with every argument known."""

    __slots__ = ("left", "lock")

    def __init__(self, uses: Iterable[Use]) -> None:
        self.left = [(u.name, u.arguments) for u in uses if not u.unread]
        self.lock = threading.Lock()

    def claim(self, name: str, arguments: Mapping[str, Any]) -> bool:
        with self.lock:
            for index, (decided_name, decided_args) in enumerate(self.left):
                if decided_name == name and _same(decided_args, arguments):
                    del self.left[index]
                    return True
        return False


_decided: ContextVar[_Decided | None] = ContextVar("hookport_code_decided", default=None)


def claim_decided(name: str, arguments: Mapping[str, Any] | None) -> bool:
    """For a guard on a tool's function in this process: True when the running code's text
    already decided this call (same name, every argument written out and equal); claimed once."""
    decided = _decided.get()
    return decided is not None and arguments is not None and decided.claim(name, arguments)


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    try:
        return bool(dict(a) == dict(b))
    except Exception:  # noqa: BLE001 - values whose comparison raises: not provably the same call
        return False


def decide(reading: Reading, offered: Offered, run: Callable[[], R], shape: ToolShape[R], context: Context) -> R:
    """PRE_TOOL_CALL for each use (any refusal: `run` never runs), then `run()`, then POST for each."""
    if must_refuse(reading, offered):
        ctx, refusal = _hidden_refusal(reading, offered, context, shape)
        dispatch(InterceptionPoint.POST_TOOL_CALL, ctx)
        return shape.refuse(ctx, refusal)
    uses = reading.uses

    def step(index: int) -> R:
        if index < len(uses):
            return tool_call(_context(uses[index], context), lambda c: step(index + 1), shape)
        token = _decided.set(_Decided(uses))
        try:
            return run()
        finally:
            _decided.reset(token)

    return step(0)


async def adecide(reading: Reading, offered: Offered, run: Callable[[], Awaitable[R]], shape: ToolShape[R],
                  context: Context) -> R:
    """`decide` for async call sites."""
    if must_refuse(reading, offered):
        ctx, refusal = _hidden_refusal(reading, offered, context, shape)
        await adispatch(InterceptionPoint.POST_TOOL_CALL, ctx)
        return shape.refuse(ctx, refusal)
    uses = reading.uses

    async def step(index: int) -> R:
        if index < len(uses):
            return await atool_call(_context(uses[index], context), lambda c: step(index + 1), shape)
        token = _decided.set(_Decided(uses))
        try:
            return await run()
        finally:
            _decided.reset(token)

    return await step(0)
