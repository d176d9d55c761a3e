"""Tool calls over WebSocket connections: Realtime sessions and the Responses WebSocket mode.

``client.realtime.connect()`` and ``client.responses.connect()`` give the application a
connection whose server events carry the model's tool calls (``function_call`` items,
and on the Responses socket every call item type the HTTP API has); the loop reads
them and runs what they ask for. Every read -- ``recv()``, iterating the connection,
``dispatch_events`` and its handlers -- passes ``recv_bytes``, so that is the call site:

- an event that shows a call still being written (its item added, its arguments
  streaming) is held back until the call's arguments are complete; then PRE_TOOL_CALL
  decides it once, and the held events are handed out (allowed) or dropped (refused);
- a refused call is taken out of every later event of the connection (its item
  events, its argument events, the finished response's ``output``), so the application
  never sees it; its refusal is the call's output, in the API's own shape: on a Realtime
  session a ``conversation.item.create`` sent at once, on the Responses socket added to
  the application's next ``response.create`` (as for an HTTP request);
- when a response ends and every call it asked for was refused, the loop has nothing
  to answer, so the adapter asks for the next response itself (Realtime:
  ``response.create``; Responses: ``response.create`` with the last request's settings,
  ``previous_response_id`` and the refusals as ``input``) and holds that response's end
  event back: the loop reads on into the next response, as an HTTP caller receives the
  answer the adapter asked for;
- POST_TOOL_CALL fires when the application sends a call's output (``send``); a returned
  string replaces the output that is sent.

The connection's memory is bounded (the last `LIMIT` calls).
"""

from __future__ import annotations

import json
import threading
import weakref
from collections import OrderedDict, deque
from collections.abc import Callable, Generator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from hookport.calls import tool_hooks_active

from hookport.adapters._sdk_tools import LIMIT, AskedCall, ToolLedger
from hookport.adapters.openai_sdk._responses import CALL_ITEMS, _refusal_output, item_call

Wrapper = Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]
REALTIME, RESPONSES = "realtime", "responses_ws"
_ENDS = {REALTIME: ("response.done",), RESPONSES: ("response.completed", "response.incomplete", "response.failed")}
_ARGUMENTS = ("response.function_call_arguments.delta", "response.function_call_arguments.done",
              "response.custom_tool_call_input.delta", "response.custom_tool_call_input.done")
_OUTPUT_TYPES = {output for output in CALL_ITEMS.values()}
_own_send: ContextVar[bool] = ContextVar("hookport_openai_socket_own_send", default=False)


class _Own:
    """``with _Own():`` a message the adapter sends itself (its own ``send`` is not reviewed)."""

    def __enter__(self) -> None:
        self._token = _own_send.set(True)

    def __exit__(self, *exc: object) -> None:
        _own_send.reset(self._token)


@dataclass
class _Call:
    """One call the connection's events carry."""

    call_id: str
    item: dict[str, Any] = field(default_factory=dict)
    held: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)
    """(message, event) waiting for this call's decision, in order."""
    decided: bool = False
    refusal: str | None = None
    key: str | None = None
    """The ledger key of an allowed call (its POST waits there)."""


class _Socket:
    """One connection's calls: held, decided, refused, and what is owed to the server."""

    def __init__(self, api: str) -> None:
        self.api = api
        self.ready: deque[Any] = deque()
        self.calls: OrderedDict[str, _Call] = OrderedDict()
        self.items: dict[str, str] = {}
        """item id -> call id (argument events name the item)."""
        self.response_calls: dict[str, list[str]] = {}
        self.owed: list[dict[str, Any]] = []
        """Refusal outputs for the application's next ``response.create`` (Responses)."""
        self.last_request: dict[str, Any] = {}
        self.lock = threading.Lock()

    def call(self, call_id: str) -> _Call:
        found = self.calls.get(call_id)
        if found is None:
            found = self.calls[call_id] = _Call(call_id)
            while len(self.calls) > LIMIT:
                self.calls.popitem(last=False)
        return found


_sockets: weakref.WeakKeyDictionary[Any, _Socket] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _socket(connection: Any, api: str) -> _Socket:
    with _lock:
        found = _sockets.get(connection)
        if found is None:
            found = _sockets[connection] = _Socket(api)
        return found


# -- reading events ------------------------------------------------------------------------------------------


def _item_calls(event: dict[str, Any]) -> list[tuple[dict[str, Any], bool]]:
    """The call items an event carries, each with whether its arguments are complete."""
    kind = str(event.get("type") or "")
    item = event.get("item")
    if isinstance(item, dict) and item.get("type") in CALL_ITEMS:
        done = kind.endswith(".done") or item.get("status") == "completed"
        return [(item, done)]
    response = event.get("response")
    if isinstance(response, dict) and kind.startswith("response.") and isinstance(response.get("output"), list):
        return [(i, True) for i in response["output"] if isinstance(i, dict) and i.get("type") in CALL_ITEMS]
    return []


def _argument_call(socket: _Socket, event: dict[str, Any]) -> str | None:
    if event.get("type") not in _ARGUMENTS:
        return None
    return event.get("call_id") or socket.items.get(str(event.get("item_id")))


class _Review:
    """What one server event needs: the calls to decide now, and whether the event is held or edited."""

    def __init__(self, socket: _Socket, event: dict[str, Any]) -> None:
        self.socket, self.event = socket, event
        self.decide: list[_Call] = []
        self.hold: _Call | None = None
        for item, done in _item_calls(event):
            parts = item_call(item)
            if parts is None or parts[0] is None:
                continue
            call = socket.call(str(parts[0]))
            call.item = item
            if item.get("id"):
                socket.items[str(item["id"])] = call.call_id
            response_id = event.get("response_id") or (event.get("response") or {}).get("id")
            if response_id:
                calls = socket.response_calls.setdefault(str(response_id), [])
                if call.call_id not in calls:
                    calls.append(call.call_id)
            if not call.decided:
                if done:
                    self.decide.append(call)
                elif self.hold is None:
                    self.hold = call
        call_id = _argument_call(socket, event)
        if call_id is not None:
            call = socket.call(call_id)
            if event["type"].endswith(".done") and not call.decided:
                if "arguments" in event and call.item.get("type", "function_call") == "function_call":
                    call.item = {"type": "function_call", "call_id": call_id, **call.item,
                                 "name": event.get("name") or call.item.get("name"), "arguments": event["arguments"]}
                elif "input" in event:
                    call.item = {**call.item, "input": event["input"]}
                if call.item.get("name"):
                    self.decide.append(call)
                else:
                    self.hold = call
            elif not call.decided:
                self.hold = call


def _edited(socket: _Socket, event: dict[str, Any]) -> dict[str, Any] | None:
    """The event without its refused calls (None: nothing of it is left to hand out)."""
    refused = {c for c, call in socket.calls.items() if call.refusal is not None}
    if not refused:
        return event
    for item, _ in _item_calls(event):
        parts = item_call(item)
        if parts is not None and str(parts[0]) in refused and event.get("item") is item:
            return None
    if _argument_call(socket, event) in refused:
        return None
    response = event.get("response")
    if isinstance(response, dict) and isinstance(response.get("output"), list):
        kept = [i for i in response["output"] if not (isinstance(i, dict) and (item_call(i) or (None,))[0] in refused)]
        if len(kept) != len(response["output"]):
            return {**event, "response": {**response, "output": kept}}
    return event


def _asked(call: _Call) -> AskedCall | None:
    parts = item_call(call.item)
    if parts is None:
        return None
    call_id, name, arguments = parts
    return AskedCall(str(call_id), str(name), dict(arguments or {}), native=call.item)


def _ended_all_refused(socket: _Socket, event: dict[str, Any]) -> bool:
    if event.get("type") not in _ENDS[socket.api]:
        return False
    response_id = str((event.get("response") or {}).get("id") or "")
    calls = [socket.calls.get(c) for c in socket.response_calls.pop(response_id, [])]
    return bool(calls) and all(c is not None and c.refusal is not None for c in calls)


# -- the wrappers -------------------------------------------------------------------------------------------


class _Sockets:
    """The ``recv_bytes`` / ``send`` wrappers of one connection class family."""

    def __init__(self, api: str, ledger: ToolLedger) -> None:
        self.api, self.ledger = api, ledger

    # decisions ----------------------------------------------------------------------------------------

    def _decided(self, socket: _Socket, call: _Call, review: Any) -> list[dict[str, Any]]:
        """Apply one call's review; the messages to send the server for it (its refusal)."""
        call.decided = True
        if review is None:
            return []
        if review.refused:
            call.refusal = review.refused[0][1]
            output = _refusal_output(str(call.item.get("type") or "function_call"), call.call_id, call.refusal)
            if output is None:
                return []
            if socket.api == REALTIME:
                return [{"type": "conversation.item.create", "item": output}]
            socket.owed.append(output)
            return []
        if review.allowed:
            asked, ctx = review.allowed[0]
            call.key = review.key(asked, ctx.tool_input)
        return []

    def _emit(self, socket: _Socket, message: Any, event: dict[str, Any], decided: list[_Call]) -> list[dict[str, Any]]:
        """Hand out the held events of the allowed calls, then this one (edited); the messages to send."""
        for call in decided:
            if call.refusal is None:
                socket.ready.extend(held for held, _ in call.held)
            call.held = []
        if _ended_all_refused(socket, event):  # the loop would stop here: the next response continues it
            return self._continuation(socket)
        edited = _edited(socket, event)
        if edited is event:
            socket.ready.append(message)
        elif edited is not None:
            socket.ready.append(json.dumps(edited).encode())
        return []

    def _continuation(self, socket: _Socket) -> list[dict[str, Any]]:
        if socket.api == REALTIME:
            return [{"type": "response.create"}]
        request = {k: v for k, v in socket.last_request.items()
                   if k not in ("input", "previous_response_id", "_hookport_response_id")}
        owed, socket.owed = socket.owed, []
        previous = socket.last_request.get("_hookport_response_id")
        return [{**request, "type": "response.create", "input": owed,
                 **({"previous_response_id": previous} if previous else {})}]

    # receiving ---------------------------------------------------------------------------------------

    @staticmethod
    def _take(socket: _Socket, message: Any) -> tuple[dict[str, Any] | None, list[_Call]]:
        """Read one message: its event (None: handed out as it is, or held) and the calls to decide now."""
        try:
            event = json.loads(message)
        except (ValueError, TypeError, RecursionError):
            event = None
        if not isinstance(event, dict):
            socket.ready.append(message)
            return None, []
        if event.get("type") in _ENDS[socket.api] and isinstance(event.get("response"), dict):
            socket.last_request["_hookport_response_id"] = event["response"].get("id")
        review = _Review(socket, event)
        if review.hold is not None and not review.decide:
            review.hold.held.append((message, event))
            return None, []
        return event, review.decide

    def _idle(self, instance: Any) -> bool:
        socket = _sockets.get(instance) if instance is not None else None
        return instance is None or (not tool_hooks_active() and (socket is None or not socket.ready))

    def _read(self, socket: _Socket, message: Any) -> Generator[AskedCall, Any, list[dict[str, Any]]]:
        """One message read: yields each call to decide (and is sent its review); returns what to send."""
        event, decide = self._take(socket, message)
        if event is None:
            return []
        sends: list[dict[str, Any]] = []
        for call in decide:
            asked = _asked(call)
            sends += self._decided(socket, call, (yield asked) if asked is not None else None)
        return sends + self._emit(socket, message, event, decide)

    def recv(self, wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``<Connection>.recv_bytes()``."""
        if self._idle(instance):
            return wrapped(*args, **kwargs)
        socket = _socket(instance, self.api)
        while not socket.ready:
            reading, review = self._read(socket, wrapped(*args, **kwargs)), None
            try:
                while True:
                    asked = reading.send(review)
                    review = self.ledger.review([asked], self.api, self._key(instance))
            except StopIteration as done:
                sends = done.value
            for out in sends:
                with _Own():
                    instance.send(out)
        return socket.ready.popleft()

    async def arecv(self, wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """``<AsyncConnection>.recv_bytes()``."""
        if self._idle(instance):
            return await wrapped(*args, **kwargs)
        socket = _socket(instance, self.api)
        while not socket.ready:
            reading, review = self._read(socket, await wrapped(*args, **kwargs)), None
            try:
                while True:
                    asked = reading.send(review)
                    review = await self.ledger.areview([asked], self.api, self._key(instance))
            except StopIteration as done:
                sends = done.value
            for out in sends:
                with _Own():
                    await instance.send(out)
        return socket.ready.popleft()

    def _key(self, connection: Any) -> str:
        return f"{self.api}:{id(connection)}"

    # sending ------------------------------------------------------------------------------------------

    def _outgoing(self, instance: Any, event: Any) -> Any:
        """The application's event, with what is owed added and each call output's POST_TOOL_CALL."""
        if _own_send.get() or instance is None:
            return event
        socket = _socket(instance, self.api) if tool_hooks_active() else _sockets.get(instance)
        if socket is None:
            return event
        payload = event.model_dump(exclude_unset=True) if hasattr(event, "model_dump") else event
        if not isinstance(payload, dict):
            return event
        changed = False
        if payload.get("type") == "response.create" and socket.api == RESPONSES:
            socket.last_request = {**{k: v for k, v in payload.items() if k != "type"},
                                   "_hookport_response_id": socket.last_request.get("_hookport_response_id")}
            items = payload.get("input")
            if socket.owed and (isinstance(items, list) or items is None):
                payload = {**payload, "input": [*(items or []), *socket.owed]}
                socket.owed = []
                changed = True
            outputs = [i for i in payload.get("input") or () if isinstance(i, dict) and i.get("type") in _OUTPUT_TYPES]
        elif payload.get("type") == "conversation.item.create" and isinstance(payload.get("item"), dict) \
                and payload["item"].get("type") in _OUTPUT_TYPES:
            outputs = [payload["item"]]
        else:
            return event
        for output in outputs:
            call = socket.calls.get(str(output.get("call_id")))
            if call is None or call.key is None or not isinstance(output.get("output"), str):
                continue
            replaced = self.ledger.settle(call.key, output["output"])
            call.key = None
            if replaced is not None:
                output["output"] = replaced
                changed = True
        return payload if changed else event

    def send(self, wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if args:
            args = (self._outgoing(instance, args[0]), *args[1:])
        return wrapped(*args, **kwargs)


def socket_wrappers(ledger: ToolLedger) -> dict[str, tuple[Wrapper, Wrapper, Wrapper, Wrapper]]:
    """api -> (sync recv_bytes, async recv_bytes, sync send, async send) wrappers."""
    found = {}
    for api in (REALTIME, RESPONSES):
        sockets = _Sockets(api, ledger)
        found[api] = (sockets.recv, sockets.arecv, sockets.send, sockets.send)
    return found
