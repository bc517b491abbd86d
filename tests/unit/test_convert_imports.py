"""``pip install turnwire`` users who only convert pay for no server, store or runtime."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = (
    "turnwire.server",
    "turnwire.store",
    "turnwire.runtime",
    "turnwire.conversations.recording",
    "turnwire.conversations.pubsub",
    "fastapi",
    "starlette",
    "sqlalchemy",
    "uvicorn",
    "redis",
    "asyncio",
)

SCRIPT = """
import json, sys
import turnwire
from turnwire.formats import names
for source in names():
    for target in names():
        turnwire.convert([], source=source, target=target)
turnwire.convert([{"role": "user", "content": "hi"}], source="agenta", target="vercel")
print(json.dumps(sorted(sys.modules)))
"""


def test_converting_between_every_format_imports_no_server_store_or_runtime_module() -> None:
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True).stdout
    loaded = json.loads(out)
    assert "turnwire.formats.vercel" in loaded and "turnwire.formats.agentex" in loaded
    heavy = [m for m in loaded if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    assert heavy == []
