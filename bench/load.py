"""Workload 4: N concurrent SSE streams of ``count to <n>`` against turnwire and a bare Starlette floor.

Each server runs alone in its own uvicorn process on 127.0.0.1 (same uvicorn defaults, access log
on for all), one at a time: ``turnwire serve`` as shipped (the demo agent plus the bench agent
``fast=count_agent:fast_count``), the same routes without a store (``stream_app``), then
``floor_app`` emitting the same bytes. For each concurrency
level the asyncio load generator (aiohttp) opens N streams at once and records time to first byte,
the arrival time of every frame, errors (non-200, exceptions, a stream that is not exactly
``3n + 2`` frames ending in ``done``), and the server's CPU time and RSS from ``/proc``.

Three variants per level, each the same stream length on every server: ``cadence`` is the demo's
``count to <n>`` with its 50 ms pause between numbers (latency under load); ``fast`` has no pause
(throughput and CPU per frame, per-request cost included); ``long`` is ``fast`` with a longer count
(per-frame cost with the per-request cost spread thin). RSS per open stream (cadenced levels, which
run first): the peak RSS while the level's streams are open, minus the idle RSS after warm-up,
divided by the streams; the top cadenced level runs twice back to back (two rounds) to show it flat.
A level of 10 streams or fewer runs its N streams several times back to back (40 rounds fast and
long, 5 cadenced) so its CPU per frame rests on enough ``/proc`` ticks; its other figures cover
every round.

    bench/.venv/bin/python bench/load.py [--levels 10,100,1000] [--count 20] [--fast-count 10]
        [--long-count 100] [--servers turnwire,floor] [--baseline-src OTHER/src]
        [--http uvicorn|granian] [--server-python PATH]

``--http granian`` runs every app under granian instead of uvicorn (``turnwire serve``'s app from
``serve_app.py``); CPU and RSS then count the server's worker process too. ``--server-python`` runs
the servers with another interpreter (one that has granian). ``--baseline-src`` adds
``turnwire-base``: ``turnwire serve`` from another checkout's ``src`` (an A/B of two commits in one
run). Servers import turnwire from ``PYTHONPATH`` when it is set.
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
    rss_open_mb: float = 0.0
    """Peak RSS while the level ran (its streams open)."""
    rss_per_stream_kb: float = 0.0
    """(``rss_open_mb`` - the idle RSS after warm-up) / streams."""
    error_kinds: dict[str, int] = field(default_factory=dict)
    rounds: int = 1
    """How many times the N streams ran, back to back (see ``small_level_rounds``)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (granian serves from a worker process of its own)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def proc_cpu_s(pid: int) -> float:
    total = 0
    for p in TREES.get(pid, [pid]):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / TICK


def proc_rss_mb(pid: int) -> float:
    total = 0
    for p in TREES.get(pid, [pid]):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


TREES: dict[int, list[int]] = {}
"""Server pid -> the processes whose CPU and RSS count as the server's (itself when absent)."""
HTTP = ["uvicorn"]
"""``--http``: the HTTP server every app runs under."""
SERVER_PYTHON: list[str] = []
"""``--server-python``: the interpreter the servers run with (default: this one)."""


@contextlib.contextmanager
def server(kind: str, workdir: str) -> Iterator[tuple[str, int]]:
    """Start ``kind`` on a free loopback port; yield (base URL, pid).

    ``turnwire``: ``turnwire serve`` as shipped (records every turn in its SQLite store, keepalive
    15 s); ``turnwire-nullstore``: its app over a store that keeps nothing (``serve_app.py``: the
    bound for any store engine); ``turnwire-nostore``: ``stream_app`` (the same routes, no store,
    keepalive off: the streaming core alone); ``floor``: ``floor_app``.
    """
    port = free_port()
    python = SERVER_PYTHON[0] if SERVER_PYTHON else sys.executable
    bindir = Path(python).parent
    path = [str(BENCH), *filter(None, [os.environ.get("PYTHONPATH")])]
    # Each server its own SQLite file: the one run second must not start on the first's rows.
    db_url = STORE_URL or f"sqlite:///{workdir}/{kind}.db"
    if kind.endswith("-base"):  # turnwire-base, turnwire-nostore-base: the baseline checkout's src
        path.insert(0, BASELINE_SRC[0])
        kind = kind.removesuffix("-base")
    if kind == "turnwire-nullstore":  # serve_app.nullstore_app: the same app, a store that keeps nothing
        cmd = [python, "-m", "uvicorn", "serve_app:nullstore_app", "--app-dir", str(BENCH)]
        cmd += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "info"]
    elif HTTP[0] == "granian":  # the same apps, access log on, uvloop as under uvicorn
        module = {"turnwire": "serve_app:app", "floor": "floor_app:app"}.get(kind, "stream_app:app")
        cmd = [str(bindir / "granian"), "--interface", "asgi", "--loop", "uvloop", "--no-ws", "--access-log"]
        cmd += ["--host", "127.0.0.1", "--port", str(port), "--working-dir", str(BENCH), module]
    elif kind == "turnwire":
        cmd = [str(bindir / "turnwire"), "serve", "--host", "127.0.0.1", "--port", str(port)]
        cmd += ["--agent", "fast=count_agent:fast_count"]  # defaults otherwise, keepalive 15 s included
    else:
        module = "floor_app:app" if kind == "floor" else "stream_app:app"
        cmd = [python, "-m", "uvicorn", module, "--app-dir", str(BENCH)]
        cmd += ["--host", "127.0.0.1", "--port", str(port), "--log-level", "info"]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path), TURNWIRE_DB_URL=db_url)
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
        TREES[proc.pid] = proc_tree(proc.pid)
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
REPEAT = ("cadence", "cadence (repeat)")
"""The two rounds of the top cadenced level, back to back: RSS per open stream must not grow."""
BASELINE_SRC: list[str] = []
"""``--baseline-src``: the ``src`` folder ``turnwire-base`` imports turnwire from."""
LABELS = {
    "turnwire": "turnwire serve (stores turns)",
    "turnwire-base": "turnwire serve, baseline checkout",
    "turnwire-nullstore": "turnwire serve's app, a store that keeps nothing",
    "turnwire-nostore": "turnwire routes, no store",
    "turnwire-nostore-base": "turnwire routes, no store, baseline checkout",
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


SMALL_LEVEL = 10
"""At or below this many streams a level runs several rounds back to back (``small_level_rounds``):
one round of 10 fast streams is ≈ 1 tick of ``/proc`` CPU time, too coarse to divide by its frames."""


def small_level_rounds(variant: str, streams: int) -> int:
    if streams > SMALL_LEVEL:
        return 1
    return 5 if variant == "cadence" else 40  # cadenced rounds take ≈ 1 s of wall time each


def pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def sample_rss(pid: int, peak: list[float]) -> None:
    """Keep ``peak[0]`` the highest RSS of ``pid`` seen, every 20 ms until cancelled."""
    while True:
        peak[0] = max(peak[0], proc_rss_mb(pid))
        await asyncio.sleep(0.02)


async def run_level(
    base: str, pid: int, server_name: str, variant: str, streams: int, n: int, rss_idle: float = 0.0
) -> Level:
    fast = variant != "cadence"
    if server_name != "floor":
        url = base + ("/agents/fast/invoke" if fast else "/invoke")
    else:
        url = base + ("/invoke?cadence=0" if fast else "/invoke")
    payload = body(n)
    level = Level(server_name, variant, streams, n)
    connector = aiohttp.TCPConnector(limit=0, force_close=True)
    timeout = aiohttp.ClientTimeout(total=LEVEL_TIMEOUT)
    rounds = small_level_rounds(variant, streams)
    level.rounds = rounds
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        peak = [0.0]
        sampler = asyncio.ensure_future(sample_rss(pid, peak))
        cpu0, t0 = proc_cpu_s(pid), time.perf_counter()
        results: list = []
        for _ in range(rounds):  # the same N streams again, back to back: enough /proc ticks to divide
            tasks = [asyncio.ensure_future(one_stream(http, url, payload, n)) for _ in range(streams)]
            results += await asyncio.gather(*tasks, return_exceptions=True)
        level.wall_s = time.perf_counter() - t0
        cpu = proc_cpu_s(pid) - cpu0
        sampler.cancel()
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
    level.rss_open_mb = max(peak[0], level.rss_mb)
    if rss_idle and variant == "cadence":  # run first, from idle: later levels reuse freed memory
        level.rss_per_stream_kb = (level.rss_open_mb - rss_idle) * 1024 / streams
    return level


async def run_server(base: str, pid: int, name: str, args: argparse.Namespace) -> list[Level]:
    await run_level(base, pid, name, "fast", 10, 10)  # warm-up: imports, first connections
    rss_idle = proc_rss_mb(pid)
    out: list[Level] = []
    variants = [("cadence", args.count), ("fast", args.fast_count)]
    if args.long_count:
        variants.append(("long", args.long_count))
    top = max(args.levels)
    for variant, n in variants:
        for streams in args.levels:
            level = await run_level(base, pid, name, variant, streams, n, rss_idle)
            out.append(level)
            if (variant, streams) == ("cadence", top):
                # memory must be flat: the same load again, at once, must not grow the server
                again = await run_level(base, pid, name, "cadence", top, n, rss_idle)
                again.variant = "cadence (repeat)"
                out.append(again)
            print(
                f"  {name:8} {variant:7} N={streams:<5} {level.frames_per_s:10,.0f} frames/s  "
                f"p99 gap {level.gap_p99_ms:7.1f} ms  late p99 {level.late_p99_ms:6.1f} ms  "
                f"ttfb p99 {level.ttfb_p99_ms:7.1f} ms  cpu {level.cpu_us_per_frame:6.1f} us/frame  "
                f"rss {level.rss_mb:6.1f} MB ({level.rss_per_stream_kb:5.1f} KB/stream open)  "
                f"errors {level.errors}",
                flush=True,
            )
    first, again = (next(lv for lv in out if (lv.variant, lv.streams) == (v, top)) for v in REPEAT)
    print(
        f"  {name:8} idle rss {rss_idle:.1f} MB; N={again.streams} cadenced, open: round 1 "
        f"{first.rss_open_mb:.1f} MB ({first.rss_per_stream_kb:.1f} KB/stream), round 2 "
        f"{again.rss_open_mb:.1f} MB ({again.rss_per_stream_kb:.1f} KB/stream); after: {again.rss_mb:.1f} MB"
    )
    return out


def check_same_bytes(name: str, base: str) -> None:
    """Every server must stream the frames the demo streams for ``count to 3`` (trace id aside)."""
    import httpx

    frames = []
    for path in ("/invoke?cadence=0" if name == "floor" else "/agents/fast/invoke", "/invoke"):
        text = httpx.post(base + path, content=body(3), headers=HEADERS, timeout=30).content
        frames.append(_without_ids([f for f in text.split(b"\n\n") if f]))
    assert frames[0] == frames[1] == EXPECTED, (name, frames)


def _without_ids(frames: list[bytes]) -> list[bytes]:
    """The frames but ``done`` without their ``id: <trace id>:<n>`` lines, checked to number them
    1, 2, … (a checkout from before event ids has none)."""
    out = []
    for number, frame in enumerate(frames, 1):
        if frame.startswith(b"id: "):
            head, _, frame = frame.partition(b"\n")
            assert head.endswith(b":%d" % number), (head, number)
        if b'"done"' not in frame:
            out.append(frame)
    return out


def plot(levels: list[Level], out_dir: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for metric, label, fname in (
        ("frames_per_s", "frames/s (all streams)", "w4_throughput.png"),
        ("gap_p99_ms", "p99 inter-frame gap (ms)", "w4_p99_latency.png"),
    ):
        fig, ax = plt.subplots(figsize=(7, 4.5))
        styles = (
            ("turnwire", "-o"),
            ("turnwire-base", ":o"),
            ("turnwire-nullstore", "-.o"),
            ("turnwire-nostore", "-^"),
            ("turnwire-nostore-base", ":^"),
            ("floor", "--s"),
        )
        for server_name, style in styles:
            for variant in ("cadence", "fast", "long"):
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
        "| CPU µs/frame | RSS MB | RSS KB/open stream | errors | CPU/frame ÷ floor | frames/s ÷ floor |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
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
            f"| {lv.late_p99_ms:.1f} | {lv.cpu_us_per_frame:.1f} | {lv.rss_mb:.0f} "
            f"| {f'{lv.rss_per_stream_kb:.1f}' if lv.rss_per_stream_kb else '—'} | {lv.errors} "
            f"| {ratio} | {tput} |"
        )
    return "\n".join(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", default="10,100,1000", type=lambda s: [int(x) for x in s.split(",")])
    ap.add_argument("--count", type=int, default=20, help="n of count to <n> with the 50 ms cadence")
    ap.add_argument("--fast-count", type=int, default=10, help="n of count to <n> without pause")
    ap.add_argument(
        "--long-count", type=int, default=100, help="n of the long variant without pause (0: skip it)"
    )
    ap.add_argument("--servers", default=",".join(SERVERS), help="which servers to run, comma-separated")
    ap.add_argument("--baseline-src", help="another checkout's src: adds the server turnwire-base")
    ap.add_argument("--http", choices=("uvicorn", "granian"), default="uvicorn", help="the HTTP server")
    ap.add_argument("--server-python", help="the interpreter of the servers (default: this one)")
    ap.add_argument("--out", type=Path, default=BENCH / "out")
    ap.add_argument("--plots", type=Path, default=BENCH / "plots")
    ap.add_argument(
        "--store-url",
        default="",
        help="turnwire serve's store URL; 'postgres': a throwaway PostgreSQL (tests/services.py)",
    )
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
    HTTP[0] = args.http
    if args.server_python:
        SERVER_PYTHON.append(args.server_python)
    if args.baseline_src:
        BASELINE_SRC.append(str(Path(args.baseline_src).resolve()))
        servers.insert(servers.index("turnwire") + 1 if "turnwire" in servers else 0, "turnwire-base")
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
