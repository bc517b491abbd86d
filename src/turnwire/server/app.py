"""The FastAPI application: every turnwire route on one router bound to one ``AppContext``."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, FastAPI

from turnwire.observability import observer_for
from turnwire.runtime import Agent
from turnwire.server.context import AppContext
from turnwire.server.docs_page import docs_router
from turnwire.server.doors import agentex
from turnwire.server.doors.a2a.routes import a2a_router
from turnwire.server.doors.agenta.catalog import catalog_router
from turnwire.server.doors.agenta.routes import EXTRA_SCHEMAS, invoke_router
from turnwire.server.doors.agentex.conversation import router as conversations_router
from turnwire.server.doors.agentex.conversation_list import router as conversation_list_router
from turnwire.server.doors.agentex.task_stream import router as task_stream_router
from turnwire.server.doors.agui.routes import agui_router
from turnwire.server.doors.openai.routes import openai_router
from turnwire.server.doors.responses.routes import responses_router
from turnwire.server.doors.vercel.routes import chat_router
from turnwire.server.http.cors import install_browser_policy
from turnwire.server.http.errors import install_error_handlers
from turnwire.server.http.models import Health
from turnwire.server.http.readiness import readiness
from turnwire.server.http.request_id import RequestIdMiddleware
from turnwire.server.lifespan import app_lifespan
from turnwire.server.page import page_router
from turnwire.server.settings import Settings

DEMO = "demo"


def app_context(
    agents: dict[str, Agent] | None = None,
    *,
    default_agent: str | None = None,
    settings: Settings | None = None,
) -> AppContext:
    """The context an app serves: ``agents`` (default: the built-in ones), the default agent
    (default: ``demo`` if served, else the first agent) and the settings (default: from
    ``TURNWIRE_*`` variables). A ``default_agent`` that is not among the agents, or an agent that is
    none (``AgentLoadError``), is a ``ValueError``.
    """
    if agents is None:
        from turnwire.agents import builtin_agents

        agents = builtin_agents()
    from turnwire.agents.loader import as_agent

    # A framework's agent is wrapped by its adapter; anything else that is no agent fails here, at start.
    adapted = {name: as_agent(agent, f"agents[{name!r}]") for name, agent in agents.items()}
    if any(adapted[name] is not agent for name, agent in agents.items()):
        agents = adapted
    if default_agent is None:
        default_agent = DEMO if DEMO in agents or not agents else next(iter(agents))
    elif agents and default_agent not in agents:
        known = ", ".join(sorted(agents))
        raise ValueError(f"default_agent {default_agent!r} is not among the agents ({known})")
    settings = settings or Settings.from_env()
    context = AppContext(agents=agents, default_agent=default_agent, settings=settings)
    context.observe = observer_for(settings)
    return context


def create_router(
    agents: dict[str, Agent] | None = None,
    *,
    default_agent: str | None = None,
    settings: Settings | None = None,
    context: AppContext | None = None,
) -> APIRouter:
    """Every turnwire HTTP route on one router, to mount in your own FastAPI app.

    The routes read everything from one ``AppContext`` (``context``, or one built by
    ``app_context``), so the settings given here apply to every route. Conversations are stored
    once the context has a store: run ``async with context.running():`` in your app's lifespan
    (``create_app`` does). Call ``install_error_handlers(app)`` for JSON errors on your routes too.
    """
    ctx = context or app_context(agents, default_agent=default_agent, settings=settings)
    router = APIRouter()
    # The one route without the context's key check: a load balancer probes it without a key.
    router.add_api_route("/health", health, methods=["GET"], response_model=Health, tags=["health"])
    router.add_api_route(
        "/health/ready",
        readiness(ctx),
        methods=["GET"],
        tags=["health"],
        summary="Readiness: the store and Redis (when configured) answer",
        responses=READY_RESPONSES,
    )
    bound = [Depends(ctx.bind)]
    # The turn doors: their routes made with the key check and put on this router as they are.
    # An included route is matched through its included router (FastAPI matches every level
    # twice) and, in FastAPI 0.13x, has its request handler built again on every request.
    for doors in (invoke_router, chat_router, agui_router, openai_router, responses_router, a2a_router):
        router.routes.extend(doors(bound).routes)
    # The rest included once each, with the key check.
    for routes in (
        catalog_router(),
        agentex.router,
        conversations_router,
        task_stream_router,
        conversation_list_router,
    ):
        router.include_router(routes, dependencies=bound)
    if ctx.observe is not None and ctx.observe.metrics is not None and ctx.observe.serve_metrics:
        from turnwire.observability.metrics_route import add_metrics_route

        add_metrics_route(router, ctx.observe.metrics, [] if ctx.settings.metrics_open else bound)
    return router


READY_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"content": {"application/json": {"example": {"status": "ready", "store": "ok", "redis": "ok"}}}},
    503: {
        "description": "A required service is unreachable (`Retry-After` says when to ask again)",
        "content": {"application/json": {"example": {"status": "unavailable", "store": "unreachable"}}},
    },
}


async def health() -> dict[str, str]:
    """Liveness: the process answers HTTP."""
    return {"status": "ok"}


def create_app(
    agents: dict[str, Agent] | None = None,
    *,
    default_agent: str | None = None,
    settings: Settings | None = None,
    context: AppContext | None = None,
) -> FastAPI:
    """A ready-to-serve turnwire app; ``app.state.turnwire`` is its ``AppContext``.

    The app opens the store (and Redis) of its settings at startup. Every response carries an
    ``x-request-id``; cross-origin browser calls are allowed from ``settings.cors_origins`` only.
    It adds no compression middleware: streamed responses must reach the client unbuffered.
    """
    ctx = context or app_context(agents, default_agent=default_agent, settings=settings)
    app = FastAPI(
        title="turnwire",
        version=_version(),
        summary="One agent, every agent-chat wire format.",
        lifespan=app_lifespan(ctx),
        docs_url=None,  # served by docs_router from the package's own files, not a CDN
        redoc_url=None,  # FastAPI's ReDoc loads from a CDN (blank offline): /docs is the one UI
    )
    app.state.turnwire = ctx
    # The router's routes on the app itself, not the router included as one more level to match.
    app.router.routes.extend(create_router(context=ctx).routes)
    app.include_router(page_router(ctx.default_agent))
    app.include_router(docs_router(app.openapi_url or "/openapi.json"))
    install_error_handlers(app)
    install_browser_policy(app, ctx.settings)
    if ctx.observe is not None:
        from turnwire.observability.http import ObservabilityMiddleware

        app.add_middleware(ObservabilityMiddleware, metrics=ctx.observe.metrics)
    app.add_middleware(RequestIdMiddleware)
    _document_extra_schemas(app)
    return app


def _document_extra_schemas(app: FastAPI) -> None:
    """Add models referenced only from ``openapi_extra`` (the invoke body) to the components."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = build()
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for model in EXTRA_SCHEMAS:
            js = model.model_json_schema(ref_template="#/components/schemas/{model}")
            components.update(js.pop("$defs", {}))
            components[model.__name__] = js
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def _version() -> str:
    from turnwire import __version__

    return __version__
