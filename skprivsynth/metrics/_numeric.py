"""Column by column: the distances between the real and the synthetic distribution of
every numeric column (:func:`numeric_column_errors`), the verdicts read from them
(:func:`numeric_verdicts`, :func:`table_verdict`) and the missing rates
(:func:`missing_rates`)."""

import numpy as np
import pandas as pd

from ..kinds import as_numbers, kind_of, reads_as_numbers
from ._validation import _as_frame, _as_table_pair, _as_values_domain, _check_count

#: The real quantile above which ``tail_ratio`` counts synthetic values.
_TAIL_QUANTILE = 0.999
#: A numeric column is flagged when its std ratio is outside this band...
STD_RATIO_BAND = (0.8, 1.25)
#: ... or its tail ratio below this and below its sampling floor.
MIN_TAIL_RATIO = 0.3
#: The sampling floor of the tail ratio: the tail ratio that a resample of the real
#: values (of the synthetic column's size) falls below with at most this probability.
_TAIL_FLOOR_LEVEL = 0.05
#: A real column of positive values with a larger sample skewness is drawn on a log
#: axis.
SKEWNESS_FOR_LOG_AXIS = 2.0


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
        if reads_as_numbers(real[c].dropna())
        and (kind_of(eval_domain[c]).binned or real[c].nunique() > max_levels)
    ]


_ERRORS = ["ks", "wasserstein_iqr", "std_ratio", "outside_range", "tail_ratio", "tail_floor"]


def _ks_statistic(a, b):
    """Two-sample Kolmogorov-Smirnov statistic ``sup_x |F_a(x) - F_b(x)|`` of two
    sorted samples (the supremum is reached at a sample value)."""
    points = np.concatenate([a, b])
    cdf_a = np.searchsorted(a, points, side="right") / a.size
    cdf_b = np.searchsorted(b, points, side="right") / b.size
    return float(np.abs(cdf_a - cdf_b).max())


def _numeric_errors(real, synth):
    """The errors of one numeric column (NaN removed, both samples sorted)."""
    from scipy.stats import binom, wasserstein_distance

    q1, q3, tail = np.quantile(real, [0.25, 0.75, _TAIL_QUANTILE])
    scale = q3 - q1 if q3 > q1 else real.std()
    std_real, std_synth = real.std(), synth.std()
    distance = wasserstein_distance(real, synth)
    # The tail: the values above the real 99.9th percentile, or at it when none is
    # above (the maximum holds more than 0.1 % of the rows, as a top-coded value does).
    real_share = np.mean(real > tail)
    if real_share > 0:
        synth_share = np.mean(synth > tail)
    else:
        real_share, synth_share = np.mean(real >= tail), np.mean(synth >= tail)
    # A resample of m real values puts Binomial(m, real_share) of them in the tail.
    floor = binom.ppf(_TAIL_FLOOR_LEVEL, synth.size, real_share) / (synth.size * real_share)
    return {
        "ks": _ks_statistic(real, synth),
        "wasserstein_iqr": distance / scale if scale > 0 else (0.0 if distance == 0 else np.inf),
        "std_ratio": std_synth / std_real if std_real > 0 else (1.0 if std_synth == 0 else np.inf),
        "outside_range": float(np.mean((synth < real[0]) | (synth > real[-1]))),
        "tail_ratio": float(synth_share / real_share),
        "tail_floor": float(floor),
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
          divided by the share of real values above it (about 0.001; both shares
          taken *at or above* it when no real value is above, as when the maximum
          holds more than 0.1 % of the rows): 1 when the tail is reproduced, 0 when
          no synthetic value reaches it, above 1 for an inflated tail;
        - ``tail_floor``: the sampling floor of ``tail_ratio``, its 5th percentile
          for a resample of the real values as large as the synthetic column (the
          number of resampled values in the tail is binomial): on a small table a
          tail of 0.1 % holds a handful of rows, and a perfect generator misses all
          of them often (0 below about 3,000 rows, 0.65 at 20,000);
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
        if not reads_as_numbers(real[column].dropna()):
            continue
        a, b = as_numbers(real[column]), as_numbers(synth[column])
        present_a, present_b = np.sort(a[~np.isnan(a)]), np.sort(b[~np.isnan(b)])
        if present_a.size and present_b.size:
            row = _numeric_errors(present_a, present_b)
        else:
            row = dict.fromkeys(_ERRORS, np.nan)
        row["missing_rate_error"] = float(np.isnan(b).mean() - np.isnan(a).mean())
        rows[column] = row
    return pd.DataFrame.from_dict(
        rows, orient="index", columns=[*_ERRORS, "missing_rate_error"], dtype=np.float64
    )


def numeric_verdicts(errors):
    """A plain verdict per numeric column: is its spread and its tail reproduced?

    A column is **flagged** when its ``std_ratio`` is outside ``[0.8, 1.25]`` (the
    synthetic values are much narrower or wider than the real ones) or its
    ``tail_ratio`` is below 0.3 (fewer than a third of the expected synthetic values
    reach the real top 0.1 %) and below its ``tail_floor`` (worse than a resample of
    the real values would be in 95 % of draws: on a small table, missing a tail of a
    handful of rows is no evidence), or when it could not be compared (no value in one
    of the tables).  A long tail that a synthesizer cannot place, as a differentially
    private one at a small ε often cannot (the few rows out there are drowned by the
    noise), shows both: a low std ratio and a tail ratio near 0.  A tail ratio above 1
    (an inflated tail) is reported in the sentence but not flagged.

    Parameters
    ----------
    errors : pandas.DataFrame
        The table of :func:`numeric_column_errors` (its ``std_ratio``, ``tail_ratio``
        and, when there is one, ``tail_floor`` columns are read).

    Returns
    -------
    pandas.DataFrame
        One row per row of ``errors``: ``flagged`` (bool) and ``verdict``, one
        sentence naming the column and the numbers it rests on.

    See Also
    --------
    table_verdict : One line for the whole table.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from skprivsynth.metrics import numeric_column_errors, numeric_verdicts
    >>> rng = np.random.default_rng(0)
    >>> real = pd.DataFrame({"cost": rng.lognormal(8, 1, 5000)})
    >>> synthetic = real.clip(upper=real["cost"].quantile(0.95))  # the tail cut off
    >>> verdicts = numeric_verdicts(numeric_column_errors(real, synthetic))
    >>> bool(verdicts.loc["cost", "flagged"])
    True
    >>> print(verdicts.loc["cost", "verdict"])
    The synthetic cost is narrower than the real one (std ratio 0.69) and has almost
    none of its top 0.1 % (tail ratio 0.00): the tail was not reproduced.
    """
    low, high = STD_RATIO_BAND
    rows = {}
    for column, row in errors.iterrows():
        std, tail = float(row["std_ratio"]), float(row["tail_ratio"])
        name = f"The synthetic {column}"
        if np.isnan(std) or np.isnan(tail):
            rows[column] = (True, f"{name} could not be compared: one of the tables has no value.")
            continue
        floor = float(row.get("tail_floor", np.inf))
        narrow, wide, thin = std < low, std > high, tail < _tail_threshold(floor)
        if narrow or wide:
            spread = (
                f"is {'narrower' if narrow else 'wider'} than the real one (std ratio {std:.2f})"
            )
        else:
            spread = f"has the real spread (std ratio {std:.2f})"
        joint = "and has" if narrow or wide else "but"
        if thin:
            amount = "almost none" if tail < 0.1 else "too few"
            reach = f"{joint} {amount} of its top 0.1 % (tail ratio {tail:.2f})"
            ending = ": the tail was not reproduced."
        else:
            if tail > 1.0 / MIN_TAIL_RATIO:
                reach = f"and has more values than it in its top 0.1 % (tail ratio {tail:.2f})"
            elif tail < MIN_TAIL_RATIO:  # at or above the floor: as a resample would
                reach = (
                    f"{joint} few of its top 0.1 % (tail ratio {tail:.2f}), as a resample of "
                    f"the real values of this size can have (floor {floor:.2f})"
                )
            else:
                reach = f"and reaches its top 0.1 % (tail ratio {tail:.2f})"
            ending = ": the spread was not reproduced." if narrow or wide else "."
        rows[column] = (narrow or wide or thin, f"{name} {spread} {reach}{ending}")
    return pd.DataFrame.from_dict(rows, orient="index", columns=["flagged", "verdict"]).astype(
        {"flagged": bool, "verdict": object}
    )


def _tail_threshold(floor):
    """The tail ratio below which a column is flagged: 0.3, or its sampling floor
    where that is lower (NaN or missing: 0.3)."""
    return min(MIN_TAIL_RATIO, floor) if floor == floor else MIN_TAIL_RATIO


def table_verdict(verdicts):
    """One line for the whole table from :func:`numeric_verdicts`: how many numeric
    columns are flagged, and which.

    Parameters
    ----------
    verdicts : pandas.DataFrame
        The table of :func:`numeric_verdicts`.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from skprivsynth.metrics import table_verdict
    >>> verdicts = pd.DataFrame({"flagged": [True, False], "verdict": ["...", "..."]},
    ...                         index=["cost", "age"])
    >>> print(table_verdict(verdicts))
    1 of 2 numeric columns flagged (cost): their spread or tail was not reproduced;
    statistics that depend on it (standard deviations, top percentiles, and the means
    and totals of skewed columns) are not to be trusted on the synthetic table.
    """
    n = len(verdicts)
    if n == 0:
        return "No numeric column compared as a distribution."
    flagged = [str(c) for c in verdicts.index[verdicts["flagged"].to_numpy(dtype=bool)]]
    low, high = STD_RATIO_BAND
    if not flagged:
        return (
            f"No numeric column flagged: all {n} keep the real spread (std ratio in "
            f"[{low:g}, {high:g}]) and reach the real top 0.1 % (tail ratio at least "
            f"{MIN_TAIL_RATIO:g}, or not below what a resample of the real values gives)."
        )
    columns = "s" if n > 1 else ""
    return (
        f"{len(flagged)} of {n} numeric column{columns} flagged ({', '.join(flagged)}): "
        "their spread or tail was not reproduced; statistics that depend on it "
        "(standard deviations, top percentiles, and the means and totals of skewed "
        "columns) are not to be trusted on the synthetic table."
    )


def log_axis_columns(real_df):
    """The numeric columns drawn on a log axis: skewed to the right.

    A column is drawn on a log axis when its real non-missing values are all positive
    and their sample skewness (the third standardized moment, :func:`scipy.stats.skew`)
    is above 2: a long right tail, as in costs or durations, whose body a linear axis
    squeezes into its first pixels.  A column with zeros or negative values keeps a
    linear axis (a log axis would leave them off), and so does a datetime column.

    Parameters
    ----------
    real_df : pandas.DataFrame
        Real table (its numeric columns are read; others are skipped).

    Returns
    -------
    list
        Column labels of ``real_df``, in order.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from skprivsynth.metrics import log_axis_columns
    >>> rng = np.random.default_rng(0)
    >>> real = pd.DataFrame({"cost": rng.lognormal(8, 1, 1000), "age": rng.normal(50, 10, 1000)})
    >>> log_axis_columns(real)
    ['cost']
    """
    from scipy.stats import skew

    real = _as_frame(real_df, "real_df")
    columns = []
    for column in real.columns:
        values = real[column]
        if pd.api.types.is_datetime64_any_dtype(values) or not reads_as_numbers(values.dropna()):
            continue
        numbers = as_numbers(values)
        numbers = numbers[~np.isnan(numbers)]
        if numbers.size > 2 and numbers.min() > 0 and numbers.std() > 0:
            if skew(numbers) > SKEWNESS_FOR_LOG_AXIS:
                columns.append(column)
    return columns


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
