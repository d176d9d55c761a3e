"""Model requests on ADK: Gemini Content as OpenAI-style dicts, edits that never reach the session."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hookport import ExtensionPoint, InterceptionPoint, on, register_hook
from tests.adapters.google_adk.harness import Record, make_runner, message
from tests.conformance.harness import Turn

P = InterceptionPoint


def _run(record: Record, prompt: str = "What is 2 + 3?", name: str = "alpha") -> tuple[list[Any], Any]:
    runner = make_runner(record, name)

    async def go() -> tuple[list[Any], Any]:
        session = await runner.session_service.create_session(app_name="hookport", user_id="u")
        events = [e async for e in runner.run_async(user_id="u", session_id=session.id, new_message=message(prompt))]
        stored = await runner.session_service.get_session(app_name="hookport", user_id="u", session_id=session.id)
        return events, stored

    return asyncio.run(go())


def test_messages_are_openai_style_dicts(harness: Any) -> None:
    seen: list[list[dict[str, Any]]] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: seen.append([dict(m) for m in ctx.messages]))
    record = Record([Turn.call("add_numbers", a=2, b=3), Turn.final("five")])
    _run(record)
    assert len(seen) == 2
    first, second = seen
    assert first[0] == {"role": "system", "content": first[0]["content"]} and "Answer briefly." in first[0]["content"]
    assert first[-1] == {"role": "user", "content": "What is 2 + 3?"}
    call = second[-2]
    assert call["role"] == "assistant" and call["tool_calls"][0]["id"] == "call_1"
    assert call["tool_calls"][0]["function"] == {"name": "add_numbers", "arguments": json.dumps({"a": 2, "b": 3})}
    assert second[-1]["role"] == "tool" and second[-1]["tool_call_id"] == "call_1"
    assert second[-1]["name"] == "add_numbers" and "5" in second[-1]["content"]


def test_edits_reach_the_model_but_not_the_session(harness: Any) -> None:
    @on(P.PRE_MODEL_CALL)
    def rewrite(ctx: Any) -> None:
        ctx.messages[0]["content"] = "SYSTEM-EDITED"
        for m in ctx.messages:
            if m["role"] == "user" and m["content"] == "What is 2 + 3?":
                m["content"] = "USER-EDITED"

    record = Record([Turn.final("done")])
    _, session = _run(record)
    sent = record.model_inputs[0]
    assert sent[0] == {"role": "system", "content": "SYSTEM-EDITED"}
    assert {"role": "user", "content": "USER-EDITED"} in sent
    stored_texts = [p.text for e in session.events for p in (e.content.parts if e.content else []) or [] if p.text]
    assert "What is 2 + 3?" in stored_texts and "USER-EDITED" not in stored_texts


def test_a_replacement_is_the_answer_adk_records(harness: Any) -> None:
    register_hook(P.POST_MODEL_CALL, lambda ctx: "REPLACED")
    record = Record([Turn.final("original")])
    events, session = _run(record)
    caller = [p.text for e in events for p in (e.content.parts if e.content else []) or [] if p.text]
    assert caller == ["REPLACED"]
    # the replacement is the model's answer: ADK builds its event (and the session's copy) from it
    stored = [p.text for e in session.events if e.author == "alpha" for p in e.content.parts if p.text]
    assert stored == ["REPLACED"]


def test_an_unhooked_request_is_untouched(harness: Any) -> None:
    register_hook(P.PRE_TOOL_CALL, lambda ctx: None)  # hooks elsewhere: the model path stays native
    record = Record([Turn.final("plain")])
    events, _ = _run(record)
    assert [p.text for e in events for p in e.content.parts if p.text] == ["plain"]


def test_async_wrap_hook_retries_on_the_runs_loop(harness: Any) -> None:
    loops: list[Any] = []

    @on(ExtensionPoint.WRAP_MODEL_CALL)
    async def retry(ctx: Any, call_next: Any) -> Any:
        loops.append(asyncio.get_running_loop())
        try:
            return await call_next(ctx)
        except RuntimeError:
            return await call_next(ctx)

    record = Record([Turn.fail("overloaded"), Turn.final("second time lucky")])
    events, _ = _run(record)
    assert len(record.model_inputs) == 2
    assert "second time lucky" in [p.text for e in events for p in e.content.parts if p.text]
    assert len(loops) == 1


def test_the_users_model_callbacks_run_around_hookport(harness: Any) -> None:
    order: list[str] = []
    on(P.PRE_MODEL_CALL)(lambda ctx: order.append("hookport pre"))
    on(P.POST_MODEL_CALL)(lambda ctx: order.append("hookport post"))

    def before_model(callback_context: Any, llm_request: Any) -> None:
        order.append("agent before_model")

    def after_model(callback_context: Any, llm_response: Any) -> None:
        order.append("agent after_model")

    record = Record([Turn.final("done")])
    runner = make_runner(record, "alpha", before_model_callback=before_model, after_model_callback=after_model)

    async def go() -> None:
        session = await runner.session_service.create_session(app_name="hookport", user_id="u")
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message("hi")):
            pass

    asyncio.run(go())
    assert order == ["agent before_model", "hookport pre", "hookport post", "agent after_model"]
