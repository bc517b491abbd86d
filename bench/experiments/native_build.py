"""Issue 16's native alternative: a copy of turnwire's ``src`` with its hot modules compiled.

Nothing here touches the package's normal install: the tree is built outside ``src`` and is used
only by pointing ``PYTHONPATH`` at it (``serve_inproc.py``, ``load.py``, the test suite). CPython
imports an extension module before the ``.py`` beside it, so the copy keeps every source file and
only the compiled modules change.

Run it with an interpreter that has the compilers (mypy, Cython) and is the same CPython as the
bench venv (the extension ABI must match), e.g.::

    /root/.pyenv/versions/3.11.7/bin/python3 -m venv /tmp/native-venv
    /tmp/native-venv/bin/pip install mypy cython setuptools
    /tmp/native-venv/bin/python bench/experiments/native_build.py --compiler mypyc \
        --out /tmp/turnwire-mypyc --keep-going
    /tmp/native-venv/bin/python bench/experiments/native_build.py --compiler cython --out /tmp/turnwire-cython
    PYTHONPATH=/tmp/turnwire-cython/src bench/.venv/bin/python bench/experiments/serve_inproc.py

``--deps-python`` (default: the bench venv's interpreter) is where mypy finds turnwire's
dependencies (pydantic, starlette, ...) to type-check against. Steps:

1. copy ``src`` to ``OUT/src`` (no ``__pycache__``);
2. ``--compiler mypyc``: type-check the modules to compile
   (imports followed silently); mypyc refuses code with type errors, so each reported line gets
   a ``# type: ignore`` in the copy only, and the lines are listed (duck-typed spots mypy cannot
   follow; mypyc still checks declared types at run time, so the suite run on the tree is the
   check). Then compile them (``--opt-level``, default 3) into the copy, in place; a
   module mypyc rejects (it has no async generators) is reported with its error and the rest are
   compiled without it (``--keep-going``);
3. ``--compiler cython``: cythonize each module in place (``-3``, ``--directive`` passed on; by
   default annotations are not used as C types, so behaviour stays Python's); a module Cython
   rejects is reported and left as Python.

It prints which modules compiled and which did not, and writes ``OUT/native_build.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BENCH_PYTHON = Path("/work/main/bench/.venv/bin/python")

HOT_MODULES = (
    "turnwire/framing.py",
    "turnwire/store/clock.py",
    "turnwire/runtime/channel.py",
    "turnwire/runtime/ordering.py",
    "turnwire/runtime/live.py",
    "turnwire/runtime/runner.py",
    "turnwire/runtime/warm.py",
    "turnwire/server/turns/streaming.py",
    "turnwire/formats/agenta/frames.py",
    "turnwire/formats/agenta/stream.py",
    "turnwire/formats/agentex/updates.py",
    "turnwire/conversations/recording.py",
    "turnwire/store/sqlite_threads.py",
)
"""The pure-Python modules a recorded ``POST /invoke`` spends its own time in (cProfile of
``serve_inproc.py --profile sqlite``); the rest of the request is Starlette, pydantic, SQLite."""

ERROR = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+): error: (?P<msg>.*)$")
IGNORE = re.compile(r"\s*#\s*type:\s*ignore(\[[^\]]*\])?")


def mypy_flags(deps_python: Path, cache: Path) -> list[str]:
    return [
        "--python-executable",
        str(deps_python),
        "--follow-imports=silent",
        "--cache-dir",
        str(cache),
    ]


def type_errors(src: Path, modules: list[str], flags: list[str]) -> dict[str, dict[int, list[str]]]:
    """mypy's errors in ``modules`` (path -> line -> messages); errors elsewhere are silenced."""
    out = subprocess.run(
        [sys.executable, "-m", "mypy", *flags, *modules], cwd=src, capture_output=True, text=True
    )
    found: dict[str, dict[int, list[str]]] = {}
    for line in out.stdout.splitlines():
        m = ERROR.match(line)
        if m and m["path"] in modules:
            found.setdefault(m["path"], {}).setdefault(int(m["line"]), []).append(m["msg"])
    return found


def ignore_lines(src: Path, errors: dict[str, dict[int, list[str]]]) -> None:
    """Add a bare ``# type: ignore`` to each reported line of the copy (replacing a narrower one)."""
    for path, lines in errors.items():
        file = src / path
        text = file.read_text().split("\n")
        for number in lines:
            code, sep, comment = text[number - 1].partition("#")
            if sep and IGNORE.match("#" + comment):
                text[number - 1] = code.rstrip() + "  # type: ignore"
            else:
                text[number - 1] = text[number - 1].rstrip() + "  # type: ignore"
        file.write_text("\n".join(text))


def compile_modules(src: Path, modules: list[str], flags: list[str], opt_level: str) -> tuple[int, str]:
    """mypyc ``modules`` in place in ``src`` (extension next to each ``.py``); exit code and output."""
    env = dict(os.environ, MYPYC_OPT_LEVEL=opt_level)
    proc = subprocess.run(
        [sys.executable, "-m", "mypyc", *flags, *modules], cwd=src, capture_output=True, text=True, env=env
    )
    return proc.returncode, proc.stdout + proc.stderr


def rejected(output: str, modules: list[str]) -> set[str]:
    """The modules mypyc's output names in an error line."""
    return {m["path"] for line in output.splitlines() if (m := ERROR.match(line)) and m["path"] in modules}


def cythonize(src: Path, modules: list[str], directives: str, opt_level: str) -> tuple[list[str], dict]:
    """Cython each module in place; the modules that got an extension, and why the others did not."""
    env = dict(os.environ, CFLAGS=f"-O{opt_level}")
    cmd = [sys.executable, "-m", "Cython.Build.Cythonize", "-i", "-3", "-k", "-q", "-j", "2"]
    if directives:
        cmd += ["-X", directives]
    proc = subprocess.run([*cmd, *modules], cwd=src, capture_output=True, text=True, env=env)
    done, skipped = [], {}
    for path in modules:
        stem = src / path[: -len(".py")]
        if list(stem.parent.glob(stem.name + ".cpython-*.so")):
            done.append(path)
        else:
            lines = [line for line in (proc.stdout + proc.stderr).splitlines() if path in line]
            skipped[path] = " | ".join(lines)[:600] or "no extension built"
            print(f"rejected by Cython  {path}: {skipped[path]}")
    return done, skipped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", type=Path, default=REPO / "src", help="the pure tree to copy")
    ap.add_argument("--out", type=Path, default=Path("/tmp/turnwire-native"))
    ap.add_argument("--deps-python", type=Path, default=BENCH_PYTHON)
    ap.add_argument("--modules", default=",".join(HOT_MODULES), help="paths under src, comma-separated")
    ap.add_argument("--compiler", choices=("mypyc", "cython"), default="mypyc")
    ap.add_argument("--opt-level", default="3", help="mypyc's opt level, or the C compiler's -O for Cython")
    ap.add_argument(
        "--directive", default="annotation_typing=False", help="Cython directives (NAME=VALUE,...)"
    )
    ap.add_argument("--keep-going", action="store_true", help="drop modules mypyc rejects and retry")
    args = ap.parse_args()

    theirs = subprocess.run(
        [str(args.deps_python), "-c", "import sys; print(sys.implementation.cache_tag, sys.version)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = f"{sys.implementation.cache_tag} {sys.version}"
    if theirs.split()[:2] != ours.split()[:2]:
        sys.exit(f"ABI mismatch: this interpreter is {ours}, --deps-python is {theirs}")

    started = time.monotonic()
    src = args.out / "src"
    shutil.rmtree(args.out, ignore_errors=True)
    shutil.copytree(args.src, src, ignore=shutil.ignore_patterns("__pycache__", "*.so", "build"))
    modules = [m for m in args.modules.split(",") if m]
    flags = mypy_flags(args.deps_python, args.out / "mypy-cache")

    errors: dict[str, dict[int, list[str]]] = {}
    skipped: dict[str, str] = {}
    if args.compiler == "cython":
        modules, skipped = cythonize(src, modules, args.directive, args.opt_level)
    else:
        errors = type_errors(src, modules, flags)
        ignore_lines(src, errors)
        for path, lines in sorted(errors.items()):
            for number, messages in sorted(lines.items()):
                print(f"type: ignore added  {path}:{number}: {messages[0][:100]}")
        while True:
            code, output = compile_modules(src, modules, flags, args.opt_level)
            if code == 0:
                break
            bad = rejected(output, modules)
            if not args.keep_going or not bad:
                sys.exit(f"mypyc failed:\n{output[-6000:]}")
            for path in bad:
                lines = [line for line in output.splitlines() if line.startswith(path + ":")]
                skipped[path] = " | ".join(lines)[:600]
                print(f"rejected by mypyc  {path}: {skipped[path]}")
            modules = [m for m in modules if m not in bad]
    shutil.rmtree(src / "build", ignore_errors=True)
    for leftover in src.rglob("*.c"):  # Cython's C beside each module
        leftover.unlink()

    built = sorted(str(p.relative_to(src)) for p in src.rglob("*.so"))
    report = {
        "compiled": modules,
        "rejected": skipped,
        "type_ignores": {p: sorted(lines) for p, lines in errors.items()},
        "extensions": built,
        "compiler": args.compiler,
        "opt_level": args.opt_level,
        "directives": args.directive if args.compiler == "cython" else "",
        "python": ours,
        "seconds": round(time.monotonic() - started, 1),
    }
    (args.out / "native_build.json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"compiled {len(modules)} modules in {report['seconds']} s into {src}")
    for path in built:
        print(f"  {path}")


if __name__ == "__main__":
    main()
