"""Sphinx configuration of the skprivsynth documentation."""

import skprivsynth

project = "skprivsynth"
author = "skprivsynth developers"
copyright = "2026, skprivsynth developers"
release = skprivsynth.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "numpydoc",
]
autodoc_default_options = {
    "members": True,
    "inherited-members": False,
    # sklearn's generated metadata-routing setters reference sklearn's own glossary.
    "exclude-members": ", ".join(
        f"set_{method}_request"
        for method in ("fit", "transform", "inverse_transform", "score", "sample", "predict")
    ),
}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
templates_path = []
exclude_patterns = ["_build"]
html_theme = "alabaster"
html_static_path = []
