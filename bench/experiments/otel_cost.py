"""What tracing costs: CPU per turn with OpenTelemetry on (exporting over OTLP/HTTP to a local
receiver) and off, and with metrics on too (served, and pushed over OTLP), in alternated rounds on
one process.

Each app serves the demo agent with a SQLite store; a round drives ``--turns`` Agenta SSE turns
(``weather in Paris``: a thought, a tool call and its result, a streamed sentence, usage) through
direct ASGI calls (httpx's ASGI transport, no sockets) and measures the process's CPU time
(``time.process_time``: every thread, the SDK's export thread and SQLite's writer included). The
receiver runs in a child process that reads and drops each export, so its CPU is not counted.
Rounds alternate the apps (off, otel, otel+metrics, otel+push, off, ...), so a load change on the
machine touches every app alike; the result is each app's median CPU ms per turn. Traced, a turn
also stores its spans for Agentex's ``/spans`` and its store writes are child spans: both counted.
``otel+push`` pushes the metrics every second (``OTEL_METRIC_EXPORT_INTERVAL=1000``, the default
is a minute) to the same receiver. The load average before and after is printed: note it.

    PYTHONPATH=src python bench/experiments/otel_cost.py [--rounds 7] [--turns 200]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import httpx

RECEIVER = """
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200); self.send_header("content-length", "0"); self.end_headers()
    def log_message(self, *a): pass
s = http.server.HTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
"""

BODY = {"data": {"inputs": {"messages": [{"role": "user", "content": "weather in Paris"}]}}}
HEADERS = {"accept": "text/event-stream"}


def _app(name: str, home: Path, port: int) -> Any:
    from turnwire.agents import demo_agent
    from turnwire.server import Settings, create_app

    settings = Settings(
        otel=name != "off",
        metrics=name == "otel+metrics",
        db_url=f"sqlite:///{home / (name.replace('+', '_') + '.db')}",
        approval_secret_file=str(home / "secret"),
    )
    push = {
        "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": f"http://127.0.0.1:{port}/v1/metrics",
        "OTEL_METRIC_EXPORT_INTERVAL": "1000",
    }
    if name == "otel+push":
        os.environ.update(push)  # read while the app is built, by this app only
    try:
        return create_app({"demo": demo_agent}, settings=settings)
    finally:
        for key in push:
            os.environ.pop(key, None)


async def _round(client: httpx.AsyncClient, turns: int) -> float:
    started = time.process_time()
    for _ in range(turns):
        response = await client.post("/invoke", json=BODY, headers=HEADERS)
        assert response.status_code == 200 and b'"type":"done"' in response.content
    return (time.process_time() - started) * 1000 / turns


async def main(rounds: int, turns: int) -> None:
    receiver = subprocess.Popen([sys.executable, "-c", RECEIVER], stdout=subprocess.PIPE, text=True)
    try:
        port = int((receiver.stdout.readline() if receiver.stdout else "").strip())
        os.environ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] = f"http://127.0.0.1:{port}/v1/traces"
        home = Path(tempfile.mkdtemp(prefix="otel-cost-"))
        names = ["off", "otel", "otel+metrics", "otel+push"]
        apps = {name: _app(name, home, port) for name in names}
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        async with AsyncExitStack() as stack:
            clients = {}
            for name, app in apps.items():
                await stack.enter_async_context(app.state.turnwire.running())
                transport = httpx.ASGITransport(app=app)
                clients[name] = await stack.enter_async_context(
                    httpx.AsyncClient(transport=transport, base_url="http://bench", timeout=30)
                )
            for name in names:  # warm up: imports, first connections, caches
                await _round(clients[name], 20)
            cpu: dict[str, list[float]] = {name: [] for name in names}
            for r in range(rounds):
                order = names[r % len(names) :] + names[: r % len(names)]
                for name in order:
                    cpu[name].append(await _round(clients[name], turns))
            for app in apps.values():
                observe = app.state.turnwire.observe
                if observe is not None:
                    observe.shutdown()
        print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        base = statistics.median(cpu["off"])
        print(f"{'app':<14}{'CPU ms/turn (median)':>22}{'min':>8}{'max':>8}{'vs off':>9}")
        for name in names:
            med = statistics.median(cpu[name])
            low, high, more = min(cpu[name]), max(cpu[name]), (med / base - 1) * 100
            print(f"{name:<14}{med:>22.3f}{low:>8.3f}{high:>8.3f}{more:>+8.1f}%")
    finally:
        receiver.kill()
        receiver.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.turns))
