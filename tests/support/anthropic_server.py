"""A scripted Anthropic-compatible server on 127.0.0.1, for the anthropic SDK adapter.

    with ScriptedAnthropicServer() as server:
        server.script([Turn.call("add_numbers", a=2, b=3), Turn.final("5")])
        client = Anthropic(base_url=server.base_url, api_key="sk-offline")

It serves ``POST /v1/messages``, streamed (the SSE events ``message_start`` ...
``message_stop``, tool input as ``input_json_delta``) or not, answering with the
script's turns in request order (a retried request gets the next turn), or with
``by_conversation=True`` by the assistant turns already in the conversation; a turn
with ``error`` answers HTTP 500 with Anthropic's error body. Every request body
is recorded in `requests`. It binds a free port and never touches any other address.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.conformance.harness import Turn, number_tool_calls


class ScriptedAnthropicServer:
    def __init__(self, *, by_conversation: bool = False) -> None:
        self.by_conversation = by_conversation
        """Pick the turn by the assistant messages already in the conversation (else: request order)."""
        self.requests: list[dict[str, Any]] = []
        self._turns: list[Turn] = []
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    def start(self) -> ScriptedAnthropicServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if not self.path.split("?", 1)[0].rstrip("/").endswith("/messages"):
                    self._send(404, {"type": "error", "error": {"type": "not_found_error", "message": self.path}})
                    return
                turn = server._answer_for(body)
                if turn.error is not None:
                    self._send(500, {"type": "error", "error": {"type": "api_error", "message": turn.error}})
                elif body.get("stream"):
                    self._events(server.events(turn, body))
                else:
                    self._send(200, server.message(turn, body))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _events(self, events: Iterator[dict[str, Any]]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                for event in events:
                    self.wfile.write(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode())
                    self.wfile.flush()
                self.close_connection = True

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, name="scripted-anthropic", daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedAnthropicServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, turns: list[Turn]) -> None:
        with self._lock:
            self._turns = number_tool_calls(list(turns))
            for turn in self._turns:
                for call in turn.tool_calls:
                    call.id = call.id.replace("call_", "toolu_")
            self.requests.clear()

    def _answer_for(self, body: dict[str, Any]) -> Turn:
        with self._lock:
            self.requests.append(body)
            if not self._turns:
                return Turn.final("(no script)")
            if self.by_conversation:
                index = sum(1 for m in body.get("messages") or [] if m.get("role") == "assistant")
            else:
                index = len(self.requests) - 1
            return self._turns[min(index, len(self._turns) - 1)]

    def message(self, turn: Turn, body: dict[str, Any]) -> dict[str, Any]:
        content: list[dict[str, Any]] = [{"type": "text", "text": turn.text}] if turn.text else []
        content += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.args} for c in turn.tool_calls]
        return {"id": f"msg_{len(self.requests)}", "type": "message", "role": "assistant",
                "model": body.get("model", "claude-scripted"), "content": content,
                "stop_reason": "tool_use" if turn.tool_calls else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5}}

    def events(self, turn: Turn, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
        final = self.message(turn, body)
        yield {"type": "message_start", "message": {**final, "content": [], "stop_reason": None}}
        for index, block in enumerate(final["content"]):
            if block["type"] == "text":
                yield {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
                for i, word in enumerate(block["text"].split(" ")):
                    yield {"type": "content_block_delta", "index": index,
                           "delta": {"type": "text_delta", "text": word if i == 0 else " " + word}}
            else:
                yield {"type": "content_block_start", "index": index,
                       "content_block": {**block, "input": {}}}
                yield {"type": "content_block_delta", "index": index,
                       "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}}
            yield {"type": "content_block_stop", "index": index}
        yield {"type": "message_delta", "delta": {"stop_reason": final["stop_reason"], "stop_sequence": None},
               "usage": {"output_tokens": 5}}
        yield {"type": "message_stop"}
