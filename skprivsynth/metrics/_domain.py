"""The evaluation domain: the levels and bins in which a synthetic table is compared
with the real one (:func:`evaluation_domain`), and the column kinds it reads."""

import warnings

from ..domain import Domain
from ..kinds import evaluation_spec, kind_of
from ._validation import _as_frame, _as_values_domain, _check_count


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
        else:  # undeclared, or a range whose bins are chosen at fit
            also = synth[column] if synth is not None and column in synth.columns else None
            numbers = True if column in declared else None
            if numbers:  # a declared datetime read as ISO text: its timestamps
                typed = kind_of(declared[column]).typed
                values, also = typed(values), None if also is None else typed(also)
            specs[column], was_binned = evaluation_spec(values, n_bins, max_levels, also, numbers)
            if was_binned:
                binned.append(column)
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
