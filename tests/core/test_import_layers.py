"""The core's modules form layers: their imports, module-level and inside
functions alike, make no cycle. An import inside a function that closes a
cycle hides a layering mistake (issue 22); composites make their leaves
from ``lazytensor.core.leaves``, never from the runtime.

The graph is read from the source with ``ast`` (nothing is imported), so a
cycle fails here even where Python's import order happens to tolerate it."""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "core"
PACKAGE = "lazytensor.core"


def _modules() -> dict[str, Path]:
    """Dotted name -> file, for every module and package of the core."""
    out = {}
    for path in (CORE / "lazytensor" / "core").rglob("*.py"):
        parts = list(path.relative_to(CORE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _targets(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The core modules one import statement loads (``from pkg import mod``
    names the submodule; ``from mod import name`` the module)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[: len(parts) - node.level + 1]
        base = ".".join(parts + ([base] if base else []))
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]


def import_graph() -> dict[str, dict[str, int]]:
    """module -> {imported core module: line}, over every import statement
    (at module level, in functions, under ``if TYPE_CHECKING``...)."""
    graph: dict[str, dict[str, int]] = {}
    for module, path in MODULES.items():
        edges = graph.setdefault(module, {})
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target in _targets(node, module, path.name == "__init__.py"):
                while target and target not in MODULES:
                    target = target.rpartition(".")[0]
                if target and target != module and target.startswith(PACKAGE):
                    edges.setdefault(target, node.lineno)
    return graph


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _describe(component: list[str], graph: dict[str, dict[str, int]]) -> str:
    inside = set(component)
    edges = [f"  {a} -> {b} (line {line})" for a in component
             for b, line in sorted(graph[a].items()) if b in inside]
    return "\n".join(edges)


# Function-level imports that still close a cycle, each with its reason. The
# list may only shrink: an entry that no longer closes a cycle fails below.
# (Empty: the last two, placement -> runtime and compiler.donation ->
# compiler.planning, were moved above the modules they reached back to.)
KNOWN_BACK_EDGES: set[tuple[str, str]] = set()


def test_core_imports_have_no_cycle():
    graph = import_graph()
    pruned = {a: {b: line for b, line in edges.items() if (a, b) not in KNOWN_BACK_EDGES}
              for a, edges in graph.items()}
    found = cycles(pruned)
    assert not found, "import cycles in the core:\n" + "\n\n".join(
        _describe(c, pruned) for c in found)
    for a, b in sorted(KNOWN_BACK_EDGES):
        assert b in graph[a] and cycles({**pruned, a: {**pruned[a], b: 0}}), (
            f"{a} -> {b} no longer closes a cycle: drop it from KNOWN_BACK_EDGES")


def test_the_checker_sees_imports_inside_functions():
    """A cycle closed only by an import inside a function is found."""
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {}}
    assert cycles(graph) == []
    tree = ast.parse("def f():\n    from lazytensor.core.runtime import get_runtime\n")
    (node,) = [n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert _targets(node, "lazytensor.core.metrics", False) == ["lazytensor.core.runtime"]
    graph["c"]["a"] = 3
    assert cycles(graph) == [["a", "b", "c"]]


def test_composites_make_leaves_below_the_runtime():
    """No composite takes a leaf constructor from the runtime."""
    leaves = {"constant", "scalar", "data_leaf"}
    bad = [f"{module}:{n.lineno}" for module in sorted(MODULES) if ".composite" in module
           for n in ast.walk(ast.parse(MODULES[module].read_text()))
           if isinstance(n, ast.ImportFrom) and n.module == f"{PACKAGE}.runtime"
           and leaves & {a.name for a in n.names}]
    assert not bad, f"leaf constructors imported from the runtime: {bad}"


def test_every_family_package_says_where_a_new_op_goes():
    families = [m for m in MODULES if m.count(".") == 3 and m.startswith(f"{PACKAGE}.composite.")
                and MODULES[m].name == "__init__.py"]
    assert len(families) >= 9, families
    for family in families:
        doc = ast.get_docstring(ast.parse(MODULES[family].read_text())) or ""
        assert "new" in doc and "goes" in doc, f"{family}: docstring says where a new op goes"
