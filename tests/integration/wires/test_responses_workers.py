"""Two ``turnwire serve`` workers on one PostgreSQL and one Redis: a response streamed by one is
resumed (``GET /v1/responses/{id}?stream=true&starting_after=N``), read and cancelled through the
other."""

from __future__ import annotations

from pathlib import Path

from openai import OpenAI

from services import turnwire_process


def _client(url: str) -> OpenAI:
    return OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=30)


def test_a_response_resumes_and_cancels_through_another_worker(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    env = {"TURNWIRE_REDIS_URL": redis_url}
    args = ("--db", postgres_url, "--keepalive", "0")
    with (
        turnwire_process(tmp_path, *args, env=env) as (first, _),
        turnwire_process(tmp_path, *args, env=env) as (second, _),
    ):
        stream = _client(first).responses.create(model="demo", input="count to 400", stream=True)
        events = iter(stream)
        started = [next(events) for _ in range(8)]
        rid = started[0].response.id  # type: ignore[union-attr]
        resumed = _client(second).responses.retrieve(rid, stream=True, starting_after=5)
        again = iter(resumed)
        followed = [next(again) for _ in range(2)]
        assert [e.model_dump() for e in followed] == [e.model_dump() for e in started[6:8]]
        cancelled = _client(second).responses.cancel(rid)
        assert cancelled.status == "cancelled"
        rest = list(events)
        assert rest[-1].type == "response.incomplete" and rest[-1].response.status == "cancelled"
        tail = list(again)
        assert tail[-1].model_dump() == rest[-1].model_dump()
        assert _client(first).responses.retrieve(rid).model_dump() == cancelled.model_dump()
