"""The reweighting LP over a reduced space, solved exactly by column generation.

Given candidate records ``z_1..z_m`` and noisy workload statistics ``b``, find the
density ``h`` on the records (``h ≥ 0``, ``Σ h = 1``) whose statistics ``Q h`` are
closest to ``b`` in L1 or L∞ (Boedihardjo, Strohmer and Vershynin, "Private measures,
random walks, and synthetic data", Algorithm 1).  Column generation keeps the master LP
small: the optimal ``h`` is sparse.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from ..exceptions import SolverError
from .solvers import solve_lp
from .workload import MarginalWorkload

__all__ = ["ReweightingLP", "dropped_cells", "solve_column_generation"]

# Reduced cost below which a record enters (HiGHS's dual feasibility tolerance is 1e-7)
# and (query, record) entries per pricing chunk.
_PRICING_TOLERANCE = 1e-7
_PRICING_CHUNK_ENTRIES = 4_000_000


def dropped_cells(workload, counts):
    """For each table (in order), the query row of its most populated cell and its count."""
    slices = workload.table_slices()
    sizes = np.array([s.stop - s.start for _, s in slices])
    firsts = np.array([s.start for _, s in slices])
    rows = np.empty(len(slices), dtype=np.int64)
    vals = np.empty(len(slices))
    # All tables of one degree have the same block size: vectorise per size.
    for b in np.unique(sizes):
        sel = np.nonzero(sizes == b)[0]
        block = counts[firsts[sel][:, None] + np.arange(b)[None, :]]
        arg = block.argmax(axis=1)
        rows[sel] = firsts[sel] + arg
        vals[sel] = block[np.arange(len(sel)), arg]
    return rows, vals


class ReweightingLP:
    """The reweighting LP over the reduced space, solved by column generation.

    Variables: ``h`` (one per candidate record), residuals ``r`` (one per non-constant
    query; ``r = u - v`` with ``u, v >= 0`` for "l1") and ``τ`` for "linf".  Rows: one
    equality row per query (row 0 is ``Σ h = 1``), then for "linf" the rows
    ``r_f - τ <= 0`` and ``r_f + τ >= 0``.  For full tables the most populated cell of each
    table (counted on the whole public ``Ω*``) is written ``Σ_c r_c = 1 - Σ_c b_c`` instead
    of with ``h`` (exact since ``Σ_c Q_c h = Σ h = 1``).

    Column generation (exact): the *master* LP uses a subset ``C`` of the records; the
    reduced cost of record ``j`` is ``0 - a_jᵀ y`` (``y`` = row duals, ``a_j`` = its column:
    1 in row 0 and in each kept query row it satisfies), computed for all ``m`` records
    in chunks; records with negative reduced cost join ``C``.  When none is left, the
    master's solution is optimal for the full LP (LP duality), with ``h = 0`` outside
    ``C``.  The optimal ``h`` is sparse (a basic solution has at most as many positive
    weights as rows, far fewer in practice), so ``C`` stays much smaller than ``m``.
    """

    def __init__(self, workload, support, noisy, objective):
        self.workload, self.support, self.objective = workload, support, objective
        q = workload.n_queries
        self.rhs = noisy.astype(np.float64).copy()
        self.keep = None
        self.table_of = None
        if isinstance(workload, MarginalWorkload) and workload.kind == "table":
            dropped, _ = dropped_cells(workload, workload.counts(support))
            self.keep = np.ones(q, dtype=bool)
            self.keep[dropped] = False
            slices = workload.table_slices()
            starts = np.array([s.start for _, s in slices])
            stops = np.array([s.stop for _, s in slices])
            # table_of[f] = the dropped row of f's table (tables are contiguous blocks).
            self.table_of = np.zeros(q, dtype=np.int64)
            self.table_of[1:] = np.repeat(dropped, stops - starts)
            self.rhs[dropped] = 1.0 - np.add.reduceat(self.rhs, starts)

    def master(self, columns):
        """``(c, A, row_lower, row_upper, col_lower, col_upper)`` over ``support[columns]``."""
        records = self.support[columns]
        m = records.shape[0]
        q = self.workload.n_queries
        nq = q - 1
        Q = self.workload.query_matrix(records, rows=self.keep)
        if self.keep is not None:  # kept rows back at their query index
            Q.indices = np.nonzero(self.keep)[0].astype(Q.indices.dtype)[Q.indices]
        f = np.arange(1, q)
        if self.keep is None:
            r_rows, r_cols, r_vals = f, f - 1, -np.ones(nq)
        else:
            kept = self.keep[1:]
            r_rows = np.concatenate([f[kept], self.table_of[1:]])
            r_cols = np.concatenate([f[kept] - 1, f - 1])
            r_vals = np.concatenate([-np.ones(int(kept.sum())), np.ones(nq)])
        if self.objective == "l1":
            H = sp.csc_matrix((Q.data, Q.indices, Q.indptr), shape=(q, m))
            R = sp.csc_matrix((r_vals, (r_rows, r_cols)), shape=(q, nq))
            A = sp.hstack([H, R, -R], format="csc")
            c = np.r_[np.zeros(m), np.ones(2 * nq)]
            col_upper = np.r_[np.ones(m), np.full(2 * nq, np.inf)]
            return c, A, self.rhs, self.rhs, np.zeros(m + 2 * nq), col_upper
        # linf: rows q..q+nq-1 are r_f - τ <= 0, rows q+nq..q+2nq-1 are r_f + τ >= 0.
        # A is assembled column-block-wise: the h-block only gets zero rows appended.
        n_rows = q + 2 * nq
        H = sp.csc_matrix((Q.data, Q.indices, Q.indptr), shape=(n_rows, m))
        R = sp.csc_matrix(
            (
                np.r_[r_vals, np.ones(2 * nq)],
                (
                    np.r_[r_rows, q + np.arange(nq), q + nq + np.arange(nq)],
                    np.r_[r_cols, f - 1, f - 1],
                ),
            ),
            shape=(n_rows, nq),
        )
        T = sp.csc_matrix(
            (
                np.r_[-np.ones(nq), np.ones(nq)],
                (np.arange(q, n_rows), np.zeros(2 * nq, dtype=np.int64)),
            ),
            shape=(n_rows, 1),
        )
        A = sp.hstack([H, R, T], format="csc")
        c = np.zeros(m + nq + 1)
        c[-1] = 1.0
        row_lower = np.r_[self.rhs, np.full(nq, -np.inf), np.zeros(nq)]
        row_upper = np.r_[self.rhs, np.zeros(nq), np.full(nq, np.inf)]
        col_lower = np.r_[np.zeros(m), np.full(nq, -np.inf), 0.0]
        col_upper = np.r_[np.ones(m), np.full(nq, np.inf), np.inf]
        return c, A, row_lower, row_upper, col_lower, col_upper

    def reduced_costs(self, row_dual):
        """Reduced cost ``-a_jᵀ y`` of every candidate record (chunked over records)."""
        q = self.workload.n_queries
        y = row_dual[:q] if self.keep is None else row_dual[:q][self.keep]
        m = self.support.shape[0]
        step = max(1, _PRICING_CHUNK_ENTRIES // q)
        out = np.empty(m)
        for start in range(0, m, step):
            Qc = self.workload.query_matrix(self.support[start : start + step], rows=self.keep)
            out[start : start + step] = -(Qc.T @ y)
        return out


def solve_column_generation(
    lp, m, initial, time_limit, solver, rng, what, *, min_per_round, max_nonzeros
):
    """Solve ``lp`` exactly by column generation; return (h over all m, result, info).

    ``initial`` random records start the master LP; each round adds at least
    ``min_per_round`` records of most negative reduced cost.  A master LP above
    ``max_nonzeros`` constraint nonzeros raises ``ValueError``.
    """
    in_master = np.zeros(m, dtype=bool)
    in_master[rng.choice(m, size=min(m, initial), replace=False)] = True
    start = time.perf_counter()
    build, solve, rounds = 0.0, 0.0, 0
    while True:
        rounds += 1
        columns = np.nonzero(in_master)[0]
        t = time.perf_counter()
        c, A, rl, ru, cl, cu = lp.master(columns)
        if A.nnz > max_nonzeros:
            raise ValueError(
                f"The master LP reached {A.nnz:,} nonzeros ({columns.size} of m={m} records "
                f"x {lp.workload.n_queries:,} queries of degree <= {lp.workload.degree}), "
                f"above MAX_LP_NONZEROS={max_nonzeros:,}; lower m or degree."
            )
        shape = (A.shape[0], A.shape[1], int(A.nnz))
        build += time.perf_counter() - t
        remaining = time_limit - (time.perf_counter() - start)
        if remaining <= 0:
            raise SolverError(
                f"{what}: time_limit={time_limit} s reached after {rounds - 1} "
                "column-generation rounds (model status 'Time limit reached')."
            )
        result = solve_lp(c, A, rl, ru, cl, cu, time_limit=remaining, solver=solver, what=what)
        solve += result.solve_time
        del A
        t = time.perf_counter()
        rc = lp.reduced_costs(result.row_dual)
        build += time.perf_counter() - t
        entering = np.nonzero((rc < -_PRICING_TOLERANCE) & ~in_master)[0]
        if entering.size == 0:
            break
        n_add = max(min_per_round, columns.size // 2)
        entering = entering[np.argsort(rc[entering], kind="stable")[:n_add]]
        in_master[entering] = True
    h = np.zeros(m)
    h[columns] = np.clip(result.x[: columns.size], 0.0, None)
    return (
        h,
        result,
        {
            "rounds": rounds,
            "build_time": build,
            "solve_time": solve,
            "shape": shape,
            "n_columns": int(columns.size),
        },
    )
