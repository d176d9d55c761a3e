"""Bypass attempts on ``dspy.RLM`` (DSPy 3.4): the model's code calls a refused tool.

RLM runs each code action in its interpreter; the code's tool calls come back to this
process, where RLM calls the ``dspy.Tool`` (``_make_interpreter_tool``: ``tool(**kwargs)``,
``tool.acall`` for an async one). The interpreter is DSPy's own ``LocalInterpreter`` (a
persistent CPython worker process): RLM's default, the Deno/Pyodide ``PythonInterpreter``, does
not start offline (its ``runner.js`` imports ``https://deno.land/std@0.186.0/io/mod.ts`` and
``npm:pyodide`` at first run; tried with Deno 2.9.8 from PyPI). The tools run here, so each
test counts their real executions: 0 with the deny, and the twin (no deny) shows the
model's code really reached the tool.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

dspy = pytest.importorskip("dspy")
if not hasattr(dspy, "RLM"):
    pytest.skip("dspy.RLM is DSPy 3.4's (this DSPy has no RLM to bypass)", allow_module_level=True)

from dspy.primitives import LocalInterpreter  # noqa: E402

from hookport import HookAborted, InterceptionPoint, register_hook  # noqa: E402
from hookport.contexts import ToolCallHookContext  # noqa: E402
from tests.adapters.dspy.harness import build_lm, chat_fields  # noqa: E402
from tests.conformance.harness import Turn  # noqa: E402
from tests.support.openai_server import ScriptedOpenAIServer  # noqa: E402

P = InterceptionPoint
DENY = pytest.mark.parametrize("deny", [False, True], ids=["twin", "deny"])
REFUSED = "Tool call archive_note was refused: archiving is not allowed"
RUNS: list[str] = []


@pytest.fixture(autouse=True)
def _installed(dspy_adapter: Any) -> None:
    RUNS.clear()


def refuse(ctx: ToolCallHookContext) -> None:
    raise HookAborted(reason="archiving is not allowed", source="test")


def archive_note(note: str) -> str:
    """Archive a note."""
    RUNS.append(note)
    return "archived " + note


async def archive_note_async(note: str) -> str:
    """Archive a note (an async tool: RLM awaits ``tool.acall``)."""
    RUNS.append(note)
    return "archived " + note


TOOLS = {
    "function": lambda: archive_note,
    "dspy.Tool": lambda: dspy.Tool(archive_note),
    "async": lambda: dspy.Tool(archive_note_async, name="archive_note"),
}
CODE = {  # keywords only: RLM's tool wrapper takes ``**kwargs``, and LocalInterpreter passes positionals through
    "call": ("print(archive_note(note='weekly'))", 1),
    "in-a-loop": ("for n in ['a', 'b']:\n    archive_note(note=n)", 2),
    "aliased": ("keep = archive_note\nprint(keep(note='weekly'))", 1),
    "hidden": ("globals()['archive_' + 'note'](note='weekly')", 1),
    "in-a-thread": ("from concurrent.futures import ThreadPoolExecutor\n"
                    "with ThreadPoolExecutor(2) as pool:\n    print(list(pool.map(lambda n: archive_note(note=n), 'ab')))",
                    2),
}


def action(code: str) -> Turn:
    return Turn.final(chat_fields({"reasoning": "go", "code": f"```python\n{code}\n```"}))


def react_v2(name: str, **args: Any) -> Turn:
    """A ``dspy.ReActV2`` turn (ChatAdapter fields) calling one tool."""
    return Turn.final(chat_fields({"next_thought": "go", "tool_calls": {"tool_calls": [{"name": name, "args": args}]}}))


def run(code: str, tool: Any, *, entry: str = "sync", between: tuple[Turn, ...] = ()) -> list[dict[str, Any]]:
    """One RLM run: the model's first code action is `code` (then the turns `between`, for what the
    code asks the model), its last submits; the model's requests."""
    server = ScriptedOpenAIServer(by_conversation=False).start()
    try:
        server.script([action(code), *between, action("SUBMIT(answer='done')")])
        rlm = dspy.RLM("question -> answer", max_iters=3, tools=[tool], interpreter_factory=LocalInterpreter)
        with dspy.context(lm=build_lm(server.base_url)):
            result = rlm(question="Archive it.") if entry == "sync" else asyncio.run(rlm.acall(question="Archive it."))
        assert result.answer == "done"
        return list(server.requests)
    finally:
        server.stop()


@DENY
@pytest.mark.parametrize("form", list(CODE))
def test_rlm_code_calling_the_tool(deny: bool, form: str) -> None:
    code, calls = CODE[form]
    if deny:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
    requests = run(code, archive_note)
    assert len(RUNS) == (0 if deny else calls)
    assert (REFUSED in json.dumps(requests[-1])) is deny  # the next action request reads the refusal


@DENY
@pytest.mark.parametrize("tool", list(TOOLS))
@pytest.mark.parametrize("entry", ["sync", "async"])
def test_rlm_tool_forms_and_entries(deny: bool, tool: str, entry: str) -> None:
    if deny:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
    requests = run("print(archive_note(note='weekly'))", TOOLS[tool](), entry=entry)
    assert len(RUNS) == (0 if deny else 1)
    assert (REFUSED in json.dumps(requests[-1])) is deny


def test_rlm_refusal_reaches_the_model_as_a_sentence() -> None:
    """The refusal the model reads names the tool and the reason, with no traceback around it."""
    register_hook(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
    requests = run("print(archive_note(note='weekly'))", archive_note)
    history = json.dumps(requests[-1])
    assert REFUSED in history
    assert "Traceback" not in history and 'File \\"' not in history


def test_rlm_argument_based_deny() -> None:
    """The hook reads the arguments the code passed: one call refused, the other runs."""
    def no_secret(ctx: ToolCallHookContext) -> None:
        if ctx.tool_input.get("note") == "secret":
            raise HookAborted(reason="secret notes stay", source="test")

    register_hook(P.PRE_TOOL_CALL, no_secret, tools=["archive_note"])
    run("archive_note(note='public')\ntry:\n    archive_note(note='secret')\nexcept Exception as e:\n    print(e)",
        archive_note)
    assert RUNS == ["public"]


SUB_AGENT = "import dspy\nr = dspy.ReActV2('question -> answer', tools=[archive_note])(question='go')\nprint(r.answer)"


@DENY
def test_rlm_code_building_a_sub_agent_with_the_tool(deny: bool) -> None:
    """The code builds a ``dspy.ReActV2`` sub-agent in the sandbox (RLM's dspy facade): the host runs
    it with the real tool object, and its model reads the refusal."""
    if deny:
        register_hook(P.PRE_TOOL_CALL, refuse, tools=["archive_note"])
    requests = run(SUB_AGENT, archive_note, between=(react_v2("archive_note", note="sub"),
                                                     react_v2("submit", answer="sub done")))
    assert RUNS == ([] if deny else ["sub"])
    assert (REFUSED in json.dumps(requests[2])) is deny  # the sub-agent's second request
