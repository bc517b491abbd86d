"""A paused turn resumes in another process: same secret file, no warm state, same turn."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from approvals_flows import FLOWS
from approvals_server import Server, run_server
from approvals_wire import normalize

from services import turnwire_process


@pytest.fixture
def process_server(secret_file: Path, tmp_path: Path) -> Iterator[str]:
    """``turnwire serve`` in its own process, finding the secret through the environment."""
    env = {"TURNWIRE_APPROVAL_SECRET_FILE": str(secret_file), "TURNWIRE_KEEPALIVE_SECONDS": "0"}
    with turnwire_process(tmp_path, env=env) as (url, _):
        yield url


@pytest.mark.parametrize("flow", FLOWS, ids=lambda f: f.name)
def test_a_turn_paused_here_resumes_in_a_new_process_exactly_as_it_would_warm(
    flow, warm: Server, process_server: str, secret_file: Path
) -> None:
    views = []
    for resume_url in (warm.url, process_server):
        sid = f"restart-{flow.name}-{len(views)}"
        paused = flow.first(warm.url, sid, "delete a.txt and b.txt")
        assert paused.status == 200
        resumed = flow.decide(resume_url, sid, paused, {"call_1": False, "call_2": True})
        assert resumed.status == 200, resumed.body
        assert resumed.text == "I did not delete a.txt. Deleted b.txt."
        views.append(normalize(resumed.body, *paused.trace_ids, *resumed.trace_ids, sid))
    assert views[0] == views[1]
    # A server with another secret refuses the same decisions.
    with run_server(secret_file.with_name("other-secret")) as stranger:
        paused = flow.first(warm.url, f"restart-{flow.name}-x", "delete a.txt")
        refused = flow.decide(stranger.url, f"restart-{flow.name}-x", paused, {"call_1": True})
        assert refused.status == 409
        assert stranger.starts == []
