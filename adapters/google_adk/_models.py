"""PRE_MODEL_CALL / WRAP_MODEL_CALL / POST_MODEL_CALL around every model request of an ADK agent.

The call site is ``BaseLlmFlow._run_and_handle_error(responses, invocation_context,
llm_request, ...)``: ADK hands it the response generator of whatever ``BaseLlm`` the
agent uses (``llm.generate_content_async(llm_request, stream=...)``, created but not
started) and runs the model's error callbacks and tracing around it. hookport runs
its sequence around that: PRE sees the request as ADK's request processors and the
plugins' and agent's ``before_model`` callbacks left it; ``call_next`` drives ADK's
own error handling around the real model (a wrap hook's retry issues a fresh
``generate_content_async`` on the same model); POST runs before the ``after_model``
callbacks, which see its replacement.

``ctx.iterations`` counts the model requests of one agent run (``BaseAgent.run_async``, which gives
each agent run an ``InvocationContext`` of its own: a sub-agent it transfers to, a ``SequentialAgent``'s
children and an ``AgentTool``'s agent each count their own from 0) made before this one, counted at
this call site whatever is registered; a wrap hook's retry is the same request.

While model hooks are registered, one request's responses are collected before ADK
sees them (a streamed request's chunks arrive together at its end), so PRE edits and
POST replacements apply to the whole answer; with none registered the call is not
touched.
"""

from __future__ import annotations

import weakref
from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import Any

from google.adk.agents.run_config import StreamingMode
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.genai import types

from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.google_adk._messages import MessageView, content_text
from hookport.adapters.google_adk._state import FRAMEWORK, agent_fields
from hookport.calls import ResponseShape, amodel_call, model_call, model_hooks_active
from hookport.contexts import LazyMessagesContext, LazyView, LLMCallHookContext
from hookport.points import ExtensionPoint

Responses = list[LlmResponse]


class ResponsesShape(ResponseShape[Responses]):
    """One model request's answer: every ``LlmResponse`` the model yielded (stream chunks included)."""

    def text(self, result: Responses) -> str | None:
        texts = [t for t in (content_text(r.content) for r in _complete(result or [])) if t is not None]
        return "".join(texts) if texts else None

    def replace(self, result: Responses | None, text: str) -> Responses:
        """The last complete response carries `text` (its calls kept); stream chunks of the old text go."""
        complete = _complete(result or [])
        if not complete:
            return [LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))]
        last = complete[-1]
        kept = [r.model_copy(update={"content": _without_text(r.content)}) for r in complete[:-1]]
        others = [p for p in (last.content.parts if last.content else None) or [] if p.text is None]
        return [*kept, last.model_copy(update={"content": types.Content(
            role="model", parts=[types.Part(text=text), *others])})]

    def coerce(self, value: Any, ctx: Any) -> Responses:
        if isinstance(value, LlmResponse):
            return [value]
        return super().coerce(value, ctx)


SHAPE = ResponsesShape()


def _complete(responses: Responses) -> Responses:
    """The non-partial responses (all of them when the model marked every one partial)."""
    return [r for r in responses if not r.partial] or list(responses)


def _without_text(content: types.Content | None) -> types.Content | None:
    if content is None:
        return None
    return types.Content(role=content.role, parts=[p for p in content.parts or [] if p.text is None])


def model_request(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``BaseLlmFlow._run_and_handle_error``: hooked when a model hook would run."""
    responses, invocation_context, llm_request, rest, kw = _bind(args, kwargs)
    if _is_live(invocation_context, responses):
        return wrapped(*args, **kwargs)
    iterations = _counted(invocation_context)
    if not model_hooks_active():
        return wrapped(*args, **kwargs)
    return _hooked(wrapped, responses, invocation_context, llm_request, rest, kw, iterations)


_model_calls: dict[int, tuple[Any, list[int]]] = {}
"""id(agent run's InvocationContext) -> (a weak reference to it, [model requests so far])."""


def _counted(invocation_context: Any) -> int:
    """The model requests this agent run made before this one (and this one counted)."""
    key = id(invocation_context)
    held = _model_calls.get(key)
    if held is None or held[0]() is not invocation_context:
        try:
            ref = weakref.ref(invocation_context, lambda _gone, key=key: _model_calls.pop(key, None))
        except TypeError:  # not weakly referable: counted from 0 on every request
            return 0
        held = _model_calls[key] = (ref, [0])
    count = held[1]
    before = count[0]
    count[0] = before + 1
    return before


def _bind(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any, Any, tuple[Any, ...], dict[str, Any]]:
    kw = dict(kwargs)
    names = ("response_generator", "invocation_context", "llm_request")
    values = list(args[:3]) + [kw.pop(n, None) for n in names[len(args[:3]):]]
    return values[0], values[1], values[2], tuple(args[3:]), kw


def _is_live(invocation_context: Any, responses: Any) -> bool:
    """The live (bidi) path hands ``run_live``'s generator here: not a model request hookport covers."""
    code = getattr(responses, "ag_code", None)
    return getattr(code, "co_name", "") == "run_live"


def _model_of(responses: Any, invocation_context: Any) -> Any:
    """The ``BaseLlm`` that made `responses` (a wrap hook's retry asks it again)."""
    frame = getattr(responses, "ag_frame", None)
    model = frame.f_locals.get("self") if frame is not None else None
    if isinstance(model, BaseLlm):
        return model
    return getattr(invocation_context.agent, "canonical_model", None)


async def _hooked(wrapped: Any, responses: Any, invocation_context: Any, llm_request: Any,
                  rest: tuple[Any, ...], kw: dict[str, Any], iterations: int) -> AsyncIterator[LlmResponse]:
    model = _model_of(responses, invocation_context)
    config = llm_request.config
    contents, system = list(llm_request.contents or []), config.system_instruction if config else None  # as sent
    lazy = LazyView(lambda: MessageView(contents, system))
    agent = invocation_context.agent
    ctx = LazyMessagesContext(lazy.build, keep_copy=False, llm=model, iterations=iterations, framework=FRAMEWORK,
                              **agent_fields(agent))
    unused = [responses]  # ADK's own generator serves the first attempt
    stream = invocation_context.run_config.streaming_mode == StreamingMode.SSE

    async def send(c: LLMCallHookContext) -> Responses:
        view = lazy.view  # None: no hook read the messages, the request goes out as it came
        if view is not None:
            view.messages = c.messages  # the hooks' list, edited in place or replaced
            if view.changed():
                _apply(view, llm_request)
        source = unused.pop() if unused else model.generate_content_async(llm_request, stream=stream)
        async with aclosing(wrapped(source, invocation_context, llm_request, *rest, **kw)) as answers:
            return [answer async for answer in answers]

    try:
        if sync_wraps(ExtensionPoint.WRAP_MODEL_CALL):
            answer = await on_worker(model_call, ctx, send, SHAPE)
        else:
            answer = await amodel_call(ctx, send, SHAPE)
    finally:
        for source in unused:  # a wrap hook answered without calling the model
            await source.aclose()
    for response in answer:
        yield response


def _apply(view: MessageView, llm_request: Any) -> None:
    """Edited messages into the request: new Content objects, ADK's session untouched."""
    contents, system = view.to_request()
    llm_request.contents = contents
    if llm_request.config is None:
        llm_request.config = types.GenerateContentConfig()
    llm_request.config.system_instruction = system
