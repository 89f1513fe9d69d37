"""The synthesizers under test and what the tests need of each: the one place of their
test parameters and of the expected failures of ``tests/test_sklearn_checks.py``.

The synthesizers are those of :func:`~skprivsynth.synthesizers.all_synthesizers` (the
package's and the test-only one that ``tests/conftest.py`` registers); a synthesizer
missing from a dict below is tested with its defaults.

sklearn's checks fit estimators on random normal floats (some negative).  A synthesizer
that accepts only Boolean {0, 1} data (or only [0, 1] data, or integer codes) must
reject those inputs, so the checks below fail by design; ``parametrize_with_checks(...,
expected_failed_checks=...)`` lists them, each with its reason, from the synthesizer's
declared input (:class:`~skprivsynth.base.SynthesizerTags`).  Strict rejection itself
is tested in each estimator's own tests.
"""

from skprivsynth.base import BaseSynthesizer, get_synthesizer_tags
from skprivsynth.synthesizers import all_synthesizers

#: Small-test parameters by class name (common, replay and fuzz tests): fits of a few
#: hundred Boolean rows of five columns in well under a second.
TEST_PARAMS = {
    "CorrelatedGaussianMechanism": {"epsilon": 1.0, "delta": 1e-6},
    "MarginalSynthesizer": {"epsilon": 2.0, "domain": [2] * 5},  # Boolean columns as codes
    "MicroaggregationSynthesizer": {"k": 5},
    "NoisyMicroaggregation": {"epsilon": 2.0},
    "PrivateSampler": {"epsilon": None, "n_samples": 12, "m": 64},
    "ReducedSpaceLP": {"epsilon": 2.0, "m": 128},
}
#: Changes for the fuzz tests (at most 8 rows, 4 columns; the trivial matrix has 2).
FUZZ_PARAMS = {
    "MarginalSynthesizer": {"epsilon": 1.0, "domain": [2, 2]},
    "MicroaggregationSynthesizer": {"k": 2},
    "NoisyMicroaggregation": {"epsilon": 1.0},
    "PrivateSampler": {"n_samples": 3, "m": 16, "degree": 1},
    "ReducedSpaceLP": {"epsilon": 1.0, "degree": 1, "m": 16},
}
#: Instances for scikit-learn's checks, which fit 1 row or 1 feature of real values:
#: lenient configurations (microaggregation without rounding accepts any real data).
SKLEARN_CHECK_PARAMS = {
    "CorrelatedGaussianMechanism": [{"random_state": 0}],
    "MarginalSynthesizer": [{"epsilon": 1.0, "random_state": 0}],
    "MicroaggregationSynthesizer": [
        {"k": 1, "rounding": False},
        {"k": 2, "rounding": False, "t": 1},
    ],
    "NoisyMicroaggregation": [{"random_state": 0}],
    "PrivateSampler": [{"m": 200, "random_state": 0}],
    "ReducedSpaceLP": [{"epsilon": 1.0, "m": 50, "random_state": 0}],
}
#: Synthesizers that group rows within each chunk: the in-memory fit is the one-chunk fit.
PARTITIONED = {"MicroaggregationSynthesizer"}


def synthesizers(params=None):
    """One instance of every synthesizer, with ``TEST_PARAMS`` updated by ``params``."""
    return [
        cls(**{**TEST_PARAMS.get(name, {}), **(params or {}).get(name, {})})
        for name, cls in all_synthesizers()
    ]


def sklearn_check_instances():
    """The instances of every synthesizer for scikit-learn's checks."""
    return [
        cls(**params)
        for name, cls in all_synthesizers()
        for params in SKLEARN_CHECK_PARAMS.get(name, [{"random_state": 0}])
    ]


def width_params(estimator, p):
    """Parameters that declare a width-``p`` input (the domain of code synthesizers)."""
    return {"domain": [2] * p} if get_synthesizer_tags(estimator).code_domain else {}


def ids(estimators):
    return [type(est).__name__ for est in estimators]


_UNIT_INTERVAL_ONLY = [
    "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self",
    "check_readonly_memmap_input",
    "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit",
    "check_estimators_dtypes",
    "check_pipeline_consistency",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_fit2d_1sample",
    "check_fit2d_1feature",
    "check_dict_unchanged",
    "check_fit_idempotent",
    "check_fit_check_is_fitted",
    "check_n_features_in",
    "check_fit2d_predict1d",
]
# Boolean-only estimators also reject the checks' fractional and object-dtype inputs.
_BOOLEAN_ONLY = _UNIT_INTERVAL_ONLY + [
    "check_fit_score_takes_y",
    "check_dtype_object",
    "check_estimators_nan_inf",
]

BOOLEAN_ONLY_FAILED_CHECKS = {
    name: "feeds non-binary floats; the estimator accepts Boolean {0,1} data only"
    for name in _BOOLEAN_ONLY
}
UNIT_INTERVAL_FAILED_CHECKS = {
    name: "feeds floats outside [0, 1]; the estimator accepts data in [0, 1]^p only"
    for name in _UNIT_INTERVAL_ONLY
}
INTEGER_CODES_FAILED_CHECKS = {
    name: "feeds non-integer floats; the estimator accepts integer codes of a domain only"
    for name in _BOOLEAN_ONLY
}


def expected_failed_checks(estimator):
    """The sklearn checks that ``estimator`` fails by design, from its declared input."""
    if not isinstance(estimator, BaseSynthesizer):
        return {}
    tags = get_synthesizer_tags(estimator)
    if tags.code_domain:
        return INTEGER_CODES_FAILED_CHECKS
    return {
        "boolean": BOOLEAN_ONLY_FAILED_CHECKS,
        "unit": UNIT_INTERVAL_FAILED_CHECKS,
    }.get(tags.input_kind, {})
