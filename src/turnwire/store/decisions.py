"""One-shot approval decisions (mixed into ``SqlStore``): the first request carrying a decision
claims its token, atomically, so two requests (or two server processes) can never both act on it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from turnwire.store.base import Claim, Claimed
from turnwire.store.clock import now_us
from turnwire.store.engine import Database
from turnwire.store.schema import decisions

D = decisions.c


class DecisionQueries:
    db: Database

    async def claim_decisions(self, task_id: str, claims: Sequence[Claim]) -> dict[str, Claimed]:
        """Record each decision of ``task_id`` unless its token was recorded before, or take over a
        recorded one with the same answer whose last turn released it; by token digest, the decision
        that holds (the first one recorded) and whether this call holds it now."""
        # In digest order: two requests claiming the same tokens lock them in the same order, so
        # they wait for each other instead of deadlocking (PostgreSQL).
        unique = {c.token_digest: c for c in sorted(claims, key=lambda c: c.token_digest)}
        if not unique:
            return {}
        now = now_us()
        rows = [
            {
                "task_id": task_id,
                "token_digest": c.token_digest,
                "tool_call_id": c.tool_call_id,
                "approved": c.approved,
                "created_at": now,
            }
            for c in unique.values()
        ]
        dialect: Any = sqlite if self.db.dialect == "sqlite" else postgresql
        # A concurrent twin's INSERT waits for this one's transaction (PostgreSQL row lock; SQLite's
        # single writer), then inserts nothing: exactly one request records each token.
        insert = dialect.insert(decisions).values(rows).on_conflict_do_nothing().returning(D.token_digest)
        async with self.db.write() as conn:
            won = set((await conn.execute(insert)).scalars())
            for digest in [d for d in unique if d not in won]:
                # A concurrent twin blocks on the row, then finds it running: one takes it over.
                retake = (
                    sa.update(decisions)
                    .where(
                        D.task_id == task_id,
                        D.token_digest == digest,
                        D.state == "open",
                        D.approved == unique[digest].approved,
                    )
                    .values(state="running")
                    .returning(D.token_digest)
                )
                won.update((await conn.execute(retake)).scalars())
            lost = [digest for digest in unique if digest not in won]
            recorded: dict[str, bool] = {}
            if lost:
                query = sa.select(D.token_digest, D.approved).where(
                    D.task_id == task_id, D.token_digest.in_(lost)
                )
                recorded = {row[0]: bool(row[1]) for row in await conn.execute(query)}
        out = {}
        for digest, claim in unique.items():
            if digest in won:
                out[digest] = Claimed(claim.approved, True)
            else:
                out[digest] = Claimed(recorded.get(digest, claim.approved), False)
        return out

    async def settle_decisions(self, task_id: str, done: Sequence[str], released: Sequence[str]) -> None:
        async with self.db.write() as conn:
            for state, digests in (("done", done), ("open", released)):
                if digests:
                    await conn.execute(
                        sa.update(decisions)
                        .where(D.task_id == task_id, D.token_digest.in_(list(digests)), D.state == "running")
                        .values(state=state)
                    )
