"""The rules that keep the package livable (``../shared/ARCHITECTURE.md``), counted.

Read from the source with :mod:`ast`: module-level imports only (an import inside a
function is a deliberate late import and does not shape the package).
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "skprivsynth"


def _module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path):
    """The package modules ``path`` imports at module level (absolute names)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package.split(".")
            base = base[: len(base) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
            found.add(target)
            for alias in node.names:  # ``from . import binning`` imports a submodule
                if (PACKAGE.parent / (target + "." + alias.name).replace(".", "/")).exists():
                    found.add(f"{target}.{alias.name}")
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("skprivsynth"))
    return found


def _modules():
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def test_math_imports_nothing_of_the_package_but_exceptions():
    for name, path in _modules().items():
        if name.startswith("skprivsynth._math"):
            outside = {
                m
                for m in _imports(path)
                if not m.startswith("skprivsynth._math") and m != "skprivsynth.exceptions"
            }
            assert not outside, f"{name} imports {sorted(outside)}"


def test_no_import_cycle():
    modules = _modules()
    graph = {name: {m for m in _imports(p) if m in modules} for name, p in modules.items()}
    state = {}

    def visit(name, path):
        state[name] = "open"
        for other in graph[name]:
            if state.get(other) == "open":
                raise AssertionError(" -> ".join([*path, name, other]))
            if other not in state:
                visit(other, [*path, name])
        state[name] = "done"

    for name in graph:
        if name not in state:
            visit(name, [])


def test_no_library_file_cites_the_benchmark_results():
    citing = [str(p) for p in PACKAGE.rglob("*.py") if "RESULTS.md" in p.read_text()]
    assert not citing


def test_the_command_line_is_a_thin_shell():
    lines = sum(len(p.read_text().splitlines()) for p in (PACKAGE / "cli").glob("*.py"))
    assert lines <= 800, f"skprivsynth/cli/ has {lines} lines"


#: The forms of a parsed column spec, and the words that name a column's kind or coding.
_SPEC_CLASSES = {"Bins", "Range", "Levels", "DatetimePart"}
_KIND_WORDS = {"categorical", "integer", "float", "datetime", "boolean", "part", "levels", "bins"}


def _kind_switches(path):
    """Lines of ``path`` that switch on a column's kind: ``isinstance`` against a spec
    form, or a comparison of a ``kind`` (a name or an attribute) with a kind's word."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance":
            classes = node.args[1]
            names = {getattr(n, "id", getattr(n, "attr", None)) for n in ast.walk(classes)}
            if names & _SPEC_CLASSES:
                found.append(node.lineno)
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            named = any(getattr(s, "id", getattr(s, "attr", "")).endswith("kind") for s in sides)
            words = {
                c.value
                for s in sides
                for c in ast.walk(s)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            }
            if named and words & _KIND_WORDS:
                found.append(node.lineno)
    return found


def test_no_kind_switch_outside_kinds():
    switches = {
        name: lines
        for name, path in _modules().items()
        if not name.startswith("skprivsynth.kinds") and (lines := _kind_switches(path))
    }
    assert not switches, switches


def _private_imports(path):
    """``(module, name)`` of the private names ``path`` imports from another package."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        base = package.split(".")
        base = base[: len(base) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
        path_of = PACKAGE.parent / target.replace(".", "/")
        home = target if (path_of / "__init__.py").exists() else target.rpartition(".")[0]
        if home == package:
            continue
        found += [
            (target, a.name)
            for a in node.names
            if a.name.startswith("_") and not a.name.endswith("__")  # dunders are public
        ]
    return found


def test_no_private_name_crosses_a_package():
    crossing = {
        name: found for name, path in _modules().items() if (found := _private_imports(path))
    }
    assert not crossing, crossing


def test_no_module_over_a_thousand_lines():
    long = {n: k for n, p in _modules().items() if (k := len(p.read_text().splitlines())) > 1000}
    assert not long, long
