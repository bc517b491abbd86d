"""Python functions as model tools: a JSON schema from type hints and docstrings, validated calls.

``tool(fn)`` (or ``@tool(requires_approval=True)``) wraps a sync or async function. The schema's
properties come from the parameters' type hints (through pydantic), the description from the
docstring's first paragraph, and each parameter's description from a Google-style ``Args:`` section.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, overload

import orjson
import pydantic

from turnwire.model import InteractionKind, InteractionRequest, ToolCall

_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$")
_ARG_LINE = re.compile(r"^\s*(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SECTION = re.compile(r"^\s*\w[\w ]*:\s*$")


class ToolInputError(ValueError):
    """The model's arguments do not fit the tool's parameters; the message says which."""


@dataclass(frozen=True, slots=True, eq=False)
class Tool:
    """A function the model may call. ``parameters`` is a JSON schema (an object)."""

    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., Any]
    requires_approval: bool = False
    _model: type[pydantic.BaseModel] | None = None

    def definition(self) -> dict[str, Any]:
        """The Chat Completions ``tools[]`` entry."""
        function: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description:
            function["description"] = self.description
        return {"type": "function", "function": function}

    def arguments(self, raw: Any) -> dict[str, Any]:
        """``raw`` (parsed JSON) validated and coerced to keyword arguments; ``ToolInputError`` if not."""
        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise ToolInputError(f"the arguments of {self.name} must be a JSON object")
        if self._model is None:
            return raw
        try:
            validated = self._model.model_validate(raw)
        except pydantic.ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
            )
            raise ToolInputError(f"invalid arguments for {self.name}: {problems}") from None
        return {name: getattr(validated, name) for name in type(validated).model_fields}

    async def call(self, raw: Any) -> Any:
        """Run the tool on ``raw`` arguments: async functions awaited, sync ones in a worker thread."""
        kwargs = self.arguments(raw)
        if inspect.iscoroutinefunction(self.function):
            return await self.function(**kwargs)
        result = await asyncio.to_thread(self.function, **kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result


def _docstring(fn: Callable[..., Any]) -> tuple[str, dict[str, str]]:
    """The description (the docstring's first paragraph) and each ``Args:`` entry's text."""
    lines = (inspect.getdoc(fn) or "").splitlines()
    summary: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line):
            break
        summary.append(line.strip())
    params: dict[str, str] = {}
    current: str | None = None
    indent: int | None = None
    in_args = False
    for line in lines:
        if _ARGS_HEADER.match(line):
            in_args, current, indent = True, None, None
            continue
        if not in_args or not line.strip():
            continue
        depth = len(line) - len(line.lstrip())
        if depth == 0:  # the next section
            in_args = False
            continue
        match = _ARG_LINE.match(line)
        if match and (indent is None or depth <= indent):
            indent = depth
            current = match[1].lstrip("*")
            params[current] = match[2].strip()
        elif current is not None:
            params[current] = (params[current] + " " + line.strip()).strip()
    return " ".join(summary), params


def _schema(fn: Callable[..., Any], name: str, described: dict[str, str]) -> type[pydantic.BaseModel]:
    hints = inspect.get_annotations(fn, eval_str=True)
    fields: dict[str, Any] = {}
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, pydantic.Field(default, description=described.get(param.name)))
    return pydantic.create_model(f"{name}_arguments", **fields)


def _build(
    fn: Callable[..., Any], name: str | None, description: str | None, requires_approval: bool
) -> Tool:
    summary, described = _docstring(fn)
    tool_name = name or fn.__name__
    model = _schema(fn, tool_name, described)
    schema = model.model_json_schema()
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        if isinstance(prop, dict):
            prop.pop("title", None)
    schema.setdefault("properties", {})
    return Tool(
        name=tool_name,
        description=description if description is not None else summary,
        parameters=schema,
        function=fn,
        requires_approval=requires_approval,
        _model=model,
    )


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    *, name: str | None = None, description: str | None = None, requires_approval: bool = False
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    requires_approval: bool = False,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Make ``fn`` a model tool; use bare (``@tool``) or with options (``@tool(requires_approval=True)``).

    ``requires_approval``: the agent pauses the turn and asks the user before each call runs.
    """
    if fn is not None:
        return _build(fn, name, description, requires_approval)
    return lambda f: _build(f, name, description, requires_approval)


def as_tools(tools: Iterable[Tool | Callable[..., Any]]) -> dict[str, Tool]:
    """Tools by name; plain functions are wrapped with ``tool()``. Raises on a repeated name."""
    out: dict[str, Tool] = {}
    for item in tools:
        built = item if isinstance(item, Tool) else tool(item)
        if built.name in out:
            raise ValueError(f"two tools are named {built.name!r}")
        out[built.name] = built
    return out


def result_text(value: Any) -> str:
    """What the model reads back from a tool: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, pydantic.BaseModel):
        value = value.model_dump(mode="json")
    return orjson.dumps(value, default=str).decode()


def approval_request(call: ToolCall) -> InteractionRequest:
    """The approval a gated call asks for (the server replaces the id with a signed token)."""
    return InteractionRequest(
        id=f"approve_{call.id}",
        kind=InteractionKind.USER_APPROVAL,
        payload={
            "toolCallId": call.id,
            "toolName": call.name,
            "toolCall": {"toolCallId": call.id, "name": call.name, "rawInput": call.input},
        },
    )
