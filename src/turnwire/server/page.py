"""``GET /``: the chat page, and its bundled assets under ``/page/``.

The page is built from ``web/`` (``make page``) into ``static/`` next to this module, which ships in
the wheel: no CDN and no network at run time. It talks to ``/chat`` through the AI SDK's own chat
class. Every URL it uses is relative to a ``<base href>`` filled in here from the request's path, so
the page works wherever the app is mounted (``app.mount("/x", create_app())`` serves it at ``/x/``).
"""

from __future__ import annotations

import functools
import hashlib
import html
from typing import Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.server.http.errors import json_response
from turnwire.server.http.packaged_files import PackagedFiles

ASSETS: Final = {
    "page.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
    "THIRD_PARTY.txt": "text/plain; charset=utf-8",
}
"""The files served under ``/page/``: the bundle, its stylesheet and the licences of what it bundles."""

# Model output is rendered as text by the page; the policy is a second wall should that ever fail:
# scripts and styles only from this server, images only inline (a remote image in a reply could
# report the conversation to its host), requests only back to this server.
CONTENT_SECURITY_POLICY: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; base-uri 'self'; form-action 'none'; frame-ancestors 'none'"
)
_HEADERS: Final = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-cache",
}


_FILES: Final = PackagedFiles("turnwire.server", "static", ASSETS, _HEADERS)


def _static(name: str) -> bytes:
    return _FILES.read(name)


@functools.cache
def _version() -> str:
    """Changes whenever an asset does, so a browser never mixes an old bundle with a new page."""
    digest = hashlib.sha256()
    for name in ASSETS:
        digest.update(_static(name))
    return digest.hexdigest()[:16]


def _base_path(request: Request) -> str:
    """The path the page is served at, ending in ``/``: the root every relative URL hangs off."""
    path = request.scope.get("path", "/")
    root = request.scope.get("root_path", "")
    if root and not path.startswith(root):
        path = root + path  # a proxy that stripped the prefix and told us with root_path
    return path if path.endswith("/") else path + "/"


def render_index(base: str, default_agent: str) -> str:
    """``index.html`` with its placeholders filled (every value HTML-escaped)."""
    template = _static("index.html").decode()
    values = {"base": base, "default_agent": default_agent, "version": _version()}
    for key, value in values.items():
        template = template.replace("{{" + key + "}}", html.escape(value, quote=True))
    return template


def page_router(default_agent: str = "demo") -> APIRouter:
    """``GET /`` (the page) and ``GET /page/{name}`` (its assets); no key is needed to load them."""
    router = APIRouter(tags=["page"])

    @router.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    async def index(request: Request) -> Response:
        body = render_index(_base_path(request), default_agent)
        return Response(body, media_type="text/html; charset=utf-8", headers=_HEADERS)

    @router.api_route("/page/{name}", methods=["GET", "HEAD"], include_in_schema=False)
    async def asset(name: str, request: Request) -> Response:
        response = _FILES.response(name, request)
        if response is None:
            return json_response({"detail": f"No page asset named {name!r}"}, 404)
        return response

    return router
