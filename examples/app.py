"""An ordinary agent program that knows nothing of hookport (docs/cli.md and docs/policy.md run it).

    hookport run --adapters langchain --hooks team_guards --policy policy.toml -- python app.py
    python app.py --verbose      # every message of the run, not only the tools' and the answer

It runs the offline agent (offline_agent.py) once: its model asks for read_file and
delete_file, then answers with a card number. It prints what the model was told about
each tool, the answer, and how often each tool's body really ran.
"""

from __future__ import annotations

import sys

from offline_agent import RAN, demo_graph


def main(argv: list[str]) -> int:
    graph, inputs = demo_graph()
    state = graph.invoke(inputs)
    for message in state["messages"]:
        if "--verbose" in argv or message.type == "tool":
            print(f"{message.type} {getattr(message, 'name', None) or ''}: {message.content}")
    print("answer:", state["messages"][-1].content)
    print("tools that ran:", RAN)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
