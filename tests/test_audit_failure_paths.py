"""Failure paths of the DP synthesizers: no number computed from private rows in a message.

Each test builds data whose private quantities are distinctive numbers (a row index,
a value, a sum), forces the failure path and checks that the raised message or the
warning does not contain them.  The numbers are chosen so that they cannot appear by
accident in a constant message.
"""

import re
import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skprivsynth._math import bingham
from skprivsynth._math.workload import MarginalWorkload
from skprivsynth.exceptions import SolverError
from skprivsynth.synthesizers import gaussian, private_sampling, reduced_space


def test_universe_check_names_no_private_row():
    """CorrelatedGaussianMechanism: a record outside the declared universe (the
    documented domain check) is refused without naming the row or its values."""
    rng = np.random.default_rng(0)
    universe = np.array([[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 0]], dtype=float)
    X = universe[rng.integers(0, 4, size=5000)]
    X[4137] = [1, 1, 1]  # the private outlier, at a distinctive row
    est = gaussian.CorrelatedGaussianMechanism(
        epsilon=1.0, delta=1e-6, degree=1, universe=universe, random_state=0
    )
    with pytest.raises(ValueError, match="not in the universe") as info:
        est.fit(X)
    message = str(info.value)
    assert "4137" not in message and "[1, 1, 1]" not in message and "1.0, 1.0" not in message


def test_workload_kernel_names_no_private_value():
    """The workload kernel that reads the private rows refuses a non-Boolean value
    without naming it, its row or its column."""
    X = np.zeros((400, 3))
    X[313, 2] = 7.25
    workload = MarginalWorkload(3, 1)
    with pytest.raises(ValueError, match=r"entries in \{0, 1\}") as info:
        workload.answers(X)
    assert not re.search(r"7\.25|313|column 2", str(info.value))
    with pytest.raises(ValueError, match=r"entries in \{0, 1\}") as info:
        workload.answers(np.where(X > 1, 9, X).astype(np.uint8))
    assert "9" not in str(info.value)


def test_reduced_space_lp_weights_message_has_no_number(monkeypatch):
    """ReducedSpaceLP: the check of the LP's weights (post-processing of the Laplace
    release) raises a constant message."""
    real = reduced_space.solve_column_generation

    def off_by_a_distinctive_amount(*args, **kwargs):
        h, result, info = real(*args, **kwargs)
        return h * 0.8642, result, info

    monkeypatch.setattr(reduced_space, "solve_column_generation", off_by_a_distinctive_amount)
    X = np.random.default_rng(1).integers(0, 2, size=(300, 3)).astype(float)
    with pytest.raises(RuntimeError, match="do not sum to 1") as info:
        reduced_space.ReducedSpaceLP(epsilon=1.0, degree=1, m=16, random_state=0).fit(X)
    assert not re.search(r"\d\.\d", str(info.value))


def test_bingham_sampler_failure_has_no_count(monkeypatch):
    """Private PCA (the Bingham sampler of NoisyMicroaggregation): the hard stop of the
    rejection loop names no count of the loop (it depends on the private matrix)."""
    monkeypatch.setattr(bingham, "_MAX_PROPOSALS", -1)
    A = np.diag([123.0, 45.0, 6.0])
    with pytest.raises(RuntimeError, match="acceptance rate") as info:
        bingham.private_pca(A, 2, np.random.default_rng(0))
    assert not re.search(r"\b\d+ of \d+\b|123|45\b", str(info.value))


def test_private_sampler_solver_message_stays_inside(monkeypatch):
    """PrivateSampler: a solver failure carrying numbers from the data (residuals,
    timings) turns into the constant fallback warning."""

    def failing(*args, **kwargs):
        raise SolverError("OSQP: primal residual 0.0314159 after 2718 iterations")

    monkeypatch.setattr(private_sampling, "solve_qp", failing)
    X = np.random.default_rng(2).integers(0, 2, size=(500, 4)).astype(float)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = private_sampling.PrivateSampler(m=60, random_state=0).fit(X)
    messages = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert messages == [private_sampling._FALLBACK_WARNING] and est.solver_fallback_
    assert "0.0314" not in messages[0] and "2718" not in messages[0]
