"""``turnwire serve`` bounds request heads and cuts slow clients, on real sockets.

A real ``turnwire serve`` process on loopback with small limits set by ``TURNWIRE_*`` variables
(a 4 KiB head, 20 header fields, 1 s to send a head, 1 s of body silence), driven by raw sockets:
an oversize head (sent at once or trickled) and too many fields are 431; a head or a body that
never ends is 408 and its socket closed; a silent connection is closed. What stays served: a head
just under the limit, a body trickled with short pauses, a streamed answer longer than every
timeout, keep-alive requests one after another.
"""

from __future__ import annotations

import contextlib
import pickle
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from services import turnwire_process
from turnwire.server.http.connections import BoundedHttpToolsProtocol, ConnectionLimits
from turnwire.server.run import ServeOptions, uvicorn_config
from turnwire.server.settings import Settings

TIMEOUT = 1.0
LIMITS = {
    "TURNWIRE_MAX_HEADER_BYTES": "4096",
    "TURNWIRE_MAX_HEADERS": "20",
    "TURNWIRE_HEADER_TIMEOUT_SECONDS": str(TIMEOUT),
    "TURNWIRE_BODY_TIMEOUT_SECONDS": str(TIMEOUT),
    "TURNWIRE_KEEPALIVE_SECONDS": "0",
}
SLACK = 2.0  # a refusal comes within TIMEOUT + SLACK seconds
HEAD = b"GET /health HTTP/1.1\r\nhost: t\r\n"


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    home: Path = tmp_path_factory.mktemp("connections")
    with turnwire_process(home, env=LIMITS) as (url, _):
        yield int(url.rsplit(":", 1)[1])


def connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT + SLACK + 5)
    return sock


def read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes the connection."""
    out = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return out
        if not chunk:
            return out
        out += chunk


def status_and_body(raw: bytes) -> tuple[int, dict]:
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    assert b"connection: close" in head.lower()
    return status, orjson.loads(body)


def one_response(sock: socket.socket) -> bytes:
    """One complete response with a content-length on a connection that stays open."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return head + b"\r\n\r\n" + body


def test_a_head_over_the_byte_limit_is_431(port: int) -> None:
    with connect(port) as sock:
        sock.sendall(HEAD + b"x-big: " + b"a" * 1_000_000 + b"\r\n\r\n")
        status, body = status_and_body(read_all(sock))
    assert status == 431
    assert body["detail"][0]["loc"] == ["header"] and "4096 bytes" in body["detail"][0]["msg"]


def test_a_trickled_oversize_head_is_refused_before_it_ends(port: int) -> None:
    """Counted as it arrives: the answer comes once the limit is passed, not at the end."""
    with connect(port) as sock:
        sock.sendall(HEAD + b"x-big: ")
        answer = b""
        for _ in range(16):  # 16 KiB in all, 4 times the limit, never a blank line
            try:
                sock.sendall(b"b" * 1024)
            except (BrokenPipeError, ConnectionResetError):
                break
            sock.settimeout(0.2)
            try:
                answer += sock.recv(65536)
            except TimeoutError:
                continue
            if answer:
                break
        sock.settimeout(TIMEOUT + SLACK)
        answer += read_all(sock)
    assert status_and_body(answer)[0] == 431


def test_too_many_header_fields_is_431(port: int) -> None:
    fields = b"".join(b"x-field-%d: v\r\n" % i for i in range(25))
    with connect(port) as sock:
        sock.sendall(HEAD + fields + b"\r\n")
        status, body = status_and_body(read_all(sock))
    assert status == 431 and "more than 20 header fields" in body["detail"][0]["msg"]


def test_a_head_within_the_limits_is_served(port: int) -> None:
    fields = b"".join(b"x-field-%d: %s\r\n" % (i, b"v" * 150) for i in range(18))  # ≈ 3 KiB
    with connect(port) as sock:
        sock.sendall(HEAD + fields + b"\r\n")
        assert one_response(sock).startswith(b"HTTP/1.1 200 ")


def test_slowloris_heads_are_408_and_closed(port: int) -> None:
    """Five sockets each sending a byte of a head every 0.3 s: each is answered 408 and closed
    about TIMEOUT after it opened, though it never stopped sending."""
    socks = [connect(port) for _ in range(5)]
    started = time.monotonic()
    try:
        for sock in socks:
            sock.sendall(b"GET /health HTTP/1.1\r\nhost: t\r\n")
            sock.setblocking(False)
        answers = {i: b"" for i in range(len(socks))}
        closed: set[int] = set()
        while len(closed) < len(socks) and time.monotonic() - started < TIMEOUT + SLACK + 3:
            for i, sock in enumerate(socks):
                if i in closed:
                    continue
                with contextlib.suppress(OSError):
                    sock.send(b"x")
                try:
                    chunk = sock.recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                answers[i] += chunk
                if not chunk:
                    closed.add(i)
            time.sleep(0.3)
        elapsed = time.monotonic() - started
    finally:
        for sock in socks:
            sock.close()
    assert closed == set(range(len(socks))), answers
    assert TIMEOUT * 0.9 <= elapsed <= TIMEOUT + SLACK
    for answer in answers.values():
        status, body = status_and_body(answer)
        assert status == 408 and body["detail"][0]["type"] == "header_timeout"


def test_a_connection_that_sends_nothing_is_closed(port: int) -> None:
    with connect(port) as sock:
        started = time.monotonic()
        assert read_all(sock) == b""
        assert time.monotonic() - started <= TIMEOUT + SLACK


def test_a_body_that_stops_arriving_is_408(port: int) -> None:
    head = (
        b"POST /invoke HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\ncontent-length: 200\r\n\r\n"
    )
    with connect(port) as sock:
        started = time.monotonic()
        sock.sendall(head + b'{"data": ')
        status, body = status_and_body(read_all(sock))
        elapsed = time.monotonic() - started
    assert status == 408 and body["detail"][0] == {
        "loc": ["body"],
        "msg": f"the request's body got no bytes for {TIMEOUT} s",
        "type": "body_timeout",
    }
    assert TIMEOUT * 0.9 <= elapsed <= TIMEOUT + SLACK


def test_a_body_trickled_with_short_pauses_is_served(port: int) -> None:
    """Body silence is what times out, not a body taking longer than the timeout in all."""
    payload = orjson.dumps({"data": {"inputs": {"messages": [{"role": "user", "content": "hi there"}]}}})
    head = b"POST /invoke HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n"
    with connect(port) as sock:
        sock.sendall(head % len(payload))
        started = time.monotonic()
        pieces = [payload[i : i + 10] for i in range(0, len(payload), 10)]
        for piece in pieces:
            sock.sendall(piece)
            time.sleep(TIMEOUT / 3)
        answer = one_response(sock)
        assert time.monotonic() - started > 2 * TIMEOUT
    assert answer.startswith(b"HTTP/1.1 200 ") and b"You said: hi there" in answer


def test_a_streamed_answer_longer_than_the_timeouts_is_not_cut(port: int) -> None:
    payload = orjson.dumps({"data": {"inputs": {"messages": [{"role": "user", "content": "sleep 2.5"}]}}})
    request = (
        b"POST /invoke HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\naccept: text/event-stream\r\n"
        b"connection: close\r\ncontent-length: %d\r\n\r\n" % len(payload)
    ) + payload
    with connect(port) as sock:
        started = time.monotonic()
        sock.sendall(request)
        answer = read_all(sock)
        assert time.monotonic() - started >= 2.5
    assert answer.startswith(b"HTTP/1.1 200 ")
    assert b'"stopReason":"end_turn"' in answer and b"sleeping" in answer


def test_keep_alive_requests_follow_one_another(port: int) -> None:
    with connect(port) as sock:
        for _ in range(3):
            sock.sendall(HEAD + b"\r\n")
            assert one_response(sock).startswith(b"HTTP/1.1 200 ")
            time.sleep(TIMEOUT / 2)


def test_the_limits_travel_with_the_config_into_worker_processes() -> None:
    """``--workers N`` pickles uvicorn's config into each worker: the limits must survive it."""
    settings = Settings.from_env(LIMITS)
    config = uvicorn_config(ServeOptions(settings=settings, workers=2))
    clone = pickle.loads(pickle.dumps(config))
    assert clone.http is BoundedHttpToolsProtocol
    assert clone.connection_limits == ConnectionLimits(4096, 20, TIMEOUT, TIMEOUT)
