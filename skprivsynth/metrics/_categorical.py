"""Marginals of categorical tables: the total variation distance of every d-way table
(:func:`categorical_marginal_errors`, :func:`categorical_marginal_tvd`)."""

import math
import warnings

import numpy as np
import pandas as pd

from ..kinds import kind_of
from ._boolean import _STATISTICS, MarginalErrors, _clip_round_off
from ._combinations import _metric_sets
from ._domain import _ranges_in_bins
from ._validation import _as_frame, _as_values_domain, _check_option

# Largest number of cells counted with a dense bincount for one categorical marginal.
_MAX_BINCOUNT_CELLS = 2**22


def _domain_codes(values, spec, column, name):
    """Codes of ``values`` under a declared column: integer codes, levels or bins.

    A missing value (NaN, None, NaT) is one more level, code ``len(spec)``, so the
    second value returned, the number of codes, is ``len(spec) + 1`` when there is one.
    """
    kind = kind_of(spec)
    codes = kind.codes(values)  # CSV text "3" or 3.0 is 3
    missing = (codes < 0) & pd.isna(values).to_numpy()
    codes[missing] = len(spec)
    outside = codes < 0
    if outside.any():
        declared = f" ({kind.describe()})" if kind.describe() else ""
        value = values.iloc[int(np.argmax(outside))]
        value = value.item() if isinstance(value, np.generic) else value
        raise ValueError(
            f"column {column!r} of {name} has value {value!r} outside domain[{column!r}]{declared}."
        )
    return codes.astype(np.int64), max(len(spec), int(codes.max(initial=-1)) + 1)


def _warn_float_levels(real, max_levels=20):
    """Warn when float columns with many fractional values are compared value by value
    (integer codes stored as floats are fine)."""
    floats = [
        c
        for c in real.columns
        if pd.api.types.is_float_dtype(real[c])
        and real[c].nunique() > max_levels
        and not np.array_equal(real[c].to_numpy(), np.round(real[c].to_numpy()))
    ]
    if floats:
        warnings.warn(
            f"columns {floats} are float columns with more than {max_levels} distinct "
            "non-integer values, compared value by value without a domain: almost every "
            "value is a cell of its own, and two samples of one distribution score a TVD "
            "near their share of such values.  Pass domain= with {'bins': [...]} for them, or "
            "domain=evaluation_domain(real_df, synth_df).",
            UserWarning,
            stacklevel=3,
        )


def _encode_categorical(real, synth, domain):
    """Integer codes (n × p) of both tables and the number of cells of each column;
    a missing value is a level of its own (the last code)."""
    n_real = real.shape[0]
    real_codes = np.empty(real.shape, dtype=np.int64)
    synth_codes = np.empty(synth.shape, dtype=np.int64)
    sizes = np.empty(real.shape[1], dtype=np.int64)
    for j, column in enumerate(real.columns):
        if domain is None:
            joined = pd.concat([real[column], synth[column]], ignore_index=True)
            codes, uniques = pd.factorize(joined, sort=False, use_na_sentinel=False)
            real_codes[:, j], synth_codes[:, j] = codes[:n_real], codes[n_real:]
            sizes[j] = len(uniques)
        else:
            if column not in domain:
                raise ValueError(f"domain has no entry for column {column!r}.")
            real_codes[:, j], real_size = _domain_codes(
                real[column], domain[column], column, "real_df"
            )
            synth_codes[:, j], synth_size = _domain_codes(
                synth[column], domain[column], column, "synth_df"
            )
            sizes[j] = max(real_size, synth_size)
    return real_codes, synth_codes, sizes


def _categorical_tvd(real_codes, synth_codes, sizes):
    """Total variation distance of one joint table (codes already restricted to J)."""
    n_real = real_codes.shape[0]
    n_cells = math.prod(int(k) for k in sizes)
    if n_cells <= _MAX_BINCOUNT_CELLS:
        # Mixed-radix cell index: Σ_k code_k · Π_{l>k} K_l.
        strides = np.cumprod(np.r_[sizes[1:], 1][::-1])[::-1].astype(np.int64)
        real_idx, synth_idx = real_codes @ strides, synth_codes @ strides
    else:
        # Too many cells for a dense count: index only the observed cells.
        _, inverse = np.unique(np.vstack([real_codes, synth_codes]), axis=0, return_inverse=True)
        inverse = inverse.ravel()
        n_cells = int(inverse.max()) + 1
        real_idx, synth_idx = inverse[:n_real], inverse[n_real:]
    p_real = np.bincount(real_idx, minlength=n_cells) / real_idx.size
    p_synth = np.bincount(synth_idx, minlength=n_cells) / synth_idx.size
    return 0.5 * np.abs(p_real - p_synth).sum()


def categorical_marginal_errors(
    real_df, synth_df, degree=2, domain=None, max_marginals=None, random_state=None, workload=None
):
    """Total variation distance of every d-way table of categorical columns.

    Parameters
    ----------
    real_df, synth_df : pandas.DataFrame or 2-D array-like
        Real and synthetic tables with the same columns (any order in ``synth_df``;
        row counts may differ).  Values are any hashable categories (integer codes,
        strings ...); a missing value (NaN, None, NaT) is a level of its own.
    degree : int, default=2
        Number of columns per table.
    domain : dict or Domain, optional
        The declared domain of every column, in any form :class:`~skprivsynth.Domain`
        accepts: an int ``K`` (values must be integer codes ``0..K-1``), a sequence of
        the categories, or ``{"bins": [e0, ..., eB]}`` (numeric values are binned by
        these edges; ``"clip": True`` puts values outside in the end bins).  Cells then
        range over the full domain and out-of-domain values raise; without it cells are
        the union of the observed values.  For levels the distance is the same either
        way (unobserved cells count zero in both tables) and the domain serves as a
        check; for bins it is the distance between the binned tables.  Without a
        domain, float columns with more than 20 distinct non-integer values warn: they
        need bins (:func:`evaluation_domain` makes them from the real data).
    max_marginals, random_state
        Random subset of column sets, as in :func:`marginal_errors`;
        ``max_marginals=200, random_state=0`` is the tvd3 benchmark choice.
    workload : list of column sets, optional
        Evaluate exactly these sets of column positions (e.g. ``[(0, 1), (2, 3, 4)]``,
        the ``workload`` of :class:`~skprivsynth.MarginalSynthesizer`), in this order,
        instead of the ``degree``-way sets; ``degree`` is then ignored and
        ``max_marginals`` must be None.

    Returns
    -------
    MarginalErrors
        ``column_sets`` index the columns of ``real_df``; ``feature_names`` holds them.

    Notes
    -----
    Each column is coded once; each column set costs one mixed-radix combination of
    codes and two ``bincount`` calls, O((n_real + n_synth) · d).

    Examples
    --------
    >>> import pandas as pd
    >>> from skprivsynth.metrics import categorical_marginal_errors
    >>> real = pd.DataFrame({"a": ["x", "y"], "b": [0, 1]})
    >>> synth = pd.DataFrame({"a": ["x", "x"], "b": [0, 1]})
    >>> categorical_marginal_errors(real, synth, degree=1).errors.tolist()
    [0.5, 0.0]
    """
    real = _as_frame(real_df, "real_df")
    synth = _as_frame(synth_df, "synth_df")
    if set(real.columns) != set(synth.columns) or real.shape[1] != synth.shape[1]:
        only_real = [c for c in real.columns if c not in set(synth.columns)]
        only_synth = [c for c in synth.columns if c not in set(real.columns)]
        raise ValueError(
            "real_df and synth_df must have the same columns; real_df has "
            f"{real.shape[1]} and synth_df has {synth.shape[1]}; only in real_df: "
            f"{only_real}, only in synth_df: {only_synth}."
        )
    synth = synth[list(real.columns)]
    if domain is not None:
        domain = _ranges_in_bins(_as_values_domain(domain, "domain"), real, synth)
    else:
        _warn_float_levels(real)
    sets, _ = _metric_sets(real.shape[1], degree, max_marginals, random_state, workload)
    real_codes, synth_codes, sizes = _encode_categorical(real, synth, domain)
    errors = np.array(
        [_categorical_tvd(real_codes[:, J], synth_codes[:, J], sizes[J]) for J in map(list, sets)]
    )
    return MarginalErrors(
        column_sets=sets,
        errors=_clip_round_off(errors, "categorical_marginal_errors"),
        form="table",
        feature_names=np.asarray(real.columns, dtype=object),
    )


def categorical_marginal_tvd(
    real_df,
    synth_df,
    degree=2,
    domain=None,
    max_marginals=None,
    random_state=None,
    statistic="mean",
    workload=None,
):
    """Mean (or max / rms) total variation distance of d-way categorical tables.

    The benchmarks' metric, on the decoded columns:
    ``tvd1 = categorical_marginal_tvd(real, synth, degree=1)``,
    ``tvd2 = categorical_marginal_tvd(real, synth, degree=2)`` and
    ``tvd3 = categorical_marginal_tvd(real, synth, degree=3, max_marginals=200,
    random_state=0)``.  Parameters as in :func:`categorical_marginal_errors`.

    Returns
    -------
    float

    Examples
    --------
    >>> from skprivsynth.datasets import load_adult
    >>> from skprivsynth.metrics import categorical_marginal_tvd
    >>> adult = load_adult()
    >>> categorical_marginal_tvd(adult.data, adult.data, domain=adult.domain)
    0.0
    """
    _check_option(statistic, "statistic", _STATISTICS)
    result = categorical_marginal_errors(
        real_df,
        synth_df,
        degree=degree,
        domain=domain,
        max_marginals=max_marginals,
        random_state=random_state,
        workload=workload,
    )
    return result.summary(statistic)
