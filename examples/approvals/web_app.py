"""The web server walk-through: an app whose endpoint runs the agent, and never waits for a person.

    python examples/approvals/web_app.py 8000       # GET /send?ticket=T&to=ADDRESS

Each request runs the mailer agent in the run named by its ticket under defer.toml: it
answers at once with ``approval pending: <id>``, a person decides in ``hookport approvals
serve``, and the client asks again with the same ticket. It prints its URL when it listens.
"""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import hookport

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from mailer import send  # noqa: E402

hookport.load_policy(HERE / "defer.toml")


class App(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802
        query = parse_qs(urlsplit(self.path).query)
        ticket = query.get("ticket", ["ticket-1"])[0]
        told = send(query.get("to", ["bob@example.com"])[0], "Your refund is on its way.", run_id=ticket)
        body = f"send_email: {told}\n".encode()
        self.send_response(200 if told == "sent" else 202)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 8000), App)
    print(f"app on http://127.0.0.1:{server.server_address[1]}/", flush=True)
    server.serve_forever()
