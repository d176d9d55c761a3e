"""hookport on a bare OpenAI SDK loop in two minutes: three hook dialects guarding it, offline.

    make demo FRAMEWORK=openai        # or: python examples/quickstart_openai.py

No framework: a loop around ``client.chat.completions.create`` that runs its own
tools. The client is the real ``openai`` client; its HTTP transport is a scripted
model (``httpx.MockTransport``), so no API key and no network are needed. The
same three hooks as every quickstart (``policies.py``) guard it:

- the model asks for ``read_file`` and ``delete_file``: the PraisonAI-style hook logs
  both, the CrewAI-style hook refuses ``delete_file``; the loop never sees that call,
  and the model is told of the refusal in the next request;
- the model's answer quotes a card number: the ``@on(POST_MODEL_CALL)`` hook redacts it.
"""

from __future__ import annotations

import json
from typing import Any

from hookport import adapters, execution
from policies import trace  # noqa: F401  (importing it registers the three hooks)

report = adapters.install("openai")  # before or after importing openai: both work

import openai  # noqa: E402

try:  # openai 3.x speaks httpx2, 2.x httpx
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}
MODEL_SAW: list[str] = []
TOOLS = [{"type": "function", "function": {"name": name, "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}}}}} for name in ("read_file", "delete_file")]


def scripted_model(request: Any) -> Any:
    """First answer: two tool calls; then: an answer built from what the tools returned."""
    body = json.loads(request.content)
    results = {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}
    MODEL_SAW[:] = [f"{call_id}: {text}" for call_id, text in results.items()]
    if not results:
        message = {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{name}", "type": "function",
             "function": {"name": name, "arguments": json.dumps({"path": "notes.txt"})}}
            for name in ("read_file", "delete_file")]}
    else:
        message = {"role": "assistant", "content": f"The notes say: {results['call_read_file']}"}
    return httpx.Response(200, json={"id": "c", "object": "chat.completion", "created": 0, "model": "scripted",
                                     "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]})


def run_tool(name: str, path: str) -> str:
    if name == "delete_file":
        FILES.pop(path, None)
        return f"deleted {path}"
    return FILES.get(path, "no such file")


def agent_loop(client: Any, question: str) -> str:
    messages: list[Any] = [{"role": "user", "content": question}]
    while True:
        message = client.chat.completions.create(model="scripted", messages=messages, tools=TOOLS).choices[0].message
        messages.append(message)
        if not message.tool_calls:
            return message.content or ""
        for call in message.tool_calls:
            print(f"  loop runs              {call.function.name}")
            result = run_tool(call.function.name, **json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


def main() -> None:
    print(f"installed: {len(report.patched) + len(report.pending)} call sites of openai {report.version}")
    client = openai.OpenAI(api_key="sk-offline", base_url="http://scripted.invalid/v1", max_retries=0,
                           http_client=httpx.Client(transport=httpx.MockTransport(scripted_model)))
    with execution("quickstart", inputs="What do my notes say?") as run:
        run.output = agent_loop(client, run.inputs)
    print(f"answer:    {run.output}")
    print(f"files:     {sorted(FILES)}  (delete_file never ran)")
    print("the model was told:", *MODEL_SAW, sep="\n  ")
    assert "notes.txt" in FILES and "[card number redacted]" in run.output


if __name__ == "__main__":
    main()
