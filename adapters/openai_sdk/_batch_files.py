"""Batch output files: the tool calls of the answers a finished batch holds, reviewed when the file is read.

A batch (``client.batches``) answers its requests in an output file the application
downloads with ``files.content(output_file_id)`` and reads line by line: each line's
``response.body`` is a chat completion or a ``Response``, whose tool calls the loop then
runs. So ``Files.content`` is a call site: when the file is a batch's output (every line
has a ``custom_id`` and a ``response``), each answer is reviewed as a fetched answer is
(PRE_TOOL_CALL per call, a refused call removed, edited arguments written in) and the
file's bytes are rewritten, so ``.content``, ``.text``, ``.json()``, ``iter_bytes`` and
``write_to_file`` all hold the reviewed answers. The batch's requests were uploaded in
another file, so no later request can be matched to the conversation: the refusals are
written into the answer as text (appended to the chat message's ``content``, a Responses
``message`` item), and a chat answer left with no call stops (``finish_reason`` ``"stop"``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from hookport.calls import tool_hooks_active

from hookport.adapters._sdk_tools import ToolLedger

Wrapper = Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]


def _lines(body: bytes) -> list[dict[str, Any]] | None:
    """The file's lines when it is a batch's output file, else None."""
    try:
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
    except (ValueError, UnicodeDecodeError):
        return None
    if not lines or not all(isinstance(x, dict) and "custom_id" in x and "response" in x for x in lines):
        return None
    return lines


def _note_chat(completion: Any, review: Any) -> None:
    """Each choice's refusals appended to its message's text; a message with no call left stops."""
    for choice in completion.choices or ():
        texts = [text for call, text in review.refused if call.group == choice.index]
        if not texts:
            continue
        message = choice.message
        message.content = "\n".join([*(t for t in [message.content] if t), *texts])
        if not (message.tool_calls or getattr(message, "function_call", None)):
            message.tool_calls = None
            choice.finish_reason = "stop"


def _note_response(response: Any, review: Any) -> None:
    from openai.types.responses import ResponseOutputMessage

    text = "\n".join(text for _, text in review.refused)
    response.output = [*response.output, ResponseOutputMessage.model_construct(
        id="msg_hookport", type="message", role="assistant", status="completed",
        content=[{"type": "output_text", "text": text, "annotations": []}])]


def batch_file_wrappers(chat: Any, responses: Any, ledger: ToolLedger) -> tuple[Wrapper, Wrapper]:
    """The wrapt wrappers of ``Files.content`` and ``AsyncFiles.content``."""

    def review_body(body: dict[str, Any]) -> dict[str, Any]:
        from openai._models import construct_type
        from openai.types.chat import ChatCompletion
        from openai.types.responses import Response

        kind = body.get("object")
        dialect, model_type, note = {"chat.completion": (chat, ChatCompletion, _note_chat),
                                     "response": (responses, Response, _note_response)}.get(kind, (None, None, None))
        if dialect is None:
            return body
        model = construct_type(type_=model_type, value=body)
        answer = dialect.answer(None, whole=model)
        calls = dialect.calls(answer)
        if not calls:
            return body
        review = ledger.review(calls, dialect.api, "")
        if not (review.refused or review.edited()):
            return body
        dialect.apply(answer, review, ledger)
        if review.refused:
            note(model, review)
        return model.model_dump(mode="json", exclude_unset=True)

    def review_file(result: Any) -> None:
        http = getattr(result, "response", None)
        if http is None or not tool_hooks_active() or "_content" not in vars(http):
            return
        lines = _lines(http.content)
        if lines is None:
            return
        for line in lines:
            body = (line.get("response") or {}).get("body")
            if isinstance(body, dict):
                line["response"]["body"] = review_body(body)
        http._content = "".join(json.dumps(line) + "\n" for line in lines).encode()
        if "_text" in vars(http):
            del http._text

    def content(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        result = wrapped(*args, **kwargs)
        review_file(result)
        return result

    async def acontent(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        result = await wrapped(*args, **kwargs)
        review_file(result)
        return result

    return content, acontent
