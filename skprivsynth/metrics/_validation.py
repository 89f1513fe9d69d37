"""Argument checks shared by the metrics: options, counts, matrices, weights, tables."""

from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.utils import check_array

from ..domain import as_domain, value_domain
from ..validation import check_unit_interval


def _check_option(value, name, options):
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {list(options)}; got {value!r}.")


def _check_degree(degree, p):
    if isinstance(degree, bool) or not isinstance(degree, Integral | np.integer):
        raise TypeError(f"degree must be an integer in [1, {p}]; got {degree!r}.")
    if not 1 <= degree <= p:
        raise ValueError(
            f"degree must be an integer in [1, n_features={p}]; got degree={degree!r}."
        )
    return int(degree)


def _check_max_marginals(max_marginals):
    if max_marginals is None:
        return None
    if isinstance(max_marginals, bool) or not isinstance(max_marginals, Integral | np.integer):
        raise TypeError(f"max_marginals must be a positive integer or None; got {max_marginals!r}.")
    if max_marginals < 1:
        raise ValueError(
            f"max_marginals must be a positive integer or None; got {max_marginals!r}."
        )
    return int(max_marginals)


def _check_matrix(A, name):
    """Finite, 2-D, numeric, entries in [0, 1]; keeps compact dtypes (bool, uint8)."""
    A = check_array(A, dtype="numeric", ensure_all_finite=True, input_name=name)
    check_unit_interval(A, name=name)
    return A


def _check_widths(X, Y, x_name="X", y_name="Y"):
    if X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"{x_name} and {y_name} must have the same number of columns; "
            f"{x_name} has {X.shape[1]} and {y_name} has {Y.shape[1]}."
        )


def _check_weights(sample_weight, n_rows, name):
    """Return weights normalised to sum 1 (uniform when None)."""
    if sample_weight is None:
        return np.full(n_rows, 1.0 / n_rows)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim != 1 or w.shape[0] != n_rows:
        raise ValueError(
            f"{name} must be a 1-D array with one weight per row ({n_rows}); got shape {w.shape}."
        )
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"{name} must contain finite, non-negative numbers.")
    total = w.sum()
    if total <= 0:
        raise ValueError(f"{name} must not sum to zero.")
    return w / total


def _check_count(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, Integral | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}.")
    return int(value)


def _as_frame(data, name):
    if isinstance(data, pd.DataFrame):
        frame = data
    else:
        array = np.asarray(data, dtype=object) if not hasattr(data, "shape") else data
        if np.ndim(array) != 2:
            raise ValueError(
                f"{name} must be a 2-D table (DataFrame or array); got {np.ndim(array)} "
                "dimension(s)."
            )
        frame = pd.DataFrame(array)
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise ValueError(f"{name} must have at least one row and one column; got {frame.shape}.")
    if not frame.columns.is_unique:
        raise ValueError(f"{name} has duplicate column names.")
    return frame


def _as_table_pair(real_df, synth_df, real_name, synth_name):
    real = _as_frame(real_df, real_name)
    synth = _as_frame(synth_df, synth_name)
    if set(real.columns) != set(synth.columns) or real.shape[1] != synth.shape[1]:
        raise ValueError(
            f"{real_name} and {synth_name} must have the same columns; got "
            f"{list(real.columns)} and {list(synth.columns)}."
        )
    return real, synth[list(real.columns)]


def _check_target(target, frame, name):
    if target not in frame.columns:
        raise ValueError(
            f"target must be a column of {name}; got {target!r}; its columns are "
            f"{list(frame.columns)}."
        )
    if frame.shape[1] < 2:
        raise ValueError(f"{name} needs at least one column besides target={target!r}.")


def _check_noise_random_state(noise_random_state):
    if noise_random_state is None or isinstance(noise_random_state, np.random.Generator):
        return noise_random_state
    raise TypeError(
        "noise_random_state must be None (fresh entropy at every call) or a "
        "numpy.random.Generator (advanced at every call); got "
        f"{noise_random_state!r}.  A fixed seed would add the same noise to every score, "
        "and differences of scores would be exact."
    )


def _as_values_domain(domain, name):
    """``domain`` as a :class:`~skprivsynth.Domain` whose columns are all compared by
    their values: a part of a datetime column becomes the levels it can take."""
    return value_domain(as_domain(domain, name))
