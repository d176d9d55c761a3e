"""The work a worker does in the fleet tests: run the launcher tests' LangChain agent once, in this process.

The agent (tests/cli/programs/langchain_agent.py) asks for read_file and
delete_file, then answers with a card number; it knows nothing of hookport.
`run_agent` returns what happened in the process that ran it: how often each
tool really executed there, what the model was told about delete_file, the final
answer, the process id, and whether a guard is installed here. Run as a script it
prints that as one JSON line.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

PROGRAMS = Path(__file__).resolve().parents[2] / "cli" / "programs"
if str(PROGRAMS) not in sys.path:
    sys.path.append(str(PROGRAMS))


def run_agent(_: Any = None) -> dict[str, Any]:
    import langchain_agent
    from langchain_core.messages import HumanMessage

    before = dict(langchain_agent.RAN)
    state = langchain_agent.build_agent().invoke({"messages": [HumanMessage("Summarise notes.txt, then delete it.")]})
    told = next(m.content for m in state["messages"] if getattr(m, "tool_call_id", None) == "call_delete")
    return {
        "ran": {tool: count - before[tool] for tool, count in langchain_agent.RAN.items()},
        "told": told,
        "answer": state["messages"][-1].content,
        "pid": os.getpid(),
        "guarded": "hookport" in sys.modules and bool(_hooks()),
    }


def _hooks() -> list[Any]:
    from hookport import InterceptionPoint, get_hooks

    return get_hooks(InterceptionPoint.PRE_TOOL_CALL)


if __name__ == "__main__":
    print(json.dumps(run_agent()))
