"""The import graph of the package has no cycle (module-level and lazy imports alike)."""

import ast
from pathlib import Path

import skprivsynth

PACKAGE = Path(skprivsynth.__file__).parent


def _modules():
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("skprivsynth", *path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            modules[".".join(parts[:-1])] = (path, parts[:-1])
        else:
            modules[".".join(parts)] = (path, parts[:-1])
    return modules


def _import_graph():
    modules = _modules()
    graph = {name: set() for name in modules}
    for name, (path, package) in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                base = list(package[: len(package) - node.level + 1])
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for candidate in [target, *(f"{target}.{alias.name}" for alias in node.names)]:
                if candidate in modules and candidate not in (name, "skprivsynth"):
                    graph[name].add(candidate)
    return graph


def _cycle(graph):
    state, stack = {}, []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == "open":
                return stack[stack.index(target) :] + [target]
            if target not in state and (found := visit(target)):
                return found
        stack.pop()
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state and (found := visit(module)):
            return found
    return None


def test_the_import_graph_has_no_cycle():
    assert _cycle(_import_graph()) is None


def test_the_cycle_finder_finds_a_cycle():
    graph = _import_graph()
    graph["skprivsynth.accountant"].add("skprivsynth.marginal")  # the old fit_cost switch
    assert _cycle(graph) is not None
