"""A wire-level scripted model server on 127.0.0.1: each request gets the next queued body, verbatim.

The conformance servers speak only the common shapes; an attacker's paths need
any item the wire format has (custom tool calls, ``n=2`` choices, background
responses, shell and patch calls...), so these tests queue the exact JSON (or
SSE events, or a file's text: batch results) the real API would send. Every request is recorded (method, path,
body). Used by the openai and anthropic adversarial suites.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class WireServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._queue: list[dict[str, Any] | list[dict[str, Any]] | str] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                self._answer(None)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                self._answer(json.loads(self.rfile.read(length) or b"{}"))

            def _answer(self, body: dict[str, Any] | None) -> None:
                with server._lock:
                    server.requests.append({"method": self.command, "path": self.path, "body": body})
                    answer = server._queue.pop(0) if server._queue else {"error": {"message": "no script"}}
                if isinstance(answer, str):  # a file's bytes, verbatim (JSON Lines: batch results)
                    data = answer.encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/binary")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                if isinstance(answer, list):  # SSE events
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for event in answer:
                        kind = event.get("type")
                        head = f"event: {kind}\n" if kind else ""
                        self.wfile.write(f"{head}data: {json.dumps(event)}\n\n".encode())
                    if answer and "choices" in answer[0]:
                        self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                    self.close_connection = True
                    return
                data = json.dumps(answer).encode()
                self.send_response(500 if "error" in answer else 200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, name="wire-server", daemon=True).start()

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def queue(self, *answers: dict[str, Any] | list[dict[str, Any]] | str) -> None:
        with self._lock:
            self._queue = list(answers)
            self.requests.clear()

    def bodies(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if r["body"] is not None]


# -- openai bodies ------------------------------------------------------------------------------------


def completion(*choices: dict[str, Any]) -> dict[str, Any]:
    """A chat completion whose choices carry the given messages."""
    return {"id": "chatcmpl-wire", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": i, "message": {"role": "assistant", "content": None, **message},
                         "finish_reason": "tool_calls"} for i, message in enumerate(choices)]}


def final_completion(text: str = "done") -> dict[str, Any]:
    return completion({"content": text})


def function_call(call_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def response(*items: dict[str, Any], status: str = "completed", response_id: str = "resp_wire") -> dict[str, Any]:
    return {"id": response_id, "object": "response", "created_at": 0, "model": "m", "status": status,
            "output": list(items), "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}


def final_response(text: str = "done") -> dict[str, Any]:
    return response({"type": "message", "id": "msg_wire", "role": "assistant", "status": "completed",
                     "content": [{"type": "output_text", "text": text, "annotations": []}]})


def response_events(body: dict[str, Any]) -> list[dict[str, Any]]:
    """A Responses stream for `body`: created, each item added and done, completed."""
    events: list[dict[str, Any]] = [{"type": "response.created", "sequence_number": 0,
                                     "response": {**body, "status": "in_progress", "output": []}}]
    for index, item in enumerate(body["output"]):
        events.append({"type": "response.output_item.added", "sequence_number": len(events),
                       "output_index": index, "item": item})
        events.append({"type": "response.output_item.done", "sequence_number": len(events),
                       "output_index": index, "item": item})
    events.append({"type": "response.completed", "sequence_number": len(events), "response": body})
    return events


def chat_chunks(message: dict[str, Any], choice: int = 0) -> list[dict[str, Any]]:
    """A chat stream whose one chunk carries `message` as a delta (tool calls with their index)."""
    delta = dict(message)
    if "tool_calls" in delta:
        delta["tool_calls"] = [{"index": i, **call} for i, call in enumerate(delta["tool_calls"])]
    return [{"id": "chatcmpl-wire", "object": "chat.completion.chunk", "created": 0, "model": "m",
             "choices": [{"index": choice, "delta": {"role": "assistant", **delta}, "finish_reason": None}]},
            {"id": "chatcmpl-wire", "object": "chat.completion.chunk", "created": 0, "model": "m",
             "choices": [{"index": choice, "delta": {}, "finish_reason": "tool_calls"}]}]


# -- anthropic bodies ---------------------------------------------------------------------------------


def message(*blocks: dict[str, Any], stop: str = "tool_use") -> dict[str, Any]:
    return {"id": "msg_wire", "type": "message", "role": "assistant", "model": "claude", "content": list(blocks),
            "stop_reason": stop, "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}


def tool_use(use_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": args}


def final_message(text: str = "done") -> dict[str, Any]:
    return message({"type": "text", "text": text}, stop="end_turn")


def batch(batch_id: str, base_url: str) -> dict[str, Any]:
    """An ended message batch whose results are at `base_url`."""
    return {"id": batch_id, "type": "message_batch", "processing_status": "ended", "created_at": "2026-01-01T00:00:00Z",
            "expires_at": "2026-01-02T00:00:00Z", "ended_at": "2026-01-01T00:01:00Z", "archived_at": None,
            "cancel_initiated_at": None, "results_url": f"{base_url}/v1/messages/batches/{batch_id}/results",
            "request_counts": {"processing": 0, "succeeded": 1, "errored": 0, "canceled": 0, "expired": 0}}


def batch_results(*messages: tuple[str, dict[str, Any]]) -> str:
    """A batch's results file: one succeeded line per (custom_id, message)."""
    return "".join(json.dumps({"custom_id": custom_id, "result": {"type": "succeeded", "message": body}}) + "\n"
                   for custom_id, body in messages)
