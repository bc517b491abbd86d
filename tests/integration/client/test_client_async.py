"""turnwire.client.AsyncClient against a real server: the same turns with async for / await."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from turnwire.client import AsyncClient
from turnwire.model import MessageDelta, TextBlock


def _last_text(turn) -> str:  # type: ignore[no-untyped-def]
    return [b.text for m in turn.messages for b in m.content if isinstance(b, TextBlock)][-1]


@pytest.mark.parametrize(("fmt", "transport"), [("agenta", "sse"), ("agenta", "ndjson"), ("vercel", "sse")])
def test_async_turns_approvals_and_history(server_url: str, fmt: str, transport: str) -> None:
    async def main() -> None:
        async with AsyncClient(server_url, format=fmt, transport=transport) as client:  # type: ignore[arg-type]
            session = await client.session(f"async-{uuid.uuid4().hex[:8]}")
            turn = await session.send("hello async")
            deltas = [e async for e in turn if isinstance(e, MessageDelta)]
            assert "".join(d.delta for d in deltas).endswith("hello async")
            paused = await session.send("delete notes.txt")
            assert [r.kind for r in await paused.pending()] == ["user_approval"]
            done = await paused.approve()
            assert _last_text(await done.result()) == "Deleted notes.txt."
            history = await client.history(session.id)
            assert any(m.role == "user" for m in history)

    asyncio.run(main())


def test_async_cancel(server_url: str) -> None:
    async def main() -> None:
        async with AsyncClient(server_url) as client:
            turn = await client.send("count to 100000")
            n = 0
            async for _ in turn:
                n += 1
                if n == 3:
                    await turn.cancel()
                    break
            assert (await turn.result()).stop_reason == "cancelled"

    asyncio.run(main())
