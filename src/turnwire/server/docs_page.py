"""``GET /docs``: Swagger UI for the app's OpenAPI document, from files turnwire ships.

FastAPI's own ``/docs`` loads Swagger UI from a CDN, so it is blank on a machine without internet.
This one serves the same page with its script, stylesheet and icon from ``swagger/`` next to this
module (the npm package ``swagger-ui-dist``, copied by ``web/vendor-docs.mjs``), under
``/docs/assets/``. Every URL is relative to where the app is mounted.
"""

from __future__ import annotations

from typing import Final

from fastapi import APIRouter, Request
from fastapi.openapi.docs import get_swagger_ui_html
from starlette.responses import Response

from turnwire.server.http.errors import json_response
from turnwire.server.http.packaged_files import PackagedFiles

ASSETS: Final = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon-32x32.png": "image/png",
    "THIRD_PARTY.txt": "text/plain; charset=utf-8",
}
# No validator badge: Swagger UI would send the document to validator.swagger.io to draw it.
PARAMETERS: Final = {"validatorUrl": None}


_FILES: Final = PackagedFiles("turnwire.server", "swagger", ASSETS, {"cache-control": "no-cache"})


def _root(request: Request) -> str:
    """The app's mount path ("" at the root), from which the page's URLs are made."""
    return str(request.scope.get("root_path", "")).rstrip("/")


def docs_router(openapi_url: str = "/openapi.json") -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/docs")
    async def docs(request: Request) -> Response:
        root = _root(request)
        return get_swagger_ui_html(
            openapi_url=root + openapi_url,
            title="turnwire - API",
            swagger_js_url=f"{root}/docs/assets/swagger-ui-bundle.js",
            swagger_css_url=f"{root}/docs/assets/swagger-ui.css",
            swagger_favicon_url=f"{root}/docs/assets/favicon-32x32.png",
            swagger_ui_parameters=PARAMETERS,
        )

    @router.api_route("/docs/assets/{name}", methods=["GET", "HEAD"])
    async def asset(name: str, request: Request) -> Response:
        response = _FILES.response(name, request)
        if response is None:
            return json_response({"detail": f"No docs asset named {name!r}"}, 404)
        return response

    return router
