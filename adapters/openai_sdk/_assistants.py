"""Assistants runs: the function calls a run's ``required_action`` asks the application to run.

A run that needs the application's tools stops with ``status="requires_action"`` and lists
the calls in ``required_action.submit_tool_outputs.tool_calls``; the loop runs them and
sends their outputs with ``submit_tool_outputs``. Every ``Run`` the SDK hands out --
``runs.create`` / ``retrieve`` / ``poll`` / ``create_and_poll`` / ``threads.create_and_run``,
raw responses' ``.parse()``, and the ``thread.run.requires_action`` event of every run
stream and event handler -- is built by ``BaseClient._process_response_data``, so that is
the call site:

- each call of a run's required action gets PRE_TOOL_CALL once (a run fetched again while it
  waits is not reviewed again); a refused call is removed from ``tool_calls`` (and from a raw
  response's body), so the loop never runs it; edited arguments are written in;
- every request that submits outputs for that run (``submit_tool_outputs``, ``_and_poll``,
  ``_stream``: each is a POST to ``.../submit_tool_outputs``) gets the refused calls' outputs
  added (the refusal text), and POST_TOOL_CALL fires for each allowed call's output (a
  returned string replaces it);
- when every call of a run is refused, a synchronous client submits the refusals itself and
  hands the application the run that submission returned (``queued``), so a loop with no
  output to send (``if tool_outputs: ...``) does not leave the run waiting. An async client
  cannot send from inside the response it is parsing: its loop receives an empty ``tool_calls``
  list, and the submission it makes (an empty ``tool_outputs`` list included) carries the
  refusals.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from hookport.calls import tool_hooks_active

from hookport.adapters._sdk_data import parse_arguments
from hookport.adapters._sdk_tools import AskedCall, ToolLedger, _Bounded

Wrapper = Callable[[Any, Any, tuple[Any, ...], dict[str, Any]], Any]
API = "assistants"
_SUBMIT = re.compile(r"/threads/([^/]+)/runs/([^/]+)/submit_tool_outputs$")
_HEADERS = {"OpenAI-Beta": "assistants=v2"}


class _Run:
    """What was decided for one run's calls: call id -> the refusal text, or None with its ledger key."""

    __slots__ = ("refused", "allowed")

    def __init__(self) -> None:
        self.refused: dict[str, str] = {}
        self.allowed: dict[str, str] = {}


def _waiting_run(result: Any) -> Any:
    """The run of `result` (a ``Run`` or a run stream's ``thread.run.requires_action`` event) that waits
    for tool outputs, or None."""
    kind = getattr(result, "object", None)  # every other answer (a completion...) stops here, cheaply
    if kind is not None and kind != "thread.run":
        return None
    run = result.data if kind is None and getattr(result, "event", None) == "thread.run.requires_action" else result
    if getattr(run, "object", None) != "thread.run" or getattr(run, "status", None) != "requires_action":
        return None
    action = getattr(run, "required_action", None)
    return run if getattr(getattr(action, "submit_tool_outputs", None), "tool_calls", None) is not None else None


def assistants_wrappers(ledger: ToolLedger) -> tuple[Wrapper, Wrapper, Wrapper]:
    """The wrapt wrappers of ``BaseClient._process_response_data`` and ``SyncAPIClient.post`` /
    ``AsyncAPIClient.post``."""
    runs = _Bounded[_Run]()

    def review(run: Any) -> _Run:
        key = f"{run.thread_id}/{run.id}"
        state = runs.get(key)
        if state is None:
            state = _Run()
            runs.remember(key, state)
        tool_calls = run.required_action.submit_tool_outputs.tool_calls
        new = [AskedCall(str(c.id), str(c.function.name), dict(parse_arguments(c.function.arguments) or {}), native=c)
               for c in tool_calls if c.id not in state.refused and c.id not in state.allowed]
        decided = ledger.review(new, API, key)
        for call, text in decided.refused:
            state.refused[call.id] = text
        for call, ctx in decided.allowed:
            state.allowed[call.id] = decided.key(call, ctx.tool_input)
            if ctx.tool_input != call.arguments:
                call.native.function.arguments = json.dumps(ctx.tool_input)
        run.required_action.submit_tool_outputs.tool_calls = [c for c in tool_calls if c.id not in state.refused]
        return state

    def process(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        result = wrapped(*args, **kwargs)
        if not tool_hooks_active():
            return result
        run = _waiting_run(result)
        if run is None:
            return result
        state = review(run)
        response = kwargs.get("response")
        if result is run and response is not None and "_content" in vars(response):
            response._content = run.model_dump_json(exclude_unset=True).encode()
        if result is run and not run.required_action.submit_tool_outputs.tool_calls and state.refused \
                and hasattr(instance, "post") and not _is_async(instance):
            return instance.post(f"/threads/{run.thread_id}/runs/{run.id}/submit_tool_outputs",
                                 body={"tool_outputs": []}, cast_to=type(run), options={"headers": _HEADERS})
        return result

    def outputs(path: Any, body: Any) -> Any:
        """The submission's body with the refusals added and POST_TOOL_CALL for each allowed output."""
        found = _SUBMIT.search(str(path))
        state = runs.get(f"{found.group(1)}/{found.group(2)}") if found else None
        if state is None or not isinstance(body, dict):
            return body
        sent = [dict(o) for o in body.get("tool_outputs") or ()]
        for output in sent:
            key = state.allowed.pop(str(output.get("tool_call_id")), None)
            if key is not None and isinstance(output.get("output"), str):
                replaced = ledger.settle(key, output["output"])
                if replaced is not None:
                    output["output"] = replaced
        answered = {o.get("tool_call_id") for o in sent}
        sent += [{"tool_call_id": call_id, "output": text} for call_id, text in state.refused.items()
                 if call_id not in answered]
        return {**body, "tool_outputs": sent}

    def post(wrapped: Any, instance: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        path = args[0] if args else kwargs.get("path")
        if "body" in kwargs and str(path).endswith("/submit_tool_outputs"):
            kwargs = {**kwargs, "body": outputs(path, kwargs["body"])}
        return wrapped(*args, **kwargs)

    return process, post, post


def _is_async(client: Any) -> bool:
    from openai._base_client import AsyncAPIClient

    return isinstance(client, AsyncAPIClient)
