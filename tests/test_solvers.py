"""The HiGHS / OSQP wrappers: optimal answers, loud failures, and a quiet process."""

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

from skprivsynth._math.solvers import SolverError, solve_lp, solve_qp


def test_lp_optimum_and_duals():
    # min -x - 2y  s.t. x + y <= 1, 0 <= x, y <= 1  ->  x = 0, y = 1, objective -2.
    A = sp.csc_matrix([[1.0, 1.0]])
    result = solve_lp([-1.0, -2.0], A, [-np.inf], [1.0], [0.0, 0.0], [1.0, 1.0])
    np.testing.assert_allclose(result.x, [0.0, 1.0], atol=1e-9)
    assert result.objective == pytest.approx(-2.0)
    # HiGHS convention col_dual = c - Aᵀ row_dual.
    np.testing.assert_allclose(
        result.col_dual, np.array([-1.0, -2.0]) - A.T @ result.row_dual, atol=1e-9
    )


def test_infeasible_lp_raises_with_the_status():
    A = sp.csc_matrix([[1.0, 1.0]])  # x + y >= 3 with x, y <= 1
    with pytest.raises(SolverError, match="(?i)infeasible"):
        solve_lp([1.0, 1.0], A, [3.0], [np.inf], [0.0, 0.0], [1.0, 1.0], what="toy LP")


def test_qp_projection_onto_the_simplex():
    # min ||x - (0.9, 0.6)||² s.t. x >= 0, x1 + x2 = 1  ->  (0.65, 0.35).
    P = sp.csc_matrix(2.0 * np.eye(2))
    A = sp.csc_matrix(np.vstack([np.ones(2), np.eye(2)]))
    result = solve_qp(P, [-1.8, -1.2], A, [1.0, 0.0, 0.0], [1.0, np.inf, np.inf])
    np.testing.assert_allclose(result.x, [0.65, 0.35], atol=1e-8)
    assert result.primal_residual < 1e-8


def test_infeasible_qp_raises_with_the_status():
    P = sp.csc_matrix(np.eye(1))
    A = sp.csc_matrix([[1.0], [1.0]])  # x <= 0 and x >= 1
    with pytest.raises(SolverError, match="(?i)infeasible"):
        solve_qp(P, [0.0], A, [-np.inf, 1.0], [0.0, np.inf])


def test_first_highs_instance_prints_no_banner():
    """HiGHS prints a banner from C when a process creates its first instance; the
    wrapper keeps the user's standard output clean (CLI tables, piped CSV)."""
    code = (
        "import numpy as np, scipy.sparse as sp\n"
        "from skprivsynth._math.solvers import solve_lp\n"
        "print('start', flush=True)\n"
        "for _ in range(2):\n"
        "    solve_lp([1.0], sp.csc_matrix([[1.0]]), [0.0], [1.0], [0.0], [1.0])\n"
        "print('end')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out == "start\nend\n"
