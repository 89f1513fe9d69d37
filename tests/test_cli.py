import json
import os
import re
import stat
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from skprivsynth.cli import main
from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.preprocessing import BooleanEncoder

# Microaggregation (no longer the default method) with a --param.
_MICRO = ("--method", "microaggregation", "--param")


def test_demo_prints_table(capsys):
    assert (
        main(["demo", "--n-rows", "3000", "--method", "microaggregation", "--param", "k=20"]) == 0
    )
    out = capsys.readouterr().out
    assert "tvd2" in out and "MicroaggregationSynthesizer" in out and "bootstrap" in out


def test_demo_defaults_to_the_marginal_synthesizer_on_integer_codes(capsys):
    assert main(["demo", "--n-rows", "8000", "--param", "epsilon=2"]) == 0
    out, err = capsys.readouterr()
    assert "MarginalSynthesizer" in out and "levels as integer codes" in out
    # Progress on standard error: one line per phase of the fit, with its time.
    assert "[MarginalSynthesizer] round 1: measured the table of " in err
    assert not re.search(r"columns \(\d", err)  # named, not numbered
    assert "100% of the budget spent" in err.splitlines()[-2]
    assert "[MarginalSynthesizer] fitted the model to every released table" in err.splitlines()[-1]
    assert "zCDP rho" in out and "epsilon = 2, delta = 1e-09" in out


def test_demo_prints_a_summary_of_the_report_and_the_derivations_when_verbose(capsys):
    argv = ["demo", "--n-rows", "2000", "--quiet", "--param", "epsilon=1.1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    report = out[out.index("Privacy report:") :].splitlines()
    assert report[1] == "  total: epsilon = 1.1, delta = 1e-09, replace-one neighbours"
    assert len(report) <= 5  # the total, rho, one line per mechanism
    assert any(line.startswith("  - Gaussian mechanism: ") for line in report)
    assert main([*argv, "--verbose"]) == 0
    verbose = capsys.readouterr().out
    assert "Bun & Steinke" in verbose and len(verbose.splitlines()) > len(out.splitlines()) + 20


def test_an_unknown_param_lists_the_valid_names(capsys):
    assert main(["demo", "--param", "epslon=1"]) == 2
    err = capsys.readouterr().err
    assert "MarginalSynthesizer has no parameter 'epslon'" in err
    assert "delta, domain, epsilon, iterations" in err


def test_synthesize_marginal_needs_every_column_declared(tmp_path, adult, capsys):
    data = adult.data.iloc[:1000]
    source, target, domain = tmp_path / "real.csv", tmp_path / "out.csv", tmp_path / "d.json"
    data.to_csv(source, index=False)
    domain.write_text(json.dumps(dict(list(adult.domain.items())[:-1])))  # one column missing
    argv = ["synthesize", str(source), "-o", str(target), "--method", "marginal"]
    assert main([*argv, "--domain", str(domain)]) == 2
    assert "declare the columns ['income>50K']" in capsys.readouterr().err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        assert main([*argv, "--domain", str(domain), "--allow-learned-domain"]) == 2
    err = capsys.readouterr().err  # command-line advice, not the Python one
    assert "--allow-learned-domain does not apply to --method marginal" in err
    assert "--drop" in err and "MarginalSynthesizer(" not in err and not target.exists()
    domain.write_text(json.dumps(adult.domain))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        assert main([*argv, "--domain", str(domain), "--seed", "0"]) == 0
    synthetic = pd.read_csv(target)
    assert synthetic.shape == data.shape and list(synthetic.columns) == list(data.columns)


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
            "--method",
            "microaggregation",
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
        (
            ["demo", "--n-rows", "100", "--method", "microaggregation", "--param", "k=0"],
            "'k' parameter",
        ),
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
    assert main(["synthesize", str(source), "-o", str(source), *_MICRO, "k=5"]) == 2
    assert "never overwritten" in capsys.readouterr().err
    assert source.read_bytes() == before
    # A bad parameter fails before the data is read; a run failing in the fit leaves no
    # output and no temporary file behind either.
    target = tmp_path / "out.csv"
    assert main(["synthesize", str(source), "-o", str(target), *_MICRO, "k=0"]) == 2
    assert "'k' parameter" in capsys.readouterr().err
    with pytest.warns(PrivacyLeakWarning, match="learned the domain"):
        assert main(["synthesize", str(source), "-o", str(target), *_MICRO, "k=1000"]) == 2
    assert "k=1000 needs at least 1000 rows" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real.csv"]


def test_outputs_get_the_permissions_of_a_new_file(tmp_path, adult):
    # The temporary file of the atomic write is owner-only (0600); the output, meant
    # to be shared, gets what any new file gets: 0666 less the umask.
    source = tmp_path / "real.csv"
    adult.data.iloc[:300].to_csv(source, index=False)
    target = tmp_path / "out.csv"
    old = os.umask(0o022)
    try:
        with pytest.warns(PrivacyLeakWarning, match="learned the domain"):
            assert main(["synthesize", str(source), "-o", str(target), *_MICRO, "k=5"]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_synthesize_is_reproducible(tmp_path, adult):
    source = tmp_path / "real.csv"
    adult.data.iloc[:500].to_csv(source, index=False)
    outputs = []
    for name in ("a.csv", "b.csv"):
        with pytest.warns(PrivacyLeakWarning, match="learned the domain"):
            assert (
                main(
                    [
                        "synthesize",
                        str(source),
                        "-o",
                        str(tmp_path / name),
                        "--seed",
                        "7",
                        *_MICRO,
                        "k=5",
                    ]
                )
                == 0
            )
        outputs.append((tmp_path / name).read_bytes())
    assert outputs[0] == outputs[1]


def test_seeded_dp_release_warns_and_unseeded_release_draws_fresh_noise(tmp_path, adult):
    source = tmp_path / "real.csv"
    adult.data.iloc[:500].to_csv(source, index=False)
    domain = tmp_path / "domain.json"
    domain.write_text(json.dumps(adult.domain))
    dp_run = [
        "synthesize",
        str(source),
        "--domain",
        str(domain),
        "--method",
        "noisy-microaggregation",
        "--param",
        "epsilon=1",
    ]
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=3\) seed differentially private"):
        assert main([*dp_run, "-o", str(tmp_path / "seeded.csv"), "--seed", "3"]) == 0
    outputs = []
    for name in ("a.csv", "b.csv"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", PrivacyLeakWarning)  # declared domain, no seed
            assert main([*dp_run, "-o", str(tmp_path / name)]) == 0
        outputs.append((tmp_path / name).read_bytes())
    assert outputs[0] != outputs[1]


def _synthesize(tmp_path, adult, domain, *options, rows=500):
    """`skprivsynth synthesize` on the first Adult rows with a declared domain file."""
    source = tmp_path / "real.csv"
    adult.data.iloc[:rows].to_csv(source, index=False)
    domain_file = tmp_path / "domain.json"
    domain_file.write_text(json.dumps(domain))
    argv = ["synthesize", str(source), "-o", str(tmp_path / "out.csv")]
    return main([*argv, "--domain", str(domain_file), *options])


def _dp_run(tmp_path, adult, domain, *extra):
    return _synthesize(
        tmp_path,
        adult,
        domain,
        "--method",
        "noisy-microaggregation",
        "--param",
        "epsilon=1",
        *extra,
    )


@pytest.mark.parametrize("as_lists", [False, True])
def test_decode_epsilon_is_spent_on_coarsened_columns_only(
    tmp_path, adult, capsys, monkeypatch, as_lists
):
    import skprivsynth.preprocessing._encoder as encoder_module

    released = {}

    def spy(data, categories, epsilon, random_state=None, noise="continuous", **kwargs):
        released.update(categories=dict(categories), epsilon=epsilon, noise=noise)
        return real_release(data, categories, epsilon, random_state, noise=noise, **kwargs)

    real_release = encoder_module.private_level_frequencies
    monkeypatch.setattr(encoder_module, "private_level_frequencies", spy)
    # A column of levels is coarsened whether declared by a count or by a list.
    domain = {c: list(range(k)) if as_lists else k for c, k in adult.domain.items()}
    assert _dp_run(tmp_path, adult, domain, "--decode-share", "0.25") == 0
    err = capsys.readouterr().err
    assert "epsilon = 1 (0.75 synthesizer + 0.25 decoding weights)" in err
    # Only the coarsened columns (more than 8 levels) are released: the noise scale
    # grows with their number.
    assert sorted(released["categories"]) == sorted(c for c, k in adult.domain.items() if k > 8)
    assert released["epsilon"] == 0.25 and released["noise"] == "continuous"
    # A floating-point-safe synthesizer gets a floating-point-safe decoding release.
    assert _dp_run(tmp_path, adult, domain, "--param", "noise=discrete") == 0
    assert released["noise"] == "discrete"


def test_decode_epsilon_is_not_charged_when_nothing_is_coarsened(tmp_path, adult, capsys):
    assert _dp_run(tmp_path, adult, adult.domain, "--max-bins", "1000") == 0
    err = capsys.readouterr().err
    assert "privacy: epsilon = 1," in err and "decoding" not in err


def test_negative_decode_epsilon_is_an_error(tmp_path, adult, capsys):
    assert _dp_run(tmp_path, adult, adult.domain, "--decode-share", "-1") == 2
    err = capsys.readouterr().err
    assert "--decode-share" in err and err.count("\n") == 1


def test_private_sampler_with_a_zero_record_cap_fails_clearly(tmp_path, adult, capsys):
    options = [
        "--method",
        "private-sampler",
        "--max-bins",
        "2",
        "--param",
        "epsilon=1",
        "--param",
        "degree=1",
        "--seed",
        "0",
    ]
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=0\) seed"):
        code = _synthesize(tmp_path, adult, adult.domain, *options, rows=300)
    assert code == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert "max_samples_=0" in err and "Traceback" not in err
    assert not (tmp_path / "out.csv").exists()


def test_microaggregation_reports_decoding_epsilon(tmp_path, adult, capsys):
    assert _synthesize(tmp_path, adult, adult.domain, "--max-bins", "8", *_MICRO, "k=5") == 0
    err = capsys.readouterr().err
    assert "k = 5" in err and "decoding weights: epsilon = 0.1" in err


def test_demo_correlated_gaussian_uses_a_binary_cube_within_max_universe(capsys):
    argv = ["demo", "--method", "correlated-gaussian", "--n-rows", "2000"]
    assert main([*argv, "--param", "epsilon=1", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert err == ""  # --quiet: no progress lines
    assert "14 Boolean features, binary codes (max_bins=2)" in out
    assert "privacy: epsilon = 1 (0.9 synthesizer + 0.1 decoding weights)" in out
    assert "delta = 1e-06" in out and "CorrelatedGaussianMechanism" in out and "tvd2" in out
    # An explicit --max-bins is kept; a cube beyond max_universe fails in one line.
    assert main([*argv, "--max-bins", "4"]) == 2
    err = capsys.readouterr().err
    assert "2^26" in err and "Traceback" not in err and err.count("\n") == 1


def test_synthesize_correlated_gaussian_picks_the_largest_max_bins_that_fits(
    tmp_path, adult, capsys
):
    columns = ["age", "race", "sex"]  # 7 + 3 + 1 = 11 bits without any coarsening
    source, target = tmp_path / "real.csv", tmp_path / "synthetic.csv"
    domain = tmp_path / "domain.json"
    adult.data[columns].iloc[:1000].to_csv(source, index=False)
    domain.write_text(json.dumps({c: adult.domain[c] for c in columns}))
    argv = ["synthesize", str(source), "-o", str(target), "--domain", str(domain)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded release
        code = main([*argv, "--method", "correlated-gaussian", "--seed", "0", "-n", "300"])
    assert code == 0
    err = capsys.readouterr().err
    # Nothing is coarsened, so no decoding budget is spent.
    assert "epsilon = 1, delta = 1e-06" in err and "decoding" not in err
    synthetic = pd.read_csv(target)
    assert list(synthetic.columns) == columns and len(synthetic) == 300
    for column in columns:
        assert synthetic[column].between(0, adult.domain[column] - 1).all()


@pytest.mark.parametrize("method", ["noisy-microaggregation", "correlated-gaussian"])
def test_partial_domain_refuses_a_dp_run_unless_allowed(tmp_path, adult, method, capsys):
    declared = {c: k for c, k in adult.domain.items() if c != "age"}
    assert _dp_run(tmp_path, adult, declared, "--method", method) == 2
    err = capsys.readouterr().err
    assert "declare the columns ['age']" in err and "--allow-learned-domain" in err
    assert not (tmp_path / "out.csv").exists()
    with pytest.warns(PrivacyLeakWarning, match="age"):
        assert _dp_run(tmp_path, adult, declared, "--method", method, "--allow-learned-domain") == 0


def test_evaluate_bins_numeric_columns_by_the_declared_domain(tmp_path, adult, capsys):
    """A {"bins": [...]} domain works for evaluate as it does for synthesize."""
    data = adult.data.iloc[:1000, :4].assign(age=lambda d: d["age"] + 17.0)  # years, float
    domain = {"age": {"bins": [17, 30, 45, 60, 102]}, "workclass": 9, "fnlwgt": 100}
    domain["education-num"] = list(range(16))
    source = tmp_path / "real.csv"
    data.to_csv(source, index=False)
    domain_file = tmp_path / "domain.json"
    domain_file.write_text(json.dumps(domain))
    target = tmp_path / "synthetic.csv"
    argv = ["synthesize", str(source), "-o", str(target), "--domain", str(domain_file)]
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=0\) seed"):  # within-bin weights
        assert main([*argv, *_MICRO, "k=10", "--seed", "0"]) == 0
    assert main(["evaluate", str(source), str(target), "--domain", str(domain_file)]) == 0
    assert "tvd1" in capsys.readouterr().out
    # Moves within a declared bin cost nothing: the tables are binned.
    moved = data.assign(age=data["age"].where(data["age"] >= 30, 29.0))
    moved.to_csv(target, index=False)
    assert main(["evaluate", str(source), str(target), "--domain", str(domain_file)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert float(next(line for line in lines if line.startswith(str(target))).split()[1]) == 0.0
    data.assign(age=200.0).to_csv(target, index=False)
    assert main(["evaluate", str(source), str(target), "--domain", str(domain_file)]) == 2
    assert "value 200.0 outside domain['age'] (bins from 17 to 102)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('["age"]', "must hold a JSON object"),
        ('{"age": 85,}', "is not valid JSON"),
        ('{"age": {"bins": [1, 0]}}', "domain['age']['bins'] must be finite and strictly"),
    ],
)
@pytest.mark.parametrize("command", ["synthesize", "evaluate"])
def test_bad_domain_files_are_named_in_one_line(tmp_path, adult, capsys, content, message, command):
    source = tmp_path / "real.csv"
    adult.data.iloc[:50].to_csv(source, index=False)
    domain_file = tmp_path / "domain.json"
    domain_file.write_text(content)
    files = [str(source), "-o", str(tmp_path / "out.csv")]
    if command == "evaluate":
        files = [str(source), str(source)]
    assert main([command, *files, "--domain", str(domain_file)]) == 2
    err = capsys.readouterr().err
    assert message in err and "domain.json" in err and err.count("\n") == 1


def test_seeded_decoding_release_of_microaggregation_warns(tmp_path, adult, capsys):
    """The decoding weights (a DP release) are seeded by --seed even for microaggregation."""
    options = ["--max-bins", "8", "--seed", "1", *_MICRO, "k=5"]
    with pytest.warns(PrivacyLeakWarning, match=r"BooleanEncoder\(random_state=1\) seed"):
        assert _synthesize(tmp_path, adult, adult.domain, *options) == 0
    assert "decoding weights: epsilon = 0.1" in capsys.readouterr().err
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)  # no release, nothing to warn
        assert _synthesize(tmp_path, adult, adult.domain, *options, "--decode-share", "0") == 0


def _fail_if_fitted(monkeypatch):
    """Any work (the encoder's fit, the first step of every run) fails the test."""

    def fit(self, X, y=None, **params):
        raise AssertionError("the encoder was fitted")

    monkeypatch.setattr(BooleanEncoder, "fit", fit)


def test_output_path_is_checked_before_any_work(tmp_path, adult, capsys, monkeypatch):
    import skprivsynth.cli as cli

    source = tmp_path / "real.csv"
    adult.data.iloc[:100].to_csv(source, index=False)
    _fail_if_fitted(monkeypatch)
    monkeypatch.setattr(cli, "read_csv", lambda *a, **k: pytest.fail("the input was read"))
    for output, message in [
        (tmp_path / "missing" / "out.csv", "does not exist"),
        (tmp_path, "is a directory"),
        (source, "never overwritten"),
    ]:
        assert main(["synthesize", str(source), "-o", str(output)]) == 2
        err = capsys.readouterr().err
        assert message in err and str(output) in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real.csv"]


def test_errors_name_the_file_they_are_about(tmp_path, adult, capsys):
    source, bad = tmp_path / "real.csv", tmp_path / "bad.csv"
    adult.data.iloc[:100, :3].to_csv(source, index=False)
    bad.write_bytes(b"")
    output = ["-o", str(tmp_path / "out.csv")]
    assert main(["synthesize", str(bad), *output]) == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "cannot be read as CSV" in err and err.count("\n") == 1
    assert main(["evaluate", str(source), str(bad)]) == 2
    assert "bad.csv" in capsys.readouterr().err
    domain = tmp_path / "domain.json"
    domain.write_text(json.dumps({"age": 85, "salary": {"bins": [0, 1]}}))
    assert main(["synthesize", str(source), *output, "--domain", str(domain)]) == 2
    err = capsys.readouterr().err
    assert "domain declares columns ['salary']" in err and "real.csv" in err
    assert main(["synthesize", str(source), *output, "--domain", str(tmp_path / "no.json")]) == 2
    assert "domain file" in capsys.readouterr().err


def test_identifier_like_columns_refused_for_dp_warned_for_microaggregation(
    tmp_path, capsys, monkeypatch
):
    rng = np.random.default_rng(0)
    n = 40
    data = pd.DataFrame({"id": [f"p{i}" for i in range(n)], "group": rng.integers(0, 3, n)})
    source, domain = tmp_path / "real.csv", tmp_path / "domain.json"
    data.to_csv(source, index=False)
    argv = ["synthesize", str(source), "-o", str(tmp_path / "out.csv"), "--domain", str(domain)]
    # DP: decided on the declared domain only (public), before any work.
    domain.write_text(json.dumps({"id": [f"p{i}" for i in range(2 * n)], "group": 3}))
    _fail_if_fitted(monkeypatch)
    assert main([*argv, "--method", "noisy-microaggregation"]) == 2
    err = capsys.readouterr().err
    assert "'id' (80 levels)" in err and "--drop" in err and "group" not in err
    monkeypatch.undo()
    # Microaggregation: a warning naming the column, then the run.
    domain.write_text(json.dumps({"group": 3}))
    with pytest.warns(PrivacyLeakWarning, match=r"'id' \(40 levels\).*look like identifiers"):
        assert main([*argv, *_MICRO, "k=5"]) == 0


@pytest.mark.parametrize("streamed", [False, True])
def test_drop_leaves_identifier_columns_out_of_the_run_and_the_evaluation(
    tmp_path, capsys, streamed
):
    rng = np.random.default_rng(0)
    n = 200
    data = pd.DataFrame(
        {"id": [f"p{i}" for i in range(n)], "a": rng.integers(0, 3, n), "b": rng.integers(0, 2, n)}
    )
    source, domain, target = tmp_path / "real.csv", tmp_path / "domain.json", tmp_path / "out.csv"
    data.to_csv(source, index=False)
    domain.write_text(json.dumps({"a": 3, "b": 2}))
    argv = ["synthesize", str(source), "-o", str(target), "--domain", str(domain), "-q"]
    argv += ["--chunksize", "50"] if streamed else []
    assert main(argv) == 2  # undeclared: refused, naming the way out
    assert "leave them out with --drop" in capsys.readouterr().err or streamed
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=0\) seed"):
        assert main([*argv, "--drop", "id", "--seed", "0"]) == 0
    assert list(pd.read_csv(target).columns) == ["a", "b"]
    capsys.readouterr()
    assert main(["evaluate", str(source), str(target), "--domain", str(domain)]) == 0
    assert "not synthesized, left out: ['id']" in capsys.readouterr().err
    assert main([*argv, "--drop", "name"]) == 2
    assert "--drop names columns ['name'] that are not in" in capsys.readouterr().err
    # A domain that declares the dropped column (a draft keeps a panel's key and
    # advises --drop): its entry is ignored.
    domain.write_text(json.dumps({"id": [f"p{i}" for i in range(n)], "a": 3, "b": 2}))
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=0\) seed"):
        assert main([*argv, "--drop", "id", "--seed", "0"]) == 0
    assert list(pd.read_csv(target).columns) == ["a", "b"]
    # The draft advises one --drop per column: repeated, they add up (the last one
    # alone was kept).
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=0\) seed"):
        assert main([*argv, "--drop", "id", "--drop", "b", "--seed", "0"]) == 0
    assert list(pd.read_csv(target).columns) == ["a"]


def _draft(tmp_path, capsys, data):
    """The draft of ``data`` written as a CSV: (the JSON object, the stderr lines)."""
    source = tmp_path / "data.csv"
    data.to_csv(source, index=False)
    with pytest.warns(PrivacyLeakWarning, match="drafted from the private values"):
        assert main(["domain", str(source)]) == 0
    out, err = capsys.readouterr()
    return json.loads(out), err.splitlines()


def test_domain_draft_follows_the_column_kinds(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 400
    hours = pd.date_range("2013-01-01", "2013-12-31 23:00", freq="h")
    data = pd.DataFrame(
        {
            "year": 2013,
            "month": rng.integers(1, 13, n),
            "day": rng.integers(1, 32, n),
            "age": rng.integers(17, 91, n),
            "income": np.r_[np.zeros(n // 2), rng.exponential(30000.0, n - n // 2)],
            "time_hour": rng.choice(hours, n),
            "date": rng.choice(hours.normalize().unique(), n),
            "delay": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 5, n)),
            "city": np.where(rng.random(n) < 0.1, None, rng.choice(["Lyon", "Paris"], n)),
            "flag": rng.random(n) < 0.5,
            "price": np.round(rng.uniform(1, 50, n), 2),
            # Recorded in tenths, but for 3 computed values (under 1 % of the rows).
            "dose": np.r_[np.round(rng.uniform(0, 9, n - 3), 1), 1 / 3, 2 / 3, 1 / 7],
            "rate": rng.choice([0.0, 3.258096, 4.564348], n),  # log-tariffs: codes
            "row": np.arange(n) + 1000,
            "name": [f"x{i}" for i in range(n)],
        }
    )
    draft, lines = _draft(tmp_path, capsys, data)
    # The constant year is the year of every timestamp: a part of it (see
    # test_domain_draft_proposes_the_parts_of_a_datetime); a constant otherwise.
    assert draft["year"] == {"part_of": "time_hour", "part": "year"}
    assert draft["month"] == {"type": "integer", "range": [1, 12]}  # never 0 or 13
    assert draft["day"] == {"type": "integer", "range": [1, 31]}
    assert draft["age"] == {"type": "integer", "range": [10, 90]}  # rounded outwards
    assert draft["income"]["type"] == "float" and draft["income"]["range"][0] == 0.0
    assert draft["income"]["range"][1] >= data["income"].max()
    assert draft["time_hour"]["type"] == "datetime"
    assert draft["time_hour"]["resolution"] == "h"  # the coarsest unit every value sits on
    low, high = data["time_hour"].min(), data["time_hour"].max()
    drafted = pd.to_datetime(draft["time_hour"]["range"])  # from the first day to the last
    assert drafted[0] == low.normalize() and high <= drafted[1] < high.normalize() + pd.Timedelta(
        "1D"
    )
    assert draft["date"]["type"] == "datetime" and draft["date"]["resolution"] == "D"
    assert draft["date"]["range"][0] == data["date"].min().strftime("%Y-%m-%d")
    assert draft["delay"] == {"type": "integer", "range": [0, 4], "missing": True}
    assert draft["city"] == {"levels": ["Lyon", "Paris"], "missing": True}
    assert draft["flag"] == {"type": "boolean"}
    assert draft["price"]["decimals"] == 2 and "decimals" not in draft["income"]
    assert draft["dose"]["decimals"] == 1
    assert any("'dose'" in line and "all but 3 value(s)" in line for line in lines)
    # Few fractional values, each on many rows: levels, whose point masses come back.
    assert draft["rate"] == {"levels": [0.0, 3.258096, 4.564348], "ordered": True}
    assert "row" not in draft and "name" not in draft
    # One line per column on stderr, saying what was inferred and why.
    for column in data.columns:
        assert sum(line.startswith(f"skprivsynth domain: {column!r}: ") for line in lines) == 1
    assert any("'name': left out" in line and "identifier" in line for line in lines)
    assert any("'city': levels" in line and '"ordered": true' in line for line in lines)


def test_domain_draft_leaves_out_numbers_and_dates_written_for_people(tmp_path, capsys):
    """'$52,000' and '45%' are neither levels (sorted as text, '100%' before '20%') nor
    an identifier: left out, with the advice to write them as plain numbers; a
    multiple-choice answer '1,3' stays a level.  Dates as a spreadsheet writes them,
    '01/31/2020', are read in their format when a day above 12 decides it (see
    test_domain_draft_reads_dates_in_their_format); '1/31/20' is left out with the
    advice to declare its format."""
    rng = np.random.default_rng(0)
    n = 200
    salary = rng.integers(20, 200, n) * 1000
    data = pd.DataFrame(
        {
            "salary": [f"${s:,}" for s in salary],
            "share": [f"{p}%" for p in rng.integers(0, 101, n)],
            "choices": rng.choice(["1", "1,3", "2,3"], n),
            "visit": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 365, n), "D"),
            "version": rng.choice(["1.10.12", "1.9.3", "2.0.1"], n),
        }
    )
    data["visit"] = data["visit"].dt.strftime("%-m/%-d/%y")
    draft, lines = _draft(tmp_path, capsys, data)
    assert "visit" not in draft and draft["version"] == ["1.10.12", "1.9.3", "2.0.1"]
    assert any("'visit'" in x and '"format": "%m/%d/%y"' in x and "2020-01-31" in x for x in lines)
    assert "salary" not in draft and "share" not in draft
    assert draft["choices"] == ["1", "1,3", "2,3"]
    line = next(x for x in lines if "'salary'" in x)
    assert "left out" in line and "plain numbers" in line and "identifier" not in line


def test_domain_draft_of_a_narrow_slice_declares_what_is_there(tmp_path, capsys):
    """A slice where month is always 1: one level, never codes 0..1."""
    data = pd.DataFrame({"month": [1] * 20, "day": np.arange(20) % 3 + 1})
    draft, _ = _draft(tmp_path, capsys, data)
    assert draft == {"month": [1], "day": {"type": "integer", "range": [1, 3]}}


def test_domain_draft_of_an_ordered_categorical_keeps_its_order():
    from skprivsynth import draft_domain as _draft_domain

    grades = pd.Categorical(["Good", "Fair", "Ideal"] * 5, categories=["Fair", "Good", "Ideal"])
    data = pd.DataFrame({"cut": grades.as_ordered(), "color": grades})
    draft, _ = _draft_domain(data)
    assert draft["cut"] == {"levels": ["Fair", "Good", "Ideal"], "ordered": True}
    assert draft["color"] == ["Fair", "Good", "Ideal"]


def test_learned_domain_refusal_points_to_the_domain_command(tmp_path, adult, capsys):
    declared = {c: k for c, k in adult.domain.items() if c != "age"}
    assert _dp_run(tmp_path, adult, declared) == 2
    assert "skprivsynth domain data.csv > domain.json" in capsys.readouterr().err


def test_warnings_print_as_one_line(tmp_path, adult):
    """A real run: each warning is one line on stderr, without source line or path."""
    source, domain = tmp_path / "real.csv", tmp_path / "domain.json"
    adult.data.iloc[:300].to_csv(source, index=False)
    domain.write_text(json.dumps(adult.domain))
    argv = ["synthesize", str(source), "-o", str(tmp_path / "out.csv"), "--domain", str(domain)]
    argv += ["--method", "noisy-microaggregation", "--param", "epsilon=1", "--seed", "0"]
    env = {**os.environ, "PYTHONWARNINGS": "default"}
    run = subprocess.run(
        [sys.executable, "-m", "skprivsynth", *argv], capture_output=True, text=True, env=env
    )
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    warning_lines = [line for line in lines if "Warning" in line]
    assert warning_lines and all(
        line.startswith("skprivsynth: warning: PrivacyLeakWarning: ") for line in warning_lines
    )
    others = [line for line in lines if line not in warning_lines]
    assert all(line.startswith("[NoisyMicroaggregation] ") for line in others[:-1])
    assert len(others) >= 3 and others[-1].startswith("wrote 300")  # phase lines, then done
    assert ".py" not in run.stderr and "warnings.warn" not in run.stderr


def test_a_declared_na_level_survives_a_run_and_undeclared_missing_is_refused(
    tmp_path, capsys, monkeypatch
):
    rng = np.random.default_rng(0)
    n = 200
    data = pd.DataFrame(
        {"answer": rng.choice(["NA", "yes", "no"], n), "group": rng.integers(0, 3, n)}
    )
    source, domain, target = tmp_path / "in.csv", tmp_path / "d.json", tmp_path / "out.csv"
    data.to_csv(source, index=False)
    domain.write_text(json.dumps({"answer": ["NA", "no", "yes"], "group": 3}))
    argv = ["synthesize", str(source), "-o", str(target), "--domain", str(domain)]
    assert main([*argv, *_MICRO, "k=5"]) == 0
    synthetic = pd.read_csv(target, keep_default_na=False)
    assert set(synthetic["answer"]) <= {"NA", "no", "yes"} and "NA" in set(synthetic["answer"])
    # An empty cell in a column that does not declare "missing": refused before any
    # work, naming the column and the key, nothing written.
    target.unlink()
    capsys.readouterr()
    data.assign(group=data["group"].where(data.index != 7)).to_csv(source, index=False)
    _fail_if_fitted(monkeypatch)
    assert main([*argv, "--param", "epsilon=1"]) == 2
    err = capsys.readouterr().err
    assert "column 'group'" in err and '"missing": true' in err and err.count("\n") == 1
    assert not target.exists()


def test_codes_for_missing_answers_are_drafted_read_and_written_as_missing(tmp_path, capsys):
    # A survey's "98 don't know, 99 no answer" on a count, written by a tool that keeps
    # floats ("98.0"), beside empty cells; and -9 on a wage.
    rng = np.random.default_rng(0)
    n = 3000
    kids = rng.poisson(1.5, n).astype(float)
    kids[rng.random(n) < 0.04], kids[rng.random(n) < 0.02] = 98, 99
    kids[rng.random(n) < 0.01] = np.nan
    wage = np.where(rng.random(n) < 0.05, -9, rng.integers(1, 400, n))
    age = rng.integers(18, 90, n)  # values up to 89: 99 is no code here, nor 98 above 60
    hours = np.where(rng.random(n) < 0.05, 99, rng.integers(0, 61, n))
    job = rng.choice(["clerk", "nurse", "?"], n, p=[0.5, 0.45, 0.05])
    score = np.where(rng.random(n) < 0.03, "?", rng.integers(0, 11, n).astype(str))
    weight = np.where(rng.random(n) < 0.02, 999, np.round(rng.normal(75, 12, n), 1))
    data = pd.DataFrame(
        {"kids": kids, "wage": wage, "age": age, "hours": hours, "job": job, "score": score}
        | {"weight": weight}
    )
    draft, lines = _draft(tmp_path, capsys, data)
    # "?" among numbers (a UCI file's missing cell): the column stays numeric.
    assert draft["score"] == {"type": "integer", "range": [0, 10], "missing": True}
    # "?" among text: a level, with the advice to list it as missing.
    assert draft["job"] == ["?", "clerk", "nurse"]
    assert any(x.startswith("skprivsynth domain: 'job'") and '"missing": ["?"]' in x for x in lines)
    draft["job"] = {"levels": ["clerk", "nurse"], "missing": ["?"]}
    assert draft["kids"] == {"type": "integer", "range": [0, int(kids[kids < 98].max())],
                             "missing": [98, 99]}  # fmt: skip
    assert draft["wage"]["missing"] == [-9] and draft["wage"]["range"][0] == 0
    assert draft["weight"]["type"] == "float" and draft["weight"]["missing"] == [999]
    assert "missing" not in draft["age"] and "missing" not in draft["hours"]
    line = next(x for x in lines if x.startswith("skprivsynth domain: 'kids'"))
    coded = int(np.isin(kids, [98, 99]).sum())
    assert f"{coded} cells hold [98, 99]" in line and "empty cells" in line
    source, domain, target = tmp_path / "data.csv", tmp_path / "d.json", tmp_path / "out.csv"
    domain.write_text(json.dumps(draft))
    argv = ["synthesize", str(source), "-o", str(target), "--domain", str(domain), "--seed", "0"]
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=0\) seed"):
        assert main([*argv, "--param", "epsilon=20"]) == 0
    synthetic = pd.read_csv(target, keep_default_na=False, na_values=[""])
    assert synthetic["kids"].max() <= 20 and synthetic["wage"].min() >= 0
    assert "?" not in set(synthetic["job"].dropna()) and synthetic["job"].isna().mean() > 0.02
    assert synthetic["score"].max() <= 10 and synthetic["score"].isna().mean() > 0.01
    rate = (np.isnan(kids) | np.isin(kids, [98, 99])).mean()
    assert abs(synthetic["kids"].isna().mean() - rate) < 0.02
    capsys.readouterr()
    with pytest.warns(UserWarning, match="bins at quantiles of the real data"):
        assert main(["evaluate", str(source), str(target), "--domain", str(domain)]) == 0
    out = capsys.readouterr().out
    kids_line = next(x for x in out.splitlines() if x.startswith("kids "))
    assert f"{rate:.4f}" in kids_line  # the real missing rate counts the codes


def test_synthesize_defaults_to_the_dp_marginal_method_at_epsilon_one(tmp_path, adult, capsys):
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=0\) seed"):
        assert _synthesize(tmp_path, adult, adult.domain, "--seed", "0", rows=1000) == 0
    err = capsys.readouterr().err
    assert "[MarginalSynthesizer]" in err and "privacy: epsilon = 1," in err
    assert "delta = 1e-09" in err and "k-anonymous" not in err


def test_a_one_hot_encoding_too_wide_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    from skprivsynth._table_checks import MAX_ONEHOT_FEATURES

    rng = np.random.default_rng(0)
    n = 30_000
    data = pd.DataFrame(
        {"tail": rng.integers(0, 10_000, n).astype(str), "a": rng.integers(0, 5, n)}
    )
    data["tail"] = "t" + data["tail"]
    source = tmp_path / "in.csv"
    data.to_csv(source, index=False)
    argv = ["synthesize", str(source), "-o", str(tmp_path / "out.csv"), *_MICRO, "k=10"]
    levels = data["tail"].nunique()
    assert levels > MAX_ONEHOT_FEATURES
    _fail_if_fitted(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"'tail' ({levels} levels)" in err and "--max-bins" in err and "marginal" in err
    assert not (tmp_path / "out.csv").exists()
    # Declared with its levels: the count is the declared one.
    domain = tmp_path / "d.json"
    domain.write_text(json.dumps({"tail": [f"t{i}" for i in range(10_000)], "a": 5}))
    assert main([*argv, "--domain", str(domain)]) == 2
    assert "'tail' (10000 levels)" in capsys.readouterr().err
    # --max-bins groups the levels into ranges: within the bound, the run goes on.
    monkeypatch.undo()
    assert main([*argv, "--domain", str(domain), "--max-bins", "64", "--decode-share", "0"]) == 0


def test_evaluate_prints_numeric_distributions_and_missing_rates(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 2000
    real = pd.DataFrame(
        {
            "x": rng.normal(size=n),
            "answer": np.where(rng.random(n) < 0.3, "", rng.choice(["NA", "no"], n)),
            "c": "k",
        }
    )
    synthetic = real.assign(x=real["x"] + 10.0, answer=rng.choice(["NA", "no"], n))
    for name, frame in {"real.csv": real, "synthetic.csv": synthetic}.items():
        frame.to_csv(tmp_path / name, index=False)
    domain = tmp_path / "d.json"
    spec = {"x": {"bins": [-100, 0, 100]}, "answer": ["NA", "no"], "c": ["k"]}
    domain.write_text(json.dumps(spec))
    argv = ["evaluate", str(tmp_path / "real.csv"), str(tmp_path / "synthetic.csv")]
    assert main([*argv, "--domain", str(domain)]) == 0
    out = capsys.readouterr().out
    numeric = out.split("numeric columns")[1].splitlines()
    assert numeric[1].split()[:2] == ["ks", "wasserstein_iqr"]
    assert numeric[2].split()[:2] == ["x", "1.0000"]  # disjoint samples
    # The empty cells are missing (a level of their own), the declared "NA" a level.
    missing = out.split("missing rates")[1].splitlines()
    row = missing[2].split()
    share = (real["answer"] == "").mean()
    assert row[0] == "answer" and float(row[1]) == pytest.approx(share, abs=1e-4)
    assert float(row[2]) == 0.0
    levels = [(frame["answer"] == v).mean() for frame in (real, synthetic) for v in ("NA", "no")]
    tvd_answer = 0.5 * (share + abs(levels[0] - levels[2]) + abs(levels[1] - levels[3]))
    tvd_x = (real["x"] < 0).mean()  # every synthetic x is in the bin [0, 100]
    (scores,) = [line for line in out.splitlines() if line.startswith(argv[2])]
    tvd1 = float(scores.split()[1])
    assert tvd1 == pytest.approx((tvd_answer + tvd_x + 0.0) / 3, abs=1e-4)


def test_a_csv_with_na_strings_and_empty_cells_from_draft_to_release(tmp_path, capsys):
    """The draft reads "NA" among text as a level and among numbers as missing; the DP
    run keeps the level and reproduces the missing rates."""
    rng = np.random.default_rng(0)
    n = 3000
    delay = pd.Series(rng.integers(0, 10, n)).astype(object).where(rng.random(n) > 0.2, "NA")
    carrier = np.where(rng.random(n) < 0.1, "", rng.choice(["AA", "DL", "UA"], n))
    data = pd.DataFrame({"answer": rng.choice(["NA", "no", "yes"], n), "delay": delay})
    data["carrier"] = carrier
    data["rate"] = rng.choice([0.5, 2.25], n)
    source, domain = tmp_path / "in.csv", tmp_path / "domain.json"
    data.to_csv(source, index=False)
    with pytest.warns(PrivacyLeakWarning, match="drafted from the private values"):
        assert main(["domain", str(source)]) == 0
    out, err = capsys.readouterr()
    draft = json.loads(out)
    assert draft == {
        "answer": ["NA", "no", "yes"],
        "delay": {"type": "integer", "range": [0, 9], "missing": True},
        "carrier": {"levels": ["AA", "DL", "UA"], "missing": True},
        "rate": {"levels": [0.5, 2.25], "ordered": True},
    }
    assert "['NA'] kept as a level" in err and "['NA'] among numbers" in err
    domain.write_text(out)
    target = tmp_path / "out.csv"
    argv = ["synthesize", str(source), "-o", str(target), "--domain", str(domain), "-q"]
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=0\) seed"):
        assert main([*argv, "--seed", "0"]) == 0
    synthetic = pd.read_csv(target, keep_default_na=False, na_values=[""])
    assert set(synthetic["answer"]) == {"NA", "no", "yes"}  # "NA" stays a level
    assert set(synthetic["rate"]) == {0.5, 2.25}  # numeric levels read back and written
    assert synthetic["delay"].isna().mean() == pytest.approx(0.2, abs=0.03)
    assert set(synthetic["delay"].dropna()) <= set(range(10))
    assert synthetic["carrier"].isna().mean() == pytest.approx(0.1, abs=0.03)


def test_ranges_drafted_and_released_with_private_bins(tmp_path, capsys):
    """Wide integers, floats and timestamps drafted as ranges: the run spends
    --binning-share on their bins and decodes them inside the ranges, as their kinds."""
    rng = np.random.default_rng(1)
    n = 4000
    hours = pd.to_timedelta(rng.integers(0, 8760, n), "h")
    data = pd.DataFrame(
        {
            "age": rng.integers(17, 91, n),
            "dist": np.round(rng.gamma(2.0, 500.0, n), 1),
            "time_hour": (pd.Timestamp("2013-01-01") + hours).strftime("%Y-%m-%d %H:%M:%S"),
        }
    )
    draft, _ = _draft(tmp_path, capsys, data)
    assert [draft[c]["type"] for c in data.columns] == ["integer", "float", "datetime"]
    domain, target = tmp_path / "domain.json", tmp_path / "out.csv"
    domain.write_text(json.dumps(draft))
    argv = ["synthesize", str(tmp_path / "data.csv"), "-o", str(target), "--domain", str(domain)]
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=0\) seed"):
        assert main([*argv, "-q", "--seed", "0", "--binning-share", "0.5"]) == 0
    assert "epsilon = 1 (synthesizer 0.8522 and private bins 0.5 alone, composed in zCDP)" in (
        capsys.readouterr().err
    )
    synthetic = pd.read_csv(target, parse_dates=["time_hour"])
    assert synthetic["age"].dtype == np.int64
    assert synthetic["age"].between(*draft["age"]["range"]).all()
    assert synthetic["dist"].between(*draft["dist"]["range"]).all()
    low, high = pd.to_datetime(draft["time_hour"]["range"])
    assert synthetic["time_hour"].between(low, high).all()
    assert (synthetic["time_hour"] == synthetic["time_hour"].dt.floor("h")).all()


def test_domain_draft_proposes_the_parts_of_a_datetime(tmp_path, capsys):
    """Integer (and date) columns equal to a part of an ISO timestamp column on every row
    are drafted as parts of it, and the run decodes them from the synthetic timestamp."""
    rng = np.random.default_rng(0)
    n = 2000
    when = pd.Series(pd.Timestamp("2013-01-01") + pd.to_timedelta(rng.integers(0, 8760, n), "h"))
    when[rng.random(n) < 0.05] = pd.NaT
    data = pd.DataFrame(
        {
            "year": when.dt.year,  # float with NaN where the timestamp is missing
            "month": when.dt.month,
            "day": when.dt.day,
            "hour": when.dt.hour,
            "weekday": when.dt.day_of_week,
            "time_hour": when.dt.strftime("%Y-%m-%d %H:%M:%S"),
            "date": when.dt.strftime("%Y-%m-%d"),
            "slot": (when.dt.hour.fillna(0) // 6).astype(int),  # a function, but no part
            "dep": rng.integers(0, 24, n),  # an hour, but of no timestamp
        }
    )
    data.loc[data.index[~when.isna()][0], "hour"] += 1  # one disagreeing row: no part
    draft, lines = _draft(tmp_path, capsys, data)
    for part in ["year", "month", "day", "weekday", "date"]:
        assert draft[part] == {"part_of": "time_hour", "part": part, "missing": True}, part
    assert draft["hour"] == {"type": "integer", "range": [0, 23], "missing": True}
    assert draft["slot"]["type"] == draft["dep"]["type"] == "integer"
    assert draft["time_hour"]["type"] == "datetime"
    line = next(x for x in lines if "'month':" in x)
    assert "part_of: equals the month of 'time_hour' on every row" in line
    # The draft runs: the parts come back consistent with the synthetic timestamp.
    domain, target = tmp_path / "domain.json", tmp_path / "out.csv"
    domain.write_text(json.dumps(draft))
    argv = ["synthesize", str(tmp_path / "data.csv"), "-o", str(target), "--domain", str(domain)]
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=0\) seed"):
        assert main([*argv, "-q", "--seed", "0"]) == 0
    synthetic = pd.read_csv(target, parse_dates=["time_hour", "date"])
    assert list(synthetic.columns) == list(data.columns)
    stamps = synthetic["time_hour"]
    assert stamps.isna().any() and synthetic["month"].isna().equals(stamps.isna())
    known = synthetic[stamps.notna()]
    assert (known["month"] == known["time_hour"].dt.month).all()
    assert (known["weekday"] == known["time_hour"].dt.day_of_week).all()
    assert (known["date"] == known["time_hour"].dt.normalize()).all()
    # Evaluated with the domain file: each part compared as a column of its values.
    assert main(["evaluate", str(tmp_path / "data.csv"), str(target), "--domain", str(domain)]) == 0
    assert "tvd2" in capsys.readouterr().out


def test_domain_draft_points_out_the_key_of_units_with_several_rows(tmp_path, capsys):
    """Person-years: 25 persons, 4 rows each.  The guarantee is per row, so the draft
    says that a person's rows are covered by group privacy only; a column whose values
    repeat unevenly (a count) gets no such note."""
    rng = np.random.default_rng(0)
    data = pd.DataFrame(
        {
            "person": np.repeat(np.arange(1000, 1025), 4),
            "year": np.tile([1980, 1981, 1982, 1983], 25),
            "visits": rng.integers(0, 30, 100),
        }
    )
    _, lines = _draft(tmp_path, capsys, data)
    (person,) = [line for line in lines if "'person'" in line]
    assert "each of its 25 values is on exactly 4 rows" in person
    assert "ρ times 16" in person and "--drop person" in person
    assert not any("exactly" in line for line in lines if "'person'" not in line)
    # 30 persons answering the same 20 items: both columns are balanced, but the item is
    # the occasion, not the unit (30 × 20 = every row), and gets no note.
    items = pd.DataFrame(
        {"person": np.repeat(np.arange(30), 20), "item": np.tile([f"q{i}" for i in range(20)], 30)}
    )
    _, lines = _draft(tmp_path, capsys, items)
    assert any("'person'" in line and "exactly 20 rows" in line for line in lines)
    assert not any("'item'" in line and "exactly" in line for line in lines)


def test_a_fractional_cell_of_an_integer_column_changes_nothing_but_its_bin(tmp_path, capsys):
    """D and D' differ in one row, where D' has 500.5 in every integer column: both
    synthetic columns are written as integers (D' read as floats wrote 445.0, 115.0)."""
    rng = np.random.default_rng(0)
    n = 200
    data = pd.DataFrame({
        "wide": rng.integers(0, 1001, n),  # private bins
        "binned": rng.integers(0, 1001, n),
        "kids": rng.integers(0, 6, n),  # one level per integer
        "coded": rng.integers(0, 1001, n),  # missing declared
    })  # fmt: skip
    other = data.astype(np.float64)
    other.loc[17] = [500.5, 500.5, 2.5, 500.5]
    domain = tmp_path / "domain.json"
    domain.write_text(json.dumps({
        "wide": {"type": "integer", "range": [0, 1000]},
        "binned": {"type": "integer", "bins": [0, 250, 500, 1000]},
        "kids": {"type": "integer", "range": [0, 5]},
        "coded": {"type": "integer", "range": [0, 1000], "missing": True},
    }))  # fmt: skip
    written = []
    for name, table in (("d", data), ("d_prime", other)):
        table.to_csv(tmp_path / f"{name}.csv", index=False)
        out = tmp_path / f"{name}.out.csv"
        argv = ["synthesize", str(tmp_path / f"{name}.csv"), "--domain", str(domain),
                "-o", str(out), "--seed", "0", "-n", "100", "--quiet"]  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)  # --seed
            assert main(argv) == 0, capsys.readouterr().err
        written.append(pd.read_csv(out, dtype=str, keep_default_na=False))
    for synthetic in written:
        for column in ("wide", "binned", "kids"):
            assert synthetic[column].str.fullmatch(r"\d+").all(), synthetic[column].head()
        assert synthetic["coded"].str.fullmatch(r"\d*").all()
    typed = [pd.read_csv(tmp_path / f"{name}.out.csv").dtypes for name in ("d", "d_prime")]
    # "coded" may come back missing, then read as floats: its digits are checked above.
    integers = ["wide", "binned", "kids"]
    assert (typed[0] == typed[1]).all() and (typed[0][integers] == np.int64).all()


def test_seed_gives_the_encoder_the_synthesizer_and_the_sample_streams_of_their_own(
    tmp_path, monkeypatch
):
    """``--seed 0`` seeds the encoder, the synthesizer and the sample: the encoder's fit,
    the synthesizer's fit and the sampling start from pairwise different states."""
    from seed_streams import assert_pairwise_different, record_stream_starts

    rng = np.random.default_rng(0)
    n = 2000
    data = pd.DataFrame(
        {"dist": np.round(rng.gamma(2.0, 500.0, n).clip(0, 10000)), "c": rng.integers(0, 20, n)}
    )
    source, domain = tmp_path / "real.csv", tmp_path / "domain.json"
    data.to_csv(source, index=False)
    domain.write_text(json.dumps({"dist": {"type": "integer", "range": [0, 10000]}, "c": 20}))
    starts = record_stream_starts(monkeypatch)
    argv = ["synthesize", str(source), "-o", str(tmp_path / "out.csv"), "--domain", str(domain)]
    argv += ["--method", "noisy-microaggregation", "--param", "epsilon=1", "-q", "--seed", "0"]
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=0\) seed") as caught:
        assert main(argv) == 0
    assert len(caught) == 1  # the command's warning, not the library's again
    assert_pairwise_different(
        starts,
        [
            "encoder bins",
            "encoder level frequencies",
            "encoder decoding",
            "synthesizer fit",
            "synthesizer sampling",
            "sample",
            "sample decoding",
        ],
    )


def _tvd_row(text):
    """The tvd1, tvd2, tvd3 numbers printed by ``skprivsynth evaluate``."""
    line = next(line for line in text.splitlines() if line.startswith("synthetic.csv"))
    return np.array([float(v) for v in line.split()[1:4]])


def test_evaluate_without_a_domain_reads_timestamps_as_the_release_does(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 2000
    start = pd.Timestamp("2023-01-01")
    minutes = rng.integers(0, 365 * 24 * 60, (2, n))
    frames = [
        pd.DataFrame(
            {
                "admitted": (start + pd.to_timedelta(m, unit="min")).strftime("%Y-%m-%d %H:%M"),
                "age": rng.integers(0, 100, n),
                "severity": rng.choice(["low", "medium", "high"], n),
            }
        )
        for m in minutes
    ]
    frames[0].to_csv(tmp_path / "real.csv", index=False)
    frames[1].to_csv(tmp_path / "synthetic.csv", index=False)
    domain = {
        "admitted": {
            "type": "datetime",
            "range": ["2023-01-01", "2023-12-31T23:59"],
            "resolution": "min",
        },
        "age": {"type": "integer", "range": [0, 99]},
        "severity": ["high", "low", "medium"],
    }
    (tmp_path / "domain.json").write_text(json.dumps(domain))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        os.chdir(tmp_path)
        assert main(["evaluate", "real.csv", "synthetic.csv"]) == 0
        drafted = _tvd_row(capsys.readouterr().out)
        assert main(["evaluate", "real.csv", "synthetic.csv", "--domain", "domain.json"]) == 0
        declared = _tvd_row(capsys.readouterr().out)
    # two samples of one distribution: small errors, the same by either reading (the
    # timestamp read as text would put every real and synthetic value in its own level)
    assert declared[0] < 0.05
    np.testing.assert_allclose(drafted, declared, atol=0.005)


def test_evaluate_without_a_domain_orders_a_drafted_scale_as_the_draft(
    tmp_path, capsys, monkeypatch
):
    from skprivsynth.report import MarginalErrorDisplay

    rng = np.random.default_rng(0)
    levels = ["low", "medium", "high"]  # a low-to-high scale the draft proposes in order
    for name, extra in (("real.csv", []), ("synthetic.csv", []), ("other.csv", ["none"])):
        values = rng.choice(levels + extra, 300)
        pd.DataFrame({"severity": values, "x": rng.integers(0, 5, 300)}).to_csv(
            tmp_path / name, index=False
        )
    domains = []
    from_data = MarginalErrorDisplay.from_data.__func__

    def recording(cls, *args, **kwargs):
        display = from_data(cls, *args, **kwargs)
        domains.append(display.domain)
        return display

    monkeypatch.setattr(MarginalErrorDisplay, "from_data", classmethod(recording))
    os.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["evaluate", "real.csv", "synthetic.csv", "--report", "a.html"]) == 0
        # a synthetic level outside the scale: the levels as observed, sorted
        assert main(["evaluate", "real.csv", "other.csv", "--report", "b.html"]) == 0
    capsys.readouterr()
    assert list(domains[0]["severity"]) == levels
    assert list(domains[1]["severity"]) == sorted(levels + ["none"])
