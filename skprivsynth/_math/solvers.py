"""Thin wrappers around HiGHS (linear programs) and OSQP (quadratic programs).

Both wrappers build the problem from scipy sparse matrices, always check the
solver's *model status* (a time limit gives HiGHS run status ``kWarning`` and OSQP
returns garbage iterates on infeasible problems), and raise :class:`SolverError`
naming the status rather than ever returning silently wrong weights.

The messages carry numbers computed from the problem (times, residuals).  A caller
whose problem is built from private data must not let them out: PrivateSampler catches
:class:`SolverError` and falls back to a data-independent density; ReducedSpaceLP solves
on its Laplace release, so its raise is post-processing.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass

import highspy
import numpy as np
import osqp
import scipy.sparse as sp

from ..exceptions import SolverError

__all__ = ["LPResult", "QPResult", "SolverError", "solve_lp", "solve_qp"]


_HIGHS_BANNER_LOCK = threading.Lock()
_highs_banner_done = False


def _new_highs():
    """A silent :class:`highspy.Highs` instance.

    HiGHS prints its copyright banner to the C-level standard output when the first
    instance of a process is constructed, before any option (``output_flag``,
    ``silent()``) can be set.  That first construction runs with file descriptor 1
    pointed at ``os.devnull``; later instances print nothing and are created as is.
    """
    global _highs_banner_done
    with _HIGHS_BANNER_LOCK:
        if not _highs_banner_done:
            _highs_banner_done = True
            try:
                sys.stdout.flush()
                saved = os.dup(1)
            except (OSError, ValueError):  # no usable fd 1: let the banner through
                saved = None
            if saved is not None:
                devnull = os.open(os.devnull, os.O_WRONLY)
                try:
                    os.dup2(devnull, 1)
                    h = highspy.Highs()
                finally:
                    os.dup2(saved, 1)
                    os.close(saved)
                    os.close(devnull)
                h.silent()
                return h
    h = highspy.Highs()
    h.silent()
    return h


@dataclass
class LPResult:
    """Solution of :func:`solve_lp`.

    ``row_dual`` / ``col_dual`` follow HiGHS's convention ``col_dual = c - Aᵀ row_dual``;
    ``iterations`` is the total of simplex, interior-point and crossover iterations.
    """

    x: np.ndarray
    objective: float
    status: str
    solve_time: float
    row_dual: np.ndarray
    col_dual: np.ndarray | None = None
    iterations: int = 0


@dataclass
class QPResult:
    """Solution of :func:`solve_qp` with OSQP's residuals."""

    x: np.ndarray
    y: np.ndarray
    objective: float
    status: str
    primal_residual: float
    dual_residual: float
    iterations: int
    polished: bool
    solve_time: float


def solve_lp(
    c,
    A,
    row_lower,
    row_upper,
    col_lower,
    col_upper,
    *,
    time_limit=300.0,
    solver="choose",
    what="linear program",
    options=None,
):
    """Minimise ``cᵀx`` s.t. ``row_lower ≤ A x ≤ row_upper``, ``col_lower ≤ x ≤ col_upper``.

    Parameters
    ----------
    c : array-like of shape (n_vars,)
    A : scipy sparse matrix of shape (n_rows, n_vars)
    row_lower, row_upper : array-like of shape (n_rows,)
        Use ``±numpy.inf`` for one-sided rows.
    col_lower, col_upper : array-like of shape (n_vars,)
    time_limit : float
        Seconds; reaching it raises :class:`SolverError`.
    solver : {"choose", "simplex", "ipm", "pdlp"}
        HiGHS solver option.
    what : str
        Name of the problem, used in error messages.
    options : dict, optional
        Further HiGHS options passed to ``setOptionValue`` (e.g. ``{"presolve":
        "off", "run_crossover": "off"}``, which helps IPM on dense constraint rows).

    Returns
    -------
    LPResult

    Raises
    ------
    SolverError
        If HiGHS rejects the model or its model status is not optimal.
    """
    A = sp.csc_matrix(A, dtype=np.float64)
    n_rows, n_vars = A.shape
    if A.nnz >= 2**31 or max(n_rows, n_vars) >= 2**31:
        # passModel takes int32 indices: refuse rather than silently wrap around.
        raise ValueError(
            f"The {what} has {A.nnz:,} nonzeros and shape {A.shape}; HiGHS's "
            "passModel takes 32-bit indices (limit 2**31 - 1)."
        )
    inf = highspy.kHighsInf

    def _bounds(v, size):
        v = np.broadcast_to(np.asarray(v, dtype=np.float64), (size,)).copy()
        v[np.isposinf(v)] = inf
        v[np.isneginf(v)] = -inf
        return v

    h = _new_highs()
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("solver", solver)
    for key, value in (options or {}).items():
        if h.setOptionValue(key, value) == highspy.HighsStatus.kError:
            raise ValueError(f"HiGHS rejected the option {key}={value!r}.")
    status = h.passModel(
        n_vars,
        n_rows,
        A.nnz,
        int(highspy.MatrixFormat.kColwise),
        int(highspy.ObjSense.kMinimize),
        0.0,
        _bounds(c, n_vars),
        _bounds(col_lower, n_vars),
        _bounds(col_upper, n_vars),
        _bounds(row_lower, n_rows),
        _bounds(row_upper, n_rows),
        A.indptr.astype(np.int32),
        A.indices.astype(np.int32),
        A.data,
        np.zeros(n_vars, dtype=np.int32),
    )
    if status == highspy.HighsStatus.kError:
        raise SolverError(f"HiGHS rejected the {what} (passModel returned kError).")
    start = time.perf_counter()
    h.run()
    elapsed = time.perf_counter() - start
    model_status = h.getModelStatus()
    status_text = h.modelStatusToString(model_status)
    if model_status != highspy.HighsModelStatus.kOptimal:
        raise SolverError(
            f"HiGHS did not solve the {what} to optimality: model status {status_text!r} "
            f"after {elapsed:.2f} s (time_limit={time_limit})."
        )
    solution = h.getSolution()
    info = h.getInfo()
    return LPResult(
        x=np.asarray(solution.col_value, dtype=np.float64),
        objective=float(info.objective_function_value),
        status=status_text,
        solve_time=elapsed,
        row_dual=np.asarray(solution.row_dual, dtype=np.float64),
        col_dual=np.asarray(solution.col_dual, dtype=np.float64),
        iterations=int(info.simplex_iteration_count)
        + int(info.ipm_iteration_count)
        + int(info.crossover_iteration_count),
    )


def solve_qp(
    P,
    q,
    A,
    lower,
    upper,
    *,
    eps=1e-9,
    max_iter=200_000,
    time_limit=300.0,
    polish=True,
    what="quadratic program",
    x0=None,
    settings=None,
):
    """Minimise ``½ xᵀPx + qᵀx`` s.t. ``lower ≤ A x ≤ upper`` with OSQP.

    Parameters
    ----------
    P : scipy sparse matrix (n_vars, n_vars), positive semi-definite
    q : array-like (n_vars,)
    A : scipy sparse matrix (n_cons, n_vars)
    lower, upper : array-like (n_cons,)
    eps : float
        Absolute and relative tolerance (OSQP's defaults 1e-3 are far too loose here).
    max_iter, time_limit : int, float
    polish : bool
        Run OSQP's solution polishing (active-set refinement).
    what : str
        Name of the problem, used in error messages.
    x0 : array-like (n_vars,), optional
        Primal warm start (e.g. a feasible point from a previous solve).
    settings : dict, optional
        Further OSQP settings (e.g. ``{"rho": 1.0}``).

    Returns
    -------
    QPResult

    Raises
    ------
    SolverError
        If the status is anything but ``solved``.
    """
    P = sp.triu(sp.csc_matrix(P, dtype=np.float64), format="csc")
    A = sp.csc_matrix(A, dtype=np.float64)
    problem = osqp.OSQP()
    problem.setup(
        P,
        np.asarray(q, dtype=np.float64),
        A,
        np.asarray(lower, dtype=np.float64),
        np.asarray(upper, dtype=np.float64),
        eps_abs=eps,
        eps_rel=eps,
        max_iter=int(max_iter),
        time_limit=float(time_limit),
        polishing=polish,
        polish_refine_iter=10,
        verbose=False,
        **(settings or {}),
    )
    if x0 is not None:
        problem.warm_start(x=np.asarray(x0, dtype=np.float64))
    start = time.perf_counter()
    result = problem.solve(raise_error=False)
    elapsed = time.perf_counter() - start
    info = result.info
    if info.status_val != osqp.SolverStatus.OSQP_SOLVED:
        raise SolverError(
            f"OSQP did not solve the {what}: status {info.status!r} after {info.iter} "
            f"iterations (primal residual {info.prim_res:.3g}, dual residual {info.dual_res:.3g})."
        )
    return QPResult(
        x=np.asarray(result.x, dtype=np.float64),
        y=np.asarray(result.y, dtype=np.float64),
        objective=float(info.obj_val),
        status=str(info.status),
        primal_residual=float(info.prim_res),
        dual_residual=float(info.dual_res),
        iterations=int(info.iter),
        polished=int(info.status_polish) == 1,
        solve_time=elapsed,
    )
