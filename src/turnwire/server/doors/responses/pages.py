"""A page of items as the list routes answer it: ``order`` (``desc`` by default, as the API),
``limit`` (1-100, default 20), ``after`` (an item id)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from turnwire.server.http.errors import RequestError


def _limit(request: Request) -> int:
    raw = request.query_params.get("limit")
    if raw is None:
        return 20
    if not raw.isdigit() or not 1 <= int(raw) <= 100:
        raise RequestError.at(
            400, "limit must be an integer from 1 to 100", ("query", "limit"), "invalid_limit"
        )
    return int(raw)


def page(items: list[dict[str, Any]], request: Request, order: str | None = None) -> dict[str, Any]:
    order = order or request.query_params.get("order", "desc")
    if order not in ("asc", "desc"):
        raise RequestError.at(400, "order must be 'asc' or 'desc'", ("query", "order"), "invalid_order")
    items = list(items)
    if order == "desc":
        items.reverse()
    after = request.query_params.get("after")
    if after:
        ids = [i.get("id") for i in items]
        items = items[ids.index(after) + 1 :] if after in ids else []
    limit = _limit(request)
    chosen = items[:limit]
    return {
        "object": "list",
        "data": chosen,
        "first_id": chosen[0].get("id") if chosen else None,
        "last_id": chosen[-1].get("id") if chosen else None,
        "has_more": len(items) > limit,
    }
