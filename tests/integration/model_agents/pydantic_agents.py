"""pydantic-ai agents on offline models (filled in with the pydantic-ai adapter)."""

from __future__ import annotations

from typing import Any


def pydantic_agents() -> dict[str, Any]:
    return {}
