"""bench/experiments/native_build.py's own steps (the compilers themselves are not in the dev
venv): the copy's type-ignore edits, reading mypyc's rejections, and the rewrite it applies still
matching ``src``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[3]


def _load() -> ModuleType:
    path = REPO / "bench" / "experiments" / "native_build.py"
    spec = importlib.util.spec_from_file_location("bench_native_build", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


native_build = _load()


def test_type_errors_get_a_bare_ignore_in_the_copy(tmp_path: Path) -> None:
    module = tmp_path / "pkg" / "mod.py"
    module.parent.mkdir()
    module.write_text("a = 1\nb = f(x)  # type: ignore[union-attr]\nc = 3\n")
    native_build.ignore_lines(tmp_path, {"pkg/mod.py": {2: ["wrong"], 3: ["wrong"]}})
    assert module.read_text() == "a = 1\nb = f(x)  # type: ignore\nc = 3  # type: ignore\n"


def test_rejections_are_read_per_module() -> None:
    output = (
        "turnwire/runtime/live.py:211: error: async generators are unimplemented\n"
        "turnwire/other.py:3: error: not asked for\n"
        "note: something else\n"
    )
    modules = ["turnwire/runtime/live.py", "turnwire/framing.py"]
    assert native_build.rejected(output, modules) == {"turnwire/runtime/live.py"}


def test_every_hot_module_exists_in_src() -> None:
    for path in native_build.HOT_MODULES:
        assert (REPO / "src" / path).is_file(), path
