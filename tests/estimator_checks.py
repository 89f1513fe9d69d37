"""sklearn common checks that cannot apply to estimators with a restricted input domain:
the one place of the expected failures of ``tests/test_sklearn_checks.py``.

sklearn's checks fit estimators on random normal floats (some negative).  A synthesizer
that accepts only Boolean {0, 1} data (or only [0, 1] data) must reject those inputs, so
the checks below fail by design; ``parametrize_with_checks(...,
expected_failed_checks=...)`` lists them, each with its reason.  Strict rejection itself
is tested in each estimator's own tests.
"""

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
