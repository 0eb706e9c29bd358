"""A webhook handler: verifies each delivery with ``acd.webhooks.unwrap``
and prints the run's new status (README, "Webhooks").

    python webhook_handler.py 9001 whsec_...

Answers 204 for a verified delivery and 400 (with the core's code) for one
that does not verify, so the sender retries only what failed.
"""
from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

import acd


def make_handler(secret: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            try:
                event = acd.webhooks.unwrap(body, self.headers, secret)
            except acd.WebhookVerificationError as error:
                self.send_response(400)
                self.end_headers()
                self.wfile.write(error.code.encode())
                return
            run = event.run or {}
            print(f"{event.id}: run {run.get('id')} is {run.get('status')} ({event.type})", flush=True)
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    return Handler


def main(port: int, secret: str) -> None:
    HTTPServer(("127.0.0.1", port), make_handler(secret)).serve_forever()


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
