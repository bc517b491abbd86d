"""Accept → transport and x-ag-messages-format → format, as pure functions."""

from __future__ import annotations

import pytest

from turnwire.errors import InputError
from turnwire.server.http.negotiation import (
    NotAcceptable,
    Transport,
    negotiate_format,
    negotiate_transport,
    parse_accept,
)

J, S, N = Transport.JSON, Transport.SSE, Transport.NDJSON


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, J),
        ("", J),
        ("   ", J),
        ("*/*", J),
        ("application/json", J),
        ("text/event-stream", S),
        ("application/x-ndjson", N),
        ("application/jsonl", N),
        ("TEXT/EVENT-STREAM", S),
        ("Application/X-NDJSON", N),
        ("text/event-stream; charset=utf-8", S),
        ("text/*", S),
        ("application/*", J),
        # the first listed of two equally good exact types wins (reference: hash order)
        ("application/jsonl, text/event-stream", N),
        ("text/event-stream, application/jsonl", S),
        ("application/json, text/event-stream", J),
        ("text/event-stream, application/json", S),
        # q-values decide before order
        ("application/json;q=0.5, text/event-stream", S),
        ("text/event-stream;q=0.1, application/x-ndjson;q=0.2", N),
        ("text/event-stream;q=0.9, */*;q=0.1", S),
        ("application/json;q=0, */*", S),  # json excluded; */* → next in server order
        ("text/html, */*;q=0.1", J),
        ("text/html, text/event-stream", S),
        # an exact range beats a wildcard of equal q
        ("*/*, application/x-ndjson", N),
        ("application/*, application/jsonl", N),
        # the most specific matching range gives the q, even if it is lower
        ("text/*;q=1, text/event-stream;q=0.2, application/json;q=0.5", J),
        ("text/event-stream ; q = 0.8 , application/json ; q = 0.7", S),
        ("text/event-stream;q=0.8;level=1, application/json;q=0.7", S),
        ("bogus, application/json", J),
    ],
)
def test_accept_picks_the_transport(accept: str | None, expected: Transport) -> None:
    assert negotiate_transport(accept) is expected


@pytest.mark.parametrize(
    "accept",
    [
        "text/html",
        "application/json-seq",
        "application/xml, text/plain",
        "application/json;q=0, text/event-stream;q=0, application/x-ndjson;q=0, application/jsonl;q=0",
        "*/*;q=0",
        "text/event-stream;q=2",  # out-of-range q is refused, not promoted
        "text/event-stream;q=abc",
        "garbage",
        "*/json",
    ],
)
def test_accept_without_a_servable_type_is_not_acceptable(accept: str) -> None:
    with pytest.raises(NotAcceptable) as info:
        negotiate_transport(accept)
    body = info.value.to_dict()
    assert body["requested"] == accept
    supported = ["application/json", "text/event-stream", "application/x-ndjson", "application/jsonl"]
    assert body["supported"] == supported
    assert body["detail"]


def test_parse_accept_reads_q_and_positions() -> None:
    ranges = parse_accept("text/html;q=0.3, Application/JSON, */*;q=0")
    assert [(r.type, r.subtype, r.q, r.position) for r in ranges] == [
        ("text", "html", 0.3, 0),
        ("application", "json", 1.0, 1),
        ("*", "*", 0.0, 2),
    ]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (None, "agenta"),
        ("", "agenta"),
        ("agenta", "agenta"),
        ("AGENTA", "agenta"),
        ("vercel", "vercel"),
        ("Vercel", "vercel"),
        (" vercel", "vercel"),
        ("vercel \t", "vercel"),
    ],
)
def test_messages_format_header_is_trimmed_and_case_insensitive(header: str | None, expected: str) -> None:
    assert negotiate_format(header, ("agenta", "vercel"), "agenta") == expected


@pytest.mark.parametrize("header", ["openai", "vercel-v5", "agenta,vercel", "ver cel"])
def test_unknown_messages_format_names_the_header(header: str) -> None:
    with pytest.raises(InputError) as info:
        negotiate_format(header, ("agenta", "vercel"), "agenta")
    assert info.value.loc == ("header", "x-ag-messages-format")
    assert repr(header) in info.value.msg
