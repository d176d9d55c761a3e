"""``redis://host:port/db``: requests shared by a fleet (the optional extra ``hookport[redis]``).

A request is a JSON string at ``<prefix>req:<id>``; ``<prefix>open:<digest>`` names the open
request of a call; ``<prefix>index`` orders them by creation. Each transition is a Lua
script, so Redis runs it atomically: two workers racing to consume one approval cannot both
win. The `redis` client is imported when a store is opened, never by ``import hookport``.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from hookport.approvals.errors import StoreError
from hookport.approvals.model import ApprovalRequest, State
from hookport.approvals.store import ApprovalStore

__all__ = ["RedisStore"]

OPEN = """
local known = redis.call('GET', KEYS[1])
if known then
  local fields = redis.call('HGETALL', ARGV[3] .. known)
  if #fields > 0 then return {0, fields} end
end
redis.call('SET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], 'static', ARGV[2], 'state', 'pending')
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
return {1, redis.call('HGETALL', KEYS[2])}
"""

TRANSITION = """
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return {0, false} end
local allowed = false
for source in string.gmatch(ARGV[1], '[^,]+') do
  if state == source then allowed = true end
end
if not allowed or redis.call('HEXISTS', KEYS[1], 'closed_at') == 1 then
  return {0, redis.call('HGETALL', KEYS[1])}
end
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
if ARGV[2] == '1' then
  local static = cjson.decode(redis.call('HGET', KEYS[1], 'static'))
  local open = ARGV[3] .. static['digest']
  if redis.call('GET', open) == static['id'] then redis.call('DEL', open) end
end
return {1, redis.call('HGETALL', KEYS[1])}
"""
"""A request is a hash: ``static`` (the request as created, JSON, never rewritten) and the fields a
decision changes (``state``, ``decided_by``, ... as JSON values), so Lua never re-encodes the arguments."""


def _request(fields: Any) -> Optional[ApprovalRequest]:
    if not fields:
        return None
    pairs = dict(zip(fields[::2], fields[1::2])) if isinstance(fields, list) else fields
    text = {(k.decode() if isinstance(k, bytes) else k): (v.decode() if isinstance(v, bytes) else v) for k, v in pairs.items()}
    record = json.loads(text.pop("static"))
    record["state"] = text.pop("state")
    record.update({key: json.loads(value) for key, value in text.items()})
    return ApprovalRequest.model_validate(record)


class RedisStore(ApprovalStore):
    """Every process that opens the same URL (and prefix) sees the same requests."""

    def __init__(self, url: str, prefix: str = "hookport:approvals:") -> None:
        try:
            import redis
        except ImportError:
            raise StoreError(f"the approval store {url} needs the redis client: pip install 'hookport[redis]'") from None
        self.url, self.prefix = url, prefix
        self._errors = (redis.RedisError,)
        try:
            self._client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5)
            self._client.ping()
        except (redis.RedisError, ValueError) as error:
            raise StoreError(f"cannot open the approval store {url}: {error}") from None
        self._open_script = self._client.register_script(OPEN)
        self._transition_script = self._client.register_script(TRANSITION)

    def _call(self, doing: str, work: Any) -> Any:
        try:
            return work()
        except self._errors as error:
            raise StoreError(f"cannot {doing} the approval store {self.url}: {error}") from None

    def _open(self, new: ApprovalRequest) -> tuple[ApprovalRequest, bool]:
        p = self.prefix
        created, fields = self._call("write", lambda: self._open_script(
            keys=[f"{p}open:{new.digest}", f"{p}req:{new.id}", f"{p}index"],
            args=[new.id, new.model_dump_json(), f"{p}req:", new.created_at],
        ))
        request = _request(fields)
        assert request is not None  # the script returns what it found or stored
        return request, bool(created)

    def _find(self, digest: str) -> Optional[ApprovalRequest]:
        known = self._call("read", lambda: self._client.get(f"{self.prefix}open:{digest}"))
        return None if known is None else self._get(known.decode())

    def _get(self, request_id: str) -> Optional[ApprovalRequest]:
        return _request(self._call("read", lambda: self._client.hgetall(f"{self.prefix}req:{request_id}")))

    def _list(self, states: Optional[tuple[State, ...]], limit: int) -> list[ApprovalRequest]:
        found: list[ApprovalRequest] = []
        ids = self._call("read", lambda: self._client.zrevrange(f"{self.prefix}index", 0, -1))
        for start in range(0, len(ids), 200):
            pipe = self._client.pipeline(transaction=False)
            for known in ids[start:start + 200]:
                pipe.hgetall(f"{self.prefix}req:{known.decode()}")
            for fields in self._call("read", pipe.execute):
                request = _request(fields)
                if request is not None and (states is None or request.state in states):
                    found.append(request)
                    if len(found) >= limit:
                        return found
        return found

    def _transition(
        self, request_id: str, sources: tuple[State, ...], changes: dict[str, Any], close: bool
    ) -> tuple[bool, Optional[ApprovalRequest]]:
        pairs = [part for key, value in changes.items() if key != "state" for part in (key, json.dumps(value))]
        if "state" in changes:
            pairs += ["state", changes["state"]]
        applied, fields = self._call("write", lambda: self._transition_script(
            keys=[f"{self.prefix}req:{request_id}"],
            args=[",".join(sources), "1" if close else "0", f"{self.prefix}open:", *pairs],
        ))
        return bool(applied), _request(fields or None)

    def close(self) -> None:
        self._client.close()
