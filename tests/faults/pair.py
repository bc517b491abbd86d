"""Two ``turnwire serve`` processes on one PostgreSQL and one Redis, each restartable."""

from __future__ import annotations

import contextlib
import signal
import subprocess
from pathlib import Path
from typing import Any

import httpx
import redis
from fault_servers import server, stored

from restartable import PostgresProcess, RedisProcess


class Node:
    """One server of the pair: ``kill()`` SIGKILLs it, ``start()`` brings it back (a new port)."""

    def __init__(self, home: Path, pg: PostgresProcess, redis_proc: RedisProcess) -> None:
        self.home, self.pg, self.redis = home, pg, redis_proc
        self.url = ""
        self.proc: subprocess.Popen[bytes] | None = None
        self._stack = contextlib.ExitStack()

    def start(self) -> None:
        self._stack = contextlib.ExitStack()
        self.url, self.proc = self._stack.enter_context(server(self.home, self.pg.url, redis=self.redis.url))

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self._stack.close()

    def stop(self) -> None:
        self._stack.close()

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.get(self.url + path, timeout=kwargs.pop("timeout", 10), **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.post(self.url + path, timeout=kwargs.pop("timeout", 10), **kwargs)


def live_keys(redis_proc: RedisProcess) -> list[bytes]:
    client = redis.Redis.from_url(redis_proc.url)
    try:
        return sorted(client.scan_iter("turnwire:live:*"))
    finally:
        client.close()


def open_rows(pg: PostgresProcess) -> dict[str, int]:
    """Rows that must be gone once every turn ended: open messages and open turns."""
    import asyncio

    import asyncpg

    async def count() -> dict[str, int]:
        conn = await asyncpg.connect(pg.url.replace("+asyncpg", ""))
        try:
            open_messages = await conn.fetchval(
                "SELECT count(*) FROM messages WHERE streaming_status = 'IN_PROGRESS'"
            )
            return {
                "in_progress": open_messages,
                "open_turns": await conn.fetchval("SELECT count(*) FROM open_turns"),
            }
        finally:
            await conn.close()

    return asyncio.run(count())


def registered(redis_proc: RedisProcess, session: str) -> bool:
    """Whether a turn of ``session`` is live in Redis."""
    return any(session.encode() in key for key in live_keys(redis_proc))


def agent_texts(url: str, session: str) -> list[str]:
    """The agent's stored text messages of ``session``, in order."""
    return [
        m["content"]["content"]
        for m in stored(url, session)
        if m["content"]["type"] == "text" and m["content"]["author"] == "agent"
    ]
