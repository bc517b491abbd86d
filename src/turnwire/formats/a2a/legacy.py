"""A2A v0.3 shapes ⇄ the v1.0 shapes the rest of this package speaks.

v0.3 (``message/send``, ``message/stream``, ``tasks/get``, ``tasks/cancel``, ``tasks/resubscribe``)
tags every object with ``kind`` (``task``, ``message``, ``status-update``, ``artifact-update``),
names roles ``user``/``agent`` and states ``completed``, ``input-required``…, nests files under
``file`` (``bytes``/``uri``, ``mimeType``, ``name``), allows only objects as ``data`` (another
JSON value travels as ``{"value": …}`` with ``metadata.data_part_compat``), and marks the last
status update of a stream ``final``. A data part's media type, which v0.3 lacks, travels in its
``metadata.mediaType``.
"""

from __future__ import annotations

from typing import Any, Final

from turnwire.formats.a2a.task import INPUT_REQUIRED, TERMINAL

STATE_PREFIX: Final = "TASK_STATE_"
_ROLES_OUT: Final = {"ROLE_USER": "user", "ROLE_AGENT": "agent"}
_FINAL: Final = TERMINAL | {INPUT_REQUIRED}
DATA_COMPAT: Final = "data_part_compat"


# --------------------------------------------------------------------------- requests in


def part_from_v03(raw: Any) -> Any:
    """A v0.3 part → a v1.0 part (anything unrecognised is passed on for the parser to refuse)."""
    if not isinstance(raw, dict):
        return raw
    kind = raw.get("kind")
    metadata = dict(raw["metadata"]) if isinstance(raw.get("metadata"), dict) else {}
    out: dict[str, Any]
    if kind == "text":
        out = {"text": raw.get("text")}
    elif kind == "data":
        data = raw.get("data")
        if metadata.pop(DATA_COMPAT, False) and isinstance(data, dict):
            data = data.get("value")
        out = {"data": data}
        media_type = metadata.pop("mediaType", None)
        if isinstance(media_type, str):
            out["mediaType"] = media_type
    elif kind == "file":
        file: dict[str, Any] = raw["file"] if isinstance(raw.get("file"), dict) else {}
        out = {"raw": file["bytes"]} if file.get("bytes") is not None else {"url": file.get("uri")}
        if file.get("mimeType"):
            out["mediaType"] = file["mimeType"]
        if file.get("name"):
            out["filename"] = file["name"]
    else:
        return raw
    if metadata:
        out["metadata"] = metadata
    return out


def message_from_v03(raw: Any) -> Any:
    """A v0.3 message → a v1.0 message (roles stay: the parser reads both spellings)."""
    if not isinstance(raw, dict):
        return raw
    out = {k: v for k, v in raw.items() if k != "kind"}
    if isinstance(raw.get("parts"), list):
        out["parts"] = [part_from_v03(p) for p in raw["parts"]]
    return out


def send_params_from_v03(params: dict[str, Any]) -> dict[str, Any]:
    """``message/send`` params → ``SendMessage`` params."""
    out = dict(params)
    if "message" in params:
        out["message"] = message_from_v03(params["message"])
    config = params.get("configuration")
    if isinstance(config, dict):
        core = {k: v for k, v in config.items() if k in ("acceptedOutputModes", "historyLength")}
        if config.get("blocking") is False:
            core["returnImmediately"] = True
        out["configuration"] = core
    return out


# --------------------------------------------------------------------------- results out


def state_to_v03(state: str) -> str:
    return state.removeprefix(STATE_PREFIX).lower().replace("_", "-") if state else "unknown"


def part_to_v03(part: dict[str, Any]) -> dict[str, Any]:
    metadata = dict(part.get("metadata") or {})
    out: dict[str, Any]
    if "text" in part:
        out = {"kind": "text", "text": part["text"]}
    elif "data" in part:
        data = part["data"]
        if not isinstance(data, dict):
            data, metadata[DATA_COMPAT] = {"value": data}, True
        if part.get("mediaType"):
            metadata["mediaType"] = part["mediaType"]
        out = {"kind": "data", "data": data}
    else:
        file: dict[str, Any] = {"bytes": part["raw"]} if "raw" in part else {"uri": part.get("url", "")}
        if part.get("mediaType"):
            file["mimeType"] = part["mediaType"]
        if part.get("filename"):
            file["name"] = part["filename"]
        out = {"kind": "file", "file": file}
    if metadata:
        out["metadata"] = metadata
    return out


def message_to_v03(message: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in message.items() if k not in ("role", "parts")}
    out["kind"] = "message"
    out["role"] = _ROLES_OUT.get(message.get("role", ""), "agent")
    out["parts"] = [part_to_v03(p) for p in message.get("parts") or []]
    return out


def status_to_v03(status: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"state": state_to_v03(status.get("state", ""))}
    if status.get("message") is not None:
        out["message"] = message_to_v03(status["message"])
    if status.get("timestamp"):
        out["timestamp"] = status["timestamp"]
    return out


def artifact_to_v03(artifact: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in artifact.items() if k != "parts"}
    out["parts"] = [part_to_v03(p) for p in artifact.get("parts") or []]
    return out


def task_to_v03(task: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": "task", "id": task["id"], "contextId": task["contextId"]}
    out["status"] = status_to_v03(task["status"])
    if task.get("artifacts"):
        out["artifacts"] = [artifact_to_v03(a) for a in task["artifacts"]]
    if task.get("history"):
        out["history"] = [message_to_v03(m) for m in task["history"]]
    if task.get("metadata"):
        out["metadata"] = task["metadata"]
    return out


def stream_response_to_v03(frame: dict[str, Any]) -> dict[str, Any]:
    """A v1.0 ``StreamResponse`` (or ``SendMessageResponse``) → the v0.3 event it stands for."""
    if "task" in frame:
        return task_to_v03(frame["task"])
    if "message" in frame:
        return message_to_v03(frame["message"])
    if "statusUpdate" in frame:
        update = frame["statusUpdate"]
        out = {
            "kind": "status-update",
            "taskId": update["taskId"],
            "contextId": update["contextId"],
            "status": status_to_v03(update["status"]),
            "final": update["status"].get("state") in _FINAL,
        }
        if update.get("metadata"):
            out["metadata"] = update["metadata"]
        return out
    update = frame["artifactUpdate"]
    out = {k: v for k, v in update.items() if k != "artifact"}
    out["kind"] = "artifact-update"
    out["artifact"] = artifact_to_v03(update["artifact"])
    return out
