"""Every Python code block of the user guide and of Getting started runs.

The blocks of a page run in order, in one namespace (a page builds on its earlier
blocks), in an empty working directory.  The blocks that cannot run here are listed in
``NOT_RUN`` with their reason, and the names a block takes as given (``df``: "your
DataFrame") in ``GIVEN``: nothing is skipped silently.
"""

import os
import textwrap
import warnings
from pathlib import Path

import matplotlib
import pytest

DOC = Path(__file__).resolve().parents[1] / "doc"
PAGES = sorted([DOC / "getting_started.rst", *(DOC / "user_guide").glob("*.rst")])

NOT_RUN = {
    ("large_data.rst", 0): "reads a 10-million-row CSV of the user's and writes 10 million rows",
    ("large_data.rst", 1): "needs a Dask scheduler and an S3 bucket",
}
SLOW_PAGES = {"evaluating.rst", "tuning.rst"}


def _given(page):
    """Names a page's blocks take as given ("df: your DataFrame")."""
    if page == "marginal.rst":
        from skprivsynth.datasets import load_adult

        adult = load_adult()
        return {"df": adult.data.iloc[:3000], "domain": adult.domain}
    return {}


def code_blocks(text):
    """The bodies of the ``.. code-block:: python`` directives of an rst text."""
    lines, blocks, i = text.splitlines(), [], 0
    while i < len(lines):
        if lines[i].strip() != ".. code-block:: python":
            i += 1
            continue
        i += 1
        while i < len(lines) and (not lines[i].strip() or lines[i].lstrip().startswith(":")):
            i += 1
        body = []
        while i < len(lines) and (lines[i].startswith("   ") or not lines[i].strip()):
            body.append(lines[i])
            i += 1
        blocks.append(textwrap.dedent("\n".join(body)))
    return blocks


def _pages():
    params = []
    for path in PAGES:
        if code_blocks(path.read_text(encoding="utf-8")):
            marks = [pytest.mark.slow] if path.name in SLOW_PAGES else []
            params.append(pytest.param(path, id=path.name, marks=marks))
    return params


@pytest.mark.parametrize("path", _pages())
def test_the_code_blocks_of_a_page_run(path, tmp_path, monkeypatch):
    matplotlib.use("Agg")
    monkeypatch.chdir(tmp_path)
    namespace = _given(path.name)
    for k, block in enumerate(code_blocks(path.read_text(encoding="utf-8"))):
        if (path.name, k) in NOT_RUN:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the pages show seeded and exact-score runs
            exec(compile(block, f"{path.name}, code block {k}", "exec"), namespace)


def test_the_blocks_not_run_exist():
    # A stale entry would hide a renamed page or a moved block.
    for page, k in NOT_RUN:
        assert k < len(code_blocks((DOC / "user_guide" / page).read_text(encoding="utf-8")))


def test_code_blocks_are_found():
    text = (
        ".. code-block:: python\n\n    x = 1\n\n    y = x\n\ntext\n\n"
        ".. code-block:: bash\n\n    ls\n"
    )
    assert code_blocks(text) == ["x = 1\n\ny = x\n"]
    assert os.path.basename(str(DOC)) == "doc" and len(_pages()) >= 8
