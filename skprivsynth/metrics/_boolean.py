"""Marginals of Boolean matrices: :class:`MarginalErrors`, :func:`marginal_errors`,
:func:`marginal_error` and their vectorised kernels."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._combinations import _metric_sets
from ._validation import (
    _check_matrix,
    _check_option,
    _check_weights,
    _check_widths,
)

_FORMS = ("conjunction", "table")
_STATISTICS = ("mean", "max", "rms")

# Refuse table-form accumulators with more than this many (column set, cell) entries.
_MAX_TABLE_ENTRIES = 2**26
# Elements of one temporary (column sets × rows) float64 block: 2^16 · 8 B = 512 kB, so
# the d + 1 live temporaries stay in cache (measured ~10x faster than 16 MB blocks).
_CHUNK_ELEMENTS = 2**16
# Rows converted (float64 or transposed) at a time.
_ROW_CHUNK = 4_096
# XᵀX path for d = 2 only while the p × p Gram matrix stays small (32 MB).
_GRAM_MAX_FEATURES = 2_048


@dataclass(frozen=True, eq=False)
class MarginalErrors:
    """Per-column-set marginal errors.

    Attributes
    ----------
    column_sets : ndarray of shape (M, d), int64, or list of M tuples
        Column indices of each set, each row increasing, rows in lexicographic order;
        with ``workload=``, its sets in its order (a list of tuples when their sizes
        differ).
    errors : ndarray of shape (M,), float64
        Error of each set: absolute difference (conjunction form) or total variation
        distance (table form), in ``[0, 1]``.
    form : str
        ``"conjunction"`` or ``"table"``.
    feature_names : ndarray of shape (p,) or None
        Column names when the inputs were DataFrames (categorical metrics).
    """

    column_sets: np.ndarray | list
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


def _errors(blocks, p, sets, form):
    """Errors of ``sets``, an (M, d) array of sets of one size d: the fastest kernel."""
    d = sets.shape[1]
    if d == 1:
        return np.abs(_means(blocks, p)[sets[:, 0]])
    if d == 2 and p <= _GRAM_MAX_FEATURES:
        return _degree2_gram_errors(blocks, p, sets, form)
    return _chunked_errors(blocks, sets, form)


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
    workload=None,
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
        Evaluate a uniform random subset of this many column sets (see
        :mod:`skprivsynth.metrics`); None evaluates all ``C(p, d)`` sets.
    random_state : None, int or numpy.random.Generator, optional
        Seed of the random subset.
    sample_weight_X, sample_weight_Y : array-like of shape (n_x,) / (n_y,), optional
        Non-negative row weights (normalised here); e.g. ``Y`` = candidate records of a
        synthesizer with their probabilities.
    workload : list of column sets, optional
        Evaluate exactly these sets (e.g. ``[(0, 1), (2, 3, 4)]``, the ``workload`` of
        :class:`~skprivsynth.MarginalSynthesizer`), in this order, instead of the
        ``degree``-way sets; ``degree`` is then ignored and ``max_marginals`` must be
        None.

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
    w_x = _check_weights(sample_weight_X, X.shape[0], "sample_weight_X")
    w_y = _check_weights(sample_weight_Y, Y.shape[0], "sample_weight_Y")
    sets, groups = _metric_sets(p, degree, max_marginals, random_state, workload)
    cells = sum(g.shape[0] * 2 ** g.shape[1] for _, g in groups)
    if form == "table" and cells > _MAX_TABLE_ENTRIES:
        raise ValueError(
            f"form='table' with {sum(g.shape[0] for _, g in groups)} column sets of up to "
            f"{groups[-1][1].shape[1]} columns needs {cells} table cells (limit "
            f"{_MAX_TABLE_ENTRIES}); lower degree or max_marginals, use fewer sets, or "
            "use form='conjunction'."
        )
    blocks = [(X, w_x, 1.0), (Y, w_y, -1.0)]
    errors = np.empty(sum(g.shape[0] for _, g in groups))
    for positions, group in groups:
        errors[positions] = _errors(blocks, p, group, form)
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
    workload=None,
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
        workload=workload,
    )
    return result.summary(statistic)
