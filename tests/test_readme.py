"""The README's example and commands stay true."""

import re
import subprocess
import sys
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
