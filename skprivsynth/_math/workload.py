"""Workloads of linear statistics over Boolean records: marginals and bounded functions.

A *workload* is a finite family ``F`` of test functions ``f : {0,1}^p -> [lo_f, hi_f]``.
The statistic vector of a dataset ``X`` (n rows) is ``s_f = (1/n) Σ_i f(x_i)``.  Over a
finite set of candidate records ``z_1..z_m`` the workload is the *query matrix*
``Q[f, j] = f(z_j)`` of shape ``(n_queries, n_records)`` — **rows are queries, columns are
records** — so that for a probability vector ``h`` over the records, ``Q @ h`` is the
statistic vector of the weighted records, and ``answers(X) == Q(X) @ ones(n) / n``.

Three workloads are provided:

:class:`MarginalWorkload`
    Marginals over column sets ``J`` (all sets of size ``1..degree``, or a user list),
    either as *full marginal tables* (``kind="table"``: one query per cell
    ``v ∈ {0,1}^|J|``, ``f(x) = 1[x_J = v]``) or as *conjunctions* (``kind="conjunction"``:
    one query per set, ``f(x) = Π_{j∈J} x_j``), optionally preceded by the constant
    function 1.  Query matrices are scipy sparse (a table query matrix has exactly one
    nonzero per table per record) and are never formed over the whole cube ``2^p``.
:class:`FunctionWorkload`
    A user callable ``records -> values`` with *declared* bounds ``lo_f <= f <= hi_f``.
:class:`BlockMarginalWorkload`
    For one-hot data with declared ``feature_blocks``: the categorical tables of
    ``1..degree`` blocks (one conjunction query per cell).

All expose the same methods: ``query_matrix(records)``, ``answers(X, chunk_size)``,
``l1_sensitivity(n)``, ``query_bounds()`` and ``max_nnz(n_records)``.

Sensitivity (replace-one neighbours, ``n`` public)
--------------------------------------------------
Replacing row ``x`` by ``x'`` changes ``s`` by ``(F(x') - F(x)) / n``, so the exact L1
sensitivity is ``max_{x, x'} ||F(x) - F(x')||_1 / n``:

* full tables: a changed row leaves one cell and enters one cell of every table whose
  columns it changes; taking ``x' = 1 - x`` changes all of them, so
  ``Δ_1 = 2 · (number of tables of degree >= 1) / n`` (the constant function never moves);
* conjunctions: ``x = 0``, ``x' = 1`` flips every conjunction, so ``Δ_1 = (number of sets) / n``
  — this is ``Σ_f (hi_f - lo_f) / n`` with ``[lo_f, hi_f] = [0, 1]``;
* block tables: every query first maps the row, by a fixed public rule, to one with at
  most one bit per block (:func:`project_one_hot`: a block with several bits set is read
  as empty), so each row lies in *at most one* cell of every categorical table, for
  every ``x`` in the cube, one-hot or not; hence ``Δ_1 = 2 · n_block_tables / n`` (exact
  when every block has at least 2 columns);
* generic bounded functions: ``Δ_1 = Σ_f (hi_f - lo_f) / n`` (an upper bound, exact when the
  extremes are attained jointly; the constant function contributes 0).

All of these are *computed* from the workload by :meth:`l1_sensitivity`.
"""

from __future__ import annotations

import collections
import copy
import itertools
import math
from itertools import combinations, product
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_scalar

__all__ = [
    "BlockMarginalWorkload",
    "FunctionWorkload",
    "MAX_WORKLOAD_QUERIES",
    "MarginalWorkload",
    "check_feature_blocks",
    "check_column_sets",
    "check_workload",
    "project_one_hot",
    "weighted_column_sets",
    "workload_closure",
]

#: Largest number of queries a workload may have; building one larger raises an error
#: naming ``degree`` (the number of column sets grows like ``C(p, degree)``).
MAX_WORKLOAD_QUERIES = 10_000_000

# Default number of (record, table) entries processed per chunk: bounds temporaries to
# a few tens of MB whatever the number of records.
_CHUNK_ENTRIES = 4_000_000


def _check_records(records, n_features, name="records"):
    """Return ``records`` as a 2-D uint8 array after checking width and {0,1} entries."""
    Z = np.asarray(records)
    if Z.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n, {n_features}); "
            f"got an array with shape {Z.shape}."
        )
    if Z.shape[1] != n_features:
        raise ValueError(
            f"{name} must have {n_features} columns (the workload's n_features); got {Z.shape[1]}."
        )
    if Z.dtype == np.uint8 or Z.dtype == np.bool_:
        Zu = Z.view(np.uint8) if Z.dtype == np.bool_ else Z
        if Zu.size and Zu.max() > 1:
            raise ValueError(f"{name} must have entries in {{0, 1}} only.")
        return Zu
    # ``X`` may be private: the message names no row, column or value.
    if ((Z != 0) & (Z != 1)).any():
        raise ValueError(
            f"{name} must have entries in {{0, 1}} only; encode other data with "
            "skprivsynth.preprocessing.BooleanEncoder."
        )
    return Z.astype(np.uint8)


def _chunk_rows(n_rows, width, chunk_size):
    """Row chunk size: ``chunk_size`` if given, else about _CHUNK_ENTRIES / width rows."""
    if chunk_size is None:
        return max(1, _CHUNK_ENTRIES // max(int(width), 1))
    return int(check_scalar(chunk_size, "chunk_size", Integral, min_val=1))


class MarginalWorkload:
    """Marginal queries (full tables or conjunctions) over Boolean columns.

    Parameters
    ----------
    n_features : int
        Number of Boolean columns ``p``.
    degree : int, default=2
        Include every column set of size ``1..degree`` (ignored when ``column_sets`` is
        given).  Must satisfy ``1 <= degree <= n_features``.
    kind : {"table", "conjunction"}, default="table"
        ``"table"``: one query per cell of each marginal table (``2^|J|`` queries per set
        ``J``).  ``"conjunction"``: one query per set, the fraction of rows with all of
        ``x_J = 1`` (the d-way marginals of Boedihardjo, Strohmer and Vershynin,
        "Covariance's loss is privacy's gain").
    column_sets : sequence of sequences of int, optional
        Custom list of column sets (each non-empty, distinct columns in ``[0, p)``, no
        repeated set).  Sets are stored sorted inside and grouped by size (stable order
        within a size); ``column_sets_`` gives the resulting order.
    include_constant : bool, default=True
        Prepend the constant function 1 (query row 0).  Its statistic is always 1, it
        has sensitivity 0, and in a reweighting LP it is the density constraint
        ``Σ h = 1`` (Theorem 2.3 of Boedihardjo, Strohmer and Vershynin, "Privacy of
        synthetic data: a statistical framework", assumes ``1 ∈ F``).

    Attributes
    ----------
    column_sets_ : list of tuple of int
        The column sets in query order.
    n_tables : int
        Number of column sets (tables) of degree >= 1.
    n_queries : int
        Number of queries (rows of :meth:`query_matrix`).

    Notes
    -----
    Query order: the constant (if any), then one block per column set in
    ``column_sets_`` order; for ``kind="table"`` a block has ``2^k`` cells, the cell of a
    record being the binary number ``x_{J[0]} x_{J[1]} ... x_{J[k-1]}`` (first column most
    significant).  :meth:`table_slices` gives each set's rows.

    Cost: :meth:`query_matrix` and :meth:`answers` take O(n_records · n_tables · degree)
    time, in row chunks of about 4·10^6 (record, table) entries.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.workload import MarginalWorkload
    >>> W = MarginalWorkload(3, degree=2)
    >>> W.n_tables, W.n_queries
    (6, 19)
    >>> X = np.array([[0, 1, 1], [1, 1, 0]])
    >>> W.answers(X)[:5].tolist()      # constant, then the 1-way table of column 0
    [1.0, 0.5, 0.5, 0.0, 1.0]
    >>> W.l1_sensitivity(n=2)          # 2 * 6 tables / n
    6.0
    """

    def __init__(
        self, n_features, degree=2, *, kind="table", column_sets=None, include_constant=True
    ):
        check_scalar(n_features, "n_features", Integral, min_val=1)
        if kind not in ("table", "conjunction"):
            raise ValueError(f"kind must be 'table' or 'conjunction'; got {kind!r}.")
        self.n_features = p = int(n_features)
        self.kind = kind
        self.include_constant = bool(include_constant)
        if column_sets is None:
            self.degree = int(check_scalar(degree, "degree", Integral, min_val=1, max_val=p))
            self._check_size(
                {k: math.comb(p, k) for k in range(1, self.degree + 1)}, "degree", degree
            )
            groups = {
                k: np.array(list(combinations(range(p), k)), dtype=np.intp).reshape(-1, k)
                for k in range(1, self.degree + 1)
            }
        else:
            groups = self._custom_groups(column_sets, p)
            self.degree = max(groups)
            self._check_size(
                {k: len(g) for k, g in groups.items()},
                "column_sets",
                f"<{sum(len(g) for g in groups.values())} sets>",
            )
        self._groups = [(k, groups[k]) for k in sorted(groups)]
        self.column_sets_ = [tuple(int(c) for c in row) for _, S in self._groups for row in S]
        self.n_tables = len(self.column_sets_)
        # Row offset of each group's first query, and per-set block sizes.
        offsets, start = [], int(self.include_constant)
        for k, S in self._groups:
            offsets.append(start)
            start += len(S) * self._block(k)
        self._offsets = offsets
        self.n_queries = start

    def _block(self, k):
        return 2**k if self.kind == "table" else 1

    def _check_size(self, sets_per_size, param, value):
        """Refuse, before enumerating, a workload above MAX_WORKLOAD_QUERIES queries."""
        n_queries = sum(c * self._block(k) for k, c in sets_per_size.items())
        if n_queries > MAX_WORKLOAD_QUERIES:
            raise ValueError(
                f"{param}={value!r} gives a workload of {n_queries:,} queries over "
                f"{self.n_features} columns, above the limit MAX_WORKLOAD_QUERIES="
                f"{MAX_WORKLOAD_QUERIES:,}; lower {param}."
            )

    @staticmethod
    def _custom_groups(column_sets, p):
        groups = {}
        for cols in check_column_sets(column_sets, p):
            groups.setdefault(len(cols), []).append(cols)
        return {k: np.array(v, dtype=np.intp).reshape(-1, k) for k, v in groups.items()}

    # ------------------------------------------------------------------ structure
    def table_slices(self):
        """Return ``[(column_set, slice_of_query_rows), ...]`` in query order."""
        out, idx = [], 0
        for (k, S), off in zip(self._groups, self._offsets, strict=True):
            b = self._block(k)
            for t in range(len(S)):
                out.append((self.column_sets_[idx], slice(off + t * b, off + (t + 1) * b)))
                idx += 1
        return out

    def query_bounds(self):
        """Return ``(lower, upper)``: every query takes values in ``[lower_f, upper_f]``.

        Marginal queries are indicators (``[0, 1]``); the constant is ``[1, 1]``.
        """
        lo = np.zeros(self.n_queries)
        hi = np.ones(self.n_queries)
        if self.include_constant:
            lo[0] = 1.0
        return lo, hi

    def l1_sensitivity(self, n):
        """Exact replace-one L1 sensitivity of the statistic vector for ``n`` rows.

        ``2 · n_tables / n`` for full tables (a replaced row leaves one cell and enters
        another in each table it moves in, and ``x' = 1 - x`` moves in all of them);
        ``n_tables / n`` for conjunctions (``x = 0 → x' = 1`` flips all of them).  The
        constant function contributes 0.
        """
        n = _check_n(n)
        per_table = 2.0 if self.kind == "table" else 1.0
        return per_table * self.n_tables / n

    @property
    def sensitivity_rule(self):
        """Why :meth:`l1_sensitivity` holds, in words (for privacy reports)."""
        if self.kind == "table":
            return "full tables: 2 * n_tables / n, one cell left and one entered per table"
        return "conjunctions: n_tables / n, each in [0, 1]"

    def max_nnz(self, n_records):
        """Upper bound on the nonzeros of :meth:`query_matrix` for ``n_records`` records.

        Exact for full tables (one nonzero per table per record, plus the constant).
        """
        per = self.n_tables + int(self.include_constant)
        return int(n_records) * per

    # ------------------------------------------------------------------ evaluation
    def _record_rows(self, Z):
        """Query rows hit by each record: int array (n_records, n_tables) (tables only)."""
        cols = []
        for (k, S), off in zip(self._groups, self._offsets, strict=True):
            cell = np.zeros((Z.shape[0], len(S)), dtype=np.int64)
            for j in range(k):
                cell <<= 1
                cell |= Z[:, S[:, j]]
            cell += off + (np.arange(len(S), dtype=np.int64) << k)[None, :]
            cols.append(cell)
        return np.concatenate(cols, axis=1)

    def _conjunctions(self, Z):
        """Conjunction values of each record: bool array (n_records, n_tables)."""
        cols = []
        for k, S in self._groups:
            val = Z[:, S[:, 0]].astype(bool)
            for j in range(1, k):
                val &= Z[:, S[:, j]].astype(bool)
            cols.append(val)
        return np.concatenate(cols, axis=1)

    def query_matrix(self, records, rows=None, chunk_size=None):
        """Sparse query matrix ``Q[f, j] = f(records[j])``.

        Parameters
        ----------
        records : array-like of shape (n_records, n_features)
            Boolean candidate records.
        rows : array-like of bool of shape (n_queries,), optional
            Keep only these query rows (the others are never formed); the result then
            has ``rows.sum()`` rows, in query order.
        chunk_size : int, optional
            Records processed at a time.

        Returns
        -------
        scipy.sparse.csc_matrix of shape (n_queries, n_records), float64
            Rows are queries, columns are records; row indices sorted in each column.
        """
        Z = _check_records(records, self.n_features)
        keep = self._check_rows(rows)
        new_index = None
        if keep is not None:
            new_index = np.cumsum(keep) - 1
        n_out = self.n_queries if keep is None else int(keep.sum())
        step = _chunk_rows(Z.shape[0], self.n_tables, chunk_size)
        indices, counts = [], []
        for start in range(0, Z.shape[0], step):
            chunk = self._prepare(Z[start : start + step])
            if self.kind == "table":
                hit = self._record_rows(chunk)
                if self.include_constant:
                    hit = np.concatenate([np.zeros((len(chunk), 1), np.int64), hit], axis=1)
                if keep is None:
                    indices.append(hit.ravel())
                    counts.append(np.full(len(chunk), hit.shape[1], dtype=np.int64))
                else:
                    mask = keep[hit]
                    indices.append(new_index[hit[mask]])
                    counts.append(mask.sum(axis=1))
            else:
                val = self._conjunctions(chunk)
                if self.include_constant:
                    val = np.concatenate([np.ones((len(chunk), 1), bool), val], axis=1)
                r, c = np.nonzero(val)  # row-major: sorted by record, then query
                c = c.astype(np.int64)
                if keep is not None:
                    mask = keep[c]
                    r, c = r[mask], new_index[c[mask]]
                indices.append(c)
                counts.append(np.bincount(r, minlength=len(chunk)))
        return _csc_from_columns(indices, counts, n_out, Z.shape[0])

    def _prepare(self, Z):
        """Row-wise map applied to every chunk before evaluation (identity here)."""
        return Z

    def _check_rows(self, rows):
        if rows is None:
            return None
        keep = np.asarray(rows)
        if keep.dtype != np.bool_ or keep.shape != (self.n_queries,):
            raise ValueError(
                f"rows must be a boolean mask of shape ({self.n_queries},); got "
                f"dtype {keep.dtype} and shape {keep.shape}."
            )
        return keep

    def counts(self, records, chunk_size=None):
        """Unnormalised statistic ``Σ_j f(records[j])`` for every query, in row chunks."""
        Z = _check_records(records, self.n_features)
        total = np.zeros(self.n_queries)
        step = _chunk_rows(Z.shape[0], self.n_tables, chunk_size)
        for start in range(0, Z.shape[0], step):
            chunk = self._prepare(Z[start : start + step])
            if self.kind == "table":
                total += np.bincount(self._record_rows(chunk).ravel(), minlength=self.n_queries)
            else:
                total[int(self.include_constant) :] += self._conjunctions(chunk).sum(axis=0)
        if self.include_constant:
            total[0] = Z.shape[0]
        return total

    def answers(self, X, chunk_size=None):
        """Statistic vector ``s_f = (1/n) Σ_i f(x_i)`` of the Boolean dataset ``X``.

        Computed in row chunks (``chunk_size`` rows at a time; default about
        ``4·10^6 / n_tables`` rows), never forming an ``n × n_queries`` matrix.

        Returns
        -------
        ndarray of shape (n_queries,)
        """
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[0] == 0:
            raise ValueError(f"X must be a non-empty 2-D array; got shape {X.shape}.")
        return self.counts(X, chunk_size=chunk_size) / X.shape[0]

    def __repr__(self):
        return (
            f"MarginalWorkload(n_features={self.n_features}, degree={self.degree}, "
            f"kind={self.kind!r}, n_tables={self.n_tables}, n_queries={self.n_queries})"
        )


class BlockMarginalWorkload(MarginalWorkload):
    """Marginal tables over one-hot blocks of Boolean columns (categorical tables).

    For one-hot data (exactly one bit set in every block of ``feature_blocks``), the
    categorical marginal table of a set ``B`` of blocks has one cell per choice of one
    column in each block of ``B``; its cell query is the conjunction of those columns.
    All tables of ``1..degree`` blocks are included.  Every query is evaluated on
    ``project_one_hot(x)`` (a block with two or more bits set is read as empty, all
    zero), the same fixed public map for data and candidate records, so the sensitivity
    below holds for *every* record of the cube and nothing has to be checked on the
    private data.

    Parameters
    ----------
    feature_blocks : list of slice or (start, stop) pairs
        Partition of the columns into one-hot blocks (see :func:`check_feature_blocks`).
    n_features : int
        Number of Boolean columns ``p``.
    degree : int, default=2
        Largest number of blocks per table (``1 <= degree <= n_blocks``).

    Attributes
    ----------
    n_block_tables : int
        Number of categorical tables (block sets); ``n_tables`` counts the cells.

    Notes
    -----
    Replace-one sensitivity: after :func:`project_one_hot` a record has at most one bit
    per block, so it lies in at most one cell of each categorical table; a replaced row
    leaves at most one cell and enters at most one per table, L1 sensitivity
    ``2 · n_block_tables / n`` for all datasets in ``{0,1}^p`` (without the projection a
    row with several bits in a block would lie in many cells at once and the bound would
    fail).  It is attained, hence exact, when every block has at least 2 columns (two
    one-hot rows differing in every block); with 1-column blocks it is an upper bound.
    For Adult's 14 blocks and degree 2 that is ``2 · 105 / n`` instead of ``2 · 4 465 / n`` for the
    bitwise tables of its 94 columns, for about as many queries.

    Examples
    --------
    >>> W = BlockMarginalWorkload([slice(0, 2), slice(2, 5)], n_features=5)
    >>> W.n_block_tables, W.n_queries      # 2 one-way + 1 two-way table; 1 + 5 + 6
    (3, 12)
    >>> W.l1_sensitivity(n=3)
    2.0
    """

    def __init__(self, feature_blocks, n_features, degree=2):
        blocks = check_feature_blocks(feature_blocks, n_features)
        check_scalar(degree, "degree", Integral, min_val=1)
        if degree > len(blocks):
            raise ValueError(
                f"degree={degree!r} must be an integer in [1, {len(blocks)}] (the number "
                "of feature_blocks) for block tables."
            )
        sizes = [b - a for a, b in blocks]
        n_cells = sum(math.prod(c) for k in range(1, degree + 1) for c in combinations(sizes, k))
        if n_cells > MAX_WORKLOAD_QUERIES:
            raise ValueError(
                f"Block tables of degree {degree} over {len(blocks)} feature_blocks have "
                f"{n_cells:,} cells, above MAX_WORKLOAD_QUERIES={MAX_WORKLOAD_QUERIES:,}; "
                "lower degree."
            )
        sets, n_block_tables = [], 0
        for k in range(1, degree + 1):
            for combo in combinations(blocks, k):
                n_block_tables += 1
                sets.extend(product(*(range(a, b) for a, b in combo)))
        super().__init__(n_features, kind="conjunction", column_sets=sets)
        self.feature_blocks = blocks
        self.block_degree = int(degree)
        self.n_block_tables = n_block_tables

    def l1_sensitivity(self, n):
        """``2 · n_block_tables / n`` (replace-one, any rows of the cube; see Notes)."""
        n = _check_n(n)
        return 2.0 * self.n_block_tables / n

    @property
    def sensitivity_rule(self):
        """Why :meth:`l1_sensitivity` holds, in words (for privacy reports)."""
        return (
            "block tables: 2 * n_block_tables / n, each row read through project_one_hot "
            "lies in at most one cell per table"
        )

    def _prepare(self, Z):
        return project_one_hot(Z, self.feature_blocks)

    def __repr__(self):
        return (
            f"BlockMarginalWorkload(n_blocks={len(self.feature_blocks)}, "
            f"degree={self.block_degree}, n_block_tables={self.n_block_tables}, "
            f"n_queries={self.n_queries})"
        )


def project_one_hot(Z, blocks):
    """Map each row to one with at most one bit set per block (a fixed public rule).

    A block of a row with two or more bits set is replaced by all zeros ("empty", as
    ``BooleanEncoder(handle_unknown="ignore")`` encodes an unknown value); blocks with
    zero or one bit are kept.  Being row-wise and data-independent, the map sends
    replace-one neighbours to replace-one neighbours (or to equal datasets), so any
    sensitivity derived for rows with at most one bit per block holds for every dataset
    in ``{0,1}^p`` -- without raising or warning on the private rows, which would itself
    reveal them.

    Parameters
    ----------
    Z : ndarray of shape (n, p) with entries in {0, 1}
    blocks : list of (start, stop) pairs
        Output of :func:`check_feature_blocks` (sorted, partitioning ``0..p-1``).

    Returns
    -------
    ndarray of the same shape and dtype (``Z`` itself if no block has several bits).
    """
    if Z.shape[0] == 0:
        return Z
    starts = np.array([a for a, _ in blocks])
    sizes = np.array([b - a for a, b in blocks])
    # int64 accumulator: a uint8 sum would wrap at 256 bits in one block.
    counts = np.add.reduceat(Z, starts, axis=1, dtype=np.int64)
    over = counts > 1
    if not over.any():
        return Z
    Z = Z.copy()
    Z[np.repeat(over, sizes, axis=1)] = 0
    return Z


def check_feature_blocks(feature_blocks, p):
    """Validate one-hot ``feature_blocks``; return sorted ``(start, stop)`` pairs or None.

    Accepts slices ``slice(start, stop)`` (step 1) or ``(start, stop)`` pairs that
    partition ``0..p-1`` (e.g. ``BooleanEncoder.feature_blocks_``); raises ``ValueError``
    naming ``feature_blocks`` otherwise.
    """
    if feature_blocks is None:
        return None
    accepted = (
        "a list of slice(start, stop) (step 1) or (start, stop) pairs of ints that "
        f"partition the columns 0..{p - 1}, e.g. BooleanEncoder.feature_blocks_"
    )
    pairs = []
    for k, block in enumerate(feature_blocks):
        if isinstance(block, slice):
            if block.step not in (None, 1):
                raise ValueError(
                    f"feature_blocks[{k}]={block!r} has step {block.step!r}; expected {accepted}."
                )
            start, stop = block.start if block.start is not None else 0, block.stop
        elif isinstance(block, (tuple, list)) and len(block) == 2:
            start, stop = block
        else:
            raise ValueError(f"feature_blocks[{k}]={block!r} is invalid; expected {accepted}.")
        if not all(isinstance(v, Integral) and not isinstance(v, bool) for v in (start, stop)):
            raise ValueError(
                f"feature_blocks[{k}]={block!r} must have integer start and stop; "
                f"expected {accepted}."
            )
        if not 0 <= start < stop <= p:
            raise ValueError(
                f"feature_blocks[{k}]={block!r} must satisfy 0 <= start < stop <= {p} "
                f"(the number of columns of X); expected {accepted}."
            )
        pairs.append((int(start), int(stop)))
    pairs.sort()
    covered = 0
    for start, stop in pairs:
        if start != covered:
            what = "overlap" if start < covered else f"leave column {covered} uncovered"
            raise ValueError(f"feature_blocks={feature_blocks!r} {what}; expected {accepted}.")
        covered = stop
    if covered != p:
        raise ValueError(
            f"feature_blocks={feature_blocks!r} cover columns 0..{covered - 1} only "
            f"(X has {p} columns); expected {accepted}."
        )
    return pairs


class FunctionWorkload:
    """A user family of bounded test functions, evaluated on Boolean records.

    Parameters
    ----------
    func : callable
        ``func(records) -> values``: ``records`` is a float64 0/1 array (r, n_features),
        ``values`` an array (r, n_functions) of real numbers.
    bounds : tuple (lower, upper) of floats or arrays of shape (n_functions,)
        Declared range of every function: ``lower_f <= f(x) <= upper_f`` for *every*
        ``x`` in the cube.  Required: the sensitivity is derived from them.  On the
        data (:meth:`answers`, private rows) values outside the declared range are
        clipped to it (NaN to ``lower``) silently: an error would depend on one private
        row; the sensitivity holds for the clipped functions.  On public records
        (:meth:`query_matrix`) they raise ``ValueError``.
    n_features : int
        Number of Boolean columns.
    include_constant : bool, default=True
        Prepend the constant function 1 (query 0), sensitivity 0.

    Attributes
    ----------
    n_queries : int
        Number of functions (+1 with the constant).
    n_tables : int
        Number of user functions (named for symmetry with :class:`MarginalWorkload`).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.workload import FunctionWorkload
    >>> W = FunctionWorkload(lambda Z: Z[:, :1] - Z[:, 1:2], bounds=(-1, 1), n_features=2)
    >>> W.answers(np.array([[1, 0], [1, 1]])).tolist()
    [1.0, 0.5]
    >>> W.l1_sensitivity(n=2)          # (1 - (-1)) / n
    1.0
    """

    def __init__(self, func, bounds, n_features, *, include_constant=True):
        if not callable(func):
            raise TypeError(f"func must be callable records -> values; got {func!r}.")
        if bounds is None:
            raise ValueError(
                "bounds must be declared as (lower, upper) for a function "
                "workload: the sensitivity is derived from them; got None."
            )
        try:
            lower, upper = bounds
            lower = np.atleast_1d(np.asarray(lower, dtype=np.float64))
            upper = np.atleast_1d(np.asarray(upper, dtype=np.float64))
        except (TypeError, ValueError):
            raise ValueError(
                f"bounds must be a pair (lower, upper) of finite numbers or arrays; got {bounds!r}."
            ) from None
        if (
            not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper)))
            or np.any(lower > upper)
            or lower.ndim != 1
            or upper.ndim != 1
        ):
            raise ValueError(f"bounds must be finite with lower <= upper; got {bounds!r}.")
        check_scalar(n_features, "n_features", Integral, min_val=1)
        self.func = func
        self.n_features = int(n_features)
        self.include_constant = bool(include_constant)
        self._lower, self._upper = lower, upper
        self.degree = None
        self.n_tables = None
        self.n_queries = None

    def _evaluate(self, Z, clip=False):
        """``func(Z)`` as an (r, n_functions) array; out-of-bounds values are clipped
        (``clip=True``, private rows) or raise (public records)."""
        V = np.asarray(self.func(Z.astype(np.float64)), dtype=np.float64)
        if V.ndim == 1:
            V = V[:, None]
        if V.ndim != 2 or V.shape[0] != Z.shape[0]:
            raise ValueError(
                f"func must return an array of shape ({Z.shape[0]}, n_functions) "
                f"for {Z.shape[0]} records; got shape {V.shape}."
            )
        if self.n_tables is None:
            k = V.shape[1]
            if self._lower.size not in (1, k) or self._upper.size not in (1, k):
                raise ValueError(
                    f"bounds must be scalars or have length {k} (the number of "
                    f"functions); got lengths {self._lower.size} and "
                    f"{self._upper.size}."
                )
            self._lower = np.broadcast_to(self._lower, (k,)).copy()
            self._upper = np.broadcast_to(self._upper, (k,)).copy()
            self.n_tables = k
            self.n_queries = k + int(self.include_constant)
        elif V.shape[1] != self.n_tables:
            raise ValueError(
                f"func returned {V.shape[1]} functions; earlier calls returned {self.n_tables}."
            )
        if clip:
            # Row-wise map onto the declared range: neighbours stay neighbours and the
            # sensitivity sum(upper - lower)/n holds, with no data-dependent event.
            return np.clip(np.where(np.isnan(V), self._lower, V), self._lower, self._upper)
        if not np.all(np.isfinite(V)) or np.any(V < self._lower) or np.any(V > self._upper):
            raise ValueError(
                "func returned values outside the declared bounds (or "
                "non-finite values); the declared bounds must hold for every "
                "record, since the sensitivity is derived from them."
            )
        return V

    def _ensure_sized(self):
        if self.n_tables is None:
            self._evaluate(np.zeros((1, self.n_features), dtype=np.uint8))

    def query_bounds(self):
        """Return ``(lower, upper)`` arrays of shape (n_queries,)."""
        self._ensure_sized()
        if self.include_constant:
            return np.r_[1.0, self._lower], np.r_[1.0, self._upper]
        return self._lower.copy(), self._upper.copy()

    def l1_sensitivity(self, n):
        """Replace-one L1 sensitivity ``Σ_f (upper_f - lower_f) / n``."""
        n = _check_n(n)
        self._ensure_sized()
        return float(np.sum(self._upper - self._lower)) / n

    @property
    def sensitivity_rule(self):
        """Why :meth:`l1_sensitivity` holds, in words (for privacy reports)."""
        return "bounded functions: sum(upper - lower) / n over the declared bounds"

    def max_nnz(self, n_records):
        """Upper bound on the nonzeros of :meth:`query_matrix` (dense in general)."""
        self._ensure_sized()
        return int(n_records) * self.n_queries

    def query_matrix(self, records, rows=None, chunk_size=None):
        """Sparse query matrix of shape (n_queries, n_records) (see module docstring)."""
        Z = _check_records(records, self.n_features)
        self._ensure_sized()
        keep = None
        if rows is not None:
            keep = np.asarray(rows)
            if keep.dtype != np.bool_ or keep.shape != (self.n_queries,):
                raise ValueError(f"rows must be a boolean mask of shape ({self.n_queries},).")
        step = _chunk_rows(Z.shape[0], self.n_queries, chunk_size)
        blocks = []
        for start in range(0, Z.shape[0], step):
            V = self._evaluate(Z[start : start + step])
            if self.include_constant:
                V = np.concatenate([np.ones((V.shape[0], 1)), V], axis=1)
            if keep is not None:
                V = V[:, keep]
            blocks.append(sp.csc_matrix(V.T))
        return sp.hstack(blocks, format="csc")

    def counts(self, X, chunk_size=None):
        """Unnormalised statistic ``Σ_i f(x_i)`` for every query, in row chunks.

        Values outside the declared bounds are clipped to them (``X`` is private);
        the constant query counts the rows.
        """
        Z = _check_records(X, self.n_features, name="X")
        self._ensure_sized()
        total = np.zeros(self.n_tables)
        step = _chunk_rows(Z.shape[0], self.n_tables, chunk_size)
        for start in range(0, Z.shape[0], step):
            total += self._evaluate(Z[start : start + step], clip=True).sum(axis=0)
        return np.r_[float(Z.shape[0]), total] if self.include_constant else total

    def answers(self, X, chunk_size=None):
        """Statistic vector ``(1/n) Σ_i f(x_i)`` of the Boolean dataset ``X``, in chunks.

        Values outside the declared bounds are clipped to them (``X`` is private).
        """
        Z = _check_records(X, self.n_features, name="X")
        if Z.shape[0] == 0:
            raise ValueError("X must have at least one row.")
        answers = self.counts(Z, chunk_size=chunk_size) / Z.shape[0]
        if self.include_constant:
            answers[0] = 1.0
        return answers

    def __repr__(self):
        return (
            f"FunctionWorkload(func={self.func!r}, n_features={self.n_features}, "
            f"n_queries={self.n_queries})"
        )


def check_column_sets(column_sets, n_features, name="column_sets"):
    """Validate a list of column sets; return them as sorted tuples, in the given order.

    The one check of a workload spelled as column sets: :class:`MarginalWorkload`,
    :class:`~skprivsynth.MarginalSynthesizer` and the marginal metrics call it.

    Parameters
    ----------
    column_sets : sequence of sequences of int
        At least one set; each non-empty, of distinct integer column indices in
        ``[0, n_features)``, no set given twice (in any order).
    n_features : int or None
        Number of columns; None checks everything but the upper bound.
    name : str, default="column_sets"
        The parameter named in the messages.

    Returns
    -------
    list of tuple of int
    """
    if isinstance(column_sets, str | bytes) or not hasattr(column_sets, "__iter__"):
        raise TypeError(
            f"{name} must be a sequence of sequences of column indices; got {column_sets!r}."
        )
    upper = "" if n_features is None else f", below {n_features}"
    seen, out = set(), []
    for i, J in enumerate(column_sets):
        try:
            cols = tuple(sorted(int(c) for c in J))
            ok = all(isinstance(c, Integral | np.integer) and not isinstance(c, bool) for c in J)
        except TypeError:
            ok = False
        if (
            not ok
            or not cols
            or len(set(cols)) != len(cols)
            or cols[0] < 0
            or (n_features is not None and cols[-1] >= n_features)
        ):
            raise ValueError(
                f"{name} must contain non-empty sets of distinct integer column indices "
                f"(from 0{upper}); got {name}[{i}]={J!r}."
            )
        if cols in seen:
            raise ValueError(
                f"{name} contains the set {cols} twice (again at {name}[{i}]); each set may "
                "appear once."
            )
        seen.add(cols)
        out.append(cols)
    if not out:
        raise ValueError(f"{name} must contain at least one column set; got {column_sets!r}.")
    return out


def workload_closure(workload, max_size, weights=None):
    """AIM's candidates of a workload and their weights (McKenna et al. 2022, Sect. 4).

    Parameters
    ----------
    workload : list of tuple of int
        Column sets, each sorted (as :func:`check_column_sets` returns them).
    max_size : int
        Largest number of columns of a candidate.
    weights : list of float, optional
        The weight ``c_s`` of each set (None: each 1).

    Returns
    -------
    dict
        Every non-empty subset ``r`` of a workload set with at most ``max_size`` columns
        (the downward closure), by size then lexicographically, mapped to its weight
        ``w_r = Σ_{s∈W} c_s·|r ∩ s| = Σ_{j∈r} m_j``, ``m_j`` the summed weight of the
        workload sets holding column ``j``.
    """
    weights = [1] * len(workload) if weights is None else weights
    m = collections.Counter()
    for s, c in zip(workload, weights, strict=True):
        m.update(dict.fromkeys(s, c))
    closure = {
        r for s in workload for k in range(1, max_size + 1) for r in itertools.combinations(s, k)
    }
    return {r: sum(m[j] for j in r) for r in sorted(closure, key=lambda r: (len(r), r))}


def weighted_column_sets(workload, names, d):
    """The column sets of a ``workload`` given as a list of sets or a dict ``{set: weight}``
    and their weights, columns by position or by name (``names``).  Public: the
    workload is a parameter, checked before any release."""
    accepted = (
        "accepted: None, an int k, a list of column sets, or a dict {column set: weight} "
        "with positive weights; a column by position, or by name when the columns have "
        "names (a DataFrame, or through a SynthesisPipeline)"
    )
    if isinstance(workload, dict):
        keys, weights = list(workload), list(workload.values())
        for key, w in workload.items():
            if isinstance(w, bool) or not isinstance(w, Real) or not 0 < w < math.inf:
                raise ValueError(
                    f"workload weights must be positive finite numbers; got "
                    f"workload[{key!r}]={w!r} ({accepted})."
                )
    else:
        keys, weights = workload, None
    if isinstance(keys, str | bytes) or not hasattr(keys, "__iter__"):
        raise TypeError(f"workload must be a list or a dict of column sets; got {workload!r}.")
    known = {} if names is None else {str(name): j for j, name in enumerate(names)}

    def position(label):
        if not isinstance(label, str):
            return label  # an index, checked by check_column_sets
        if label not in known:
            where = f"the columns are {list(known)}" if known else "the columns have no names"
            raise ValueError(f"workload names the column {label!r}, but {where} ({accepted}).")
        return known[label]

    sets = [
        tuple(position(label) for label in ([key] if isinstance(key, str | Integral) else key))
        for key in keys
    ]
    sets = check_column_sets(sets, d, "workload")
    if weights is not None and all(float(w).is_integer() for w in weights):
        weights = [int(w) for w in weights]  # exact: divided by their gcd below
    return sets, weights


def _check_n(n):
    if isinstance(n, bool) or not isinstance(n, Integral | Real) or not n >= 1:
        raise ValueError(f"n must be a positive number of rows; got {n!r}.")
    return float(n)


def _csc_from_columns(indices, counts, n_rows, n_cols):
    """Assemble a CSC matrix of ones from per-chunk row indices and per-column counts."""
    counts = np.concatenate(counts) if counts else np.zeros(0, np.int64)
    indptr = np.zeros(n_cols + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    index_dtype = np.int32 if max(n_rows, indptr[-1]) < 2**31 else np.int64
    idx = (np.concatenate(indices) if indices else np.zeros(0)).astype(index_dtype, copy=False)
    data = np.ones(idx.size, dtype=np.float64)
    return sp.csc_matrix(
        (data, idx, indptr.astype(index_dtype, copy=False)), shape=(n_rows, n_cols)
    )


def check_workload(workload, n_features, degree, *, include_constant=True):
    """Turn the ``workload`` parameter of an estimator into a workload object.

    The one parser of ``workload=`` for :class:`~skprivsynth.ReducedSpaceLP` and
    :class:`~skprivsynth.CorrelatedGaussianMechanism`.

    Parameters
    ----------
    workload : None, {"tables", "conjunctions"}, sequence of column sets, \
            MarginalWorkload or FunctionWorkload
        None / "tables": all marginal tables of degree ``1..degree``; "conjunctions":
        all conjunctions of degree ``1..degree``; a sequence of column sets: their full
        tables; a workload object: used as is (its ``n_features`` must match; a
        :class:`FunctionWorkload` is copied, never mutated).  A bare callable is
        rejected: wrap it in :class:`FunctionWorkload` with declared bounds.
    n_features : int
    degree : int
    include_constant : bool, default=True
        The workloads built here start with the constant function; a workload object
        must then include it too (in a reweighting LP it is the density constraint).
        With False, built workloads have no constant and objects are used as they are.

    Returns
    -------
    MarginalWorkload or FunctionWorkload
    """
    if workload is None or (isinstance(workload, str) and workload == "tables"):
        return MarginalWorkload(n_features, degree, kind="table", include_constant=include_constant)
    if isinstance(workload, str):
        if workload == "conjunctions":
            return MarginalWorkload(
                n_features, degree, kind="conjunction", include_constant=include_constant
            )
        raise ValueError(
            "workload must be None, 'tables', 'conjunctions', a list of column "
            f"sets or a workload object; got {workload!r}."
        )
    if isinstance(workload, MarginalWorkload | FunctionWorkload):
        if workload.n_features != n_features:
            raise ValueError(
                f"workload has n_features={workload.n_features} but X has {n_features} columns."
            )
        if include_constant and not workload.include_constant:
            raise ValueError(
                "workload must include the constant function "
                "(include_constant=True): it is the density constraint."
            )
        if isinstance(workload, FunctionWorkload):
            # A FunctionWorkload sizes itself on first use: size a copy, so that an
            # estimator's fit never mutates the object passed as a hyperparameter.
            workload = copy.copy(workload)
            workload._ensure_sized()
        return workload
    if callable(workload):
        raise TypeError(
            "workload is a bare callable without declared bounds; the sensitivity cannot "
            "be derived. Wrap it: FunctionWorkload(func, bounds=(lower, upper), "
            f"n_features={n_features}); got {workload!r}."
        )
    return MarginalWorkload(
        n_features, kind="table", column_sets=workload, include_constant=include_constant
    )
