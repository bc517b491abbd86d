"""RFC 6902 JSON Patch applied to a JSON value (``StateDelta`` on a ``StateSnapshot``'s state), and
the RFC 6901 pointers it addresses parts by. What an AG-UI client does with ``STATE_DELTA``
(``fast-json-patch``'s ``applyPatch``), so the state turnwire keeps is the one the client holds."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any


class PatchError(ValueError):
    """An operation that cannot be applied: the message says which and why."""


def apply_patch(document: Any, operations: Sequence[Any]) -> Any:
    """``document`` with ``operations`` applied in order (the input is not changed). Raises
    ``PatchError`` for a malformed operation, a path that does not exist, or a failed ``test``:
    a patch applies whole or not at all."""
    doc = copy.deepcopy(document)
    for i, op in enumerate(operations):
        if (
            not isinstance(op, dict)
            or not isinstance(op.get("op"), str)
            or not isinstance(op.get("path"), str)
        ):
            raise PatchError(f"operation {i} must be an object with string op and path")
        try:
            doc = _apply(doc, op)
        except PatchError as exc:
            raise PatchError(f"operation {i} ({op['op']} {op['path']}): {exc}") from None
    return doc


def _tokens(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise PatchError("a path is empty or starts with '/'")
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]


def _index(container: list[Any], token: str, *, end_ok: bool) -> int:
    if token == "-" and end_ok:
        return len(container)
    if not token.isdigit() or (token != "0" and token.startswith("0")):
        raise PatchError(f"{token!r} is no array index")
    n = int(token)
    if n > len(container) or (n == len(container) and not end_ok):
        raise PatchError(f"index {n} is out of range")
    return n


def _parent(doc: Any, tokens: list[str]) -> Any:
    node = doc
    for token in tokens[:-1]:
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list):
            node = node[_index(node, token, end_ok=False)]
        else:
            raise PatchError("the path does not exist")
    return node


def _get(doc: Any, pointer: str) -> Any:
    tokens = _tokens(pointer)
    if not tokens:
        return doc
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, dict) and last in parent:
        return parent[last]
    if isinstance(parent, list):
        return parent[_index(parent, last, end_ok=False)]
    raise PatchError("the path does not exist")


def _add(doc: Any, pointer: str, value: Any) -> Any:
    tokens = _tokens(pointer)
    if not tokens:
        return value
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, dict):
        parent[last] = value
    elif isinstance(parent, list):
        parent.insert(_index(parent, last, end_ok=True), value)
    else:
        raise PatchError("the parent is no object or array")
    return doc


def _remove(doc: Any, pointer: str) -> tuple[Any, Any]:
    tokens = _tokens(pointer)
    if not tokens:
        raise PatchError("the whole document cannot be removed")
    parent, last = _parent(doc, tokens), tokens[-1]
    if isinstance(parent, dict) and last in parent:
        return doc, parent.pop(last)
    if isinstance(parent, list):
        return doc, parent.pop(_index(parent, last, end_ok=False))
    raise PatchError("the path does not exist")


def _apply(doc: Any, op: dict[str, Any]) -> Any:
    kind, path = op["op"], op["path"]
    if kind in ("add", "replace", "test") and "value" not in op:
        raise PatchError("value is missing")
    if kind in ("move", "copy") and not isinstance(op.get("from"), str):
        raise PatchError("from is missing")
    if kind == "add":
        return _add(doc, path, copy.deepcopy(op["value"]))
    if kind == "remove":
        return _remove(doc, path)[0]
    if kind == "replace":
        _get(doc, path)  # it must exist
        if not _tokens(path):
            return copy.deepcopy(op["value"])
        doc, _ = _remove(doc, path)
        return _add(doc, path, copy.deepcopy(op["value"]))
    if kind == "move":
        if path.startswith(op["from"] + "/"):
            raise PatchError("a value cannot move into itself")
        doc, value = _remove(doc, op["from"])
        return _add(doc, path, value)
    if kind == "copy":
        return _add(doc, path, copy.deepcopy(_get(doc, op["from"])))
    if kind == "test":
        if _get(doc, path) != op["value"]:
            raise PatchError("the value differs")
        return doc
    raise PatchError(f"unknown op {kind!r}")
