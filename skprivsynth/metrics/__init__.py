"""Utility metrics for synthetic data: marginal errors, covariance loss, scorers.

Two families of marginal metrics are provided.

*Boolean-matrix marginals* (:func:`marginal_errors`, :func:`marginal_error`) compare
two matrices with entries in ``[0, 1]`` (real data ``X`` and synthetic data ``Y``,
usually both in ``{0, 1}``) on every set ``J`` of ``d`` columns:

* ``form="conjunction"``: the fraction of rows with all bits of ``J`` equal to 1,
  ``(1/n) Σ_i Π_{j∈J} x_ij`` (Boedihardjo, Strohmer & Vershynin, *Covariance's loss
  is privacy's gain* (BSV 2022), eq. 1.1); the error of ``J`` is the absolute
  difference of the two fractions.
* ``form="table"``: the ``2^d`` cell fractions of the marginal table of ``J``; the error
  of ``J`` is the total variation distance ``½ Σ_v |p_v − q_v|``.

A row with fractional entries ``y ∈ [0, 1]^p`` counts as the product of independent
Bernoulli(``y_j``) coordinates: it contributes ``Π_{j∈J} y_j^{v_j} (1 − y_j)^{1−v_j}`` to
cell ``v``.  This is the *expected* table after randomized rounding
(:func:`skprivsynth._math.sampling.sample_weighted_records`), so a synthesizer's
candidate records with weights can be scored without sampling.

*Categorical (decoded-space) marginals* (:func:`categorical_marginal_errors`,
:func:`categorical_marginal_tvd`) compare two tables of categorical columns — the
benchmark metric of ``benchmarks/RESULTS.md``: tvd1 = mean over the 14 Adult columns,
tvd2 = mean over all 91 pairs, tvd3 = mean over 200 random triples drawn with
``max_marginals=200, random_state=0``.

Column sets.  With ``max_marginals=None`` every one of the ``C(p, d)`` sets is used, in
lexicographic order (the order of :func:`itertools.combinations`).  With an integer
``max_marginals < C(p, d)``, ``M = max_marginals`` distinct sets are drawn uniformly
without replacement: the lexicographic ranks ``numpy.random.default_rng(random_state)
.choice(C(p, d), size=M, replace=False)`` are sorted and unranked, so the result is a
reproducible, sorted subset of the full list.  (When ``C(p, d) ≥ 2^62`` distinct uniform
sets are drawn by rejection instead.)

:func:`covariance_loss` is the Frobenius distance of the two covariance matrices (seed
000, Sect. 3).  :func:`make_marginal_scorer` turns a marginal metric into a scorer for
:class:`~sklearn.model_selection.GridSearchCV`.

:func:`evaluation_domain` is the domain two tables are compared in (declared levels and
bins; undeclared numeric columns in quantile bins, never one category per float).
:func:`numeric_column_errors` compares the distribution of every numeric column
(Kolmogorov-Smirnov, Wasserstein-1, spread, range and tail) and :func:`missing_rates`
the share of missing values of every column.
:func:`train_synthetic_test_real` measures utility (a classifier trained on synthetic
rows, tested on real ones) and :func:`make_utility_scorer` makes it a scorer.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.pipeline import Pipeline
from sklearn.utils import check_array

from ..accountant import charge_active
from ..domain import Bins, Domain, Range, _as_domain, _codes
from ..privacy import (
    NOISE_OPTIONS,
    PrivacyCost,
    check_epsilon,
    laplace_mechanism,
    warn_privacy_leak,
)
from ..validation import check_random_generator, check_unit_interval, is_differentially_private

__all__ = [
    "MarginalErrors",
    "MarginalScorer",
    "UtilityScorer",
    "categorical_marginal_errors",
    "categorical_marginal_tvd",
    "covariance_loss",
    "evaluation_domain",
    "make_marginal_scorer",
    "make_utility_scorer",
    "marginal_error",
    "marginal_errors",
    "missing_rates",
    "numeric_column_errors",
    "train_synthetic_test_real",
]

_FORMS = ("conjunction", "table")
_STATISTICS = ("mean", "max", "rms")
_SPACES = ("encoded", "decoded")

# Refuse to enumerate more column sets than this (memory (M, d) ints + the work M·n);
# the error message asks for ``max_marginals``.
_MAX_COLUMN_SETS = 5_000_000
# Refuse table-form accumulators with more than this many (column set, cell) entries.
_MAX_TABLE_ENTRIES = 2**26
# Elements of one temporary (column sets × rows) float64 block: 2^16 · 8 B = 512 kB, so
# the d + 1 live temporaries stay in cache (measured ~10x faster than 16 MB blocks).
_CHUNK_ELEMENTS = 2**16
# Rows converted (float64 or transposed) at a time.
_ROW_CHUNK = 4_096
# XᵀX path for d = 2 only while the p × p Gram matrix stays small (32 MB).
_GRAM_MAX_FEATURES = 2_048
# Largest number of cells counted with a dense bincount for one categorical marginal.
_MAX_BINCOUNT_CELLS = 2**22
# Ranks below this are drawn exactly with Generator.choice; int64-safe.
_RANK_LIMIT = 2**62


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, eq=False)
class MarginalErrors:
    """Per-column-set marginal errors.

    Attributes
    ----------
    column_sets : ndarray of shape (M, d), int64
        Column indices of each set, each row increasing, rows in lexicographic order.
    errors : ndarray of shape (M,), float64
        Error of each set: absolute difference (conjunction form) or total variation
        distance (table form), in ``[0, 1]``.
    form : str
        ``"conjunction"`` or ``"table"``.
    feature_names : ndarray of shape (p,) or None
        Column names when the inputs were DataFrames (categorical metrics).
    """

    column_sets: np.ndarray
    errors: np.ndarray
    form: str
    feature_names: np.ndarray | None = None

    def summary(self, statistic="mean"):
        """Summarise the errors: ``"mean"``, ``"max"`` or ``"rms"`` (root mean square)."""
        return _summarise(self.errors, statistic)

    def named_column_sets(self):
        """Column sets as tuples of feature names (or of indices when there are none)."""
        names = self.feature_names
        if names is None:
            return [tuple(int(j) for j in row) for row in self.column_sets]
        return [tuple(names[j] for j in row) for row in self.column_sets]


def _summarise(errors, statistic):
    _check_option(statistic, "statistic", _STATISTICS)
    if statistic == "mean":
        return float(np.mean(errors))
    if statistic == "max":
        return float(np.max(errors))
    return float(np.sqrt(np.mean(np.square(errors))))


# ------------------------------------------------------------------------ validation


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


# ---------------------------------------------------------------------- column sets


def _unrank_lexicographic(ranks, p, d):
    """Column sets with the given lexicographic ranks among the C(p, d) sets.

    The lexicographic rank of ``a_1 < … < a_d`` equals ``C(p, d) − 1`` minus the
    colexicographic rank ``Σ_k C(b_k, k)`` of the reflected set ``b = p − 1 − a``
    (combinatorial number system); the colex digits are found greedily, largest first,
    by a binary search in the table ``c ↦ C(c, k)``.
    """
    remaining = (math.comb(p, d) - 1) - np.asarray(ranks, dtype=np.int64)
    out = np.empty((remaining.size, d), dtype=np.int64)
    for k in range(d, 0, -1):
        # Entries above every possible remainder are clipped: the table stays sorted.
        table = np.array([min(math.comb(c, k), _RANK_LIMIT) for c in range(p)], dtype=np.int64)
        digit = np.searchsorted(table, remaining, side="right") - 1
        remaining = remaining - table[digit]
        out[:, d - k] = p - 1 - digit
    return out


def _random_distinct_sets(p, d, m, rng):
    """``m`` distinct uniform d-subsets when C(p, d) is too large to rank in int64.

    Distinct values among i.i.d. uniform draws form, given their number, a uniform
    random subset; subsampling ``m`` of them uniformly keeps it uniform.
    """
    batch = max(1, _CHUNK_ELEMENTS // p)
    sets = np.empty((0, d), dtype=np.int64)
    while sets.shape[0] < m:
        keys = rng.random((batch, p))
        draws = np.sort(np.argpartition(keys, d - 1, axis=1)[:, :d], axis=1)
        sets = np.unique(np.vstack([sets, draws]), axis=0)
    keep = np.sort(rng.choice(sets.shape[0], size=m, replace=False))
    return sets[keep]


def _column_sets(p, d, max_marginals, random_state):
    total = math.comb(p, d)
    if max_marginals is None or max_marginals >= total:
        if total > _MAX_COLUMN_SETS:
            raise ValueError(
                f"degree={d} on {p} columns gives C({p}, {d}) = {total} column sets, more "
                f"than {_MAX_COLUMN_SETS}; set max_marginals to evaluate a random subset."
            )
        return _unrank_lexicographic(np.arange(total, dtype=np.int64), p, d)
    if max_marginals > _MAX_COLUMN_SETS:
        raise ValueError(
            f"max_marginals={max_marginals} is more than the {_MAX_COLUMN_SETS} column sets "
            "this module evaluates at once; choose a smaller value."
        )
    rng = check_random_generator(random_state)
    if total < _RANK_LIMIT:
        ranks = np.sort(rng.choice(total, size=max_marginals, replace=False))
        return _unrank_lexicographic(ranks, p, d)
    return _random_distinct_sets(p, d, max_marginals, rng)


# ------------------------------------------------------------ Boolean-matrix kernels


def _row_chunks(blocks, transposed=False):
    """Yield ``(rows, weights, sign)`` for chunks of rows of every block.

    ``blocks`` holds ``(A, w, sign)``: data, weights normalised to sum 1 and the sign
    (+1 for X, −1 for Y) with which the block enters the difference of marginals.
    Rows come as float64 (n_chunk, p), or, with ``transposed``, as a C-contiguous
    (p, n_chunk) array of the input dtype, so that gathering columns reads contiguous
    memory.
    """
    for A, w, sign in blocks:
        for start in range(0, A.shape[0], _ROW_CHUNK):
            rows = A[start : start + _ROW_CHUNK]
            rows = np.ascontiguousarray(rows.T) if transposed else rows.astype(np.float64)
            yield rows, w[start : start + _ROW_CHUNK], sign


def _means(blocks, p):
    diff = np.zeros(p)
    for chunk, w, sign in _row_chunks(blocks):
        diff += sign * (w @ chunk)
    return diff


def _gram(blocks, p):
    gram = np.zeros((p, p))
    for chunk, w, sign in _row_chunks(blocks):
        scaled = chunk * np.sqrt(w)[:, None]
        gram += sign * (scaled.T @ scaled)  # AᵀA form: BLAS syrk
    return gram


def _degree2_gram_errors(blocks, p, sets, form):
    """d = 2 through Gram matrices: the table follows from the conjunctions.

    For columns (a, b): p11 = G_ab, p10 = m_a − G_ab, p01 = m_b − G_ab,
    p00 = 1 − m_a − m_b + G_ab, and the same holds for differences (the constant 1
    cancels because both weight vectors sum to one).
    """
    m = _means(blocks, p)
    gram = _gram(blocks, p)
    a, b = sets[:, 0], sets[:, 1]
    d11 = gram[a, b]
    if form == "conjunction":
        return np.abs(d11)
    return 0.5 * (np.abs(d11) + np.abs(m[a] - d11) + np.abs(m[b] - d11) + np.abs(d11 - m[a] - m[b]))


def _accumulate_cells(acc, w, cols, k, cell, current):
    """Depth-first over the 2^d cells; ``current`` = product of the first k factors.

    Cell index = the bits ``v`` of the cell read as a binary number, first column most
    significant.  At most ``d + 1`` temporaries are alive.
    """
    if k == len(cols):
        acc[:, cell] += current @ w
        return
    ones = cols[k] if current is None else current * cols[k]
    zeros = (1.0 - cols[k]) if current is None else current - ones
    _accumulate_cells(acc, w, cols, k + 1, 2 * cell, zeros)
    _accumulate_cells(acc, w, cols, k + 1, 2 * cell + 1, ones)


def _chunked_errors(blocks, sets, form):
    """General d: products over chunks of rows × chunks of column sets.

    Work O(n · M · d) for conjunctions and O(n · M · 2^d) for tables; memory
    O((d + 1) · _CHUNK_ELEMENTS) for temporaries plus the (M, 2^d) accumulator.
    """
    n_sets, d = sets.shape
    n_cells = 1 if form == "conjunction" else 2**d
    acc = np.zeros((n_sets, n_cells))
    set_chunk = max(1, _CHUNK_ELEMENTS // _ROW_CHUNK)
    for chunk, w, sign in _row_chunks(blocks, transposed=True):
        signed_w = sign * w
        for start in range(0, n_sets, set_chunk):
            part = sets[start : start + set_chunk]
            # (sets in chunk, rows) per position of the set
            cols = [chunk[part[:, k]].astype(np.float64) for k in range(d)]
            if form == "conjunction":
                product = cols[0]
                for col in cols[1:]:
                    product *= col
                acc[start : start + set_chunk, 0] += product @ signed_w
            else:
                _accumulate_cells(acc[start : start + set_chunk], signed_w, cols, 0, 0, None)
    if form == "conjunction":
        return np.abs(acc[:, 0])
    return 0.5 * np.abs(acc).sum(axis=1)


_ROUND_OFF = 1e-9


def _clip_round_off(errors, what):
    """Clip errors in ``[-1e-9, 1 + 1e-9]`` (float round-off) to ``[0, 1]``; raise beyond.

    An error outside that band is a bug, never round-off: it is reported, not hidden.
    """
    errors = np.asarray(errors, dtype=np.float64)
    bad = (errors < -_ROUND_OFF) | (errors > 1.0 + _ROUND_OFF)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise RuntimeError(
            f"{what}: error {errors[i]!r} of marginal {i} lies outside [0, 1] by more than "
            f"the round-off tolerance {_ROUND_OFF:g}; this is a bug, please report it."
        )
    return np.clip(errors, 0.0, 1.0)


def marginal_errors(
    X,
    Y,
    degree=2,
    form="table",
    max_marginals=None,
    random_state=None,
    sample_weight_X=None,
    sample_weight_Y=None,
):
    """Error of every d-way marginal of ``Y`` against ``X`` (Boolean-matrix data).

    Parameters
    ----------
    X : array-like of shape (n_x, p)
        Real data, entries in ``[0, 1]`` (normally ``{0, 1}``).
    Y : array-like of shape (n_y, p)
        Synthetic data (``n_y`` may differ from ``n_x``), entries in ``[0, 1]``;
        fractional entries count as independent Bernoulli probabilities.
    degree : int, default=2
        Size ``d`` of the column sets, ``1 <= d <= p``.
    form : {"table", "conjunction"}, default="table"
        ``"table"``: total variation distance of the ``2^d``-cell tables;
        ``"conjunction"``: absolute error of the all-ones cell (BSV 2022, eq. 1.1).
    max_marginals : int, optional
        Evaluate a uniform random subset of this many column sets (see the module
        docstring); None evaluates all ``C(p, d)`` sets.
    random_state : None, int or numpy.random.Generator, optional
        Seed of the random subset.
    sample_weight_X, sample_weight_Y : array-like of shape (n_x,) / (n_y,), optional
        Non-negative row weights (normalised here); e.g. ``Y`` = candidate records of a
        synthesizer with their probabilities.

    Returns
    -------
    MarginalErrors
        ``column_sets`` (M, d) and ``errors`` (M,).

    Notes
    -----
    Cost: ``d = 1`` one pass, O(n·p); ``d = 2`` (p <= 2048) one Gram matrix per input,
    O(n·p²); otherwise O(n·M·d) (conjunction) or O(n·M·2^d) (table), all vectorised over
    chunks of rows and column sets.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.metrics import marginal_errors
    >>> X = np.array([[1, 1, 0], [0, 1, 1]])
    >>> Y = np.array([[1, 1, 0], [1, 1, 0]])
    >>> res = marginal_errors(X, Y, degree=2, form="conjunction")
    >>> res.column_sets.tolist(), res.errors.tolist()
    ([[0, 1], [0, 2], [1, 2]], [0.5, 0.0, 0.5])
    """
    _check_option(form, "form", _FORMS)
    X = _check_matrix(X, "X")
    Y = _check_matrix(Y, "Y")
    _check_widths(X, Y)
    p = X.shape[1]
    d = _check_degree(degree, p)
    max_marginals = _check_max_marginals(max_marginals)
    w_x = _check_weights(sample_weight_X, X.shape[0], "sample_weight_X")
    w_y = _check_weights(sample_weight_Y, Y.shape[0], "sample_weight_Y")
    sets = _column_sets(p, d, max_marginals, random_state)
    if form == "table" and sets.shape[0] * 2**d > _MAX_TABLE_ENTRIES:
        raise ValueError(
            f"form='table' with degree={d} and {sets.shape[0]} column sets needs "
            f"{sets.shape[0] * 2**d} table cells (limit {_MAX_TABLE_ENTRIES}); lower "
            "degree or max_marginals, or use form='conjunction'."
        )
    blocks = [(X, w_x, 1.0), (Y, w_y, -1.0)]
    if d == 1:
        errors = np.abs(_means(blocks, p)[sets[:, 0]])
    elif d == 2 and p <= _GRAM_MAX_FEATURES:
        errors = _degree2_gram_errors(blocks, p, sets, form)
    else:
        errors = _chunked_errors(blocks, sets, form)
    # Round-off may leave a tiny overshoot above 1 for total variation distance.
    errors = _clip_round_off(errors, "marginal_errors")
    return MarginalErrors(column_sets=sets, errors=errors, form=form)


def marginal_error(
    X,
    Y,
    degree=2,
    form="table",
    statistic="mean",
    max_marginals=None,
    random_state=None,
    sample_weight_X=None,
    sample_weight_Y=None,
):
    """Summary of :func:`marginal_errors`: ``"mean"``, ``"max"`` or ``"rms"``.

    ``statistic="rms"`` is the L² average of BSV 2022, eq. (1.2) ("δ-accurate for
    d-dimensional marginals on average"); ``form="table", statistic="mean"`` is the
    average total variation distance of the d-way tables.  Parameters as in
    :func:`marginal_errors`.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.metrics import marginal_error
    >>> X = np.array([[1, 0], [0, 1]])
    >>> marginal_error(X, X[::-1], degree=2), marginal_error(X, [[1, 1], [0, 0]], degree=1)
    (0.0, 0.0)
    >>> marginal_error(X, [[1, 1], [0, 0]], degree=2)
    1.0
    """
    _check_option(statistic, "statistic", _STATISTICS)
    result = marginal_errors(
        X,
        Y,
        degree=degree,
        form=form,
        max_marginals=max_marginals,
        random_state=random_state,
        sample_weight_X=sample_weight_X,
        sample_weight_Y=sample_weight_Y,
    )
    return result.summary(statistic)


# ------------------------------------------------------------- categorical marginals


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


def _as_numbers(values):
    """A numeric column as float64: datetimes in seconds since the epoch (whatever
    their unit), text such as the CSV's "3" as 3; missing values NaN."""
    if pd.api.types.is_datetime64_any_dtype(values):
        seconds = (values - pd.Timestamp(0, tz=getattr(values.dt, "tz", None))) / pd.Timedelta(
            1, "s"
        )
        return seconds.to_numpy(np.float64, na_value=np.nan)
    return pd.to_numeric(values, errors="coerce").to_numpy(np.float64, na_value=np.nan)


def _domain_codes(values, spec, column, name):
    """Codes of ``values`` under a declared column: integer codes, levels or bins.

    A missing value (NaN, None, NaT) is one more level, code ``len(spec)``, so the
    second value returned, the number of codes, is ``len(spec) + 1`` when there is one.
    """
    if isinstance(spec, range) or (isinstance(spec, Bins) and spec.kind != "datetime"):
        codes = _codes(_as_numbers(values), spec)  # CSV text "3" or 3.0 is 3
    else:  # levels, and datetime bins (read from datetimes or ISO text)
        codes = _codes(values, spec)
    missing = (codes < 0) & pd.isna(values).to_numpy()
    codes[missing] = len(spec)
    outside = codes < 0
    if outside.any():
        if isinstance(spec, range):
            declared = f" = {len(spec)} (integer codes 0..{len(spec) - 1})"
        elif isinstance(spec, Bins):
            declared = f" (bins from {spec.edges[0]:g} to {spec.edges[-1]:g})"
        else:
            declared = ""
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
    real_df, synth_df, degree=2, domain=None, max_marginals=None, random_state=None
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
        domain = _as_domain(domain, "domain")
    else:
        _warn_float_levels(real)
    p = real.shape[1]
    d = _check_degree(degree, p)
    max_marginals = _check_max_marginals(max_marginals)
    sets = _column_sets(p, d, max_marginals, random_state)
    real_codes, synth_codes, sizes = _encode_categorical(real, synth, domain)
    errors = np.array(
        [_categorical_tvd(real_codes[:, J], synth_codes[:, J], sizes[J]) for J in sets]
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
):
    """Mean (or max / rms) total variation distance of d-way categorical tables.

    The benchmark metric of ``benchmarks/RESULTS.md``, on the decoded columns:
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
    )
    return result.summary(statistic)


# --------------------------------------------------------------- evaluation domain

# HistGradientBoostingClassifier's limit on the levels of a categorical feature.
_MAX_CATEGORIES = 255


def _check_count(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, Integral | np.integer) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}.")
    return int(value)


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


def _observed_levels(values):
    """Distinct values of a column, sorted when they can be (else in order of appearance)."""
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
    declared = {} if domain is None else _as_domain(domain, "domain")
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
            specs[column] = _observed_levels(values.dropna()) or [0]
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


# ------------------------------------------------------------------ numeric columns

#: The real quantile above which ``tail_ratio`` counts synthetic values.
_TAIL_QUANTILE = 0.999


def _distribution_columns(real, eval_domain, max_levels):
    """The columns compared as distributions: numeric or datetime columns binned in the
    evaluation (declared bins or quantile bins) or with more than ``max_levels`` values."""
    return [
        c
        for c in real.columns
        if _is_numeric_or_datetime(real[c].dropna())
        and (isinstance(eval_domain[c], Bins) or real[c].nunique() > max_levels)
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


# -------------------------------------------------------------------- covariance loss


def _weighted_covariance(A, w, p):
    mean = np.zeros(p)
    for start in range(0, A.shape[0], _ROW_CHUNK):
        mean += w[start : start + _ROW_CHUNK] @ A[start : start + _ROW_CHUNK]
    cov = np.zeros((p, p))
    for start in range(0, A.shape[0], _ROW_CHUNK):
        centred = A[start : start + _ROW_CHUNK] - mean
        cov += centred.T @ (centred * w[start : start + _ROW_CHUNK, None])
    return cov


def covariance_loss(X, Y, sample_weight_X=None, sample_weight_Y=None):
    """Frobenius distance ``‖Σ_X − Σ_Y‖_F`` of the two covariance matrices.

    ``Σ`` is the *population* covariance (divisor ``n``, i.e. ``numpy.cov(X.T,
    bias=True)``), or with weights ``Σ_i w_i (x_i − μ)(x_i − μ)ᵀ / Σ_i w_i``.  With
    ``Y`` = the group means of a microaggregation and ``sample_weight_Y`` = the group
    sizes, this is the covariance loss ``‖Σ_X − Σ_{E[X|F]}‖_F`` of conditional
    expectation (BSV 2022, Sect. 3; law of total variance: it is the Frobenius norm of
    the expected within-group covariance).

    Parameters
    ----------
    X : array-like of shape (n_x, p)
        Real data (any finite values).
    Y : array-like of shape (n_y, p)
        Synthetic data or candidate records.
    sample_weight_X, sample_weight_Y : array-like, optional
        Non-negative row weights.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.metrics import covariance_loss
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> covariance_loss(X, X[::-1])
    0.0
    >>> covariance_loss(X, [[0.5, 0.5]], sample_weight_Y=[4])  # one group: all is lost
    0.3535533905932738
    """
    X = check_array(X, dtype=np.float64, ensure_all_finite=True, input_name="X")
    Y = check_array(Y, dtype=np.float64, ensure_all_finite=True, input_name="Y")
    _check_widths(X, Y)
    p = X.shape[1]
    with np.errstate(over="ignore", invalid="ignore"):
        cov_x = _weighted_covariance(
            X, _check_weights(sample_weight_X, X.shape[0], "sample_weight_X"), p
        )
        cov_y = _weighted_covariance(
            Y, _check_weights(sample_weight_Y, Y.shape[0], "sample_weight_Y"), p
        )
        loss = float(np.linalg.norm(cov_x - cov_y, ord="fro"))
    if not np.isfinite(loss):
        raise ValueError(
            "covariance_loss overflows float64: X or Y has entries too large for their "
            "squares to be represented (about 1e154 or more); rescale X and Y."
        )
    return loss


# ----------------------------------------------------------------------------- scorer


def _warn_if_differentially_private(estimator):
    """Warn that scoring a DP synthesizer on real data is outside its guarantee.

    The score is a non-private function of the held-out real rows; a choice made from
    it (``GridSearchCV.best_params_`` / ``best_estimator_``) is therefore not covered by
    the synthesizer's ε, and every fit of a search spends its own ε on the training
    folds (basic composition over all fits).  Private selection needs its own
    mechanism (Liu and Talwar, "Private selection from private candidates", STOC 2019;
    Papernot and Steinke, "Hyperparameter tuning with Rényi differential privacy",
    ICLR 2022); without one, tune on public or proxy data.
    """
    synthesizer = estimator[-1] if isinstance(estimator, Pipeline) else estimator
    if is_differentially_private(synthesizer):
        warn_privacy_leak(
            f"scoring the differentially private {type(synthesizer).__name__} on real "
            "data: the score, and any choice made from it (e.g. GridSearchCV's "
            "best_params_), is not covered by its epsilon, and each fit of a search "
            "spends its own epsilon.  Tune on public or proxy data, or use a DP score "
            "(make_marginal_scorer(epsilon=...)) inside a PrivacyAccountant, or "
            "PrivateSelectionSearch.",
            stacklevel=4,
        )


class MarginalScorer:
    """Scorer ``scorer(estimator, X, y=None) -> −marginal error`` (greater is better).

    Build it with :func:`make_marginal_scorer`; the attributes are its parameters.  A
    plain class (not :func:`sklearn.metrics.make_scorer`, which needs ``y``) so that it
    pickles for ``GridSearchCV(n_jobs=...)``.
    """

    def __init__(
        self,
        degree=2,
        form="table",
        statistic="mean",
        space="encoded",
        n_samples=None,
        random_state=0,
        max_marginals=None,
        epsilon=None,
        noise="continuous",
        noise_random_state=None,
    ):
        self.degree = degree
        self.form = form
        self.statistic = statistic
        self.space = space
        self.n_samples = n_samples
        self.random_state = random_state
        self.max_marginals = max_marginals
        self.epsilon = epsilon
        self.noise = noise
        self.noise_random_state = noise_random_state

    def _n_rows(self, X):
        return self.n_samples if self.n_samples is not None else len(X)

    def _released(self, pipeline, n, X):
        """The pipeline's decoded sample, as a DataFrame with ``X``'s columns when ``X``
        is one (decoders such as OneHotEncoder return arrays)."""
        released = pipeline.sample(n_samples=n, random_state=self.random_state)
        if isinstance(X, pd.DataFrame) and not isinstance(released, pd.DataFrame):
            released = pd.DataFrame(np.asarray(released), columns=X.columns)
        return released

    def __call__(self, estimator, X, y=None):
        """Score ``estimator`` (a fitted synthesizer or synthesis pipeline) on ``X``.

        Parameters
        ----------
        estimator : fitted synthesizer or :class:`~sklearn.pipeline.Pipeline`
            A synthesizer has ``sample(n_samples, random_state)``; a pipeline ends in
            one (and, for ``space="decoded"``, has its own decoding ``sample``).
        X : array-like or DataFrame
            Held-out real data, in the pipeline's input space.
        y : ignored
            Present for the scorer protocol of scikit-learn.

        Returns
        -------
        float
            The negated marginal error; with ``epsilon``, plus Laplace noise of scale
            ``1/(len(X)·epsilon)`` (an ``epsilon``-DP release, charged to the active
            :class:`~skprivsynth.PrivacyAccountant` before the noise is drawn).
        """
        if self.epsilon is None:
            _warn_if_differentially_private(estimator)
            return self._exact_score(estimator, X)
        # Replace-one sensitivity of the score in the n = len(X) scored real rows (n is
        # public): the real side of every marginal error is an average of n per-row
        # terms in [0, 1] (a cell indicator, a product of bits, or a row's product
        # distribution over the cells), so replacing one row moves the real marginal by
        # at most 1/n in total variation (table form) or in value (conjunction form),
        # and each error |·| or TVD(·, synthetic) by at most 1/n (triangle inequality).
        # The mean, max and rms over column sets are 1-Lipschitz for the sup norm, so
        # the score moves by at most 1/n.  Column sets, the synthetic sample and the
        # encoder are fixed before X is read (seeded or fitted on other data) and the
        # encoder's transform is row-wise.  Laplace noise of scale (1/n)/epsilon is
        # then epsilon-DP (Dwork, McSherry, Nissim & Smith 2006).
        n_real = len(X)
        charge_active(f"DP marginal score of {n_real} rows", PrivacyCost(epsilon=self.epsilon))
        try:
            score = self._exact_score(estimator, X, private=True)
        except ValueError:
            # Validation messages name rows and values of X: withheld on a DP path.
            raise ValueError(
                "the DP score's real rows X failed a validation check of the metric (values "
                "outside the synthesizer's domain, missing values or a width mismatch); its "
                "message may quote private values and is withheld here.  Check X against "
                "the public domain before scoring."
            ) from None
        noisy, _ = laplace_mechanism(
            [score],
            1.0 / n_real,
            self.epsilon,
            _noise_generator(self.noise_random_state),
            noise=self.noise,
        )
        return float(noisy[0])

    def _exact_score(self, estimator, X, private=False):
        """The exact score.  ``private``: the DP path, on which nothing shown may depend
        on ``X`` (its rows are read with warnings off; the float-levels warning, if
        any, is decided on the released synthetic sample)."""
        synthetic, error = self._synthetic(estimator, X, self._n_rows(X))
        if not private:
            return -error(X)
        if self.space == "decoded" and isinstance(estimator, Pipeline):
            _warn_float_levels(_as_frame(synthetic, "the synthetic sample"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return -error(X)

    def _synthetic(self, estimator, X, n):
        """``(synthetic, error)``: the released sample and ``error(X)``, its marginal
        error against the real rows ``X``."""
        kwargs = {
            "degree": self.degree,
            "max_marginals": self.max_marginals,
            "statistic": self.statistic,
            "random_state": self.random_state,
        }
        if isinstance(estimator, Pipeline):
            if self.space == "decoded":
                if not hasattr(estimator, "sample"):
                    raise TypeError(
                        "space='decoded' needs a pipeline with a decoding sample() method "
                        f"(e.g. SynthesisPipeline); got {type(estimator).__name__}."
                    )
                synthetic = self._released(estimator, n, X)
                return synthetic, lambda X: categorical_marginal_tvd(X, synthetic, **kwargs)
            synthesizer = estimator[-1]
            if len(estimator) > 1:
                encoder = estimator[:-1]
                if hasattr(estimator, "sample"):
                    # Score what the pipeline releases: its decoded sample, encoded
                    # again.  The last step's own sample can differ (e.g. a
                    # SynthesisPipeline rounds fractional records block-wise, never
                    # giving an invalid one-hot block, while a synthesizer's sample
                    # rounds every coordinate independently).
                    synthetic = encoder.transform(self._released(estimator, n, X))
                else:
                    synthetic = synthesizer.sample(n_samples=n, random_state=self.random_state)
                return synthetic, lambda X: marginal_error(
                    encoder.transform(X), synthetic, form=self.form, **kwargs
                )
        else:
            synthesizer = estimator
        if not hasattr(synthesizer, "sample"):
            raise TypeError(
                "the scored estimator must be a synthesizer with a sample() method or a "
                f"pipeline ending in one; got {type(synthesizer).__name__}."
            )
        synthetic = synthesizer.sample(n_samples=n, random_state=self.random_state)
        return synthetic, lambda X: marginal_error(X, synthetic, form=self.form, **kwargs)

    def __repr__(self):
        params = ", ".join(
            f"{name}={getattr(self, name)!r}"
            for name in (
                "degree",
                "form",
                "statistic",
                "space",
                "n_samples",
                "random_state",
                "max_marginals",
                "epsilon",
                "noise",
                "noise_random_state",
            )
        )
        return f"make_marginal_scorer({params})"


def _noise_generator(noise_random_state):
    """Generator of a DP score's noise: fresh OS entropy, or the caller's Generator."""
    if noise_random_state is None:
        return np.random.default_rng()
    return noise_random_state


def _check_noise_random_state(noise_random_state):
    if noise_random_state is None or isinstance(noise_random_state, np.random.Generator):
        return noise_random_state
    raise TypeError(
        "noise_random_state must be None (fresh entropy at every call) or a "
        "numpy.random.Generator (advanced at every call); got "
        f"{noise_random_state!r}.  A fixed seed would add the same noise to every score, "
        "and differences of scores would be exact."
    )


def make_marginal_scorer(
    degree=2,
    form="table",
    statistic="mean",
    space="encoded",
    n_samples=None,
    random_state=0,
    max_marginals=None,
    epsilon=None,
    noise="continuous",
    noise_random_state=None,
):
    """Scorer for model selection of synthesizers: ``scorer(estimator, X, y=None)``.

    The scorer draws ``n_samples`` synthetic records (default ``len(X)``) and returns
    the **negated** marginal error against the held-out ``X`` (greater is better), so
    it can be passed as ``GridSearchCV(..., scoring=scorer)`` with ``y=None``.

    Parameters
    ----------
    degree : int, default=2
        Marginal degree ``d``.
    form : {"table", "conjunction"}, default="table"
        Boolean-matrix error form (see :func:`marginal_errors`); ``space="decoded"``
        needs ``"table"``.
    statistic : {"mean", "max", "rms"}, default="mean"
        Summary over column sets; ``form="table", statistic="mean"`` is the mean total
        variation distance.
    space : {"encoded", "decoded"}, default="encoded"
        Where a *pipeline* is evaluated.  ``"encoded"`` (default; it scores the encoded
        bits, and with a one-hot encoding the encoded pairs' conjunctions contain every
        cell of the decoded 2-way tables, but the averages differ):
        ``X_enc = pipeline[:-1].transform(X)`` against, for a pipeline with a decoding
        ``sample`` (e.g. ``SynthesisPipeline``), the released records encoded again,
        ``pipeline[:-1].transform(pipeline.sample(...))`` — so the score is that of
        what the pipeline actually outputs (its one-hot-respecting rounding, not the
        synthesizer's coordinate-wise rounding) — and otherwise
        ``pipeline[-1].sample(...)``, all with :func:`marginal_error`.  ``"decoded"``
        (the benchmark metric of ``benchmarks/RESULTS.md``):
        ``pipeline.sample(...)`` (the pipeline's own decoding ``sample``, e.g.
        ``SynthesisPipeline``) against ``X`` with :func:`categorical_marginal_tvd`, which
        treats every distinct value as a category: right for categorical and
        integer-coded columns, not for float columns binned by the encoder (decoded to
        bin midpoints, never equal to the raw values) — score those with
        ``"encoded"``.  A bare synthesizer has no decoder and is always compared in its
        own space with :func:`marginal_error`.
    n_samples : int, optional
        Number of synthetic records per evaluation; None uses ``len(X)``.
    random_state : None, int or numpy.random.Generator, default=0
        Passed to ``sample`` and to the column-subset choice.  The fixed default makes
        every candidate of a search use the same seed (common random numbers).
    max_marginals : int, optional
        Random subset of column sets (see :func:`marginal_errors`).
    epsilon : float, optional
        Make each score an ``epsilon``-DP release: the exact score plus Laplace noise
        of scale ``1/(n·epsilon)``, ``n = len(X)`` the number of scored real rows (the
        replace-one sensitivity of every form and statistic above is ``1/n``; see the
        :doc:`User Guide <user_guide/tuning>`).  Each call is charged to the active
        :class:`~skprivsynth.PrivacyAccountant` before its noise is drawn, and scoring
        a DP synthesizer no longer warns.  None (default): the exact score, which warns
        :class:`~skprivsynth.exceptions.PrivacyLeakWarning` for a DP synthesizer.
    noise : {"continuous", "discrete"}, default="continuous"
        Laplace sampler of :func:`~skprivsynth.privacy.laplace_mechanism`.
    noise_random_state : None or numpy.random.Generator, default=None
        Source of the score noise: None draws fresh OS entropy at every call; a
        Generator (for tests) is advanced at every call.  An int is refused: the same
        noise on every score would leave their differences exact.

    Returns
    -------
    MarginalScorer
        A picklable callable.

    Examples
    --------
    >>> from skprivsynth.metrics import make_marginal_scorer
    >>> make_marginal_scorer(degree=3, max_marginals=200)
    make_marginal_scorer(degree=3, form='table', statistic='mean', space='encoded', \
n_samples=None, random_state=0, max_marginals=200, epsilon=None, noise='continuous', \
noise_random_state=None)
    """
    _check_option(form, "form", _FORMS)
    _check_option(statistic, "statistic", _STATISTICS)
    _check_option(space, "space", _SPACES)
    if space == "decoded" and form != "table":
        raise ValueError(
            f"space='decoded' compares categorical tables and needs form='table'; got "
            f"form={form!r}."
        )
    if isinstance(degree, bool) or not isinstance(degree, Integral | np.integer) or degree < 1:
        raise ValueError(f"degree must be a positive integer; got {degree!r}.")
    if n_samples is not None and (
        isinstance(n_samples, bool)
        or not isinstance(n_samples, Integral | np.integer)
        or n_samples < 1
    ):
        raise ValueError(f"n_samples must be a positive integer or None; got {n_samples!r}.")
    _check_max_marginals(max_marginals)
    if epsilon is not None:
        epsilon = check_epsilon(epsilon)
    _check_option(noise, "noise", NOISE_OPTIONS)
    return MarginalScorer(
        degree=int(degree),
        form=form,
        statistic=statistic,
        space=space,
        n_samples=None if n_samples is None else int(n_samples),
        random_state=random_state,
        max_marginals=max_marginals,
        epsilon=epsilon,
        noise=noise,
        noise_random_state=_check_noise_random_state(noise_random_state),
    )


# --------------------------------------------------------------------------- utility

_UTILITY_METRICS = ("accuracy", "balanced_accuracy", "roc_auc")
_UTILITY_ROWS = ("synthetic", "real", "majority class")


def _check_target(target, frame, name):
    if target not in frame.columns:
        raise ValueError(
            f"target must be a column of {name}; got {target!r}; its columns are "
            f"{list(frame.columns)}."
        )
    if frame.shape[1] < 2:
        raise ValueError(f"{name} needs at least one column besides target={target!r}.")


def _utility_arrays(frames, names, target, domain, target_spec):
    """Features, target codes and the categorical mask of each table.

    Numeric features (declared bins, or undeclared numeric columns) stay numbers:
    the classifier bins them itself.  Levels become integer codes, categorical when
    there are at most 255 of them (the classifier's limit), ordinal codes otherwise.
    The target is coded by ``target_spec`` (levels or bins): one class per code.
    """
    columns = [c for c in frames[0].columns if c != target]
    features = [np.empty((len(f), len(columns))) for f in frames]
    categorical = np.zeros(len(columns), dtype=bool)
    for j, column in enumerate(columns):
        spec = domain.get(column)
        if isinstance(spec, Bins) or (spec is None and _is_numeric(frames[0][column])):
            for out, frame in zip(features, frames, strict=True):
                out[:, j] = pd.to_numeric(frame[column], errors="coerce").to_numpy(np.float64)
            continue
        if spec is None:
            spec = tuple(_observed_levels(pd.concat([f[column] for f in frames])))
        for out, frame, name in zip(features, frames, names, strict=True):
            out[:, j], _ = _domain_codes(frame[column], spec, column, name)
        categorical[j] = len(spec) <= _MAX_CATEGORIES
    for frame, name in zip(frames, names, strict=True):
        if frame[target].isna().any():
            raise ValueError(
                f"target={target!r} has missing values in {name}; predict a column "
                "without missing values, or fill them with a level of their own."
            )
    labels = [
        _domain_codes(frame[target], target_spec, target, name)[0]
        for frame, name in zip(frames, names, strict=True)
    ]
    return features, labels, categorical


def _class_probabilities(model, X, n_classes):
    """``predict_proba`` of ``model`` with one column per class code ``0..K-1``."""
    proba = np.zeros((X.shape[0], n_classes))
    proba[:, model.classes_] = model.predict_proba(X)
    return proba


def _utility_scores(y_true, proba):
    """Accuracy, balanced accuracy and (macro one-vs-rest) ROC AUC of class scores.

    The predicted class is the most probable (lowest code on ties).  Balanced
    accuracy is the mean recall over the classes present in ``y_true``; ROC AUC the
    mean over the classes present with both positives and negatives (for two classes,
    the usual ROC AUC), NaN when there is none.
    """
    from sklearn.metrics import roc_auc_score

    predicted = np.argmax(proba, axis=1)
    present = np.unique(y_true)
    recalls = [np.mean(predicted[y_true == c] == c) for c in present]
    aucs = [roc_auc_score(y_true == c, proba[:, c]) for c in present if np.any(y_true != c)]
    return {
        "accuracy": float(np.mean(predicted == y_true)),
        "balanced_accuracy": float(np.mean(recalls)),
        "roc_auc": float(np.mean(aucs)) if aucs else float("nan"),
    }


def _train_and_score(estimator, X_train, y_train, X_test, y_test, n_classes):
    from sklearn.base import clone

    classes = np.unique(y_train)
    if classes.size == 1:  # nothing to learn: every test row gets the only class
        proba = np.zeros((X_test.shape[0], n_classes))
        proba[:, classes[0]] = 1.0
    else:
        model = clone(estimator).fit(X_train, y_train)
        proba = _class_probabilities(model, X_test, n_classes)
    return _utility_scores(y_test, proba)


def _default_classifier(categorical, random_state):
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(
        categorical_features=categorical, random_state=random_state
    )


def _target_spec(target, real, synth, domain):
    """The target's classes: its declared levels or bins, else as evaluation_domain
    reads it from the data (numeric targets with many values in quantile bins)."""
    if target in domain:
        return domain[target]
    return evaluation_domain(real[[target]], synth[[target]])[target]


def _as_table_pair(real_df, synth_df, real_name, synth_name):
    real = _as_frame(real_df, real_name)
    synth = _as_frame(synth_df, synth_name)
    if set(real.columns) != set(synth.columns) or real.shape[1] != synth.shape[1]:
        raise ValueError(
            f"{real_name} and {synth_name} must have the same columns; got "
            f"{list(real.columns)} and {list(synth.columns)}."
        )
    return real, synth[list(real.columns)]


def train_synthetic_test_real(
    real_df,
    synth_df,
    target,
    *,
    holdout=None,
    domain=None,
    test_size=0.25,
    estimator=None,
    random_state=0,
):
    """Utility of synthetic data: train on synthetic rows, test on held-out real rows.

    A classifier of ``target`` is trained on the synthetic table and tested on real
    rows the comparison classifier did not see ("train on synthetic, test on real",
    TSTR; Esteban, Hyland & Rätsch, *Real-valued (medical) time series generation
    with recurrent conditional GANs*, 2017, Sect. 4.2); the same classifier trained on
    the real training rows (TRTR) is the ceiling, and always predicting the majority
    class of the real training rows the floor.  Synthetic data good for this task
    scores close to the real row.

    The held-out real rows are ``holdout`` when given, else a random ``test_size``
    share of ``real_df`` (stratified on the target when every class has two rows).
    Use ``holdout`` with rows the synthesizer was not fitted on: otherwise a
    synthesizer that copies real rows is tested on rows it has seen.

    Parameters
    ----------
    real_df : pandas.DataFrame or 2-D array-like
        Real table (the synthesizer's input).
    synth_df : pandas.DataFrame or 2-D array-like
        Synthetic table with the same columns.
    target : column label
        The column to predict.  Its classes are its declared levels or bins, else
        those :func:`evaluation_domain` reads from the data.
    holdout : pandas.DataFrame or 2-D array-like, optional
        Real test rows (then every row of ``real_df`` trains the real classifier).
    domain : dict or Domain, optional
        Declared domain of some columns: levels become categorical codes (values
        outside raise), numeric bins stay numbers.  Undeclared numeric columns stay
        numbers; other undeclared columns get the levels observed in the tables.
    test_size : float, default=0.25
        Share of ``real_df`` held out when ``holdout`` is None, in ``(0, 1)``.
    estimator : classifier, optional
        Any scikit-learn classifier with ``predict_proba`` (cloned for each fit); by
        default :class:`~sklearn.ensemble.HistGradientBoostingClassifier` with the
        coded levels as native categorical features.
    random_state : int, default=0
        Seed of the split and of the default classifier.

    Returns
    -------
    pandas.DataFrame
        Rows ``"synthetic"``, ``"real"``, ``"majority class"`` (trained on), columns
        ``accuracy``, ``balanced_accuracy`` (mean recall over the classes of the test
        rows), ``roc_auc`` (macro one-vs-rest over the test classes; the usual ROC AUC
        for two classes) and ``n_train``; all tested on the same real rows.

    See Also
    --------
    make_utility_scorer : The TSTR score of a synthesis pipeline, for model selection.

    Examples
    --------
    The synthesizer is fitted on 3,000 Adult rows; the next 1,000 are held out (the
    classifiers are not run here; ``tests/test_report.py`` checks them):

    >>> from skprivsynth import MarginalSynthesizer, make_private_pipeline
    >>> from skprivsynth.datasets import load_adult
    >>> from skprivsynth.metrics import train_synthetic_test_real
    >>> adult = load_adult()
    >>> real, holdout = adult.data.iloc[:3000], adult.data.iloc[3000:4000]
    >>> pipe = make_private_pipeline(MarginalSynthesizer(epsilon=1.0), adult.domain)
    >>> synthetic = pipe.fit(real).sample()  # doctest: +SKIP
    >>> train_synthetic_test_real(real, synthetic, "income>50K", holdout=holdout,
    ...                           domain=adult.domain).round(3)  # doctest: +SKIP
                    accuracy  balanced_accuracy  roc_auc  n_train
    trained on
    synthetic          0.793              0.681    0.819     3000
    real               0.825              0.735    0.876     3000
    majority class     0.750              0.500    0.500     3000
    """
    from sklearn.model_selection import train_test_split

    real, synth = _as_table_pair(real_df, synth_df, "real_df", "synth_df")
    _check_target(target, real, "real_df")
    declared = {} if domain is None else _as_domain(domain, "domain")
    if holdout is None:
        if not (isinstance(test_size, float) and 0.0 < test_size < 1.0):
            raise ValueError(f"test_size must be a float in (0, 1); got {test_size!r}.")
        counts = real[target].value_counts()
        stratify = real[target] if counts.min() >= 2 else None
        train, test = train_test_split(
            real, test_size=test_size, random_state=random_state, stratify=stratify
        )
    else:
        train, test = _as_table_pair(real, holdout, "real_df", "holdout")
    spec = _target_spec(target, pd.concat([train, test]), synth, declared)
    (X_synth, X_train, X_test), (y_synth, y_train, y_test), categorical = _utility_arrays(
        [synth, train, test], ["synth_df", "real_df", "the real test rows"], target, declared, spec
    )
    if estimator is None:
        estimator = _default_classifier(categorical, random_state)
    n_classes = len(spec)
    majority = np.zeros((len(y_test), n_classes))
    majority[:, np.argmax(np.bincount(y_train, minlength=n_classes))] = 1.0
    rows = {
        "synthetic": _train_and_score(estimator, X_synth, y_synth, X_test, y_test, n_classes),
        "real": _train_and_score(estimator, X_train, y_train, X_test, y_test, n_classes),
        "majority class": {**_utility_scores(y_test, majority), "roc_auc": 0.5},
    }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table["n_train"] = [len(y_synth), len(y_train), len(y_train)]
    table.index.name = "trained on"
    return table


class UtilityScorer:
    """Scorer ``scorer(pipeline, X, y=None) ->`` TSTR utility on ``X`` (greater is better).

    Build it with :func:`make_utility_scorer`; the attributes are its parameters.  A
    plain class, so that it pickles for ``GridSearchCV(n_jobs=...)``.
    """

    def __init__(
        self,
        target,
        metric="balanced_accuracy",
        n_samples=None,
        domain=None,
        estimator=None,
        random_state=0,
    ):
        self.target = target
        self.metric = metric
        self.n_samples = n_samples
        self.domain = domain
        self.estimator = estimator
        self.random_state = random_state

    def __call__(self, estimator, X, y=None):
        """Train a classifier on ``estimator``'s synthetic sample, score it on ``X``.

        Parameters
        ----------
        estimator : fitted synthesizer or synthesis pipeline
            It has ``sample(n_samples, random_state)``; a
            :class:`~skprivsynth.SynthesisPipeline` returns decoded records.
        X : DataFrame or array-like
            Held-out real rows (with integer column labels when not a DataFrame).
        y : ignored
            Present for the scorer protocol of scikit-learn.

        Returns
        -------
        float
            The ``metric`` of the classifier trained on the synthetic sample and
            tested on ``X``; an exact function of ``X``, which warns
            :class:`~skprivsynth.exceptions.PrivacyLeakWarning` for a differentially
            private synthesizer.
        """
        _warn_if_differentially_private(estimator)
        if not hasattr(estimator, "sample"):
            raise TypeError(
                "the scored estimator must be a synthesizer or a synthesis pipeline with "
                f"a sample() method; got {type(estimator).__name__}."
            )
        real = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
        synthetic = estimator.sample(n_samples=self.n_samples, random_state=self.random_state)
        if not isinstance(synthetic, pd.DataFrame):
            synthetic = pd.DataFrame(np.asarray(synthetic), columns=real.columns)
        real, synthetic = _as_table_pair(real, synthetic, "X", "the synthetic sample")
        _check_target(self.target, real, "X")
        declared = {} if self.domain is None else _as_domain(self.domain, "domain")
        spec = _target_spec(self.target, real, synthetic, declared)
        (X_synth, X_real), (y_synth, y_real), categorical = _utility_arrays(
            [synthetic, real], ["the synthetic sample", "X"], self.target, declared, spec
        )
        model = self.estimator
        if model is None:
            model = _default_classifier(categorical, self.random_state)
        scores = _train_and_score(model, X_synth, y_synth, X_real, y_real, len(spec))
        return scores[self.metric]

    def __repr__(self):
        params = ", ".join(
            f"{name}={getattr(self, name)!r}"
            for name in ("target", "metric", "n_samples", "domain", "estimator", "random_state")
        )
        return f"make_utility_scorer({params})"


def make_utility_scorer(
    target,
    *,
    metric="balanced_accuracy",
    n_samples=None,
    domain=None,
    estimator=None,
    random_state=0,
):
    """Scorer of the utility of a synthesizer for predicting ``target`` (TSTR).

    ``scorer(pipeline, X)`` draws a synthetic sample from the fitted ``pipeline``,
    trains a classifier of ``target`` on it and returns its ``metric`` on the
    held-out real rows ``X`` (greater is better): the "synthetic" row of
    :func:`train_synthetic_test_real`, with the fold left out by
    :func:`~sklearn.model_selection.cross_val_score` or
    :class:`~sklearn.model_selection.GridSearchCV` as the test rows, which the
    synthesizer has not seen.

    The score is an exact function of the real rows ``X``: for a differentially
    private synthesizer it warns :class:`~skprivsynth.exceptions.PrivacyLeakWarning`,
    as :func:`make_marginal_scorer` does, and a choice made from it is not covered
    by the synthesizer's ε (see the :doc:`User Guide <user_guide/tuning>`).

    Parameters
    ----------
    target : column label
        The column to predict (an integer column index when ``X`` is an array).
    metric : {"balanced_accuracy", "accuracy", "roc_auc"}, default="balanced_accuracy"
        As in :func:`train_synthetic_test_real`.
    n_samples : int, optional
        Size of the synthetic training sample; None: the synthesizer's default (the
        number of rows it was fitted on).
    domain : dict or Domain, optional
        Declared domain of some columns, as in :func:`train_synthetic_test_real`.
    estimator : classifier, optional
        Classifier with ``predict_proba``; by default
        :class:`~sklearn.ensemble.HistGradientBoostingClassifier` with native
        categorical features.
    random_state : int, default=0
        Seed of the synthetic sample and of the default classifier (the same for
        every candidate of a search: common random numbers).

    Returns
    -------
    UtilityScorer
        A picklable callable.

    Examples
    --------
    >>> from skprivsynth.metrics import make_utility_scorer
    >>> make_utility_scorer("income>50K", metric="roc_auc")
    make_utility_scorer(target='income>50K', metric='roc_auc', n_samples=None, \
domain=None, estimator=None, random_state=0)
    """
    _check_option(metric, "metric", _UTILITY_METRICS)
    if n_samples is not None:
        n_samples = _check_count(n_samples, "n_samples", 1)
    if domain is not None:
        domain = _as_domain(domain, "domain")
    return UtilityScorer(
        target=target,
        metric=metric,
        n_samples=n_samples,
        domain=domain,
        estimator=estimator,
        random_state=random_state,
    )
