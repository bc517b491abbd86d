"""RFC 6902 JSON Patch: the examples of the RFC's Appendix A (document, patch, result or error),
and the patch applies whole or not at all."""

from __future__ import annotations

from typing import Any

import pytest

from turnwire.json_patch import PatchError, apply_patch

# (Appendix A section, document, patch, result)
EXAMPLES: list[tuple[str, Any, list[dict[str, Any]], Any]] = [
    ("A.1", {"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}], {"baz": "qux", "foo": "bar"}),
    (
        "A.2",
        {"foo": ["bar", "baz"]},
        [{"op": "add", "path": "/foo/1", "value": "qux"}],
        {"foo": ["bar", "qux", "baz"]},
    ),
    ("A.3", {"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
    ("A.4", {"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}], {"foo": ["bar", "baz"]}),
    (
        "A.5",
        {"baz": "qux", "foo": "bar"},
        [{"op": "replace", "path": "/baz", "value": "boo"}],
        {"baz": "boo", "foo": "bar"},
    ),
    (
        "A.6",
        {"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
        [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
        {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}},
    ),
    (
        "A.7",
        {"foo": ["all", "grass", "cows", "eat"]},
        [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
        {"foo": ["all", "cows", "eat", "grass"]},
    ),
    (
        "A.8",
        {"baz": "qux", "foo": ["a", 2, "c"]},
        [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}],
        {"baz": "qux", "foo": ["a", 2, "c"]},
    ),
    (
        "A.10",
        {"foo": "bar"},
        [{"op": "add", "path": "/child", "value": {"grandchild": {}}}],
        {"foo": "bar", "child": {"grandchild": {}}},
    ),
    (
        "A.14",
        {"/": 9, "~1": 10},
        [{"op": "test", "path": "/~01", "value": 10}],
        {"/": 9, "~1": 10},
    ),
    (
        "A.16",
        {"foo": ["bar"]},
        [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}],
        {"foo": ["bar", ["abc", "def"]]},
    ),
]

# (Appendix A section, document, patch): each is an error
ERRORS: list[tuple[str, Any, list[Any]]] = [
    ("A.9", {"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}]),
    ("A.12", {"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}]),
    ("A.15", {"/": 9, "~1": 10}, [{"op": "test", "path": "/~01", "value": "10"}]),
    ("remove missing", {"a": 1}, [{"op": "remove", "path": "/b"}]),
    ("replace missing", {"a": 1}, [{"op": "replace", "path": "/b", "value": 2}]),
    ("index past the end", {"a": [1]}, [{"op": "add", "path": "/a/2", "value": 2}]),
    ("no op", {"a": 1}, [{"path": "/a"}]),
    ("unknown op", {"a": 1}, [{"op": "merge", "path": "/a", "value": 1}]),
]


@pytest.mark.parametrize(
    ("document", "patch", "result"), [e[1:] for e in EXAMPLES], ids=[e[0] for e in EXAMPLES]
)
def test_the_rfc_examples_give_their_results(document: Any, patch: list[dict[str, Any]], result: Any) -> None:
    assert apply_patch(document, patch) == result


@pytest.mark.parametrize(("document", "patch"), [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_an_operation_that_cannot_apply_is_an_error(document: Any, patch: list[Any]) -> None:
    with pytest.raises(PatchError):
        apply_patch(document, patch)


def test_a_patch_applies_whole_or_not_at_all_and_never_changes_its_input() -> None:
    document = {"count": 1, "items": [1]}
    failing = [{"op": "replace", "path": "/count", "value": 2}, {"op": "remove", "path": "/missing"}]
    with pytest.raises(PatchError, match="operation 1"):
        apply_patch(document, failing)
    assert document == {"count": 1, "items": [1]}
    patched = apply_patch(document, [{"op": "add", "path": "/items/-", "value": 2}])
    assert patched == {"count": 1, "items": [1, 2]} and document["items"] == [1]


def test_the_whole_document_can_be_replaced_and_nulls_are_values() -> None:
    assert apply_patch({"a": 1}, [{"op": "replace", "path": "", "value": [None]}]) == [None]
    assert apply_patch({"a": 1}, [{"op": "replace", "path": "/a", "value": None}]) == {"a": None}
