"""Migration step 6's conversion of an earlier release's rows, case by case (the fixture test in
tests/integration/store_notes covers a whole database)."""

from __future__ import annotations

from typing import Any

import orjson

from turnwire.store.note_migration import convert


def _text(body: str, **extra: Any) -> str:
    return orjson.dumps(
        {"type": "text", "author": "user", "style": "static", "content": body, **extra}
    ).decode()


def _rewind(keep: Any) -> str:
    data = {"type": "turnwire.rewind", "keep": keep}
    return orjson.dumps({"type": "data", "author": "user", "style": "static", "data": data}).decode()


def test_notes_leave_the_content_and_rewinds_become_branches() -> None:
    rows = [
        ("a", "t1", _text("a", turnwire={"message_id": "u1"})),
        ("b", "t1", _text("b")),
        ("r", "t1", _rewind(1)),
        ("c", "t1", _text("c", turnwire={"turn": "T", "usage": {"input": 1}})),
        ("x", "t2", _text("x")),  # another task starts its own tree
        ("r0", "t2", _rewind(0)),  # an edit of the first message: a new first message
        ("y", "t2", _text("y")),
        ("bad", "t2", _rewind("two")),  # an invalid keep rewound nothing
        ("z", "t2", _text("z", turnwire="not a note")),
    ]
    out = {u["id"]: u for u in convert(rows)}
    assert orjson.loads(out["a"]["c"]) == orjson.loads(_text("a"))
    assert orjson.loads(out["a"]["n"]) == {"message_id": "u1"} and out["a"]["p"] is None
    assert out["b"]["p"] == "a" and out["b"]["n"] is None and out["b"]["c"] == _text("b")
    assert out["r"]["p"] == "a" and orjson.loads(out["r"]["n"]) == {"rewind": 1}
    assert out["c"]["p"] == "a" and orjson.loads(out["c"]["n"]) == {"turn": "T", "usage": {"input": 1}}
    assert "x" not in out  # a first message without a note: nothing to change
    assert out["r0"]["p"] is None and "y" not in out  # y: a first message again
    assert out["bad"]["p"] == "y" and out["z"]["p"] == "y"
    assert out["z"]["n"] is None and out["z"]["c"] == _text("z")
