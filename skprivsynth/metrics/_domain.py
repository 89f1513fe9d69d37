"""The evaluation domain: the levels and bins in which a synthetic table is compared
with the real one (:func:`evaluation_domain`), and the column kinds it reads."""

import warnings

import numpy as np
import pandas as pd

from ..domain import Bins, Domain, Range
from ._validation import _as_frame, _as_values_domain, _check_count


def _as_numbers(values):
    """A numeric column as float64: datetimes in seconds since the epoch (whatever
    their unit), text such as the CSV's "3" as 3; missing values NaN."""
    if pd.api.types.is_datetime64_any_dtype(values):
        seconds = (values - pd.Timestamp(0, tz=getattr(values.dt, "tz", None))) / pd.Timedelta(
            1, "s"
        )
        return seconds.to_numpy(np.float64, na_value=np.nan)
    return pd.to_numeric(values, errors="coerce").to_numpy(np.float64, na_value=np.nan)


def _is_numeric(values):
    """Numbers, also in an object column (e.g. a DataFrame built from a mixed array)."""
    if pd.api.types.is_bool_dtype(values):
        return False
    if pd.api.types.is_numeric_dtype(values):
        return True
    kind = pd.api.types.infer_dtype(values, skipna=False)
    return kind in ("integer", "floating", "mixed-integer-float", "decimal")


def _is_numeric_or_datetime(values):
    return _is_numeric(values) or pd.api.types.is_datetime64_any_dtype(values)


def observed_levels(values):
    """The distinct values of a column, sorted when they can be compared.

    The levels :func:`evaluation_domain` gives an undeclared column it does not bin.
    Public so that a domain drafted from a table elsewhere (the ``skprivsynth domain``
    command) reads levels by the same rule.

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
    >>> from skprivsynth.metrics import observed_levels
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


def _quantile_bins(values, n_bins):
    """Bins at the ``n_bins``-quantiles of ``values``, edges rounded to the fewest
    significant digits that keep them distinct; values beyond fall in the end bins.

    A value holding more than one quantile (a point mass, such as the zeros of an
    income column) gets a bin of its own: an edge is added at the next larger value.
    """
    quantiles = np.quantile(values, np.linspace(0.0, 1.0, n_bins + 1))
    raw, counts = np.unique(quantiles, return_counts=True)
    distinct = np.unique(values)
    after = np.searchsorted(distinct, raw[counts > 1], side="right")
    raw = np.union1d(raw, distinct[after[after < distinct.size]])
    for digits in range(2, 17):
        edges = np.unique([float(f"{edge:.{digits}g}") for edge in raw])
        if edges.size == raw.size:  # rounding is monotone: distinct means increasing
            break
    return Bins(tuple(edges.tolist()), clip=True)


def evaluation_domain(real_df, synth_df=None, domain=None, *, max_levels=20, n_bins=10):
    """The domain in which a synthetic table is compared with the real one.

    Declared columns keep their declared levels or bins.  An undeclared column is
    read from the data: a numeric column with more than ``max_levels`` distinct
    real values is cut into ``n_bins`` bins at quantiles of the **real** column
    (edges rounded to the fewest significant digits that keep them distinct, values
    beyond them in the end bins; datetimes in seconds since the epoch), with a
    warning; any other column has the levels observed in either table.  So a float
    column is never compared value by value, where almost every synthetic value is a
    category of its own.  Missing values are not part of the domain: the comparisons
    count them as one more level of their column.

    The bin edges of undeclared numeric columns are computed from the real data:
    like every comparison with real data, an evaluation is not a differentially
    private release.  Declare ``{"bins": [...]}`` for such columns to choose them.

    Parameters
    ----------
    real_df : pandas.DataFrame or 2-D array-like
        Real table; its columns, in order, are the columns of the result.
    synth_df : pandas.DataFrame or 2-D array-like, optional
        Synthetic table with the same columns; its values add to the observed levels.
    domain : dict or Domain, optional
        Declared domain of some or all columns (forms of :class:`~skprivsynth.Domain`);
        entries for other columns are ignored.
    max_levels : int, default=20
        Largest number of distinct real values a numeric undeclared column may have
        and still be compared level by level.
    n_bins : int, default=10
        Number of quantile bins (deciles by default) of the other numeric columns;
        fewer when quantiles coincide.

    Returns
    -------
    Domain
        Every column of ``real_df``, in order.

    Warns
    -----
    UserWarning
        Naming the undeclared numeric columns binned at quantiles of the real data.

    Examples
    --------
    >>> import numpy as np, pandas as pd, warnings
    >>> from skprivsynth.metrics import evaluation_domain
    >>> real = pd.DataFrame({"sex": ["F", "M"] * 50, "income": np.arange(100) * 1000.5})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     domain = evaluation_domain(real, max_levels=20, n_bins=4)
    >>> domain["sex"], domain["income"].edges
    (('F', 'M'), (0.0, 25000.0, 50000.0, 74000.0, 99000.0))
    >>> str(caught[0].message)[:60]
    "columns ['income'] are numeric with more than 20 distinct va"
    """
    real = _as_frame(real_df, "real_df")
    synth = None if synth_df is None else _as_frame(synth_df, "synth_df")
    declared = {} if domain is None else _as_values_domain(domain, "domain")
    max_levels = _check_count(max_levels, "max_levels", 1)
    n_bins = _check_count(n_bins, "n_bins", 1)
    specs, binned = {}, []
    for column in real.columns:
        values = real[column]
        if column in declared and not isinstance(declared[column], Range):
            specs[column] = declared[column]
        elif (column in declared or _is_numeric_or_datetime(values)) and (
            values.nunique() > max_levels
        ):
            numbers = _as_numbers(values)
            specs[column] = _quantile_bins(numbers[~np.isnan(numbers)], n_bins)
            binned.append(column)
        else:
            if synth is not None and column in synth.columns:
                values = pd.concat([values, synth[column]], ignore_index=True)
            specs[column] = observed_levels(values.dropna()) or [0]
    if binned:
        warnings.warn(
            f"columns {binned} are numeric with more than {max_levels} distinct values and "
            f"no declared bins: they are compared in up to {n_bins} bins at quantiles of "
            "the real data.  Those edges come from the real data; like every comparison "
            "with real data, this evaluation is not a differentially private release.  "
            "Declare {'bins': [...]} for these columns to choose the bins.",
            UserWarning,
            stacklevel=2,
        )
    return Domain(specs)


def _ranges_in_bins(domain, real, synth):
    """``domain`` with each column declared by a range only (no codes before a fit) in
    the quantile bins of :func:`evaluation_domain`."""
    ranged = [c for c, spec in domain.items() if isinstance(spec, Range)]
    if not ranged:
        return domain
    binned = evaluation_domain(real[ranged], synth[ranged], {c: domain[c] for c in ranged})
    return Domain({c: binned[c] if c in binned else spec for c, spec in domain.items()})
