"""Finding agents by name: ``module:attribute`` specs and the built-in agents."""

from __future__ import annotations

import functools
import importlib
import inspect
from typing import Any, Final

from turnwire.errors import TurnwireError
from turnwire.runtime import Agent

A2A_SCHEME: Final = "a2a"
"""``a2a:URL`` names a remote A2A agent, not a module called ``a2a``."""


class AgentLoadError(TurnwireError, ValueError):
    """An agent spec that does not name a usable agent; the message says what is wrong."""


def builtin_agents() -> dict[str, Agent]:
    """The agents that ship with turnwire, by name (a fresh dict each call)."""
    from turnwire.agents.demo import demo_agent

    return {"demo": demo_agent}


def _adapt(target: object) -> Agent | None:
    """A turnwire agent for an agent object of a supported framework (a ``pydantic_ai.Agent``, an
    OpenAI Agents SDK ``agents.Agent``, a compiled LangGraph graph), else ``None``.

    A framework is only looked at when something already imported it, so the base install never
    needs it.
    """
    from turnwire.agents.frameworks import framework_of

    framework = framework_of(target)
    if framework == "pydantic-ai":
        from turnwire.agents.pydantic_ai import pydantic_ai_agent

        return pydantic_ai_agent(target)  # type: ignore[arg-type]
    if framework == "openai-agents":
        from turnwire.agents.openai_agents import openai_agents_agent

        return openai_agents_agent(target)  # type: ignore[arg-type]
    if framework == "langgraph":
        from turnwire.agents.langgraph import langgraph_agent

        return langgraph_agent(target)
    return None


def as_agent(target: object, where: str) -> Agent:
    """``target`` as a turnwire agent: a framework's agent object wrapped by its adapter, an agent
    as it is. Anything else raises ``AgentLoadError`` ("``where`` names ...") saying what it is and
    which adapter serves which kind of agent, so a mistake fails at start, not on every turn."""
    wrapped = _adapt(target)
    if wrapped is not None:
        return wrapped
    from turnwire.agents.frameworks import ADAPTERS, near_miss

    problem = near_miss(target) or agent_problem(target)
    if problem is not None:
        raise AgentLoadError(f"{where} names {problem} ({ADAPTERS})")
    return target  # type: ignore[return-value]


def load_agent(spec: str) -> Agent:
    """The agent named by ``spec``: ``package.module:attribute`` (the attribute may be dotted,
    ``module:Class.method``), ``a2a:URL`` (a remote A2A agent: its card's URL or the base URL it is
    under) or the name of a built-in agent (``demo``). A framework's agent object
    (``pydantic_ai.Agent``, ``agents.Agent``, a compiled LangGraph graph) is wrapped by its adapter.

    Raises ``AgentLoadError`` with a message naming the spec and the problem when the module
    cannot be imported, the attribute is missing, or the object is not a callable agent.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise AgentLoadError("agent spec is empty; expected 'module:attribute', e.g. 'my_app.agents:chat'")
    spec = spec.strip()
    scheme, _, rest = spec.partition(":")
    if scheme.strip() == A2A_SCHEME:
        return _remote_a2a(spec, rest.strip())
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
    return as_agent(target, f"agent spec {spec!r}")


def _remote_a2a(spec: str, url: str) -> Agent:
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise AgentLoadError(
            f"agent spec {spec!r}: {url!r} is not an http(s) URL; expected "
            "'a2a:https://host/.well-known/agent-card.json' or 'a2a:https://host'"
        )
    from turnwire.agents.a2a import a2a_agent

    return a2a_agent(url)


_ASYNC_ITERATOR_RETURNS: Final = frozenset(
    {"AsyncIterator", "AsyncIterable", "AsyncGenerator", "typing.AsyncIterator", "typing.AsyncIterable"}
)


def agent_problem(obj: object) -> str | None:
    """Why ``obj`` cannot be an agent, or ``None`` when it can. Decided without calling it.

    An agent is one of:
    - an async generator function (``async def f(ctx): ... yield event``), also a method or a
      ``functools.partial`` of one;
    - an object whose ``__call__`` is an async generator method;
    - any other callable whose return annotation says it returns an async iterator
      (``-> AsyncIterator[Event]``, ``AsyncIterable``, ``AsyncGenerator``), e.g. a plain function
      that returns another agent's generator.
    Everything else (``json:dumps``, ``os:system``, a class, an ``async def`` without ``yield``) is
    refused at start, so a mistake never surfaces as a failure of every request.
    """
    if not callable(obj):
        return f"a value of type {type(obj).__name__}, not a callable agent"
    target: Any = obj
    while isinstance(target, functools.partial):
        target = target.func
    if inspect.isasyncgenfunction(target):
        return None
    if inspect.iscoroutinefunction(target):
        return (
            "an async function without yield; an agent must be an async generator function "
            "(async def ... yield event)"
        )
    if inspect.isclass(target):
        return f"the class {target.__name__}; an agent is a function (or an instance with an async __call__)"
    if not inspect.isroutine(target):
        call = getattr(target, "__call__", None)  # noqa: B004 - the method itself is inspected
        if inspect.isasyncgenfunction(call):
            return None
        target = call
    if _returns_async_iterator(target):
        return None
    kind = "built-in function" if inspect.isbuiltin(target) else type(target).__name__
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or repr(obj)
    return (
        f"{name}, a {kind} that is not an agent: an agent must be an async generator function "
        "(async def f(ctx): ... yield event) or a callable annotated to return AsyncIterator[Event]"
    )


def _returns_async_iterator(func: Any) -> bool:
    try:
        annotation = inspect.signature(func).return_annotation
    except (TypeError, ValueError):
        return False
    if annotation is inspect.Signature.empty:
        return False
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", str(annotation))
    origin = getattr(annotation, "__origin__", None)
    if origin is not None:
        text = f"{getattr(origin, '__name__', origin)}"
    base = str(text).split("[", 1)[0].strip()
    return base in _ASYNC_ITERATOR_RETURNS or base.rsplit(".", 1)[-1] in _ASYNC_ITERATOR_RETURNS
