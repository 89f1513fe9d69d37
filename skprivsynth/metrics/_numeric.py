"""Column by column: the distances between the real and the synthetic distribution of
every numeric column (:func:`numeric_column_errors`) and the missing rates
(:func:`missing_rates`)."""

import numpy as np
import pandas as pd

from ..kinds import kind_of
from ._domain import _as_numbers, _is_numeric_or_datetime
from ._validation import _as_frame, _as_table_pair, _as_values_domain, _check_count

#: The real quantile above which ``tail_ratio`` counts synthetic values.
_TAIL_QUANTILE = 0.999


def distribution_columns(real_df, domain, max_levels=20):
    """The columns compared as distributions, by :func:`numeric_column_errors`.

    A column is compared as a distribution when its values are numbers or datetimes
    and it is binned in the evaluation domain (declared or quantile bins) or has more
    than ``max_levels`` distinct real values; the others are compared level by level.
    Public so that the ``skprivsynth evaluate`` command and
    :class:`~skprivsynth.report.MarginalErrorDisplay` compare the same columns.

    Parameters
    ----------
    real_df : pandas.DataFrame or 2-D array-like
        Real table.
    domain : dict or Domain
        The evaluation domain of every column of ``real_df``, as
        :func:`evaluation_domain` returns it.
    max_levels : int, default=20
        As in :func:`evaluation_domain`.

    Returns
    -------
    list
        Column labels of ``real_df``, in order.

    Examples
    --------
    >>> import numpy as np, pandas as pd, warnings
    >>> from skprivsynth.metrics import distribution_columns, evaluation_domain
    >>> real = pd.DataFrame({"sex": ["F", "M"] * 50, "income": np.arange(100.0)})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # income is binned at quantiles
    ...     domain = evaluation_domain(real)
    >>> distribution_columns(real, domain)
    ['income']
    """
    real = _as_frame(real_df, "real_df")
    eval_domain = _as_values_domain(domain, "domain")
    max_levels = _check_count(max_levels, "max_levels", 1)
    return [
        c
        for c in real.columns
        if _is_numeric_or_datetime(real[c].dropna())
        and (kind_of(eval_domain[c]).binned or real[c].nunique() > max_levels)
    ]


def _ks_statistic(a, b):
    """Two-sample Kolmogorov-Smirnov statistic ``sup_x |F_a(x) - F_b(x)|`` of two
    sorted samples (the supremum is reached at a sample value)."""
    points = np.concatenate([a, b])
    cdf_a = np.searchsorted(a, points, side="right") / a.size
    cdf_b = np.searchsorted(b, points, side="right") / b.size
    return float(np.abs(cdf_a - cdf_b).max())


def _numeric_errors(real, synth):
    """The errors of one numeric column (NaN removed, both samples sorted)."""
    from scipy.stats import wasserstein_distance

    q1, q3, tail = np.quantile(real, [0.25, 0.75, _TAIL_QUANTILE])
    scale = q3 - q1 if q3 > q1 else real.std()
    std_real, std_synth = real.std(), synth.std()
    distance = wasserstein_distance(real, synth)
    return {
        "ks": _ks_statistic(real, synth),
        "wasserstein_iqr": distance / scale if scale > 0 else (0.0 if distance == 0 else np.inf),
        "std_ratio": std_synth / std_real if std_real > 0 else (1.0 if std_synth == 0 else np.inf),
        "outside_range": float(np.mean((synth < real[0]) | (synth > real[-1]))),
        "tail_ratio": float(np.mean(synth > tail)) / (1.0 - _TAIL_QUANTILE),
    }


def numeric_column_errors(real_df, synth_df):
    """Distances between the real and the synthetic distribution of every numeric column.

    Parameters
    ----------
    real_df, synth_df : pandas.DataFrame or 2-D array-like
        Real and synthetic tables with the same columns.  The numeric columns of
        ``real_df`` (numbers, not booleans; datetimes in seconds since the epoch) are
        compared on their non-missing values; text and boolean columns are skipped.

    Returns
    -------
    pandas.DataFrame
        One row per numeric column, with the columns

        - ``ks``: the two-sample Kolmogorov-Smirnov statistic, the largest gap between
          the two empirical distribution functions (0: same distribution of values,
          1: disjoint);
        - ``wasserstein_iqr``: the Wasserstein-1 distance (the mean shift of mass to
          turn one sample into the other) divided by the real interquartile range
          (by the real standard deviation when the IQR is 0, as in a column of mostly
          zeros);
        - ``std_ratio``: synthetic standard deviation / real standard deviation;
        - ``outside_range``: share of synthetic values below the real minimum or above
          the real maximum;
        - ``tail_ratio``: share of synthetic values above the real 99.9th percentile,
          divided by 0.001 (1: the tail of the real data; above: an inflated tail);
        - ``missing_rate_error``: synthetic minus real share of missing values.

    Notes
    -----
    Like every comparison with the real data, these are exact statistics of the real
    table (its quantiles, range and spread), not a differentially private release:
    share them only with people allowed to see statistics of the real data.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from skprivsynth.metrics import numeric_column_errors
    >>> real = pd.DataFrame({"x": np.arange(1000.0), "c": ["a", "b"] * 500})
    >>> synth = pd.DataFrame({"x": np.arange(1000.0) * 2, "c": ["a"] * 1000})
    >>> numeric_column_errors(real, synth)[["ks", "std_ratio", "outside_range"]].round(2)
        ks  std_ratio  outside_range
    x  0.5        2.0            0.5
    """
    real, synth = _as_table_pair(real_df, synth_df, "real_df", "synth_df")
    rows = {}
    for column in real.columns:
        if not _is_numeric_or_datetime(real[column].dropna()):
            continue
        a, b = _as_numbers(real[column]), _as_numbers(synth[column])
        present_a, present_b = np.sort(a[~np.isnan(a)]), np.sort(b[~np.isnan(b)])
        if present_a.size and present_b.size:
            row = _numeric_errors(present_a, present_b)
        else:
            row = dict.fromkeys(
                ["ks", "wasserstein_iqr", "std_ratio", "outside_range", "tail_ratio"], np.nan
            )
        row["missing_rate_error"] = float(np.isnan(b).mean() - np.isnan(a).mean())
        rows[column] = row
    columns = ["ks", "wasserstein_iqr", "std_ratio", "outside_range", "tail_ratio"]
    return pd.DataFrame.from_dict(
        rows, orient="index", columns=[*columns, "missing_rate_error"], dtype=np.float64
    )


def missing_rates(real_df, synth_df):
    """Share of missing values (NaN, None, NaT) in every column, real and synthetic.

    Parameters
    ----------
    real_df, synth_df : pandas.DataFrame or 2-D array-like
        Real and synthetic tables with the same columns.

    Returns
    -------
    pandas.DataFrame
        One row per column: ``real``, ``synthetic`` and ``error`` (synthetic minus
        real).  Exact statistics of the real table, not a differentially private
        release.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from skprivsynth.metrics import missing_rates
    >>> real = pd.DataFrame({"x": [1.0, np.nan, 3.0, np.nan]})
    >>> missing_rates(real, pd.DataFrame({"x": [1.0, 2.0, 3.0, np.nan]}))
       real  synthetic  error
    x   0.5       0.25  -0.25
    """
    real, synth = _as_table_pair(real_df, synth_df, "real_df", "synth_df")
    real_rate, synth_rate = real.isna().mean(), synth.isna().mean()
    return pd.DataFrame(
        {"real": real_rate, "synthetic": synth_rate, "error": synth_rate - real_rate},
        dtype=np.float64,
    )
