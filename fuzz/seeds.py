#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets from the conformance vectors.

Usage: fuzz/seeds.py OUT_DIR    (one directory per target under OUT_DIR)

Every seed is derived from tests/vectors/*.json (the sandbox's targets: from
sandbox/examples/*.json and a few Prefer values and paths), in the input
format of its target (see fuzz/src/lib.rs): gate requests as request heads, client
responses as status + headers + body, header lists as header lines, index
bodies and gate configurations as JSON, and the client driver's scripts as
a start time followed by one answer head per paragraph. Re-running it gives
the same files.
"""
import hashlib
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
VECTORS = ROOT / "tests" / "vectors"


def load(name):
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def head(first, headers, body=b""):
    lines = [first.encode() if isinstance(first, str) else first]
    for name, value in headers:
        lines.append(f"{name}: {value}".encode())
    return b"\n".join(lines) + b"\n\n" + body


def main(out):
    seeds = {}

    def add(target, data):
        if isinstance(data, str):
            data = data.encode()
        seeds.setdefault(target, set()).add(data)

    for path in sorted(VECTORS.glob("gate-*.json")):
        vectors = json.loads(path.read_text(encoding="utf-8"))
        if vectors.get("config") is not None:
            add("gate_config_json", json.dumps(vectors["config"]))
        for case in vectors["cases"]:
            for step in case["steps"]:
                request = step["request"]
                if "target_hex" in request:
                    target = bytes.fromhex(request["target_hex"])
                else:
                    target = request["target"].encode()
                first = b" ".join([
                    request.get("method", "GET").encode(), target,
                    str(step["at"]).encode(), request.get("client_ip", "203.0.113.7").encode(),
                ])
                resource = step.get("resource") or {}
                body = resource.get("payload", "").encode()
                add("gate_decide", head(first, request.get("headers", []), body))
                query = target.partition(b"?")[2]
                if query:
                    add("query_parser", query)
                expect = step.get("expect") or {}
                if "body" in expect:
                    headers = expect.get("headers", [])
                    add("client_interpret", head(str(expect["status"]), headers, expect["body"].encode()))
                    add("ratelimit_headers", head(str(step["at"]), headers))
                    if expect["status"] == 200 and target.split(b"?")[0].rstrip(b"/").count(b"/") == 2:
                        add("api_index_json", expect["body"])
    add("gate_config_json", "{}")

    for case in load("client-interpret.json")["cases"]:
        given = case["input"]
        add("client_interpret", head(str(given["status"]), given.get("headers", []), given.get("body", "").encode()))
    for name in ("client-ratelimit.json", "client-throttle.json"):
        for case in load(name)["cases"]:
            given = case["input"]
            steps = given.get("steps") or [{"response": given}]
            for step in steps:
                response = step.get("response")
                if not response:
                    continue
                headers = response.get("headers", [])
                add("ratelimit_headers", head(str(response.get("now", 0)), headers))
                for header, value in headers:
                    low = header.lower()
                    if low in ("ratelimit", "ratelimit-policy"):
                        add("structured_fields", value)
                    if low == "retry-after":
                        date = next((v for h, v in headers if h.lower() == "date"), "")
                        add("retry_after", value + ("\n" + date if date else ""))
    for case in load("client-deprecation.json")["cases"]:
        headers = case["input"]["headers"]
        links = [v for h, v in headers if h.lower() == "link"]
        add("deprecation_link", head(links[0] if links else "", headers))
        for header, value in headers:
            if header.lower() == "sunset":
                add("retry_after", value)
    # The client driver: a start time, then one answer per paragraph
    # ("STATUS DELAY_MS" and header lines), from the throttle and retry files.
    driver_answers = []
    for case in load("client-throttle.json")["cases"]:
        for step in case["input"]["steps"]:
            response = step.get("response")
            if response:
                driver_answers.append((response["now"], response["status"], response.get("headers", [])))
    for case in load("client-retry.json")["cases"]:
        outcome = case["input"]["outcome"]
        if "status" in outcome:
            driver_answers.append((case["input"]["now"], outcome["status"], outcome.get("headers", [])))
    for now, status, headers in driver_answers:
        answer = head(f"{status} 20", headers).rstrip(b"\n")
        add("client_driver", f"{now}\n".encode() + b"\n\n".join([answer] * 6))
    add("client_driver", "1700000000000\n" + "\n\n".join(["429 20\nRetry-After: 1"] * 8))
    add("client_driver", "1700000000000\n200 20\nRateLimit-Limit: 5\nRateLimit-Remaining: 0\nRateLimit-Reset: 999999999\n\nT 5000\n\nC 1\n\n503 20\nRetry-After: 2")
    add("client_driver", "1700000000000\n429 20\nDate: Tue, 14 Nov 2023 21:13:20 GMT\nRetry-After: Tue, 14 Nov 2023 21:13:50 GMT\n\n200 -3600000\nRateLimit-Limit: 5\nRateLimit-Remaining: 1\nRateLimit-Reset: 40")
    add("client_driver", "1700000000000\n200 20\nDeprecation: @1700000000\nSunset: Wed, 15 Nov 2023 22:13:20 GMT\n\n429 20\nRateLimit-Policy: \"p\";q=0;w=86400\nRateLimit: \"p\";r=0;t=86400")

    add("structured_fields", '"default";q=100;w=60')
    add("structured_fields", '"default";r=42;t=17')

    # The sandbox's parsers: its example configurations, Prefer values and
    # request paths under /demo/.
    for path in sorted((ROOT / "sandbox" / "examples").glob("*.json")):
        add("sandbox_config", path.read_bytes())
    add("sandbox_config", "{}")
    for prefer in ("code=503", "code=429, retry-after=2", "code=200", "example=empty",
                   "latency=250", "drop", "truncate", "return=minimal; Code=\"500\", wait=5"):
        add("sandbox_prefer", "/api/v1/tables/orders\n" + prefer)
    for demo in ("/demo/", "/demo/index.html", "/demo/pkg/acd.js", "/demo/a%20b.txt",
                 "/demo/%2e%2e/etc/passwd", "/demo/a%2Fb"):
        add("sandbox_static_path", demo)

    # Webhook verification: id, timestamp and signature lines, then the body.
    for case in load("webhooks.json")["verify"]:
        headers = {k.lower(): v for k, v in case["headers"].items()}
        add("webhook_verify", "\n".join([headers.get("webhook-id", ""), headers.get("webhook-timestamp", ""),
                                          headers.get("webhook-signature", ""), case["body"]]))

    for target, items in sorted(seeds.items()):
        directory = pathlib.Path(out) / target
        directory.mkdir(parents=True, exist_ok=True)
        for data in sorted(items):
            (directory / hashlib.sha1(data).hexdigest()).write_bytes(data)
    for target, items in sorted(seeds.items()):
        print(f"{target}: {len(items)} seeds")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: fuzz/seeds.py OUT_DIR")
    main(sys.argv[1])
