"""A small typed client for turnwire servers and any server speaking the Agenta invoke protocol.

    from turnwire.client import Client

    with Client("http://127.0.0.1:8000") as client:
        turn = client.send("delete notes.txt")
        for event in turn:              # canonical turnwire.model events, as they arrive
            print(event)
        if turn.pending:                # the agent asks before it runs delete_file
            turn = turn.approve()
        print(turn.result().messages)   # the folded turn

``AsyncClient`` is the same with ``async with`` / ``async for`` / ``await``. ``format="vercel"``
talks to ``/chat`` (the UI Message Stream) instead of ``/invoke``; ``transport="ndjson"`` or
``"batch"`` picks the other Agenta answers. ``client.history(session_id)`` reads a stored conversation.
"""

from turnwire.client.aio import AsyncClient, AsyncClientTurn, AsyncSession
from turnwire.client.conversation import Conversation, Format, Transport, tool_call_of
from turnwire.client.errors import ClientError
from turnwire.client.sync import DEFAULT_URL, Client, ClientTurn, Session

__all__ = [
    "DEFAULT_URL",
    "AsyncClient",
    "AsyncClientTurn",
    "AsyncSession",
    "Client",
    "ClientError",
    "ClientTurn",
    "Conversation",
    "Format",
    "Session",
    "Transport",
    "tool_call_of",
]
