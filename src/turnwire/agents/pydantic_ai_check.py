"""Recognising a ``pydantic_ai.Agent`` without importing pydantic-ai (an optional extra)."""

from __future__ import annotations

import sys


def is_pydantic_ai_agent(value: object) -> bool:
    """Whether ``value`` is a pydantic-ai agent. Only true when pydantic-ai is already imported, which
    it is whenever such an object exists, so this never imports it."""
    for module_name, class_name in (("pydantic_ai.agent", "AbstractAgent"), ("pydantic_ai", "Agent")):
        base = getattr(sys.modules.get(module_name), class_name, None)
        if isinstance(base, type) and isinstance(value, base):
            return True
    return False
