"""Workload 4: N concurrent SSE streams of ``count to <n>`` against turnwire and a bare Starlette floor.

Each server runs alone in its own uvicorn process on 127.0.0.1 (same uvicorn defaults, access log
on for all), one at a time: ``turnwire serve`` as shipped (the demo agent plus the bench agent
``fast=count_agent:fast_count``), the same routes without a store (``stream_app``), then
``floor_app`` emitting the same bytes. For each concurrency
level the asyncio load generator (aiohttp) opens N streams at once and records time to first byte,
the arrival time of every frame, errors (non-200, exceptions, a stream that is not exactly
``3n + 2`` frames ending in ``done``), and the server's CPU time and RSS from ``/proc``.

Two variants per level: ``cadence`` is the demo's ``count to <n>`` with its 50 ms pause between
numbers (latency under load); ``fast`` has no pause (throughput and CPU per frame).

    bench/.venv/bin/python bench/load.py [--levels 10,100,1000] [--count 20] [--fast-count 100]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

import aiohttp
import orjson

BENCH = Path(__file__).resolve().parent
TICK = os.sysconf("SC_CLK_TCK")
LEVEL_TIMEOUT = 180.0


@dataclass
class Level:
    server: str
    variant: str
    streams: int
    count: int
    frames: int = 0
    errors: int = 0
    wall_s: float = 0.0
    frames_per_s: float = 0.0
    ttfb_p50_ms: float = 0.0
    ttfb_p99_ms: float = 0.0
    gap_p50_ms: float = 0.0
    gap_p99_ms: float = 0.0
    late_p99_ms: float = 0.0
    cpu_us_per_frame: float = 0.0
    rss_mb: float = 0.0
    error_kinds: dict[str, int] = field(default_factory=dict)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def proc_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@contextlib.contextmanager
def server(kind: str, workdir: str) -> Iterator[tuple[str, int]]:
    """Start ``kind`` on a free loopback port; yield (base URL, pid).

    ``turnwire``: ``turnwire serve`` as shipped (records every turn in its SQLite store, keepalive
    15 s); ``turnwire-nostore``: ``stream_app`` (the same routes, no store, keepalive off: the
    streaming core alone); ``floor``: ``floor_app``.
    """
    port = free_port()
    bindir = Path(sys.executable).parent
    if kind == "turnwire":
        cmd = [str(bindir / "turnwire"), "serve", "--host", "127.0.0.1", "--port", str(port)]
        cmd += ["--agent", "fast=count_agent:fast_count"]  # defaults otherwise, keepalive 15 s included
    else:
        module = "floor_app:app" if kind == "floor" else "stream_app:app"
        cmd = [sys.executable, "-m", "uvicorn", module, "--app-dir", str(BENCH)]
        cmd += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "info"]
    # An inherited PYTHONPATH stays behind BENCH, so a worktree's src/ can be measured.
    path = os.pathsep.join(p for p in (str(BENCH), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, PYTHONPATH=path, TURNWIRE_DB_URL=STORE_URL or f"sqlite:///{workdir}/load.db")
    log = open(Path(workdir) / f"{kind}.log", "wb")  # noqa: SIM115 - closed in finally
    proc = subprocess.Popen(cmd, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            if proc.poll() is not None:
                raise RuntimeError(f"{kind} server exited; see {log.name}")
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}", proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=15)
        log.close()


def body(n: int) -> bytes:
    return orjson.dumps({"data": {"inputs": {"messages": [{"role": "user", "content": f"count to {n}"}]}}})


async def one_stream(http: aiohttp.ClientSession, url: str, payload: bytes, n: int) -> dict:
    """Read one stream; frame arrival times and TTFB, or the error that ended it."""
    t0 = time.perf_counter()
    times: list[float] = []
    ttfb = None
    tail = end = b""
    async with http.post(url, data=payload, headers=HEADERS) as resp:
        if resp.status != 200:
            return {"error": f"status {resp.status}"}
        async for chunk in resp.content.iter_any():
            now = time.perf_counter()
            if ttfb is None:
                ttfb = now - t0
            tail += chunk
            end = (end + chunk)[-200:]
            k = tail.count(b"\n\n")
            if k:
                times.extend([now] * k)
                tail = tail[tail.rindex(b"\n\n") + 2 :]
    if len(times) != 3 * n + 2 or b'"type":"done"' not in end:
        return {"error": f"{len(times)} frames, expected {3 * n + 2}"}
    return {"ttfb": ttfb, "times": times}


HEADERS = {"accept": "text/event-stream", "content-type": "application/json"}
SERVERS = ("turnwire", "turnwire-nostore", "floor")
STORE_URL = ""
"""``turnwire serve``'s store (``--store-url``); empty: a SQLite file in the run's directory."""
LABELS = {
    "turnwire": "turnwire serve (stores turns)",
    "turnwire-nostore": "turnwire routes, no store",
    "floor": "bare Starlette floor",
}
EXPECTED = [
    *(
        f'data: {{"type":"{kind}","data":{{"id":"msg_1_{i}"{delta}}}}}'.encode()
        for i in (1, 2, 3)
        for kind, delta in (("message_start", ""), ("message_delta", f',"delta":"{i}"'), ("message_end", ""))
    ),
    b'data: {"type":"usage","data":{"input":3,"output":3,"total":6}}',
]


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def run_level(base: str, pid: int, server_name: str, variant: str, streams: int, n: int) -> Level:
    if server_name != "floor":
        url = base + ("/agents/fast/invoke" if variant == "fast" else "/invoke")
    else:
        url = base + ("/invoke?cadence=0" if variant == "fast" else "/invoke")
    payload = body(n)
    level = Level(server_name, variant, streams, n)
    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    timeout = aiohttp.ClientTimeout(total=LEVEL_TIMEOUT)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        cpu0, t0 = proc_cpu_s(pid), time.perf_counter()
        tasks = [asyncio.ensure_future(one_stream(http, url, payload, n)) for _ in range(streams)]
        results = await asyncio.gather(*tasks, return_exceptions=True)
        level.wall_s = time.perf_counter() - t0
        cpu = proc_cpu_s(pid) - cpu0
    ttfbs, gaps, late = [], [], []
    for r in results:
        err = repr(type(r).__name__) if isinstance(r, BaseException) else r.get("error")
        if err:
            level.errors += 1
            level.error_kinds[err] = level.error_kinds.get(err, 0) + 1
            continue
        ttfbs.append(r["ttfb"])
        times = r["times"]
        level.frames += len(times)
        gaps.extend(b - a for a, b in itertools.pairwise(times))
        if variant == "cadence":
            starts = times[0 : 3 * n : 3]  # each number's message_start
            late.extend(max(0.0, b - a - 0.05) for a, b in itertools.pairwise(starts))
    level.frames_per_s = level.frames / level.wall_s
    level.ttfb_p50_ms, level.ttfb_p99_ms = pct(ttfbs, 0.5) * 1e3, pct(ttfbs, 0.99) * 1e3
    level.gap_p50_ms, level.gap_p99_ms = pct(gaps, 0.5) * 1e3, pct(gaps, 0.99) * 1e3
    level.late_p99_ms = pct(late, 0.99) * 1e3
    level.cpu_us_per_frame = cpu / max(level.frames, 1) * 1e6
    level.rss_mb = proc_rss_mb(pid)
    return level


async def run_server(base: str, pid: int, name: str, args: argparse.Namespace) -> list[Level]:
    await run_level(base, pid, name, "fast", 10, 10)  # warm-up: imports, first connections
    rss_idle = proc_rss_mb(pid)
    out: list[Level] = []
    fast_n = args.stored_fast_count if name == "turnwire" else args.fast_count
    for variant, n in (("cadence", args.count), ("fast", fast_n)):
        for streams in args.levels:
            level = await run_level(base, pid, name, variant, streams, n)
            out.append(level)
            print(
                f"  {name:8} {variant:7} N={streams:<5} {level.frames_per_s:10,.0f} frames/s  "
                f"p99 gap {level.gap_p99_ms:7.1f} ms  late p99 {level.late_p99_ms:6.1f} ms  "
                f"ttfb p99 {level.ttfb_p99_ms:7.1f} ms  cpu {level.cpu_us_per_frame:6.1f} us/frame  "
                f"rss {level.rss_mb:6.1f} MB  errors {level.errors}",
                flush=True,
            )
    # memory must be flat: the same 1,000-stream load again must not grow the server
    again = await run_level(base, pid, name, "cadence", max(args.levels), args.count)
    again.variant = "cadence (repeat)"
    out.append(again)
    print(f"  {name:8} idle rss {rss_idle:.1f} MB; after repeat of N={again.streams}: {again.rss_mb:.1f} MB")
    return out


def check_same_bytes(name: str, base: str) -> None:
    """Every server must stream the frames the demo streams for ``count to 3`` (trace id aside)."""
    import httpx

    frames = []
    for path in ("/invoke?cadence=0" if name == "floor" else "/agents/fast/invoke", "/invoke"):
        text = httpx.post(base + path, content=body(3), headers=HEADERS, timeout=30).content
        frames.append([f for f in text.split(b"\n\n") if f and b'"done"' not in f])
    assert frames[0] == frames[1] == EXPECTED, (name, frames)


def plot(levels: list[Level], out_dir: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for metric, label, fname in (
        ("frames_per_s", "frames/s (all streams)", "w4_throughput.png"),
        ("gap_p99_ms", "p99 inter-frame gap (ms)", "w4_p99_latency.png"),
    ):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for server_name, style in (("turnwire", "-o"), ("turnwire-nostore", "-^"), ("floor", "--s")):
            for variant in ("cadence", "fast"):
                pts = [
                    (lv.streams, getattr(lv, metric))
                    for lv in levels
                    if (lv.server, lv.variant) == (server_name, variant)
                ]
                if pts:
                    xs, ys = zip(*pts, strict=True)
                    ax.plot(xs, ys, style, label=f"{LABELS[server_name]}, {variant}")
        ax.set_xscale("log")
        ax.set_yscale("log")  # turnwire serve's stored turns sit two decades below the others
        ax.set_xlabel("concurrent SSE streams")
        ax.set_ylabel(label)
        ax.set_title(f"Workload 4: {label} vs concurrency")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out_dir / fname, dpi=110)
        plt.close(fig)


def table(levels: list[Level]) -> str:
    floor = {(lv.variant, lv.streams): lv for lv in levels if lv.server == "floor"}
    rows = [
        "| variant | N | server | frames/s | TTFB p50 / p99 ms | gap p50 / p99 ms | late p99 ms "
        "| CPU µs/frame | RSS MB | errors | CPU/frame ÷ floor | frames/s ÷ floor |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for lv in levels:
        base = floor.get((lv.variant, lv.streams))
        ratio = tput = "—"
        if base and lv.server != "floor":  # both turnwire servers against the same floor
            ratio = f"{lv.cpu_us_per_frame / base.cpu_us_per_frame:.2f}×" if base.cpu_us_per_frame else "—"
            tput = f"{lv.frames_per_s / base.frames_per_s:.2f}×"
        rows.append(
            f"| {lv.variant} (n={lv.count}) | {lv.streams:,} | {lv.server} | {lv.frames_per_s:,.0f} "
            f"| {lv.ttfb_p50_ms:.1f} / {lv.ttfb_p99_ms:.1f} | {lv.gap_p50_ms:.2f} / {lv.gap_p99_ms:.1f} "
            f"| {lv.late_p99_ms:.1f} | {lv.cpu_us_per_frame:.1f} | {lv.rss_mb:.0f} | {lv.errors} "
            f"| {ratio} | {tput} |"
        )
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", default="10,100,1000", type=lambda s: [int(x) for x in s.split(",")])
    ap.add_argument("--count", type=int, default=20, help="n of count to <n> with the 50 ms cadence")
    ap.add_argument("--fast-count", type=int, default=100, help="n of count to <n> without pause")
    ap.add_argument(
        "--stored-fast-count",
        type=int,
        default=10,
        help="n of the fast variant on turnwire serve, which writes each message to its store",
    )
    ap.add_argument("--out", type=Path, default=BENCH / "out")
    ap.add_argument("--plots", type=Path, default=BENCH / "plots")
    ap.add_argument(
        "--store-url",
        default="",
        help="turnwire serve's store URL; 'postgres': a throwaway PostgreSQL (tests/services.py)",
    )
    ap.add_argument("--servers", default=",".join(SERVERS), help="which servers to run, comma-separated")
    args = ap.parse_args()
    with contextlib.ExitStack() as stack:
        global STORE_URL
        STORE_URL = args.store_url
        if STORE_URL == "postgres":
            sys.path.insert(0, str(BENCH.parent / "tests"))
            from services import postgres_server

            STORE_URL = stack.enter_context(postgres_server())
        run(args, [s for s in args.servers.split(",") if s])


def run(args: argparse.Namespace, servers: list[str]) -> None:
    args.out.mkdir(exist_ok=True)
    args.plots.mkdir(exist_ok=True)
    levels: list[Level] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in servers:  # one server process at a time
            with server(name, tmp) as (base, _):
                check_same_bytes(name, base)
        for name in servers:
            with server(name, tmp) as (base, pid):
                levels += asyncio.run(run_server(base, pid, name, args))
    dump = orjson.dumps([asdict(lv) for lv in levels], option=orjson.OPT_INDENT_2)
    (args.out / "load.json").write_bytes(dump)
    plot(levels, args.plots)
    md = table(levels)
    (args.out / "load.md").write_text(md + "\n")
    print(md)


if __name__ == "__main__":
    main()
