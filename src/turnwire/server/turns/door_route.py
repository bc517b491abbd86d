"""``DoorRoute``: a FastAPI route that serves its requests without FastAPI's request handler.

A turn door's endpoint takes the ``Request`` and plain string path parameters and returns a
``Response`` it built itself; its one dependency is the ``AppContext`` key check
(``AppContext.bind``). FastAPI's handler still solves that dependency, extracts and validates the
path parameters and wraps the call in two exit stacks on every request: several times the cost of
the route's own work before a turn starts. A ``DoorRoute`` keeps everything FastAPI knows about the
route — its OpenAPI operation, tags, responses, inclusion in other routers — and answers with a
lean handler that runs the key check in plain code and calls the endpoint.

The lean handler is used only when it is provably the same: the dependencies (the route's and
every including router's) are exactly one ``AppContext.bind``, the endpoint declares no query,
header, cookie or body parameter, every path parameter is a plain ``str``, and no dependency
override is registered. Anything else (a router included with its own dependencies, an override
in tests) gets FastAPI's handler, unchanged.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import fastapi.routing as fastapi_routing
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from turnwire.server.context import AppContext

Handler = Callable[[Request], Coroutine[Any, Any, Response]]

# FastAPI 0.13x+ keeps an included route as it is and builds its handler per request for the
# including router's context (its dependencies added), published in this context variable. Older
# versions copy the route with the combined dependencies instead (the copy's own ``dependant``).
_EFFECTIVE = getattr(fastapi_routing, "_effective_route_context_var", None)
_LAZY_INCLUDE = hasattr(fastapi_routing, "_RouterIncludeContext")


class DoorRoute(APIRoute):
    """An ``APIRoute`` answered by a lean handler when that is provably equivalent (see module)."""

    _lean_for: tuple[Any, Handler | None] | None = None
    """The last (dependant, lean handler or None) worked out: FastAPI builds an included route's
    handler again on every request, from the same included-route context."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        super().__init__(path, endpoint, **kwargs)
        lean = self._lean(self)  # the route as it stands: served directly (not included)
        if lean is not None:
            self.app = _asgi(lean)

    def get_route_handler(self) -> Handler:
        lean = self._lean(_effective_route(self))
        return lean if lean is not None else super().get_route_handler()

    def _lean(self, route: Any) -> Handler | None:
        dependant = getattr(route, "dependant", None)
        provider = getattr(route, "dependency_overrides_provider", None)
        if dependant is None or getattr(provider, "dependency_overrides", None):
            return None
        if getattr(route, "max_body_size", None) is not None:  # FastAPI's body limit wrapper
            return None
        known = self._lean_for
        if known is not None and known[0] is dependant:
            return known[1]
        lean = _lean_handler(route, self)
        self._lean_for = (dependant, lean)
        return lean

    def fastapi_handler(self, route: Any) -> Handler:
        """FastAPI's own handler for ``route`` (this route, or its included-route context): for a
        dependency override that appeared after the lean handler was built."""
        if route is self or _EFFECTIVE is None:
            return super().get_route_handler()
        token = _EFFECTIVE.set(route)
        try:
            return super().get_route_handler()
        finally:
            _EFFECTIVE.reset(token)


def _effective_route(route: APIRoute) -> Any:
    """What FastAPI builds this route's handler from: the including router's context for an
    included route, else the route; ``None`` when that cannot be told (never lean then)."""
    if _EFFECTIVE is not None:
        context = _EFFECTIVE.get(None)
        if context is not None and getattr(context, "original_route", None) is route:
            return context
        return route
    return None if _LAZY_INCLUDE else route


def _lean_handler(route: Any, door: DoorRoute) -> Handler | None:
    """The lean handler for ``route`` (``door`` or FastAPI's included-route context of it), or
    ``None`` if FastAPI's handler could behave differently."""
    dependant = route.dependant
    provider = route.dependency_overrides_provider
    if dependant.query_params or dependant.header_params or dependant.cookie_params:
        return None
    if dependant.body_params or route.body_field is not None or not dependant.request_param_name:
        return None
    others = (
        dependant.websocket_param_name,
        dependant.http_connection_param_name,
        dependant.response_param_name,
        dependant.background_tasks_param_name,
        dependant.security_scopes_param_name,
    )
    if any(others):
        return None
    path_params = []
    for field in dependant.path_params:
        if getattr(field, "field_info", None) is None or field.field_info.annotation is not str:
            return None
        if getattr(field, "alias", field.name) != field.name:
            return None
        path_params.append(field.name)
    if len(dependant.dependencies) != 1:
        return None
    bind = dependant.dependencies[0].call
    ctx = getattr(bind, "__self__", None)
    if not isinstance(ctx, AppContext) or getattr(bind, "__func__", None) is not AppContext.bind:
        return None
    endpoint, request_name = dependant.call, dependant.request_param_name
    fallback = lambda: door.fastapi_handler(route)  # noqa: E731
    return _handler(ctx, endpoint, request_name, tuple(path_params), provider, fallback)


def _handler(
    ctx: AppContext,
    endpoint: Any,
    request_name: str,
    path_params: tuple[str, ...],
    provider: Any,
    fastapi_handler: Callable[[], Handler],
) -> Handler:
    bind = ctx.bind

    async def handle(request: Request) -> Response:
        if provider is not None and provider.dependency_overrides:  # overridden since: FastAPI's way
            return await fastapi_handler()(request)
        await bind(request)  # the key check: Unauthorized (401) as the dependency raised it
        kwargs: dict[str, Any] = {request_name: request}
        if path_params:
            found = request.path_params
            for name in path_params:
                kwargs[name] = found[name]
        response: Response = await endpoint(**kwargs)
        return response

    return handle


def _asgi(handle: Handler) -> Callable[[Scope, Receive, Send], Awaitable[None]]:
    """The route's ASGI app: no exit stacks (no dependency with ``yield``), no exception wrapper
    (an error raised here reaches the app's exception middleware, which has the same handlers)."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        response = await handle(Request(scope, receive, send))
        await response(scope, receive, send)

    return app
