"""hookport on DSPy in two minutes: three hook dialects guarding one ``dspy.ReAct`` program, offline.

    make demo FRAMEWORK=dspy        # or: python examples/quickstart_dspy.py

The program is a real ``dspy.ReAct`` with two tools, answered by DSPy's own
``DummyLM`` (scripted fields, formatted by DSPy's ChatAdapter), so no API key
and no network are needed. The hooks are the ones in policies.py, unchanged:

- a PraisonAI-style ``add_hook("before_tool")`` hook that logs every tool call;
- a CrewAI-style ``@before_tool_call`` hook that refuses ``delete_file`` (``return False``);
- a hookport ``@on(POST_MODEL_CALL)`` hook that redacts card numbers from the model's answers.
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # DSPy < 3.4 fetches LiteLLM's price list at import

from hookport import adapters  # noqa: E402
from policies import trace  # noqa: E402  (importing it registers the three hooks)

report = adapters.install("dspy")  # before or after importing dspy: both work

import dspy  # noqa: E402
from dspy.utils import DummyLM  # noqa: E402

FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}
ANSWER = "notes.txt says the order was paid with card 4111 1111 1111 1111. I could not delete it."
SCRIPT = [
    {"next_thought": "Read the file first.", "next_tool_name": "read_file", "next_tool_args": {"path": "notes.txt"}},
    {"next_thought": "Now tidy up.", "next_tool_name": "delete_file", "next_tool_args": {"path": "notes.txt"}},
    {"next_thought": "Done.", "next_tool_name": "finish", "next_tool_args": {}},
    {"reasoning": "I read it; the delete was refused.", "answer": ANSWER},
]


def read_file(path: str) -> str:
    """Read a text file."""
    trace("tool", f"read_file ran on {path}")
    return FILES.get(path, "no such file")


def delete_file(path: str) -> str:
    """Delete a file."""
    trace("tool", f"delete_file ran on {path}  <- this must never print")
    FILES.pop(path, None)
    return "deleted"


def main() -> None:
    print(f"hookport {report.adapter} adapter on dspy {report.version}")
    program = dspy.ReAct("question -> answer", tools=[read_file, delete_file], max_iters=5)
    print("\nWhat each hook did:")
    with dspy.context(lm=DummyLM(SCRIPT)):
        prediction = program(question="Summarise notes.txt, then delete it.")
    observations = [v for k, v in prediction.trajectory.items() if k.startswith("observation")]
    refused = "Tool call delete_file was refused"
    print("\nWhat the model was told about delete_file:")
    told = next((str(o) for o in observations if refused in str(o)), None)
    print(f"  {refused + ' (as the failed tool observation of ReAct)' if told else '(nothing: the refusal never reached it)'}")
    print("\nThe program's final answer:")
    print(f"  {prediction.answer}")
    print(f"\nnotes.txt still exists: {'notes.txt' in FILES}")
    adapters.uninstall("dspy")


if __name__ == "__main__":
    main()
