import json
import warnings

import pandas as pd
import pytest

from skprivsynth.cli import main
from skprivsynth.privacy import PrivacyLeakWarning


def test_demo_prints_table(capsys):
    assert main(["demo", "--n-rows", "3000", "--param", "k=20"]) == 0
    out = capsys.readouterr().out
    assert "tvd2" in out and "MicroaggregationSynthesizer" in out and "bootstrap" in out


def test_synthesize_and_evaluate_round_trip(tmp_path, adult, capsys):
    data = adult.data.iloc[:2000]
    source, target = tmp_path / "real.csv", tmp_path / "synthetic.csv"
    domain = tmp_path / "domain.json"
    data.to_csv(source, index=False)
    domain.write_text(json.dumps(adult.domain))
    code = main(
        [
            "synthesize",
            str(source),
            "-o",
            str(target),
            "--domain",
            str(domain),
            "--param",
            "k=10",
            "-n",
            "500",
        ]
    )
    assert code == 0
    synthetic = pd.read_csv(target)
    assert list(synthetic.columns) == list(data.columns) and len(synthetic) == 500
    assert main(["evaluate", str(source), str(target), "--domain", str(domain)]) == 0
    assert "tvd3" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["demo", "--method", "nope"], "--method must be one of"),
        (["demo", "--param", "k"], "KEY=VALUE"),
        (["demo", "--n-rows", "100", "--param", "k=0"], "'k' parameter"),
        (["evaluate", "missing.csv", "missing.csv"], "missing.csv"),
    ],
)
def test_errors_are_one_line_without_traceback(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_synthesize_never_overwrites_its_input_and_writes_atomically(tmp_path, adult, capsys):
    source = tmp_path / "real.csv"
    adult.data.iloc[:300].to_csv(source, index=False)
    before = source.read_bytes()
    assert main(["synthesize", str(source), "-o", str(source), "--param", "k=5"]) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert source.read_bytes() == before
    # A failing run (bad parameter) leaves no output and no temporary file behind.
    target = tmp_path / "out.csv"
    with pytest.warns(PrivacyLeakWarning, match="no --domain given"):
        assert main(["synthesize", str(source), "-o", str(target), "--param", "k=0"]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real.csv"]


def test_synthesize_is_reproducible(tmp_path, adult):
    source = tmp_path / "real.csv"
    adult.data.iloc[:500].to_csv(source, index=False)
    outputs = []
    for name in ("a.csv", "b.csv"):
        with pytest.warns(PrivacyLeakWarning, match="no --domain given"):
            assert main(["synthesize", str(source), "-o", str(tmp_path / name), "--seed", "7",
                         "--param", "k=5"]) == 0
        outputs.append((tmp_path / name).read_bytes())
    assert outputs[0] == outputs[1]


def test_seeded_dp_release_warns_and_unseeded_release_draws_fresh_noise(tmp_path, adult):
    source = tmp_path / "real.csv"
    adult.data.iloc[:500].to_csv(source, index=False)
    domain = tmp_path / "domain.json"
    domain.write_text(json.dumps(adult.domain))
    dp_run = ["synthesize", str(source), "--domain", str(domain),
              "--method", "noisy-microaggregation", "--param", "epsilon=1"]
    with pytest.warns(PrivacyLeakWarning, match="--seed 3 makes the privacy noise reproducible"):
        assert main([*dp_run, "-o", str(tmp_path / "seeded.csv"), "--seed", "3"]) == 0
    outputs = []
    for name in ("a.csv", "b.csv"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", PrivacyLeakWarning)  # declared domain, no seed
            assert main([*dp_run, "-o", str(tmp_path / name)]) == 0
        outputs.append((tmp_path / name).read_bytes())
    assert outputs[0] != outputs[1]
