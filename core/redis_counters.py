"""A `CounterStore` in Redis, so that a run whose calls happen in several processes counts once.

    HOOKPORT_COUNTERS=redis://127.0.0.1:6379/0          # every process of the program (hookport run, workers)
    [limits]
    store = "redis://127.0.0.1:6379/0"                  # or in the policy file

Each run is one hash, ``hookport:counters:<run id>``, its counters its fields:
``HINCRBY`` adds atomically across processes, ``DEL`` forgets the run. Each add
renews the hash's expiry (a day by default, ``?ttl=seconds`` in the URL), so a
run whose owner died does not stay forever. Needs ``pip install 'hookport[redis]'``
(the maintained ``redis`` client). An error talking to Redis is raised to the
rule that counts, and a policy's rules fail closed: the call is refused.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from hookport.counters import CounterStore, LocalCounters

__all__ = ["COUNTERS_VARIABLE", "RedisCounters", "store_from_url"]

COUNTERS_VARIABLE = "HOOKPORT_COUNTERS"
DEFAULT_TTL = 86_400
REDIS_SCHEMES = ("redis", "rediss", "unix")


class RedisCounters:
    """Counters grouped by run, in a Redis server every worker reaches."""

    def __init__(self, url: str, *, ttl: int = DEFAULT_TTL, prefix: str = "hookport:counters:", client: Any = None) -> None:
        if client is None:
            try:
                import redis
            except ImportError as error:
                raise ImportError(f"a Redis counter store needs the redis client: pip install 'hookport[redis]' ({error})") from None
            client = redis.Redis.from_url(url)
        self.url = url
        self.ttl = ttl
        self.prefix = prefix
        self._client = client

    def _key(self, run: str) -> str:
        return f"{self.prefix}{run}"

    def add(self, run: str, key: str, amount: int = 1) -> int:
        pipe = self._client.pipeline()
        pipe.hincrby(self._key(run), key, amount)
        pipe.expire(self._key(run), self.ttl)
        value, _ = pipe.execute()
        return int(value)

    def get(self, run: str, key: str) -> int:
        value = self._client.hget(self._key(run), key)
        return int(value) if value is not None else 0

    def forget(self, run: str) -> None:
        self._client.delete(self._key(run))

    def __repr__(self) -> str:
        return f"<RedisCounters {redacted(self.url)}>"


def redacted(url: str) -> str:
    """The URL without its password (it goes into reprs and messages)."""
    parts = urlsplit(url)
    if parts.password:
        host = parts.hostname or ""
        netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
        return urlunsplit(parts._replace(netloc=netloc))
    return url


def check_store_url(url: str) -> str:
    """`url` if it names a store `store_from_url` can make (nothing is connected to); else ValueError."""
    text = url.strip()
    if text not in ("", "local") and urlsplit(text).scheme not in REDIS_SCHEMES:
        raise ValueError(f"{redacted(text)!r} is not a counter store; use redis://host:port/db, rediss://..., unix://... or local")
    return url


def store_from_url(url: str, source: str = COUNTERS_VARIABLE) -> CounterStore:
    """``redis://...`` / ``rediss://...`` / ``unix://...`` -> `RedisCounters`; ``local`` -> `LocalCounters`.

    `source` names where the URL came from, for the error an unknown one raises.
    """
    text = url.strip()
    if text in ("", "local"):
        return LocalCounters()
    try:
        check_store_url(text)
    except ValueError as error:
        raise ValueError(f"{source}: {error}") from None
    parts = urlsplit(text)
    query = dict(parse_qsl(parts.query))
    try:
        ttl = int(query.pop("ttl", DEFAULT_TTL))
    except ValueError:
        raise ValueError(f"{source}: ttl= must be a whole number of seconds") from None
    return RedisCounters(urlunsplit(parts._replace(query=urlencode(query))), ttl=ttl)


def store_from_environment() -> CounterStore | None:
    """The store ``HOOKPORT_COUNTERS`` names, or None when it is not set."""
    url = os.environ.get(COUNTERS_VARIABLE)
    return store_from_url(url) if url and url.strip() else None
