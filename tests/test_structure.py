"""The shape of the source: small functions, and packages and modules that import one another without cycles."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "gpuwise"
MAX_FUNCTION_LINES = 80


def _modules() -> list[tuple[str, ast.Module]]:
    return [(str(p.relative_to(SRC)), ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(SRC.rglob("*.py"))]


def _is_data_table(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A function that only returns a literal (a table of values) is data, not logic."""
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Dict | ast.List)


def test_no_function_over_80_lines():
    long = []
    for name, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not _is_data_table(node):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long.append(f"{name}:{node.lineno} {node.name} ({lines} lines)")
    assert not long, "functions over 80 lines:\n" + "\n".join(long)


def _package(module: str) -> str:
    """'gpuwise.estimate.memory' -> 'estimate'; top-level modules are their own node ('api')."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def import_graph() -> dict[str, set[str]]:
    """Package -> packages it imports (at module level or lazily inside functions)."""
    graph: dict[str, set[str]] = {}
    for name, tree in _modules():
        module = ("gpuwise." + name.removesuffix(".py").replace("/", ".")).removesuffix(".__init__")
        here = _package(module)
        deps = graph.setdefault(here, set())
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                if t.startswith("gpuwise.") and _package(t) != here:
                    deps.add(_package(t))
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(n: str) -> list[str] | None:
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return [*stack[stack.index(m) :], m]
            if m not in state and (found := visit(m)):
                return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state and (found := visit(n)):
            return found
    return None


def test_no_import_cycle_between_packages():
    cycle = _cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_core_imports_no_front_door():
    graph = import_graph()
    edge = {"api", "cli", "web", "report", "store", "ops", "bench", "hw", "deploy"}
    for core in ("catalog", "workload", "estimate", "plan"):
        assert not graph.get(core, set()) & edge, core


def test_the_store_imports_nothing_of_bench_ops_or_deploy():
    """The store keeps what others measure and decide: it depends on none of them (design.md's layers)."""
    assert not import_graph().get("store", set()) & {"bench", "ops", "deploy", "hw"}


def test_the_core_has_no_words_of_its_own():
    """Reasons leave the core as codes with parameters; the edges word them (gpuwise.i18n)."""
    graph = import_graph()
    for core in ("catalog", "workload", "estimate", "plan"):
        assert "i18n" not in graph.get(core, set()), core


def _module_name(path: str) -> str:
    """'workload/schema.py' -> 'gpuwise.workload.schema'; a package's __init__ is the package."""
    return ("gpuwise." + path.removesuffix(".py").replace("/", ".")).removesuffix(".__init__")


def _type_checking_only(tree: ast.Module) -> set[int]:
    """The ids of the nodes under `if TYPE_CHECKING:`: annotations only, never imported at run time."""
    out: set[int] = set()
    for node in ast.walk(tree):
        test = getattr(node, "test", None)
        if isinstance(node, ast.If) and getattr(test, "id", getattr(test, "attr", None)) == "TYPE_CHECKING":
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def module_graph() -> dict[str, set[str]]:
    """Module -> gpuwise modules it imports at run time (at module level or inside functions).
    `from gpuwise.a import b` names the module gpuwise.a.b when there is one, else gpuwise.a; a
    parent package a submodule's import runs first is not counted (that is how packages load)."""
    trees = {_module_name(name): tree for name, tree in _modules()}
    graph: dict[str, set[str]] = {}
    for module, tree in trees.items():
        skip = _type_checking_only(tree)
        deps = graph.setdefault(module, set())
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    sub = f"{node.module}.{alias.name}"
                    deps.add(sub if sub in trees else node.module)
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
        deps &= trees.keys() - {module}
    return graph


def test_no_import_cycle_between_modules():
    """Each module can be read on its own: no two import each other, directly or around a ring."""
    cycle = _cycle(module_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_module_graph_sees_a_cycle():
    """The check above finds a ring through a lazy import, and ignores annotation-only imports."""
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    graph = module_graph()
    assert "gpuwise.workload.schema" in graph["gpuwise.workload.build"]  # a module-level import
    assert "gpuwise.store.db" in graph["gpuwise.store"]  # an import inside a function
    assert "gpuwise.catalog.schema" not in graph["gpuwise.workload.build"]  # only under TYPE_CHECKING
