"""Soak: hundreds of concurrent streamed turns across two servers on one PostgreSQL + Redis, with
faults on a schedule, for a bounded time. Run on demand (not by ``make bench``):

    python bench/soak.py                      # 10 minutes, 200 streams, a fault every 60 s
    python bench/soak.py --duration 60 --streams 100 --fault-every 15

It starts its own PostgreSQL, Redis and two ``turnwire serve`` processes on loopback (the fault
suite's helpers: ``tests/restartable.py``, ``tests/faults``), drives ``--streams`` clients that each
run one turn after another (Agenta ``/invoke`` and Vercel ``/chat`` in turn, on both servers), and
injects, in rotation: Redis SIGKILLed and started again empty, PostgreSQL restarted, server A
SIGKILLed and started again, PostgreSQL stopped for 3 s. Every 5 s it samples each server's RSS,
open files and sockets, the store's row count and Redis's key count.

At the end it checks every turn whose client received it whole: stored once, whole (a *lost*
message otherwise); and that nothing is left ``IN_PROGRESS``, open or live. It prints a Markdown
report (and ``--json`` writes the figures). Exit status 1 if anything was lost.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "faults")]

import asyncpg  # noqa: E402
import httpx  # noqa: E402
import orjson  # noqa: E402
import redis  # noqa: E402
from fault_agents import word  # noqa: E402
from fault_servers import chat_body, invoke_body  # noqa: E402
from pair import Node  # noqa: E402

from restartable import PostgresProcess, RedisProcess  # noqa: E402

WORDS, PAUSE = 20, 0.05  # a turn streams 20 words over ~1 s
WHOLE = "".join(word(i) for i in range(WORDS))


@dataclass
class Tally:
    complete: int = 0
    error: int = 0
    refused: int = 0  # 503 while a service was down (Retry-After)
    died: int = 0  # the connection broke mid-stream (the serving process was killed)
    unreachable: int = 0  # no answer at all (connect failed or timed out: a server restarting)
    cut: int = 0  # a silently cut stream: must stay 0
    whole: list[str] = field(default_factory=list)  # sessions whose client got the turn whole


async def one_turn(client: httpx.AsyncClient, url: str, door: int, session: str, tally: Tally) -> None:
    if door == 0:
        path, body = "/agents/paced/invoke", invoke_body(session, f"{WORDS} {PAUSE}")
    else:
        path, body = "/agents/paced/chat", chat_body(session, f"{WORDS} {PAUSE}")
    frames: list[dict[str, Any]] = []
    done_line = answered = False
    try:
        async with client.stream("POST", url + path, json=body, headers={"accept": "text/event-stream"}) as r:
            if r.status_code != 200:
                await r.aread()
                tally.refused += 1
                return
            answered = True
            async for line in r.aiter_lines():
                if line == "data: [DONE]":
                    done_line = True
                elif line.startswith("data: "):
                    frames.append(orjson.loads(line[6:]))
    except httpx.HTTPError:
        if answered:
            tally.died += 1
        else:
            tally.unreachable += 1
        return
    kinds = [f.get("type") for f in frames]
    text = "".join(
        f["data"]["delta"] if f.get("type") == "message_delta" else f.get("delta", "")
        for f in frames
        if f.get("type") in ("message_delta", "text-delta")
    )
    if "error" in kinds:
        tally.error += 1
    elif (kinds and kinds[-1] == "done") or (done_line and kinds and kinds[-1] == "finish"):
        tally.complete += 1
        if text == WHOLE:
            tally.whole.append(session)
    else:
        tally.cut += 1


async def client_loop(n: int, nodes: list[Node], deadline: float, tally: Tally) -> None:
    turn = 0
    async with httpx.AsyncClient(timeout=httpx.Timeout(30, connect=5)) as client:
        while time.monotonic() < deadline:
            node = nodes[(n + turn) % 2]
            if not node.url:  # being restarted
                await asyncio.sleep(0.2)
                continue
            await one_turn(client, node.url, (n + turn) % 2, f"soak-{n}-{turn}-{os.getpid()}", tally)
            turn += 1


def _proc_figures(pid: int) -> dict[str, int]:
    fds = os.listdir(f"/proc/{pid}/fd")
    sockets = sum(1 for fd in fds if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:"))
    rss = 0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) // 1024
    return {"rss_mib": rss, "open_files": len(fds), "sockets": sockets}


async def sample(
    nodes: list[Node], pg: PostgresProcess, redis_proc: RedisProcess, t0: float
) -> dict[str, Any]:
    row: dict[str, Any] = {"t": round(time.monotonic() - t0)}
    for name, node in zip("ab", nodes, strict=True):
        with contextlib.suppress(Exception):
            assert node.proc is not None
            for key, value in _proc_figures(node.proc.pid).items():
                row[f"{name}_{key}"] = value
    with contextlib.suppress(Exception):
        conn = await asyncpg.connect(pg.url.replace("+asyncpg", ""), timeout=2)
        try:
            row["messages"] = await conn.fetchval("SELECT count(*) FROM messages")
        finally:
            await conn.close()
    with contextlib.suppress(Exception):
        row["redis_keys"] = redis.Redis.from_url(redis_proc.url, socket_timeout=2).dbsize()
    return row


async def inject(kind: int, nodes: list[Node], pg: PostgresProcess, redis_proc: RedisProcess) -> str:
    loop = asyncio.get_running_loop()
    if kind == 0:
        redis_proc.kill()
        await asyncio.sleep(1)
        await loop.run_in_executor(None, redis_proc.start)
        return "Redis SIGKILLed, started again empty 1 s later"
    if kind == 1:
        await loop.run_in_executor(None, pg.stop)
        await loop.run_in_executor(None, pg.start)
        return "PostgreSQL restarted"
    if kind == 2:
        a = nodes[0]
        url, a.url = a.url, ""
        a.kill()
        await loop.run_in_executor(None, a.start)
        return f"server A SIGKILLed and started again ({url} -> {a.url})"
    await loop.run_in_executor(None, pg.stop)
    await asyncio.sleep(3)
    await loop.run_in_executor(None, pg.start)
    return "PostgreSQL stopped for 3 s"


async def verify(
    nodes: list[Node], pg: PostgresProcess, redis_proc: RedisProcess, tally: Tally
) -> dict[str, Any]:
    """Every turn its client got whole is stored once, whole; nothing left open."""
    conn = await asyncpg.connect(pg.url.replace("+asyncpg", ""))
    try:
        lost = duplicated = marked = 0
        for session in tally.whole:
            rows = await conn.fetch(
                "SELECT m.content FROM messages m JOIN tasks t ON t.id = m.task_id WHERE t.name = $1", session
            )
            texts = [
                c.get("content") for c in (orjson.loads(r[0]) for r in rows) if c.get("author") == "agent"
            ]
            texts = [t for t in texts if isinstance(t, str)]
            if texts.count(WHOLE) == 0:
                lost += 1
                marked += any(b"turnwire.interrupted" in r[0].encode() for r in rows)
            elif texts.count(WHOLE) > 1:
                duplicated += 1
        in_progress = await conn.fetchval(
            "SELECT count(*) FROM messages WHERE streaming_status = 'IN_PROGRESS'"
        )
        open_turns = await conn.fetchval("SELECT count(*) FROM open_turns")
    finally:
        await conn.close()
    live = len(list(redis.Redis.from_url(redis_proc.url).scan_iter("turnwire:live:*")))
    return {
        "lost": lost,
        "lost_marked_interrupted": marked,
        "duplicated": duplicated,
        "in_progress": in_progress,
        "open_turns": open_turns,
        "live": live,
    }


async def soak(args: argparse.Namespace) -> int:
    root = Path(args.workdir or os.environ.get("TMPDIR", "/tmp")) / f"turnwire-soak-{os.getpid()}"
    with PostgresProcess() as pg, RedisProcess() as redis_proc:
        nodes = [Node(root / "a", pg, redis_proc), Node(root / "b", pg, redis_proc)]
        for node in nodes:
            node.start()
        tally, samples, faults = Tally(), [], []
        t0 = time.monotonic()
        deadline = t0 + args.duration
        clients = [asyncio.create_task(client_loop(n, nodes, deadline, tally)) for n in range(args.streams)]

        async def sampler() -> None:
            while time.monotonic() < deadline:
                samples.append(await sample(nodes, pg, redis_proc, t0))
                await asyncio.sleep(5)

        async def faulter() -> None:
            kind = 0
            while True:
                await asyncio.sleep(args.fault_every)
                if time.monotonic() + 5 > deadline:
                    return
                at = round(time.monotonic() - t0)
                faults.append(f"{at} s: {await inject(kind % 4, nodes, pg, redis_proc)}")
                kind += 1

        background = [asyncio.create_task(sampler()), asyncio.create_task(faulter())]
        await asyncio.gather(*clients)
        for task in background:
            task.cancel()
        await asyncio.sleep(max(3.0, args.settle))  # leases run out, repairs run
        samples.append(await sample(nodes, pg, redis_proc, t0))
        checked = await verify(nodes, pg, redis_proc, tally)
        for node in nodes:
            node.stop()
    report = {
        "duration_s": args.duration,
        "streams": args.streams,
        "turns": {k: v for k, v in vars(tally).items() if k != "whole"},
        "checked": checked,
        "faults": faults,
        "samples": samples,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}",
        "commit": _commit(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    print(_markdown(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    bad = checked["lost"] or checked["duplicated"] or checked["in_progress"] or tally.cut
    return 1 if bad else 0


def _commit() -> str:
    with contextlib.suppress(Exception):
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        )
        return out.stdout.strip()
    return "?"


def _markdown(report: dict[str, Any]) -> str:
    turns, checked = report["turns"], report["checked"]
    lines = [
        f"Soak: {report['duration_s']} s, {report['streams']} concurrent streams, two servers, "
        f"{report['date']}, commit `{report['commit']}`, {report['machine']}.",
        "",
        "| turns complete | error frame | refused (503) | broken mid-stream | not answered | silently cut |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
        f"| {turns['complete']} | {turns['error']} | {turns['refused']} | {turns['died']} "
        f"| {turns['unreachable']} | {turns['cut']} |",
        "",
        f"Checked after: lost {checked['lost']} (of which marked interrupted "
        f"{checked['lost_marked_interrupted']}), stored twice {checked['duplicated']}, IN_PROGRESS "
        f"{checked['in_progress']}, open turns {checked['open_turns']}, live sessions {checked['live']}.",
        "",
        "Faults: " + ("; ".join(report["faults"]) or "none"),
        "",
    ]
    samples = report["samples"]
    if samples:
        keys = [k for k in samples[-1] if k != "t"]
        lines.append("| t (s) | " + " | ".join(keys) + " |")
        lines.append("| ---: |" + " ---: |" * len(keys))
        picks = samples if len(samples) <= 8 else [samples[i * (len(samples) - 1) // 7] for i in range(8)]
        for s in picks:
            lines.append(f"| {s['t']} | " + " | ".join(str(s.get(k, "–")) for k in keys) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=600.0, help="seconds of load (>= 30)")
    parser.add_argument("--streams", type=int, default=200, help="concurrent clients")
    parser.add_argument("--fault-every", type=float, default=60.0, help="seconds between faults")
    parser.add_argument("--settle", type=float, default=8.0, help="seconds to wait before checking")
    parser.add_argument("--json", help="write the figures to this file")
    parser.add_argument("--workdir", help="where the servers keep their data (default: $TMPDIR)")
    args = parser.parse_args()
    if args.duration < 30:
        parser.error("--duration must be at least 30 s")
    raise SystemExit(asyncio.run(soak(args)))


if __name__ == "__main__":
    main()
