"""A scripted WebSocket server on 127.0.0.1 for the Realtime and Responses WebSocket APIs.

On connect it sends the session's first event (Realtime: ``session.created``); on each
``response.create`` the client sends, it sends the next queued list of server events,
verbatim. Every client message is recorded (parsed).
"""

from __future__ import annotations

import json
import threading
from typing import Any

from websockets.sync.server import ServerConnection, serve


class SocketServer:
    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self._script: list[list[dict[str, Any]]] = []
        self._lock = threading.Lock()
        self._server = serve(self._handle, "127.0.0.1", 0)
        threading.Thread(target=self._server.serve_forever, name="socket-server", daemon=True).start()

    @property
    def port(self) -> int:
        return int(self._server.socket.getsockname()[1])

    def script(self, *responses: list[dict[str, Any]]) -> None:
        with self._lock:
            self._script = list(responses)
            self.received.clear()

    def _handle(self, connection: ServerConnection) -> None:
        if "/realtime" in (connection.request.path if connection.request else ""):
            connection.send(json.dumps({"type": "session.created", "event_id": "event_0",
                                        "session": {"type": "realtime", "id": "sess_1", "object": "realtime.session"}}))
        for message in connection:
            event = json.loads(message)
            with self._lock:
                self.received.append(event)
                events = self._script.pop(0) if event.get("type") == "response.create" and self._script else []
            for server_event in events:
                connection.send(json.dumps(server_event))

    def stop(self) -> None:
        self._server.shutdown()


# -- events -------------------------------------------------------------------------------------------------


def realtime_call(response_id: str, call_id: str, name: str, **args: Any) -> list[dict[str, Any]]:
    """A Realtime response's events for one function call, as the server streams them."""
    item = {"id": f"item_{call_id}", "type": "function_call", "object": "realtime.item", "status": "in_progress",
            "call_id": call_id, "name": name, "arguments": ""}
    arguments = json.dumps(args)
    done = {**item, "status": "completed", "arguments": arguments}
    base = {"response_id": response_id, "output_index": 0}
    return [
        {"type": "response.output_item.added", "event_id": f"e_{call_id}_1", **base, "item": item},
        {"type": "conversation.item.added", "event_id": f"e_{call_id}_2", "previous_item_id": None, "item": item},
        {"type": "response.function_call_arguments.delta", "event_id": f"e_{call_id}_3", **base,
         "item_id": item["id"], "call_id": call_id, "delta": arguments},
        {"type": "response.function_call_arguments.done", "event_id": f"e_{call_id}_4", **base,
         "item_id": item["id"], "call_id": call_id, "name": name, "arguments": arguments},
        {"type": "conversation.item.done", "event_id": f"e_{call_id}_5", "previous_item_id": None, "item": done},
        {"type": "response.output_item.done", "event_id": f"e_{call_id}_6", **base, "item": done},
    ]


def realtime_response(response_id: str, *calls: list[dict[str, Any]], text: str | None = None) -> list[dict[str, Any]]:
    """A whole Realtime response: created, its calls' events (or a text item), done with its output."""
    output = [e["item"] for events in calls for e in events if e["type"] == "response.output_item.done"]
    if text is not None:
        output.append({"id": f"item_{response_id}", "type": "message", "object": "realtime.item", "role": "assistant",
                       "status": "completed", "content": [{"type": "output_text", "text": text}]})
    body = {"id": response_id, "object": "realtime.response", "status": "completed", "output": output}
    return [{"type": "response.created", "event_id": f"e_{response_id}_0", "response": {**body, "output": [],
                                                                                            "status": "in_progress"}},
            *(e for events in calls for e in events),
            {"type": "response.done", "event_id": f"e_{response_id}_9", "response": body}]


def responses_call(call_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"id": f"fc_{call_id}", "type": "function_call", "status": "completed", "call_id": call_id, "name": name,
            "arguments": json.dumps(args)}


def responses_response(response_id: str, *items: dict[str, Any], text: str | None = None) -> list[dict[str, Any]]:
    """A Responses WebSocket response's events: created, each item added (arguments streaming) and done,
    completed."""
    output = list(items)
    if text is not None:
        output.append({"id": f"msg_{response_id}", "type": "message", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
    body = {"id": response_id, "object": "response", "created_at": 0, "model": "m", "status": "completed",
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": []}
    events: list[dict[str, Any]] = [{"type": "response.created", "sequence_number": 0,
                                     "response": {**body, "status": "in_progress", "output": []}}]
    for index, item in enumerate(output):
        started = {**item, "arguments": ""} if item["type"] == "function_call" else item
        events.append({"type": "response.output_item.added", "sequence_number": len(events), "output_index": index,
                       "item": {**started, "status": "in_progress"}})
        if item["type"] == "function_call":
            events.append({"type": "response.function_call_arguments.delta", "sequence_number": len(events),
                           "output_index": index, "item_id": item["id"], "delta": item["arguments"]})
            events.append({"type": "response.function_call_arguments.done", "sequence_number": len(events),
                           "output_index": index, "item_id": item["id"], "name": item["name"],
                           "arguments": item["arguments"]})
        events.append({"type": "response.output_item.done", "sequence_number": len(events), "output_index": index,
                       "item": item})
    events.append({"type": "response.completed", "sequence_number": len(events), "response": body})
    return events
