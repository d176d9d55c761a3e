"""pytest fixtures around `ScriptedOpenAIServer`, for harnesses and adapter tests.

Enable them in a conftest with ``pytest_plugins = ["tests.support.fixtures"]``
(or import the fixture names):

    def test_something(openai_server):
        openai_server.script([Turn.call("add_numbers", a=2, b=3), Turn.final("5")])
        client = OpenAI(base_url=openai_server.base_url, api_key="sk-offline")

`openai_server` is one server for the whole session (frameworks often cache
their HTTP client per base URL), handed to each test with an empty script and
an empty request log. `openai_env` also points the ``OPENAI_*`` variables of
the test at it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.openai_server import ScriptedOpenAIServer


@pytest.fixture(scope="session")
def openai_server_session() -> Iterator[ScriptedOpenAIServer]:
    """The session's scripted server (127.0.0.1, a free port)."""
    with ScriptedOpenAIServer() as server:
        yield server


@pytest.fixture
def openai_server(openai_server_session: ScriptedOpenAIServer) -> ScriptedOpenAIServer:
    """The session's server with no script and no recorded requests."""
    openai_server_session.script([])
    return openai_server_session


@pytest.fixture
def openai_env(openai_server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> ScriptedOpenAIServer:
    """`openai_server`, with OPENAI_BASE_URL / OPENAI_API_BASE / OPENAI_API_KEY pointing at it."""
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_BASE", openai_server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-offline-dummy")
    monkeypatch.setenv("OPENAI_MAX_RETRIES", "0")
    return openai_server
