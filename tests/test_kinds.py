"""Column kinds of a domain: declaration, encoding and the decoded kinds and dtypes."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ks_2samp

from skprivsynth import Chunks, Domain, MarginalSynthesizer, make_private_pipeline
from skprivsynth.domain import MAX_INTEGER_LEVELS, MISSING, Bins, Levels, Range, _codes
from skprivsynth.pipeline import declared_code_sizes
from skprivsynth.preprocessing import BooleanEncoder, _FineCounts
from skprivsynth.privacy import PrivacyLeakWarning

EVERY_FORM = {
    "codes": 3,
    "color": ["red", "blue"],
    "income": {"bins": [0, 1000, 1e5], "clip": True},
    "grade": {"levels": ["low", "mid", "high"], "ordered": True},
    "answer": {"levels": ["NA", "yes", "no"], "missing": True},
    "month": {"type": "integer", "range": [1, 12]},
    "year": {"type": "integer", "range": [2013, 2013]},
    "count": {"type": "integer", "range": [0, 20000]},
    "visits": {"type": "integer", "bins": [0, 10, 50, 100], "missing": True},
    "rate": {"type": "float", "range": [0, 1.5], "missing": True},
    "size": {"range": [0, 10]},
    "hour": {"type": "datetime", "range": ["2013-01-01", "2013-12-31T23:00"], "resolution": "h"},
    "day": {
        "type": "datetime",
        "bins": ["2013-01-01", "2013-07-01", "2014-01-01"],
        "resolution": "D",
        "missing": True,
    },
    "flag": {"type": "boolean"},
    "maybe": {"type": "boolean", "missing": True},
}


def test_every_form_is_parsed_into_its_kind():
    domain = Domain(EVERY_FORM)
    assert [domain.kind(c) for c in domain] == [
        "integer",
        "categorical",
        "float",
        "categorical",
        "categorical",
        "integer",
        "integer",
        "integer",
        "integer",
        "float",
        "float",
        "datetime",
        "datetime",
        "boolean",
        "boolean",
    ]
    assert [c for c in domain if domain.missing(c)] == ["answer", "visits", "rate", "day", "maybe"]
    assert not domain.ordered("color") and domain.ordered("grade") and domain.ordered("month")
    # Number of codes, the missing level included; None for a range (bins chosen at fit).
    assert domain.sizes == (3, 2, 2, 3, 4, 12, 1, None, 4, None, None, None, 3, 2, 3)
    assert domain["answer"] == Levels(("NA", "yes", "no"), missing=True)
    assert list(domain["answer"]) == ["NA", "yes", "no", MISSING]
    assert domain["month"] == Levels(tuple(range(1, 13)), True, "integer")
    assert domain["count"] == Range(0.0, 20000.0, "integer")
    assert domain["size"] == Range(0.0, 10.0)
    assert domain["hour"].resolution == "h" and domain["hour"].lo == 1356998400.0
    assert domain["day"] == Bins(
        (1356998400.0, 1372636800.0, 1388534400.0), False, "datetime", "D", True
    )
    with pytest.raises(TypeError, match="chosen with differential privacy"):
        len(domain["count"])


def test_integer_ranges_up_to_the_limit_are_levels():
    narrow = Domain({"a": {"type": "integer", "range": [1, MAX_INTEGER_LEVELS]}})
    wide = Domain({"a": {"type": "integer", "range": [1, MAX_INTEGER_LEVELS + 1]}})
    assert isinstance(narrow["a"], Levels) and narrow.sizes == (MAX_INTEGER_LEVELS,)
    assert isinstance(wide["a"], Range)


def test_every_form_is_written_back_and_round_trips(tmp_path):
    domain = Domain(EVERY_FORM)
    spec = domain.to_dict()
    assert spec["grade"] == {"levels": ["low", "mid", "high"], "ordered": True}
    assert spec["answer"] == {"levels": ["NA", "yes", "no"], "missing": True}
    assert spec["month"] == {"type": "integer", "range": [1, 12]}
    assert spec["count"] == {"type": "integer", "range": [0, 20000]}
    assert spec["visits"] == {"type": "integer", "bins": [0, 10, 50, 100], "missing": True}
    assert spec["rate"] == {"type": "float", "range": [0.0, 1.5], "missing": True}
    assert spec["hour"] == {
        "type": "datetime",
        "range": ["2013-01-01", "2013-12-31T23:00:00"],
        "resolution": "h",
    }
    assert spec["day"]["bins"] == ["2013-01-01", "2013-07-01", "2014-01-01"]
    assert spec["flag"] == {"type": "boolean"}
    assert Domain(spec) == domain
    path = tmp_path / "domain.json"
    path.write_text(json.dumps(spec))
    assert Domain.from_json(path) == domain
    assert eval(repr(domain)) == domain
    assert Domain(dict(domain)) == domain  # parsed specs are specs again


@pytest.mark.parametrize(
    ("spec", "error", "match"),
    [
        ({"type": "text"}, ValueError, r"\['type'\] must be one of"),
        ({"type": "float"}, ValueError, "given as a dict must be"),
        ({"type": "boolean", "range": [0, 1]}, ValueError, "given as a dict must be"),
        ({"levels": ["a"], "ordered": "yes"}, TypeError, r"\['ordered'\] must be a bool"),
        ({"levels": ["a"], "missing": 1}, TypeError, r"\['missing'\] must be a bool"),
        ({"levels": ["a", None]}, ValueError, r"must not contain missing values .*\"missing\""),
        ({"type": "integer", "range": [0, 5.5]}, ValueError, "must be integers"),
        ({"type": "integer", "range": [5, 1]}, ValueError, r"must be \[lo, hi\] with lo <= hi"),
        ({"type": "integer", "range": [0, 5], "clip": True}, ValueError, "has no 'clip'"),
        ({"type": "float", "range": [1, 1]}, ValueError, "at least two values"),
        ({"type": "float", "range": [0, 10], "bins": [0, 5, 9]}, ValueError, "first and last"),
        (
            {"type": "datetime", "range": ["2013-01-01", "2013-01-01T00:30"], "resolution": "h"},
            ValueError,
            "at least two values at its resolution",
        ),
        ({"type": "datetime", "range": ["2013-01-01", "soon"]}, ValueError, "ISO dates"),
        (
            {"type": "datetime", "range": ["2013-01-01T00:00+01:00", "2014-01-01"]},
            ValueError,
            "without a time zone",
        ),
        (
            {"type": "datetime", "range": ["2013", "2014"], "resolution": "W"},
            ValueError,
            r"\['resolution'\] must be one of",
        ),
    ],
)
def test_bad_kind_specs_raise_naming_the_column(spec, error, match):
    with pytest.raises(error, match=rf"domain\['c'\].*{match}|{match}"):
        Domain({"c": spec})


def test_codes_give_missing_values_the_last_code():
    domain = Domain(EVERY_FORM)
    values = pd.Series(["NA", None, "no", np.nan], dtype=object)
    np.testing.assert_array_equal(_codes(values, domain["answer"]), [0, 3, 2, 3])
    np.testing.assert_array_equal(_codes(values, domain["color"]), [-1, -1, -1, -1])
    visits = pd.array([0, None, 100, 101], dtype="Int64")
    np.testing.assert_array_equal(_codes(visits, domain["visits"]), [0, 3, 2, -1])
    days = pd.Series(pd.to_datetime(["2013-01-01", None, "2013-08-01"])).astype("datetime64[us]")
    np.testing.assert_array_equal(_codes(days, domain["day"]), [0, 2, 1])
    text = pd.Series(["2013-01-01", None, "not a date"], dtype=object)
    np.testing.assert_array_equal(_codes(text, domain["day"]), [0, 2, -1])  # unreadable: outside
    np.testing.assert_array_equal(
        _codes(pd.Series([1, 12, 13, 1.5]), domain["month"]), [0, 11, -1, -1]
    )


# ------------------------------------------------------------------ the encoder
def mixed_table(n=3000, seed=0):
    """Every kind, with missing values related to another column."""
    rng = np.random.default_rng(seed)
    unemployed = rng.random(n) < 0.3
    hours = pd.Timestamp("2013-01-01") + pd.to_timedelta(rng.integers(0, 365 * 24, n), unit="h")
    when = pd.Series(hours.astype("datetime64[us]"))
    when[rng.random(n) < 0.1] = pd.NaT
    return pd.DataFrame(
        {
            "year": np.full(n, 2013),
            "month": rng.integers(1, 13, n).astype(np.int32),
            "grade": pd.Categorical(rng.choice(["low", "mid", "high"], n)),
            "flag": rng.random(n) < 0.4,
            "job": np.where(unemployed, None, rng.choice(["NA", "clerk"], n)),
            "income": np.where(unemployed, np.nan, rng.gamma(2.0, 1000.0, n).clip(0, 19999)),
            "visits": pd.array(
                np.where(rng.random(n) < 0.2, None, rng.integers(0, 300, n)), dtype="Int64"
            ),
            "when": when,
        }
    )


MIXED = {
    "year": {"type": "integer", "range": [2013, 2013]},
    "month": {"type": "integer", "range": [1, 12]},
    "grade": {"levels": ["low", "mid", "high"], "ordered": True},
    "flag": {"type": "boolean"},
    "job": {"levels": ["NA", "clerk"], "missing": True},
    "income": {"type": "float", "bins": [0, 500, 1000, 2000, 4000, 8000, 20000], "missing": True},
    "visits": {"type": "integer", "bins": [0, 10, 50, 100, 299], "missing": True},
    "when": {
        "type": "datetime",
        "bins": ["2013-01-01", "2013-04-01", "2013-07-01", "2013-10-01", "2013-12-31T23:00"],
        "resolution": "h",
        "missing": True,
    },
}

EXPECTED_DTYPES = {
    "year": np.dtype(np.int64),
    "month": np.dtype(np.int32),
    "grade": pd.CategoricalDtype(["low", "mid", "high"], ordered=True),
    "flag": np.dtype(bool),
    "income": np.dtype(np.float64),
    "visits": pd.Int64Dtype(),
    "when": np.dtype("datetime64[us]"),
}


def check_kinds(out, real):
    """The decoded table has the user's kinds, dtypes, ranges and resolutions."""
    for column, dtype in EXPECTED_DTYPES.items():
        assert out[column].dtype == dtype, column
    assert out["job"].dtype == real["job"].dtype
    assert (out["year"] == 2013).all()  # a constant column stays constant
    assert out["month"].between(1, 12).all()
    assert out["visits"].dropna().between(0, 299).all()
    income = out["income"].dropna()
    assert income.between(0, 20000).all()
    when = out["when"].dropna()
    assert when.between(pd.Timestamp("2013-01-01"), pd.Timestamp("2013-12-31T23:00")).all()
    assert (when == when.dt.floor("h")).all()  # rounded down to the resolution
    assert set(out["job"].dropna()) <= {"NA", "clerk"}


@pytest.mark.parametrize("encoding", ["onehot", "binary", "ordinal"])
def test_encoder_round_trip_of_every_kind(encoding):
    real = mixed_table(600)
    enc = BooleanEncoder(categories=MIXED, encoding=encoding, random_state=0).fit(real)
    assert enc.n_codes_ == [1, 12, 3, 2, 3, 7, 5, 5]
    back = enc.inverse_transform(enc.transform(real))
    check_kinds(back, real)
    # Levels come back exactly; every missing value is missing again.
    for column in ["year", "month", "grade", "flag", "job"]:
        pd.testing.assert_series_equal(back[column], real[column].astype(back[column].dtype))
    pd.testing.assert_frame_equal(back.isna(), real.isna())
    # Numbers come back in their bin.
    for column in ["income", "visits", "when"]:
        spec = enc.domain_[column]
        np.testing.assert_array_equal(_codes(back[column], spec), _codes(real[column], spec))


def test_missing_level_names_and_coarsening():
    real = mixed_table(300)
    enc = BooleanEncoder(categories=MIXED, max_bins=4, random_state=0).fit(real)
    names = list(enc.get_feature_names_out())
    assert "job=<missing>" in names and "when=<missing>" in names
    assert "month=1..3" in names and enc.n_codes_[:5] == [1, 4, 3, 2, 3]
    assert enc.n_codes_[5:] == [7, 5, 5]  # declared bins are not coarsened
    # With a missing level, the levels get max_bins - 1 ranges and the missing code.
    real = pd.DataFrame({"m": pd.array([1, None, 7, 12], dtype="Int64")})
    spec = {"m": {"type": "integer", "range": [1, 12], "missing": True}}
    enc = BooleanEncoder(categories=spec, max_bins=4, random_state=0).fit(real)
    assert list(enc.get_feature_names_out()) == ["m=1..4", "m=5..8", "m=9..12", "m=<missing>"]
    back = enc.inverse_transform(enc.transform(real))
    assert back["m"].isna().tolist() == [False, True, False, False]


def test_ordered_levels_keep_their_order_in_object_columns():
    real = pd.DataFrame({"grade": ["mid", "low", "high"] * 10})
    spec = {"grade": {"levels": ["low", "mid", "high"], "ordered": True}}
    enc = BooleanEncoder(categories=spec, encoding="ordinal").fit(real)
    assert enc.transform(real)[:3, 0].tolist() == [1.0, 0.0, 2.0]
    back = enc.inverse_transform(enc.transform(real))
    assert back["grade"].dtype == real["grade"].dtype and back.equals(real)


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns"])
def test_datetimes_keep_their_unit_and_resolution(unit):
    text = ["2013-01-01 05:17:42", "2013-06-30 23:59:59", "2013-12-31"]
    stamps = pd.to_datetime(text, format="ISO8601")
    real = pd.DataFrame({"t": pd.Series(stamps).astype(f"datetime64[{unit}]")})
    spec = {
        "t": {
            "type": "datetime",
            "bins": ["2013-01-01", "2013-07-01", "2014-01-01"],
            "resolution": "min",
        }
    }
    enc = BooleanEncoder(categories=spec, random_state=0).fit(real)
    back = enc.inverse_transform(np.tile(enc.transform(real), (200, 1)))
    assert back["t"].dtype == np.dtype(f"datetime64[{unit}]")
    assert (back["t"] == back["t"].dt.floor("min")).all()
    assert back["t"].between(pd.Timestamp("2013-01-01"), pd.Timestamp("2014-01-01")).all()
    # A time-zone-aware column keeps its zone (binned in UTC).
    aware = real.assign(t=real["t"].dt.tz_localize("Europe/Paris"))
    back = BooleanEncoder(categories=spec).fit(aware).inverse_transform([[1.0, 0.0]])
    assert back["t"].dtype == aware["t"].dtype


def test_datetime_text_columns_are_read_as_iso():
    real = pd.DataFrame({"t": ["2013-01-02", "2013-08-01T10:00", "2013-03-04 12:30:00"]})
    spec = {"t": {"type": "datetime", "bins": ["2013-01-01", "2013-07-01", "2014-01-01"]}}
    enc = BooleanEncoder(categories=spec, encoding="ordinal").fit(real)
    assert enc.transform(real)[:, 0].tolist() == [0.0, 1.0, 0.0]
    assert enc.inverse_transform([[1.0]])["t"].dtype == np.dtype("datetime64[s]")


def test_undeclared_missing_values_are_refused_naming_the_column_not_the_value():
    real = pd.DataFrame({"city": ["Lyon", None, "Nice"], "n": [1.0, 2.0, np.nan]})
    domain = {"city": ["Lyon", "Nice"], "n": {"type": "integer", "range": [0, 5]}}
    for column in ["city", "n"]:
        only = {column: domain[column]}
        with pytest.raises(ValueError, match=rf"'{column}' has missing values") as info:
            BooleanEncoder(categories=only).fit(real[[column]])
        assert '"missing": true' in str(info.value)
        assert not {"Lyon", "Nice", "1.0", "2.0", "row"} & set(str(info.value).split())
    enc = BooleanEncoder(
        categories=domain | {"city": {"levels": ["Lyon", "Nice"], "missing": True}}
    )
    with pytest.raises(ValueError, match="'n' has missing values"):
        enc.fit(real)
    with pytest.raises(ValueError, match="'n' has infinite values"):
        BooleanEncoder(categories={"n": {"bins": [0, 5], "clip": True}}).fit(
            pd.DataFrame({"n": [1.0, np.inf]})
        )


def test_a_missing_level_decodes_to_the_missing_value_of_each_dtype():
    real = pd.DataFrame(
        {
            "i": np.array([1, 2, 3]),  # int64 with a declared missing level: Int64
            "f": np.array([1.0, np.nan, 3.0]),  # float of integers with NaN: Int64
            "b": np.array([True, None, False], dtype=object),  # booleans with None: boolean
            "s": pd.Series(["a", None, "b"], dtype="str"),
            "c": pd.Categorical(["a", None, "b"]),
        }
    )
    spec = {
        "i": {"type": "integer", "range": [1, 3], "missing": True},
        "f": {"type": "integer", "range": [1, 3], "missing": True},
        "b": {"type": "boolean", "missing": True},
        "s": {"levels": ["a", "b"], "missing": True},
        "c": {"levels": ["a", "b"], "missing": True},
    }
    enc = BooleanEncoder(categories=spec, encoding="ordinal").fit(real)
    back = enc.inverse_transform(enc.transform(real))
    assert list(back.dtypes) == [
        pd.Int64Dtype(),
        pd.Int64Dtype(),
        pd.BooleanDtype(),
        real["s"].dtype,
        real["c"].dtype,
    ]
    assert back.isna().sum().tolist() == [0, 1, 1, 1, 1]
    assert back["b"].tolist()[::2] == [True, False] and back["f"].tolist()[::2] == [1, 3]


# ------------------------------------------------------------------ pipelines
def test_private_pipeline_reproduces_every_kind_and_missingness():
    real = mixed_table(6000, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded for the test
        pipe = make_private_pipeline(
            MarginalSynthesizer(epsilon=50.0, random_state=0), MIXED, random_state=0
        )
        out = pipe.fit(real).sample(6000, random_state=1)
    check_kinds(out, real)
    # Missing rates within sampling error (sd sqrt(p(1-p)/n) <= 0.0065 per table).
    gap = (out.isna().mean() - real.isna().mean()).abs()
    assert gap.max() < 0.03, gap
    # Missing job and missing income go together (both mean "unemployed").
    together = (out["job"].isna() == out["income"].isna()).mean()
    assert together > 0.97, together
    assert out["when"].isna().mean() > 0.05 and out["visits"].isna().mean() > 0.1


@pytest.fixture
def ranged():
    rng = np.random.default_rng(3)
    n = 5000
    hours = rng.gamma(3.0, 40.0, n).clip(0, 364) * 24
    return pd.DataFrame(
        {
            "income": np.where(rng.random(n) < 0.6, 0.0, rng.lognormal(8, 1, n).clip(0, 99999)),
            "age": rng.normal(40, 12, n).round().clip(17, 90).astype(np.int64),
            "when": (pd.Timestamp("2013-01-01") + pd.to_timedelta(hours, unit="h"))
            .floor("h")
            .astype("datetime64[us]"),
            "late": np.where(rng.random(n) < 0.1, np.nan, rng.integers(0, 1000, n)),
        }
    )


RANGES = {
    "income": {"type": "float", "range": [0, 100000]},
    "age": {"type": "integer", "range": [0, 90]},  # 91 values: binned
    "when": {"type": "datetime", "range": ["2013-01-01", "2013-12-31T23:00"], "resolution": "h"},
    "late": {"type": "integer", "range": [0, 999], "missing": True},
}


def test_ranges_get_private_bins_composed_into_the_report(ranged):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        pipe = make_private_pipeline(
            MarginalSynthesizer(epsilon=2.0, random_state=0),
            RANGES,
            binning_epsilon=1.0,
            random_state=0,
        )
        out = pipe.fit(ranged).sample(random_state=1)
    encoder = pipe[0]
    steps = [e["step"] for e in pipe.privacy_report_.entries]
    for column in RANGES:
        assert f"BooleanEncoder: bins of {column!r}" not in steps  # named by the encoder report
        assert any(s.endswith(f"bins of {column!r}") for s in steps)
        assert any(s.endswith(f"sub-bin weights of {column!r}") for s in steps)
        assert isinstance(encoder.domain_[column], Bins)
    assert encoder.privacy_report_.epsilon <= 1.0 + 1e-9
    # The synthesizer works on the released number of codes.
    assert declared_code_sizes(encoder) == list(encoder.domain_.sizes) == encoder.n_codes_
    codes = pipe[-1].sample(3000, random_state=0)
    assert (codes.max(axis=0) < np.array(encoder.n_codes_)).all()
    assert (codes.max(axis=0) > np.array(encoder.n_codes_) // 2).all()
    assert pipe.privacy_report_.rho > pipe[-1].privacy_report_.rho
    # Kinds and ranges.
    assert out["age"].dtype == np.int64 and out["age"].between(0, 90).all()
    assert out["income"].between(0, 100000).all()
    assert out["late"].dtype == pd.Int64Dtype() and out["late"].dropna().between(0, 999).all()
    assert out["when"].dtype == np.dtype("datetime64[us]")
    assert (out["when"] == out["when"].dt.floor("h")).all()
    # Point mass at a range's bound kept, distributions close.
    assert abs((out["income"] == 0).mean() - 0.6) < 0.05
    for column in ["income", "age", "when"]:
        a, b = ranged[column], out[column]
        assert ks_2samp(a.astype(np.int64), b.astype(np.int64)).statistic < 0.05, column
    assert 0.9 < out["age"].std() / ranged["age"].std() < 1.1
    assert abs(out["late"].isna().mean() - ranged["late"].isna().mean()) < 0.03


def test_a_mass_at_the_top_of_an_integer_range_is_kept():
    # 129 values: the top value sits alone at a dyadic boundary of the fine grid.
    rng = np.random.default_rng(0)
    values = np.where(rng.random(4000) < 0.3, 128, rng.integers(0, 128, 4000))
    real = pd.DataFrame({"x": values})
    enc = BooleanEncoder(
        categories={"x": {"type": "integer", "range": [0, 128]}},
        encoding="ordinal",
        binning_epsilon=2.0,
        random_state=0,
    )
    Xt = enc.fit_transform(real)
    back = enc.inverse_transform(Xt)
    assert back["x"].between(0, 128).all()
    assert abs((back["x"] == 128).mean() - (values == 128).mean()) < 0.01
    edges = enc.domain_["x"].edges
    assert edges[-1] == 128 and np.all(np.diff(edges) > 0)


def test_max_bins_caps_the_codes_of_a_range(ranged):
    enc = BooleanEncoder(categories=RANGES, max_bins=4, binning_epsilon=4.0, random_state=0)
    enc.fit(ranged)
    assert all(k <= 4 for k in enc.n_codes_)
    assert enc.n_codes_[3] >= 2  # the missing code counts in the cap


def test_ranges_read_in_chunks_release_the_same_bins(ranged):
    chunks = Chunks(lambda: (ranged.iloc[i : i + 1700] for i in range(0, len(ranged), 1700)))
    a = BooleanEncoder(categories=RANGES, random_state=5).fit(ranged)
    b = BooleanEncoder(categories=RANGES, random_state=5).fit(chunks)
    assert a.domain_ == b.domain_
    for x, y in zip(a._encoding, b._encoding, strict=True):
        np.testing.assert_array_equal(x.sub_weights, y.sub_weights)


def test_ranges_refuse_values_outside_and_undeclared_missing_before_any_release(ranged):
    bad = ranged.assign(age=ranged["age"].where(ranged.index != 7, 200))
    with pytest.raises(ValueError, match=r"'age' has values outside its declared range \[0, 90\]"):
        BooleanEncoder(categories=RANGES).fit(bad)
    wide = RANGES | {"age": {"type": "integer", "range": [0, 99], "clip": True}}
    assert BooleanEncoder(categories=wide, random_state=0).fit(bad).n_codes_[1] >= 1
    with pytest.raises(ValueError, match="'late' has missing values"):
        BooleanEncoder(categories=RANGES | {"late": {"type": "integer", "range": [0, 999]}}).fit(
            ranged
        )


def test_fine_counts_move_one_row_between_at_most_two_cells(ranged):
    """Sensitivity assumed by PrivTree and the sub-bin counts: replacing one row (also by
    a missing value, or at the range's bounds) changes two cells by one, or one cell."""
    statistic = _FineCounts({c: Domain(RANGES)[c] for c in RANGES})
    base = statistic(ranged)
    extremes = ranged.iloc[[0]].assign(
        income=100000.0, age=90, late=np.nan, when=pd.Timestamp("2013-12-31T23:00")
    )
    lows = ranged.iloc[[0]].assign(income=0.0, age=0, late=0.0, when=pd.Timestamp("2013-01-01"))
    rng = np.random.default_rng(0)
    for replacement in [extremes, lows, ranged.iloc[[rng.integers(len(ranged))]]]:
        for row in [0, 1, int(rng.integers(len(ranged)))]:
            neighbour = ranged.copy()
            neighbour.iloc[row] = replacement.iloc[0]
            for column, counts in statistic(neighbour).items():
                diff = np.abs(counts - base[column])
                assert diff.max() <= 1 and diff.sum() <= 2, column


def test_read_csv_options_keep_a_level_na_and_read_each_kind(tmp_path):
    path = tmp_path / "table.csv"
    path.write_text(
        "answer,code,n,when,flag\n"
        "NA,01,NA,2013-01-02,True\n"
        ",02,3,,False\n"
        "yes,01,,2013-05-06 10:00:00,\n"
    )
    domain = Domain(
        {
            "answer": {"levels": ["NA", "yes"], "missing": True},
            "code": ["01", "02"],
            "n": {"type": "integer", "range": [0, 5], "missing": True},
            "when": {"type": "datetime", "bins": ["2013-01-01", "2014-01-01"], "missing": True},
            "flag": {"type": "boolean", "missing": True},
        }
    )
    options = domain.read_csv_options()
    frame = pd.read_csv(path, **options)
    assert frame["answer"].tolist()[::2] == ["NA", "yes"] and frame["answer"].isna().sum() == 1
    assert frame["code"].tolist() == ["01", "02", "01"]
    assert frame.isna().sum().tolist() == [1, 0, 2, 1, 1]
    enc = BooleanEncoder(categories=domain, encoding="ordinal").fit(frame)
    np.testing.assert_array_equal(
        enc.transform(frame), [[0, 0, 6, 0, 1], [2, 1, 3, 1, 0], [1, 0, 6, 0, 2]]
    )
    back = enc.inverse_transform(enc.transform(frame))
    assert back["answer"].tolist()[::2] == ["NA", "yes"] and back["when"].isna().sum() == 1
    chunks = Chunks.from_csv(path, 2, **options)
    assert BooleanEncoder(categories=domain).fit(chunks).n_codes_ == enc.n_codes_
