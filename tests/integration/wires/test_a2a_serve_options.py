"""The A2A options of ``turnwire serve``, on real processes: ``--agent NAME=a2a:URL`` serves a
remote A2A agent (here another ``turnwire serve``) on every door, and ``--a2a-push-allow`` turns
push notifications on (the card says so, a matching webhook is taken, another is refused)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest

from services import turnwire_process


@pytest.fixture(scope="module")
def remote_and_front(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    tmp_path = tmp_path_factory.mktemp("a2a-serve")
    (tmp_path / "remote").mkdir()
    (tmp_path / "front").mkdir()
    with turnwire_process(tmp_path / "remote") as (remote, _):
        front_args = (
            "--agent",
            f"far=a2a:{remote}/.well-known/agent-card.json",
            "--default-agent",
            "far",
            "--a2a-push-allow",
            "http://127.0.0.1:*/hook/*",
        )
        with turnwire_process(tmp_path / "front", *front_args) as (front, _):
            yield remote, front


def _texts_of_chat(url: str, prompt: str) -> tuple[list[str], str]:
    """A /chat turn's streamed text parts and its session id."""
    chat_id = f"cli-a2a-{uuid.uuid4().hex[:8]}"
    user = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": prompt}]}
    texts: dict[str, str] = {}
    with httpx.stream("POST", f"{url}/chat", json={"id": chat_id, "messages": [user]}, timeout=30) as r:
        assert r.status_code == 200, r.read()
        for line in r.iter_lines():
            if line.startswith("data: {"):
                chunk = orjson.loads(line[6:])
                if chunk["type"] == "text-delta":
                    texts[chunk["id"]] = texts.get(chunk["id"], "") + chunk["delta"]
    return list(texts.values()), chat_id


def _rpc(url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return httpx.post(f"{url}/a2a", json=body, headers={"A2A-Version": "1.0"}, timeout=30).json()


def test_a_remote_a2a_agent_named_on_the_command_line_answers_on_the_chat_door(
    remote_and_front: tuple[str, str],
) -> None:
    remote, front = remote_and_front
    agents = httpx.get(f"{front}/agents", timeout=10).json()
    assert "far" in {a["name"] for a in agents}, agents
    texts, chat_id = _texts_of_chat(front, "count to 3")
    assert texts == ["1", "2", "3"]  # one remote artifact each, as the remote's own messages
    # The remote kept the conversation under the front's session id (its contextId).
    listed = _rpc(remote, "ListTasks", {"contextId": chat_id})
    assert [t["contextId"] for t in listed["result"]["tasks"]] == [chat_id], listed


def test_push_allow_turns_push_notifications_on_for_matching_webhooks_only(
    remote_and_front: tuple[str, str],
) -> None:
    remote, front = remote_and_front
    card = httpx.get(f"{front}/.well-known/agent-card.json", timeout=10).json()
    assert card["capabilities"]["pushNotifications"] is True
    remote_card = httpx.get(f"{remote}/.well-known/agent-card.json", timeout=10).json()
    assert remote_card["capabilities"]["pushNotifications"] is False  # not allowed there

    message = {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": "hello"}]}
    sent = _rpc(front, "SendMessage", {"message": message})
    task_id = sent["result"]["task"]["id"]
    allowed = _rpc(
        front, "CreateTaskPushNotificationConfig", {"taskId": task_id, "url": "http://127.0.0.1:9/hook/a"}
    )
    assert allowed["result"]["url"] == "http://127.0.0.1:9/hook/a", allowed
    refused = _rpc(
        front, "CreateTaskPushNotificationConfig", {"taskId": task_id, "url": "http://127.0.0.1:9/other"}
    )
    assert refused["error"]["data"]["reason"] == "push_url_refused", refused
