"""The typed contexts hooks receive, one class per point family.

They are plain classes with ``__slots__`` because one is built for every model
and tool call. Every context carries the shared fields (`payload`, `agent`,
`agent_role`, `task`, `crew`, `flow`) plus `framework`, the adapter that fired
it, and `metadata`, a dict for framework details (a LangChain tool_call_id,
the kwargs of a model call) that have no portable name.

On every framework `LLMCallHookContext.messages` is a list of OpenAI-style
dicts (``role``, ``content``, and ``tool_calls`` / ``tool_call_id`` where
present); adapters convert to and from their native message types.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Callable
from typing import Any, ClassVar, Generic, Optional, Protocol, TypeVar

from hookport.runs import current_run_id

_UNSET: Any = object()


class InterceptionContext:
    """The fields every point shares."""

    __slots__ = ("payload", "agent", "agent_role", "task", "crew", "flow", "framework", "metadata", "__dict__")
    # `__dict__` takes a hook's own attributes (a start time, a flag for a later hook), as
    # CrewAI's plain-object contexts do; the fixed fields stay slots, and no dict is made
    # until a hook stores something.

    def __init__(
        self,
        payload: Any = None,
        *,
        agent: Any = None,
        agent_role: str | None = None,
        task: Any = None,
        crew: Any = None,
        flow: Any = None,
        framework: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.payload = payload
        set_shared_fields(self, agent, agent_role, task, crew, flow, framework, metadata)

    @property
    def run_id(self) -> str | None:
        """The id of the run this call belongs to (`hookport.runs`), or None outside any run."""
        return current_run_id()

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{name}={getattr(self, name)!r}"
            for name in _all_slots(type(self))
            if name not in ("metadata", "__dict__") and getattr(self, name, None) is not None
        )
        return f"{type(self).__name__}({fields})"

    def request_human_input(
        self, prompt: str, default_message: str = "Press Enter to continue, or provide feedback:"
    ) -> str:
        """Ask the person at the terminal; returns their stripped answer.

        Adapters whose framework draws a live console may put a callable under
        ``metadata["request_human_input"]`` to pause it around the question.
        """
        asker = self.metadata.get("request_human_input")
        if asker is not None:
            return str(asker(prompt, default_message)).strip()
        print(prompt, file=sys.stderr)
        print(default_message, file=sys.stderr)
        return input().strip()


def set_shared_fields(ctx: InterceptionContext, agent: Any, agent_role: str | None, task: Any, crew: Any,
                      flow: Any, framework: str | None, metadata: dict[str, Any] | None) -> None:
    """The fields every context shares, set directly (a context is built per call: subclasses and
    adapters' own contexts call this rather than the base ``__init__``'s keyword chain)."""
    ctx.agent = agent
    ctx.agent_role = agent_role if agent_role is not None or agent is None else _role_of(agent)
    ctx.task = task
    ctx.crew = crew
    ctx.flow = flow
    ctx.framework = framework
    ctx.metadata = metadata if metadata is not None else {}


class LLMCallHookContext(InterceptionContext):
    """PRE_MODEL_CALL / POST_MODEL_CALL.

    Mutate `messages` in place before the call; return a string after it to
    replace `response`. `payload` is `messages` before the call and `response`
    after it.
    """

    __slots__ = ("messages", "llm", "iterations", "response", "executor", "duration_ms")

    def __init__(
        self,
        messages: list[dict[str, Any]] | None = None,
        *,
        llm: Any = None,
        iterations: int = 0,
        response: str | None = None,
        executor: Any = None,
        agent: Any = None,
        agent_role: str | None = None,
        task: Any = None,
        crew: Any = None,
        flow: Any = None,
        framework: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        # Every field is set here, not through the base __init__'s keyword chain: one context is
        # built per model call, and the chain was about half its cost.
        self.messages = messages if messages is not None else []
        self.llm = llm
        self.iterations = iterations
        self.response = response
        self.executor = executor
        self.duration_ms: float | None = None
        """After the call: how long the model call took (wrap hooks and retries included)."""
        set_shared_fields(self, agent, agent_role, task, crew, flow, framework, metadata)

    @property  # type: ignore[override]
    def payload(self) -> Any:
        return self.response if self.response is not None else self.messages

    @payload.setter
    def payload(self, value: Any) -> None:
        if value is _UNSET:
            return
        if self.response is not None or isinstance(value, str):
            self.response = value
        elif isinstance(value, list):
            self.messages[:] = value


_MESSAGES = LLMCallHookContext.__dict__["messages"]
"""The slot that stores `messages`, under `LazyModelContext`'s property."""
_UNBUILT: Any = object()
"""`messages` not built yet: a sentinel in the slot (an AttributeError per call would cost)."""


def set_model_fields(ctx: LLMCallHookContext, llm: Any, iterations: int) -> None:
    """The model fields of a `LazyModelContext` before its call: `messages` unbuilt, no answer yet
    (beside `set_shared_fields`, for the same reason: one context is built per model call)."""
    _MESSAGES.__set__(ctx, _UNBUILT)
    ctx.llm = llm
    ctx.iterations = iterations
    ctx.response = None
    ctx.executor = None
    ctx.duration_ms = None


class LazyModelContext(LLMCallHookContext):
    """An `LLMCallHookContext` whose `messages` are built when a hook first reads or sets them.

    Converting a whole conversation to OpenAI-style dicts costs more than a no-op hook pair, and
    most hooks never read it. A subclass says how in `_build_messages()`; its ``__init__`` sets
    its own fields, `set_model_fields` and `set_shared_fields`. `built` tells the adapter whether
    any hook read or set the messages (never: send the framework's own request untouched), and
    `held_messages()` gives the list as hooks left it. With `builds_before_set` a hook that sets
    `messages` before reading them has them built first, for adapters that compare the hooks'
    list with what they built.
    """

    __slots__ = ()
    builds_before_set: ClassVar[bool] = False

    def _build_messages(self) -> list[dict[str, Any]]:
        raise NotImplementedError(f"{type(self).__name__} must say how its messages are built")

    def _get_messages(self) -> list[dict[str, Any]]:
        value = _MESSAGES.__get__(self, LLMCallHookContext)
        if value is _UNBUILT:
            value = self._build_messages()
            _MESSAGES.__set__(self, value)
        return value  # type: ignore[no-any-return]

    def _set_messages(self, value: list[dict[str, Any]]) -> None:
        if self.builds_before_set and _MESSAGES.__get__(self, LLMCallHookContext) is _UNBUILT:
            self._get_messages()
        _MESSAGES.__set__(self, value)

    messages = property(_get_messages, _set_messages)  # type: ignore[assignment]

    @property
    def built(self) -> bool:
        """True once a hook read or set `messages`."""
        return _MESSAGES.__get__(self, LLMCallHookContext) is not _UNBUILT

    def held_messages(self) -> list[dict[str, Any]] | None:
        """`messages` as hooks left them, without building them: None while no hook read or set them."""
        value = _MESSAGES.__get__(self, LLMCallHookContext)
        return None if value is _UNBUILT else value  # type: ignore[no-any-return]


class LazyMessagesContext(LazyModelContext):
    """A `LazyModelContext` built from a callable: ``LazyMessagesContext(build, llm=..., ...)``.

    `build()` runs when a hook first reads or replaces `messages` (or reads `payload` before the
    call); from then on it is an ordinary list that hooks edit in place or replace. `edited()`
    tells the adapter whether to rebuild the request: never read, or read and left as built,
    means send the framework's own messages untouched. An adapter that tracks edits itself (a
    view mapping each dict back to its message) passes ``keep_copy=False`` and asks `built`.
    """

    __slots__ = ("_build", "_as_built", "_keep_copy")
    builds_before_set = True  # `edited()` compares with what the request held

    def __init__(
        self,
        build: Callable[[], list[dict[str, Any]]],
        *,
        keep_copy: bool = True,
        llm: Any = None,
        iterations: int = 0,
        response: str | None = None,
        executor: Any = None,
        agent: Any = None,
        agent_role: str | None = None,
        task: Any = None,
        crew: Any = None,
        flow: Any = None,
        framework: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self._build: Optional[Callable[[], list[dict[str, Any]]]] = build
        self._as_built: list[dict[str, Any]] = []
        self._keep_copy = keep_copy
        set_model_fields(self, llm, iterations)
        self.response = response
        self.executor = executor
        set_shared_fields(self, agent, agent_role, task, crew, flow, framework, metadata)

    def _build_messages(self) -> list[dict[str, Any]]:
        build, self._build = self._build, None
        built = build() if build is not None else []
        if self._keep_copy:
            self._as_built = copy.deepcopy(built)
        return built

    def edited(self) -> bool:
        """True when hooks changed `messages` from what `build()` made (needs ``keep_copy``)."""
        if not self._keep_copy:
            raise TypeError("edited() needs LazyMessagesContext(keep_copy=True)")
        return self.built and _MESSAGES.__get__(self, LLMCallHookContext) != self._as_built


class DictsView(Protocol):
    """What an adapter's view of a request holds: the dicts hooks see (and its own way back)."""

    dicts: list[dict[str, Any]]


V = TypeVar("V", bound=DictsView)


class LazyView(Generic[V]):
    """An adapter's view of a request's messages, made when a hook first reads them.

    ``ctx = LazyMessagesContext(lazy.build, keep_copy=False, ...)``; `view` stays
    None while no hook read the messages, and the request then goes out as it came.
    """

    __slots__ = ("make", "view")

    def __init__(self, make: Callable[[], V]) -> None:
        self.make = make
        self.view: Optional[V] = None

    def build(self) -> list[dict[str, Any]]:
        self.view = self.make()
        return list(self.view.dicts)


class ToolCallHookContext(InterceptionContext):
    """PRE_TOOL_CALL / POST_TOOL_CALL.

    Mutate `tool_input` in place before the call; return a string after it to
    replace `tool_result`. `raw_tool_result` keeps what the tool really returned.
    """

    __slots__ = ("tool_name", "tool_input", "tool", "tool_result", "raw_tool_result", "tool_call_id",
                 "duration_ms", "refused", "refusal", "wrappable")

    def __init__(
        self,
        tool_name: str,
        tool_input: dict[str, Any] | None = None,
        tool: Any = None,
        *,
        tool_result: Any = None,
        raw_tool_result: Any = None,
        tool_call_id: str | None = None,
        agent: Any = None,
        agent_role: str | None = None,
        task: Any = None,
        crew: Any = None,
        flow: Any = None,
        framework: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> None:
        self.tool_name = tool_name
        self.tool_input = tool_input if tool_input is not None else {}
        self.tool = tool
        self.tool_result = tool_result
        self.raw_tool_result = raw_tool_result
        self.tool_call_id = tool_call_id
        self.duration_ms: float | None = None
        """After the call: how long the tool ran (0.0 when it was refused)."""
        self.refused = False
        """At POST_TOOL_CALL: True when a PRE_TOOL_CALL hook refused the call (`tool_result`
        then holds the refusal the model sees, `refusal` the `HookAborted`)."""
        self.refusal: Any = None
        self.wrappable = False
        """True when the adapter runs this tool itself, so `WRAP_TOOL_CALL` hooks run around it (set
        by `hookport.calls.tool_call`); False where the call is only seen on the wire (the SDK
        adapters), where a wrap hook cannot answer it in the tool's place."""
        set_shared_fields(self, agent, agent_role, task, crew, flow, framework, metadata)

    @property  # type: ignore[override]
    def payload(self) -> Any:
        return self.tool_result if self.tool_result is not None else self.tool_input

    @payload.setter
    def payload(self, value: Any) -> None:
        if value is _UNSET:
            return
        if self.tool_result is not None:
            self.tool_result = value
        elif isinstance(value, dict):
            if value is not self.tool_input:
                self.tool_input.clear()
                self.tool_input.update(value)


class ExecutionStartContext(InterceptionContext):
    """EXECUTION_START: `inputs` is the same dict as the original `payload`."""

    __slots__ = ("inputs",)

    def __init__(self, payload: Any = None, **fields: Any) -> None:
        inputs = fields.pop("inputs", None)
        super().__init__(payload, **fields)
        self.inputs = inputs if inputs is not None else (payload if payload is not None else {})


class InputContext(ExecutionStartContext):
    """INPUT: the resolved inputs of the execution."""

    __slots__ = ()


class OutputContext(InterceptionContext):
    """OUTPUT: the final result; replace it to change what the caller gets.

    `text` is the final answer's text on every framework (a CrewAI
    ``CrewOutput.raw``, a LangGraph state's last message, a plain string...):
    read it, or assign it to replace the answer, so an OUTPUT redaction hook is
    written once.
    """

    __slots__ = ("output", "duration_ms")

    def __init__(self, payload: Any = None, **fields: Any) -> None:
        output = fields.pop("output", payload)
        duration_ms = fields.pop("duration_ms", None)
        super().__init__(payload, **fields)
        self.output = output
        self.duration_ms: float | None = duration_ms
        """How long the execution ran until this point."""

    @property
    def text(self) -> str | None:
        from hookport.answers import text_of

        return text_of(self.payload)

    @text.setter
    def text(self, value: str) -> None:
        from hookport.answers import with_text

        self.payload = with_text(self.payload, value)


class ExecutionEndContext(OutputContext):
    """EXECUTION_END: fired once per execution, `status` "completed" or "failed"."""

    __slots__ = ("status", "error")

    def __init__(self, payload: Any = None, **fields: Any) -> None:
        status = fields.pop("status", "completed")
        error = fields.pop("error", None)
        super().__init__(payload, **fields)
        self.status = status
        self.error = error


class StepContext(InterceptionContext):
    """PRE_STEP / POST_STEP: `kind` says what a step is on this framework."""

    __slots__ = ("kind", "step_name", "output", "duration_ms")

    def __init__(self, payload: Any = None, **fields: Any) -> None:
        kind = fields.pop("kind", None)
        step_name = fields.pop("step_name", None)
        output = fields.pop("output", None)
        duration_ms = fields.pop("duration_ms", None)
        super().__init__(payload, **fields)
        self.kind = kind
        self.step_name = step_name
        self.output = output
        self.duration_ms: float | None = duration_ms
        """At POST_STEP / AGENT_TURN_END: how long the step ran."""


def _role_of(agent: Any) -> str | None:
    if agent is None:
        return None
    role = getattr(agent, "role", None)
    if isinstance(role, str):
        return role
    name = getattr(agent, "name", None)
    return name if isinstance(name, str) else None


def _all_slots(cls: type) -> list[str]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        names.extend(getattr(klass, "__slots__", ()))
    return names
