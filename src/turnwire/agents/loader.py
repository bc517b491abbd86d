"""Finding agents by name: ``module:attribute`` specs and the built-in agents."""

from __future__ import annotations

import importlib
import inspect

from turnwire.errors import TurnwireError
from turnwire.runtime import Agent


class AgentLoadError(TurnwireError, ValueError):
    """An agent spec that does not name a usable agent; the message says what is wrong."""


def builtin_agents() -> dict[str, Agent]:
    """The agents that ship with turnwire, by name (a fresh dict each call)."""
    from turnwire.agents.demo import demo_agent

    return {"demo": demo_agent}


def load_agent(spec: str) -> Agent:
    """The agent named by ``spec``: ``package.module:attribute`` (the attribute may be dotted,
    ``module:Class.method``) or the name of a built-in agent (``demo``).

    Raises ``AgentLoadError`` with a message naming the spec and the problem when the module
    cannot be imported, the attribute is missing, or the object is not a callable agent.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise AgentLoadError("agent spec is empty; expected 'module:attribute', e.g. 'my_app.agents:chat'")
    spec = spec.strip()
    if ":" not in spec:
        builtins = builtin_agents()
        if spec in builtins:
            return builtins[spec]
        raise AgentLoadError(
            f"agent spec {spec!r} is neither 'module:attribute' nor a built-in agent "
            f"({', '.join(sorted(builtins))})"
        )
    module_name, _, attr_path = spec.partition(":")
    module_name, attr_path = module_name.strip(), attr_path.strip()
    if not module_name or not attr_path:
        raise AgentLoadError(f"agent spec {spec!r} must look like 'module:attribute'")
    try:
        target: object = importlib.import_module(module_name)
    except Exception as exc:  # the module's own import-time failure, whatever its type
        raise AgentLoadError(
            f"agent spec {spec!r}: cannot import module {module_name!r}: {type(exc).__name__}: {exc}"
        ) from exc
    for part in attr_path.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise AgentLoadError(
                f"agent spec {spec!r}: {module_name!r} has no attribute {attr_path!r}"
            ) from None
    if not callable(target):
        raise AgentLoadError(
            f"agent spec {spec!r} names a value of type {type(target).__name__}, not a callable agent"
        )
    if inspect.iscoroutinefunction(target):
        raise AgentLoadError(
            f"agent spec {spec!r} names an async function without yield; an agent must be an "
            "async generator function (async def ... yield event)"
        )
    return target  # type: ignore[return-value]
