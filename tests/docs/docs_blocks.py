"""The runnable examples of README.md and docs/*.md: fenced ``bash``/``sh``/``python`` blocks.

A block that needs setup the test cannot give (starting servers, ``make``) carries a marker on the
line before its fence, with the reason: ``<!-- docs-test: skip: <why> -->``. Every other block runs.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNNABLE = ("bash", "sh", "python")
_FENCE = re.compile(r"^```(\w+)\s*$")
_MARKER = re.compile(r"^<!--\s*docs-test:\s*skip:\s*(.+?)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    file: str  # relative to the repository
    line: int  # of the opening fence, 1-based
    lang: str
    code: str
    skip: str | None  # the marker's reason

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"


def blocks() -> list[Block]:
    out: list[Block] = []
    for path in DOC_FILES:
        lines = path.read_text().splitlines()
        i = 0
        while i < len(lines):
            m = _FENCE.match(lines[i])
            if not m:
                i += 1
                continue
            start, lang = i, m.group(1)
            i += 1
            body: list[str] = []
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            i += 1
            if lang not in RUNNABLE:
                continue
            marker = _MARKER.match(lines[start - 1]) if start else None
            rel = str(path.relative_to(ROOT))
            out.append(
                Block(rel, start + 1, lang, "\n".join(body) + "\n", marker.group(1) if marker else None)
            )
    return out


def shell_commands(code: str) -> list[str]:
    """The commands of a shell block: comment lines dropped, a command continued over ``\\``
    line ends and over lines inside an open quote (``-d '{...`` spanning lines)."""
    commands: list[str] = []
    pending = ""
    for line in code.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending = f"{pending}\n{line}" if pending else line
        if pending.endswith("\\"):  # bash reads backslash-newline as a continuation, keep it
            continue
        try:
            shlex.split(pending, comments=True)
        except ValueError:  # an open quote: the command goes on
            continue
        commands.append(pending)
        pending = ""
    if pending:
        commands.append(pending)
    return commands
