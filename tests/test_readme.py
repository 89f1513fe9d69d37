"""The README's example and commands stay true."""

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.skipif(not README.exists(), reason="README.md not found next to tests/")
def test_readme_python_example_runs():
    text = README.read_text()
    code = re.search(r"```python\n(.*?)```", text, flags=re.DOTALL).group(1)
    namespace = {}
    exec(compile(code, str(README), "exec"), namespace)  # our own README, not user input
    synthetic = namespace["synthetic"]
    assert isinstance(synthetic, pd.DataFrame) and synthetic.shape == (1000, 14)
    assert namespace["search"].best_params_["microaggregationsynthesizer__k"] in (5, 10, 50)


@pytest.mark.skipif(not README.exists(), reason="README.md not found next to tests/")
def test_readme_commands_use_the_console_script_and_pytest():
    text = README.read_text()
    assert "python -m pip install -e . && python -m skprivsynth demo" in text
    assert 'python -m pip install -e ".[test]" && python -m pytest' in text
    version = subprocess.run(
        [sys.executable, "-m", "skprivsynth", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert version.stdout.startswith("skprivsynth ")


@pytest.mark.skipif(not README.exists(), reason="README.md not found next to tests/")
def test_readme_sections_are_unique():
    headings = re.findall(r"^## .*$", README.read_text(), flags=re.MULTILINE)
    assert len(headings) == len(set(headings)), headings


@pytest.mark.slow
@pytest.mark.skipif(not README.exists(), reason="README.md not found next to tests/")
def test_readme_accountant_example_runs_as_written():
    """The README's accountant example runs: the δ it shows is the one the synthesizer's
    (ε, δ) fits need (a pure ε budget refuses them)."""
    text = README.read_text()
    block = next(
        b for b in re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL) if "Accountant(" in b
    )
    code = textwrap.dedent(block)
    namespace = {}
    exec(compile(code, str(README), "exec"), namespace)  # our own README, not user input
    accountant, search = namespace["accountant"], namespace["search"]
    best = search.best_params_["marginalsynthesizer__epsilon"]
    assert round(accountant.spent, 2) == {1.0: 1.86, 0.25: 1.55}[best]
    assert len(accountant.charges) == 9  # 2 candidates x 2 folds + refit; 4 scores
