"""The launcher tests' LangChain agent, run again at each step, for as long as the test says.

It knows nothing of hookport. For each step it waits until the file ``step-N`` exists in the
directory given as its argument, runs the agent (read_file, then delete_file) and prints one
JSON line: the step, how often each tool ran, and what the model was told about delete_file.
It stops when the file ``stop`` appears (or after two minutes).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from langchain_core.messages import HumanMessage

import langchain_agent as agent  # next to this script


def main() -> int:
    directory = Path(sys.argv[1])
    deadline = time.monotonic() + 120
    step = 0
    while time.monotonic() < deadline and not (directory / "stop").exists():
        if not (directory / f"step-{step}").exists():
            time.sleep(0.02)
            continue
        agent.RAN.update(read_file=0, delete_file=0)
        state = agent.build_agent().invoke({"messages": [HumanMessage("Summarise notes.txt, then delete it.")]})
        told = next(m.content for m in state["messages"] if getattr(m, "tool_call_id", None) == "call_delete")
        print(json.dumps({"step": step, "ran": dict(agent.RAN), "told": told}), flush=True)
        step += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
