"""The evaluation domain: the levels and bins in which a synthetic table is compared
with the real one (:func:`evaluation_domain`), and the column kinds it reads."""

import warnings

import numpy as np
import pandas as pd

from ..domain import Domain
from ..kinds import kind_of, observed_levels, quantile_bins
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
    inferred = pd.api.types.infer_dtype(values, skipna=False)
    return inferred in ("integer", "floating", "mixed-integer-float", "decimal")


def _is_numeric_or_datetime(values):
    return _is_numeric(values) or pd.api.types.is_datetime64_any_dtype(values)


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
        if column in declared and not kind_of(declared[column]).bins_at_fit:
            specs[column] = declared[column]
        elif (column in declared or _is_numeric_or_datetime(values)) and (
            values.nunique() > max_levels
        ):
            numbers = _as_numbers(values)
            specs[column] = quantile_bins(numbers[~np.isnan(numbers)], n_bins)
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
    ranged = [c for c, spec in domain.items() if kind_of(spec).bins_at_fit]
    if not ranged:
        return domain
    binned = evaluation_domain(real[ranged], synth[ranged], {c: domain[c] for c in ranged})
    return Domain({c: binned[c] if c in binned else spec for c, spec in domain.items()})
