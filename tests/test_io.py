"""The library's CSV reading and writing, the domain draft and the pipeline's
preflight checks, from Python."""

import os
import stat
import warnings

import numpy as np
import pandas as pd
import pytest

from skprivsynth import (
    Chunks,
    Domain,
    MicroaggregationSynthesizer,
    NoisyMicroaggregation,
    PrivacyLeakWarning,
    draft_domain,
    make_private_pipeline,
    read_csv,
    write_csv,
)
from skprivsynth._table_checks import MAX_ONEHOT_FEATURES
from skprivsynth.preprocessing import BooleanEncoder
from skprivsynth.releases import record_releases

_NA_CSV = "level,count,city\nNA,1,Lyon\nx,,Paris\nNA,3,\n,2,Lyon\nx,NA,Paris\n"
_SPECS = {
    "level": {"levels": ["NA", "x"], "missing": True},
    "count": {"type": "integer", "range": [0, 9], "missing": True},
    "city": ["Lyon", "Paris", "Rome"],
}


def _csv(tmp_path, text, name="t.csv"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_csv_cells_are_read_by_the_declared_kinds(tmp_path):
    """A declared level "NA" stays a level; empty and NA-like cells are missing only
    where missing is declared; a level declared as a number matches its text."""
    path = _csv(tmp_path, _NA_CSV)
    frame = read_csv(path, _SPECS, undeclared_missing="keep")
    assert frame["level"].tolist()[:3] == ["NA", "x", "NA"]
    assert frame["level"].isna().tolist() == [False, False, False, True, False]
    assert frame["count"].dtype == "Int64"
    assert frame["count"].isna().tolist() == [False, True, False, False, True]
    assert frame["count"].dropna().tolist() == [1, 3, 2]
    assert frame["city"].isna().tolist() == [False, False, True, False, False]
    # Numeric levels match their CSV text ("3", "3.0").
    frame = read_csv(_csv(tmp_path, "n\n3\n1\n3.0\n", "n.csv"), Domain({"n": [1, 3]}))
    assert frame["n"].tolist() == [3, 1, 3] and frame["n"].dtype == np.int64
    # Booleans as pandas writes them (True/False), as 0/1, with a missing cell.
    booleans = {"a": {"type": "boolean"}, "b": {"type": "boolean", "missing": True}}
    frame = read_csv(_csv(tmp_path, "a,b\nTrue,1\nFalse,\nTrue,0\n", "b.csv"), booleans)
    assert frame["a"].tolist() == [True, False, True] and frame["a"].dtype == bool
    assert frame["b"].isna().tolist() == [False, True, False]
    assert frame["b"].dropna().tolist() == [True, False]
    # A missing cell of a column whose spec does not declare it: refused by name.
    with pytest.raises(ValueError, match=r"column 'city' of '.*t.csv' has missing cells"):
        read_csv(path, _SPECS)


def test_undeclared_columns_get_pandas_defaults_and_unknown_columns_are_refused(tmp_path):
    path = _csv(tmp_path, "a,free\n1,NA\n2,x\n")
    frame = read_csv(path, {"a": [1, 2]})
    assert frame["a"].dtype == np.int64 and frame["free"].isna().tolist() == [True, False]
    with pytest.raises(ValueError, match=r"declares columns \['b'\] that are not in"):
        read_csv(path, {"a": [1, 2], "b": 3})
    # A declared column left out by usecols is not read, and not refused.
    assert list(read_csv(path, {"a": [1, 2], "free": ["x"]}, usecols=["a"]).columns) == ["a"]
    with pytest.raises(ValueError, match="cannot be read as CSV"):
        read_csv(tmp_path / "absent.csv")


def test_chunks_are_read_as_the_whole_file(tmp_path):
    rows = "\n".join(f"{i % 10},{'' if i % 7 == 0 else i % 3}" for i in range(50))
    path = _csv(tmp_path, "a,b\n" + rows + "\n")
    domain = {"a": {"type": "integer", "range": [0, 9]},
              "b": {"type": "integer", "range": [0, 2], "missing": True}}  # fmt: skip
    whole = read_csv(path, domain)
    for chunks in (Chunks.from_csv(path, 12, domain), Chunks.from_csv(path, 12, Domain(domain))):
        assert isinstance(chunks, Chunks)
        parts = list(chunks)
        assert [len(p) for p in parts] == [12, 12, 12, 12, 2]
        assert all(p["b"].dtype == "Int64" for p in parts)  # missing or not, every chunk
        pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), whole)


def test_write_csv_writes_batches_under_one_header_atomically(tmp_path):
    path = tmp_path / "out.csv"
    frames = (pd.DataFrame({"a": [i, i + 1]}) for i in range(0, 6, 2))
    old = os.umask(0o022)
    try:
        assert write_csv(frames, path) == 6
    finally:
        os.umask(old)
    assert path.read_text() == "a\n0\n1\n2\n3\n4\n5\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644

    def failing():
        yield pd.DataFrame({"a": [1]})
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        write_csv(failing(), path)
    assert path.read_text() == "a\n0\n1\n2\n3\n4\n5\n"  # untouched, no temporary left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_draft_domain_warns_and_explains_every_column():
    rng = np.random.default_rng(0)
    n = 200
    frame = pd.DataFrame(
        {
            "id": np.arange(n),
            "age": rng.integers(18, 80, n),
            "kids": np.where(rng.random(n) < 0.1, 99, rng.integers(0, 4, n)),
            "city": rng.choice(["Lyon", "Paris"], n),
        }
    )
    with pytest.warns(PrivacyLeakWarning, match="drafted from the private values"):
        domain, lines = draft_domain(frame)
    assert "id" not in domain and domain["city"] == ["Lyon", "Paris"]
    assert domain["age"] == {"type": "integer", "range": [18, 79]}
    assert domain["kids"] == {"type": "integer", "range": [0, 3], "missing": [99]}
    assert len(lines) == 4 and "identifier-like" in lines[0] and "--drop id" in lines[0]
    Domain(domain)  # a valid domain


def _identifier_table(n=40):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"id": [f"p{i}" for i in range(n)], "group": rng.integers(0, 3, n)})
    return frame, {"id": [f"p{i}" for i in range(2 * n)], "group": 3}


def test_a_declared_identifier_like_column_is_refused_before_any_release():
    frame, domain = _identifier_table()
    pipe = make_private_pipeline(NoisyMicroaggregation(epsilon=1.0), domain)
    with record_releases() as recording, pytest.raises(ValueError) as error:
        pipe.fit(frame)
    assert len(recording) == 0
    message = str(error.value)
    # Public quantities only: the declared number of levels and n.
    assert "'id' (80 levels)" in message and "40 rows" in message and "group" not in message
    # Left out of X, the fit runs.
    make_private_pipeline(NoisyMicroaggregation(epsilon=1.0), {"group": 3}).fit(frame[["group"]])


def test_the_identifier_check_reads_only_the_declaration_and_n():
    """Neighbours differing in the declared column's values get the same decision."""
    frame, domain = _identifier_table()
    other = frame.assign(id="p0")  # one distinct value instead of 40
    for table in (frame, other):
        pipe = make_private_pipeline(NoisyMicroaggregation(epsilon=1.0), domain)
        with pytest.raises(ValueError, match=r"'id' \(80 levels\)"):
            pipe.fit(table)
    # Declared with fewer levels than n / 2: not identifier-like, whatever the data.
    small = {"id": [f"p{i}" for i in range(20)], "group": 3}
    pipe = make_private_pipeline(NoisyMicroaggregation(epsilon=1.0), small)
    pipe.fit(frame.assign(id=[f"p{i % 20}" for i in range(40)]))


def test_microaggregation_warns_about_identifiers_and_refuses_a_wide_one_hot():
    frame, _ = _identifier_table()
    pipe = make_private_pipeline(MicroaggregationSynthesizer(k=5), {"group": 3},
                                 allow_learned_domain=True)  # fmt: skip
    with pytest.warns(PrivacyLeakWarning, match=r"'id' \(40 levels\).*look like identifiers"):
        pipe.fit(frame)
    wide = {"tail": [f"t{i}" for i in range(3000)], "group": 3}
    table = pd.DataFrame({"tail": [f"t{i}" for i in range(10_000)][:6000:2], "group": 1})
    encoder = BooleanEncoder(categories=wide)
    pipe = make_private_pipeline(MicroaggregationSynthesizer(k=5), wide)
    assert pipe[0].encoding == encoder.encoding == "onehot"
    with warnings.catch_warnings(), record_releases() as recording:
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with pytest.raises(ValueError, match=rf"3003 features, more than {MAX_ONEHOT_FEATURES}"):
            pipe.fit(table)
    assert len(recording) == 0
