"""Column kinds of a domain: declaration, encoding and the decoded kinds and dtypes."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ks_2samp

from skprivsynth import Chunks, Domain, MarginalSynthesizer, ReducedSpaceLP, make_private_pipeline
from skprivsynth.domain import (
    MAX_INTEGER_LEVELS,
    MISSING,
    Bins,
    DatetimePart,
    Levels,
    Range,
    value_domain,
)
from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.kinds import kind_of
from skprivsynth.pipeline import declared_code_sizes
from skprivsynth.preprocessing import BooleanEncoder
from skprivsynth.preprocessing._columns import _Column
from skprivsynth.preprocessing._counts import _FineCounts, _FineGrid
from skprivsynth.preprocessing._decode import _datetimes_with_parts
from skprivsynth.privacy import zcdp_rho

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


def test_labels_name_every_code():
    domain = Domain(EVERY_FORM)
    for column in domain:
        if domain.sizes[list(domain).index(column)] is not None:
            assert len(domain.labels(column)) == len(domain[column]), column
    assert domain.labels("answer") == ["NA", "yes", "no", "<missing>"]
    assert domain.labels("day") == [
        "[2013-01-01, 2013-07-01)",
        "[2013-07-01, 2014-01-01]",
        "<missing>",
    ]
    assert domain.labels("maybe") == ["False", "True", "<missing>"]
    with pytest.raises(TypeError, match="no codes before"):
        domain.labels("count")


def test_an_ordered_categorical_dtype_declares_ordered_levels():
    dtype = pd.CategoricalDtype(["low", "high"], ordered=True)
    assert Domain({"g": dtype})["g"] == Levels(("low", "high"), ordered=True)
    assert Domain({"g": pd.CategoricalDtype(["low", "high"])})["g"] == ("low", "high")


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
        ({"type": "boolean", "range": [0, 1]}, ValueError, "unknown keys 'range'; a boolean"),
        (
            {"type": "float", "range": [0, 1], "decimal": 2},
            ValueError,
            "'decimal' \\(did you mean 'decimals'\\?\\)",
        ),
        (
            {"type": "integer", "range": [0, 9], "sum_off": ["a"]},
            ValueError,
            "did you mean 'sum_of'",
        ),
        ({"levels": ["a"], "orderd": True}, ValueError, "'orderd' \\(did you mean 'ordered'\\?\\)"),
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
    np.testing.assert_array_equal(kind_of(domain["answer"]).codes(values), [0, 3, 2, 3])
    np.testing.assert_array_equal(kind_of(domain["color"]).codes(values), [-1, -1, -1, -1])
    visits = pd.array([0, None, 100, 101], dtype="Int64")
    np.testing.assert_array_equal(kind_of(domain["visits"]).codes(visits), [0, 3, 2, -1])
    days = pd.Series(pd.to_datetime(["2013-01-01", None, "2013-08-01"])).astype("datetime64[us]")
    np.testing.assert_array_equal(kind_of(domain["day"]).codes(days), [0, 2, 1])
    text = pd.Series(["2013-01-01", None, "not a date"], dtype=object)
    np.testing.assert_array_equal(
        kind_of(domain["day"]).codes(text), [0, 2, -1]
    )  # unreadable: outside
    np.testing.assert_array_equal(
        kind_of(domain["month"]).codes(pd.Series([1, 12, 13, 1.5])), [0, 11, -1, 0]
    )  # an integer column's value is its integer part: 1.5 is 1


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
        np.testing.assert_array_equal(
            kind_of(spec).codes(back[column]), kind_of(spec).codes(real[column])
        )


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
def seeded_synthetic(real, domain, epsilon):
    """``make_private_pipeline(MarginalSynthesizer)`` fitted on ``real`` with seeds (a
    test: the seeded-release warning silenced), and as many synthetic rows."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        pipe = make_private_pipeline(
            MarginalSynthesizer(epsilon=epsilon, random_state=0), domain, random_state=0
        )
        return pipe.fit(real).sample(len(real), random_state=1)


def test_private_pipeline_reproduces_every_kind_and_missingness():
    real = mixed_table(6000, seed=1)
    out = seeded_synthetic(real, MIXED, 50.0)
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
            binning_share=0.5,
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
    # The declared share, split over the columns and steps, adds up to its ρ.
    assert encoder.privacy_report_.rho == pytest.approx(zcdp_rho(1.0, 1e-9), rel=1e-12)
    assert encoder.privacy_report_.epsilon <= 1.0 + 1e-9
    # and the run's total is the synthesizer's epsilon: the bins are a share of it
    assert pipe.privacy_report_.epsilon == pytest.approx(2.0)
    assert pipe.privacy_report_.delta == pytest.approx(1e-9)
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


def test_the_empty_top_of_a_narrow_integer_range_gets_no_mass():
    """A count in [0, 60] whose values stop at 30: its integers are numbers in order,
    grouped and decoded by significance-tested shares, not rare unordered levels drawn
    in proportion to their clipped noise (which put 0.3-0.5 % of the rows above the
    real maximum, up to 60, and the std ratio at 1.14-1.34)."""
    rng = np.random.default_rng(0)
    n = 20_000
    count = np.minimum(rng.geometric(0.25, n) - 1, 30)
    real = pd.DataFrame({"count": count, "group": rng.choice(["a", "b", "c"], n)})
    domain = Domain({"count": {"type": "integer", "range": [0, 60]}, "group": ["a", "b", "c"]})
    pipe = make_private_pipeline(MarginalSynthesizer(1.0, random_state=0), domain, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded
        synthetic = pipe.fit(real).sample(n)["count"].to_numpy(dtype=float)
    assert (synthetic > count.max()).mean() < 0.001
    assert 0.9 < synthetic.std() / count.std() < 1.1


def test_a_point_mass_at_a_float_bound_inside_a_wide_bin_comes_back_at_the_bound():
    """16 % of the rows at exactly 0, the bound of [0, 20], the rest in [3, 12] (log
    medical expenditure): too few for the private bins to give the zeros a bin of
    their own, so they sat in a wide first bin and were spread over its first sub-bin
    (no synthetic value was 0; KS 0.17).  The bounds' cells are measured on their own
    with the sub-bin weights."""
    rng = np.random.default_rng(0)
    n = 6000
    spend = np.where(rng.random(n) < 0.16, 0.0, np.round(rng.uniform(3, 12, n), 6))
    real = pd.DataFrame({"spend": spend, "group": rng.choice(["a", "b"], n)})
    domain = Domain({"spend": {"type": "float", "range": [0.0, 20.0]}, "group": ["a", "b"]})
    pipe = make_private_pipeline(MarginalSynthesizer(1.0, random_state=0), domain, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded
        synthetic = pipe.fit(real).sample(n)["spend"].to_numpy(dtype=float)
    assert pipe[0].domain_["spend"].edges[1] > 0  # the zeros share a bin with others
    assert abs((synthetic == 0).mean() - (spend == 0).mean()) < 0.04


@pytest.mark.parametrize(
    "spec, n, recurring, others",
    [
        # years of schooling at 3 declared decimals (24 a cell): whole years on most rows
        ({"type": "float", "range": [0.0, 25.0], "decimals": 3}, 20_000, [12.0, 16.0], (6, 20)),
        # incomes in whole dollars, many of them round: 62 integers a cell of the grid
        ({"type": "integer", "range": [0, 999_999]}, 6_000, [20_000, 35_000], (5e3, 9e4)),
        # the same at 7 integers a cell (a sentinel value, a cap)
        ({"type": "integer", "range": [0, 99_999]}, 6_000, [20_000, 35_000], (5e3, 9e4)),
        # days at one a cell, a censoring date on many rows (a survival table): inside a
        # bin wider than its 8 sub-bins, spread over 8 days before (KS 0.29 on Aids2)
        ({"type": "integer", "range": [8000, 12000]}, 3_000, [11_504, 10_000], (8500, 11400)),
    ],
)
def test_values_that_recur_inside_a_bin_come_back_exactly(spec, n, recurring, others):
    """40 % and 20 % of the rows on two values of the public grid, inside bins of other
    values: released as grid points, they decode to themselves (before, spread over a
    cell or a sub-bin: 2 %, 1 % and 6 % of the synthetic rows on the value that holds
    40 % of the real ones)."""
    rng = np.random.default_rng(0)
    u = rng.random(n)
    x = rng.uniform(*others, n)
    x = np.round(x, 2) if spec["type"] == "float" else np.round(x).astype(np.int64)
    x = np.where(u < 0.4, recurring[0], np.where(u < 0.6, recurring[1], x))
    real = pd.DataFrame({"x": x, "group": rng.choice(["a", "b"], n)})
    domain = Domain({"x": spec, "group": ["a", "b"]})
    pipe = make_private_pipeline(MarginalSynthesizer(1.0, random_state=0), domain, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded
        synthetic = pipe.fit(real).sample(n)["x"].to_numpy()
    for value, share in zip(recurring, (0.4, 0.2), strict=True):
        assert abs((synthetic == value).mean() - share) < 0.04
    assert ks_2samp(x, synthetic).statistic < 0.04


def test_masses_at_the_bounds_of_a_wide_integer_range_are_kept():
    # 100,000 integers, more than the fine grid's 16,384 cells: each cell holds 7 of
    # them, so without cells of their own the zeros (60 %, an income's) and the cap
    # (10 %) would come back spread over the 7 integers of their cells.
    rng = np.random.default_rng(0)
    u = rng.random(6000)
    values = np.where(u < 0.6, 0, np.where(u < 0.7, 99_999, rng.integers(1, 99_999, 6000)))
    enc = BooleanEncoder(
        categories={"x": {"type": "integer", "range": [0, 99_999]}},
        encoding="ordinal",
        binning_epsilon=2.0,
        random_state=0,
    )
    back = enc.inverse_transform(enc.fit_transform(pd.DataFrame({"x": values})))["x"]
    assert abs((back == 0).mean() - 0.6) < 0.02
    assert abs((back == 99_999).mean() - 0.1) < 0.02
    assert ks_2samp(values, back).statistic < 0.05


@pytest.mark.parametrize("n_points", [5, 1601, 16_384, 16_385, 100_000])
def test_fine_grid_cells_and_edges_agree_on_every_integer(n_points):
    # The bins released from any cell boundaries hold the integers their cells hold:
    # the fine counts (cells) and the encoding (edges) see the same rows.
    grid = _FineGrid(Range(-3, n_points - 4, "integer", None, False, False, None))
    points = np.arange(-3, n_points - 3, dtype=np.float64)
    cells = grid.cells(points)
    assert cells[0] == 0 and np.all(np.diff(cells) >= 0) and cells.max() < grid.n_cells
    if n_points > 16_384:  # the bounds alone in their cells, every cell holding a point
        assert np.sum(cells == 0) == 1 and np.sum(cells == cells[-1]) == 1
        assert np.unique(cells).size == cells.max() + 1
    rng = np.random.default_rng(n_points)
    for _ in range(20):
        size = rng.integers(1, min(12, grid.n_cells - 1) + 1)
        inner = rng.choice(np.arange(1, grid.n_cells), size=size, replace=False)
        boundaries = np.r_[0, np.sort(inner), grid.n_cells]
        edges, fraction = grid.edges(boundaries)
        assert edges[0] == -3 and edges[-1] == n_points - 4 and 0 < fraction <= 1
        bins = np.minimum(np.searchsorted(edges, points, side="right") - 1, edges.size - 2)
        expected = np.searchsorted(boundaries, cells, side="right") - 1
        np.testing.assert_array_equal(bins, expected)


def test_max_bins_caps_the_codes_of_a_range(ranged):
    enc = BooleanEncoder(categories=RANGES, max_bins=4, binning_epsilon=4.0, random_state=0)
    enc.fit(ranged)
    assert all(k <= 4 for k in enc.n_codes_)
    assert enc.n_codes_[3] >= 2  # the missing code counts in the cap


def test_ranges_read_in_chunks_release_the_same_bins(ranged):
    # Incomes in cents: grid points released too, from counts merged over the chunks.
    ranges = RANGES | {"income": {"type": "float", "range": [0, 100000], "decimals": 2}}
    data = ranged.assign(income=ranged["income"].round(-3))  # round thousands recur
    chunks = Chunks(lambda: (data.iloc[i : i + 1700] for i in range(0, len(data), 1700)))
    a = BooleanEncoder(categories=ranges, binning_epsilon=2.0, random_state=5).fit(data)
    b = BooleanEncoder(categories=ranges, binning_epsilon=2.0, random_state=5).fit(chunks)
    assert a.domain_ == b.domain_
    assert a._encoding[0].points[1].size > 2  # the bounds, and values that recur
    for x, y in zip(a._encoding, b._encoding, strict=True):
        np.testing.assert_array_equal(x.sub_weights, y.sub_weights)
        for p, q in zip(x.points, y.points, strict=True):
            np.testing.assert_array_equal(p, q)


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


@pytest.mark.parametrize(
    "spec",
    [
        Range(0.0, 25.0, "float", None, False, False, 5),  # 2,500,001 points, 2,444 a cell
        Range(-3, 999_996, "integer", None, False, False, None),  # 62 integers a cell
        Range(8000, 12000, "integer", None, False, False, None),  # one integer a cell
    ],
)
def test_eligible_grid_points_are_the_points_inside_their_bins(spec):
    """The ranges of grid points released on their own hold exactly the points of the
    bins of several points whose sub-bins hold several (cells of several points, or
    bins wider than 8 cells), without the bounds' cells (found by bisection)."""
    grid = _FineGrid(spec)
    top = grid.occupied
    boundaries = np.array([0, 1, 2, 4, 8, 16, 24, 25, 512, top - 1, grid.n_cells])
    bins = np.searchsorted(boundaries, grid.key_cells(np.arange(grid.n_keys)), side="right") - 1
    cells = grid.key_cells(np.arange(grid.n_keys))
    expected = np.zeros(grid.n_keys, dtype=bool)
    for k in range(boundaries.size - 1):
        mine = bins == k
        if mine.sum() > 1 and (grid.per_cell > 1 or boundaries[k + 1] - boundaries[k] > 8):
            expected |= mine & (cells != 0) & (cells != top - 1)
    got = np.zeros(grid.n_keys, dtype=bool)
    for a, b in grid.eligible_keys(boundaries):
        assert np.unique(bins[a:b]).size == 1  # a range never straddles two bins
        got[a:b] = True
    np.testing.assert_array_equal(got, expected)
    assert grid.key_values(grid.keys(np.array([spec.lo, spec.hi]))).tolist() == [spec.lo, spec.hi]


def test_fine_counts_move_one_row_between_at_most_two_cells(ranged):
    """Sensitivity assumed by PrivTree, the grid points and the sub-bin counts: replacing
    one row (also by a missing value, or at the range's bounds) changes two cells (two
    grid points) by one, or one."""
    ranges = RANGES | {"income": {"type": "float", "range": [0, 100000], "decimals": 2}}
    statistic = _FineCounts({c: Domain(ranges)[c] for c in ranges})
    base = statistic(ranged)[1]
    assert base["income"][1] is not None  # incomes in cents: a grid of points
    extremes = ranged.iloc[[0]].assign(
        income=100000.0, age=90, late=np.nan, when=pd.Timestamp("2013-12-31T23:00")
    )
    lows = ranged.iloc[[0]].assign(income=0.0, age=0, late=0.0, when=pd.Timestamp("2013-01-01"))
    rng = np.random.default_rng(0)
    for replacement in [extremes, lows, ranged.iloc[[rng.integers(len(ranged))]]]:
        for row in [0, 1, int(rng.integers(len(ranged)))]:
            neighbour = ranged.copy()
            neighbour.iloc[row] = replacement.iloc[0]
            for column, (counts, keys) in statistic(neighbour)[1].items():
                diff = np.abs(counts - base[column][0])
                assert diff.max() <= 1 and diff.sum() <= 2, column
                if keys is not None:  # the grid points' counts too
                    both = np.union1d(keys.keys, base[column][1].keys)
                    diff = np.abs(keys.at(both) - base[column][1].at(both))
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


# ------------------------------------------------------------ parts of a datetime
PARTS = ["year", "month", "day", "hour", "weekday"]


def flights(n=3000, seed=0, missing=False):
    """A datetime and its parts (as pandas gives them), a carrier that depends on the
    hour and a delay that depends on the month."""
    rng = np.random.default_rng(seed)
    hours = rng.gamma(3.0, 1000.0, n).clip(0, 8759).astype(np.int64)
    when = pd.Series(pd.Timestamp("2013-01-01") + pd.to_timedelta(hours, unit="h"))
    when = when.astype("datetime64[us]")
    if missing:
        when[rng.random(n) < 0.1] = pd.NaT
    table = pd.DataFrame({"carrier": np.where(when.dt.hour < 12, "AA", "UA")})
    for part in PARTS[:2]:
        table[part] = _part(when, part)
    table["time_hour"] = when
    for part in PARTS[2:]:
        table[part] = _part(when, part)
    table["date"] = when.dt.normalize()
    table["delay"] = (when.dt.month.fillna(1) + rng.integers(0, 3, n)).astype(np.int64)
    return table


def _part(when, part):
    values = getattr(when.dt, "day_of_week" if part == "weekday" else part)
    return values.astype("Int64") if values.isna().any() else values.astype(np.int64)


def flights_domain(missing=False):
    flag = {"missing": True} if missing else {}
    time_hour = {"part_of": "time_hour"}
    return {
        "carrier": ["AA", "UA"],
        "year": {**time_hour, "part": "year", **flag},
        "month": {**time_hour, "part": "month", **flag},
        "time_hour": {
            "type": "datetime",
            "range": ["2013-01-01", "2013-12-31T23:00"],
            "resolution": "h",
            **flag,
        },
        **{part: {**time_hour, "part": part, **flag} for part in PARTS[2:]},
        "date": {**time_hour, "part": "date", **flag},
        "delay": {"type": "integer", "range": [1, 14]},
    }


def consistency(table):
    """Share of the rows whose parts all equal those of their datetime (missing
    together counts as equal)."""
    when = table["time_hour"]
    same = np.ones(len(table), dtype=bool)
    for part, computed in [*((p, _part(when, p)) for p in PARTS), ("date", when.dt.normalize())]:
        a, b = table[part], computed
        both = (a.notna() & b.notna()).to_numpy()
        equal = a.isna().to_numpy() & b.isna().to_numpy()
        equal[both] = a[both].to_numpy() == b[both].to_numpy()
        same &= equal
    return same.mean()


def test_a_part_of_a_datetime_round_trips_and_has_no_codes(tmp_path):
    domain = Domain(flights_domain(missing=True))
    assert domain["month"] == DatetimePart("time_hour", "month", missing=True)
    assert domain.kind("month") == "integer" and domain.kind("date") == "datetime"
    assert domain.missing("month") and domain.ordered("month")
    # No codes of its own: size 0, no labels, no codes.
    assert domain.sizes == (2, 0, 0, None, 0, 0, 0, 0, 14)
    assert domain.labels("month") == [] and len(domain["month"]) == 0
    with pytest.raises(TypeError, match=r"month of 'time_hour'\) has no codes"):
        kind_of(domain["month"]).codes(pd.Series([1]))
    spec = domain.to_dict()
    assert spec["month"] == {"part_of": "time_hour", "part": "month", "missing": True}
    assert Domain(spec) == domain and eval(repr(domain)) == domain
    path = tmp_path / "domain.json"
    path.write_text(json.dumps(spec))
    assert Domain.from_json(path) == domain
    assert Domain(dict(domain)) == domain
    # Parts read as integers (and dates) from a CSV: missing markers are missing.
    assert "NA" in domain.read_csv_options()["na_values"]["month"]


DATETIME = {"type": "datetime", "range": ["2013-01-01", "2013-12-31"], "resolution": "D"}


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        (
            {"m": {"part_of": "nowhere", "part": "month"}},
            r"\['m'\]\['part_of'\] must name a datetime column .* got 'nowhere', and the "
            r"datetime columns are \['t'\]",
        ),
        (
            {"m": {"part_of": "n", "part": "month"}},
            r"must name a datetime column .* got 'n'",
        ),
        (
            {"d": {"part_of": "t", "part": "date"}, "m": {"part_of": "d", "part": "month"}},
            r"\['m'\]\['part_of'\] must name a datetime column .* got 'd'",
        ),
        (
            {"m": {"part_of": "t", "part": "week"}},
            r"\['m'\]\['part'\] must be one of \['year', 'month', 'day', 'hour', 'minute', "
            r"'weekday', 'date'\]; got 'week'",
        ),
        ({"m": {"part_of": "t"}}, r"\['m'\] given with 'part_of' must be"),
        ({"m": {"part_of": "t", "part": "day", "range": [1, 31]}}, "given with 'part_of'"),
        ({"m": {"part_of": "t", "part": "day", "missing": True}}, "if and only if"),
    ],
)
def test_a_part_must_name_a_datetime_of_the_domain_and_a_known_part(spec, match):
    with pytest.raises(ValueError, match=match):
        Domain({"t": DATETIME, "n": {"type": "integer", "range": [1, 3]}, **spec})
    missing = {"t": DATETIME | {"missing": True}, "m": {"part_of": "t", "part": "month"}}
    with pytest.raises(ValueError, match=r"\['m'\]: a part is missing exactly where .* 't'"):
        Domain(missing)


@pytest.mark.parametrize("encoding", ["onehot", "binary", "ordinal"])
def test_parts_are_not_encoded_and_decode_from_their_datetime(encoding):
    real = flights(500)
    real.loc[:9, "month"] = 13  # the real data may disagree with its own datetime
    encoder = BooleanEncoder(
        categories=flights_domain(), encoding=encoding, datetime_parts="computed", random_state=0
    )
    Xt = encoder.fit_transform(real)
    alone = BooleanEncoder(
        categories={c: flights_domain()[c] for c in ["carrier", "time_hour", "delay"]},
        encoding=encoding,
        random_state=0,
    ).fit(real[["carrier", "time_hour", "delay"]])
    # The encoded columns only: the same output as without the parts.
    np.testing.assert_array_equal(Xt, alone.transform(real[["carrier", "time_hour", "delay"]]))
    assert encoder.n_codes_ == [2, 0, 0, alone.n_codes_[1], 0, 0, 0, 0, 14]
    assert [b.stop - b.start for b in encoder.column_blocks_][4:8] == [0, 0, 0, 0]
    assert list(encoder.get_feature_names_out()) == list(alone.get_feature_names_out())
    if encoding == "onehot":
        assert encoder.feature_blocks_ == alone.feature_blocks_
    assert declared_code_sizes(encoder) == declared_code_sizes(alone)
    back = encoder.inverse_transform(Xt)
    assert list(back.columns) == list(real.columns)
    assert (back.dtypes == real.dtypes).all()
    assert consistency(real) < 1 and consistency(back) == 1.0  # always consistent
    assert back["weekday"].between(0, 6).all()


def test_parts_are_missing_where_their_datetime_is_in_a_nullable_dtype():
    real = flights(400, missing=True)
    real["day"] = real["day"].astype(np.float64)  # NaN in a float column of integers
    encoder = BooleanEncoder(categories=flights_domain(missing=True), random_state=0)
    back = encoder.fit(real).inverse_transform(encoder.transform(real))
    assert real["time_hour"].isna().any() and consistency(back) == 1.0
    for part in ["year", "month", "hour", "weekday", "day"]:
        assert back[part].dtype == pd.Int64Dtype(), part
        assert back[part].isna().equals(back["time_hour"].isna())
    assert back["date"].dtype == real["date"].dtype and back["date"].isna().equals(
        back["time_hour"].isna()
    )
    # A time-zone-aware datetime: the parts of its local time.
    aware = real.assign(time_hour=real["time_hour"].dt.tz_localize("America/New_York"))
    domain = flights_domain(missing=True)
    domain["time_hour"] = domain["time_hour"] | {"clip": True}  # binned in UTC
    encoder = BooleanEncoder(categories=domain, random_state=0)
    back = encoder.fit(aware).inverse_transform(encoder.transform(aware))
    local = back["time_hour"].dt
    assert back["hour"].equals(local.hour.astype("Int64"))
    assert back["date"].dropna().equals(local.tz_localize(None).dt.normalize().dropna())


def test_private_pipeline_parts_are_consistent_and_spend_nothing():
    real = flights(4000, seed=1)
    encoded = ["carrier", "time_hour", "delay"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded for the test
        pipe = make_private_pipeline(
            MarginalSynthesizer(epsilon=1.0, random_state=0),
            flights_domain(),
            datetime_parts="computed",
            random_state=0,
        )
        alone = make_private_pipeline(
            MarginalSynthesizer(epsilon=1.0, random_state=0),
            {c: flights_domain()[c] for c in encoded},
            random_state=0,
        )
        out = pipe.fit(real).sample(random_state=1)
        reference = alone.fit(real[encoded]).sample(random_state=1)
    assert list(out.columns) == list(real.columns) and (out.dtypes == real.dtypes).all()
    assert consistency(real) == 1.0 and consistency(out) == 1.0
    # The synthesizer saw the same codes and released the same: the parts cost nothing.
    pd.testing.assert_frame_equal(out[encoded], reference)
    report, without = pipe.privacy_report_, alone.privacy_report_
    assert report.rho == without.rho and report.epsilon == without.epsilon
    assert [e["step"] for e in report.entries] == [e["step"] for e in without.entries]
    named = [f"'{p}'" for p in [*PARTS, "date"]]
    assert not any(p in e["step"] for e in report.entries for p in named)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # scored on real data
        score = pipe.score(real.iloc[:500])
        assert score == alone.score(real[encoded].iloc[:500])  # on the encoded columns


def test_parts_fitted_in_chunks_equal_the_fit_in_memory():
    real = flights(3000, seed=2)
    chunks = Chunks(lambda: (real.iloc[i : i + 700] for i in range(0, len(real), 700)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        outs = [
            make_private_pipeline(
                MarginalSynthesizer(epsilon=1.0, random_state=0),
                flights_domain(),
                random_state=0,
            )
            .fit(data)
            .sample(random_state=3)
            for data in (real, chunks)
        ]
    pd.testing.assert_frame_equal(outs[0], outs[1])
    assert consistency(outs[1]) == 1.0


def test_the_values_of_a_part_are_read_from_its_datetime_declaration():
    domain = Domain(
        flights_domain(missing=True)
        | {
            "time_hour": {
                "type": "datetime",
                "bins": ["2012-06-01", "2013-01-01", "2014-01-01T05:00"],
                "resolution": "h",
                "missing": True,
            }
        }
    )
    values = value_domain(domain)
    assert values["carrier"] == domain["carrier"] and values["time_hour"] == domain["time_hour"]
    assert values.to_dict()["year"] == {"type": "integer", "range": [2012, 2014], "missing": True}
    assert values["month"] == Levels(tuple(range(1, 13)), True, "integer", True)
    assert values["weekday"] == Levels(tuple(range(7)), True, "integer", True)
    assert values.to_dict()["date"] == {
        "type": "datetime",
        "range": ["2012-06-01", "2014-01-01"],
        "resolution": "D",
        "missing": True,
    }


# ------------------------------------------------- parts modelled with the others
def test_a_datetime_is_drawn_in_its_bin_on_the_days_and_hours_of_its_parts():
    bins = {"type": "datetime", "bins": ["2013-01-01", "2013-01-15"], "resolution": "h"}
    column = _Column.of(Domain({"t": bins})["t"])
    n = 400
    decoded = pd.Series(pd.to_datetime(["2013-01-09T17:00"] * n)).astype("datetime64[us]")
    parts = {
        "weekday": np.full(n, 2.0),  # a Wednesday: the 2nd and the 9th
        "hour": np.full(n, 5.0),
        "month": np.where(np.arange(n) < n // 2, 1.0, 3.0),  # no March day in the bin
        "day": np.where(np.arange(n) % 2 == 0, 2.0, np.nan),  # missing: not matched
    }
    out = _datetimes_with_parts(decoded, column, parts, decoded.dtype, np.random.default_rng(0))
    assert out.dtype == decoded.dtype and (out.dt.day_of_week == 2).all()
    assert (out.dt.hour == 5).all() and (out.dt.minute == 0).all()
    assert out.between(pd.Timestamp("2013-01-01"), pd.Timestamp("2013-01-15")).all()
    # Day 2 where asked with a January month; where the day is missing, the decoded
    # Wednesday the 9th agrees and is kept (with a March month too: no day of the range
    # is in March, so the month is dropped, keeping the finer weekday and day).
    asked = (parts["day"] == 2.0) & (parts["month"] == 1.0)
    assert (out.dt.day[asked] == 2).all()
    assert set(out.dt.day[np.isnan(parts["day"])]) == {9}
    assert (out.dt.day[(parts["day"] == 2.0) & (parts["month"] == 3.0)] == 2).all()


def test_a_datetime_whose_bin_holds_no_day_of_its_parts_moves_to_a_bin_that_does():
    # Bins Jan 1-20, Jan 20-Feb 10, Feb 10-Mar 1.  Rows decoded in the first bin with
    # month 2 disagree with it: they move to a bin holding February days, drawn by the
    # decoded rows' shares (the third bin holds none: none go there) and land in
    # February.  Rows that agree keep their decoded datetime.
    edges = ["2013-01-01", "2013-01-20", "2013-02-10", "2013-03-01"]
    column = _Column.of(Domain({"t": {"type": "datetime", "bins": edges, "resolution": "h"}})["t"])
    at = ["2013-01-05T12:00"] * 300 + ["2013-01-25T08:00"] * 100
    decoded = pd.Series(pd.to_datetime(at)).astype("datetime64[us]")
    month = np.r_[np.full(200, 2.0), np.full(100, 1.0), np.full(100, 1.0)]
    out = _datetimes_with_parts(
        decoded, column, {"month": month}, decoded.dtype, np.random.default_rng(0)
    )
    assert (out.dt.month == month).all()
    moved = out[:200]
    assert moved.between(pd.Timestamp("2013-02-01"), pd.Timestamp("2013-02-09T23:00")).all()
    assert moved.dt.day.nunique() > 5  # spread over the bin's February days
    assert out[200:].equals(decoded[200:])
    # With rows decoded in the third bin too, the moved rows split between the two
    # bins holding February, by their decoded shares times their February time
    # (9 of 21 days, and all 19): 100 x 9/21 against 300 x 1.
    at = ["2013-01-05T12:00"] * 2000 + ["2013-01-25T08:00"] * 100 + ["2013-02-20T08:00"] * 300
    decoded = pd.Series(pd.to_datetime(at)).astype("datetime64[us]")
    month = np.r_[np.full(2000, 2.0), np.full(100, 1.0), np.full(300, 2.0)]
    out = _datetimes_with_parts(
        decoded, column, {"month": month}, decoded.dtype, np.random.default_rng(0)
    )
    assert (out.dt.month == month).all()
    share = (out[:2000] < pd.Timestamp("2013-02-10")).mean()
    assert abs(share - (100 * 9 / 21) / (100 * 9 / 21 + 300)) < 0.03


def test_a_modelled_month_keeps_the_frequencies_of_its_model():
    """A month modelled with the other columns of a table whose timestamp's private
    bins span parts of months (issue 45.2): decoded, its 1-way frequencies are as close
    to the real ones as those of a categorical column with as many levels, and it
    still agrees with its timestamp on every row."""
    rng = np.random.default_rng(12345)
    n = 20_000
    admitted = pd.Timestamp("2023-01-01") + pd.to_timedelta(rng.integers(0, 365 * 1440, n), "min")
    wards = [f"w{k:02d}" for k in range(12)]
    real = pd.DataFrame(
        {
            "admitted": admitted,
            "month": admitted.month,
            "ward": rng.choice(wards, n),
            "age": np.clip(rng.normal(50, 20, n), 0, 99).astype(int),
            "sex": rng.choice(["F", "M"], n),
        }
    )
    domain = {
        "admitted": {
            "type": "datetime",
            "range": ["2023-01-01", "2023-12-31T23:59"],
            "resolution": "min",
        },
        "month": {"part_of": "admitted", "part": "month"},
        "ward": wards,
        "age": {"type": "integer", "range": [0, 99]},
        "sex": ["F", "M"],
    }

    def tvd(column):
        p = real[column].value_counts(normalize=True)
        q = out[column].value_counts(normalize=True)
        index = p.index.union(q.index)
        return 0.5 * (p.reindex(index, fill_value=0) - q.reindex(index, fill_value=0)).abs().sum()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        pipe = make_private_pipeline(
            MarginalSynthesizer(epsilon=1.0, random_state=0), domain, random_state=0
        )
        out = pipe.fit(real).sample(random_state=0)
    assert (out["month"] == out["admitted"].dt.month).all()
    # Measured over seeds 0-2 (benchmarks/bench_parts.py): at most 1.5 x the ward's or
    # 0.01 with the parts trusted; 0.05-0.06 when the bin decided a disagreeing month.
    assert tvd("month") <= max(1.5 * tvd("ward"), 0.01)


def test_a_decoded_hour_is_kept_on_a_day_where_it_lies_in_the_bin():
    # The bin's first and last days are partial: 5:00 on the 1st and 20:00 on the 3rd
    # lie outside it.  The hour, which the bin cannot decide, is kept; the day (which
    # the bin mostly decides) moves to one where that hour is in the bin.
    bins = {"type": "datetime", "bins": ["2013-01-01T14:00", "2013-01-03T10:00"], "resolution": "h"}
    column = _Column.of(Domain({"t": bins})["t"])
    n = 400
    decoded = pd.Series(pd.to_datetime(["2013-01-02T12:00"] * n)).astype("datetime64[us]")
    early = np.arange(n) < n // 2
    parts = {"hour": np.where(early, 5.0, 20.0), "day": np.where(early, 1.0, 3.0)}
    out = _datetimes_with_parts(decoded, column, parts, decoded.dtype, np.random.default_rng(0))
    assert (out.dt.hour == parts["hour"]).all()
    assert out.between(pd.Timestamp("2013-01-01T14:00"), pd.Timestamp("2013-01-03T10:00")).all()
    assert set(out.dt.day[early]) == {2, 3} and set(out.dt.day[~early]) == {1, 2}
    # In a bin shorter than a day the row keeps its decoded day, at its hour, within
    # the declared range; outside the range the decoded datetime stays.
    for edges, moved in (
        (["2013-01-02T00:00", "2013-01-02T10:00", "2013-01-02T14:00", "2013-01-03T00:00"], True),
        (["2013-01-02T10:00", "2013-01-02T14:00"], False),
    ):
        bins = {"type": "datetime", "bins": edges, "resolution": "h"}
        column = _Column.of(Domain({"t": bins})["t"])
        out = _datetimes_with_parts(decoded, column, parts, decoded.dtype, np.random.default_rng(0))
        assert (out.dt.day == 2).all()
        assert (out.dt.hour == (parts["hour"] if moved else 12)).all()


def test_modelled_parts_are_levels_and_their_values_are_checked():
    real = flights(300)
    encoder = BooleanEncoder(
        categories=flights_domain(), encoding="ordinal", datetime_parts="modelled"
    ).fit(real)
    assert encoder.n_codes_[1:3] == [1, 12] and encoder.n_codes_[4:8] == [31, 24, 7, 0]
    assert list(encoder.get_feature_names_out())[:3] == ["carrier", "year", "month"]
    assert declared_code_sizes(encoder) == [k for k in encoder.n_codes_ if k]
    back = encoder.inverse_transform(encoder.transform(real))
    assert (back.dtypes == real.dtypes).all() and consistency(back) == 1.0
    bad = real.assign(month=real["month"].where(real.index != 3, 13))
    with pytest.raises(ValueError, match=r"'month' has values outside the categories \[1, 2, "):
        encoder.fit(bad)


def test_modelled_parts_keep_their_relations_to_other_columns():
    """The carrier depends on the hour: computed from private bins that span days, the
    hour loses that relation; modelled, it keeps it, and still agrees with the
    timestamp on every row.  At ε = 4: at 6,000 rows and ε ≤ 2 the budget plan measures
    no pair for this domain (none would stand above its noise), and both modes lose it."""
    real = flights(6000, seed=4, missing=True)

    def tvd(out, x, y):
        p = pd.crosstab(real[x], real[y], normalize=True).stack()
        q = pd.crosstab(out[x], out[y], normalize=True).stack()
        index = p.index.union(q.index)
        return 0.5 * (p.reindex(index, fill_value=0) - q.reindex(index, fill_value=0)).abs().sum()

    outs = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        for mode in ["computed", "modelled"]:
            pipe = make_private_pipeline(
                MarginalSynthesizer(epsilon=4.0, random_state=0),
                flights_domain(missing=True),
                datetime_parts=mode,
                random_state=0,
            )
            outs[mode] = pipe.fit(real).sample(random_state=1)
            assert pipe.privacy_report_.epsilon < 4.08
    for out in outs.values():
        assert consistency(out) == 1.0 and (out.dtypes == real.dtypes).all()
        assert abs(out["time_hour"].isna().mean() - real["time_hour"].isna().mean()) < 0.03
    # Measured over seeds 0-2: 0.09-0.10 modelled, 0.50 computed.
    assert tvd(outs["modelled"], "hour", "carrier") < 0.15
    assert tvd(outs["computed"], "hour", "carrier") > 0.3


def test_modelled_parts_fitted_in_chunks_equal_the_fit_in_memory():
    real = flights(3000, seed=5)
    chunks = Chunks(lambda: (real.iloc[i : i + 800] for i in range(0, len(real), 800)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        outs = [
            make_private_pipeline(
                ReducedSpaceLP(epsilon=1.0, m=500, random_state=0),
                flights_domain(),
                datetime_parts="modelled",
                random_state=0,
            )
            .fit(data)
            .sample(random_state=3)
            for data in (real, chunks)
        ]
    pd.testing.assert_frame_equal(outs[0], outs[1])
    assert consistency(outs[1]) == 1.0


def test_modelled_parts_of_a_time_zone_aware_datetime_are_computed():
    real = flights(300)
    aware = real.assign(time_hour=real["time_hour"].dt.tz_localize("Europe/Paris"))
    domain = flights_domain()
    domain["time_hour"] = domain["time_hour"] | {"clip": True}
    encoder = BooleanEncoder(categories=domain, datetime_parts="modelled", random_state=0)
    back = encoder.fit(aware).inverse_transform(encoder.transform(aware))
    assert encoder.n_codes_[4:8] == [0, 0, 0, 0]
    for part in PARTS:  # of the local time
        assert back[part].equals(_part(back["time_hour"], part).astype(back[part].dtype)), part


def test_metrics_compare_a_part_by_its_values():
    from skprivsynth.metrics import categorical_marginal_tvd, evaluation_domain

    real = flights(2000)
    domain = flights_domain()
    assert categorical_marginal_tvd(real, real, domain=domain) == 0.0
    assert tuple(evaluation_domain(real, real, domain=domain)["month"].levels) == tuple(
        range(1, 13)
    )


def test_float_decimals_round_trip_and_decode_at_the_declared_precision():
    spec = {"type": "float", "range": [0, 365], "decimals": 1}
    domain = Domain({"stay": spec, "price": {"bins": [0, 10, 100], "decimals": 2}})
    assert Domain(domain.to_dict()) == domain and domain.to_dict()["stay"] == spec
    assert domain["price"].decimals == 2
    with pytest.raises(ValueError, match=r"\['decimals'\] must be an int from -15 to 15"):
        Domain({"x": {"type": "float", "range": [0, 1], "decimals": 1.5}})
    rng = np.random.default_rng(0)
    real = pd.DataFrame(
        {"stay": np.round(rng.lognormal(1.0, 0.6, 4000), 1), "price": rng.uniform(0, 100, 4000)}
    )
    real["price"] = real["price"].round(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded for the test
        pipe = make_private_pipeline(MarginalSynthesizer(epsilon=2.0), domain, random_state=0)
        out = pipe.fit(real).sample(random_state=1)
    for column, k in (("stay", 1), ("price", 2)):
        np.testing.assert_allclose(out[column], out[column].round(k), atol=1e-9)
    assert out["stay"].between(0, 365).all() and out["price"].between(0, 100).all()



def test_whole_hundreds_decode_to_multiples_of_100_in_integers_and_floats():
    """``"decimals": -2`` (amounts recorded in whole hundreds): an integer range took
    no decimals and decoded to every integer of its bins."""
    fee = {"type": "integer", "range": [0, 200000], "decimals": -2}
    domain = Domain({"fee": fee, "rent": {"type": "float", "range": [0, 50000], "decimals": -2}})
    assert Domain(domain.to_dict()) == domain and domain.to_dict()["fee"] == fee
    with pytest.raises(ValueError, match=r"\['decimals'\] must be an int from -15 to 0; got 1"):
        Domain({"x": {"type": "integer", "range": [0, 1000], "decimals": 1}})
    with pytest.raises(ValueError, match="at least two multiples of 100"):
        Domain({"x": {"type": "integer", "range": [0, 50], "decimals": -2}})
    rng = np.random.default_rng(0)
    real = pd.DataFrame(
        {
            "fee": (rng.lognormal(8.0, 1.0, 4000) // 100 * 100).astype(np.int64),
            "rent": rng.integers(0, 500, 4000) * 100.0,
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)  # seeded for the test
        pipe = make_private_pipeline(MarginalSynthesizer(epsilon=2.0), domain, random_state=0)
        out = pipe.fit(real).sample(random_state=1)
    assert out["fee"].dtype == np.int64 and (out["fee"] % 100 == 0).all()
    assert (out["rent"] % 100 == 0).all() and out["rent"].between(0, 50000).all()
    assert out["fee"].nunique() > 20  # decoded inside the bins, not at their edges only


# ------------------------------------------------------- codes that stand for missing
def test_missing_codes_are_declared_on_numbers_and_round_trip():
    domain = Domain(
        {
            "kids": {"type": "integer", "range": [0, 20], "missing": [99, 98]},
            "hours": {"type": "integer", "range": [0, 6000], "missing": [-9]},
            "wage": {"type": "float", "range": [0, 50], "decimals": 2, "missing": [999.99]},
            "score": {"bins": [0, 5, 10], "missing": [-1]},
        }
    )
    assert domain.missing_codes("kids") == (98, 99) and domain.missing("kids")
    assert domain["kids"] == Levels(tuple(range(21)), True, "integer", True, (98, 99))
    assert domain["hours"].missing_codes == (-9,) and domain.sizes[0] == 22  # 21 + missing
    assert domain.to_dict()["kids"] == {"type": "integer", "range": [0, 20], "missing": [98, 99]}
    assert domain.to_dict()["wage"]["missing"] == [999.99]
    assert Domain(domain.to_dict()) == domain and eval(repr(domain)) == domain
    assert domain.missing_codes("score") == (-1,)
    # Beside levels: values that are not levels (a "?" of a questionnaire).
    job = Domain({"job": {"levels": ["clerk", "nurse"], "missing": ["?", "unknown"]}})
    assert job["job"] == Levels(("clerk", "nurse"), False, "categorical", True, ("?", "unknown"))
    assert Domain(job.to_dict()) == job
    values = pd.Series(["nurse", "?", None, "unknown", "cook"], dtype=object)
    np.testing.assert_array_equal(kind_of(job["job"]).codes(values), [1, 2, 2, 2, -1])
    for spec, error, match in [
        ({"levels": ["a", "?"], "missing": ["?"]}, ValueError, "also levels"),
        ({"type": "boolean", "missing": [0]}, TypeError, "integer, float or levels column"),
        ({"type": "integer", "range": [0, 5], "missing": 9}, TypeError, r"e\.g\. \[98, 99\]"),
        ({"type": "integer", "range": [0, 5], "missing": [9.5]}, ValueError, "integers"),
        ({"type": "integer", "range": [0, 5], "missing": []}, ValueError, "distinct values"),
        ({"type": "integer", "range": [0, 5], "missing": [9, 9]}, ValueError, "distinct values"),
    ]:
        with pytest.raises(error, match=match):
            Domain({"c": spec})


CODED = {
    "kids": {"type": "integer", "range": [0, 20], "missing": [98, 99]},
    "wage": {"type": "float", "range": [0, 100], "missing": [-9]},
    "sex": {"levels": ["F", "M"], "missing": ["?"]},
}


def coded_table(n=4000, seed=0):
    """Survey answers: 98 and 99 for a number of children not given (4 % and 2 %),
    -9 for a wage not given (5 %), and empty cells as well; "?" for a sex not given."""
    rng = np.random.default_rng(seed)
    kids = rng.poisson(1.5, n).astype(np.int64)
    kids[rng.random(n) < 0.04] = 98
    kids[rng.random(n) < 0.02] = 99
    wage = np.round(rng.gamma(4.0, 5.0, n), 2)
    wage[rng.random(n) < 0.05] = -9
    wage[rng.random(n) < 0.02] = np.nan
    sex = rng.choice(["F", "M", "?"], n, p=[0.48, 0.48, 0.04])
    return pd.DataFrame({"kids": kids, "wage": wage, "sex": sex})


def test_missing_codes_are_missing_values_wherever_the_column_is_read():
    real = coded_table()
    domain = Domain(CODED)
    coded = real["kids"].isin([98, 99])
    np.testing.assert_array_equal(kind_of(domain["kids"]).codes(real["kids"]) == 21, coded)
    enc = BooleanEncoder(categories=CODED, encoding="ordinal", random_state=0).fit(real)
    codes = enc.transform(real)
    np.testing.assert_array_equal(codes[:, 0] == 21, coded)  # the missing level
    back = enc.inverse_transform(codes)
    assert back["kids"].dtype == "Int64" and back["kids"].isna().sum() == coded.sum()
    assert back["kids"].max() <= 20 and back["wage"].min() >= 0
    missing_wage = real["wage"].isna() | (real["wage"] == -9)
    np.testing.assert_array_equal(back["wage"].isna(), missing_wage)
    # Read in chunks: the same codes are missing, the same bins released.
    chunks = Chunks(lambda: (real.iloc[i : i + 1500] for i in range(0, len(real), 1500)))
    by_chunks = BooleanEncoder(categories=CODED, encoding="ordinal", random_state=0).fit(chunks)
    assert by_chunks.domain_ == enc.domain_
    np.testing.assert_array_equal(by_chunks.transform(real), codes)
    assert enc.domain_.missing_codes("wage") == (-9,)  # kept by the released bins


def test_private_pipeline_gives_coded_answers_their_missing_rate():
    real = coded_table(8000, seed=1)
    out = seeded_synthetic(real, CODED, 20.0)
    assert not out["kids"].isin([98, 99]).any() and out["kids"].max() <= 20
    assert not (out["wage"] == -9).any() and out["wage"].min() >= 0
    assert not (out["sex"] == "?").any()
    for column, codes in (("kids", [98, 99]), ("wage", [-9]), ("sex", ["?"])):
        rate = (real[column].isna() | real[column].isin(codes)).mean()
        assert abs(out[column].isna().mean() - rate) < 0.02, column
    # The mean of the answers given, not pulled towards 98.
    given = real["kids"][~real["kids"].isin([98, 99])]
    assert abs(out["kids"].mean() - given.mean()) < 0.1
    # The quality report compares them so: the codes are missing in the real table.
    from skprivsynth.report import MarginalErrorDisplay

    display = MarginalErrorDisplay.from_data(real, out, domain=CODED, random_state=0)
    rate = real["kids"].isin([98, 99]).mean()
    assert display.missing.loc["kids", "real"] == pytest.approx(rate)
    assert display.numeric_errors.loc["wage", "std_ratio"] == pytest.approx(1, abs=0.1)


def test_the_encoder_publishes_the_parts_it_models():
    domain = {
        "t": {"type": "datetime", "range": ["2024-01-01", "2024-12-31T23:00"], "resolution": "h"},
        "month": {"part_of": "t", "part": "month"},
        "date": {"part_of": "t", "part": "date"},
    }
    t = pd.Series(pd.date_range("2024-01-01", periods=50, freq="7D"))
    frame = pd.DataFrame({"t": t, "month": t.dt.month, "date": t.dt.normalize()})
    modelled = BooleanEncoder(categories=domain, datetime_parts="modelled", random_state=0)
    modelled.fit(frame)
    assert modelled.modelled_parts_ == {"month": Domain(domain)["month"]}  # not the date
    assert modelled.domain_["month"] == Levels(tuple(range(1, 13)), True, "integer")
    computed = BooleanEncoder(categories=domain, datetime_parts="computed", random_state=0)
    computed.fit(frame)
    assert computed.modelled_parts_ == {}
