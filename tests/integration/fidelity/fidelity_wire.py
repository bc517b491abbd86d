"""Small HTTP helpers for the fidelity tests: a /chat turn's chunks, a stored conversation."""

from __future__ import annotations

from typing import Any

import httpx
import orjson


def user(message_id: str, text: str) -> dict[str, Any]:
    return {"id": message_id, "role": "user", "parts": [{"type": "text", "text": text}]}


def sse_chunks(lines: Any) -> list[dict[str, Any]]:
    return [orjson.loads(line[6:]) for line in lines if line.startswith("data: {")]


def chat(url: str, body: dict[str, Any], agent: str | None = None) -> list[dict[str, Any]]:
    path = f"/agents/{agent}/chat" if agent else "/chat"
    with httpx.stream("POST", url + path, json=body, timeout=30) as r:
        assert r.status_code == 200, r.read()
        return sse_chunks(r.iter_lines())


def stored(url: str, key: str, fmt: str) -> list[dict[str, Any]]:
    r = httpx.get(f"{url}/tasks/{key}/messages", params={"format": fmt}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["messages"]
