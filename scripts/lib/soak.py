"""The load of scripts/soak: mixed HTTP/1.1 load against acd-sandbox.

asyncio, raw keep-alive connections (no third-party package): API readers
(the credential limit is the binding one), slow readers of /openapi.json,
admin listings; RSS of each sandbox sampled from /proc; 200s counted per
rate-limit window: the arrival time plus `RateLimit-Reset` (whole seconds,
rounded up, from the server's decision) is at or after the window's end,
and within it plus the answer's latency plus 1 s, so snapping it down to
the window grid names the window while latency stays under a window minus
1 s. (The response's `Date` is no substitute: hyper refreshes it at the start
of the connection's poll that then runs the handler, so an answer decided
in a window's first instant can carry the previous second, and Date plus
reset named the window before: 2,001 / 1,999 pairs in memory.) Prints a report; exits 1 if a window admitted beyond its
bound or RSS grew after warm-up by more than the allowed slack.

Fail-open periods: besides the chaos of --events (Redis paused or
restarted), a sandbox on Redis fails open whenever its store does not
answer in time (`connect_timeout + io_timeout`, e.g. a starved debug
build), and each instance then admits up to the limit on its own
(docs/limiter.md, "fail open, Redis keeps its data": max(L, R + F)). The
sandboxes report each such period on stderr (`acd-redis: rate-limit store
... is unavailable` ... `is back`); --stderr names those files, which are
followed during the run, and a window touching a reported period is held
to --outage-bound like one touching an event, and listed as such.

Usage: soak.py --urls URL[,URL] --pids PID[,PID] --seconds S --limit L
       --window-ms W --connections N [--events FILE] [--outage-bound B]
       [--stderr FILE[,FILE]]
"""
import argparse
import asyncio
import json
import math
import sys
import time

KEY = "acd_live_demo_ada"


async def read_response(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    body = await reader.readexactly(length) if length else b""
    return status, headers, body


class Stats:
    def __init__(self, window_ms):
        self.window_ms = window_ms
        self.latencies = []
        self.per_second = {}
        self.admitted = {}  # window start (s) -> 200s
        self.statuses = {}
        self.errors = 0
        self.admin_reads = 0
        self.slow_reads = 0

    def record(self, started, status, headers):
        now = time.time()
        self.latencies.append(now - started)
        second = int(now)
        self.per_second[second] = self.per_second.get(second, 0) + 1
        self.statuses[status] = self.statuses.get(status, 0) + 1
        if status == 200 and "ratelimit-reset" in headers:
            window_s = self.window_ms / 1000
            end = now + int(headers["ratelimit-reset"])
            start = math.floor(end / window_s) * window_s - window_s
            self.admitted[start] = self.admitted.get(start, 0) + 1


async def api_reader(host, port, stats, deadline):
    request = (
        f"GET /api/v1/tables/orders?limit=2 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"X-API-Key: {KEY}\r\n\r\n"
    ).encode()
    while time.time() < deadline:
        try:
            reader, writer = await asyncio.open_connection(host, port)
            while time.time() < deadline:
                started = time.time()
                writer.write(request)
                status, headers, _ = await asyncio.wait_for(read_response(reader), 30)
                stats.record(started, status, headers)
                if status != 200:
                    await asyncio.sleep(0.05)
            writer.close()
        except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, asyncio.LimitOverrunError):
            stats.errors += 1
            await asyncio.sleep(0.2)


async def slow_reader(host, port, stats, deadline):
    while time.time() < deadline:
        try:
            reader, writer = await asyncio.open_connection(host, port, limit=1 << 16)
            writer.write(b"GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(
                [l for l in head.decode().split("\r\n") if l.lower().startswith("content-length")][0]
                .split(":")[1]
            )
            while length > 0 and time.time() < deadline:
                chunk = await reader.read(min(length, 512))
                if not chunk:
                    break
                length -= len(chunk)
                await asyncio.sleep(0.2)
            stats.slow_reads += 1
            writer.close()
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, IndexError):
            stats.errors += 1
            await asyncio.sleep(0.2)


async def admin_reader(host, port, stats, deadline):
    request = b"GET /_sandbox/requests?path=/api/**&limit=200 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    while time.time() < deadline:
        try:
            reader, writer = await asyncio.open_connection(host, port, limit=1 << 24)
            while time.time() < deadline:
                writer.write(request)
                status, _, _ = await asyncio.wait_for(read_response(reader), 60)
                if status == 200:
                    stats.admin_reads += 1
                await asyncio.sleep(0.5)
            writer.close()
        except (OSError, asyncio.IncompleteReadError, asyncio.TimeoutError, asyncio.LimitOverrunError):
            stats.errors += 1
            await asyncio.sleep(0.5)


def rss_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


# What a sandbox on Redis writes on stderr when it starts or stops deciding
# through Redis (store-redis/src/event.rs, sandbox/src/main.rs).
FAIL_OPEN_MARKS = ("is unavailable (", "still unavailable after", "does not answer yet")
BACK_MARK = "is back after"
ONE_REQUEST_MARK = "could not decide a request"


class FailOpen:
    """Fail-open periods reported by each sandbox: (from, to, sandbox, why)."""

    def __init__(self, paths):
        self.paths = paths
        self.offsets = [0] * len(paths)
        self.open = [None] * len(paths)  # (since, why) while failing open
        self.periods = []

    def poll(self, now):
        for n, path in enumerate(self.paths):
            try:
                with open(path, "rb") as file:
                    file.seek(self.offsets[n])
                    data = file.read()
            except OSError:
                continue
            complete = data.rfind(b"\n") + 1
            self.offsets[n] += complete
            for line in data[:complete].decode("utf-8", "replace").splitlines():
                self.line(n, line, now)

    def line(self, n, line, now):
        if any(mark in line for mark in FAIL_OPEN_MARKS):
            if self.open[n] is None:
                why = line.split("(", 1)[1].split(")", 1)[0] if "(" in line else line
                self.open[n] = (now, why)
        elif BACK_MARK in line and self.open[n] is not None:
            since, why = self.open[n]
            self.periods.append((since, now, n, why))
            self.open[n] = None
        elif ONE_REQUEST_MARK in line:
            self.periods.append((now, now, n, "one request not decided"))

    def close(self, now):
        for n, state in enumerate(self.open):
            if state is not None:
                self.periods.append((state[0], now, n, state[1] + "; still failing open at the end"))
                self.open[n] = None


async def follow(fail_open, deadline):
    while time.time() < deadline:
        fail_open.poll(time.time())
        await asyncio.sleep(0.1)
    fail_open.poll(time.time())
    fail_open.close(time.time())


async def sampler(pids, samples, deadline):
    while time.time() < deadline:
        samples.append((time.time(), [rss_kib(pid) for pid in pids]))
        await asyncio.sleep(5)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--urls", required=True)
    parser.add_argument("--pids", required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--limit", type=int, required=True)
    parser.add_argument("--window-ms", type=int, required=True)
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--admin", action="store_true")
    parser.add_argument("--events", default="")
    parser.add_argument("--outage-bound", type=int, default=0)
    parser.add_argument("--label", default="soak")
    parser.add_argument("--stderr", default="", help="the sandboxes' stderr files, comma-separated")
    args = parser.parse_args()
    targets = []
    for url in args.urls.split(","):
        hostport = url.split("//")[1]
        host, port = hostport.rsplit(":", 1)
        targets.append((host, int(port)))
    pids = [int(pid) for pid in args.pids.split(",")]
    stats = Stats(args.window_ms)
    fail_open = FailOpen([path for path in args.stderr.split(",") if path])
    started = time.time()
    # What the sandboxes wrote before the load (a Redis that did not answer
    # at start-up: failing open from the first request).
    fail_open.poll(started)
    deadline = started + args.seconds
    slow = 50
    admin = 10 if args.admin else 0
    api = args.connections - slow - admin
    tasks = []
    for n in range(api):
        host, port = targets[n % len(targets)]
        tasks.append(api_reader(host, port, stats, deadline))
    for n in range(slow):
        host, port = targets[n % len(targets)]
        tasks.append(slow_reader(host, port, stats, deadline))
    for n in range(admin):
        host, port = targets[n % len(targets)]
        tasks.append(admin_reader(host, port, stats, deadline))
    samples = []
    tasks.append(sampler(pids, samples, deadline))
    tasks.append(follow(fail_open, deadline))
    await asyncio.gather(*tasks)
    elapsed = time.time() - started
    report(args, stats, samples, elapsed, started, fail_open.periods)


def report(args, stats, samples, elapsed, started, reported):
    latencies = sorted(stats.latencies)
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else 0
    print(f"== {args.label}: {args.connections} connections, {elapsed:.0f} s")
    print(f"requests {len(latencies)} ({len(latencies) / elapsed:.0f}/s); p50 {p(0.5):.1f} ms, "
          f"p99 {p(0.99):.1f} ms, max {p(1.0):.1f} ms; statuses {dict(sorted(stats.statuses.items()))}; "
          f"slow reads {stats.slow_reads}; admin reads {stats.admin_reads}; connection errors {stats.errors}")
    print("RSS (KiB) over time:")
    for at, values in samples:
        print(f"  t={at - started:6.0f}s  " + "  ".join(str(v) for v in values))
    events = []
    if args.events:
        try:
            with open(args.events) as file:
                events = [json.loads(line) for line in file if line.strip()]
        except OSError:
            events = []
    window_s = args.window_ms / 1000
    # A chaos event's window, and a window touching a period a sandbox
    # reported, with 1 s of slack: a fallback decision carries the `now` of
    # its request, taken up to connect_timeout + io_timeout (500 ms) before
    # the failure is reported, and the log is read every 0.1 s.
    slack = 1.0
    outage = [(e["from"], e["to"] + window_s, e["what"]) for e in events]
    outage += [(frm - slack, to + slack, "fail open") for frm, to, _, _ in reported]
    if reported:
        print(f"fail-open periods the sandboxes reported ({len(reported)}):")
        for frm, to, n, why in sorted(reported):
            print(f"  sandbox {n + 1}: t={frm - started:7.1f}s .. t={to - started:7.1f}s "
                  f"({(to - frm) * 1000:.0f} ms): {why}")
    bound_open = args.outage_bound or (len(args.urls.split(",")) + 1) * args.limit
    failed = False
    print(f"admitted per {window_s:.0f} s window (limit {args.limit}"
          + (f"; {bound_open} in windows touching a Redis outage or a fail-open period"
             if outage else "") + "):")
    first, last = started, started + elapsed
    for start in sorted(stats.admitted):
        if start + window_s <= first or start >= last:
            continue
        count = stats.admitted[start]
        touching = sorted({what for frm, to, what in outage if start < to and start + window_s > frm})
        bound = bound_open if touching else args.limit
        partial = start < first or start + window_s > last
        mark = "" if count <= bound else "  OVER BOUND"
        if count > bound:
            failed = True
        print(f"  window t={start - started:6.0f}s  {count:5d} / {bound}"
              + (f"  ({', '.join(touching)})" if touching else "")
              + ("  (partial)" if partial else "") + mark)
    # RSS after warm-up: the samples after the first third.
    flat = True
    for column in range(len(samples[0][1]) if samples else 0):
        values = [s[1][column] for s in samples[len(samples) // 3:] if s[1][column]]
        if len(values) >= 2:
            growth = values[-1] - min(values)
            print(f"RSS of sandbox {column + 1} after warm-up: {min(values)}..{max(values)} KiB "
                  f"(last - min = {growth} KiB)")
            if growth > max(16 * 1024, min(values) // 4):
                flat = False
    print("RSS flat after warm-up: " + ("yes" if flat else "NO"))
    print("nothing admitted beyond a bound: " + ("NO" if failed else "yes"))
    if failed or not flat:
        sys.exit(1)


if __name__ == "__main__":
    asyncio.run(main())
