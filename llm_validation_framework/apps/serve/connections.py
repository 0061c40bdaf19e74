"""The listening side of ``lvf serve``: a thread per connection, at most ``max_connections`` of them, and
deadlines that end a request whose headers or body take too long to arrive.

A per-read timeout alone does not bound a request: a client sending one byte every few seconds
never stays silent long enough to trip it, and would hold its thread for ever (a thousand such
clients, a thousand threads). So each stage of a request gets a total deadline, watched by one
thread for every connection: past it, the client gets a 408 and its socket is shut down, which
ends the read its thread is blocked in. A connection over the cap is answered 503 at once from
the accepting thread, without a thread of its own.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
import time
from http.server import ThreadingHTTPServer
from typing import Any

__all__ = ["GuardedHTTPServer"]

log = logging.getLogger(__name__)

#: seconds between two looks of the deadline watcher (how late past its deadline a request may end)
_WATCH_INTERVAL_S = 0.25


def _refusal(status: int, reason: str, message: str, kind: str) -> bytes:
    body = json.dumps({"error": {"message": message, "type": kind, "param": None, "code": status}}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n")
    return head.encode("ascii") + body


class GuardedHTTPServer(ThreadingHTTPServer):
    """``ThreadingHTTPServer`` with a connection cap and per-stage deadlines (:meth:`watch`, :meth:`unwatch`)."""

    daemon_threads = True
    #: connections the kernel queues before accept (the stdlib's 5 refuses a burst of clients)
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], handler: Any, *, max_connections: int) -> None:
        self.max_connections = max_connections
        self._lock = threading.Lock()
        self._open = 0
        self._deadlines: dict[socket.socket, tuple[float, bytes]] = {}
        self._expired: set[socket.socket] = set()
        self._closing = threading.Event()
        super().__init__(address, handler)
        self._watcher = threading.Thread(target=self._watch_deadlines, name="lvf-serve-deadlines", daemon=True)
        self._watcher.start()

    @property
    def open_connections(self) -> int:
        return self._open

    # --- the connection cap -------------------------------------------------------------------
    def process_request(self, request: Any, client_address: Any) -> None:
        with self._lock:
            full = self._open >= self.max_connections
            if not full:
                self._open += 1
        if full:
            self._answer_and_close(request, _refusal(
                503, "Service Unavailable", f"the server is serving {self.max_connections} connections, its most: "
                "retry in a moment", "server_error"))
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread could be started: the slot is free again
            self._release(request)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._release(request)

    def _release(self, request: Any) -> None:
        with self._lock:
            self._open -= 1
            self._deadlines.pop(request, None)
            self._expired.discard(request)

    def _answer_and_close(self, request: socket.socket, reply: bytes) -> None:
        """Send a short reply without waiting on the client (the kernel's buffer takes it), then close."""
        try:
            request.setblocking(False)
            request.send(reply)
        except OSError:
            pass
        self.shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (or was cut at its deadline) is no error of the server's."""
        import sys

        if isinstance(sys.exc_info()[1], OSError):
            log.debug("connection ended: %s", sys.exc_info()[1])
            return
        log.exception("lvf serve: a connection failed")

    # --- deadlines ----------------------------------------------------------------------------
    def watch(self, sock: socket.socket, seconds: float, message: str) -> None:
        """End ``sock``'s request with a 408 saying ``message`` unless :meth:`unwatch` comes within ``seconds``."""
        reply = _refusal(408, "Request Timeout", message, "invalid_request_error")
        with self._lock:
            self._deadlines[sock] = (time.monotonic() + seconds, reply)

    def unwatch(self, sock: socket.socket) -> bool:
        """Stop watching ``sock``; False when its deadline already passed (its request was cut: answer nothing)."""
        with self._lock:
            self._deadlines.pop(sock, None)
            return sock not in self._expired

    def _watch_deadlines(self) -> None:
        while not self._closing.wait(_WATCH_INTERVAL_S):
            now = time.monotonic()
            with self._lock:
                due = [(sock, reply) for sock, (deadline, reply) in self._deadlines.items() if deadline <= now]
                for sock, _ in due:
                    del self._deadlines[sock]
                    self._expired.add(sock)
            for sock, reply in due:  # its thread is blocked reading: shutting the socket down ends that read
                try:
                    sock.send(reply, socket.MSG_DONTWAIT)
                except OSError:
                    pass
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def server_close(self) -> None:
        self._closing.set()
        super().server_close()
