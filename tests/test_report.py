"""Tests of the quality report: evaluation domain, utility (TSTR), display, HTML, CLI."""

import base64
import json
import math
import re
import warnings
from html import escape as html_escape

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import cross_val_score
from threadpoolctl import threadpool_limits

from skprivsynth import (
    MarginalSynthesizer,
    MicroaggregationSynthesizer,
    make_private_pipeline,
)
from skprivsynth.cli import main
from skprivsynth.datasets import load_adult
from skprivsynth.domain import Bins
from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.metrics import (
    categorical_marginal_errors,
    categorical_marginal_tvd,
    evaluation_domain,
    make_utility_scorer,
    numeric_column_errors,
    train_synthetic_test_real,
)
from skprivsynth.report import MarginalErrorDisplay

matplotlib.use("Agg")

TARGET = "income>50K"
COLUMNS = ["age", "workclass", "education-num", "marital-status", "sex", TARGET]
PNG = '<img src="data:image/png;base64,'


@pytest.fixture(autouse=True, scope="module")
def one_openmp_thread():
    """The classifiers of these small tables are fastest on one thread; on a loaded
    2-core machine, two OpenMP threads of HistGradientBoosting were measured 20x slower."""
    with threadpool_limits(limits=1, user_api="openmp"):
        yield


@pytest.fixture(scope="module")
def adult():
    return load_adult()


@pytest.fixture(scope="module")
def small(adult):
    """2,000 Adult rows, six columns, their declared domain and a noisy bootstrap."""
    real = adult.data[COLUMNS].iloc[:2000].reset_index(drop=True)
    domain = {c: adult.domain[c] for c in COLUMNS}
    rng = np.random.default_rng(0)
    synthetic = real.iloc[rng.integers(0, len(real), 1500)].reset_index(drop=True)
    synthetic["workclass"] = rng.integers(0, 9, len(synthetic))  # one column made worse
    return real, synthetic, domain


@pytest.fixture(scope="module")
def display(small):
    real, synthetic, domain = small
    return MarginalErrorDisplay.from_data(real, synthetic, domain=domain, target=TARGET)


def _mixed_table(n, seed):
    rng = np.random.default_rng(seed)
    income = np.where(rng.random(n) < 0.3, 0.0, rng.lognormal(10, 1, n))  # an atom at 0
    return pd.DataFrame(
        {
            "income": income,
            "children": rng.integers(0, 4, n),
            "sex": rng.choice(["F", "M"], n),
        }
    )


# ----------------------------------------------------------------- evaluation domain


def test_undeclared_numeric_columns_are_binned_at_real_quantiles_with_a_warning():
    real, synthetic = _mixed_table(3000, 0), _mixed_table(2000, 1)
    with pytest.warns(UserWarning, match=r"\['income'\] are numeric .* quantiles of the real"):
        domain = evaluation_domain(real, synthetic, max_levels=20, n_bins=10)
    assert domain["children"] == (0, 1, 2, 3) and domain["sex"] == ("F", "M")
    bins = domain["income"]
    assert isinstance(bins, Bins) and bins.clip
    counts = pd.cut(real["income"], bins.edges, right=False, include_lowest=True)
    shares = counts.value_counts(normalize=True, sort=False).to_numpy()
    # The atom at 0 (30 % of the rows) has a bin of its own, the others hold at most
    # about a tenth of the rows each (deciles, edges rounded to 2 significant digits).
    assert bins.edges[0] == 0.0 and shares[0] == np.mean(real["income"] == 0)
    assert len(bins) >= 8 and np.all(shares[1:] < 0.1 + 0.02)
    assert all(float(f"{edge:.2g}") == edge for edge in bins.edges)
    with pytest.warns(UserWarning, match=r"\['income'\] are numeric"):  # numbers as objects
        assert evaluation_domain(real.astype(object), synthetic.astype(object)) == domain
    # Compared value by value, the positive incomes of two independent samples never
    # meet (TVD 0.7, their share); binned, the two samples agree.
    income = real[["income"]], synthetic[["income"]]
    with pytest.warns(UserWarning, match=r"\['income'\] are float columns .* value by value"):
        assert categorical_marginal_tvd(*income, degree=1) > 0.65
    assert categorical_marginal_tvd(*income, degree=1, domain=domain) < 0.05


def test_declared_columns_are_kept_and_do_not_warn():
    real = _mixed_table(500, 0)
    declared = {"income": {"bins": [0, 1e4, 1e5, 1e7]}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        domain = evaluation_domain(real, None, declared)
    assert domain["income"] == Bins((0.0, 1e4, 1e5, 1e7))
    assert domain.columns == ("income", "children", "sex")


def test_cli_evaluate_bins_a_float_column_and_warns(tmp_path, capsys):
    real, synthetic = tmp_path / "real.csv", tmp_path / "synthetic.csv"
    _mixed_table(2000, 0).to_csv(real, index=False)
    _mixed_table(2000, 1).to_csv(synthetic, index=False)
    with pytest.warns(UserWarning, match="quantiles of the real data"):
        assert main(["evaluate", str(real), str(synthetic)]) == 0
    lines = capsys.readouterr().out.splitlines()
    tvd1 = float(next(line for line in lines if line.startswith(str(synthetic))).split()[1])
    assert tvd1 < 0.05  # independent samples of one distribution, binned


# ---------------------------------------------------------------------------- utility


def test_utility_of_the_real_training_rows_equals_the_real_row(small):
    """Synthetic rows identical to the real training rows give the real row exactly."""
    real, _, domain = small
    train, test = real.iloc[:1500], real.iloc[1500:]
    table = train_synthetic_test_real(train, train, TARGET, holdout=test, domain=domain)
    assert table.index.tolist() == ["synthetic", "real", "majority class"]
    pd.testing.assert_series_equal(table.loc["synthetic"], table.loc["real"], check_names=False)
    majority = test[TARGET].value_counts(normalize=True).max()
    assert table.loc["majority class", "accuracy"] == pytest.approx(majority)
    assert table.loc["majority class", ["balanced_accuracy", "roc_auc"]].tolist() == [0.5, 0.5]
    assert table.loc["real", "roc_auc"] > 0.8
    assert table["n_train"].tolist() == [1500, 1500, 1500]


def test_a_target_independent_of_the_features_has_no_utility(small):
    real, _, domain = small
    rng = np.random.default_rng(1)
    shuffled = real.assign(**{TARGET: rng.permutation(real[TARGET].to_numpy())})
    table = train_synthetic_test_real(real, shuffled, TARGET, domain=domain, test_size=0.5)
    assert abs(table.loc["synthetic", "roc_auc"] - 0.5) < 0.1
    assert table.loc["real", "roc_auc"] - table.loc["synthetic", "roc_auc"] > 0.25
    # One class only: every test row gets it (balanced accuracy 1 / number of classes).
    constant = real.assign(**{TARGET: 1})
    table = train_synthetic_test_real(real, constant, TARGET, domain=domain)
    assert table.loc["synthetic", ["balanced_accuracy", "roc_auc"]].tolist() == [0.5, 0.5]


def test_utility_scorer_is_the_synthetic_row_on_the_held_out_rows(small):
    real, _, domain = small
    train, test = real.iloc[:1500], real.iloc[1500:]
    pipe = make_private_pipeline(MicroaggregationSynthesizer(k=5, random_state=0), domain)
    pipe.fit(train)
    scorer = make_utility_scorer(TARGET, metric="roc_auc", domain=domain)
    expected = train_synthetic_test_real(
        train, pipe.sample(random_state=0), TARGET, holdout=test, domain=domain
    )
    assert scorer(pipe, test) == expected.loc["synthetic", "roc_auc"]
    scores = cross_val_score(pipe, real, scoring=make_utility_scorer(TARGET), cv=2)
    assert scores.shape == (2,) and np.all((scores > 0.55) & (scores <= 1))


def test_utility_scorer_warns_for_a_dp_synthesizer(small):
    real, _, domain = small
    with pytest.warns(PrivacyLeakWarning, match="known seed"):  # seeded for the test
        synthesizer = MarginalSynthesizer(epsilon=1.0, random_state=0)
        pipe = make_private_pipeline(synthesizer, domain).fit(real.iloc[:1500])
    with pytest.warns(PrivacyLeakWarning, match="MarginalSynthesizer on real data"):
        score = make_utility_scorer(TARGET)(pipe, real.iloc[1500:])
    assert 0.0 <= score <= 1.0


def test_utility_rejects_bad_parameters(small):
    real, synthetic, _ = small
    with pytest.raises(ValueError, match="target must be a column of real_df; got 'nope'"):
        train_synthetic_test_real(real, synthetic, "nope")
    with pytest.raises(ValueError, match="metric must be one of"):
        make_utility_scorer(TARGET, metric="f1")


# ---------------------------------------------------------------------------- display


def test_display_numbers_are_the_metrics(small, display):
    real, synthetic, domain = small
    for d in (1, 2, 3):
        kwargs = {"degree": d, "domain": domain, "max_marginals": 200, "random_state": 0}
        errors = categorical_marginal_errors(real, synthetic, **kwargs)
        row = display.summary.loc[d]
        assert row["mean_tvd"] == errors.summary("mean")
        assert row["max_tvd"] == errors.summary("max")
        assert row["n_tables"] == math.comb(len(COLUMNS), d)
    # The worst 1-way table is the column made uniform; the floor is below the errors.
    assert display.summary.loc[1, "worst_table"] == ("workclass",)
    assert np.all(display.summary["floor_mean_tvd"] < display.summary["mean_tvd"])
    assert display.utility.loc["real", "roc_auc"] > 0.8


def test_plot_draws_the_frequencies_and_the_pairwise_tvd(small, display):
    real, synthetic, domain = small
    display.plot()
    assert len(display.axes_) == len(COLUMNS)
    for ax, column in zip(display.axes_, COLUMNS, strict=True):
        real_bars, synthetic_bars = display.bars_[column]
        levels = list(domain[column]) if not isinstance(domain[column], int) else None
        levels = range(domain[column]) if levels is None else levels
        expected = real[column].value_counts(normalize=True).reindex(levels, fill_value=0)
        np.testing.assert_allclose([b.get_height() for b in real_bars], expected.to_numpy())
        expected = synthetic[column].value_counts(normalize=True).reindex(levels, fill_value=0)
        np.testing.assert_allclose([b.get_height() for b in synthetic_bars], expected.to_numpy())
        tvd = categorical_marginal_tvd(real[[column]], synthetic[[column]], degree=1)
        assert ax.get_title() == f"{column}   TVD {tvd:.3f}"
    pairs = categorical_marginal_errors(real, synthetic, degree=2, domain=domain)
    heat = display.heatmap_.get_array()
    for (i, j), error in zip(pairs.column_sets, pairs.errors, strict=True):
        assert heat[i, j] == heat[j, i] == error
    assert np.ma.getmaskarray(heat).diagonal().all()
    display.plot(pairs=False, columns=["sex"])
    assert len(display.axes_) == 1 and display.heatmap_ is None
    matplotlib.pyplot.close("all")


def test_many_unordered_levels_show_the_top_ones_and_the_rest():
    rng = np.random.default_rng(0)
    levels = [f"level {k:02d}" for k in range(30)]
    real = pd.DataFrame({"c": rng.choice(levels, 3000, p=np.arange(30, 0, -1) / 465)})
    synthetic = pd.DataFrame({"c": rng.choice(levels, 1000)})
    display = MarginalErrorDisplay.from_data(real, synthetic).plot(pairs=True, max_bars=10)
    assert display.heatmap_ is None  # one column: no pairs
    real_bars, _ = display.bars_["c"]
    heights = np.array([b.get_height() for b in real_bars])
    shares = real["c"].value_counts(normalize=True)
    np.testing.assert_allclose(heights[:9], shares.to_numpy()[:9])
    assert heights[9] == pytest.approx(shares.to_numpy()[9:].sum())
    assert display.axes_[0].get_xticklabels()[-1].get_text() == "other (21)"
    matplotlib.pyplot.close("all")


# -------------------------------------------------------------------------------- HTML


def _check_self_contained(page):
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "url(" not in page and "@import" not in page and "<script" not in page
    for encoded in re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page):
        assert base64.b64decode(encoded).startswith(b"\x89PNG\r\n\x1a\n")


def test_html_report_is_self_contained_with_figures_and_tables(display):
    page = display.to_html(title="Adult <test>", description=["real: a.csv"])
    _check_self_contained(page)
    assert page.count(PNG) == 3  # bar charts, distribution functions and heatmap
    assert "<h2>Numeric columns</h2>" in page and "No missing values in either table" in page
    assert "<title>Adult &lt;test&gt;</title>" in page and "real: a.csv" in page
    assert f"{display.summary.loc[2, 'mean_tvd']:.4f}" in page
    assert f"{display.utility.loc['synthetic', 'roc_auc']:.3f}" in page
    assert "not</em> differentially private" in page


def test_cli_report(tmp_path, small, capsys):
    real, synthetic, domain = small
    files = {"real.csv": real, "synthetic.csv": synthetic}
    for name, frame in files.items():
        frame.to_csv(tmp_path / name, index=False)
    (tmp_path / "domain.json").write_text(json.dumps(domain))
    report = tmp_path / "report.html"
    argv = ["evaluate", str(tmp_path / "real.csv"), str(tmp_path / "synthetic.csv")]
    argv += ["--domain", str(tmp_path / "domain.json")]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every column declared: nothing to warn about
        assert main([*argv, "--report", str(report), "--target", TARGET]) == 0
    out = capsys.readouterr().out
    assert "tvd1" in out and "train on each, test on held-out real rows" in out
    assert "rows the synthesizer saw in its fit" in out  # no --holdout: said plainly
    page = report.read_text(encoding="utf-8")
    _check_self_contained(page)
    assert page.count(PNG) == 3 and "Utility: train on synthetic, test on real" in page
    assert "synthetic.csv" in page


def test_cli_report_path_is_checked_before_any_work(tmp_path, capsys):
    """A missing directory fails first, even before the (missing) inputs are read."""
    argv = ["evaluate", "missing.csv", "missing.csv", "--report", str(tmp_path / "no" / "r.html")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--report" in err and "does not exist" in err and "missing.csv" not in err
    source = tmp_path / "real.csv"
    source.write_text("a\n1\n")
    assert main(["evaluate", str(source), str(source), "--report", str(source)]) == 2
    assert "is the input file" in capsys.readouterr().err


def test_numeric_columns_are_compared_as_distributions_and_missing_as_a_level():
    rng = np.random.default_rng(3)
    real = _mixed_table(3000, 0)
    real["when"] = pd.Timestamp("2013-01-01") + pd.to_timedelta(rng.integers(0, 8760, 3000), "h")
    real["sex"] = real["sex"].where(rng.random(3000) > 0.2)  # 20 % missing
    synthetic = real.sample(2000, random_state=1).reset_index(drop=True)
    synthetic["income"] *= 3.0  # one numeric column made worse
    synthetic["sex"] = synthetic["sex"].fillna("F")  # missing values lost
    with pytest.warns(UserWarning, match="quantiles of the real data"):
        display = MarginalErrorDisplay.from_data(real, synthetic)
    # The numeric table is the metric, on the columns with many values (not "children").
    assert list(display.numeric_errors.index) == ["income", "when"]
    expected = numeric_column_errors(real[["income", "when"]], synthetic[["income", "when"]])
    pd.testing.assert_frame_equal(display.numeric_errors, expected)
    assert display.numeric_errors.loc["income", "std_ratio"] > 2.5
    assert display.numeric_errors.loc["when", "ks"] < 0.05
    # Missing is a level of "sex": its share is in the bars and the missing-rate table.
    assert display.real_frequencies["sex"].size == 3
    assert display.real_frequencies["sex"][-1] == pytest.approx(real["sex"].isna().mean())
    assert display.synthetic_frequencies["sex"][-1] == 0.0
    assert display.missing.loc["sex", "error"] == pytest.approx(-real["sex"].isna().mean())
    display.plot_distributions()
    real_line = display.ecdf_axes_[0].get_lines()[0]
    np.testing.assert_allclose(real_line.get_xdata()[[0, -1]], real["income"].agg(["min", "max"]))
    assert display.ecdf_axes_[1].get_title().startswith("when")
    page = display.to_html()
    _check_self_contained(page)
    assert page.count(PNG) == 3 and "<td>sex</td>" in page and "missing rate error" in page


# ------------------------------------------------------------- issue 45: long tails


def _hospital(n, seed):
    """The generated hospital table of ``benchmarks/hospital.py`` and its domain."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "hospital.py"
    spec = importlib.util.spec_from_file_location("hospital", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    frame, domain = module.make_hospital(n, seed)
    return frame.drop(columns=["id", "notes"]), domain


@pytest.fixture(scope="module")
def hospital_csvs(tmp_path_factory):
    """real.csv (4,000 rows) and synthetic.csv, a bootstrap of it with the cost and lab
    tails cut at their 95th percentiles, as written and read by the command line."""
    directory = tmp_path_factory.mktemp("hospital")
    real, domain = _hospital(4000, 0)
    rng = np.random.default_rng(1)
    synthetic = real.iloc[rng.integers(0, len(real), len(real))].reset_index(drop=True)
    for column in ["cost", "lab"]:
        synthetic[column] = synthetic[column].clip(upper=real[column].quantile(0.95))
    for name, frame in [("real.csv", real), ("synthetic.csv", synthetic)]:
        frame.to_csv(directory / name, index=False, date_format="%Y-%m-%dT%H:%M")
    (directory / "domain.json").write_text(json.dumps(domain))
    return directory, domain


def test_from_data_reads_a_declared_timestamp_left_as_iso_text(hospital_csvs):
    """Issue 45: ``read_csv(**domain.read_csv_options())`` leaves datetimes as ISO text;
    from_data raised numpy's IndexError (no numbers in the text) on main."""
    from skprivsynth import Domain

    directory, spec = hospital_csvs
    domain = Domain(spec)
    real = pd.read_csv(directory / "real.csv", **domain.read_csv_options())
    synthetic = pd.read_csv(directory / "synthetic.csv", **domain.read_csv_options())
    assert not pd.api.types.is_datetime64_any_dtype(real["admitted"])  # ISO text
    with pytest.warns(UserWarning, match="quantiles of the real data"):
        display = MarginalErrorDisplay.from_data(real, synthetic, domain=domain)
    assert "admitted" in display.numeric_errors.index
    assert display.numeric_errors.loc["admitted", "ks"] < 0.05  # a bootstrap of the rows
    assert np.issubdtype(display.quantiles["admitted"][0].dtype, np.datetime64)
    # The same columns compared, and the same errors, as from timestamps.
    typed = real.assign(admitted=pd.to_datetime(real["admitted"]))
    typed_synthetic = synthetic.assign(admitted=pd.to_datetime(synthetic["admitted"]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        expected = MarginalErrorDisplay.from_data(typed, typed_synthetic, domain=domain)
        assert evaluation_domain(real, synthetic, domain) == evaluation_domain(
            typed, typed_synthetic, domain
        )
    pd.testing.assert_frame_equal(display.numeric_errors, expected.numeric_errors)
    pd.testing.assert_frame_equal(display.summary, expected.summary)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (0.25, "0.25"),
        (-3.5, "-3.5"),
        (1234, "1234"),
        (9999.6, "10k"),
        (25_000, "25k"),
        (123_456, "123k"),
        (999_999, "1M"),
        (1.5e6, "1.5M"),
        (-2.5e6, "-2.5M"),
        (1.67e9, "1.67B"),
        (1_704_067_200, "1.7B"),
        (2e12, "2T"),
        (5e15, "5.00e+15"),
        (0.00012, "0.00012"),
    ],
)
def test_axis_numbers_are_written_for_people(value, text):
    """Issue 45: a value of 1.67e9 was written '1.67e+03M' on main."""
    from skprivsynth.metrics._plot import _short_number

    assert _short_number(value) == text
    assert "e+" not in text or abs(value) >= 1e15


def test_bins_of_a_datetime_column_are_labelled_with_dates(hospital_csvs):
    """Issue 45: the bar chart of a timestamp labelled its edges with seconds since 1970
    ('1.7e+03M') on main."""
    directory, spec = hospital_csvs
    real = pd.read_csv(directory / "real.csv", parse_dates=["admitted"])
    synthetic = pd.read_csv(directory / "synthetic.csv", parse_dates=["admitted"])
    with pytest.warns(UserWarning, match="quantiles of the real data"):
        display = MarginalErrorDisplay.from_data(real, synthetic, domain=spec)
    display.plot(pairs=False)
    ax = display.axes_[list(display.domain.columns).index("admitted")]
    labels = [label.get_text() for label in ax.get_xticklabels()]
    assert labels and all(re.fullmatch(r"202[345]-\d\d-\d\d", t) for t in labels), labels
    ax = display.axes_[list(display.domain.columns).index("cost")]
    assert all("e+" not in label.get_text() for label in ax.get_xticklabels())


def test_report_flags_the_columns_whose_tail_or_spread_was_lost(hospital_csvs, capsys):
    """Issue 45: the report flagged nothing when the cost tail was gone.  On a hospital
    table whose synthetic cost and lab are cut at their 95th percentiles, cost is
    flagged (std ratio outside [0.8, 1.25], tail ratio below 0.3 and its sampling
    floor), in Python, in the HTML report and in ``skprivsynth evaluate``'s output;
    lab is not: its about 2,700 present values expect 2.7 in their top 0.1 %, which a
    resample misses in 7 % of draws (floor 0), and its std ratio stays in the band.
    The skewed cost is drawn on a log axis."""
    directory, spec = hospital_csvs
    report = directory / "report.html"
    argv = ["evaluate", str(directory / "real.csv"), str(directory / "synthetic.csv")]
    argv += ["--domain", str(directory / "domain.json"), "--report", str(report)]
    with pytest.warns(UserWarning, match="quantiles of the real data"):
        assert main(argv) == 0
    out = capsys.readouterr().out
    real = pd.read_csv(directory / "real.csv", parse_dates=["admitted"])
    synthetic = pd.read_csv(directory / "synthetic.csv", parse_dates=["admitted"])
    with pytest.warns(UserWarning, match="quantiles of the real data"):
        display = MarginalErrorDisplay.from_data(real, synthetic, domain=spec)
    errors, verdicts = display.numeric_errors, display.verdicts
    assert list(verdicts.index) == ["admitted", "age", "cost", "lab"]
    thin = (errors["tail_ratio"] < 0.3) & (errors["tail_ratio"] < errors["tail_floor"])
    rule = ~errors["std_ratio"].between(0.8, 1.25) | thin
    assert verdicts["flagged"].tolist() == rule.tolist() == [False, False, True, False]
    assert errors.loc["lab", "tail_ratio"] == 0.0 and errors.loc["lab", "tail_floor"] == 0.0
    assert (
        "as a resample of the real values of this size can have (floor 0.00)"
        in (verdicts.loc["lab", "verdict"])
    )
    assert errors.loc["cost", "tail_ratio"] == 0.0 and errors.loc["cost", "std_ratio"] < 0.8
    assert verdicts.loc["cost", "verdict"].startswith(
        f"The synthetic cost is narrower than the real one (std ratio "
        f"{errors.loc['cost', 'std_ratio']:.2f}) and has almost none of its top 0.1 % "
        "(tail ratio 0.00): the tail was not reproduced"
    )
    assert display.table_verdict.startswith("1 of 4 numeric columns flagged (cost)")
    assert display.log_axis == ("cost",)  # lab is skewed less, age and dates not at all
    # The command prints the same verdicts and line.
    for _, row in verdicts.iterrows():
        assert f"{'FLAGGED' if row['flagged'] else 'ok':7}  {row['verdict']}" in out
    assert display.table_verdict in out
    # The report shows them, highlights the numbers at fault and says which axis is log.
    page = report.read_text(encoding="utf-8")
    assert 'class="verdict flagged"' in page and html_escape(display.table_verdict) in page
    assert page.count('<li class="flagged">') == 1
    assert html_escape(verdicts.loc["age", "verdict"]) in page
    assert page.count('class="num bad"') == 2  # cost std and tail
    assert "<code>cost</code> is drawn on a log axis" in page
    display.plot_distributions()
    axes = dict(zip(errors.index, display.ecdf_axes_, strict=True))
    assert axes["cost"].get_xscale() == "log" and axes["lab"].get_xscale() == "linear"
    assert "flagged" in axes["cost"].get_title() and "flagged" not in axes["age"].get_title()


def test_notes_tell_range_declared_columns_from_undeclared_ones(hospital_csvs):
    """Issue 45: the Notes said the numeric columns had no declared domain although they
    were declared (by a range) on main."""
    directory, spec = hospital_csvs
    real = pd.read_csv(directory / "real.csv", parse_dates=["admitted"])
    synthetic = pd.read_csv(directory / "synthetic.csv", parse_dates=["admitted"])
    declared = {c: s for c, s in spec.items() if c != "lab"}  # lab left undeclared
    with pytest.warns(UserWarning, match="quantiles of the real data"):
        display = MarginalErrorDisplay.from_data(real, synthetic, domain=declared)
    notes = display.to_html().split("<h2>Notes</h2>")[1]
    undeclared, ranged = notes.split("</p>")[:2]
    assert "without a declared domain (<code>lab</code>)" in undeclared
    assert "declared by a range only" in ranged
    for column in ["admitted", "age", "cost"]:
        assert f"<code>{column}</code>" in ranged and column not in undeclared
