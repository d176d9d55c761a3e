"""hookport on a bare Anthropic SDK loop in two minutes: three hook dialects guarding it, offline.

    make demo FRAMEWORK=anthropic     # or: python examples/quickstart_anthropic.py

No framework: a loop around ``client.messages.create`` that runs its own tools.
The client is the real ``anthropic`` client; its HTTP transport is a scripted
model (``httpx.MockTransport``), so no API key and no network are needed. The
hooks of ``policies.py`` guard it: ``delete_file`` is refused (the loop never
sees that ``tool_use`` block; the model gets an error ``tool_result``), and the
card number in the answer is redacted.
"""

from __future__ import annotations

import json
from typing import Any

from hookport import adapters, execution
from policies import trace  # noqa: F401  (importing it registers the three hooks)

report = adapters.install("anthropic")  # before or after importing anthropic: both work

import anthropic  # noqa: E402

try:  # anthropic 1.x and 2.x speak httpx2
    import httpx2 as httpx
except ImportError:  # pragma: no cover
    import httpx  # type: ignore[no-redef]

FILES = {"notes.txt": "Order #7 paid with card 4111 1111 1111 1111."}
MODEL_SAW: list[str] = []
TOOLS = [{"name": name, "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}
         for name in ("read_file", "delete_file")]


def scripted_model(request: Any) -> Any:
    """First answer: two tool_use blocks; then: an answer built from the tool results."""
    body = json.loads(request.content)
    results = {block["tool_use_id"]: block["content"] for message in body["messages"]
               if isinstance(message["content"], list) for block in message["content"]
               if block.get("type") == "tool_result"}
    MODEL_SAW[:] = [f"{use_id}: {text}" for use_id, text in results.items()]
    if not results:
        content = [{"type": "tool_use", "id": f"toolu_{name}", "name": name, "input": {"path": "notes.txt"}}
                   for name in ("read_file", "delete_file")]
    else:
        content = [{"type": "text", "text": f"The notes say: {results['toolu_read_file']}"}]
    return httpx.Response(200, json={"id": "m", "type": "message", "role": "assistant", "model": "scripted",
                                     "content": content, "stop_reason": "end_turn", "stop_sequence": None,
                                     "usage": {"input_tokens": 1, "output_tokens": 1}})


def run_tool(name: str, path: str) -> str:
    if name == "delete_file":
        FILES.pop(path, None)
        return f"deleted {path}"
    return FILES.get(path, "no such file")


def agent_loop(client: Any, question: str) -> str:
    messages: list[Any] = [{"role": "user", "content": question}]
    while True:
        answer = client.messages.create(model="scripted", max_tokens=256, messages=messages, tools=TOOLS)
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in answer.content]})
        uses = [block for block in answer.content if block.type == "tool_use"]
        if not uses:
            return "".join(block.text for block in answer.content if block.type == "text")
        for use in uses:
            print(f"  loop runs              {use.name}")
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": use.id, "content": run_tool(use.name, **use.input)}
            for use in uses]})


def main() -> None:
    print(f"installed: {len(report.patched) + len(report.pending)} call sites of anthropic {report.version}")
    client = anthropic.Anthropic(api_key="sk-offline", base_url="http://scripted.invalid", max_retries=0,
                                 http_client=httpx.Client(transport=httpx.MockTransport(scripted_model)))
    with execution("quickstart", inputs="What do my notes say?") as run:
        run.output = agent_loop(client, run.inputs)
    print(f"answer:    {run.output}")
    print(f"files:     {sorted(FILES)}  (delete_file never ran)")
    print("the model was told:", *MODEL_SAW, sep="\n  ")
    assert "notes.txt" in FILES and "[card number redacted]" in run.output


if __name__ == "__main__":
    main()
