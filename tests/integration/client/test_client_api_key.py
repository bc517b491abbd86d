"""``Client(api_key=...)`` and ``AsyncClient(api_key=...)`` talk to a server that wants API keys."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from services import serve_app
from turnwire.client import AsyncClient, Client, ClientError
from turnwire.server import Settings, create_app

KEY = "tw_client-api-key-test"


@pytest.fixture(scope="module")
def keyed_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = Path(tmp_path_factory.mktemp("client-keys")) / "k.db"
    with serve_app(create_app(settings=Settings(db_url=str(db), api_keys=f"acme:{KEY}"))) as url:
        yield url


def test_the_sync_client_sends_its_key(keyed_url: str) -> None:
    with Client(keyed_url, api_key=KEY) as client:
        turn = client.session("key-sync").send("hello")
        assert turn.result().messages[-1].content[-1].text == "You said: hello"  # type: ignore[union-attr]
        assert len(client.history("key-sync")) == 2
    with Client(keyed_url) as client, pytest.raises(ClientError) as refused:
        client.send("hello").result()
    assert refused.value.status == 401


def test_a_given_authorization_header_wins(keyed_url: str) -> None:
    headers = {"Authorization": f"Bearer {KEY}"}
    with Client(keyed_url, api_key="tw_wrong", headers=headers) as client:
        assert client.send("hi").result().stop_reason == "end_turn"


@pytest.mark.anyio
async def test_the_async_client_sends_its_key(keyed_url: str) -> None:
    async with AsyncClient(keyed_url, api_key=KEY) as client:
        session = await client.session("key-async")
        turn = await session.send("hello")
        assert (await turn.result()).stop_reason == "end_turn"
