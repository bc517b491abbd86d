"""``SHUTDOWN.begin()`` (what SIGTERM triggers) on a live server: a streamed turn in flight is
cancelled and its stream ends with the format's closing frames; a turn asked for afterwards is a
503 to retry. The real signal is tested on ``turnwire serve`` (store_e2e/test_store_e2e_shutdown)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import orjson
import pytest
from live_server import Probe
from server_wire import invoke_body

from turnwire.server.turns.shutdown import SHUTDOWN


@pytest.fixture
def shutdown() -> Iterator[None]:
    yield
    SHUTDOWN.reset()


def test_shutdown_ends_a_stream_in_flight_and_refuses_new_turns(
    base_url: str, probe: Probe, shutdown: None
) -> None:
    probe.started.clear()
    probe.cancelled.clear()
    frames: list[object] = []

    def read() -> None:
        with httpx.Client(base_url=base_url, timeout=30) as c:
            headers = {"accept": "text/event-stream", "x-ag-messages-format": "vercel"}
            with c.stream("POST", "/agents/sleeper/invoke", json=invoke_body(), headers=headers) as r:
                for line in r.iter_lines():
                    if line.startswith("data: "):
                        frames.append(line[6:] if line == "data: [DONE]" else orjson.loads(line[6:]))

    reader = threading.Thread(target=read)
    reader.start()
    assert probe.started.wait(5)
    SHUTDOWN.begin()  # from another thread, as a signal handler would
    reader.join(5)
    assert not reader.is_alive(), "the stream did not end on shutdown"
    assert probe.cancelled.is_set()
    assert frames[-1] == "[DONE]" and frames[-2]["type"] == "finish", frames[-3:]

    with httpx.Client(base_url=base_url, timeout=5) as c:
        refused = c.post("/invoke", json=invoke_body())
    assert refused.status_code == 503 and refused.json()["detail"][0]["type"] == "shutting_down"
