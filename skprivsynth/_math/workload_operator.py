"""A workload's query matrix over a universe of candidate records, as a linear operator.

``A[f, j] = f(t_j)`` for the universe ``{t_1..t_N}``; ``A x`` are the answers, in
*counts*, of the histogram ``x`` of a dataset over the universe.  On the whole cube
``{0,1}^p`` a marginal workload factors as ``A = T·W`` with ``W`` the Walsh characters of
its column sets' subsets, and products cost one fast Walsh–Hadamard transform.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

from .ellipsoid import base_decomposition, walsh_base_decomposition
from .hadamard import fwht
from .row_keys import row_keys
from .workload import MarginalWorkload, check_workload

__all__ = [
    "MAX_DENSE_ENTRIES",
    "MAX_UNIVERSE",
    "WorkloadOperator",
    "check_universe",
    "is_query_matrix",
]

#: Hard upper limit of ``max_universe`` (the whole cube ``{0,1}^p`` is handled as a
#: dense vector of ``2^p`` counts; ``2^22`` float64 = 32 MB per vector, the consistency
#: step keeps about eight of them).
MAX_UNIVERSE = 2**22

#: Largest dense coefficient matrix T (queries × Walsh characters) on the fast path.
MAX_DENSE_ENTRIES = 50_000_000
# Largest number of nonzeros of a sparse query matrix over a user universe.
_MAX_QUERY_NNZ = 100_000_000


def check_universe(universe, p):
    """Return the universe as a uint8 array of unique Boolean rows of width ``p``."""
    U = check_array(universe, dtype=np.float64, ensure_min_samples=1, input_name="universe")
    if U.shape[1] != p:
        raise ValueError(
            f"universe must have one column per feature of X ({p}); got shape {U.shape}."
        )
    rows, cols = np.nonzero((U != 0) & (U != 1))
    if rows.size:  # the universe is public: its values may be quoted
        raise ValueError(
            f"universe must hold Boolean records (0 or 1); row {rows[0]}, column {cols[0]} "
            f"is {U[rows[0], cols[0]]!r}."
        )
    U = U.astype(np.uint8)
    keys = row_keys(U)
    if np.unique(keys).size != keys.size:
        raise ValueError("universe must not contain duplicate records; remove the repeats.")
    return U


def is_query_matrix(workload):
    """Whether ``workload`` is a float query matrix (ndarray or scipy sparse)."""
    return sp.issparse(workload) or (
        isinstance(workload, np.ndarray)
        and workload.ndim == 2
        and np.issubdtype(workload.dtype, np.floating)
    )


class WorkloadOperator:
    """The query matrix ``A`` (counts) of a workload over a universe, as a linear map.

    ``workload`` is any spelling :func:`~skprivsynth._math.workload.check_workload`
    accepts (None and strings use ``min(degree, p)``; no constant query is added), or a
    float query matrix of shape ``(n_queries, N)`` over the universe.  Full cube + plain
    :class:`~skprivsynth._math.workload.MarginalWorkload`: ``A = T·W_S`` with ``W_S`` the
    Walsh rows (characters of the downward closure of the column sets) — the fast path.
    Otherwise an explicit (sparse) ``q × N`` matrix.  ``workload`` (attribute) is the
    parsed workload object, or the matrix.
    """

    def __init__(self, p, degree, workload, universe, max_universe):
        self.p = p
        if universe is None:
            if p >= 63 or 2**p > max_universe:
                raise ValueError(
                    f"universe: the whole cube {{0,1}}^{p} has 2^{p} records, more than "
                    f"max_universe={max_universe:,}; pass explicit candidate records as "
                    f"universe, or raise max_universe (at most {MAX_UNIVERSE:,})."
                )
            self.records = None
            self.N = 2**p
        else:
            self.records = check_universe(universe, p)
            self.N = self.records.shape[0]
        self.marginal = None
        self.matrix = None
        if is_query_matrix(workload):
            A = (
                sp.csr_matrix(workload, dtype=np.float64)
                if sp.issparse(workload)
                else np.asarray(workload, dtype=np.float64)
            )
            if A.shape[1] != self.N or A.shape[0] == 0:
                raise ValueError(
                    f"workload: a query matrix must have shape (n_queries, {self.N}) — one "
                    f"column per universe record; got shape {A.shape}."
                )
            data = A.data if sp.issparse(A) else A
            if not np.all(np.isfinite(data)):
                raise ValueError("workload: the query matrix must be finite.")
            self.workload = self.matrix = A
            self.q = A.shape[0]
            self.fast = False
            return
        # Every other spelling is parsed as by ReducedSpaceLP; the workloads built here
        # have no constant query (on counts it would be the public n, noise-free).
        self.workload = check_workload(workload, p, min(degree, p), include_constant=False)
        self.q = self.workload.n_queries
        # Fast path: plain marginals (tables or conjunctions) on the whole cube.  A
        # subclass evaluating its queries through a row map (BlockMarginalWorkload) or a
        # FunctionWorkload gets the explicit matrix over the universe.
        self.fast = type(self.workload) is MarginalWorkload and self.records is None
        if self.fast:
            self.marginal = self.workload
            self._build_walsh()
            return
        if isinstance(self.workload, MarginalWorkload):
            self.marginal = self.workload
        nnz = self.workload.max_nnz(self.N)
        if nnz > _MAX_QUERY_NNZ:
            raise ValueError(
                f"universe: {self.N:,} records × {self.q:,} queries give a query matrix "
                f"with up to {nnz:,} nonzeros, above {_MAX_QUERY_NNZ:,}; use fewer "
                "candidate records or a smaller workload."
            )
        records = self.records
        if records is None:
            records = self.decode(np.arange(self.N, dtype=np.int64)).astype(np.uint8)
        self.matrix = self.workload.query_matrix(records).tocsr()

    # ------------------------------------------------------------- fast path (Walsh)
    def _build_walsh(self):
        """``T`` with ``A = T·W``: cell ``v`` of table ``J`` is ``2^{-|J|} Σ_{S⊆J} χ_S(v) χ_S``."""
        wl = self.marginal
        slices = wl.table_slices()
        masks_per_table = []
        for cols, _ in slices:
            k = len(cols)
            local = np.arange(2**k, dtype=np.int64)
            bits = (local[:, None] >> np.arange(k)) & 1
            masks_per_table.append(bits @ (np.int64(1) << np.asarray(cols, dtype=np.int64)))
        all_masks = np.unique(np.concatenate(masks_per_table + [np.zeros(1, np.int64)]))
        L = all_masks.size
        if self.q * L > MAX_DENSE_ENTRIES:
            raise ValueError(
                f"degree/workload: {self.q:,} queries on {L:,} Walsh characters need a dense "
                f"{self.q:,} × {L:,} matrix, above {MAX_DENSE_ENTRIES:,} entries; use a "
                "lower degree or fewer column sets."
            )
        T = np.zeros((self.q, L))
        if wl.include_constant:
            T[0, 0] = 1.0
        for (cols, rows), masks in zip(slices, masks_per_table, strict=True):
            k = len(cols)
            cells = np.arange(2**k, dtype=np.int64)
            # Cell index: first column most significant, so v_t = bit (k-1-t).
            vbits = (cells[:, None] >> (k - 1 - np.arange(k))) & 1
            sbits = (cells[:, None] >> np.arange(k)) & 1
            signs = 1.0 - 2.0 * ((vbits @ sbits.T) % 2)  # χ_S(v), rows v, cols S
            block = signs / 2.0**k
            if wl.kind != "table":  # conjunction = cell 1…1
                block = block[-1:]
            T[rows, np.searchsorted(all_masks, masks)] = block
        self.T = T
        self.masks = all_masks

    # ------------------------------------------------------------------ evaluation
    def histogram(self, X):
        """Counts of the rows of the Boolean ``X`` on the universe (error outside it)."""
        return self.counter()(X).astype(np.float64)

    def counter(self):
        """The int64 histogram of a chunk of rows, as a small picklable callable
        (additive over chunks; it holds the universe, not the workload)."""
        return UniverseCounts(self.p, self.N, self.records)

    def answers(self, counts):
        """``A·counts``."""
        if self.fast:
            return self.T @ fwht(counts)[self.masks]
        return np.asarray(self.matrix @ counts).ravel()

    def adjoint(self, z):
        """``Aᵀ z``."""
        if self.fast:
            coef = np.zeros(self.N)
            coef[self.masks] = self.T.T @ z
            return fwht(coef)
        return np.asarray(self.matrix.T @ z).ravel()

    def columns(self, idx):
        """Dense columns ``A[:, idx]``."""
        if self.fast:
            bits = np.bitwise_and(idx[None, :], self.masks[:, None])
            parity = np.zeros(bits.shape, dtype=np.int64)
            for j in range(self.p):
                parity ^= (bits >> j) & 1
            return self.T @ (1.0 - 2.0 * parity)
        cols = self.matrix[:, idx]
        return cols.toarray() if sp.issparse(cols) else np.asarray(cols)

    def lipschitz(self):
        """``||A||₂²`` (fast path: ``N·||T||₂²`` since ``W Wᵀ = N·I``) or an estimate."""
        if self.fast:
            return self.N * float(np.linalg.eigvalsh(self.T.T @ self.T)[-1])
        rng = np.random.default_rng(0)
        v = rng.standard_normal(self.N)
        lam = 0.0
        for _ in range(30):
            w = self.adjoint(self.answers(v))
            lam = float(np.linalg.norm(w))
            if lam == 0:
                return 1.0
            v = w / lam
        return lam

    def max_column_norm(self):
        """``max_j ||a_j||₂`` (exact)."""
        if self.fast:
            # Every record has exactly one cell per table (norm² = #tables, + 1 for the
            # constant); for conjunctions the all-ones record attains the same value.
            return math.sqrt(self.marginal.n_tables + int(self.marginal.include_constant))
        A = self.matrix
        sq = A.multiply(A).sum(axis=0) if sp.issparse(A) else (A * A).sum(axis=0)
        return math.sqrt(float(np.max(sq)))

    def decompose(self, eta):
        """Base decomposition of the centred columns (see the estimator's Notes)."""
        if self.fast:
            # Centre = mean column over the cube = the ∅-character column of T.
            return walsh_base_decomposition(self.T[:, self.masks != 0])
        center = np.asarray(self.matrix.sum(axis=1)).ravel() / self.N
        return base_decomposition(self.matrix, center=center, eta=eta)

    def decode(self, idx):
        """Boolean records (float64) of universe indices ``idx``."""
        if self.records is None:
            return ((idx[:, None] >> np.arange(self.p, dtype=np.int64)) & 1).astype(np.float64)
        return self.records[idx].astype(np.float64)


class UniverseCounts:
    """``counts(X)``: int64 counts of the rows of the Boolean ``X`` on a universe.

    The universe is the cube ``{0,1}^p`` (``records=None``, rows indexed by their bits)
    or the rows of ``records``; a row of ``X`` outside it raises (the declared-domain
    check).  Counts add over chunks of rows.
    """

    def __init__(self, p, N, records=None):
        self.p, self.N, self.records = p, N, records
        if records is not None:
            ukeys = row_keys(records)
            self._order = np.argsort(ukeys)
            self._sorted_keys = ukeys[self._order]

    def __call__(self, X):
        Xu = X.astype(np.uint8)
        if self.records is None:
            idx = Xu.astype(np.int64) @ (np.int64(1) << np.arange(self.p, dtype=np.int64))
            return np.bincount(idx, minlength=self.N)
        xkeys = row_keys(Xu)
        pos = np.minimum(np.searchsorted(self._sorted_keys, xkeys), self.N - 1)
        found = self._sorted_keys[pos] == xkeys
        if not found.all():
            # The declared-domain check: X is private, so the message names neither
            # the row nor its values.
            raise ValueError(
                "X has a record that is not in the universe; every record of X must be "
                "one of the universe's candidate records (declare a universe that "
                "contains every possible record)."
            )
        return np.bincount(self._order[pos], minlength=self.N)
