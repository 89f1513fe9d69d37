"""The import graph of the package has no cycle (module-level and lazy imports alike), and
no module outside :mod:`skprivsynth.metrics` takes a private helper of it."""

import ast
import importlib
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


def _source(node, package):
    """Absolute name of the module a ``from ... import`` statement in ``package`` reads."""
    if not node.level:
        return node.module or ""
    base = list(package[: len(package) - node.level + 1])
    return ".".join(base + ([node.module] if node.module else []))


def _import_graph():
    modules = _modules()
    graph = {name: set() for name in modules}
    for name, (path, package) in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            target = _source(node, package)
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
    # the old fit_cost switch
    graph["skprivsynth.accountant"].add("skprivsynth.synthesizers.marginal")
    assert _cycle(graph) is not None


METRICS = "skprivsynth.metrics"


def _private_metrics_imports(tree, package):
    """``(module, name)`` of every private metrics helper a module takes: a name starting
    with ``_`` imported from :mod:`skprivsynth.metrics` or a module below it, or read as
    an attribute of the imported package; a private module of it imported itself; or a
    name of a private module that is not in that module's ``__all__`` (the display is,
    for its public module :mod:`skprivsynth.report`)."""
    found, bound = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, "") for a in node.names if a.name.startswith(f"{METRICS}._")]
        if not isinstance(node, ast.ImportFrom):
            continue
        source = _source(node, package)
        if source == "skprivsynth":
            bound |= {a.asname or a.name for a in node.names if a.name == "metrics"}
        if source != METRICS and not source.startswith(f"{METRICS}."):
            continue
        private_module = any(part.startswith("_") for part in source.split(".")[2:])
        public = getattr(importlib.import_module(source), "__all__", ()) if private_module else ()
        found += [
            (source, alias.name)
            for alias in node.names
            if alias.name.startswith("_") or (private_module and alias.name not in public)
        ]
    found += [
        (METRICS, node.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in bound
        and node.attr.startswith("_")
    ]
    return found


def test_no_module_outside_metrics_imports_a_private_metrics_helper():
    found = {
        name: _private_metrics_imports(ast.parse(path.read_text()), package)
        for name, (path, package) in _modules().items()
        if name != METRICS and not name.startswith(f"{METRICS}.")
    }
    assert {name: names for name, names in found.items() if names} == {}


def test_the_private_import_finder_finds_private_imports():
    package = ("skprivsynth",)
    for source in [
        "from .metrics import _as_frame",
        "from .metrics import evaluation_domain, _observed_levels as levels",
        "from skprivsynth.metrics._boolean import _column_sets",
        "from .metrics._validation import _check_count",
        "from .metrics._plot import _html_table",
        "from .metrics import _plot",
        "import skprivsynth.metrics._scorer",
        "from . import metrics\nmetrics._check_count(1, 'n', 1)",
        "from skprivsynth import metrics as m\nm._as_frame",
    ]:
        assert _private_metrics_imports(ast.parse(source), package), source
    for source in [
        "from .metrics import evaluation_domain, observed_levels as _levels",
        "from .metrics._plot import MarginalErrorDisplay",
        "from .domain import _as_domain",
        "from . import metrics\nmetrics.evaluation_domain",
    ]:
        assert _private_metrics_imports(ast.parse(source), package) == [], source
