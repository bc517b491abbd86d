"""The spec's finishReason table, per client version, and client-version parsing."""

from __future__ import annotations

import pytest

from turnwire.formats.vercel import ClientVersion, finish_reason

V5, V6, V7, DEFAULT = ClientVersion.V5, ClientVersion.V6, ClientVersion.V7, ClientVersion.DEFAULT


@pytest.mark.parametrize(
    ("raw", "mapped"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "tool-calls"),
        ("tool_calls", "tool-calls"),
        ("function_call", "tool-calls"),
        ("refusal", "content-filter"),
        ("content_filter", "content-filter"),
        ("paused", "other"),
        ("cancelled", "other"),
    ],
)
def test_raw_stop_reasons_map_per_the_spec_table(raw: str, mapped: str) -> None:
    for version in ClientVersion:
        assert finish_reason(raw, version) == mapped


@pytest.mark.parametrize("value", ["stop", "length", "content-filter", "tool-calls", "error", "other"])
def test_values_already_in_the_set_pass_through(value: str) -> None:
    assert finish_reason(value) == value


def test_reason_is_trimmed_and_case_insensitive() -> None:
    assert finish_reason("STOP") == "stop"
    assert finish_reason(" stop ") == "stop"
    assert finish_reason("TOOL_USE") == "tool-calls"


def test_no_reason_omits_the_field() -> None:
    assert finish_reason(None) is None


def test_unmapped_reasons_are_unknown_for_v5_and_other_for_v6_v7_and_default() -> None:
    assert finish_reason("weird", V5) == "unknown"
    assert finish_reason("unknown", V5) == "unknown"
    for version in (V6, V7, DEFAULT):
        assert finish_reason("weird", version) == "other"
        assert finish_reason("unknown", version) == "other"


def test_interrupted_only_reaches_v7() -> None:
    assert finish_reason("interrupted", V7) == "interrupted"
    assert [finish_reason("interrupted", v) for v in (V5, V6, DEFAULT)] == ["unknown", "other", "other"]


@pytest.mark.parametrize(
    ("raw", "version"),
    [
        (None, DEFAULT),
        ("", DEFAULT),
        ("default", DEFAULT),
        (5, V5),
        ("v6", V6),
        ("ai@7.0.173", V7),
        (" 5.0.100", V5),
    ],
)
def test_client_version_parse(raw: object, version: ClientVersion) -> None:
    assert ClientVersion.parse(raw) is version


def test_client_version_parse_rejects_unsupported_versions() -> None:
    with pytest.raises(ValueError, match="unsupported AI SDK version"):
        ClientVersion.parse("4")


def test_only_v5_lacks_approval_chunks() -> None:
    assert [v.approval_chunks for v in (V5, V6, V7, DEFAULT)] == [False, True, True, True]
