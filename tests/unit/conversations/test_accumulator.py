"""Streamed contents accumulate deltas as pieces joined at a flush: same result as applying each
delta in turn, and the pieces never rebuild the text per delta."""

from __future__ import annotations

from turnwire.conversations.recording import Accumulator, apply_delta


def _text() -> dict[str, object]:
    return {"type": "text", "author": "agent", "content": ""}


def test_text_pieces_join_into_the_content_at_settle() -> None:
    acc = Accumulator(_text())
    for word in ("a", "b", "", "c"):
        acc.add({"type": "text", "text_delta": word})
    assert acc.content["content"] == ""  # nothing joined before the flush asks
    assert acc.settle()["content"] == "abc"
    acc.add({"type": "text", "text_delta": "d"})
    assert acc.settle()["content"] == "abcd"


def test_reasoning_parts_and_summaries_by_index() -> None:
    content: dict[str, object] = {"type": "reasoning", "summary": [], "content": None}
    acc = Accumulator(content)
    acc.add({"type": "reasoning_content", "content_index": 1, "content_delta": "y"})
    acc.add({"type": "reasoning_content", "content_index": 0, "content_delta": "x"})
    acc.add({"type": "reasoning_summary", "summary_index": 0, "summary_delta": "s"})
    acc.add({"type": "reasoning_content", "content_index": 1, "content_delta": "z"})
    assert acc.settle() == {"type": "reasoning", "summary": ["s"], "content": ["x", "yz"]}


def test_a_delta_that_changes_nothing_is_not_a_change() -> None:
    acc = Accumulator(_text())
    assert not acc.add({"type": "text", "text_delta": ""})
    assert not acc.add({"type": "unknown"})
    assert acc.add({"type": "text", "text_delta": "x"})


def test_apply_delta_matches_the_accumulator() -> None:
    one, many = _text(), Accumulator(_text())
    for i in range(50):
        delta = {"type": "text", "text_delta": f"w{i} "}
        apply_delta(one, delta)
        many.add(delta)
    assert one == many.settle()


def test_a_long_message_is_joined_once_per_settle_not_per_delta() -> None:
    """Linear: 200 000 deltas are 200 000 list appends and one join (the old ``+=`` on a shared
    string copied the whole text per delta)."""
    acc = Accumulator(_text())
    for _ in range(200_000):
        acc.add({"type": "text", "text_delta": "word "})
    assert len(acc.pieces[("content", -1)]) == 200_000
    assert len(acc.settle()["content"]) == 1_000_000 and acc.pieces == {}
