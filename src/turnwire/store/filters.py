"""Message filters of the Agentex list routes, validated, then compiled to SQL.

A filter is ``{content?: partial content, streaming_status?, exclude: bool}``; the partial
content flattens to path equalities (``{"data": {"type": "x"}}`` -> ``data.type == "x"``).
Includes are OR'd, excludes are OR'd and negated, the two groups AND'd. Unknown fields are an
error here (the reference silently matched everything).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

import orjson
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql

from turnwire.errors import InputError, Loc
from turnwire.formats.agentex.content import STREAMING_STATUSES
from turnwire.store.limits import MAX_FILTER_DEPTH, MAX_FILTER_PATHS, MAX_FILTERS, check_no_nul

FILTER_FIELDS: Final = frozenset(("content", "streaming_status", "exclude"))
_UNSET: Final = object()


@dataclass(slots=True)
class MessageFilter:
    paths: list[tuple[tuple[str, ...], Any]] = field(default_factory=list)
    streaming_status: Any = _UNSET
    exclude: bool = False


def _flatten(content: dict[str, Any], loc: Loc, out: list[tuple[tuple[str, ...], Any]]) -> None:
    """Path equalities of a partial content; iterative, and refused past ``MAX_FILTER_DEPTH`` levels
    (arrays as values count too) or on an empty or NUL-holding key or value."""
    todo: list[tuple[tuple[str, ...], Any]] = [((), content)]
    while todo:
        prefix, value = todo.pop()
        if isinstance(value, dict) and value:
            if len(prefix) >= MAX_FILTER_DEPTH:
                raise InputError(f"nested deeper than {MAX_FILTER_DEPTH} levels", loc=loc, type="too_deep")
            for key in reversed(value):
                if not key:
                    raise InputError("keys must be non-empty strings", loc=(*loc, *prefix))
                todo.append(((*prefix, key), value[key]))
        elif not isinstance(value, dict):
            if isinstance(value, list) and _depth(value) + len(prefix) > MAX_FILTER_DEPTH:
                raise InputError(f"nested deeper than {MAX_FILTER_DEPTH} levels", loc=loc, type="too_deep")
            out.append((prefix, value))
    check_no_nul(content, loc)


def _depth(value: Any) -> int:
    """Nesting depth of a JSON value (a scalar is 0), counted level by level."""
    depth, level = 0, [value]
    while level:
        level = [
            c for n in level if isinstance(n, list | dict) for c in (n.values() if type(n) is dict else n)
        ]
        depth += 1
        if depth > MAX_FILTER_DEPTH:
            break
    return depth - 1


def parse_filters(raw: str | None) -> list[MessageFilter]:
    """The ``filters`` query string -> filters. Raises ``InputError`` (loc ``("query", "filters", …)``)."""
    if raw is None or raw == "":
        return []
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"Invalid JSON in filters parameter: {exc}", loc=("query", "filters")) from None
    items = data if isinstance(data, list) else [data]
    if len(items) > MAX_FILTERS:
        raise InputError(f"at most {MAX_FILTERS} filters", loc=("query", "filters"), type="too_long")
    out = []
    for i, item in enumerate(items):
        loc = ("query", "filters", i) if isinstance(data, list) else ("query", "filters")
        if not isinstance(item, dict):
            raise InputError("a filter must be an object", loc=loc, type="type")
        unknown = sorted(set(item) - FILTER_FIELDS)
        if unknown:
            raise InputError(
                f"unknown filter field(s) {', '.join(unknown)}; allowed: content, streaming_status, exclude",
                loc=(*loc, unknown[0]),
            )
        f = MessageFilter()
        exclude = item.get("exclude", False)
        if not isinstance(exclude, bool):
            raise InputError("must be a boolean", loc=(*loc, "exclude"), type="type")
        f.exclude = exclude
        if "streaming_status" in item:
            status = item["streaming_status"]
            if status is not None and status not in STREAMING_STATUSES:
                raise InputError("must be 'IN_PROGRESS', 'DONE' or null", loc=(*loc, "streaming_status"))
            f.streaming_status = status
        content = item.get("content")
        if content is not None:
            if not isinstance(content, dict):
                raise InputError("must be an object (a partial content)", loc=(*loc, "content"), type="type")
            _flatten(content, (*loc, "content"), f.paths)
        out.append(f)
    if sum(len(f.paths) for f in out) > MAX_FILTER_PATHS:
        raise InputError(
            f"at most {MAX_FILTER_PATHS} field values in all filters together",
            loc=("query", "filters"),
            type="too_long",
        )
    return out


def jsonb_of(column: sa.ColumnElement) -> sa.ColumnElement:
    """PostgreSQL: a JSON text column as JSONB. JSONB cannot hold NUL, which the stored JSON text
    keeps as the escape ``\\u0000``: it is read as ``\\ufffd`` (the same length and shape, so the
    text stays valid JSON even where the backslash itself was escaped) rather than failing the query."""
    return sa.cast(sa.func.replace(column, "\\u0000", "\\ufffd"), postgresql.JSONB)


def _path_clause(
    column: sa.ColumnElement, dialect: str, path: tuple[str, ...], value: Any
) -> sa.ColumnElement:
    if dialect == "postgresql":
        doc = jsonb_of(column)
        target = sa.cast(sa.literal(orjson.dumps(value).decode()), postgresql.JSONB)
        return doc.op("#>")(sa.cast(sa.literal(list(path)), postgresql.ARRAY(sa.Text))) == target
    json_path = "$" + "".join('."' + p.replace('"', '\\"') + '"' for p in path)
    if isinstance(value, str):
        # ->> yields the SQL text of a JSON string and never equals a number or bool.
        return sa.and_(
            column.op("->>")(json_path) == value,
            sa.func.json_type(column, json_path) == "text",
        )
    return column.op("->")(json_path) == orjson.dumps(value).decode()


def _one(f: MessageFilter, table: sa.Table, dialect: str) -> sa.ColumnElement:
    parts = [_path_clause(table.c.content, dialect, p, v) for p, v in f.paths]
    if f.streaming_status is not _UNSET:
        col = table.c.streaming_status
        parts.append(col.is_(None) if f.streaming_status is None else col == f.streaming_status)
    return sa.and_(sa.true(), *parts)


def filters_clause(filters: list[MessageFilter], table: sa.Table, dialect: str) -> sa.ColumnElement | None:
    """SQL condition for ``filters`` on the messages ``table``; ``None`` when there are none."""
    if not filters:
        return None
    includes = [_one(f, table, dialect) for f in filters if not f.exclude]
    excludes = [_one(f, table, dialect) for f in filters if f.exclude]
    clause = sa.or_(*includes) if includes else sa.true()
    if excludes:
        clause = sa.and_(clause, sa.not_(sa.or_(*excludes)))
    return clause
