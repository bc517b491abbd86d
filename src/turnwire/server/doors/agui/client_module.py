"""``GET /agui/client.js``: the ES module of ``ReconnectingHttpAgent``, an ``@ag-ui/client``
``HttpAgent`` whose ``connect()`` uses ``GET /agui/threads/{threadId}/connect`` (``connect``).

Its source is ``web/agui/reconnecting-agent.js``; the copy served ships in the package beside
this module (a test keeps the two the same byte for byte). The module imports ``@ag-ui/client``
by its bare name: an app's bundler (or an import map) resolves it to the app's own copy.
"""

from __future__ import annotations

import functools
import hashlib
from importlib import resources
from typing import Final

from fastapi import APIRouter, Request
from starlette.responses import Response

MODULE_FILE: Final = "reconnecting-agent.js"
_HEADERS: Final = {"cache-control": "no-cache", "x-content-type-options": "nosniff"}


@functools.cache
def module_source() -> bytes:
    return resources.files("turnwire.server.doors.agui").joinpath(MODULE_FILE).read_bytes()


@functools.cache
def _etag() -> str:
    return '"' + hashlib.sha256(module_source()).hexdigest()[:32] + '"'


async def client_module(request: Request) -> Response:
    etag = _etag()
    headers = {**_HEADERS, "etag": etag}
    if request.headers.get("if-none-match") == etag:
        return Response(status_code=304, headers=headers)
    return Response(module_source(), media_type="text/javascript; charset=utf-8", headers=headers)


def add_client_route(router: APIRouter) -> None:
    router.add_api_route(
        "/agui/client.js",
        client_module,
        methods=["GET"],
        summary="The ES module of ReconnectingHttpAgent (an HttpAgent with connect())",
        responses={200: {"content": {"text/javascript": {}}, "description": "An ES module"}},
    )
