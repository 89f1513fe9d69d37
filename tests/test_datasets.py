"""Tests of skprivsynth.datasets: the bundled Adult data."""

import json
from importlib import resources

import numpy as np

from skprivsynth.datasets import load_adult


def test_shape_columns_and_dtypes(adult):
    assert adult.data.shape == (48842, 14)
    assert list(adult.data.columns) == list(adult.domain) == adult.feature_names
    assert (adult.data.dtypes == np.int64).all()
    assert adult.frame is adult.data
    assert adult.data.index.equals(adult.data.index.__class__(range(48842)))


def test_domain_codes_in_range(adult):
    assert sum(adult.domain.values()) == 588
    assert adult.domain["sex"] == 2 and adult.domain["income>50K"] == 2
    for column, k in adult.domain.items():
        values = adult.data[column].to_numpy()
        assert values.min() >= 0 and values.max() < k, column
    # Binary columns use both codes; the income rate is the well-known ~24 %.
    assert 0.2 < adult.data["income>50K"].mean() < 0.28


def test_as_frame_false(adult):
    arr = load_adult(as_frame=False)
    assert arr.frame is None
    assert isinstance(arr.data, np.ndarray) and arr.data.dtype == np.int64
    np.testing.assert_array_equal(arr.data, adult.data.to_numpy())


def test_domain_file_matches_and_is_a_copy(adult):
    package = resources.files("skprivsynth") / "data"
    on_disk = json.loads((package / "adult-domain.json").read_text())
    assert on_disk == adult.domain
    load_adult().domain["age"] = -1  # mutating one result must not leak into the next
    assert load_adult().domain["age"] == 85


def test_attribution_text_in_package_data(adult):
    text = (resources.files("skprivsynth") / "data" / "ADULT_ATTRIBUTION.txt").read_text()
    for needle in ("UCI", "CC BY 4.0", "private-pgm", "Apache-2.0", "Becker", "Kohavi"):
        assert needle in text, needle
    assert "CC BY 4.0" in adult.DESCR and "private-pgm" in adult.DESCR
