"""The store's input bounds without a database: timestamps, filters, ids and NUL (issue 12)."""

from __future__ import annotations

import pytest

from turnwire.errors import InputError
from turnwire.store.clock import parse_time, to_iso
from turnwire.store.filters import parse_filters
from turnwire.store.limits import MAX_FILTER_DEPTH, MAX_ID_CHARS, check_id, check_no_nul


@pytest.mark.parametrize(
    "value", ["1970-01-01T00:00:00Z", "9998-12-31T23:59:59.999999+00:00", "2025-06-01T12:00:00-14:00"]
)
def test_times_in_range_round_trip(value: str) -> None:
    us = parse_time(value, ("body", "created_at"))
    assert parse_time(to_iso(us), ("x",)) == us


@pytest.mark.parametrize(
    "value",
    [
        "1969-12-31T23:59:59.999999Z",
        "0001-01-01T00:00:00+14:00",
        "9999-01-01T00:00:00Z",
        "9999-12-31T23:59:59.999999-14:00",
    ],
)
def test_times_outside_the_range_name_the_field(value: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_time(value, ("body", "created_at"))
    assert caught.value.loc == ("body", "created_at") and caught.value.type == "out_of_range"


def _nested(levels: int) -> str:
    return '{"content":' + '{"a":' * levels + '"x"' + "}" * (levels + 1)


def test_filter_depth_is_bounded_without_recursion() -> None:
    assert parse_filters(_nested(MAX_FILTER_DEPTH))[0].paths == [(("a",) * MAX_FILTER_DEPTH, "x")]
    for levels in (MAX_FILTER_DEPTH + 1, 1000):
        with pytest.raises(InputError) as caught:
            parse_filters(_nested(levels))
        assert caught.value.loc == ("query", "filters", "content") and caught.value.type == "too_deep"


def test_filter_paths_keep_the_order_given() -> None:
    (f,) = parse_filters('{"content": {"type": "data", "data": {"b": 1, "a": [1, 2]}}}')
    assert f.paths == [(("type",), "data"), (("data", "b"), 1), (("data", "a"), [1, 2])]


@pytest.mark.parametrize(
    ("raw", "loc"),
    [
        ('{"content": {"a\\u0000": 1}}', ("query", "filters", "content")),
        ('[{"content": {"a": "x\\u0000"}}]', ("query", "filters", 0, "content", "a")),
        ('{"content": {"a": {"": 1}}}', ("query", "filters", "content", "a")),
    ],
)
def test_nul_and_empty_filter_keys_are_refused_where_they_are(raw: str, loc: tuple) -> None:
    with pytest.raises(InputError) as caught:
        parse_filters(raw)
    assert caught.value.loc == loc


def test_ids_and_nul() -> None:
    assert check_id("x" * MAX_ID_CHARS, ("path", "task_id")) == "x" * MAX_ID_CHARS
    for bad, kind in (("x" * (MAX_ID_CHARS + 1), "too_long"), ("a\x00", "nul_character")):
        with pytest.raises(InputError) as caught:
            check_id(bad, ("path", "task_id"))
        assert caught.value.type == kind and caught.value.loc == ("path", "task_id")
    with pytest.raises(InputError) as caught:
        check_no_nul({"a": [1, {"b": "\x00"}]}, ("body",))
    assert caught.value.loc == ("body", "a", 1, "b")
