"""turnwire's Vercel streams and UIMessages, checked by the real ``ai`` npm package (v5, v6, v7).

Writes the SSE body of every scenario for every client-version setting, the rendered UIMessages of
canonical histories, and the expectations into a temp dir, then runs ``node --test`` on
tests/conformance/node. Any schema failure, lint problem or wrong assembled content fails here
with node's output.
"""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from vercel_scenarios import HISTORIES, HISTORY_RENDERING, SCENARIOS, Scenario

from node_runner import run_node_tests
from turnwire.errors import failure_message
from turnwire.formats.vercel import (
    ClientVersion,
    UIStreamEncoder,
    encode_sse,
    render_messages,
)

LANES = [
    {"setting": "default", "package": "ai", "skipApproval": False},
    {"setting": "default", "package": "ai-v6", "skipApproval": False},
    # ai 5 has no approval chunks; the default setting still sends them (docs/vercel.md).
    {"setting": "default", "package": "ai-v5", "skipApproval": True},
    {"setting": "5", "package": "ai-v5", "skipApproval": False},
    {"setting": "6", "package": "ai-v6", "skipApproval": False},
    {"setting": "7", "package": "ai", "skipApproval": False},
]


def _write_corpus(root: Path) -> None:
    for setting in ("default", "5", "6", "7"):
        version = ClientVersion.parse(setting)
        (root / setting).mkdir()
        for name, scenario in SCENARIOS.items():
            history = (
                scenario.history_v5
                if version is ClientVersion.V5 and scenario.history_v5
                else scenario.history
            )
            known = [p["toolCallId"] for p in history["parts"] if "toolCallId" in p] if history else []
            encoder = UIStreamEncoder(scenario.message_id, "s-1", version, known_tool_call_ids=known)
            body = _sse_body(scenario, encoder)
            (root / setting / f"{name}.sse").write_bytes(body)
    (root / "messages").mkdir()
    for name, (msgs, _) in HISTORIES.items():
        rendered = render_messages(msgs, **HISTORY_RENDERING.get(name, {}))
        (root / "messages" / f"{name}.json").write_bytes(orjson.dumps(rendered))
    spec = {
        "lanes": LANES,
        "scenarios": {
            name: {
                "expect": s.expect,
                "approval": s.approval,
                "history": s.history,
                "historyV5": s.history_v5,
            }
            for name, s in SCENARIOS.items()
        },
        "histories": {name: expect for name, (_, expect) in HISTORIES.items()},
    }
    (root / "expectations.json").write_bytes(orjson.dumps(spec))


def _sse_body(scenario: Scenario, encoder: UIStreamEncoder) -> bytes:
    """The body the server sends: the runner's terminal stop reason applied at ``finish``."""
    pieces = [encode_sse(encoder.start())]
    try:
        for event in scenario.run():
            pieces.append(encode_sse(encoder.encode(event)))
    except RuntimeError as exc:
        error = failure_message(exc)
        pieces.append(encode_sse(encoder.finish(scenario.stop_reason, error=error), done=True))
    else:
        pieces.append(encode_sse(encoder.finish(scenario.stop_reason), done=True))
    return b"".join(pieces)


@pytest.mark.node
def test_real_ai_clients_accept_every_stream_and_rendered_history(tmp_path: Path) -> None:
    _write_corpus(tmp_path)
    env = {**os.environ, "TURNWIRE_VERCEL_CORPUS": str(tmp_path)}
    env.pop("SERVER_URL", None)
    passed = run_node_tests("stream.test.mjs", env)
    expected = sum(
        1 for lane in LANES for s in SCENARIOS.values() if not (lane["skipApproval"] and s.approval)
    ) + len(HISTORIES)
    assert passed == expected, f"node ran {passed} tests, expected {expected}"
