"""Bypass attempts on the openai adapter: every tool-call item the wire format has, every way to read it.

The application runs its own tools, so each test is an application loop that
runs whatever the answer it reads asks for, and counts the refused tool's real
executions: 0 with the deny, 1+ in its twin without it (the path really reaches
the tool). The model is `WireServer`, on 127.0.0.1, answering verbatim bodies.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

openai = pytest.importorskip("openai")

from hookport import HookAborted, InterceptionPoint, adapters, on, register_scoped, scoped_hooks  # noqa: E402
from hookport.adapters.openai_sdk import LEDGER  # noqa: E402
from hookport.contexts import ToolCallHookContext  # noqa: E402
from tests.adversarial import kit  # noqa: E402
from tests.adversarial.openai import wire  # noqa: E402
from tests.adversarial.openai.wire import WireServer  # noqa: E402

P = InterceptionPoint
SERVER = WireServer()
OTHER_SERVER = WireServer()
DENY = [False, True]


@pytest.fixture(autouse=True)
def installed() -> Iterator[None]:
    adapters.install("openai")
    LEDGER.clear()
    yield
    LEDGER.clear()


def deny_purge(deny: bool) -> None:
    if deny:
        kit.deny()


def client(is_async: bool = False) -> Any:
    cls = openai.AsyncOpenAI if is_async else openai.OpenAI
    return cls(base_url=SERVER.base_url + "/v1", api_key="sk-offline-dummy", max_retries=0)


def expected(deny: bool) -> int:
    return 0 if deny else 1


# -- Chat Completions ---------------------------------------------------------------------------------


def run_chat_message(message: Any, runs: list[Any]) -> None:
    """What a loop does with an assistant message: run its function, custom and legacy calls."""
    for call in message.tool_calls or ():
        if call.type == "custom":
            runs.append((call.custom.name, call.custom.input))
        else:
            runs.append((call.function.name, json.loads(call.function.arguments)))
    if getattr(message, "function_call", None) is not None:
        runs.append((message.function_call.name, json.loads(message.function_call.arguments)))


def purges(runs: list[Any]) -> int:
    return sum(1 for name, _ in runs if name == "purge_records")


CUSTOM = {"tool_calls": [{"id": "call_0", "type": "custom", "custom": {"name": "purge_records", "input": "users"}}]}
LEGACY = {"function_call": {"name": "purge_records", "arguments": json.dumps({"table": "users"})}}
FUNCTION = {"tool_calls": [wire.function_call("call_0", "purge_records", table="users")]}
CHAT_TOOLS = [{"type": "custom", "custom": {"name": "purge_records"}}]


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("shape", ["function", "custom", "legacy"])
def test_chat_call_kinds(deny: bool, shape: str) -> None:
    deny_purge(deny)
    SERVER.queue(wire.completion({"function": FUNCTION, "custom": CUSTOM, "legacy": LEGACY}[shape]),
                 wire.final_completion())
    runs: list[Any] = []
    answer = client().chat.completions.create(model="m", messages=[{"role": "user", "content": "purge"}])
    run_chat_message(answer.choices[0].message, runs)
    assert purges(runs) == expected(deny)
    if deny:  # the refusal went back to the model at once, in the API's own shape
        sent = SERVER.bodies()[-1]["messages"]
        assert "was refused" in json.dumps(sent[-1])


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("shape", ["custom", "legacy"])
def test_chat_call_kinds_streamed(deny: bool, shape: str) -> None:
    deny_purge(deny)
    SERVER.queue(wire.chat_chunks({"custom": CUSTOM, "legacy": LEGACY}[shape]), wire.chat_chunks({"content": "ok"}))
    runs: list[Any] = []
    for chunk in client().chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}],
                                                  stream=True):
        for choice in chunk.choices:
            for part in choice.delta.tool_calls or ():
                custom = getattr(part, "custom", None)
                name = (custom or {}).get("name") if isinstance(custom, dict) else part.function and part.function.name
                runs.append((name, None))
            if choice.delta.function_call is not None and choice.delta.function_call.name:
                runs.append((choice.delta.function_call.name, None))
    assert purges(runs) == expected(deny)


@pytest.mark.parametrize("deny", DENY)
def test_chat_every_choice_is_reviewed(deny: bool) -> None:
    """n=2: the application may take any choice; the second one's call is refused too."""
    deny_purge(deny)
    SERVER.queue(wire.completion({"content": "nothing to do"}, FUNCTION), wire.final_completion())
    runs: list[Any] = []
    answer = client().chat.completions.create(model="m", n=2, messages=[{"role": "user", "content": "purge"}])
    for choice in answer.choices:
        run_chat_message(choice.message, runs)
    assert purges(runs) == expected(deny)


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("api", ["chat", "responses"])
def test_raw_response_body_holds_no_refused_call(deny: bool, api: str) -> None:
    """``with_raw_response``: the HTTP body the caller can read agrees with the parsed object."""
    deny_purge(deny)
    other = wire.function_call("call_1", "add_numbers", a=1, b=2)
    runs: list[Any] = []
    if api == "chat":
        SERVER.queue(wire.completion({"tool_calls": [FUNCTION["tool_calls"][0], other]}))
        raw = client().chat.completions.with_raw_response.create(model="m", messages=[{"role": "user", "content": "x"}])
        for call in raw.http_response.json()["choices"][0]["message"].get("tool_calls") or ():
            runs.append((call["function"]["name"], None))
        assert [c.id for c in raw.parse().choices[0].message.tool_calls] == (["call_1"] if deny else ["call_0", "call_1"])
    else:
        SERVER.queue(wire.response(_function_item("call_0", "purge_records", table="users"),
                                   _function_item("call_1", "add_numbers", a=1, b=2)))
        raw = client().responses.with_raw_response.create(model="m", input="x")
        runs.extend((item["name"], None) for item in raw.http_response.json()["output"])
        assert len(json.loads(raw.text)["output"]) == (1 if deny else 2)
    assert purges(runs) == expected(deny)


@pytest.mark.parametrize("deny", DENY)
def test_raw_streamed_response_is_reviewed(deny: bool) -> None:
    deny_purge(deny)
    SERVER.queue(wire.chat_chunks(FUNCTION), wire.chat_chunks({"content": "ok"}))
    raw = client().chat.completions.with_raw_response.create(model="m", stream=True,
                                                             messages=[{"role": "user", "content": "x"}])
    runs = [(part.function.name, None) for chunk in raw.parse() for choice in chunk.choices
            for part in choice.delta.tool_calls or () if part.function and part.function.name]
    assert purges(runs) == expected(deny)


@pytest.mark.parametrize("deny", DENY)
def test_chat_async_custom_call(deny: bool) -> None:
    deny_purge(deny)
    SERVER.queue(wire.completion(CUSTOM), wire.final_completion())
    runs: list[Any] = []

    async def main() -> None:
        answer = await client(is_async=True).chat.completions.create(model="m", messages=[
            {"role": "user", "content": "x"}])
        run_chat_message(answer.choices[0].message, runs)

    asyncio.run(main())
    assert purges(runs) == expected(deny)


# -- Responses ----------------------------------------------------------------------------------------


def _function_item(call_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "function_call", "id": f"fc_{call_id}", "call_id": call_id, "name": name,
            "arguments": json.dumps(args), "status": "completed"}


ITEMS: dict[str, tuple[dict[str, Any], str]] = {
    # item type -> (the item, the name a hook filters on)
    "custom_tool_call": ({"type": "custom_tool_call", "id": "ctc_0", "call_id": "call_0", "name": "purge_records",
                          "input": "users"}, "purge_records"),
    "local_shell_call": ({"type": "local_shell_call", "id": "lsc_0", "call_id": "call_0", "status": "completed",
                          "action": {"type": "exec", "command": ["rm", "-rf", "/data"], "env": {}}}, "local_shell"),
    "shell_call": ({"type": "shell_call", "id": "sh_0", "call_id": "call_0", "status": "completed",
                    "action": {"commands": ["rm -rf /data"]}}, "shell"),
    "apply_patch_call": ({"type": "apply_patch_call", "id": "ap_0", "call_id": "call_0", "status": "completed",
                          "operation": {"type": "delete_file", "path": "records.db"}}, "apply_patch"),
    "computer_call": ({"type": "computer_call", "id": "cu_0", "call_id": "call_0", "status": "completed",
                       "pending_safety_checks": [], "action": {"type": "click", "button": "left", "x": 1, "y": 2}},
                      "computer"),
    "mcp_approval_request": ({"type": "mcp_approval_request", "id": "mcpr_0", "name": "purge_records",
                              "arguments": json.dumps({"table": "users"}), "server_label": "records"},
                             "purge_records"),
}


def run_items(output: Any, runs: list[Any]) -> None:
    """What a loop does with a response's output: run (or approve) every call item."""
    for item in output:
        kind = item.type if not isinstance(item, dict) else item["type"]
        if kind in ITEMS:
            runs.append((ITEMS[kind][1], kind))
        elif kind == "function_call":
            runs.append((item.name, kind))


def deny_tool(name: str, deny: bool) -> None:
    if deny:
        @on(P.PRE_TOOL_CALL, tools=[name])
        def refuse(ctx: ToolCallHookContext) -> None:
            raise HookAborted(reason="not allowed", source="test")


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("kind", sorted(ITEMS))
def test_responses_call_items(deny: bool, kind: str) -> None:
    item, name = ITEMS[kind]
    deny_tool(name, deny)
    SERVER.queue(wire.response(item), wire.final_response())
    runs: list[Any] = []
    run_items(client().responses.create(model="m", input="do it").output, runs)
    assert sum(1 for n, _ in runs if n == name) == expected(deny)


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("kind", ["custom_tool_call", "mcp_approval_request"])
def test_responses_call_items_streamed_and_async(deny: bool, kind: str) -> None:
    item, name = ITEMS[kind]
    deny_tool(name, deny)
    SERVER.queue(wire.response_events(wire.response(item)),
                 *([wire.response_events(wire.final_response())] if deny else []))
    runs: list[Any] = []
    events = list(client().responses.create(model="m", input="x", stream=True))
    SERVER.queue(wire.response(item), wire.final_response())
    run_items(next(e.response for e in events if e.type == "response.completed").output, runs)
    run_items([e.item for e in events if e.type == "response.output_item.done"], runs)

    async def main() -> None:
        run_items((await client(is_async=True).responses.create(model="m", input="x")).output, runs)

    asyncio.run(main())
    assert sum(1 for n, _ in runs if n == name) == (0 if deny else 3)


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("how", ["retrieve", "retrieve_stream", "stream_helper", "async_retrieve"])
def test_background_response_retrieved(deny: bool, how: str) -> None:
    """``create(background=True)`` answers ``queued``; the calls arrive with ``retrieve``."""
    deny_purge(deny)
    done = wire.response(_function_item("call_0", "purge_records", table="users"), response_id="resp_bg")
    answer = wire.response_events(done) if how in ("retrieve_stream", "stream_helper") else done
    SERVER.queue(wire.response(status="queued", response_id="resp_bg"), answer)
    runs: list[Any] = []
    started = client().responses.create(model="m", input="purge", background=True)
    assert started.status == "queued"
    if how == "retrieve":
        run_items(client().responses.retrieve(started.id).output, runs)
    elif how == "retrieve_stream":
        events = list(client().responses.retrieve(started.id, stream=True))
        run_items([e.item for e in events if e.type == "response.output_item.done"], runs)
    elif how == "stream_helper":
        with client().responses.stream(response_id=started.id) as stream:
            run_items(stream.get_final_response().output, runs)
    else:
        async def main() -> Any:
            return await client(is_async=True).responses.retrieve(started.id)

        run_items(asyncio.run(main()).output, runs)
    assert purges(runs) == expected(deny)


# -- the ledger: conversations never meet -------------------------------------------------------------


def test_numbered_ids_do_not_leak_a_refusal_into_another_conversation() -> None:
    """A server that numbers its calls (call_0...) in every conversation: conversation A's refusal
    of call_1 is never put into conversation B, whose call_0 survives with the same anchor id."""
    with scoped_hooks():
        register_scoped(P.PRE_TOOL_CALL, _refuse, tools=["purge_records"])
        SERVER.queue(wire.completion({"tool_calls": [wire.function_call("call_0", "add_numbers", a=1, b=2),
                                                     wire.function_call("call_1", "purge_records", table="a")]}))
        client().chat.completions.create(model="m", messages=[{"role": "user", "content": "conversation A"}])
    # conversation B, unguarded, whose call_0 is the same id (and the same call) as A's survivor
    SERVER.queue(wire.final_completion())
    client().chat.completions.create(model="m", messages=[
        {"role": "user", "content": "conversation B"},
        {"role": "assistant", "content": None, "tool_calls": [wire.function_call("call_0", "add_numbers", a=1, b=2)]},
        {"role": "tool", "tool_call_id": "call_0", "content": "3"}])
    assert "was refused" not in json.dumps(SERVER.bodies()[-1])
    # conversation A itself still gets its refusal back
    SERVER.queue(wire.final_completion())
    client().chat.completions.create(model="m", messages=[
        {"role": "user", "content": "conversation A"},
        {"role": "assistant", "content": None, "tool_calls": [wire.function_call("call_0", "add_numbers", a=1, b=2)]},
        {"role": "tool", "tool_call_id": "call_0", "content": "3"}])
    assert "was refused" in json.dumps(SERVER.bodies()[-1])


def test_a_responses_refusal_never_reaches_a_chat_request() -> None:
    """One ledger serves both APIs: a Responses refusal next to call_0 is not a Chat refusal
    (it crashed with TypeError: list indices must be integers or slices, not str)."""
    deny_purge(True)
    SERVER.queue(wire.response(_function_item("call_0", "add_numbers", a=1, b=2),
                               _function_item("call_1", "purge_records", table="a")))
    client().responses.create(model="m", input="conversation")
    SERVER.queue(wire.final_completion())
    answer = client().chat.completions.create(model="m", messages=[
        {"role": "user", "content": "conversation"},
        {"role": "assistant", "content": None, "tool_calls": [wire.function_call("call_0", "add_numbers", a=1, b=2)]},
        {"role": "tool", "tool_call_id": "call_0", "content": "3"}])
    assert answer.choices[0].message.content == "done"
    assert "was refused" not in json.dumps(SERVER.bodies()[-1])


def test_the_ledger_is_bounded() -> None:
    from hookport.adapters import _sdk_tools

    deny_purge(True)
    for n in range(3):
        SERVER.queue(wire.completion({"tool_calls": [wire.function_call("call_0", "add_numbers", a=n, b=0),
                                                     wire.function_call("call_1", "purge_records", table="a")]}))
        client().chat.completions.create(model="m", messages=[{"role": "user", "content": f"c{n}"}])
    assert 0 < len(LEDGER._refusals) <= _sdk_tools.LIMIT
    assert len(LEDGER._refusals) == 3  # one per conversation, not one per reused id


def _refuse(ctx: ToolCallHookContext) -> None:
    raise HookAborted(reason="purging is not allowed", source="test")


# -- concurrency, timing, install order ---------------------------------------------------------------


@pytest.mark.parametrize("deny", DENY)
def test_scoped_deny_in_threads_of_the_application(deny: bool) -> None:
    """Parallel conversations on threads that copy nothing: a scoped deny stays in its own thread."""
    runs: list[Any] = []
    servers = {True: SERVER, False: OTHER_SERVER}
    for server in servers.values():
        server.queue(wire.completion(CUSTOM), wire.final_completion())

    def conversation(guarded: bool) -> None:
        with scoped_hooks():
            if guarded and deny:
                register_scoped(P.PRE_TOOL_CALL, _refuse, tools=["purge_records"])
            own = openai.OpenAI(base_url=servers[guarded].base_url + "/v1", api_key="sk-offline", max_retries=0)
            answer = own.chat.completions.create(model="m", messages=[
                {"role": "user", "content": f"guarded={guarded}"}])
            run_chat_message(answer.choices[0].message, runs)

    threads = [threading.Thread(target=conversation, args=(guarded,)) for guarded in (True, False)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert purges(runs) == (1 if deny else 2)  # the unguarded conversation always runs it


@pytest.mark.parametrize("deny", DENY)
def test_uninstall_and_reinstall(deny: bool) -> None:
    adapters.uninstall("openai")
    adapters.install("openai")
    deny_purge(deny)
    SERVER.queue(wire.completion(CUSTOM), wire.final_completion())
    runs: list[Any] = []
    run_chat_message(client().chat.completions.create(model="m", messages=[
        {"role": "user", "content": "x"}]).choices[0].message, runs)
    assert purges(runs) == expected(deny)


# -- openai 3.x's Responses tool runner: the SDK runs the function itself ---------------------------------

PURGE_TOOL = {"type": "function", "name": "purge_records", "strict": True, "parameters": {
    "type": "object", "properties": {"table": {"type": "string"}}, "required": ["table"],
    "additionalProperties": False}}


def _runner_module() -> Any:
    return pytest.importorskip("openai.lib.responses_tool_runner", reason="the tool runner is new in openai 3.x")


def run_runner(runs: list[Any], is_async: bool) -> Any:
    module = _runner_module()
    SERVER.queue(wire.response(_function_item("call_0", "purge_records", table="users")), wire.final_response(),
                 wire.final_response())
    params = {"model": "m", "input": "purge"}
    if is_async:
        async def execute(arguments: dict[str, Any]) -> str:
            runs.append(arguments)
            return "purged"

        runner = module.AsyncResponsesToolRunner(functions=[module.AsyncRegisteredFunction(PURGE_TOOL, execute)])
        return asyncio.run(runner.run(client(is_async=True), params))
    runner = module.ResponsesToolRunner(functions=[module.RegisteredFunction(
        PURGE_TOOL, lambda arguments: runs.append(arguments) or "purged")])
    return runner.run(client(), params)


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("is_async", [False, True])
def test_responses_tool_runner(deny: bool, is_async: bool) -> None:
    seen: list[str] = []

    @on(P.PRE_TOOL_CALL)
    def count(ctx: ToolCallHookContext) -> None:
        seen.append(ctx.tool_name)

    deny_purge(deny)
    runs: list[Any] = []
    assert run_runner(runs, is_async).output_text == "done"
    assert len(runs) == expected(deny)
    assert seen == ["purge_records"]  # the wire review decided; the runner's body claimed it


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("is_async", [False, True])
def test_runner_body_layer_alone(deny: bool, is_async: bool) -> None:
    """With the wire review silent (as under a framework adapter that dispatched the model call
    itself), the function the runner executes is refused by its body guard."""
    from hookport.calls import MODEL_LAYER

    deny_purge(deny)
    runs: list[Any] = []
    with MODEL_LAYER.hold():
        run_runner(runs, is_async)
    assert len(runs) == expected(deny)
    if deny:
        sent = json.dumps(SERVER.bodies()[1])
        assert "Tool call purge_records was refused: purging is not allowed" in sent


# -- openai 3.x's Decisions runner: the SDK runs the action the model chose -------------------------------


def decision(choice: str) -> dict[str, Any]:
    return {"answers": [{"type": "choice", "name": "next_action", "choice": choice, "confidence": 0.9,
                         "probabilities": [{"value": choice, "probability": 0.9}]}],
            "model": "m", "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
                                    "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 0},
                                    "output_tokens_details": {"reasoning_tokens": 0}}}


@pytest.mark.parametrize("deny", DENY)
@pytest.mark.parametrize("is_async", [False, True])
def test_decisions_runner_action(deny: bool, is_async: bool) -> None:
    """The body layer alone: no tool-call item on the wire, the chosen action's executor is guarded."""
    module = pytest.importorskip("openai.lib.decisions_tool_runner", reason="the Decisions runner is new in 3.x")
    deny_purge(deny)
    runs: list[Any] = []
    SERVER.queue(decision("purge_records"), decision("finish"))

    def observe() -> str:
        return f"{len(runs)} purges"

    if is_async:
        async def execute() -> None:
            runs.append(1)

        async def aobserve() -> str:
            return observe()

        async def acandidates(observation: Any) -> list[Any]:
            return [{"id": "purge_records", "description": "purge the table", "execute": execute},
                    {"id": "finish", "description": "the task is complete", "done": True}]

        runner = module.AsyncDecisionsToolRunner(observe=aobserve, candidates=acandidates)
        asyncio.run(runner.run(client(is_async=True), {"model": "m", "input": "purge"}, max_steps=4))
    else:
        def candidates(observation: Any) -> list[Any]:
            return [{"id": "purge_records", "description": "purge the table", "execute": lambda: runs.append(1)},
                    {"id": "finish", "description": "the task is complete", "done": True}]

        module.DecisionsToolRunner(observe=observe, candidates=candidates).run(
            client(), {"model": "m", "input": "purge"}, max_steps=4)
    assert len(runs) == expected(deny)
