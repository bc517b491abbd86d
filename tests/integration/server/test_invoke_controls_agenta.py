"""``flags.trim`` / ``x-ag-messages-transcript: last`` side by side with Agenta's own code: for the
same turns, turnwire's trimmed batch answer equals agenta 0.125.1's ``trim_to_trailing_unit``
(``sdk/agents/fold.py``) of turnwire's untrimmed batch, and of agenta's ``fold`` of turnwire's
streamed frames. That fold equals the untrimmed batch but for a result that carries structured
``data``: turnwire's batch holds the data (``ToolResult.result_output``, the one output rule of
every wire), agenta's fold the frame's ``output`` text (``FOLD_DIFFERS``).

Agenta is imported where it is installed: this interpreter, else the one ``TURNWIRE_AGENTA_PYTHON``
names, else the repository's ``bench/.venv``; without one the test is skipped and says so.
``tests/unit/server/doors/test_agenta_controls.py`` holds the same rule as fixed cases read from
Agenta's source, which run everywhere."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from services import serve_app
from turnwire.agents.demo import demo_agent
from turnwire.model import Event, MessageEvent, ToolCall, ToolResult
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app

REPO = Path(__file__).resolve().parents[3]
# Reads {"turns": [[frames, batch messages], ...]} on stdin, writes [[fold(frames), trim(that),
# trim(batch messages)], ...] by agenta's code to the file argv[1] names (agenta's import may print).
AGENTA_FOLD = """
import json, sys
from agenta.sdk.agents.fold import fold, trim_to_trailing_unit
out = []
for frames, batch in json.load(sys.stdin)["turns"]:
    folded = fold(frames)["messages"]
    out.append([folded, trim_to_trailing_unit(folded), trim_to_trailing_unit(batch)])
with open(sys.argv[1], "w") as f:
    json.dump(out, f)
"""


def agenta_python() -> str | None:
    """An interpreter that imports agenta (module docstring), or ``None``."""
    if importlib.util.find_spec("agenta") is not None:
        return sys.executable
    candidates = [os.environ.get("TURNWIRE_AGENTA_PYTHON"), str(REPO / "bench" / ".venv" / "bin" / "python")]
    for python in candidates:
        if python and Path(python).exists():
            probe = subprocess.run(
                [python, "-c", "import agenta.sdk.agents.fold"], capture_output=True, timeout=120
            )
            if probe.returncode == 0:
                return python
    return None


async def tools(ctx: TurnContext) -> AsyncIterator[Event]:
    """Tool runs and texts in the orders the trim tells apart."""
    text = ctx.last_user_text()
    if text.startswith("text"):
        yield MessageEvent("I will look")
    yield ToolCall(id="c1", name="search", input={"q": "x"})
    yield ToolResult(id="c1", output="found")
    if text == "two runs":
        yield MessageEvent("Again")
    yield ToolCall(id="c2", name="read", input={})
    yield ToolResult(id="c2", output={"structured": True}, is_error=True)
    if text in ("text tail", "two runs"):
        yield MessageEvent("Done.")


TURNS = [
    ("tools", "text tail"),
    ("tools", "text then tool tail"),
    ("tools", "tool tail"),
    ("tools", "two runs"),
    ("demo", "hello there"),
    ("demo", "weather in Paris"),
    ("demo", "sources for tides"),
    ("demo", "delete notes.txt"),  # paused on the approval: the call is the tail
]
FOLD_DIFFERS = {("demo", "weather in Paris"), ("demo", "sources for tides")}
"""Turns with a result that carries structured data (module docstring)."""


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("agenta-trim")
    settings = Settings(
        db_url=f"sqlite:///{home / 'trim.db'}", approval_secret_file=str(home / "secret"), keepalive_seconds=0
    )
    with serve_app(
        create_app({"tools": tools, "demo": demo_agent}, default_agent="tools", settings=settings)
    ) as u:
        yield u


def body(text: str, **extra: Any) -> dict[str, Any]:
    messages = [{"role": "user", "content": text}]
    return {"session_id": f"trim-{uuid.uuid4().hex}", "data": {"inputs": {"messages": messages}}, **extra}


def test_trim_equals_agentas_trim_of_agentas_fold_on_the_same_turns(url: str, tmp_path: Path) -> None:
    python = agenta_python()
    if python is None:
        pytest.skip(
            "agenta is not importable (TURNWIRE_AGENTA_PYTHON, bench/.venv): the fixed cases stand in"
        )
    ours: list[tuple[list[Any], list[Any], list[Any]]] = []
    inputs: list[list[Any]] = []
    with httpx.Client(base_url=url, timeout=30) as http:
        for agent, text in TURNS:
            path = f"/agents/{agent}/invoke"
            lines = http.post(path, json=body(text), headers={"accept": "application/x-ndjson"}).text
            full = http.post(path, json=body(text)).json()["data"]["outputs"]["messages"]
            inputs.append([[orjson.loads(line) for line in lines.splitlines() if line], full])
            flagged = http.post(path, json=body(text, flags={"trim": True})).json()["data"]["outputs"]
            header = {"x-ag-messages-transcript": "last"}
            by_header = http.post(path, json=body(text), headers=header).json()["data"]["outputs"]
            ours.append((full, flagged["messages"], by_header["messages"]))
    answer = tmp_path / "agenta.json"
    subprocess.run(
        [python, "-c", AGENTA_FOLD, str(answer)],
        input=orjson.dumps({"turns": inputs}),
        capture_output=True,
        timeout=120,
        check=True,
    )
    theirs = orjson.loads(answer.read_bytes())
    for turn, (full, flagged, by_header), (folded, trimmed, batch_trimmed) in zip(
        TURNS, ours, theirs, strict=True
    ):
        assert flagged == batch_trimmed, turn
        assert by_header == batch_trimmed, turn
        if turn in FOLD_DIFFERS:
            assert full != folded, f"{turn} folds alike now: take it out of FOLD_DIFFERS"
            continue
        assert full == folded, turn
        assert flagged == trimmed, turn
