"""Relations between columns declared in the domain: a sum of columns, a column at
least or at most another, kept exactly on every synthetic row."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from skprivsynth import Domain, MarginalSynthesizer, make_private_pipeline, read_csv
from skprivsynth.cli import main
from skprivsynth.domain import Bound, Sum, coded_domain, relation_gaps
from skprivsynth.preprocessing import BooleanEncoder

SPEC = {
    "admitted": {"type": "datetime", "range": ["2024-01-01", "2024-12-31"], "resolution": "D"},
    "discharged": {
        "type": "datetime",
        "range": ["2024-01-01", "2025-03-31"],
        "resolution": "D",
        "at_least": "admitted",
    },
    "month": {"part_of": "discharged", "part": "month"},
    "care": {"type": "float", "range": [0, 5000], "decimals": 2},
    "drugs": {"type": "integer", "range": [0, 3000]},
    "total": {"type": "float", "range": [0, 8000], "decimals": 2, "sum_of": ["care", "drugs"]},
    "paid": {"type": "float", "range": [0, 8000], "decimals": 2, "at_most": "total"},
    "ward": ["a", "b", "c"],
}


def table(n=1500, seed=0):
    """A table that keeps every relation of ``SPEC``, with a stay and a paid share
    that depend on the ward."""
    rng = np.random.default_rng(seed)
    ward = rng.choice(["a", "b", "c"], n)
    admitted = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 366, n), unit="D")
    stay = rng.poisson(np.where(ward == "c", 9, 2))
    discharged = admitted + pd.to_timedelta(stay, unit="D")
    care = np.round(rng.gamma(2.0, 400.0, n).clip(0, 5000), 2)
    drugs = rng.integers(0, 3001, n)
    total = np.round(care + drugs, 2)
    paid = np.round(total * np.where(ward == "a", 1.0, rng.beta(4, 2, n)), 2)
    return pd.DataFrame(
        {
            "admitted": admitted,
            "discharged": discharged,
            "month": discharged.month,
            "care": care,
            "drugs": drugs,
            "total": total,
            "paid": paid,
            "ward": ward,
        }
    )


def kept(frame):
    """Share of rows keeping each relation of ``SPEC`` (and the part)."""
    total = frame["care"] + frame["drugs"]
    return (
        float((frame["discharged"] >= frame["admitted"]).mean()),
        float((np.abs(frame["total"] - total) <= 1e-9 * np.maximum(1, total)).mean()),
        float((frame["paid"] <= frame["total"]).mean()),
        float((frame["month"] == frame["discharged"].dt.month).mean()),
    )


def synthesize(frame, spec=SPEC, seed=0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # seeded releases, for tests only
        pipe = make_private_pipeline(
            MarginalSynthesizer(epsilon=1.0, random_state=seed), Domain(spec), random_state=seed
        )
        return pipe.fit(frame).sample(len(frame), random_state=seed)


# ------------------------------------------------------------------ the declaration
def test_relations_round_trip_through_json(tmp_path):
    domain = Domain(SPEC)
    assert domain.relations == {
        "discharged": Bound("admitted", "at_least"),
        "total": Sum(("care", "drugs")),
        "paid": Bound("total", "at_most"),
    }
    assert domain.to_dict()["total"]["sum_of"] == ["care", "drugs"]
    assert domain.to_dict()["paid"]["at_most"] == "total"
    path = tmp_path / "domain.json"
    path.write_text(json.dumps(domain.to_dict()))
    assert Domain.from_json(path) == domain
    assert Domain(domain.to_dict()) == domain
    # The relation is part of the domain: the same ranges without it are another one.
    plain = {c: {k: v for k, v in s.items() if k not in ("at_least", "at_most", "sum_of")}
             if isinstance(s, dict) else s for c, s in SPEC.items()}  # fmt: skip
    assert Domain(plain) != domain and Domain(plain).relations == {}
    # Kinds are those of the column's own values.
    assert domain.kind("discharged") == "datetime" and domain.kind("total") == "float"


def test_a_projection_keeps_the_relations_it_can_read():
    domain = Domain(SPEC)
    assert domain.project(["care", "drugs", "total"]).relations == {"total": Sum(("care", "drugs"))}
    assert domain.project(["care", "total"]).relations == {}  # a part left out
    assert list(domain.project(["admitted", "discharged"]).relations) == ["discharged"]


def test_the_gap_range_follows_from_the_declared_ranges_only():
    coded = coded_domain(Domain(SPEC))
    assert "total" not in coded  # computed, never coded
    # discharged - admitted: at most 2025-03-31 - 2024-01-01 = 455 days, in days.
    assert coded.to_dict()["discharged"] == {"type": "integer", "range": [0, 455]}
    # total - paid: at most the top of total's range less the bottom of paid's.
    assert coded.to_dict()["paid"] == {"type": "float", "range": [0.0, 8000.0], "decimals": 2}


@pytest.mark.parametrize(
    "change, message",
    [
        (
            {"discharged": {**SPEC["discharged"], "at_least": "arrived"}},
            r"'arrived'.*those columns",
        ),
        ({"total": {**SPEC["total"], "sum_of": ["care", "tips"]}}, r"'tips'"),
        ({"care": {**SPEC["care"], "at_least": "care"}}, r"other columns.*got 'care'"),
        (
            {"drugs": {"type": "integer", "range": [0, 3000], "at_least": "care"}},
            r"same kind \(integer\); got 'care' of kind 'float'",
        ),
        (
            {"discharged": {**SPEC["discharged"], "resolution": "h"}},
            r"same kind \(datetime at resolution 'h'\).*resolution 'D'",
        ),
        (
            {"ward": {"levels": ["a", "b"], "at_least": "care"}},
            r"'type' 'integer', 'float' or 'datetime'",
        ),
        (
            {"total": {**SPEC["total"], "range": [0, 7000]}},
            r"\[0, 8000\].*outside its range \[0, 7000\]",
        ),
        (
            {"total": {**SPEC["total"], "sum_of": ["care", "admitted"]}},
            r"parts of a float sum must be integer or float columns; got 'admitted'",
        ),
        (
            {"total": {"type": "integer", "range": [0, 8000], "sum_of": ["care", "drugs"]}},
            r"parts of an integer sum must be integer columns; got 'care'",
        ),
        (
            {"discharged": {**SPEC["discharged"], "range": ["2024-01-01", "2024-06-30"]}},
            r"upper bound of 'admitted'.*must be at most the column's",
        ),
        (
            {"paid": {**SPEC["paid"], "range": [10, 8000]}},
            r"lower bound of 'total'.*must be at least the column's",
        ),
        ({"care": {**SPEC["care"], "missing": True}}, r"missing exactly where one of its parts is"),
        ({"paid": {**SPEC["paid"], "at_least": "care"}}, r"at most one relation"),
        ({"month": {**SPEC["month"], "sum_of": ["care"]}}, r"not on a part of a datetime"),
        ({"total": {**SPEC["total"], "sum_of": "care"}}, r"'sum_of'\] must be a list"),
        ({"paid": {**SPEC["paid"], "at_most": "month"}}, r"not parts of a datetime"),
    ],
)
def test_a_relation_that_cannot_hold_is_refused_at_construction(change, message):
    with pytest.raises((ValueError, TypeError), match=message):
        Domain({**SPEC, **change})


def test_a_cycle_of_relations_is_refused_naming_its_columns():
    spec = {
        "a": {"type": "integer", "range": [0, 10], "at_least": "b"},
        "b": {"type": "integer", "range": [0, 10], "at_least": "c"},
        "c": {"type": "integer", "range": [0, 10], "at_least": "a"},
    }
    with pytest.raises(ValueError, match=r"\['a', 'b', 'c', 'a'\] form a cycle"):
        Domain(spec)


def test_a_column_missing_where_its_bound_is_declares_missing_too():
    spec = {
        "start": {"type": "integer", "range": [0, 10], "missing": True},
        "end": {"type": "integer", "range": [0, 20], "at_least": "start"},
    }
    with pytest.raises(ValueError, match=r"'end'.*missing.*as 'start' does"):
        Domain(spec)
    spec["end"]["missing"] = True
    frame = pd.DataFrame(
        {"start": [1.0, np.nan, 4.0, 2.0] * 100, "end": [3.0, 5.0, np.nan, 2.0] * 100}
    )
    out = synthesize(frame, spec)
    known = out.dropna()
    assert len(known) > 0 and (known["end"] >= known["start"]).all()
    assert out.loc[out["start"].isna(), "end"].isna().all()  # missing where its bound is


# ------------------------------------------------------------------ synthetic rows
@pytest.mark.parametrize("seed", [0, 1])
def test_every_synthetic_row_keeps_the_declared_relations(seed):
    real = table(seed=seed)
    out = synthesize(real, seed=seed)
    assert kept(out) == (1.0, 1.0, 1.0, 1.0)
    assert out["discharged"].between(pd.Timestamp("2024-01-01"), pd.Timestamp("2025-03-31")).all()
    assert out["paid"].between(0, 8000).all() and out["total"].between(0, 8000).all()
    # The same ranges without the relations do not keep them (what this is for).
    plain = Domain({c: Domain(SPEC)[c] for c in SPEC})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        free = make_private_pipeline(
            MarginalSynthesizer(epsilon=1.0, random_state=seed), plain, random_state=seed
        )
        free = free.fit(real).sample(len(real), random_state=seed)
    assert kept(free)[0] < 0.9 and kept(free)[1] < 0.1 and kept(free)[2] < 0.9


def test_the_gap_is_modelled_so_its_distribution_is_kept():
    """The stay (discharged - admitted) depends on the ward: a model of the gap keeps
    its mean and its dependence, which independent dates would not."""
    real = table(n=4000)
    out = synthesize(real)
    stay = lambda f: (f["discharged"] - f["admitted"]).dt.days  # noqa: E731
    assert abs(stay(out).mean() - stay(real).mean()) < 1.0
    by_ward = stay(out).groupby(out["ward"]).mean()
    assert by_ward["c"] - by_ward["a"] > 4  # 9 against 2 days in the real data


def test_real_rows_that_break_a_relation_are_clipped_not_refused():
    """No data-dependent error on the private path: a real discharge before its
    admission reads as a gap of 0, a paid above the total as paid = total."""
    real = table()
    broken = real.index[::5]
    real.loc[broken, "discharged"] = real.loc[broken, "admitted"] - pd.Timedelta(days=3)
    real.loc[broken, "paid"] = real.loc[broken, "total"] + 50
    real["month"] = real["discharged"].dt.month
    gaps = relation_gaps(real, Domain(SPEC).relations)
    assert (gaps.loc[broken, "discharged"] == 0).all() and (gaps.loc[broken, "paid"] == 0).all()
    assert (gaps["discharged"] >= 0).all() and (gaps["paid"] <= 8000).all()
    out = synthesize(real)
    assert kept(out) == (1.0, 1.0, 1.0, 1.0)


def test_a_sum_is_never_read_from_the_real_data():
    real = table()
    nonsense = real.assign(total=-1e9)  # outside its range: never read, never refused
    assert synthesize(nonsense).equals(synthesize(real))


def test_the_encoder_decodes_its_own_codes_to_rows_that_keep_the_relations():
    real = table()
    encoder = BooleanEncoder(categories=Domain(SPEC), encoding="ordinal", binning_epsilon=1.0,
                             random_state=0).fit(real)  # fmt: skip
    assert "total" not in encoder.get_feature_names_out()  # computed: no code
    # A part of a bounded datetime is computed from it (its codes are a gap's).
    assert "month" not in encoder.modelled_parts_ and encoder.n_codes_[2] == 0
    back = encoder.inverse_transform(encoder.transform(real))
    assert kept(back) == (1.0, 1.0, 1.0, 1.0)
    # The stay is coded in bins of its gap: it comes back inside its bin.
    stay = (back["discharged"] - back["admitted"]).dt.days
    assert np.abs(stay - (real["discharged"] - real["admitted"]).dt.days).mean() < 1.0
    assert back["total"].dtype == np.float64 and back["discharged"].dtype.kind == "M"


def test_the_command_line_writes_rows_that_keep_the_relations(tmp_path, capsys):
    real = table()
    real.to_csv(tmp_path / "real.csv", index=False)
    (tmp_path / "domain.json").write_text(json.dumps(SPEC))
    argv = ["synthesize", str(tmp_path / "real.csv"), "-o", str(tmp_path / "out.csv"),
            "--domain", str(tmp_path / "domain.json"), "--seed", "0"]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0
    out = read_csv(tmp_path / "out.csv", Domain.from_json(tmp_path / "domain.json"))
    assert len(out) == len(real) and kept(out) == (1.0, 1.0, 1.0, 1.0)
