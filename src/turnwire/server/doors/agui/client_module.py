"""``GET /agui/client.js``: the ES module of ``ReconnectingHttpAgent``, an ``@ag-ui/client``
``HttpAgent`` whose ``connect()`` uses ``GET /agui/threads/{threadId}/connect`` (``connect``).

Its source is ``web/agui/reconnecting-agent.js``; the copy served ships in the package beside
this module (a test keeps the two the same byte for byte). The module imports ``@ag-ui/client``
by its bare name: an app's bundler (or an import map) resolves it to the app's own copy.
"""

from __future__ import annotations

from typing import Final

from fastapi import APIRouter, Request
from starlette.responses import Response

from turnwire.server.http.packaged_files import PackagedFiles

MODULE_FILE: Final = "reconnecting-agent.js"
_HEADERS: Final = {"cache-control": "no-cache", "x-content-type-options": "nosniff"}


_FILES: Final = PackagedFiles(
    "turnwire.server.doors.agui", "", {MODULE_FILE: "text/javascript; charset=utf-8"}, _HEADERS
)


def module_source() -> bytes:
    return _FILES.read(MODULE_FILE)


async def client_module(request: Request) -> Response:
    response = _FILES.response(MODULE_FILE, request)
    assert response is not None  # the one file it serves
    return response


def add_client_route(router: APIRouter) -> None:
    router.add_api_route(
        "/agui/client.js",
        client_module,
        methods=["GET"],
        summary="The ES module of ReconnectingHttpAgent (an HttpAgent with connect())",
        responses={200: {"content": {"text/javascript": {}}, "description": "An ES module"}},
    )
