"""The inbox page over real HTTP (urllib against `hookport.approvals.inbox` on 127.0.0.1): it lists and
shows requests, approves and denies them with who decided, and refuses what it must: a POST without this
page's CSRF token or from another origin, a visitor without the token, a second decision."""

from __future__ import annotations

import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from hookport.approvals import ApprovalStore, open_store
from hookport.approvals.inbox import serve, serve_in_thread


class Browser:
    """urllib with cookies, never through a proxy, that does not follow redirects."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    def __init__(self) -> None:
        import http.cookiejar

        self.opener = urllib.request.build_opener(
            urllib.request.ProxyHandler({}), urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()), self.NoRedirect())

    def get(self, url: str) -> tuple[int, str, Any]:
        return self.open(urllib.request.Request(url))

    def post(self, url: str, form: dict[str, str], headers: dict[str, str] | None = None) -> tuple[int, str, Any]:
        data = urllib.parse.urlencode(form).encode()
        return self.open(urllib.request.Request(url, data=data, headers=headers or {}, method="POST"))

    def open(self, request: urllib.request.Request) -> tuple[int, str, Any]:
        try:
            with self.opener.open(request, timeout=10) as response:
                return response.status, response.read().decode(), response.headers
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(), error.headers


@pytest.fixture
def store(sqlite_url: str) -> ApprovalStore:
    return open_store(sqlite_url)


@pytest.fixture
def inbox(store: ApprovalStore) -> Iterator[str]:
    server, url = serve_in_thread(store)
    yield url
    server.shutdown()
    server.server_close()


def file(store: ApprovalStore, digest: str = "d1", to: str = "bob <b@example.com>") -> str:
    return store.request(digest, tool="send_email", arguments={"to": to}, run_id="ticket-7", agent="mailer")[0].id


def csrf_of(page: str) -> str:
    found = re.search(r'name=csrf value="([0-9a-f]+)"', page)
    assert found, page
    return found.group(1)


def test_lists_and_approves(store: ApprovalStore, inbox: str) -> None:
    request_id = file(store)
    browser = Browser()
    status, page, headers = browser.get(inbox)
    assert status == 200 and request_id in page and "send_email" in page and "ticket-7" in page
    assert "bob &lt;b@example.com&gt;" in page and "<b@example.com>" not in page  # escaped
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    status, detail, _ = browser.get(f"{inbox}requests/{request_id}")
    assert status == 200 and 'id=approve' in detail
    status, _, headers = browser.post(f"{inbox}requests/{request_id}/approve",
                                      {"csrf": csrf_of(detail), "by": "alice", "reason": "fine"})
    assert status == 303 and headers["Location"] == f"/requests/{request_id}"
    decided = store.get(request_id)
    assert (decided.state, decided.decided_by, decided.decision_reason) == ("approved", "web:alice", "fine")
    status, page, _ = browser.get(inbox)
    assert "Nothing is waiting" in page and "approved" in page


def test_deny_then_a_second_decision_is_refused(store: ApprovalStore, inbox: str) -> None:
    request_id = file(store)
    browser = Browser()
    token = csrf_of(browser.get(f"{inbox}requests/{request_id}")[1])
    assert browser.post(f"{inbox}requests/{request_id}/deny", {"csrf": token, "reason": "no"})[0] == 303
    status, page, _ = browser.post(f"{inbox}requests/{request_id}/approve", {"csrf": token})
    assert status == 409 and "already denied" in page
    assert store.get(request_id).state == "denied"


def test_a_forged_post_decides_nothing(store: ApprovalStore, inbox: str) -> None:
    request_id = file(store)
    other = file(store, "d2")
    browser = Browser()
    token_of_other = csrf_of(browser.get(f"{inbox}requests/{other}")[1])
    assert browser.post(f"{inbox}requests/{request_id}/approve", {})[0] == 403
    assert browser.post(f"{inbox}requests/{request_id}/approve", {"csrf": token_of_other})[0] == 403  # bound to its id
    good = csrf_of(browser.get(f"{inbox}requests/{request_id}")[1])
    assert browser.post(f"{inbox}requests/{request_id}/approve", {"csrf": good},
                        {"Origin": "http://evil.example"})[0] == 403
    assert store.get(request_id).state == "pending"


def test_unknown_ids(store: ApprovalStore, inbox: str) -> None:
    browser = Browser()
    assert browser.get(f"{inbox}requests/nope")[0] == 404
    assert browser.post(f"{inbox}requests/nope/approve", {"csrf": "x"})[0] == 403


def test_a_token_is_needed_when_one_is_set(store: ApprovalStore) -> None:
    request_id = file(store)
    server, url = serve_in_thread(store, token="s3cret")
    try:
        stranger = Browser()
        assert stranger.get(url)[0] == 401
        assert stranger.get(f"{url}?token=wrong")[0] == 401
        assert stranger.post(f"{url}requests/{request_id}/approve", {"csrf": "x"})[0] == 401
        friend = Browser()
        status, _, headers = friend.get(f"{url}?token=s3cret")
        assert status == 303 and "HttpOnly; SameSite=Strict" in headers["Set-Cookie"]
        status, page, _ = friend.get(url)
        assert status == 200 and request_id in page
    finally:
        server.shutdown()
        server.server_close()


def test_no_other_address_without_a_token(store: ApprovalStore) -> None:
    with pytest.raises(ValueError, match="needs a token"):
        serve(store, host="0.0.0.0", port=0)
