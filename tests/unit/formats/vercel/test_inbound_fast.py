"""The fast path of Vercel ``parse_messages`` and Agenta ``render_messages`` against the general one.

``inbound.FAST_PARTS`` emptied sends every part through the general decision table (``_part``), the
reference. On every shape of workload 1's corpora (bench/bench_vercel.py) and on those shapes broken
field by field, both paths must give equal blocks, the same Agenta bytes, and the same InputError
(message and location) for bad input. The Agenta renderer's inline blocks are checked against its
``_BLOCK_RENDERERS`` table and the content rule.
"""

from __future__ import annotations

import gc
import importlib.util
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from turnwire.errors import InputError
from turnwire.formats import agenta
from turnwire.formats._gc import PAUSE_GC_FROM
from turnwire.formats.agenta import render as agenta_render
from turnwire.formats.vercel import inbound
from turnwire.model import TextBlock

_BENCH = Path(__file__).resolve().parents[4] / "bench" / "bench_vercel.py"


def _corpus_builders() -> dict[str, Any]:
    spec = importlib.util.spec_from_file_location("bench_vercel_corpora", _BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {name: build for name, (build, _, _) in module.CORPORA.items()}


CORPORA = _corpus_builders()
SIZES = {"few long": 6}


def outcome(raw: Any) -> tuple[str, Any]:
    """What parsing ``raw`` gives: the messages and their Agenta bytes, or the error's wording."""
    try:
        msgs = inbound.parse_messages(raw)
    except InputError as exc:
        return "error", (exc.msg, exc.loc, exc.type)
    return "ok", (msgs, orjson.dumps(agenta.render_messages(msgs)))


def both(raw: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[tuple[str, Any], tuple[str, Any]]:
    fast = outcome(raw)
    with monkeypatch.context() as m:
        m.setattr(inbound, "FAST_PARTS", {})
        general = outcome(raw)
    return fast, general


def test_every_corpus_shape_has_a_fast_handler() -> None:
    """Else the comparisons below would compare the general path with itself."""
    corpora = [build(SIZES.get(name, 400)) for name, build in CORPORA.items()]
    kinds = {p["type"] for corpus in corpora for m in corpus for p in m.get("parts", ())}
    fast = {k for k in kinds if k == "text" or k in inbound.FAST_PARTS or k.startswith("tool-")}
    assert fast >= kinds - {"data-progress"}, kinds


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_fast_path_equals_general_path_on_each_corpus(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = CORPORA[name](SIZES.get(name, 600))
    fast, general = both(corpus, monkeypatch)
    assert fast[0] == "ok"
    assert fast == general


ODD_VALUES: list[Any] = [None, 0, 7, -1, True, False, "", "x", "image/png", [], [1], {}, {"a": 1}, 1.5]
ODD_KEYS = [
    "type",
    "text",
    "id",
    "state",
    "toolCallId",
    "tool_call_id",
    "toolName",
    "tool_name",
    "input",
    "output",
    "errorText",
    "approval",
    "mediaType",
    "mimeType",
    "url",
    "uri",
    "data",
    "filename",
    "size",
    "providerMetadata",
]


UUID = "0190d5f2-3c4b-7a8e-9f00-112233445566"
ODD_NESTED: dict[str, list[Any]] = {
    "approval": [{"id": v, "approved": a} for v in ("ap", 3, None) for a in (True, False, "yes", None)],
    "providerMetadata": [{"agenta": {"attachmentId": v}} for v in (UUID, UUID.upper(), 3, None)]
    + [{"agenta": 1}],
}


def sample_parts(corpus: list[dict[str, Any]], rng: random.Random) -> list[dict[str, Any]]:
    """A few parts of each type and state in ``corpus``."""
    by_shape: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for message in corpus:
        for part in message.get("parts", ()):
            by_shape.setdefault((part["type"], part.get("state"), "approval" in part), []).append(part)
    return [p for parts in by_shape.values() for p in rng.sample(parts, min(3, len(parts)))]


def broken_variants(corpus: list[dict[str, Any]], rng: random.Random) -> list[list[dict[str, Any]]]:
    """For sample parts of ``corpus``: every field of ``ODD_KEYS`` removed, or set to each odd value,
    each variant a one-message history."""
    variants = []
    for part in sample_parts(corpus, rng):
        for key in ODD_KEYS:
            for value in [KeyError, *ODD_VALUES, *ODD_NESTED.get(key, ())]:
                broken = orjson.loads(orjson.dumps(part))
                if value is KeyError:
                    broken.pop(key, None)
                else:
                    broken[key] = value
                variants.append([{"id": "m", "role": "assistant", "parts": [broken]}])
    return variants


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_broken_fields_give_the_same_blocks_or_the_same_error(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(name)
    errors = 0
    for variant in broken_variants(CORPORA[name](SIZES.get(name, 200)), rng):
        fast, general = both(variant, monkeypatch)
        assert fast == general, variant
        errors += fast[0] == "error"
    assert errors > 0  # the variants do reach the error paths


BAD_APPROVAL = {"id": "a", "approved": "yes"}
BAD_TOKEN = {"id": 3, "approved": True}
MALFORMED_PARTS = [
    ({"type": "tool-bash", "toolCallId": 5, "state": "input-available"}, ("toolCallId",), "string"),
    (
        {"type": "dynamic-tool", "toolCallId": "", "tool_call_id": [], "toolName": "x"},
        ("tool_call_id",),
        "string",
    ),
    (
        {"type": "tool-bash", "toolCallId": "c", "approval": BAD_APPROVAL},
        ("approval", "approved"),
        "true or false",
    ),
    ({"type": "tool-bash", "toolCallId": "c", "approval": BAD_TOKEN}, ("approval", "id"), "string"),
    ({"type": "tool-approval-response", "approvalId": "a", "approved": 1}, ("approved",), "true or false"),
    ({"type": ["text"]}, ("type",), "string"),
]


@pytest.mark.parametrize(("part", "loc", "msg"), MALFORMED_PARTS)
def test_malformed_tool_parts_name_the_field_on_both_paths(
    part: dict[str, Any], loc: tuple[str, ...], msg: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = [
        {"role": "user", "parts": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "parts": [part]},
    ]
    fast, general = both(raw, monkeypatch)
    assert fast == general
    kind, (text, where, _) = fast
    assert kind == "error" and msg in text
    assert where == ("messages", 1, "parts", 0, *loc)


@pytest.mark.parametrize(
    ("raw", "loc"),
    [
        ({"role": "user"}, ("messages",)),
        ([{"role": "user", "parts": []}, "hi"], ("messages", 1)),
        ([{"parts": []}], ("messages", 0, "role")),
        ([{"role": "user", "parts": {"type": "text"}}], ("messages", 0, "parts")),
        ([{"role": "user", "parts": [{"type": "text", "text": "a"}, 3]}], ("messages", 0, "parts", 1)),
        ([{"role": "user", "content": 3}], ("messages", 0, "content")),
    ],
)
def test_malformed_messages_name_the_field_on_both_paths(
    raw: Any, loc: tuple[Any, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    fast, general = both(raw, monkeypatch)
    assert fast == general
    assert fast[0] == "error" and fast[1][1] == loc


def test_a_long_history_parses_with_the_collector_paused_and_resumes_it_even_on_error() -> None:
    corpus = CORPORA["many short"](PAUSE_GC_FROM + 10)
    assert gc.isenabled()
    assert len(inbound.parse_messages(corpus)) == PAUSE_GC_FROM + 10
    assert gc.isenabled()
    corpus[-1]["parts"][0]["type"] = 3
    with pytest.raises(InputError):
        inbound.parse_messages(corpus)
    assert gc.isenabled()
    gc.disable()
    try:  # a caller's own pause is left alone
        inbound.parse_messages(corpus[:-1])
        assert not gc.isenabled()
    finally:
        gc.enable()


def reference_content(blocks: list[Any]) -> Any:
    """The Agenta content rule through ``_BLOCK_RENDERERS`` alone (module docstring of render.py)."""
    out = [r(b) for b in blocks if (r := agenta_render._BLOCK_RENDERERS[b.__class__]) is not None]
    if not out:
        return ""
    texts = sum(b.__class__ is TextBlock for b in blocks)
    if len(out) == 1 and texts == 1 and out[0]["text"]:
        return out[0]["text"]
    return out


@pytest.mark.parametrize("name", sorted(CORPORA))
def test_agenta_render_equals_its_block_table(name: str) -> None:
    msgs = inbound.parse_messages(CORPORA[name](SIZES.get(name, 600)))
    msgs += inbound.parse_messages(
        [
            {"role": "user", "parts": [{"type": "text", "text": ""}]},
            {"role": "user", "parts": [{"type": "reasoning", "text": "r"}, {"type": "text", "text": "t"}]},
            {"role": "user", "parts": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
            {"role": "user", "parts": [{"type": "data-x", "data": 1}]},
            {"role": "user", "parts": [{"type": "source-url", "url": "u"}]},
        ]
    )
    rendered = agenta.render_messages(msgs)
    assert [w["content"] for w in rendered] == [reference_content(m.content) for m in msgs]
    assert all(agenta.render_content(m.content) == w["content"] for m, w in zip(msgs, rendered, strict=True))
