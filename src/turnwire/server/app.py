"""The FastAPI application: invoke, catalog and health routes, JSON errors, an honest OpenAPI."""

from __future__ import annotations

import importlib.util
from typing import Any

from fastapi import APIRouter, FastAPI

from turnwire.pubsub import LocalPubSub
from turnwire.runtime import Agent
from turnwire.server.catalog import catalog_router
from turnwire.server.chat import chat_router
from turnwire.server.errors import install_error_handlers
from turnwire.server.history import router as history_router
from turnwire.server.invoke import EXTRA_SCHEMAS, InvokeConfig, invoke_router
from turnwire.server.lifespan import store_lifespan
from turnwire.server.models import Health
from turnwire.server.settings import Settings
from turnwire.server.task_stream import router as task_stream_router


def create_router(
    agents: dict[str, Agent] | None = None,
    *,
    default_agent: str = "demo",
    settings: Settings | None = None,
) -> APIRouter:
    """Every turnwire HTTP route on one router, to mount in your own FastAPI app.

    ``agents`` defaults to the built-in ones (``demo``); the dict is read on every request, so
    agents added to it later are served. Errors of the invoke routes are answered by the routes
    themselves; call ``install_error_handlers(app)`` for JSON errors on the other routes too.
    """
    return _routes(_config(agents, default_agent, settings))


def _config(agents: dict[str, Agent] | None, default_agent: str, settings: Settings | None) -> InvokeConfig:
    if agents is None:
        from turnwire.agents import builtin_agents

        agents = builtin_agents()
    return InvokeConfig(
        agents=agents,
        default_agent=default_agent,
        settings=settings or Settings.from_env(),
    )


def _routes(config: InvokeConfig) -> APIRouter:
    router = APIRouter()
    router.include_router(invoke_router(config))
    router.include_router(chat_router(config))
    router.include_router(catalog_router())
    router.add_api_route("/health", health, methods=["GET"], response_model=Health, tags=["health"])
    return router


async def health() -> dict[str, str]:
    """Liveness: the process answers HTTP."""
    return {"status": "ok"}


def create_app(
    agents: dict[str, Agent] | None = None,
    *,
    default_agent: str = "demo",
    settings: Settings | None = None,
) -> FastAPI:
    """A ready-to-serve turnwire app. ``app.state.agents`` is the agents dict the routes serve.

    Settings default to ``Settings.from_env()`` (``TURNWIRE_*`` variables). The app adds no
    compression middleware: streamed responses must reach the client unbuffered.
    """
    app = FastAPI(
        title="turnwire",
        version=_version(),
        summary="One agent, every agent-chat wire format.",
        lifespan=store_lifespan,
    )
    config = _config(agents, default_agent, settings)
    app.state.agents = config.agents
    app.state.default_agent = config.default_agent
    app.state.settings = config.settings
    app.state.pubsub = LocalPubSub()
    app.include_router(_routes(config))
    _include_agentex(app)
    app.include_router(history_router)
    app.include_router(task_stream_router)
    install_error_handlers(app)
    _document_extra_schemas(app)
    return app


def _include_agentex(app: FastAPI) -> None:
    """Mount the Agentex API when its package is present (it is built separately)."""
    if importlib.util.find_spec("turnwire.server.agentex") is None:
        return
    module = importlib.import_module("turnwire.server.agentex")
    router = getattr(module, "router", None)
    if isinstance(router, APIRouter):
        app.include_router(router)


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
