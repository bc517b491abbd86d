"""The JSON-RPC 2.0 envelope of the A2A door: requests read, results and errors written.

Every answer is HTTP 200 with a JSON-RPC body (the ``a2a-sdk`` client reads an HTTP error status
as a transport failure, not as the A2A error it carries). Error codes are the A2A spec's:

======  ==============================  ====================================================
code    A2A error                       when
======  ==============================  ====================================================
-32700  JSON parse error                the body is not JSON
-32600  invalid request                 not a JSON-RPC 2.0 request object
-32601  method not found                a method neither v1.0 nor v0.3 has
-32602  invalid params                  params of the wrong shape (``data.field`` names it),
                                        a refused approval answer (``data.reason``)
-32603  internal error                  a bug (logged with the request id)
-32001  task not found                  no such task for this tenant
-32002  task not cancelable             the task is in a final state
-32003  push notifications unsupported  a push notification config method
-32004  unsupported operation           a message to a finished or running task, …
-32005  content type not supported      ``acceptedOutputModes`` the agent cannot produce
======  ==============================  ====================================================
"""

from __future__ import annotations

from typing import Any, Final

import orjson
from starlette.responses import Response

from turnwire.errors import InputError

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
TASK_NOT_FOUND: Final = -32001
TASK_NOT_CANCELABLE: Final = -32002
PUSH_NOT_SUPPORTED: Final = -32003
UNSUPPORTED_OPERATION: Final = -32004
CONTENT_TYPE_NOT_SUPPORTED: Final = -32005

JSON_MEDIA_TYPE: Final = "application/json"
RequestId = str | int | None


class RpcError(Exception):
    """An A2A error answered as a JSON-RPC error object."""

    def __init__(self, code: int, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def body(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data:
            error["data"] = self.data
        return error


def invalid_params(exc: InputError, prefix: tuple[str | int, ...] = ("params",)) -> RpcError:
    """An ``InputError`` as invalid params, ``data.field`` naming the field (``params.message.role``)."""
    where = InputError("", loc=(*prefix, *exc.loc)).where
    return RpcError(INVALID_PARAMS, f"{where}: {exc.msg}", {"field": where, "type": exc.type})


def task_not_found(task_id: str) -> RpcError:
    return RpcError(TASK_NOT_FOUND, f"task {task_id!r} was not found", {"taskId": task_id})


def result_body(request_id: RequestId, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_body(request_id: RequestId, error: RpcError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.body()}


def rpc_response(body: dict[str, Any], headers: dict[str, str] | None = None) -> Response:
    return Response(orjson.dumps(body), status_code=200, headers=headers, media_type=JSON_MEDIA_TYPE)


def parse_envelope(raw: Any) -> tuple[RequestId, str, dict[str, Any]]:
    """``(id, method, params)`` of a JSON-RPC request object; ``RpcError`` (invalid request)
    otherwise. Missing params are ``{}``; params that are not an object are invalid params."""
    if not isinstance(raw, dict):
        raise RpcError(INVALID_REQUEST, "the request must be a JSON-RPC 2.0 request object")
    if raw.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, 'jsonrpc must be "2.0"', {"field": "jsonrpc"})
    method = raw.get("method")
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, "method must be a non-empty string", {"field": "method"})
    params = raw.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_PARAMS, "params must be an object", {"field": "params"})
    return request_id(raw), method, params


def request_id(raw: Any) -> RequestId:
    """The request's id when it is one JSON-RPC allows (string, number, null), else ``None``."""
    if not isinstance(raw, dict):
        return None
    value = raw.get("id")
    if isinstance(value, bool) or not isinstance(value, str | int | None):
        return None
    return value
