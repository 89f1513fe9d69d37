import dataclasses
import json
import pickle

import numpy as np
import pandas as pd
import pytest

from skprivsynth import Domain
from skprivsynth.datasets import load_adult
from skprivsynth.domain import Bins
from skprivsynth.kinds import kind_of, parse_column

SPEC = {
    "sex": ["F", "M"],
    "age": 85,
    "color": pd.CategoricalDtype(["red", "blue"]),
    "income": {"bins": [0, 1e4, 1e6], "clip": True},
    "hours": {"bins": [0, 40, 99]},
}


def test_every_spec_form():
    domain = Domain(SPEC)
    assert domain.columns == ("sex", "age", "color", "income", "hours")
    assert domain.sizes == (2, 85, 2, 2, 2)
    assert len(domain) == 5 and list(domain) == list(domain.columns)
    assert domain["sex"] == ("F", "M")
    assert domain["age"] == range(85)
    assert domain["color"] == ("red", "blue")
    assert domain["income"] == Bins((0.0, 1e4, 1e6), clip=True)
    assert domain["hours"] == Bins((0.0, 40.0, 99.0)) and len(domain["hours"]) == 2
    assert "age" in domain and "zip" not in domain
    with pytest.raises(KeyError):
        domain["zip"]


def test_list_of_specs_names_columns_by_position():
    domain = Domain([3, ["a", "b"], {"bins": [0, 1]}])
    assert domain.columns == (0, 1, 2) and domain.sizes == (3, 2, 1)


def test_levels_are_plain_python_values():
    domain = Domain({"a": np.arange(3) + 1, "b": np.int64(4), "c": range(2, 5)})
    assert domain["a"] == (1, 2, 3) and all(type(v) is int for v in domain["a"])
    assert domain["b"] == range(4)
    assert domain["c"] == (2, 3, 4)  # a range not starting at 0 lists its levels


def test_domain_of_a_domain_and_of_its_items():
    domain = Domain(SPEC)
    assert Domain(domain) == domain
    assert Domain(dict(domain)) == domain  # specs read back: range, tuple, Bins


def test_adult_domain_is_accepted():
    adult = load_adult()
    domain = Domain(adult.domain)
    assert domain.columns == tuple(adult.feature_names)
    assert domain.sizes == tuple(adult.domain.values())
    assert domain.to_dict() == adult.domain


def test_project():
    domain = Domain(SPEC)
    assert domain.project(["hours", "sex"]) == Domain({"hours": SPEC["hours"], "sex": ["F", "M"]})
    assert domain.project("age").columns == ("age",)
    with pytest.raises(ValueError, match=r"columns \['zip'\] are not in the domain"):
        domain.project(["age", "zip"])


def test_equality_and_hash():
    a, b = Domain(SPEC), Domain(dict(SPEC))
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != Domain({k: SPEC[k] for k in reversed(SPEC)})  # order matters
    assert Domain({"a": 3}) != Domain({"a": [0, 1, 2]})  # integer codes vs listed levels
    assert Domain({"a": {"bins": [0, 1]}}) != Domain({"a": {"bins": [0, 1], "clip": True}})
    assert a != a.to_dict()


def test_immutable():
    domain = Domain(SPEC)
    with pytest.raises(dataclasses.FrozenInstanceError):
        domain._specs = ()
    with pytest.raises(TypeError):
        domain["age"] = 3
    with pytest.raises(dataclasses.FrozenInstanceError):
        domain["income"].clip = False
    assert pickle.loads(pickle.dumps(domain)) == domain


def test_to_dict_and_json_round_trip(tmp_path):
    domain = Domain(SPEC)
    spec = domain.to_dict()
    assert spec == {
        "sex": ["F", "M"],
        "age": 85,
        "color": ["red", "blue"],
        "income": {"bins": [0.0, 1e4, 1e6], "clip": True},
        "hours": {"bins": [0.0, 40.0, 99.0]},
    }
    assert Domain(spec) == domain
    path = tmp_path / "domain.json"
    path.write_text(json.dumps(spec))
    assert Domain.from_json(path) == domain
    assert Domain.from_json(str(path)) == domain


def test_repr_rebuilds_the_domain():
    domain = Domain(SPEC)
    assert repr(domain).startswith("Domain({'sex': ['F', 'M'], 'age': 85,")
    assert eval(repr(domain)) == domain


@pytest.mark.parametrize(
    ("spec", "error", "match"),
    [
        ({"a": -1}, ValueError, r"domain\['a'\] must be a positive number of integer codes"),
        ({"a": 0}, ValueError, r"domain\['a'\] must be a positive number"),
        ({"a": True}, TypeError, r"domain\['a'\] must be an int K .* got True"),
        ({"a": None}, TypeError, r"domain\['a'\] must be an int K .*'bins'.* got None"),
        ({"a": "abc"}, TypeError, r"domain\['a'\] must be an int K .* got 'abc'"),
        ({"a": {1, 2}}, TypeError, r"domain\['a'\] must be .* got \{1, 2\}"),
        ({"a": 2.5}, TypeError, r"domain\['a'\] must be .* got 2\.5"),
        ({"a": []}, ValueError, r"domain\['a'\] must list at least one level"),
        ({"a": [0, 1, 1]}, ValueError, r"domain\['a'\] lists a level twice"),
        ({"a": [0, None]}, ValueError, r"domain\['a'\] must not contain missing"),
        ({"a": [[0], [1]]}, TypeError, r"domain\['a'\] must list hashable levels"),
        ({"a": {"bins": [0, 2, 1]}}, ValueError, r"\['bins'\] must be finite and strictly"),
        ({"a": {"bins": [0, np.inf]}}, ValueError, r"\['bins'\] must be finite"),
        ({"a": {"bins": [0]}}, ValueError, r"domain\['a'\]\['bins'\] needs at least 2"),
        ({"a": {"bins": ["x", "y"]}}, TypeError, r"\['bins'\] must be a list of numbers"),
        ({"a": {"bins": [0, 1], "clip": "yes"}}, TypeError, r"\['clip'\] must be a bool"),
        ({"a": {"edges": [0, 1]}}, ValueError, r"domain\['a'\] given as a dict must be"),
        ({"a": Bins((1.0, 0.0))}, ValueError, r"domain\['a'\]\['bins'\] must be .*increasing"),
        (5, TypeError, r"domain must be a dict column -> spec, a list of specs or a Domain"),
        ("domain.json", TypeError, r"domain must be a dict"),
    ],
)
def test_bad_specs_raise_naming_the_column(spec, error, match):
    with pytest.raises(error, match=match):
        Domain(spec)


def test_bad_json_files_name_the_file(tmp_path):
    path = tmp_path / "domain.json"
    path.write_text("[2, 3]")
    with pytest.raises(ValueError, match=r"domain\.json' must hold a JSON object"):
        Domain.from_json(path)
    path.write_text('{"age": 85,}')
    with pytest.raises(ValueError, match=r"domain\.json' is not valid JSON"):
        Domain.from_json(path)
    path.write_text('{"age": -1}')
    with pytest.raises(ValueError, match=r"domain\.json': domain\['age'\] must be a positive"):
        Domain.from_json(path)
    with pytest.raises(FileNotFoundError):
        Domain.from_json(tmp_path / "missing.json")


def test_marginal_metrics_bin_numeric_columns_by_the_domain():
    from skprivsynth.metrics import categorical_marginal_errors

    rng = np.random.default_rng(0)
    real = pd.DataFrame({"x": rng.uniform(0, 10, 400), "c": rng.choice(["a", "b"], 400)})
    synth = pd.DataFrame({"x": rng.uniform(0, 12, 300), "c": rng.choice(["a", "b"], 300)})
    domain = Domain({"x": {"bins": [0, 2.5, 5, 10], "clip": True}, "c": ["a", "b"]})
    binned = {"x": 3, "c": ["a", "b"]}

    def codes(frame):
        return frame.assign(x=np.digitize(frame["x"].clip(0, 10), [2.5, 5, 10.0001]))

    for degree in (1, 2):
        with_bins = categorical_marginal_errors(real, synth, degree, domain=domain)
        expected = categorical_marginal_errors(codes(real), codes(synth), degree, domain=binned)
        np.testing.assert_allclose(with_bins.errors, expected.errors, atol=1e-12)
    with pytest.raises(ValueError, match=r"column 'x' of synth_df has value 1\d\.\d+ outside"):
        categorical_marginal_errors(real, synth, domain={"x": {"bins": [0, 10]}, "c": 2})
    with pytest.raises(TypeError, match=r"domain\['c'\] must be an int K"):
        categorical_marginal_errors(real, synth, domain={"x": {"bins": [0, 10]}, "c": "ab"})


#: One spec of every form and kind, as a user writes it.
EVERY_FORM = {
    "codes": 4,
    "levels": ["a", "b"],
    "ordered": {"levels": ["low", "high"], "ordered": True, "missing": ["?"]},
    "flag": {"type": "boolean", "missing": True},
    "small": {"type": "integer", "range": [1, 12], "missing": [98, 99]},
    "wide": {"type": "integer", "range": [0, 1000]},
    "integer bins": {"type": "integer", "bins": [0, 10, 100], "clip": True},
    "float range": {"type": "float", "range": [0.0, 5.0], "decimals": 1},
    "float bins": {"bins": [0.0, 0.5, 1.0], "missing": True},
    "t": {"type": "datetime", "range": ["2024-01-01", "2024-12-31"], "resolution": "D"},
    "t bins": {
        "type": "datetime",
        "bins": ["2024-01-01", "2024-07-01", "2025-01-01"],
        "resolution": "h",
    },
    "month": {"part_of": "t", "part": "month"},
}


@pytest.mark.parametrize("column", list(EVERY_FORM))
def test_every_kind_round_trips_its_json_form(column):
    domain = Domain(EVERY_FORM)
    kind = kind_of(domain[column])
    assert kind.to_json() == EVERY_FORM[column]
    assert parse_column(kind.to_json(), column) == domain[column]
    assert kind.name == domain.kind(column)
    if kind.size is not None:  # the labels name every code
        assert len(kind.labels()) == kind.size == len(domain[column])


@pytest.mark.parametrize(
    ("column", "values", "codes"),
    [
        ("codes", ["3", 2.0, 7, None], [3, 2, -1, -1]),  # CSV text "3" is code 3
        ("ordered", ["high", "?", None, "mid"], [1, 2, 2, -1]),
        ("small", [1, 12.7, 98, None, 13], [0, 11, 12, 12, -1]),  # 12.7 is 12
        ("float bins", [0.25, 1.0, None, 2.0], [0, 1, 2, -1]),
        ("t bins", ["2024-03-01", pd.Timestamp("2024-12-31"), "2026-01-01"], [0, 1, -1]),
    ],
)
def test_a_kind_codes_values_of_every_dtype(column, values, codes):
    kind = kind_of(Domain(EVERY_FORM)[column])
    np.testing.assert_array_equal(kind.codes(pd.Series(values, dtype=object)), codes)
