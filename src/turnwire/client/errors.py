"""What a client call raises when the server refuses a request."""

from __future__ import annotations

from typing import Any

from turnwire.errors import TurnwireError


class ClientError(TurnwireError):
    """The server answered ``status`` (4xx/5xx); ``detail`` is its JSON ``detail`` when it sent one."""

    def __init__(self, status: int, body: Any) -> None:
        self.status = status
        self.body = body
        self.detail = body.get("detail", body) if isinstance(body, dict) else body
        super().__init__(f"HTTP {status}: {_describe(self.detail)}")


def _describe(detail: Any) -> str:
    if isinstance(detail, list) and detail and isinstance(detail[0], dict):
        first = detail[0]
        loc = ".".join(str(p) for p in first.get("loc", ()))
        return f"{first.get('msg', first)}" + (f" (at {loc})" if loc else "")
    if isinstance(detail, dict) and "message" in detail:
        return str(detail["message"])
    return str(detail)[:500]


def error_body(content: bytes) -> Any:
    import orjson

    try:
        return orjson.loads(content)
    except orjson.JSONDecodeError:
        return content.decode("utf-8", "replace")
