"""The mcp conformance harness: a bare agent loop whose tools are MCP tools on an in-process server.

An MCP client calls tools and never a model, so the loop's "model" is a plain
scripted function (it answers with the `Turn`s of the script and records the
OpenAI-style messages it is given); each tool call it asks for goes through
``ClientSession.call_tool`` to the in-process server of `tests.adapters.mcp.server`,
and the result's text goes back to it as a ``tool`` message. The run is marked
with ``hookport.execution("mcp", ..., agent_role=agent)`` as the docs tell a user
to mark a run of their own loop.

Model scenarios are not offered: the model points belong to the SDK adapter of
whatever model the loop talks to (``openai``, ``anthropic``).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import threading
from typing import Any, ClassVar

import pytest

pytest.importorskip("mcp")
import mcp.client.session  # noqa: E402,F401 - the lifecycle probe wants the client fully imported

import hookport  # noqa: E402
from tests.adapters.mcp import server as servers  # noqa: E402
from tests.adapters.mcp.server import RUNS, session, text_of  # noqa: E402
from tests.conformance.harness import Entry, Harness, RunResult, Turn, number_tool_calls  # noqa: E402

NO_MODEL = "an MCP client calls tools, never a model: the model points belong to the openai/anthropic adapters"


class ScriptedModel:
    """The loop's model: answers with the script's turns in order and records what it was given."""

    def __init__(self, script: list[Turn]) -> None:
        self.script = number_tool_calls(list(script))
        self.inputs: list[list[dict[str, Any]]] = []

    def __call__(self, messages: list[dict[str, Any]]) -> Turn:
        self.inputs.append(json.loads(json.dumps(messages)))
        turn = self.script[min(len(self.inputs) - 1, len(self.script) - 1)]
        if turn.error is not None:
            raise RuntimeError(turn.error)
        return turn


async def agent_loop(model: ScriptedModel, agent: str, prompt: str, server: Any = None) -> str | None:
    """The loop; an error is raised after the session closed, so the client's task group does
    not wrap it in an ``ExceptionGroup`` (what an application that wants ``except HookAborted`` does)."""
    failure: BaseException | None = None
    async with session(server) as tools:
        try:
            return await _turns(model, tools, agent, prompt)
        except Exception as error:  # noqa: BLE001 - re-raised below
            failure = error
    raise failure


async def _turns(model: ScriptedModel, tools: Any, agent: str, prompt: str) -> str | None:
    messages: list[dict[str, Any]] = [{"role": "system", "content": f"You are {agent}."},
                                      {"role": "user", "content": prompt}]
    for _ in range(10):
        turn = model(messages)
        if not turn.tool_calls:
            return turn.text
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.args)}}
            for c in turn.tool_calls]})
        for call in turn.tool_calls:
            result = await tools.call_tool(call.name, call.args)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text_of(result)})
    raise RuntimeError("the loop did not end")


async def _call_directly(name: str, args: dict[str, Any]) -> str:
    async with session() as tools:
        return text_of(await tools.call_tool(name, args))


class MCPHarness(Harness):
    framework: ClassVar[str] = "mcp"
    import_name: ClassVar[str] = "mcp"
    entries: ClassVar[tuple[Entry, ...]] = ("sync",)
    """The client is async only; ``sync`` runs the loop to completion with ``asyncio.run``."""
    step_kind: ClassVar[str | None] = None
    not_offered: ClassVar[dict[str, str]] = {
        "model": NO_MODEL,
        "boundaries__end_on_aborted_model_call": NO_MODEL,
        "boundaries__end_abort_on_failure_is_ignored": NO_MODEL,
        "filters__agents": NO_MODEL + " (the scenario filters PRE_MODEL_CALL)",
        "strict_mode": NO_MODEL + " (the scenario breaks a PRE_MODEL_CALL hook)",
        "engine__one_event_per_dispatch": NO_MODEL + " (the scenario counts POST_MODEL_CALL events)",
        "engine__exactly_once_sync": NO_MODEL + " (the scenario counts model points); "
        "tests/adapters/mcp counts PRE/POST_TOOL_CALL once per call",
        "asynchooks__edit_and_replace": NO_MODEL,
        "wrap__retry_reissues_the_model_request": NO_MODEL,
        "wrap__short_circuit_never_calls_the_model": NO_MODEL,
        "wrap__fallback_answers_when_the_model_fails": NO_MODEL,
        "wrap__timing_around_model_and_tool": NO_MODEL + " (the scenario times model calls too)",
        "reentry__a_judge_hook_is_not_hooked_again": NO_MODEL,
        "durations__post_and_end_carry_them": NO_MODEL + " (the scenario needs POST_MODEL_CALL); "
        "tests/adapters/mcp checks POST_TOOL_CALL's duration",
        **{
            f"middleware__{scenario}": NO_MODEL + " (the middleware acts on model calls)"
            for scenario in (
                "pii_redacts_what_the_model_and_the_user_see", "pii_block_stops_the_run",
                "model_call_limit_ends_the_run", "tool_call_limit_end_stops_the_run_as_create_agent_does",
                "model_retry_reissues_the_request", "user_decorators_before_after_wrap", "user_async_middleware",
                "after_model_replaces_the_answer_with_remove_message", "wrap_model_call_reads_the_handlers_answer",
            )
        },
        "defence__deny_registered_mid_run": NO_MODEL + " (the scenario registers the deny from a PRE_MODEL_CALL "
        "hook); tests/adversarial/mcp registers it from an earlier tool call of the run",
        **{
            f"fields__{scenario}": NO_MODEL + " (ctx.iterations counts model calls, on a model point's context; "
            "the loop's model here is a plain function no adapter sees)"
            for scenario in (
                "iterations_count_model_calls_from_zero", "iteration_guard_stops_an_endless_loop_at_the_limit",
                "legacy_iteration_guard_returning_false",
            )
        },
        "steps": "an MCP client has no steps",
        "turns__once_per_agent_turn": "an MCP client has no agents",
    }

    def run(self, script: list[Turn], *, entry: Entry = "sync", agent: str = "alpha",
            prompt: str = "What is 2 + 3?", server: Any = None) -> RunResult:
        if entry != "sync":
            raise ValueError(f"the mcp harness has no {entry!r} entry point")
        RUNS.clear()
        model = ScriptedModel(script)
        output: Any = None
        error: BaseException | None = None
        try:
            with hookport.execution("mcp", inputs=prompt, agent_role=agent) as run:
                run.output = asyncio.run(agent_loop(model, agent, run.inputs, server))
            output = run.output
        except Exception as caught:  # noqa: BLE001 - the scenario inspects it
            error = caught
        return RunResult(output=output, error=error, model_inputs=model.inputs, tool_runs=list(RUNS))

    def run_nested(self, outer_args: dict[str, Any], inner_args: dict[str, Any], *,
                   agent: str = "alpha") -> RunResult:
        """The loop on `servers.OUTER`, whose ``purge_records`` body calls the calc server's own
        ``purge_records`` with `inner_args` through a session of its own."""
        servers.NESTED_ARGS.clear()
        servers.NESTED_ARGS.update(inner_args)
        return self.run([Turn.call("purge_records", **outer_args), Turn.final("done")], agent=agent,
                        server=servers.OUTER)

    def refusal_text(self, tool: str, reason: str) -> str:
        return f"Tool call {tool} was refused: {reason}"

    def run_tool_directly(self, name: str, args: dict[str, Any]) -> str:
        """A second session, on a thread of its own (the hook runs on the loop's thread), in the
        hook's context, so the re-entrancy rule sees it."""
        done: dict[str, Any] = {}
        context = contextvars.copy_context()

        def work() -> None:
            try:
                done["text"] = context.run(asyncio.run, _call_directly(name, args))
            except BaseException as error:  # noqa: BLE001 - re-raised on the hook's thread
                done["error"] = error

        thread = threading.Thread(target=work)
        thread.start()
        thread.join()
        if "error" in done:
            raise done["error"]
        return str(done["text"])


HARNESS = MCPHarness
