"""Columns read from data: the levels and quantile bins of the learned and the
evaluation domains."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._specs import Bins


def observed_levels(values):
    """The distinct values of a column, sorted when they can be compared.

    The one rule for the levels of a column read from data: the learned domain of
    :class:`~skprivsynth.preprocessing.BooleanEncoder`, the columns
    :func:`~skprivsynth.metrics.evaluation_domain` does not bin and the draft of the
    ``skprivsynth domain`` command.

    Parameters
    ----------
    values : pandas.Series or 1-D numpy.ndarray
        The values of one column; a missing value, if any, is one of the levels.

    Returns
    -------
    list
        The distinct values, sorted, or in order of first appearance when they cannot
        be sorted (e.g. numbers and strings mixed).

    Examples
    --------
    >>> import pandas as pd
    >>> from skprivsynth.kinds import observed_levels
    >>> observed_levels(pd.Series(["b", "a", "b"]))
    ['a', 'b']
    >>> observed_levels(pd.Series(["b", 1, "b"]))
    ['b', 1]
    """
    levels = pd.unique(values)
    try:
        return sorted(levels)
    except TypeError:
        return list(levels)


def quantile_bins(values, n_bins):
    """Bins at the ``n_bins``-quantiles of ``values``, edges rounded to the fewest
    significant digits that keep them distinct; values beyond fall in the end bins.

    A value holding more than one quantile (a point mass, such as the zeros of an
    income column) gets a bin of its own: an edge is added at the next larger value.
    The one rule for bins read from data: the learned domain of
    :class:`~skprivsynth.preprocessing.BooleanEncoder` and the bins of
    :func:`~skprivsynth.metrics.evaluation_domain`.  The edges come from the values:
    not for a private release.

    Parameters
    ----------
    values : 1-D array of float
        The values, without missing ones.
    n_bins : int
        Number of quantile bins (fewer when quantiles coincide).

    Returns
    -------
    Bins

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.kinds import quantile_bins
    >>> quantile_bins(np.r_[np.zeros(8), np.arange(1, 9)], 4).edges  # zeros: a bin of their own
    (0.0, 0.5, 1.0, 4.2, 8.0)
    """
    values = np.asarray(values, dtype=np.float64)
    levels = np.linspace(0.0, 1.0, n_bins + 1)
    with np.errstate(over="ignore", invalid="ignore"):
        quantiles = np.quantile(values, levels)
    if not np.all(np.isfinite(quantiles)):  # interpolation overflowed (values near ±1e308)
        quantiles = np.quantile(values, levels, method="inverted_cdf")
    raw, counts = np.unique(quantiles, return_counts=True)
    distinct = np.unique(values)
    after = np.searchsorted(distinct, raw[counts > 1], side="right")
    raw = np.union1d(raw, distinct[after[after < distinct.size]])
    for digits in range(2, 17):
        edges = np.unique([float(f"{edge:.{digits}g}") for edge in raw])
        if edges.size == raw.size:  # rounding is monotone: distinct means increasing
            break
    if edges.size == 1:  # a constant column: one bin holding its value
        edges = np.repeat(edges, 2)
    return Bins(tuple(edges.tolist()), clip=True)


def learned_spec(values, n_bins):
    """The spec of a column learned from its (private) values, read by its dtype.

    The learned domain of :class:`~skprivsynth.preprocessing.BooleanEncoder`: a boolean
    dtype gives ``(False, True)``, fixed by the dtype (nothing is learned); a
    categorical dtype its categories; a float dtype ``n_bins`` :func:`quantile_bins`;
    any other dtype the :func:`observed_levels`.  Not for a private release.

    Parameters
    ----------
    values : pandas.Series
        The values of one column, without missing ones.
    n_bins : int
        Number of quantile bins of a float column.

    Returns
    -------
    spec : tuple or Bins
    learned : bool
        Whether the spec was read from the values (False for a boolean dtype).
    """
    dtype = values.dtype
    if pd.api.types.is_bool_dtype(dtype):
        return (False, True), False
    if isinstance(dtype, pd.CategoricalDtype):
        return tuple(dtype.categories), True
    if pd.api.types.is_float_dtype(dtype):
        return quantile_bins(values.to_numpy(dtype=np.float64), n_bins), True
    return tuple(observed_levels(values.to_numpy())), True


def reads_as_numbers(values):
    """Whether a column's values are numbers or datetimes (also numbers in an object
    column, as a DataFrame built from a mixed array has; not booleans)."""
    if pd.api.types.is_bool_dtype(values):
        return False
    if pd.api.types.is_numeric_dtype(values) or pd.api.types.is_datetime64_any_dtype(values):
        return True
    inferred = pd.api.types.infer_dtype(values, skipna=False)
    return inferred in ("integer", "floating", "mixed-integer-float", "decimal")


def evaluation_spec(values, n_bins, max_levels, also=None, numbers=None):
    """``(spec, binned)``: the evaluation domain of an undeclared column: ``n_bins``
    quantile bins of the numbers (datetimes in seconds) of a column of numbers or
    datetimes with more than ``max_levels`` distinct values, else the levels observed
    in ``values`` and ``also`` (the other table's values).  ``numbers``: whether the
    values are numbers (None: read from them; a declared range: True)."""
    numbers = reads_as_numbers(values) if numbers is None else numbers
    if numbers and values.nunique() > max_levels:
        read = as_numbers(values)
        return quantile_bins(read[~np.isnan(read)], n_bins), True
    if also is not None:
        values = pd.concat([values, also], ignore_index=True)
    return observed_levels(values.dropna()) or [0], False


def as_numbers(values):
    """A column of numbers as float64: datetimes in seconds since 1970-01-01 (whatever
    their unit or time zone), text such as a CSV's "3" as 3; missing values NaN."""
    if pd.api.types.is_datetime64_any_dtype(values):
        tz = getattr(values.dt, "tz", None)
        seconds = (values - pd.Timestamp(0, tz=tz)) / pd.Timedelta(1, "s")
        return seconds.to_numpy(np.float64, na_value=np.nan)
    return pd.to_numeric(values, errors="coerce").to_numpy(np.float64, na_value=np.nan)
