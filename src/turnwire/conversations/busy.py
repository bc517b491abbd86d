"""Which turn a conversation is busy with: at most one claim per conversation, on this process
and — with Redis — across every worker.

A turn claims its conversation before it reads or writes anything of it, and gives the claim
back once its stream has ended and its reply is stored. A second turn that finds the
conversation claimed learns which turn holds it, and may wait until it is free
(``server.turns.multitask`` decides what it does).

With Redis the claim is ``turnwire:busy:{key}`` = the turn id, set only if absent (``SET NX``),
with a short expiry that the holder renews while its turn runs: a worker that dies holding a
claim frees it within ``TTL`` seconds, never blocking the conversation for long. The local
claims stay authoritative for this process; a Redis failure logs and falls back to them (one
worker's view) rather than failing the turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, Final

log = logging.getLogger("turnwire.conversations.busy")

BUSY: Final = "turnwire:busy:"
TTL: Final = 30.0
"""Seconds a Redis claim outlives a holder that stopped renewing it (a dead worker)."""
RENEW: Final = TTL / 3
POLL: Final = 0.05
"""Seconds between looks at a claim another worker holds, while waiting for it to go."""
HANDOFF: Final = 30.0
"""Seconds a claim may wait to be handed to its running turn (``Claim.hold``) before it frees
itself: a door that failed between starting a turn and serving it must not block the
conversation."""


class Claim:
    """One turn's hold on its conversation; ``release`` gives it back (once)."""

    def __init__(self, claims: ConversationClaims, key: str, turn_id: str, remote: bool) -> None:
        self.claims = claims
        self.key = key
        self.turn_id = turn_id
        self.remote = remote
        self.freed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._renewer: asyncio.Task[None] | None = None
        self._handoff: asyncio.TimerHandle | None = asyncio.get_running_loop().call_later(
            HANDOFF, self._unclaimed
        )
        if remote:
            self._renewer = asyncio.get_running_loop().create_task(self._renew())

    @property
    def released(self) -> bool:
        return self.freed.done()

    def hold(self) -> None:
        """The claim now belongs to a running turn, which releases it when it ends."""
        if self._handoff is not None:
            self._handoff.cancel()
            self._handoff = None

    async def release(self) -> None:
        """Free the conversation: this process's waiters at once, the Redis key if it is still ours."""
        if self.freed.done():
            return
        self.hold()
        self.freed.set_result(None)
        self.claims._forget(self)
        if self._renewer is not None:
            self._renewer.cancel()
        if self.remote:
            await self.claims._release_remote(self.key, self.turn_id)

    def _unclaimed(self) -> None:
        self._handoff = None
        if not self.freed.done():
            log.warning("turn %s never ran: freeing its claim on %s", self.turn_id, self.key)
            task = asyncio.get_running_loop().create_task(self.release())
            _background.add(task)
            task.add_done_callback(_background.discard)

    async def _renew(self) -> None:
        client = self.claims.client
        while True:
            await asyncio.sleep(RENEW)
            try:
                await client.eval(_RENEW_IF, 1, BUSY + self.key, self.turn_id, int(TTL * 1000))
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("renewing the claim of turn %s on %s in Redis failed", self.turn_id, self.key)


class ConversationClaims:
    """The claims of one app: local by conversation key, mirrored in Redis when ``client`` is given."""

    def __init__(self, client: Any = None) -> None:
        self.client = client
        self._held: dict[str, Claim] = {}

    def local(self, key: str) -> Claim | None:
        """The claim a turn of this process holds on ``key``, if any."""
        return self._held.get(key)

    async def acquire(self, key: str, turn_id: str) -> Claim | str:
        """Claim ``key`` for ``turn_id``: the ``Claim``, or the id of the turn that holds it."""
        held = self._held.get(key)
        if held is not None:
            return held.turn_id
        remote = False
        if self.client is not None:
            try:
                ok = await self.client.set(BUSY + key, turn_id, nx=True, px=int(TTL * 1000))
            except Exception:
                log.warning("claiming %s in Redis failed: this worker's claims only", key, exc_info=True)
            else:
                if not ok:
                    holder = await self._remote_holder(key)
                    if holder is not None:
                        return holder
                    return await self.acquire(key, turn_id)  # freed in between: try again
                remote = True
            held = self._held.get(key)  # another turn of this process got there while we waited
            if held is not None:
                if remote:
                    await self._release_remote(key, turn_id)
                return held.turn_id
        claim = Claim(self, key, turn_id, remote)
        self._held[key] = claim
        return claim

    async def holder(self, key: str) -> str | None:
        """The id of the turn holding ``key`` here or on another worker, if any."""
        held = self._held.get(key)
        if held is not None:
            return held.turn_id
        return await self._remote_holder(key)

    async def wait_free(self, key: str, timeout: float | None) -> bool:
        """Wait (at most ``timeout`` seconds; ``None``: as long as it takes) until no turn holds
        ``key``; ``True`` if it is free."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while True:
            held = self._held.get(key)
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return await self.holder(key) is None
            if held is not None:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(held.freed), left)
                continue
            if await self._remote_holder(key) is None:
                return True
            await asyncio.sleep(POLL if left is None else min(POLL, left))

    def _forget(self, claim: Claim) -> None:
        if self._held.get(claim.key) is claim:
            del self._held[claim.key]

    async def _remote_holder(self, key: str) -> str | None:
        if self.client is None:
            return None
        try:
            value = await self.client.get(BUSY + key)
        except Exception:
            log.warning("reading the claim of %s in Redis failed", key, exc_info=True)
            return None
        if value is None:
            return None
        return value.decode() if isinstance(value, bytes) else str(value)

    async def _release_remote(self, key: str, turn_id: str) -> None:
        try:
            await self.client.eval(_DELETE_IF, 1, BUSY + key, turn_id)
        except Exception:
            log.warning("freeing the claim of %s in Redis failed (it expires in %g s)", key, TTL)


_background: set[asyncio.Task[None]] = set()

_DELETE_IF: Final = (  # the claim, if it is still this turn's (ARGV[1] = turn id)
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"
)
_RENEW_IF: Final = (
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end "
    "return 0"
)
