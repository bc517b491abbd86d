"""Demo-agent turns the live Node conformance test sends to a running ``turnwire serve``.

Each expectation is written from the demo agent's documented behaviour (its command table in
``turnwire.agents.demo`` and docs/agents.md) and the protocol (reference/vercel-ui-stream.md §5, §6),
never from a recorded response. ``approval`` marks scenarios a v5 client cannot take in the default
setting. ``continuation`` scenarios send ``request`` first and then answer its approval with the
approval id the server sent (stream.test.mjs does the round trip with the lane's own client).
"""

from __future__ import annotations

from typing import Any


def _request(text: str) -> dict[str, Any]:
    user = {"id": "u-1", "role": "user", "parts": [{"type": "text", "text": text}]}
    return {"data": {"inputs": {"messages": [user]}}}


_DELETE = _request("delete notes.txt")
_DELETED = {"path": "notes.txt", "deleted": True}

LIVE_SCENARIOS: dict[str, dict[str, Any]] = {
    "plain-text": {
        "request": _request("hello"),
        "expect": {
            "text": "You said: hello",
            "reasoning": "The user said: hello.",
            "steps": 1,
            "errors": [],
            "finishReason": "stop",
            "metadata": {"usage": {"input": 1, "output": 3, "total": 4}},
        },
    },
    "weather-in-paris": {
        "request": _request("weather in Paris"),
        "expect": {
            "reasoning": "The user wants the weather in Paris. I will call get_weather.",
            "tools": {
                "call_1": {
                    "state": "output-available",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                    "output": {"city": "Paris", "condition": "Sunny", "temperature_c": 21},
                }
            },
            "text": "It is sunny and 21 °C in Paris.",
            "steps": 2,
            "finishReason": "stop",
        },
    },
    # Every event of the newer wires (docs/agents.md, the demo's "sources for"): the sources become
    # parts, the streamed input ends as the call's input, a v7 client keeps the custom part.
    "sources-for-tides": {
        "request": _request("sources for tides"),
        "expect": {
            "tools": {
                "call_1": {
                    "state": "output-available",
                    "name": "search",
                    "input": {"query": "tides"},
                    "output": {"query": "tides", "found": 2},
                }
            },
            "sources": [
                {
                    "type": "source-url",
                    "sourceId": "src_1_1",
                    "url": "https://en.wikipedia.org/wiki/tides",
                    "title": "tides",
                },
                {
                    "type": "source-document",
                    "sourceId": "src_1_2",
                    "mediaType": "application/pdf",
                    "title": "Notes on tides",
                    "filename": "notes.pdf",
                },
            ],
            "customV7": [
                {
                    "kind": "turnwire.demo_sources",
                    "providerMetadata": {"turnwire": {"data": {"topic": "tides", "count": 2}}},
                }
            ],
            "dataTypes": [],
            "text": "Here are 2 sources for tides.",
            "steps": 2,
            "errors": [],
            "finishReason": "stop",
        },
    },
    "count-to-5": {
        "request": _request("count to 5"),
        "expect": {"text": "12345", "tools": {}, "steps": 1, "finishReason": "stop"},
    },
    "fail": {
        "request": _request("fail"),
        "expect": {
            "text": "Starting…",
            "errors": ["Agent run failed: demo failure requested"],
            "dataTypes": ["data-agent-error"],
            "finishReason": "error",
        },
    },
    "silent": {
        "request": _request("silent"),
        "expect": {
            "text": "",
            "errors": ["The agent produced no output."],
            "dataTypes": ["data-agent-error"],
            "finishReason": "stop",
        },
    },
    "delete-asks-approval": {
        "approval": True,
        "request": _DELETE,
        "expect": {
            "tools": {
                "call_1": {
                    "state": "approval-requested",
                    "name": "delete_file",
                    "input": {"path": "notes.txt"},
                }
            },
            "toolsV5": {"call_1": {"state": "input-available", "input": {"path": "notes.txt"}}},
            "dataTypes": [],
            "dataTypesV5": ["data-interaction"],
            "absentTypes": ["text-start"],
            "finishReason": "other",
        },
    },
    "ask-me": {
        "request": _request("ask me"),
        "expect": {
            "text": "What should I echo?",
            "dataTypes": ["data-input-request"],
            "finishReason": "other",
        },
    },
    "delete-approved-continuation": {
        "approval": True,
        "continuation": {"request": _DELETE, "approved": True},
        "expect": {
            "tools": {"call_1": {"state": "output-available", "output": _DELETED, "approved": True}},
            "toolsV5": {"call_1": {"state": "output-available", "output": _DELETED}},
            "text": "Deleted notes.txt.",
            "steps": 2,
            "leadingTypes": ["start", "tool-output-available", "start-step", "text-start"],
            "continuesHistory": True,
            "errors": [],
            "finishReason": "stop",
        },
    },
    "delete-denied-continuation": {
        "approval": True,
        "continuation": {"request": _DELETE, "approved": False},
        "expect": {
            "tools": {"call_1": {"state": "output-denied", "approved": False}},
            "toolsV5": {"call_1": {"state": "output-error", "errorText": "The user denied it."}},
            "text": "I did not delete notes.txt.",
            "steps": 2,
            "leadingTypes": ["start", "tool-output-denied", "start-step", "text-start"],
            "leadingTypesV5": ["start", "tool-output-error", "start-step", "text-start"],
            "continuesHistory": True,
            "errors": [],
            "finishReason": "stop",
        },
    },
}
