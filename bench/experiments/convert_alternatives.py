"""Workload 1's road not taken: what skipping the canonical objects, or msgspec, would buy.

Measured beside turnwire's path and the orjson floor, on every corpus of ``bench_vercel.CORPORA``,
round-robin, best of ``--repeat`` in CPU time:

- **turnwire**: ``orjson.loads`` → ``vercel.parse_messages`` → ``agenta.render_messages`` → ``orjson.dumps``
- **dict → dict**: a prototype converting UIMessage dicts straight into Agenta dicts for the shapes of
  these corpora, with no canonical object in between (no ids checked, no InputError: a bound on
  what such a path could gain, not a finished one)
- **msgspec structs**: ``msgspec.json.decode`` into typed structs (one flat struct per part, the
  tagged union cannot match ``tool-<name>`` by prefix), then the same conversion from attributes
- **floor**: ``orjson.loads`` + ``orjson.dumps``

Both alternatives run with the cyclic GC paused, as turnwire's parse and render do from 512
messages, and must produce the same Agenta JSON as turnwire (checked before timing). Needs
``msgspec`` (not a turnwire dependency): ``pip install msgspec`` in the venv that runs this.

    python bench/experiments/convert_alternatives.py [--repeat 5] [--references]

``--references`` imports Agenta and pydantic-ai first, as compare_convert.py does, so the garbage
collector has their objects to walk too (as in a server process).
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from typing import Any

import msgspec
import orjson

from bench_vercel import CORPORA
from timing import interleaved, machine
from turnwire.formats import agenta, vercel

_NOT_CALLS = {"tool-output-available", "tool-output-error", "tool-output-denied", "tool-approval-response"}


def _tool(
    call_id: Any, name: Any, state: Any, tool_input: Any, output: Any, error: Any, approval: Any
) -> list:
    call: dict[str, Any] = {"type": "tool_call", "toolCallId": call_id}
    if name is not None:
        call["toolName"] = name
    if tool_input is not None:
        call["input"] = tool_input
    result: dict[str, Any] = {"type": "tool_result", "toolCallId": call_id}
    if name is not None:
        result["toolName"] = name
    if error is not None or state == "output-error":
        result["output"] = error
        result["isError"] = True
    elif output is not msgspec.UNSET or state == "output-available":
        result["output"] = None if output is msgspec.UNSET else output
        result["isError"] = False
    elif isinstance(approval, dict) and isinstance(approval.get("approved"), bool):
        decision = {"approved": approval["approved"]}
        if approval.get("id"):
            decision["interactionToken"] = approval["id"]
        result["output"] = decision
    elif state == "output-denied":
        result["output"] = {"approved": False}
    else:
        return [call]
    return [call, result]


def _file(mime: Any, url: Any, filename: Any, meta: Any) -> dict[str, Any]:
    attachment = meta.get("agenta", {}).get("attachmentId") if isinstance(meta, dict) else None
    if attachment:
        out = {"type": "attachment", "attachmentId": attachment}
        if filename:
            out["filename"] = filename
        if mime:
            out["mimeType"] = mime
        return out
    out = {"type": "image" if mime and mime.startswith("image/") else "resource", "uri": url}
    if mime:
        out["mimeType"] = mime
    if filename:
        out["filename"] = filename
    return out


def _content(blocks: list[dict[str, Any]], texts: int) -> Any:
    if not blocks:
        return ""
    if len(blocks) == 1 and texts == 1 and blocks[0]["text"]:
        return blocks[0]["text"]
    return blocks


def paused(convert: Callable[[bytes], bytes]) -> Callable[[bytes], bytes]:
    """``convert`` with the cyclic GC paused, as turnwire's parse and render run (formats/_gc.py)."""

    def run(raw: bytes) -> bytes:
        gc.disable()
        try:
            return convert(raw)
        finally:
            gc.enable()

    return run


@paused
def dict_to_dict(raw: bytes) -> bytes:
    out = []
    for m in orjson.loads(raw):
        blocks: list[dict[str, Any]] = []
        texts = 0
        for p in m["parts"]:
            kind = p["type"]
            if kind == "text":
                blocks.append({"type": "text", "text": p["text"]})
                texts += 1
            elif kind in ("step-start", "reasoning") or kind.startswith("data-"):
                continue
            elif kind == "file":
                blocks.append(
                    _file(p.get("mediaType"), p.get("url"), p.get("filename"), p.get("providerMetadata"))
                )
            elif kind == "dynamic-tool" or (kind.startswith("tool-") and kind not in _NOT_CALLS):
                name = p.get("toolName") or (kind[5:] if kind != "dynamic-tool" else None)
                output = p.get("output", msgspec.UNSET)
                args = (p.get("state"), p.get("input"), output, p.get("errorText"), p.get("approval"))
                blocks += _tool(p["toolCallId"], name, *args)
            else:
                raise ValueError(kind)
        out.append({"role": m["role"], "content": _content(blocks, texts), "id": m["id"]})
    return orjson.dumps(out)


class Part(msgspec.Struct):
    type: str
    text: str | None = None
    state: str | None = None
    toolCallId: str | None = None
    toolName: str | None = None
    input: Any = None
    output: Any = msgspec.UNSET
    errorText: str | None = None
    approval: dict[str, Any] | None = None
    mediaType: str | None = None
    url: str | None = None
    filename: str | None = None
    providerMetadata: dict[str, Any] | None = None
    id: str | None = None
    data: Any = None


class UIMessage(msgspec.Struct):
    role: str
    id: str | None = None
    parts: list[Part] = []


_decoder = msgspec.json.Decoder(list[UIMessage])


@paused
def msgspec_structs(raw: bytes) -> bytes:
    out = []
    for m in _decoder.decode(raw):
        blocks: list[dict[str, Any]] = []
        texts = 0
        for p in m.parts:
            kind = p.type
            if kind == "text":
                blocks.append({"type": "text", "text": p.text})
                texts += 1
            elif kind in ("step-start", "reasoning") or kind.startswith("data-"):
                continue
            elif kind == "file":
                blocks.append(_file(p.mediaType, p.url, p.filename, p.providerMetadata))
            elif kind == "dynamic-tool" or (kind.startswith("tool-") and kind not in _NOT_CALLS):
                name = p.toolName or (kind[5:] if kind != "dynamic-tool" else None)
                blocks += _tool(p.toolCallId, name, p.state, p.input, p.output, p.errorText, p.approval)
            else:
                raise ValueError(kind)
        out.append({"role": m.role, "content": _content(blocks, texts), "id": m.id})
    return orjson.dumps(out)


def turnwire_convert(raw: bytes) -> bytes:
    return orjson.dumps(agenta.render_messages(vercel.parse_messages(orjson.loads(raw))))


def floor(raw: bytes) -> bytes:
    return orjson.dumps(orjson.loads(raw))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--references", action="store_true", help="import Agenta and pydantic-ai first")
    args = ap.parse_args()
    if args.references:
        from timing import quiet_references

        quiet_references()
        import agenta.sdk.agents.adapters.vercel  # noqa: F401
        import pydantic_ai.ui.vercel_ai  # noqa: F401

    print("## Workload 1, alternatives: UIMessages → Agenta without canonical objects\n")
    print(f"{machine()}; CPU time, best of {args.repeat}, round-robin per corpus", end="")
    print("; Agenta and pydantic-ai imported\n" if args.references else "\n")
    print("| corpus | turnwire ÷ floor | dict → dict ÷ floor | msgspec structs ÷ floor | floor ms |")
    print("|---|---|---|---|---|")
    for name, (build, n, _) in CORPORA.items():
        raw = orjson.dumps(build(n))
        ours = orjson.loads(turnwire_convert(raw))
        assert orjson.loads(dict_to_dict(raw)) == ours, f"dict → dict differs on {name}"
        assert orjson.loads(msgspec_structs(raw)) == ours, f"msgspec differs on {name}"
        runs = {
            "turnwire": lambda raw=raw: turnwire_convert(raw),
            "dict": lambda raw=raw: dict_to_dict(raw),
            "msgspec": lambda raw=raw: msgspec_structs(raw),
            "floor": lambda raw=raw: floor(raw),
        }
        t = interleaved(runs, args.repeat, clock=time.process_time)
        f = t["floor"]
        print(
            f"| {name} | {t['turnwire'] / f:.2f}× | {t['dict'] / f:.2f}× | {t['msgspec'] / f:.2f}× "
            f"| {f * 1e3:.1f} |"
        )


if __name__ == "__main__":
    main()
