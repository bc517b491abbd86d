"""Workload 2, stream encoding: one long agent turn → Vercel SSE bytes and → Agenta SSE bytes.

The turn is ``bench_vercel.build_turn`` (≥ 100k events: text deltas, thoughts, tool calls with a
refresh, results, usage, done). Each implementation gets it in its own native input form, built
before timing: turnwire canonical events; Agenta ``{"type", "data"}`` event dicts (what its handler
yields); pydantic-ai native run events (``PartStartEvent``/``PartDeltaEvent``/``PartEndEvent``,
``FunctionToolCallEvent``, ``FunctionToolResultEvent``). Output is the SSE bytes a client reads.

Vercel SSE:
- turnwire: ``stream_sse`` over a ``UIStreamEncoder`` (public sync API), and the server's async path
  ``turnwire.server.turns.streaming.stream_body`` with keepalive off and at its default 15 s, fed by a plain
  async generator and, as the server feeds it, by a real ``run_turn`` (agent task, channel, guard)
- Agenta: ``agent_stream_to_vercel_stream`` + ``vercel_sse_stream``, ``.encode()``; keepalive off, and
  with its production default (15 s: one task and ``wait_for`` per part)
- pydantic-ai: ``VercelAIEventStream.transform_stream`` + ``encode_event`` (sdk v6), ``.encode()``
- floor: one ``orjson.dumps`` + SSE framing per frame of turnwire's output chunks

Agenta SSE:
- turnwire: ``event_to_frame`` + ``sse_frame`` per event, and the server's ``stream_body`` (plain async
  generator and real ``run_turn``, as above)
- Agenta: its ``/invoke`` framing (``routing._sse_stream``: ``json.dumps`` per event), ``.encode()``
- pydantic-ai: no Agenta output (not comparable)
- floor: one ``orjson.dumps`` + framing per frame

    bench/.venv/bin/python bench/compare_stream.py [--events 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator

import orjson

from timing import aiter_of, drain, interleaved, machine, quiet_references

quiet_references()

from agenta.sdk.agents.adapters.vercel import sse as agenta_sse_module  # noqa: E402
from agenta.sdk.agents.adapters.vercel import vercel_sse_stream  # noqa: E402
from agenta.sdk.agents.adapters.vercel.stream import agent_stream_to_vercel_stream  # noqa: E402
from agenta.sdk.decorators.routing import _sse_stream as agenta_invoke_sse  # noqa: E402
from pydantic_ai import messages as pm  # noqa: E402
from pydantic_ai.ui.vercel_ai import VercelAIEventStream  # noqa: E402

from bench_vercel import build_turn  # noqa: E402
from turnwire.formats.agenta import AgentaFrames, event_to_frame  # noqa: E402
from turnwire.formats.vercel import UIStreamEncoder, stream_sse  # noqa: E402
from turnwire.framing import SSE_DONE, sse_frame  # noqa: E402
from turnwire.model import (  # noqa: E402
    Event,
    MessageDelta,
    MessageEnd,
    MessageStart,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolResult,
)
from turnwire.runtime import TurnContext, TurnRun, run_turn  # noqa: E402
from turnwire.server.http.negotiation import Transport  # noqa: E402
from turnwire.server.turns.streaming import stream_body  # noqa: E402


def pydantic_ai_events(events: list) -> list:
    """The same turn as pydantic-ai run events (a refreshed tool call has no equivalent: skipped)."""
    out: list = []
    index, texts, seen_calls = -1, {}, set()
    for e in events:
        cls = e.__class__
        if cls is MessageStart or cls is ThoughtStart:
            index += 1
            texts[e.id] = []
            part = pm.TextPart("") if cls is MessageStart else pm.ThinkingPart("")
            out.append(pm.PartStartEvent(index=index, part=part))
        elif cls is MessageDelta:
            texts[e.id].append(e.delta)
            out.append(pm.PartDeltaEvent(index=index, delta=pm.TextPartDelta(content_delta=e.delta)))
        elif cls is ThoughtDelta:
            texts[e.id].append(e.delta)
            out.append(pm.PartDeltaEvent(index=index, delta=pm.ThinkingPartDelta(content_delta=e.delta)))
        elif cls is MessageEnd or cls is ThoughtEnd:
            text = "".join(texts.pop(e.id))
            part = pm.TextPart(text) if cls is MessageEnd else pm.ThinkingPart(text)
            out.append(pm.PartEndEvent(index=index, part=part))
        elif cls is ToolCall and e.id not in seen_calls:
            seen_calls.add(e.id)
            index += 1
            part = pm.ToolCallPart(e.name, e.arguments, tool_call_id=e.id)
            out += [pm.PartStartEvent(index=index, part=part), pm.PartEndEvent(index=index, part=part)]
            out.append(pm.FunctionToolCallEvent(part))
        elif cls is ToolResult:
            out.append(pm.FunctionToolResultEvent(pm.ToolReturnPart("bash", e.output, tool_call_id=e.id)))
    return out


def agenta_vercel(frames: list) -> bytes:
    parts = agent_stream_to_vercel_stream(aiter_of(frames), session_id="s-1", message_id="msg-1")
    return "".join(drain(vercel_sse_stream(parts))).encode()


def agenta_vercel_keepalive(frames: list) -> bytes:
    """Agenta's production default: a keepalive race (a task + ``wait_for`` per part), 15 s."""
    saved, agenta_sse_module._KEEPALIVE_INTERVAL_SECONDS = agenta_sse_module._KEEPALIVE_INTERVAL_SECONDS, 15.0
    try:
        return agenta_vercel(frames)
    finally:
        agenta_sse_module._KEEPALIVE_INTERVAL_SECONDS = saved


def agenta_agenta(frames: list) -> bytes:
    return "".join(drain(agenta_invoke_sse(aiter_of(frames)))).encode()


def pydantic_ai_vercel(native: list) -> bytes:
    stream = VercelAIEventStream(None, sdk_version=6, server_message_id="msg-1")
    return "".join(drain(stream.encode_stream(stream.transform_stream(aiter_of(native))))).encode()


class PlainRun:
    """The events as an ``EventRun`` with no agent task behind it: the server's encoding path alone."""

    stop_reason = None

    def __init__(self, events: list) -> None:
        self._it = aiter_of(events)

    def __aiter__(self) -> PlainRun:
        return self

    def __anext__(self):  # type: ignore[no-untyped-def]
        return self._it.__anext__()

    def pull(self, timeout: float | None):  # type: ignore[no-untyped-def]
        return self._it.__anext__()

    async def aclose(self) -> None:
        await self._it.aclose()


def vercel_sse(run, encoder, keepalive):  # type: ignore[no-untyped-def]
    return stream_body(run, encoder, Transport.SSE, keepalive=keepalive, trailer=SSE_DONE)


def agenta_sse(run, keepalive):  # type: ignore[no-untyped-def]
    return stream_body(run, AgentaFrames(), Transport.SSE, keepalive=keepalive)


def turnwire_server_vercel(events: list, keepalive: float | None = None) -> bytes:
    return b"".join(drain(vercel_sse(PlainRun(events), UIStreamEncoder("msg-1", "s-1"), keepalive)))


def run_of(events: list) -> TurnRun:
    """The turn as the server streams it: an agent yielding ``events`` under ``run_turn``."""

    async def agent(ctx: TurnContext) -> AsyncIterator[Event]:
        for e in events:
            yield e

    return run_turn(agent, TurnContext(messages=[], session_id="s-1", trace_id="t-1"))


def turnwire_run_vercel(events: list, keepalive: float | None = None) -> bytes:
    return b"".join(drain(vercel_sse(run_of(events), UIStreamEncoder("msg-1", "s-1"), keepalive)))


def turnwire_run_agenta(events: list, keepalive: float | None = None) -> bytes:
    return b"".join(drain(agenta_sse(run_of(events), keepalive)))


def turnwire_agenta(events: list) -> bytes:
    return b"".join([sse_frame(event_to_frame(e)) for e in events])


def turnwire_server_agenta(events: list, keepalive: float | None = None) -> bytes:
    return b"".join(drain(agenta_sse(PlainRun(events), keepalive)))


def encode_turn(events: list) -> bytes:
    """turnwire's public sync API: ``stream_sse`` over a fresh ``UIStreamEncoder``."""
    return b"".join(stream_sse(events, UIStreamEncoder("msg-1", "s-1")))


def frames_in(body: bytes) -> int:
    return body.count(b"\n\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    events = build_turn(args.events)
    frames = [event_to_frame(e) for e in events]
    native = pydantic_ai_events(events)
    vercel_body = encode_turn(events)
    chunks = [orjson.loads(f[6:]) for f in vercel_body.split(b"\n\n") if f.startswith(b"data: {")]
    agenta_body = turnwire_agenta(events)
    assert turnwire_server_agenta(events) == agenta_body
    assert frames_in(turnwire_run_agenta(events)) == frames_in(agenta_body)
    assert frames_in(turnwire_run_vercel(events)) == frames_in(vercel_body)
    assert frames_in(turnwire_server_vercel(events)) == frames_in(vercel_body)
    counts = {
        "turnwire": frames_in(vercel_body),
        "agenta": frames_in(agenta_vercel(frames)),
        "pydantic-ai": frames_in(pydantic_ai_vercel(native)),
    }
    # The agenta SSE bytes must be the same frames whoever frames them.
    theirs = [orjson.loads(f[6:]) for f in agenta_agenta(frames).split(b"\n\n") if f]
    assert theirs == frames, "Agenta SSE frames differ"

    n = len(events)
    vt = interleaved(
        {
            "turnwire": lambda: encode_turn(events),
            "turnwire server": lambda: turnwire_server_vercel(events),
            "turnwire server keepalive": lambda: turnwire_server_vercel(events, 15.0),
            "turnwire run": lambda: turnwire_run_vercel(events),
            "turnwire run keepalive": lambda: turnwire_run_vercel(events, 15.0),
            "agenta": lambda: agenta_vercel(frames),
            "agenta keepalive": lambda: agenta_vercel_keepalive(frames),
            "pydantic-ai": lambda: pydantic_ai_vercel(native),
            "floor": lambda: b"".join([sse_frame(c) for c in chunks]) + SSE_DONE,
        },
        args.repeat,
    )
    at = interleaved(
        {
            "turnwire": lambda: turnwire_agenta(events),
            "turnwire server": lambda: turnwire_server_agenta(events),
            "turnwire server keepalive": lambda: turnwire_server_agenta(events, 15.0),
            "turnwire run": lambda: turnwire_run_agenta(events),
            "turnwire run keepalive": lambda: turnwire_run_agenta(events, 15.0),
            "agenta": lambda: agenta_agenta(frames),
            "floor": lambda: b"".join([sse_frame(f) for f in frames]),
        },
        args.repeat,
    )
    print(f"## Workload 2 — stream encoding: one turn of {n:,} events\n")
    print(f"{machine()}; best of {args.repeat}, round-robin\n")
    print("### → Vercel UI Message Stream SSE\n")
    print("| implementation | frames out | ms | events/s | ÷ floor (time) | its time ÷ turnwire's |")
    print("|---|---|---|---|---|---|")
    rows = (
        ("turnwire", "turnwire stream_sse (sync)", counts["turnwire"]),
        ("turnwire server", "turnwire server path (async, keepalive off)", counts["turnwire"]),
        ("turnwire server keepalive", "turnwire server path (async, keepalive 15 s)", counts["turnwire"]),
        ("turnwire run", "turnwire server path from run_turn (keepalive off)", counts["turnwire"]),
        ("turnwire run keepalive", "turnwire server path from run_turn (keepalive 15 s)", counts["turnwire"]),
        ("agenta", "Agenta 0.125.1 stream adapter + SSE (keepalive off)", counts["agenta"]),
        ("agenta keepalive", "Agenta 0.125.1, its default keepalive 15 s", counts["agenta"]),
        ("pydantic-ai", "pydantic-ai VercelAIEventStream (v6)", counts["pydantic-ai"]),
        ("floor", "floor: orjson.dumps + framing per frame", counts["turnwire"]),
    )
    for key, label, count in rows:
        print(
            f"| {label} | {count:,} | {vt[key] * 1e3:.1f} | {n / vt[key]:,.0f} | "
            f"{vt[key] / vt['floor']:.2f}× | {vt[key] / vt['turnwire']:.2f} |"
        )
    print("\n### → Agenta SSE\n")
    print("| implementation | frames out | ms | events/s | ÷ floor (time) | its time ÷ turnwire's |")
    print("|---|---|---|---|---|---|")
    for key, label in (
        ("turnwire", "turnwire event_to_frame + sse_frame (sync)"),
        ("turnwire server", "turnwire server path (async, keepalive off)"),
        ("turnwire server keepalive", "turnwire server path (async, keepalive 15 s)"),
        ("turnwire run", "turnwire server path from run_turn (keepalive off)"),
        ("turnwire run keepalive", "turnwire server path from run_turn (keepalive 15 s)"),
        ("agenta", "Agenta 0.125.1 /invoke SSE framing (no keepalive there)"),
        ("floor", "floor: orjson.dumps + framing per frame"),
    ):
        print(
            f"| {label} | {len(frames):,} | {at[key] * 1e3:.1f} | {n / at[key]:,.0f} | "
            f"{at[key] / at['floor']:.2f}× | {at[key] / at['turnwire']:.2f} |"
        )
    print("| pydantic-ai | — | — | — | — | no Agenta output: not comparable |")


if __name__ == "__main__":
    main()
