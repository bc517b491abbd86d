"""The layout's promises, read from the source: no two modules import each other (directly or
around a loop), and nothing but the app's assembly imports a door."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"
PACKAGE = SRC / "turnwire"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def _imports(path: Path, name: str, known: dict[str, Path]) -> set[str]:
    """Every turnwire module ``path`` imports, at load or inside a function (a lazy import is
    still a dependency), not those imported only for type checking."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    typing_only: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(n) for n in ast.walk(node))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parents = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parents, base]).strip(".")
            targets = [base, *(f"{base}.{a.name}" for a in node.names)]
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and target.startswith("turnwire"):
                found.add(target)
    return found


def _graph() -> dict[str, set[str]]:
    known = _modules()
    return {name: _imports(path, name, known) for name, path in known.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _is_package_init(name: str) -> bool:
    return (PACKAGE.parent / name.replace(".", "/") / "__init__.py").exists()


def test_no_two_modules_import_each_other() -> None:
    graph = _graph()
    # A package's __init__ re-exporting its modules, which import their siblings through the
    # package, is how Python packages work; a loop between two plain modules is the defect.
    plain = {
        name: {t for t in targets if not _is_package_init(t)}
        for name, targets in graph.items()
        if not _is_package_init(name)
    }
    assert _cycles(plain) == []


def test_nothing_but_the_app_imports_a_door() -> None:
    graph = _graph()
    doors = "turnwire.server.doors."
    offenders = {
        name: sorted(t for t in targets if t.startswith(doors) and not t.startswith(_door_of(name)))
        for name, targets in graph.items()
        if name != "turnwire.server.app"
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def _door_of(name: str) -> str:
    """The door package ``name`` belongs to (its own door's modules are its to import)."""
    if not name.startswith("turnwire.server.doors."):
        return "\0"
    return ".".join(name.split(".")[:4]) + "."


def _format_package(name: str) -> str:
    """``turnwire.formats.<wire>`` when ``name`` is in a wire's package, else ``""`` (the
    formats package itself and its shared private modules belong to every wire)."""
    parts = name.split(".")
    if len(parts) < 3 or parts[:2] != ["turnwire", "formats"]:
        return ""
    return ".".join(parts[:3]) if (PACKAGE / "formats" / parts[2]).is_dir() else ""


def test_formats_import_no_other_format_nor_the_server() -> None:
    graph = _graph()
    bad = {}
    for name, targets in graph.items():
        if not name.startswith("turnwire.formats."):
            continue
        own = ".".join(name.split(".")[:3])
        wrong = sorted(
            t for t in targets if t.startswith("turnwire.server") or (_format_package(t) not in ("", own))
        )
        if wrong:
            bad[name] = wrong
    assert bad == {}
