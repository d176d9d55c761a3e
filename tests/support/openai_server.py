"""A scripted OpenAI-compatible server on 127.0.0.1, for frameworks that only speak HTTP.

    with ScriptedOpenAIServer() as server:
        server.script([Turn.call("add_numbers", a=2, b=3), Turn.final("5")])
        client = OpenAI(base_url=server.base_url, api_key="sk-offline")

It serves ``POST /v1/chat/completions`` (streaming and not, with
``tool_calls``), ``POST /v1/responses`` (the Responses API, streamed or not:
``message`` and ``function_call`` output items) and ``GET /v1/models``; every
request body is recorded in `requests`. Answers come from the script in order; by default the answer is
chosen by the number of assistant messages already in the conversation, so
independent conversations (batch runs) each walk the whole script. A turn with
``error`` answers HTTP 500. It binds a free port, stops with the block, and
never touches any other address.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.conformance.harness import Turn, number_tool_calls


class ScriptedOpenAIServer:
    def __init__(self, *, model: str = "scripted-model", by_conversation: bool = True) -> None:
        self.model = model
        self.by_conversation = by_conversation
        self.requests: list[dict[str, Any]] = []
        self._turns: list[Turn] = []
        self._cursor = 0
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------

    def start(self) -> ScriptedOpenAIServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [{"id": server.model, "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                route = self.path.split("?", 1)[0].rstrip("/")
                if route.endswith("/responses"):
                    turn = server._answer_for(body)
                    if turn.error is not None:
                        self._json(500, {"error": {"message": turn.error, "type": "server_error"}})
                    elif body.get("stream"):
                        self._events(server.response_events(turn, body))
                    else:
                        self._json(200, server.response(turn, body))
                    return
                if not route.endswith("/chat/completions"):
                    self._json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                turn = server._answer_for(body)
                if turn.error is not None:
                    self._json(500, {"error": {"message": turn.error, "type": "server_error"}})
                elif body.get("stream"):
                    self._stream(turn, body)
                else:
                    self._json(200, server.completion(turn, body))

            def _json(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _events(self, events: Iterator[dict[str, Any]]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for event in events:
                    self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
                    self.wfile.flush()
                self.close_connection = True

            def _stream(self, turn: Turn, body: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in server.chunks(turn, body):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="scripted-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    # -- script ----------------------------------------------------------------------

    def script(self, turns: list[Turn]) -> None:
        with self._lock:
            self._turns = number_tool_calls(list(turns))
            self._cursor = 0
            self.requests.clear()

    def _answer_for(self, body: dict[str, Any]) -> Turn:
        with self._lock:
            self.requests.append(body)
            if self.by_conversation:
                index = _assistant_turns(body)
            else:
                index, self._cursor = self._cursor, self._cursor + 1
            if not self._turns:
                return Turn.final("(no script)")
            return self._turns[min(index, len(self._turns) - 1)]

    # -- response bodies -----------------------------------------------------------------

    def completion(self, turn: Turn, body: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": turn.text}
        if turn.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.args)}}
                for c in turn.tool_calls
            ]
        return {
            "id": f"chatcmpl-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model),
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if turn.tool_calls else "stop"}
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }

    def response(self, turn: Turn, body: dict[str, Any]) -> dict[str, Any]:
        """A Responses API answer: one ``message`` item, or one ``function_call`` item per call."""
        number = len(self.requests)
        output: list[dict[str, Any]] = [
            {"type": "function_call", "id": f"fc_{number}_{i}", "call_id": c.id, "name": c.name,
             "arguments": json.dumps(c.args), "status": "completed"}
            for i, c in enumerate(turn.tool_calls)
        ]
        if turn.text is not None or not output:
            output.insert(0, {"type": "message", "id": f"msg_{number}", "role": "assistant", "status": "completed",
                              "content": [{"type": "output_text", "text": turn.text or "", "annotations": []}]})
        return {
            "id": f"resp_{number}",
            "object": "response",
            "created_at": int(time.time()),
            "status": "completed",
            "model": body.get("model", self.model),
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                      "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens_details": {"reasoning_tokens": 0}},
        }

    def response_events(self, turn: Turn, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The Responses API's streamed events for `turn`: created, each output item (added,
        its text or argument deltas, done), completed."""
        final = self.response(turn, body)
        sequence = iter(range(10_000))

        def event(kind: str, **fields: Any) -> dict[str, Any]:
            return {"type": kind, "sequence_number": next(sequence), **fields}

        yield event("response.created", response={**final, "status": "in_progress", "output": []})
        for index, item in enumerate(final["output"]):
            if item["type"] == "message":
                text = item["content"][0]["text"]
                yield event("response.output_item.added", output_index=index, item={**item, "content": [],
                                                                                    "status": "in_progress"})
                part = {"type": "output_text", "text": "", "annotations": []}
                yield event("response.content_part.added", item_id=item["id"], output_index=index, content_index=0,
                            part=part)
                for i, word in enumerate(text.split(" ") if text else []):
                    yield event("response.output_text.delta", item_id=item["id"], output_index=index,
                                content_index=0, delta=word if i == 0 else " " + word, logprobs=[])
                yield event("response.output_text.done", item_id=item["id"], output_index=index, content_index=0,
                            text=text, logprobs=[])
                yield event("response.content_part.done", item_id=item["id"], output_index=index, content_index=0,
                            part={**part, "text": text})
            else:
                yield event("response.output_item.added", output_index=index,
                            item={**item, "arguments": "", "status": "in_progress"})
                yield event("response.function_call_arguments.delta", item_id=item["id"], output_index=index,
                            delta=item["arguments"])
                yield event("response.function_call_arguments.done", item_id=item["id"], output_index=index,
                            arguments=item["arguments"])
            yield event("response.output_item.done", output_index=index, item=item)
        yield event("response.completed", response=final)

    def chunks(self, turn: Turn, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        base = {"id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": body.get("model", self.model)}

        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        yield chunk({"role": "assistant", "content": ""})
        if turn.text:
            words = turn.text.split(" ")
            for i, word in enumerate(words):
                yield chunk({"content": word if i == 0 else " " + word})
        for index, call in enumerate(turn.tool_calls):
            yield chunk({"tool_calls": [{"index": index, "id": call.id, "type": "function",
                                         "function": {"name": call.name, "arguments": json.dumps(call.args)}}]})
        yield chunk({}, "tool_calls" if turn.tool_calls else "stop")


def _assistant_turns(body: dict[str, Any]) -> int:
    """How many assistant turns a conversation holds (chat ``messages`` or Responses ``input``)."""
    if "messages" in body:
        return sum(1 for m in body.get("messages") or [] if m.get("role") == "assistant")
    items = body.get("input")
    if not isinstance(items, list):
        return 0
    turns = 0
    in_turn = False
    for item in items:
        is_assistant = isinstance(item, dict) and (item.get("type") == "function_call" or item.get("role") == "assistant")
        if is_assistant and not in_turn:
            turns += 1
        in_turn = is_assistant
    return turns


def request_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A recorded request's conversation: chat ``messages``, or a Responses ``instructions`` + ``input``."""
    if "messages" in body:
        return list(body["messages"])
    items = body.get("input")
    messages = [{"role": "system", "content": body["instructions"]}] if body.get("instructions") else []
    if isinstance(items, str):
        return [*messages, {"role": "user", "content": items}]
    return [*messages, *(item for item in items or [] if isinstance(item, dict))]
