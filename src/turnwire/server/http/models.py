"""Pydantic models of the HTTP API, for the OpenAPI document.

They describe the edge only: request handling reads the body with orjson and plain dict access
(lenient, like these models: unknown keys are allowed everywhere).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

SESSION_ID_PATTERN = r"^[A-Za-z0-9._:-]{1,128}$"
WIRE_VERSION = "2025.07.14"


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class InvokeInputs(_Open):
    messages: list[Any] | None = Field(
        default=None,
        description=(
            "The conversation. Agenta messages (see GET /catalog/types/messages) or, with "
            "`x-ag-messages-format: vercel`, Vercel AI SDK UIMessages. Absent or null = []."
        ),
    )


class InvokeData(_Open):
    inputs: InvokeInputs | None = None
    parameters: dict[str, Any] | None = Field(default=None, description="Passed to the agent as is.")


class InvokeRequest(_Open):
    """A turn to run. Unknown keys (``version``, ``meta``…) are accepted and ignored; ``flags`` are
    the request controls (``doors.agenta.controls``)."""

    session_id: str | None = Field(
        default=None,
        pattern=SESSION_ID_PATTERN,
        description="Conversation id; else the x-ag-session-id header; else a fresh one is minted.",
    )
    data: InvokeData | None = None


class Status(BaseModel):
    code: int = 200
    message: str = "Success"


class InvokeOutputs(_Open):
    messages: list[dict[str, Any]] = Field(description="The turn's messages, in the requested format.")
    stop_reason: str | None = Field(default=None, description="Why the turn ended (raw agent value).")
    pending_interaction: dict[str, Any] | None = Field(
        default=None, description="What the client must answer; only when stop_reason is `paused`."
    )


class InvokeResponseData(BaseModel):
    outputs: InvokeOutputs


class InvokeResponse(BaseModel):
    version: str = WIRE_VERSION
    status: Status
    session_id: str = Field(pattern=SESSION_ID_PATTERN)
    trace_id: str = Field(pattern=r"^[0-9a-f]{32}$")
    data: InvokeResponseData


class ErrorItem(BaseModel):
    loc: list[str | int] = Field(description='Where, e.g. ["body", "data", "inputs", "messages", 0]')
    msg: str
    type: str


class ValidationErrorBody(BaseModel):
    detail: list[ErrorItem]


class MessageBody(BaseModel):
    detail: str


class NotAcceptableBody(BaseModel):
    detail: str
    requested: str
    supported: list[str]


class Health(BaseModel):
    status: str = "ok"
