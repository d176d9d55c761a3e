"""PRE_MODEL_CALL / POST_MODEL_CALL (and the wrap hooks) around an agent's model request.

Every agent asks its model through ``_get_response(messages, ...)`` (``achat_with_tools`` /
``achat``) or, when ``streaming=True`` (the default), ``_get_streaming_response(ctx, messages,
...)`` (``astream_chat_with_tools`` / ``astream_chat``, whose chunks go to the run's event
stream), on ``FunctionAgent``, ``CodeActAgent`` and (0.14.1x on) ``ReActAgent``; members of
an ``AgentWorkflow`` too. Both return the final ``ChatResponse``, which is what the agent
keeps in its scratchpad and memory, so a POST_MODEL_CALL replacement reaches the run's
answer on streamed requests as well (the chunks already streamed are not recalled). The
request goes through whatever LLM class the agent holds (``llm=`` or ``Settings.llm``).

While a request is in flight ``MODEL_LAYER`` is held (also with no model hook, when tool
hooks are registered), so the ``openai`` adapter under ``llama-index-llms-openai`` stays silent.
"""

from __future__ import annotations

from typing import Any

from hookport.adapters._sync_wraps import on_worker, sync_wraps
from hookport.adapters.llama_index._messages import Conversation, message_text, with_text
from hookport.adapters.llama_index._state import FRAMEWORK, agent_fields, next_model_call
from hookport.calls import MODEL_LAYER, ResponseShape, amodel_call, model_call, model_hooks_active, \
    tool_hooks_active
from hookport.contexts import LazyMessagesContext, LazyView, LLMCallHookContext
from hookport.points import ExtensionPoint


class _ChatResponseShape(ResponseShape[Any]):
    def text(self, result: Any) -> str | None:
        return None if result is None else message_text(result.message)

    def replace(self, result: Any, text: str) -> Any:
        from llama_index.core.base.llms.types import ChatMessage, ChatResponse

        if result is None:
            return ChatResponse(message=ChatMessage(role="assistant", content=text))
        clone = result.model_copy()
        clone.message = with_text(result.message, text)
        return clone


SHAPE = _ChatResponseShape()


def model_request(position: int) -> Any:
    """The wrapper of an agent method whose argument `position` is the message list."""

    async def wrapper(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        iterations = next_model_call(instance)
        if not model_hooks_active():
            if not tool_hooks_active():
                return await wrapped(*args, **kwargs)
            with MODEL_LAYER.hold():  # this adapter serves the tool calls the model asks for
                return await wrapped(*args, **kwargs)
        in_kwargs = position >= len(args)
        messages = kwargs["current_llm_input"] if in_kwargs else args[position]
        sent = list(messages)  # as sent, should a hook first read them after the call
        lazy = LazyView(lambda: Conversation(sent, getattr(instance, "llm", None)))
        ctx = LazyMessagesContext(lazy.build, keep_copy=False, llm=getattr(instance, "llm", None), framework=FRAMEWORK,
                                  iterations=iterations, metadata={"stream": "streaming" in wrapped.__name__},
                                  **agent_fields(instance))

        async def send(c: LLMCallHookContext) -> Any:
            sent = messages if lazy.view is None else lazy.view.rebuilt(c.messages)
            if in_kwargs:
                return await wrapped(*args, **{**kwargs, "current_llm_input": sent})
            return await wrapped(*args[:position], sent, *args[position + 1:], **kwargs)

        if sync_wraps(ExtensionPoint.WRAP_MODEL_CALL):
            return await on_worker(model_call, ctx, send, SHAPE)
        return await amodel_call(ctx, send, SHAPE)

    return wrapper
