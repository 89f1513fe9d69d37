"""``skprivsynth synthesize --chunksize N`` and ``--dask``: streamed fits from the CLI."""

import json
import sys

import numpy as np
import pandas as pd
import pytest

from skprivsynth import Chunks, Domain
from skprivsynth.cli import main
from skprivsynth.exceptions import PrivacyLeakWarning

N_ROWS = 2000


@pytest.fixture(scope="module")
def files(tmp_path_factory, adult):
    """The first rows of Adult as a CSV, and its full domain file."""
    directory = tmp_path_factory.mktemp("streaming")
    data, domain = directory / "in.csv", directory / "domain.json"
    adult.data.iloc[:N_ROWS].to_csv(data, index=False)
    domain.write_text(json.dumps(adult.domain))
    return data, domain


def _run(capsys, *argv):
    status = main(["synthesize", *map(str, argv)])
    return status, capsys.readouterr().err


def test_streaming_writes_the_columns_and_rows_with_a_progress_line_per_chunk(
    files, tmp_path, capsys, adult
):
    data, domain = files
    out = tmp_path / "out.csv"
    status, err = _run(
        capsys, data, "-o", out, "--domain", domain, "--chunksize", 700, "-n", 1500,
        "--method", "microaggregation", "--param", "k=5",
    )  # fmt: skip
    assert status == 0, err
    synthetic = pd.read_csv(out)
    assert list(synthetic.columns) == list(adult.data.columns) and len(synthetic) == 1500
    for column, size in adult.domain.items():
        assert synthetic[column].between(0, size - 1).all()
    lines = err.splitlines()
    # Microaggregation reads the data twice: 700, 1400 and 2000 rows in each pass.
    for number in (1, 2):
        read = [line for line in lines if f"pass {number}: " in line]
        assert [line.split(": ")[2].split(" rows")[0] for line in read] == ["700", "1400", "2000"]
        assert all(line.endswith(" s") for line in read)
    written = [line for line in lines if "synthetic rows written" in line]
    assert [line.split(": ")[1].split(" ")[0] for line in written] == ["700", "1400", "1500"]
    assert lines[-1].startswith(f"wrote 1500 synthetic rows to {out}; privacy: k-anonymous")


def test_quiet_silences_the_progress_lines(files, tmp_path, capsys):
    data, domain = files
    out = tmp_path / "out.csv"
    status, err = _run(capsys, data, "-o", out, "--domain", domain, "--chunksize", 900,
                       "-n", 100, "--method", "microaggregation", "--param", "k=5",
                       "--quiet")  # fmt: skip
    assert status == 0 and len(pd.read_csv(out)) == 100
    (line,) = err.splitlines()
    assert line.startswith(f"wrote 100 synthetic rows to {out}; privacy: k-anonymous")


@pytest.mark.parametrize("declared", ["none", "partial"])
@pytest.mark.parametrize("option", [["--chunksize", "500"], ["--dask", "local"]])
def test_a_learned_domain_is_refused_before_any_work(
    files, tmp_path, capsys, adult, declared, option
):
    data, _ = files
    out = tmp_path / "out.csv"
    argv = [data, "-o", out, *option, "--allow-learned-domain"]
    if declared == "partial":
        partial = tmp_path / "partial.json"
        partial.write_text(json.dumps({c: k for c, k in adult.domain.items() if c != "age"}))
        argv += ["--domain", partial]
    status, err = _run(capsys, *argv)
    assert status == 2
    undeclared = ["age"] if declared == "partial" else list(adult.data.columns)
    assert f"error: {option[0]} reads the input in pieces" in err
    assert f"undeclared: {undeclared}" in err
    assert "rows read" not in err and "Dask cluster" not in err and not out.exists()


@pytest.mark.parametrize(
    "option, message",
    [
        (["--chunksize", 0], "--chunksize must be a positive integer; got 0"),
        (["--chunksize", 10, "-n", 0], "--n-samples must be a positive integer; got 0"),
    ],
)
def test_bad_sizes_are_refused_before_any_work(files, tmp_path, capsys, option, message):
    data, domain = files
    out = tmp_path / "o.csv"
    status, err = _run(capsys, data, "-o", out, "--domain", domain, *option)
    assert status == 2 and message in err and "rows read" not in err and not out.exists()


def test_the_streamed_dp_fit_is_the_in_memory_fit(files, tmp_path, capsys):
    """Same statistics, same seed: the same release and the same sample (one batch)."""
    data, domain = files
    common = [
        "--domain", domain, "--method", "marginal", "--param", "iterations=30",
        "--seed", 3, "-n", 400,
    ]  # fmt: skip
    status, err_memory = _run(capsys, data, "-o", tmp_path / "memory.csv", *common)
    assert status == 0, err_memory
    status, err_chunks = _run(
        capsys, data, "-o", tmp_path / "chunks.csv", *common, "--chunksize", 450
    )
    assert status == 0, err_chunks
    assert (tmp_path / "memory.csv").read_bytes() == (tmp_path / "chunks.csv").read_bytes()
    assert err_memory.splitlines()[-1].split("; ")[1] == err_chunks.splitlines()[-1].split("; ")[1]


def test_dask_without_the_extra_names_it(files, tmp_path, capsys, monkeypatch):
    data, domain = files
    monkeypatch.setitem(sys.modules, "dask.dataframe", None)  # import fails
    status, err = _run(capsys, data, "-o", tmp_path / "o.csv", "--domain", domain,
                       "--dask", "local")  # fmt: skip
    assert status == 2
    assert "--dask local needs Dask, an optional extra: pip install skprivsynth[dask]" in err


@pytest.mark.slow
def test_dask_local_fits_what_the_in_memory_fit_fits(files, tmp_path, capsys):
    pytest.importorskip("dask.distributed")
    data, domain = files
    common = [
        "--domain", domain, "--method", "marginal", "--param", "iterations=30",
        "--seed", 5, "-n", 300,
    ]  # fmt: skip
    assert _run(capsys, data, "-o", tmp_path / "memory.csv", *common)[0] == 0
    status, err = _run(
        capsys, data, "-o", tmp_path / "dask.csv", *common, "--dask", "local", "--chunksize", 600
    )  # partitions of about 600 rows; one output batch
    assert status == 0, err
    assert "fitting on the Dask cluster at tcp://" in err
    assert f"fitted on {N_ROWS} rows" in err
    assert (tmp_path / "memory.csv").read_bytes() == (tmp_path / "dask.csv").read_bytes()


def test_streamed_chunks_are_read_by_the_declared_kinds(tmp_path, capsys):
    """Every chunk parsed as the in-memory read: "NA" a level, empty cells missing in a
    column declaring them (Int64 in every chunk, with missing cells or not)."""
    rng = np.random.default_rng(0)
    n = 1200
    delay = pd.Series(rng.integers(0, 5, n)).astype(object)
    delay[600:] = delay[600:].where(rng.random(n - 600) > 0.3, "")  # first chunks: none
    data = pd.DataFrame({"answer": rng.choice(["NA", "no"], n), "delay": delay})
    source, domain = tmp_path / "in.csv", tmp_path / "domain.json"
    data.to_csv(source, index=False)
    spec = {"answer": ["NA", "no"], "delay": {"type": "integer", "range": [0, 4], "missing": True}}
    domain.write_text(json.dumps(spec))
    first = next(iter(Chunks.from_csv(source, 300, Domain(spec))))
    assert first["delay"].dtype == "Int64" and not first["delay"].isna().any()
    out = tmp_path / "out.csv"
    with pytest.warns(PrivacyLeakWarning, match=r"random_state=0\) seed"):
        status, err = _run(capsys, source, "-o", out, "--domain", domain, "--chunksize", 300,
                           "--seed", 0, "-q")  # fmt: skip
    assert status == 0, err
    synthetic = pd.read_csv(out, keep_default_na=False, na_values=[""])
    assert set(synthetic["answer"]) == {"NA", "no"}
    assert synthetic["delay"].isna().mean() == pytest.approx(0.15, abs=0.04)
    assert set(synthetic["delay"].dropna()) <= set(range(5))


@pytest.fixture(scope="module")
def ranged_files(tmp_path_factory):
    """A CSV with an integer, a float and a datetime range (private bins), and its domain."""
    directory = tmp_path_factory.mktemp("ranged")
    rng = np.random.default_rng(1)
    n = 900
    days = pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 366, n), "D")
    pd.DataFrame({
        "count": rng.integers(0, 1001, n),
        "price": np.round(rng.gamma(2.0, 20.0, n).clip(0, 500), 2),
        "day": days.strftime("%Y-%m-%d"),
        "kind": rng.choice(["a", "b"], n),
    }).to_csv(directory / "in.csv", index=False)  # fmt: skip
    (directory / "domain.json").write_text(json.dumps({
        "count": {"type": "integer", "range": [0, 1000]},
        "price": {"type": "float", "range": [0, 500], "decimals": 2},
        "day": {"type": "datetime", "range": ["2020-01-01", "2020-12-31"], "resolution": "D"},
        "kind": ["a", "b"],
    }))  # fmt: skip
    return directory / "in.csv", directory / "domain.json"


@pytest.mark.parametrize(
    "option",
    [
        ["--chunksize", "250"],
        pytest.param(["--dask", "local", "--chunksize", "250"], marks=pytest.mark.slow),
    ],
)
def test_declared_ranges_fit_in_chunks_as_in_memory(ranged_files, tmp_path, capsys, option):
    """The private bins' fine counts are summed over the chunks: the same release and
    the same sample (one batch) as the in-memory fit (it raised "a Range has no number
    of codes before the fit")."""
    if option[0] == "--dask":
        pytest.importorskip("dask.distributed")
    data, domain = ranged_files
    common = ["--domain", domain, "--seed", 4, "-n", 200]
    status, err_memory = _run(capsys, data, "-o", tmp_path / "memory.csv", *common)
    assert status == 0, err_memory
    status, err = _run(capsys, data, "-o", tmp_path / "chunks.csv", *common, *option)
    assert status == 0, err
    assert "private bins" in err.splitlines()[-1]
    assert (tmp_path / "memory.csv").read_bytes() == (tmp_path / "chunks.csv").read_bytes()
    assert err_memory.splitlines()[-1].split("; ")[1] == err.splitlines()[-1].split("; ")[1]
