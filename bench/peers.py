"""Peers: the same pydantic-ai agent behind the servers a user would pick instead, and behind turnwire.

Each pair is one wire served two ways, in its own uvicorn process on 127.0.0.1 (access log off
for all): pydantic-ai's ``VercelAIAdapter`` vs ``turnwire serve`` ``/chat``, pydantic-ai's
``AGUIAdapter`` vs ``turnwire serve`` ``/agui``, and the same words from an executor behind
a2a-sdk's own server classes (JSON-RPC routes, ``DefaultRequestHandlerV2``, ``InMemoryTaskStore``)
vs ``turnwire serve``'s A2A door ``/a2a``, both answering ``SendStreamingMessage``
(``peers_apps.py``), and one of this wave's framework adapters: a LangGraph graph streaming the same
words on bare Starlette (``/graph``, each chunk one SSE frame) vs behind ``turnwire serve`` ``/chat``
through ``langgraph_agent`` (``peers_graph.py``); that pair also runs the graph alone in this process,
no HTTP, for the framework's own CPU per turn. turnwire records every turn in SQLite, a fresh file
per run. For each
concurrency level the asyncio load generator (aiohttp) keeps that many turns in flight until
the level's turns are done, each a new conversation, and records the time to the first body
byte, whether the whole answer arrived (200 and the last word), the server's CPU time
(``/proc``) and its peak RSS. Rounds alternate the order within each pair,
so neither side always runs on a warmer or quieter machine; quote the ratios.

    bench/.venv/bin/python bench/peers.py [--levels 1,30,300] [--rounds 2] [--pairs vercel,agui,a2a,langgraph]
        [--turns 1:40,30:300,300:600]

Writes a Markdown table on stdout (``make bench`` saves it as ``out/peers.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import aiohttp
import orjson

from load import free_port, proc_cpu_s, proc_rss_mb

BENCH = Path(__file__).resolve().parent
DELTAS = int(os.environ.get("PEERS_DELTAS", "100"))


def vercel_body() -> bytes:
    sid = uuid.uuid4().hex
    text = {"type": "text", "text": "hello"}
    message = {"id": f"u-{sid}", "role": "user", "parts": [text]}
    return orjson.dumps({"id": sid, "messages": [message], "trigger": "submit-message"})


def agui_body() -> bytes:
    sid = uuid.uuid4().hex
    return orjson.dumps(
        {
            "threadId": sid,
            "runId": f"r-{sid}",
            "messages": [{"id": f"u-{sid}", "role": "user", "content": "hello"}],
            "tools": [],
            "context": [],
            "state": {},
            "forwardedProps": {},
        }
    )


def a2a_body() -> bytes:
    """``SendStreamingMessage`` (v0.3 ``message/stream``) of a new task in a new context."""
    message = {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": "hello"}]}
    rpc = {"jsonrpc": "2.0", "id": uuid.uuid4().hex, "method": "SendStreamingMessage"}
    return orjson.dumps({**rpc, "params": {"message": message}})


A2A_HEADERS: Final = {"a2a-version": "1.0"}  # a2a-sdk's handler refuses a request without it (as 0.3)


@dataclass(frozen=True)
class Server:
    name: str
    path: str
    body: Callable[[], bytes]
    command: Callable[[int, str], list[str]]
    headers: dict[str, str] = field(default_factory=dict)


def _uvicorn(app: str) -> Callable[[int, str], list[str]]:
    def command(port: int, workdir: str) -> list[str]:
        return [sys.executable, "-m", "uvicorn", app, "--port", str(port), "--no-access-log"]

    return command


def _turnwire_with(agent: str) -> Callable[[int, str], list[str]]:
    def command(port: int, workdir: str) -> list[str]:
        exe = str(Path(sys.executable).with_name("turnwire"))
        return [
            exe, "serve", "--port", str(port), "--app-dir", str(BENCH), "--agent", f"peer={agent}",
            "--default-agent", "peer", "--db", f"sqlite:///{workdir}/peers.db", "--log-level", "warning",
        ]  # fmt: skip

    return command


_turnwire = _turnwire_with("peers_apps:agent")


PAIRS: dict[str, tuple[Server, Server]] = {
    "vercel": (
        Server("pydantic-ai VercelAIAdapter", "/chat", vercel_body, _uvicorn("peers_apps:vercel_app")),
        Server("turnwire /chat", "/chat", vercel_body, _turnwire),
    ),
    "agui": (
        Server("pydantic-ai AGUIAdapter", "/agui", agui_body, _uvicorn("peers_apps:agui_app")),
        Server("turnwire /agui", "/agui", agui_body, _turnwire),
    ),
    "a2a": (
        Server("a2a-sdk server", "/a2a", a2a_body, _uvicorn("peers_apps:a2a_app"), A2A_HEADERS),
        Server("turnwire /a2a", "/a2a", a2a_body, _turnwire, A2A_HEADERS),
    ),
    "langgraph": (
        Server("LangGraph graph on Starlette", "/graph", vercel_body, _uvicorn("peers_graph:graph_app")),
        Server("turnwire /chat (langgraph_agent)", "/chat", vercel_body, _turnwire_with("peers_graph:agent")),
    ),
}
GRAPH_ALONE: Final = "LangGraph graph alone, in process"
"""The langgraph pair's third figure: the same graph's turns on this process's loop, no HTTP."""


@dataclass
class Result:
    server: str
    level: int
    round: int
    turns: int = 0
    failed: int = 0
    ttfb_ms: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    cpu_s: float = 0.0
    rss_mb: float = 0.0
    load: float = 0.0
    """The machine's 1-minute load average when the level ended (other sessions share the cores)."""


@contextlib.contextmanager
def serving(server: Server) -> Iterator[tuple[str, int]]:
    port = free_port()
    with tempfile.TemporaryDirectory() as workdir:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(BENCH), os.environ.get("PYTHONPATH")])),
        }
        log = open(Path(workdir) / "server.log", "wb")  # noqa: SIM115 (closed below)
        proc = subprocess.Popen(
            server.command(port, workdir), cwd=BENCH, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            deadline = time.monotonic() + 120  # a loaded machine imports slowly
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"{server.name} exited: {(Path(workdir) / 'server.log').read_text()}")
                with contextlib.suppress(OSError):
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{server.name} did not start")
                time.sleep(0.05)
            yield f"http://127.0.0.1:{port}{server.path}", proc.pid
        finally:
            proc.terminate()
            proc.wait(timeout=15)
            log.close()


async def one_turn(
    http: aiohttp.ClientSession, url: str, body: bytes, extra: dict[str, str] | None = None
) -> float | None:
    """The first body byte's delay in ms, or ``None`` if the whole answer did not arrive."""
    start = time.perf_counter()
    first = None
    tail = b""
    headers = {"content-type": "application/json", "accept": "text/event-stream", **(extra or {})}
    async with http.post(url, data=body, headers=headers) as response:
        async for chunk in response.content.iter_any():
            if first is None:
                first = (time.perf_counter() - start) * 1000
            tail = (tail + chunk)[-4096:]
        # The last word arrives just before the stream's closing frames: 4 KB of tail hold it.
        ok = response.status == 200 and f"word{DELTAS - 1}".encode() in tail
    return first if ok else None


async def run_level(url: str, server: Server, level: int, turns: int) -> tuple[list[float | None], float]:
    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=300)) as http:
        for _ in range(min(5, turns)):  # warm-up: imports, first connections, the store's first file
            await one_turn(http, url, server.body(), server.headers)
        queue = iter(range(turns))
        out: list[float | None] = []

        async def worker() -> None:
            for _ in queue:
                try:
                    out.append(await one_turn(http, url, server.body(), server.headers))
                except (TimeoutError, aiohttp.ClientError):
                    out.append(None)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(level)))
        return out, time.perf_counter() - start


def measure(server: Server, level: int, turns: int, round_no: int) -> Result:
    with serving(server) as (url, pid):
        result = Result(server.name, level, round_no)
        cpu0 = proc_cpu_s(pid)
        rss = [proc_rss_mb(pid)]

        async def sample_rss(stop: asyncio.Event) -> None:
            while not stop.is_set():
                rss.append(proc_rss_mb(pid))
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(stop.wait(), 0.1)

        async def go() -> tuple[list[float | None], float]:
            stop = asyncio.Event()
            sampler = asyncio.create_task(sample_rss(stop))
            try:
                return await run_level(url, server, level, turns)
            finally:
                stop.set()
                await sampler

        ttfbs, wall = asyncio.run(go())
        result.cpu_s = proc_cpu_s(pid) - cpu0
        result.wall_s = wall
        result.rss_mb = max(rss)
        result.turns = len(ttfbs)
        result.failed = sum(1 for t in ttfbs if t is None)
        result.ttfb_ms = [t for t in ttfbs if t is not None]
        result.load = os.getloadavg()[0]
        return result


def measure_alone(level: int, turns: int, round_no: int) -> Result:
    """The langgraph pair's graph alone: its turns on an event loop of this process (uvloop, as
    the servers run), no HTTP; CPU per turn is the framework's own."""
    import peers_graph  # only this pair needs LangGraph

    cpu_ms, tps = peers_graph.in_process(level, turns)
    return Result(
        GRAPH_ALONE, level, round_no, turns=turns, wall_s=turns / tps, cpu_s=cpu_ms * turns / 1000,
        load=os.getloadavg()[0],
    )  # fmt: skip


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def table(results: list[Result], pairs: list[str], levels: list[int]) -> str:
    lines = [
        f"Each pair side by side in one run, rounds alternated; {DELTAS} text deltas per turn; "
        "CPU per turn = server CPU time over the level's turns (warm-up excluded).",
        "",
        "| wire | concurrent | server | CPU per turn (ms) | first byte p50 (ms) | first byte p99 (ms) "
        "| turns/s | peak RSS (MB) | failed | load |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    shares = [
        "",
        "| concurrent | graph alone in process: CPU per turn (ms) | graph on Starlette (ms) "
        "| turnwire /chat (ms) | turnwire's share of its CPU per turn | turnwire ÷ graph on Starlette |",
        "|---|---|---|---|---|---|",
    ]
    ratios = [
        "",
        "| wire | concurrent | turnwire ÷ peer: CPU per turn | first byte p50 | first byte p99 | turns/s |",
        "|---|---|---|---|---|---|",
    ]
    for pair in pairs:
        for level in levels:
            per: dict[str, list[Result]] = {}
            for r in results:
                if r.level == level and r.server in (PAIRS[pair][0].name, PAIRS[pair][1].name):
                    per.setdefault(r.server, []).append(r)
            figures: dict[str, list[tuple[float, float, float, float]]] = {}
            for name in (PAIRS[pair][0].name, PAIRS[pair][1].name):
                for r in per.get(name, []):
                    cpu = r.cpu_s / max(r.turns, 1) * 1000
                    p50, p99 = pct(r.ttfb_ms, 0.5), pct(r.ttfb_ms, 0.99)
                    tps = r.turns / r.wall_s if r.wall_s else float("nan")
                    figures.setdefault(name, []).append((cpu, p50, p99, tps))
                    lines.append(
                        f"| {pair} | {level} | {name} (round {r.round}) | {cpu:.1f} | {p50:.1f} | {p99:.1f} "
                        f"| {tps:.1f} | {r.rss_mb:.0f} | {r.failed} | {r.load:.1f} |"
                    )
            if pair == "langgraph":
                alone = [r for r in results if r.level == level and r.server == GRAPH_ALONE]
                for r in alone:
                    lines.append(
                        f"| {pair} | {level} | {GRAPH_ALONE} (round {r.round}) | {_cpu(r):.1f} | – | – "
                        f"| {r.turns / r.wall_s:.1f} | – | 0 | {r.load:.1f} |"
                    )
                bare, tw = (per.get(PAIRS[pair][i].name, []) for i in (0, 1))
                if alone and bare and tw:
                    # Round by round: each round's three measures ran back to back.
                    rows = list(zip(alone, bare, tw, strict=False))
                    share = [(_cpu(t) - _cpu(a)) / _cpu(t) for a, _, t in rows]
                    cells = [
                        _span(_cpu(a) for a, _, _ in rows),
                        _span(_cpu(b) for _, b, _ in rows),
                        _span(_cpu(t) for _, _, t in rows),
                        _span(share, "{:.0%}"),
                        _span((_cpu(t) / _cpu(b) for _, b, t in rows), "{:.2f}×"),
                    ]
                    shares.append(f"| {level} | " + " | ".join(cells) + " |")
            peer, ours = (figures.get(PAIRS[pair][i].name, []) for i in (0, 1))
            if peer and ours:
                cells = []
                for i in range(4):
                    each = [o[i] / p[i] for o, p in zip(ours, peer, strict=False) if p[i]]
                    cells.append("–".join(f"{x:.2f}×" for x in sorted(each)) if each else "n/a")
                ratios.append(f"| {pair} | {level} | " + " | ".join(cells) + " |")
    if len(shares) == 3:
        return "\n".join(lines + ratios) + "\n"
    return "\n".join([*lines, *ratios, *shares]) + "\n"


def _cpu(r: Result) -> float:
    return r.cpu_s / max(r.turns, 1) * 1000


def _span(values: Iterable[float], fmt: str = "{:.1f}") -> str:
    """``low–high`` of a figure over the rounds (one value when they agree)."""
    ordered = sorted(values)
    cells = dict.fromkeys(fmt.format(v) for v in (ordered[0], ordered[-1]))
    return "–".join(cells)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--levels", default="1,30,300")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--pairs", default=",".join(PAIRS))
    parser.add_argument("--turns", default="1:40,30:300,300:600", help="level:turns for each level")
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    turns = {int(k): int(v) for k, v in (kv.split(":") for kv in args.turns.split(","))}
    pairs = [p for p in args.pairs.split(",") if p]
    results: list[Result] = []
    for round_no in range(1, args.rounds + 1):
        for pair in pairs:
            order = PAIRS[pair] if round_no % 2 else PAIRS[pair][::-1]
            for level in levels:
                for server in order:
                    results.append(measure(server, level, turns.get(level, level * 10), round_no))
                    r = results[-1]
                    print(
                        f"# {pair} c={level} {server.name} r{round_no}: {r.turns} turns, {r.failed} failed, "
                        f"p50 {pct(r.ttfb_ms, 0.5):.1f} ms, cpu {r.cpu_s:.2f} s, load {r.load:.1f}",
                        file=sys.stderr,
                    )
                if pair == "langgraph":
                    results.append(measure_alone(level, turns.get(level, level * 10), round_no))
                    r = results[-1]
                    print(f"# {pair} c={level} alone r{round_no}: cpu {r.cpu_s:.2f} s", file=sys.stderr)
    sys.stdout.write(table(results, pairs, levels))


if __name__ == "__main__":
    main()
