"""Sphinx configuration of the skprivsynth documentation.

Build: ``python -m sphinx -W --keep-going -b html doc doc/_build/html`` (the ``docs``
extra).  The example gallery runs every ``examples/plot_*.py``; ``-D plot_gallery=0``
skips running them.  Intersphinx links to Python, NumPy, SciPy, pandas and scikit-learn
need their inventories: see ``sphinxext/skprivsynth_docs.py``.
"""

import sys
import tempfile
import warnings
from pathlib import Path

import skprivsynth

sys.path.insert(0, str(Path(__file__).parent / "sphinxext"))

from skprivsynth_docs import intersphinx_mapping as _intersphinx_mapping  # noqa: E402

project = "skprivsynth"
author = "skprivsynth developers"
copyright = "2026, skprivsynth developers"
release = skprivsynth.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "skprivsynth_docs",
]
templates_path = ["_templates"]
exclude_patterns = ["_build", "sphinxext"]

# One page per public object (doc/api.rst lists them; tests/test_docs_api.py checks that
# every name of every public module's __all__ is there).
autosummary_generate = True
autodoc_default_options = {"members": True, "inherited-members": True}
autodoc_typehints = "none"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

# Every reference to a public skprivsynth name must resolve (-W fails otherwise); others
# (private helpers, and Python / NumPy / scikit-learn names when intersphinx is offline)
# stay plain text.
nitpicky = True
nitpick_ignore_regex = [(r"py:.*", r"(?!skprivsynth\.(?!_)).*")]

# Links to the scientific Python stack; empty when the inventories cannot be fetched.
intersphinx_mapping = _intersphinx_mapping(Path(tempfile.gettempdir()) / "skprivsynth-intersphinx")
intersphinx_timeout = 10



def _one_line_warning(message, category, filename, lineno, line=None):
    """A warning in an example's output as the command line prints it: no source path."""
    return f"{category.__name__}: {message}\n"


warnings.formatwarning = _one_line_warning

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "within_subsection_order": "skprivsynth_docs.GalleryOrder",
    "doc_module": ("skprivsynth",),
    "backreferences_dir": "generated/backreferences",
    "download_all_examples": False,
    "write_computation_times": False,
    "abort_on_example_error": True,
    "min_reported_time": 1,
    "remove_config_comments": True,
}

html_theme = "pydata_sphinx_theme"
html_title = f"skprivsynth {release}"
html_static_path = ["_static"]
html_css_files = ["wrap.css"]
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc", "sg_download_links", "sg_launcher_links"],
}
html_show_sourcelink = False
