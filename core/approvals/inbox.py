"""``hookport approvals serve``: a small server-rendered web page over a store.

``/`` lists pending requests (tool, agent, run, arguments after redaction, age) and the
latest decisions; ``/requests/<id>`` shows one with an approve and a deny form. No script,
no build step: standard library `http.server`, HTML escaped everywhere, the list page
refreshes itself every few seconds.

Safety. It binds to 127.0.0.1 unless told otherwise, and any other address needs a token
(`serve` refuses to start without one): the first visit passes ``?token=...``, which is
exchanged for an ``HttpOnly; SameSite=Strict`` cookie. Every POST carries a per-server CSRF
token bound to the request id and must come from this page's origin (``Origin`` checked when
the browser sends it); a decision is recorded with who made it (``web:<name>``), and a second
decision of the same request is refused by the store.
"""

from __future__ import annotations

import hashlib
import hmac
import html
import json
import secrets
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Optional
from urllib.parse import parse_qs, urlsplit

from hookport.approvals.errors import ApprovalError, UnknownRequest
from hookport.approvals.model import ApprovalRequest
from hookport.approvals.store import ApprovalStore

__all__ = ["Inbox", "LOOPBACK", "serve", "serve_in_thread"]

LOOPBACK = ("127.0.0.1", "localhost", "::1")
COOKIE = "hookport_inbox"
REFRESH_SECONDS = 3

STYLE = """body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem;color:#222}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}
pre{background:#f5f5f5;padding:.5rem;white-space:pre-wrap;margin:0}.state{font-weight:bold}
form{display:inline-block;margin-right:1rem}button{padding:.4rem 1rem}.error{color:#a00}"""


def age(request: ApprovalRequest) -> str:
    seconds = int(request.age())
    return f"{seconds}s" if seconds < 120 else f"{seconds // 60}m" if seconds < 7200 else f"{seconds // 3600}h"


class Inbox:
    """What the handler needs: the store, the access token (None on loopback), a CSRF secret."""

    def __init__(self, store: ApprovalStore, token: Optional[str] = None) -> None:
        self.store = store
        self.token = token
        self.secret = secrets.token_bytes(32)

    def csrf(self, request_id: str) -> str:
        return hmac.new(self.secret, request_id.encode(), hashlib.sha256).hexdigest()

    # -- pages ---------------------------------------------------------------------------

    def page(self, title: str, body: str, refresh: bool = False) -> str:
        meta = f'<meta http-equiv="refresh" content="{REFRESH_SECONDS}">' if refresh else ""
        return (f"<!doctype html><html><head><meta charset=utf-8>{meta}<title>{html.escape(title)}</title>"
                f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}"
                f"<p><small>store: {html.escape(self.store.url)}</small></p></body></html>")

    def listing(self) -> str:
        pending = self.store.list()
        rows = "".join(
            f'<tr class="request" data-id="{html.escape(r.id)}"><td><a href="/requests/{html.escape(r.id)}">'
            f"{html.escape(r.id)}</a></td><td>{html.escape(r.tool)}</td><td>{html.escape(r.agent or '')}</td>"
            f"<td>{html.escape(r.run_id or '')}</td><td><pre>{html.escape(json.dumps(r.arguments, indent=1))}</pre></td>"
            f"<td>{age(r)}</td></tr>" for r in pending)
        table = (f"<table id=pending><tr><th>request</th><th>tool</th><th>agent</th><th>run</th><th>arguments</th>"
                 f"<th>age</th></tr>{rows}</table>") if pending else "<p id=empty>Nothing is waiting for a decision.</p>"
        decided = [r for r in self.store.list(states=None, limit=50) if r.state != "pending"][:10]
        recent = "".join(
            f'<li><a href="/requests/{html.escape(r.id)}">{html.escape(r.id)}</a> {html.escape(r.tool)}: '
            f"<span class=state>{html.escape(r.state)}</span> {html.escape(r.decided_by or '')}</li>" for r in decided)
        return self.page(f"Pending approvals ({len(pending)})", table + (f"<h2>Recent</h2><ul>{recent}</ul>" if recent else ""),
                         refresh=True)

    def detail(self, request: ApprovalRequest, error: str = "") -> str:
        fields = [("tool", request.tool), ("agent", request.agent), ("run", request.run_id),
                  ("framework", request.framework), ("rule", request.rule), ("lasts", request.lasts),
                  ("age", age(request)), ("state", request.state), ("decided by", request.decided_by),
                  ("reason", request.decision_reason)]
        rows = "".join(f"<tr><th>{name}</th><td id=\"{name.replace(' ', '-')}\">{html.escape(str(value or ''))}</td></tr>"
                       for name, value in fields)
        body = (f"<table>{rows}<tr><th>arguments</th><td><pre>{html.escape(json.dumps(request.arguments, indent=1))}"
                f"</pre></td></tr></table>")
        if error:
            body = f"<p class=error role=alert>{html.escape(error)}</p>" + body
        if request.state == "pending":
            token = self.csrf(request.id)
            body += "".join(
                f'<form method=post action="/requests/{html.escape(request.id)}/{verb}">'
                f'<input type=hidden name=csrf value="{token}">'
                f'<label>your name <input name=by></label> <label>reason <input name=reason></label> '
                f"<button type=submit id={verb}>{verb.capitalize()}</button></form>" for verb in ("approve", "deny"))
        return self.page(f"Request {request.id}", body + '<p><a href="/">all pending</a></p>')


class Handler(BaseHTTPRequestHandler):
    inbox: Inbox
    server_version = "hookport-inbox"

    def log_message(self, format: str, *args: Any) -> None:  # quiet: the CLI prints where it listens
        pass

    def send(self, status: int, text: str, headers: Optional[dict[str, str]] = None) -> None:
        body = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Content-Security-Policy",
                         "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def redirect(self, location: str, headers: Optional[dict[str, str]] = None) -> None:
        self.send(HTTPStatus.SEE_OTHER, "", {"Location": location, **(headers or {})})

    def allowed(self) -> bool:
        """With a token, only a visitor who presented it (cookie or bearer header) gets in."""
        token = self.inbox.token
        if token is None:
            return True
        cookies = dict(part.strip().split("=", 1) for part in self.headers.get("Cookie", "").split(";") if "=" in part)
        given = cookies.get(COOKIE) or self.headers.get("Authorization", "").removeprefix("Bearer ").strip()
        return bool(given) and hmac.compare_digest(given, token)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        url = urlsplit(self.path)
        offered = parse_qs(url.query).get("token", [None])[0]
        token = self.inbox.token
        if token is not None and offered is not None and hmac.compare_digest(offered, token):
            self.redirect(url.path or "/", {"Set-Cookie": f"{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"})
            return
        if not self.allowed():
            self.send(HTTPStatus.UNAUTHORIZED, self.inbox.page("Token required", "<p>Open the link with ?token=...</p>"))
            return
        try:
            if url.path == "/":
                self.send(HTTPStatus.OK, self.inbox.listing())
            elif url.path.startswith("/requests/") and url.path.count("/") == 2:
                self.send(HTTPStatus.OK, self.inbox.detail(self.inbox.store.get(url.path.rsplit("/", 1)[1])))
            else:
                self.send(HTTPStatus.NOT_FOUND, self.inbox.page("Not found", ""))
        except UnknownRequest as error:
            self.send(HTTPStatus.NOT_FOUND, self.inbox.page("Unknown request", f"<p class=error>{html.escape(str(error))}</p>"))
        except ApprovalError as error:
            self.send(HTTPStatus.SERVICE_UNAVAILABLE, self.inbox.page("Store error", f"<p class=error>{html.escape(str(error))}</p>"))

    def do_POST(self) -> None:  # noqa: N802
        parts = urlsplit(self.path).path.strip("/").split("/")
        if not self.allowed():
            self.send(HTTPStatus.UNAUTHORIZED, self.inbox.page("Token required", ""))
            return
        if len(parts) != 3 or parts[0] != "requests" or parts[2] not in ("approve", "deny"):
            self.send(HTTPStatus.NOT_FOUND, self.inbox.page("Not found", ""))
            return
        request_id, verb = parts[1], parts[2]
        length = min(int(self.headers.get("Content-Length") or 0), 64 * 1024)
        form = parse_qs(self.rfile.read(length).decode("utf-8", "replace"))
        origin = self.headers.get("Origin")
        host = self.headers.get("Host", "")
        same_origin = origin is None or urlsplit(origin).netloc == host
        csrf = form.get("csrf", [""])[0]
        if not same_origin or not hmac.compare_digest(csrf, self.inbox.csrf(request_id)):
            self.send(HTTPStatus.FORBIDDEN, self.inbox.page("Refused", "<p class=error>This form did not come from this "
                                                            "inbox (a missing or wrong CSRF token); nothing was decided.</p>"))
            return
        name = form.get("by", [""])[0].strip()[:80] or self.client_address[0]
        reason = form.get("reason", [""])[0].strip()[:500] or None
        try:
            self.inbox.store.decide(request_id, verb == "approve", by=f"web:{name}", reason=reason)
        except UnknownRequest as error:
            self.send(HTTPStatus.NOT_FOUND, self.inbox.page("Unknown request", f"<p class=error>{html.escape(str(error))}</p>"))
            return
        except ApprovalError as error:  # decided twice, timed out, or the store failed: nothing was granted
            try:
                current = self.inbox.store.get(request_id)
            except ApprovalError:
                self.send(HTTPStatus.SERVICE_UNAVAILABLE, self.inbox.page("Store error", f"<p class=error>{html.escape(str(error))}</p>"))
                return
            self.send(HTTPStatus.CONFLICT, self.inbox.detail(current, str(error)))
            return
        self.redirect(f"/requests/{request_id}")


def serve(store: ApprovalStore, host: str = "127.0.0.1", port: int = 8765, token: Optional[str] = None) -> ThreadingHTTPServer:
    """A running-ready server (call ``serve_forever()``; ``server_address`` has the real port when `port` is 0).

    Raises ValueError for a non-loopback `host` without a `token`."""
    if host not in LOOPBACK and not token:
        raise ValueError(f"serving the approvals inbox on {host} needs a token (--token or HOOKPORT_APPROVALS_TOKEN): "
                         "anyone who can reach the address could approve tool calls")
    inbox = Inbox(store, token)
    handler = type("InboxHandler", (Handler,), {"inbox": inbox})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def serve_in_thread(store: ApprovalStore, host: str = "127.0.0.1", port: int = 0,
                    token: Optional[str] = None) -> tuple[ThreadingHTTPServer, str]:
    """Start the inbox on a daemon thread (an app that serves its own inbox; tests). Returns the server and its URL;
    stop it with ``server.shutdown()``."""
    server = serve(store, host, port, token)
    threading.Thread(target=server.serve_forever, name="hookport-approvals-inbox", daemon=True).start()
    bound_host, bound_port = server.server_address[:2]
    return server, f"http://{bound_host}:{bound_port}/"


