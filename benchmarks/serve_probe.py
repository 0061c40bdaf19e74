"""`lvf serve` under attack: each finding of the security probe, measured on loopback with a fake model.

    python benchmarks/serve_probe.py [--slow 300] [--drip 2.0] [--hold 0] [--out serve_probe.json]

A ``ModelServer`` (what ``lvf serve`` runs) with its default settings serves a fake backend on
127.0.0.1 in this process; nothing leaves loopback and no model is loaded. The fake backend
refuses what llama.cpp cannot hold (an integer beyond 64 bits) with an OverflowError, as a C
binding does, so a number the server lets through shows up as a 500. Each finding is one row:
what a safe server does, what this one did, and whether that is safe.

- **weak key**: ``allow_remote`` with a whitespace-only or one-character key is refused.
- **host**: a POST carrying ``Host: attacker.example`` (a page that rebound its DNS name to
  127.0.0.1) is refused; so is a ``text/plain`` body (a page's form or ``fetch`` without a
  preflight).
- **numbers**: ``max_tokens`` of ``1e30``, of ``10**30`` and of a 5 000-digit integer, and a
  ``seed`` of ``10**30``, are each a 400 naming the field.
- **role**: ``"role": "root"`` is a 400 naming ``messages[0].role``.
- **slow connections**: ``--slow`` connections each send a request line, then one header byte
  every ``--drip`` s (within the per-read timeout, so only a total deadline ends them). Threads
  of this process before, at the peak and after ``--hold`` s (default: the header deadline +
  4 s); the connections the server still holds then; and whether an ordinary request is answered
  while they are open. Bounded: the sockets are closed at the end, whatever happened.

Prints one line per finding and writes the rows as JSON to ``--out``. Exit code 0 when every
finding is safe.
"""

from __future__ import annotations

import argparse
import json
import selectors
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

INT64 = 2 ** 63


class OverflowingBackend:
    """Answers "ok"; an integer llama.cpp cannot hold raises OverflowError (a 500 unless the server refused it)."""

    model_id = "probe-model"

    def chat(self, body: dict) -> dict:
        for name, value in body.items():
            if isinstance(value, int) and not -INT64 <= value < INT64:
                raise OverflowError(f"{name} does not fit in 64 bits")
        return {"id": "p1", "created": 1, "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"},
                                                       "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1}}


def request(base: str, path: str, data: bytes, headers: dict[str, str]) -> tuple[int, dict]:
    """POST ``data`` to ``path``; the status and the JSON body (``{}`` when it is not JSON)."""
    req = urllib.request.Request(base + path, data=data, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            status, text = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, text = exc.code, exc.read()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, {}


def chat(base: str, raw: bytes, *, content_type: str = "application/json", host: str | None = None
         ) -> tuple[int, dict]:
    headers = {"Content-Type": content_type, **({"Host": host} if host else {})}
    return request(base, "/chat/completions", raw, headers)


def row(finding: str, safe_when: str, observed: str, safe: bool) -> dict:
    print(f"{'safe  ' if safe else 'UNSAFE'}  {finding}: {observed}  (safe: {safe_when})", flush=True)
    return {"finding": finding, "safe_when": safe_when, "observed": observed, "safe": safe}


def weak_keys() -> list[dict]:
    from llm_validation_framework.apps.serve.limits import check_host

    rows = []
    for shown, key in (("'   ' (spaces)", "   "), ("'x'", "x")):
        try:
            check_host("0.0.0.0", True, key)
            observed = "accepted"
        except ValueError as exc:
            observed = f"refused: {str(exc)[:80]}"
        rows.append(row(f"allow_remote with key {shown}", "refused", observed, observed != "accepted"))
    return rows


def refused_requests(base: str) -> list[dict]:
    ok = json.dumps({"messages": [{"role": "user", "content": "x"}]}).encode()
    rows = []
    status, _ = chat(base, ok, host="attacker.example")
    rows.append(row("POST with Host: attacker.example", "4xx", f"HTTP {status}", 400 <= status < 500))
    status, _ = chat(base, ok, content_type="text/plain")
    rows.append(row("POST with Content-Type: text/plain", "4xx", f"HTTP {status}", 400 <= status < 500))
    status, _ = chat(base, ok, content_type="text/plain", host="attacker.example")
    rows.append(row("text/plain POST with Host: attacker.example", "4xx", f"HTTP {status}", 400 <= status < 500))
    cases = (("max_tokens 1e30", b'"max_tokens": 1e30', "max_tokens"),
             ("max_tokens 10**30", b'"max_tokens": 1' + b"0" * 30, "max_tokens"),
             ("max_tokens of 5000 digits", b'"max_tokens": ' + b"9" * 5000, "max_tokens"),
             ("seed 10**30", b'"seed": 1' + b"0" * 30, "seed"),
             ('"role": "root"', None, "messages[0].role"))
    for finding, extra, param in cases:
        raw = (b'{"messages": [{"role": "root", "content": "x"}]}' if extra is None
               else b'{"messages": [{"role": "user", "content": "x"}], ' + extra + b"}")
        status, body = chat(base, raw)
        named = (body.get("error") or {}).get("param")
        rows.append(row(finding, f"400 naming {param}", f"HTTP {status}, param {named}",
                        status == 400 and named == param))
    return rows


def slow_connections(server, count: int, drip_s: float, hold_s: float) -> list[dict]:
    """``count`` connections that send their headers one byte at a time; threads and held connections measured."""
    host, port = server.httpd.server_address[:2]
    base = server.base_url
    before = threading.active_count()
    selector = selectors.DefaultSelector()
    socks: list[socket.socket] = []
    closed: set[int] = set()
    peak = before
    try:
        for _ in range(count):
            sock = socket.create_connection((host, port), timeout=5)
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            sock.setblocking(False)
            socks.append(sock)
            selector.register(sock, selectors.EVENT_READ, len(socks) - 1)
            peak = max(peak, threading.active_count())
        ordinary = None
        started = time.monotonic()
        next_drip = started
        while time.monotonic() - started < hold_s:
            for key, _ in selector.select(timeout=0.05):
                try:
                    if not key.fileobj.recv(65536):
                        raise ConnectionError
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    pass
                closed.add(key.data)  # answered (503, 408) or closed by the server: it holds nothing now
                selector.unregister(key.fileobj)
            if time.monotonic() >= next_drip:
                for index, sock in enumerate(socks):
                    if index not in closed:
                        try:
                            sock.send(b"X")  # one more byte of a header name that never ends
                        except OSError:
                            closed.add(index)
                next_drip += drip_s
            peak = max(peak, threading.active_count())
            if ordinary is None and time.monotonic() - started > 1.0:
                t0 = time.monotonic()
                status, _ = chat(base, json.dumps({"messages": [{"role": "user", "content": "x"}]}).encode())
                ordinary = (status, time.monotonic() - t0)
        held_threads = threading.active_count()
        held = count - len(closed)
    finally:
        for sock in socks:
            sock.close()
        selector.close()
    time.sleep(1.0)
    after = threading.active_count()
    from llm_validation_framework.apps.serve import limits

    cap = getattr(limits, "MAX_CONNECTIONS", 100)
    safe_threads = peak - before <= cap + 2 and held_threads - before <= 5
    rows = [row(f"{count} slow connections: threads before / peak / after {hold_s:g} s / after closing",
                "peak bounded by the connection cap, back to the start by the deadline",
                f"{before} / {peak} / {held_threads} / {after}", safe_threads),
            row(f"{count} slow connections: still held after {hold_s:g} s", "0",
                f"{held} of {count}", held == 0)]
    if ordinary is not None:
        status, seconds = ordinary
        rows.append(row("an ordinary request while they are open", "answered (200) or refused at once (503)",
                        f"HTTP {status} in {seconds:.2f} s", status in (200, 503) and seconds < 5))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--slow", type=int, default=300, help="slow connections opened (at most 1000)")
    parser.add_argument("--drip", type=float, default=2.0, help="seconds between the bytes each one sends")
    parser.add_argument("--hold", type=float, default=0.0,
                        help="seconds to keep them open (0: the server's header deadline + 4 s)")
    parser.add_argument("--out", type=Path, default=Path("serve_probe.json"))
    args = parser.parse_args()
    from llm_validation_framework.apps.serve import ModelServer, limits

    hold = args.hold or getattr(limits, "HEADER_DEADLINE_S", limits.READ_TIMEOUT_S) + 4.0
    rows = weak_keys()
    with ModelServer(OverflowingBackend(), port=0) as server:
        rows += refused_requests(server.base_url)
        rows += slow_connections(server, min(args.slow, 1000), args.drip, hold)
    args.out.write_text(json.dumps(rows, indent=2) + "\n")
    unsafe = sum(not r["safe"] for r in rows)
    print(f"{len(rows) - unsafe} of {len(rows)} findings safe; rows in {args.out}")
    return 1 if unsafe else 0


if __name__ == "__main__":
    sys.exit(main())
