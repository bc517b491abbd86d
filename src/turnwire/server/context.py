"""The app context: the one object every route reads settings, agents, store, pub/sub and the
warm pool from.

``create_app`` and ``create_router`` build one and bind it to every route they make (a router
dependency puts it on the request), so a router mounted in someone else's app with its own limits
applies them on every route, Agentex routes included.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, cast

from fastapi import Depends
from starlette.requests import Request

from turnwire.conversations.pubsub import LocalPubSub, PubSub
from turnwire.observability.span_book import MEMORY, SpanBook, book_for
from turnwire.runtime import Agent
from turnwire.runtime.approvals import ApprovalSigner, load_secret
from turnwire.runtime.live import LiveTurns
from turnwire.runtime.warm import WarmPool, WarmStarts
from turnwire.server.http.auth import request_tenant
from turnwire.server.http.errors import UnknownAgent
from turnwire.server.settings import Settings, default_db_url
from turnwire.store import SqlStore
from turnwire.store.base import Store
from turnwire.store.tenant_view import TenantStore
from turnwire.store.writers import DEFAULT_LEASE_SECONDS, WriterLease

if TYPE_CHECKING:
    from turnwire.observability.observer import Observer

log = logging.getLogger("turnwire.server")

_STATE_KEY = "turnwire"


@dataclass(eq=False)
class AppContext:
    """What a turnwire app serves and with what: one per app (or mounted router)."""

    agents: dict[str, Agent]
    """Name -> agent; read on every request, so agents added later are served."""
    default_agent: str
    settings: Settings
    store: Store | None = None
    """Set by the app's lifespan (``None``: nothing is recorded; the Agentex routes answer 503)."""
    pubsub: PubSub = field(default_factory=LocalPubSub)
    _warm: WarmStarts | None = None
    tenant: str = ""
    """Whose request this context serves (``bind`` gives each request its tenant's copy);
    ``""`` when the server has no API keys."""
    _turns: LiveTurns | None = None
    observe: Observer | None = None
    """Tracing and metrics (``turnwire.observability``); ``None``: nothing observed, nothing paid."""
    spans: SpanBook = MEMORY
    """Agentex's spans (``/spans``): the SQL store's once the lifespan opened it."""

    @property
    def turns(self) -> LiveTurns:
        """The turns running on this process (resume, stop), built on first use: after the
        lifespan chose the pub/sub, which carries stop signals between processes. Shared by every
        tenant's view; keys are tenant-scoped (``pipeline.session_scope``)."""
        if self._turns is None:
            # Stop signals travel on the pub/sub to the other processes' turns. An in-process
            # pub/sub reaches no other process: stops are delivered here directly, and no turn
            # pays for a subscription and a task that watch for them.
            signals = None if type(self.pubsub) is LocalPubSub else self.pubsub
            self._turns = LiveTurns(signals, _turn_logs(self.pubsub))
        return self._turns

    @property
    def warm(self) -> WarmStarts:
        """The approval signer and warm pool, built on first use (reads or creates the secret)."""
        if self._warm is None:
            s = self.settings
            signer = ApprovalSigner(load_secret(s.approval_secret, s.approval_secret_file))
            pool = WarmPool(
                max_entries=s.session_pool_max, idle_ttl=s.session_idle_ttl, waiting_ttl=s.session_waiting_ttl
            )
            self._warm = WarmStarts(signer, pool)
        return self._warm

    async def stop_turns(self) -> None:
        """Stop the turns running on this process and wait for them to store their end (shutdown)."""
        turns, self._turns = self._turns, None
        if turns is None:
            return
        await turns.close()
        aclose = getattr(turns.mirror, "aclose", None)
        if aclose is not None:
            await aclose()

    def agent(self, name: str) -> Agent:
        agent = self.agents.get(name)
        if agent is None:
            raise UnknownAgent(name)
        return agent

    def running(self) -> AbstractAsyncContextManager[None]:
        """Open the store (and Redis) of the settings for as long as the block runs; what an app
        that mounts ``create_router`` runs in its lifespan."""
        return _services(self)

    async def bind(self, request: Request) -> None:
        """Router dependency: authenticate the request (``Unauthorized`` for a missing or unknown
        key when keys are configured) and make its tenant's view of this context the request's
        (see ``current``). Every route but ``/health`` runs it, so none can skip the check."""

        request.state.turnwire = self.for_tenant(request_tenant(self.settings.api_keys, request))

    def for_tenant(self, tenant: str) -> AppContext:
        """This context as ``tenant`` sees it: the same agents, pool and pub/sub, and the store
        restricted to the tenant's tasks (``TenantStore``)."""
        store = self.store
        # A copy of the fields, as dataclasses.replace makes but without its per-call field walk
        # (every request builds one).
        view = object.__new__(type(self))
        view.__dict__.update(self.__dict__)
        # The tenant's view answers every call a route makes, with the tenant fixed (it takes no
        # ``tenant`` arguments and opens or closes nothing): a Store as far as routes go.
        view.store = None if store is None else cast(Store, TenantStore(store, tenant))
        view.tenant, view._warm, view._turns = tenant, self.warm, self.turns
        return view


@contextlib.asynccontextmanager
async def _services(ctx: AppContext) -> AsyncIterator[None]:
    """Open ``ctx.settings.db_url`` (else ``settings.default_db_url()``) as ``ctx.store`` under a writer
    lease (``store.writers``): messages that dead server processes left streaming are closed, now
    and while the app runs, and this process's own live streams are safe from its peers. With
    ``settings.redis_url``, ``ctx.pubsub`` becomes a ``RedisPubSub``. A store the context already
    has is used as it is and left open."""
    settings = ctx.settings
    async with contextlib.AsyncExitStack() as stack:
        if settings.redis_url:
            from turnwire.conversations.redis_pubsub import RedisPubSub

            pubsub = RedisPubSub(settings.redis_url)
            await pubsub.start()
            stack.push_async_callback(pubsub.close)
            ctx.pubsub = pubsub
        if ctx.store is not None:
            _use_spans(ctx, stack)
            stack.push_async_callback(ctx.stop_turns)
            yield
            return
        store = SqlStore(settings.db_url or default_db_url())
        await store.open()
        stack.push_async_callback(store.close)
        lease = WriterLease(store, lease_seconds=settings.writer_lease_seconds or DEFAULT_LEASE_SECONDS)
        recovered = await lease.start()
        stack.push_async_callback(lease.stop)
        if recovered:
            count = sum(len(ids) for ids in recovered.values())
            log.warning("marked %d message(s) left streaming by a stopped server as interrupted", count)
        ctx.store = store if ctx.observe is None else ctx.observe.timed_store(store)
        _use_spans(ctx, stack)
        # Closed first (last in): running turns end and store their replies while the store is open.
        stack.push_async_callback(ctx.stop_turns)
        try:
            yield
        finally:
            ctx.store = None


def _use_spans(ctx: AppContext, stack: contextlib.AsyncExitStack) -> None:
    """Keep ``/spans`` and the turns' spans in the store; written out before it closes (after the
    running turns ended and queued theirs)."""
    ctx.spans = book_for(ctx.store)
    if ctx.observe is not None:
        ctx.observe.use_spans(ctx.spans)
    stack.push_async_callback(ctx.spans.close)


def _turn_logs(pubsub: PubSub) -> Any:
    """Turn logs every worker can read, when the pub/sub is Redis (else ``None``: this process)."""
    client = getattr(pubsub, "client", None)
    if client is None:
        return None
    from turnwire.conversations.redis_turnlogs import RedisTurnLogs

    return RedisTurnLogs(client)


def current(request: Request) -> AppContext:
    """The context of the router that matched ``request``."""
    ctx: Any = getattr(request.state, _STATE_KEY, None)
    if ctx is None:
        raise RuntimeError("a turnwire route was mounted without its AppContext (use create_router)")
    return ctx


ContextDep = Annotated[AppContext, Depends(current)]
