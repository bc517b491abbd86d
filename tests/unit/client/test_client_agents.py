"""Client.agents() reads only agent names out of whatever a server answers to ``GET /agents``."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from turnwire.client import Client


def _client(body: Any) -> Client:
    def answer(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/agents"
        return httpx.Response(200, json=body)

    return Client(http=httpx.Client(base_url="http://agents.test", transport=httpx.MockTransport(answer)))


def test_the_names_of_the_listed_agents() -> None:
    assert _client([{"name": "demo"}, {"name": "weather", "formats": ["agenta"]}]).agents() == [
        "demo",
        "weather",
    ]


def test_entries_without_a_string_name_are_not_agent_names() -> None:
    body = [{"name": 7}, {"name": ["x"]}, {"name": ""}, {"title": "t"}, "demo", {"name": "ok"}]
    assert _client(body).agents() == ["ok"]


@pytest.mark.parametrize("body", [{"name": "demo"}, 3, "demo"])
def test_an_answer_that_is_not_a_list_lists_no_agent(body: Any) -> None:
    assert _client(body).agents() == []
