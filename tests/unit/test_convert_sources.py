"""``turnwire convert`` (and ``turnwire.convert``) carries sources (citations) between the formats
that can hold them — UIMessage ``source-*`` parts, Responses ``output_text`` citations, A2A data
parts, Agentex data contents — and formats without a place for them convert as they did."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from turnwire import convert

URL_PART = {"type": "source-url", "sourceId": "s1", "url": "https://example.com/tides", "title": "Tides"}
DOC_PART = {
    "type": "source-document",
    "sourceId": "s2",
    "mediaType": "application/pdf",
    "title": "Tide tables",
    "filename": "tides.pdf",
}
CHAT = [
    {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "tides?"}]},
    {
        "id": "a1",
        "role": "assistant",
        "parts": [URL_PART, DOC_PART, {"type": "text", "text": "They follow the moon."}],
    },
]
WITHOUT_SOURCES = [CHAT[0], {**CHAT[1], "parts": [CHAT[1]["parts"][-1]]}]


def _parts(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p for m in messages for p in m["parts"] if p["type"].startswith("source-")]


def test_ui_sources_become_the_citations_of_the_text_after_them_and_come_back() -> None:
    items = convert(CHAT, source="vercel", target="responses")
    (answer,) = [i for i in items if i.get("role") == "assistant"]
    (text,) = answer["content"]
    assert text["annotations"] == [
        {
            "type": "url_citation",
            "url": "https://example.com/tides",
            "title": "Tides",
            "start_index": 0,
            "end_index": 0,
        },
        {"type": "file_citation", "file_id": "s2", "filename": "tides.pdf", "index": 0},
    ]
    back = convert(items, source="responses", target="vercel")
    # A URL citation has no id (the URL names the source); a file citation no media type.
    assert _parts(back) == [
        {**URL_PART, "sourceId": URL_PART["url"]},
        {**DOC_PART, "mediaType": "application/octet-stream", "title": "tides.pdf"},
    ]
    assert [p["type"] for p in back[1]["parts"]] == ["source-url", "source-document", "text"]


@pytest.mark.parametrize("middle", ["a2a", "agentex"])
def test_sources_survive_a_round_trip_through_formats_that_hold_them(middle: str) -> None:
    there = convert(CHAT, source="vercel", target=middle)
    back = convert(there, source=middle, target="vercel")
    assert _parts(back) == [URL_PART, DOC_PART]


@pytest.mark.parametrize("target", ["agenta", "agui", "openai"])
def test_formats_without_a_place_for_sources_convert_as_without_them(target: str) -> None:
    assert convert(CHAT, source="vercel", target=target) == convert(
        WITHOUT_SOURCES, source="vercel", target=target
    )


def test_the_cli_converts_sources(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(CHAT))
    turnwire = str(Path(sys.executable).parent / "turnwire")
    done = subprocess.run(
        [turnwire, "convert", "--from", "vercel", "--to", "responses", str(path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (answer,) = [i for i in json.loads(done.stdout) if i.get("role") == "assistant"]
    assert [a["type"] for a in answer["content"][0]["annotations"]] == ["url_citation", "file_citation"]
