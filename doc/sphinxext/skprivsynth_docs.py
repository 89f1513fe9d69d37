"""Sphinx glue of the skprivsynth documentation (loaded by ``doc/conf.py``).

- ``autodoc-skip-member``: class pages document what skprivsynth defines or inherits
  from its own classes, not what scikit-learn's ``BaseEstimator`` (``get_params``,
  ``set_*_request``, whose docstrings point into scikit-learn's own user guide) or
  ``Exception`` provide.
- ``missing-reference``: a ``:doc:`` path written in a docstring (``user_guide/tuning``)
  is relative to the documentation root, wherever the docstring is rendered (the
  per-object pages live in ``generated/``).
- ``missing-reference``: a name re-exported by :mod:`skprivsynth` has one page, under
  ``skprivsynth.Name``; a reference through its defining module
  (``skprivsynth.synthesizers.marginal.MarginalSynthesizer``) resolves to that page.
- ``autodoc-process-docstring``: a constant re-exported from ``skprivsynth._math``
  (``MAX_UNIVERSE``) shows the ``#:`` comment where it is defined, never the docstring
  of ``int``.
- ``missing-reference``: a short name in a docstring (``rescale_rows_l1``) resolves to the
  one documented skprivsynth object of that name, as on the single reference page of old.
- :func:`intersphinx_mapping`: the inventories of Python, NumPy, SciPy, pandas and
  scikit-learn, each only if it can be fetched now (offline builds pass ``-W`` and say
  which links they lack).
- :class:`GalleryOrder`: the reading order of the example gallery.
"""

import ast
import functools
import importlib
import os
import time
import urllib.request
from pathlib import Path

#: Documentation linked by intersphinx: name -> base URL (its inventory is objects.inv).
INTERSPHINX_SITES = {
    "python": "https://docs.python.org/3/",
    "numpy": "https://numpy.org/doc/stable/",
    "scipy": "https://docs.scipy.org/doc/scipy/",
    "pandas": "https://pandas.pydata.org/docs/",
    "sklearn": "https://scikit-learn.org/stable/",
}

#: Example files in reading order (start with the recommended DP synthesizer); examples
#: not listed follow in file-name order.
GALLERY_ORDER = (
    "plot_quality_report.py",
    "plot_your_table.py",
    "plot_adult_microaggregation.py",
    "plot_noisy_microaggregation.py",
    "plot_reduced_space_lp.py",
    "plot_private_sampler_budget.py",
    "plot_correlated_gaussian_error.py",
)


class GalleryOrder:
    """Sort key of sphinx-gallery's ``within_subsection_order``: :data:`GALLERY_ORDER`."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        if filename in GALLERY_ORDER:
            return (0, GALLERY_ORDER.index(filename), filename)
        return (1, 0, filename)

    def __repr__(self):
        return f"<{self.__class__.__name__}>"


def intersphinx_mapping(cache_dir, timeout=10, max_age=7 * 86400):
    """Intersphinx mapping of the sites whose inventory can be fetched now.

    Each inventory is downloaded into ``cache_dir`` (outside the source tree, refreshed
    after ``max_age`` seconds, the old copy kept if the refresh fails) and read from
    there by Sphinx.  A site that cannot be reached is left out with an
    information line, so an offline build still passes ``-W`` (its references to that
    project stay plain text).  ``SKPRIVSYNTH_DOCS_OFFLINE=1`` skips the downloads;
    ``SKPRIVSYNTH_DOCS_INTERSPHINX=required`` makes an unreachable site an error.
    """
    mode = os.environ.get("SKPRIVSYNTH_DOCS_INTERSPHINX", "auto")
    if os.environ.get("SKPRIVSYNTH_DOCS_OFFLINE") == "1" and mode != "required":
        return {}
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    mapping, missing = {}, []
    for name, url in INTERSPHINX_SITES.items():
        inventory = cache_dir / f"{name}.inv"
        if not inventory.exists() or time.time() - inventory.stat().st_mtime > max_age:
            try:
                with urllib.request.urlopen(url + "objects.inv", timeout=timeout) as response:
                    data = response.read()
                if not data.startswith(b"# Sphinx inventory version"):
                    raise OSError("not a Sphinx inventory")
                inventory.write_bytes(data)
            except OSError as error:
                if not inventory.exists():
                    missing.append(f"{name} ({url}: {error})")
                    continue
        mapping[name] = (url, str(inventory))
    if missing and mode == "required":
        raise RuntimeError("intersphinx inventories unreachable: " + "; ".join(missing))
    if missing:
        print("intersphinx: no links to " + "; ".join(missing))
    return mapping


def _defining_module(member):
    """Module that defines a method, property or descriptor (None for plain data)."""
    for inner in (member, getattr(member, "__func__", None), getattr(member, "fget", None)):
        module = getattr(inner, "__module__", None)
        if isinstance(module, str):
            return module
    owner = getattr(member, "__objclass__", None)
    return getattr(owner, "__module__", None)


def _skip_foreign_member(app, what, name, obj, skip, options):
    """Skip members inherited from scikit-learn or builtins (documented there)."""
    if name.startswith(("set_", "get_")) and name.endswith("_request"):
        return True
    module = _defining_module(obj)
    if module is not None and module.split(".")[0] != "skprivsynth":
        return True
    return None


@functools.cache
def _constant_comments():
    """``#:`` comments above the module-level constants of every skprivsynth module.

    Read with :mod:`ast` (Sphinx 9's own analyser fails on some of these modules).
    """
    root = Path(importlib.import_module("skprivsynth").__file__).parent
    comments = {}  # name -> {module: comment lines}
    for path in sorted(root.rglob("*.py")):
        module = ".".join(("skprivsynth", *path.relative_to(root).with_suffix("").parts))
        lines = path.read_text(encoding="utf-8").splitlines()
        for node in ast.parse("\n".join(lines)).body:
            targets = getattr(node, "targets", [getattr(node, "target", None)])
            for target in targets:
                if isinstance(target, ast.Name) and target.id.isupper():
                    above = node.lineno - 2
                    while above >= 0 and lines[above].lstrip().startswith("#:"):
                        above -= 1
                    comment = [
                        line.lstrip()[2:].strip() for line in lines[above + 1 : node.lineno - 1]
                    ]
                    if comment:
                        comments.setdefault(target.id, {})[module] = comment
    return comments


def _document_constant(app, what, name, obj, options, lines):
    """Replace a constant's type docstring by the comment at its definition."""
    type_doc = (type(obj).__doc__ or "").strip()
    first = next((line for line in lines if line.strip()), None)
    if what == "data" and type_doc and first == type_doc.splitlines()[0]:
        module, short = name.rsplit(".", 1)
        found = _constant_comments().get(short, {})
        lines[:] = found.get(module, next(iter(found.values()), []))


def _resolve_doc_from_root(app, env, node, contnode):
    """Resolve a ``:doc:`` path that is not found relative to its page from the root."""
    target = node.get("reftarget", "")
    if node.get("reftype") != "doc" or target.startswith("/"):
        return None
    if target not in env.all_docs:
        return None
    node["reftarget"] = "/" + target
    return env.get_domain("std").resolve_xref(
        env, node["refdoc"], app.builder, "doc", node["reftarget"], node, contnode
    )


def _resolve_short_name(app, env, node, contnode):
    """Resolve a short name (``rescale_rows_l1``, ``Chunks.from_csv``) written in a
    docstring whose page has another current module, when exactly one documented
    skprivsynth object ends with it."""
    target = node.get("reftarget", "")
    if node.get("refdomain") != "py" or target.startswith(("skprivsynth.", ".", "~")):
        return None
    domain = env.get_domain("py")
    matches = [  # not the canonical aliases autodoc adds (skprivsynth.synthesizers.marginal.Name)
        name
        for name, entry in domain.objects.items()
        if name.startswith("skprivsynth.") and name.endswith("." + target) and not entry.aliased
    ]
    if len(matches) != 1:
        return None
    return domain.resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], matches[0], node, contnode
    )


def _resolve_reexport(app, env, node, contnode):
    """Resolve ``skprivsynth.<module>.Name[.attr]`` to the page of ``skprivsynth.Name``."""
    target = node.get("reftarget", "")
    parts = target.split(".")
    if node.get("refdomain") != "py" or parts[0] != "skprivsynth" or len(parts) < 3:
        return None
    package = importlib.import_module("skprivsynth")
    for i in range(1, len(parts) - 1):
        module_name, name = ".".join(parts[: i + 1]), parts[i + 1]
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            return None
        if name in getattr(package, "__all__", ()) and getattr(module, name, None) is getattr(
            package, name
        ):
            alias = ".".join(["skprivsynth", *parts[i + 1 :]])
            domain = env.get_domain("py")
            return domain.resolve_xref(
                env, node["refdoc"], app.builder, node["reftype"], alias, node, contnode
            )
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign_member)
    app.connect("autodoc-process-docstring", _document_constant)
    app.connect("missing-reference", _resolve_doc_from_root)
    app.connect("missing-reference", _resolve_reexport)
    app.connect("missing-reference", _resolve_short_name)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
