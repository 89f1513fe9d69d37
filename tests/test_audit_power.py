"""Audits with power: each DP mechanism against broken variants a developer could write.

Every set-up fixes a worst-case replace-one pair, uses the most powerful events the
mechanism allows (the likelihood-ratio statistic of the released vector, or events on
the final released model) and is run on the honest mechanism and on realistic broken
variants, each made by monkeypatching one module constant or function:

* CorrelatedGaussianMechanism, ``REPLACE_ONE_DELTA = 1``: the add/remove sensitivity
  under replace-one neighbours, every noise scale halved.  Gaussian output, so the
  claim (ε, δ) is tested as the Gaussian-DP claim ``μ = gdp_mu(ε, δ)`` (the largest μ
  whose Gaussian mechanism is (ε, δ)-DP; at δ = 1e-6 an event-frequency ε bound would
  need events of probability ~δ).
* ReducedSpaceLP, degree-2 full tables on p = 2 with the table count's factor 2
  dropped from the L1 sensitivity (``n_tables / n`` instead of ``2·n_tables / n``):
  Laplace noise halved.
* NoisyMicroaggregation: the cell-mean noise cut 1000 times (audited on the final
  released records against the total ε) and the cell-weight noise halved (audited on
  the final released weights against the weight release's ε/3, with p = 1 where the
  private projection is ±1 whatever the data, so it reveals nothing).
* The private-PCA (Bingham) step with β doubled (``A`` passed to ``private_pca``
  doubled), audited on the released direction against the exact ε of the honest step
  on the pair (the Lemma 5.1 bound 2β per draw is not attained on data in ``[0, 1]^p``,
  so a doubled β stays below the ledger's share; see ``test_bingham_exact_epsilon``).

Each ``audit_*`` function returns ``(result, row)`` with the numbers of the table in
``benchmarks/RESULTS.md`` (``benchmarks/bench_audits.py`` calls them with more runs).
"""

import math

import numpy as np
import pytest
from scipy.special import i0e

from skprivsynth import privacy
from skprivsynth._math.workload import MarginalWorkload
from skprivsynth.auditing import (
    audit_mechanism,
    cube_corner_neighbours,
    gdp_epsilon,
    gdp_mu,
    likelihood_ratio_statistic,
)
from skprivsynth.synthesizers import gaussian, noisy_microaggregation, reduced_space

# ------------------------------------------------------------ CorrelatedGaussianMechanism

CGM_EPSILON, CGM_DELTA = 1.0, 1e-6


def audit_correlated_gaussian(variant, n_runs, random_state=0, monkeypatch=None):
    """GDP audit of the released noisy answers on the cube-corner pair (n = 20, p = 2).

    Event (fixed in advance from the public pair and the claimed covariance ``Σ``):
    ``T(y) = dᵀΣ⁻¹(y − a) >= dᵀΣ⁻¹d / 2``, the midpoint of the likelihood-ratio
    statistic's means on D and D' -- the Neyman–Pearson test of this Gaussian pair.
    """
    X0, X1 = cube_corner_neighbours(20, 2)
    params = {"epsilon": CGM_EPSILON, "delta": CGM_DELTA, "degree": 1}
    claimed = gaussian.CorrelatedGaussianMechanism(random_state=0, **params).fit(X0)
    a, b = claimed.workload_answers(X0), claimed.workload_answers(X1)
    stat = likelihood_ratio_statistic(a, b, noise="gaussian", covariance=claimed.noise_covariance())
    cut = 0.5 * stat(b)  # the event uses the claimed covariance, fixed before any run
    if variant == "add-remove":
        monkeypatch.setattr(gaussian, "REPLACE_ONE_DELTA", 1.0)
    realised = gaussian.CorrelatedGaussianMechanism(random_state=0, **params).fit(X0)
    d = b - a
    precision = np.linalg.pinv(realised.noise_covariance(), hermitian=True)
    mu_exact = math.sqrt(d @ precision @ d)  # of the noise actually added

    def mechanism(X, seed):
        return gaussian.CorrelatedGaussianMechanism(random_state=seed, **params).fit(X)

    mu_claim = gdp_mu(CGM_EPSILON, CGM_DELTA)
    result = audit_mechanism(
        mechanism,
        X0,
        X1,
        events={"T >= midpoint": lambda est: stat(est.noisy_answers_) >= cut},
        mu=mu_claim,
        n_runs=n_runs,
        random_state=random_state,
    )
    row = {
        "mechanism": "CorrelatedGaussianMechanism (degree 1, p = 2, n = 20)",
        "variant": variant,
        "claimed": f"ε = {CGM_EPSILON:g}, δ = {CGM_DELTA:g} (μ ≤ {mu_claim:.3f})",
        "lower": f"μ ≥ {result.mu_lower:.3f} (ε ≥ {gdp_epsilon(result.mu_lower, CGM_DELTA):.2f})",
        "exact": f"μ = {mu_exact:.3f} (ε = {gdp_epsilon(mu_exact, CGM_DELTA):.2f})",
        "caught": result.violation,
        "runs": n_runs,
    }
    return result, row


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["honest", "add-remove"])
def test_audit_correlated_gaussian(variant, monkeypatch):
    result, row = audit_correlated_gaussian(variant, 8000, random_state=4, monkeypatch=monkeypatch)
    print(row)
    mu_claim = gdp_mu(CGM_EPSILON, CGM_DELTA)
    if variant == "honest":
        assert not result.violation and result.mu_lower <= mu_claim, result.summary()
        # Power: the audit sees most of the pair's μ = 1/c(ε, δ) = 0.160, so it would
        # refute the same noise claimed at ε = 0.25 (μ = gdp_mu(0.25, δ) = 0.066).
        assert result.mu_lower > gdp_mu(0.25, CGM_DELTA), result.summary()
    else:
        assert result.violation and result.mu_lower > mu_claim, result.summary()


# --------------------------------------------------------------------- ReducedSpaceLP

RSLP_EPSILON, RSLP_N = 1.0, 20


def audit_reduced_space_lp(variant, n_runs, random_state=0, monkeypatch=None):
    """ε audit of the Laplace release of the 2-way table of p = 2 columns (n = 20).

    The cube-corner pair moves one record from (0, 0) to (1, 1): one cell of the table
    loses 1/n and one gains 1/n, an L1 change of 2/n -- exactly the claimed sensitivity
    ``2·n_tables/n`` (the factor 2 of a full table), so the release's exact ε on this
    pair is the claim.  Events, fixed in advance: the Laplace likelihood-ratio
    statistic ``T`` of ``noisy_answers_`` at its maximum (both moving cells beyond
    their value on D', probability 1/4 on D' and ``e^{−ε}/4`` on D) and at half of
    it.  (With all the tables of degree <= 2 the same change is spread over six cells
    and an event of ratio ``e^ε`` has probability 1/64: too rare for a few thousand
    runs.)  The reduced space is the public uniform one, so all of ε is in this
    release.
    """
    if variant == "table-count-halved":
        monkeypatch.setattr(MarginalWorkload, "l1_sensitivity", lambda self, n: self.n_tables / n)
    X0, X1 = cube_corner_neighbours(RSLP_N, 2)
    params = {
        "epsilon": RSLP_EPSILON,
        "degree": 2,
        "workload": [(0, 1)],
        "m": 4,
        "reduced_space": "uniform",
    }

    def mechanism(X, seed):
        est = reduced_space.ReducedSpaceLP(random_state=seed, **params).fit(X)
        return est.noisy_answers_[1:], est.noise_scale_

    workload = reduced_space.ReducedSpaceLP(**params).fit(X0).workload_
    a = workload.answers(X0.astype(np.uint8))[1:]  # without the constant query
    b = workload.answers(X1.astype(np.uint8))[1:]
    claimed_scale = 2 * workload.n_tables / RSLP_N / RSLP_EPSILON
    stat = likelihood_ratio_statistic(a, b, scales=np.full(a.size, claimed_scale))
    realised_scale = mechanism(X0, 0)[1]
    top = stat(b)  # the maximum of T: Σ|b − a| / claimed scale
    exact = float(np.abs(b - a).sum() / realised_scale)
    result = audit_mechanism(
        mechanism,
        X0,
        X1,
        events={
            "T >= max": lambda out: stat(out[0]) >= top,
            "T >= max / 2": lambda out: stat(out[0]) >= top / 2,
        },
        epsilon=RSLP_EPSILON,
        n_runs=n_runs,
        random_state=random_state,
    )
    row = {
        "mechanism": "ReducedSpaceLP (2-way table, p = 2, n = 20)",
        "variant": variant,
        "claimed": f"ε = {RSLP_EPSILON:g}",
        "lower": f"ε ≥ {result.epsilon_lower:.2f}",
        "exact": f"ε = {exact:.2f}",
        "caught": result.violation,
        "runs": n_runs,
    }
    return result, row


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["honest", "table-count-halved"])
def test_audit_reduced_space_lp(variant, monkeypatch):
    result, row = audit_reduced_space_lp(variant, 2000, random_state=3, monkeypatch=monkeypatch)
    print(row)
    if variant == "honest":
        assert not result.violation and result.epsilon_lower <= RSLP_EPSILON, result.summary()
        assert result.epsilon_lower > 0.5, result.summary()  # power: half the claim is seen
    else:
        assert result.violation and result.epsilon_lower > RSLP_EPSILON, result.summary()


# -------------------------------------------------------------- NoisyMicroaggregation
#
# p = 1, t = 1: the private projection is a unit vector of R¹, ±1 with probability 1/2
# whatever the data (the Bingham density exp(v·A·v) = exp(A) is constant on {−1, 1}),
# so it reveals nothing and the cells are public.  Pair: 10 records at 1 and 10 at 0,
# one 0 moved to 1: the origin cell's weight loses 1/n and the outer cell's gains 1/n
# (‖Δw‖₁ = 2/n, the claimed sensitivity: the weight release's exact ε on the pair is
# its share ε/3), and the outer cell's damped mean moves by 1/b (half the means'
# sensitivity 2/b: ε/6).  Both cells hold half the data, so the normalisation of the
# released weights hardly depends on the moved record.

NM_EPSILON, NM_N = 3.0, 20


def _nm_pair():
    base = np.zeros((NM_N, 1))
    base[: NM_N // 2] = 1.0
    X0 = base.copy()
    X1 = base.copy()
    X1[-1] = 1.0
    return X0, X1


def _nm_cells(est):
    points = est.lattice_points_[:, 0]
    outer = int(np.argmin(np.abs(points - est.components_[0, 0])))  # the cell of x = 1
    origin = int(np.argmin(np.abs(points)))
    return outer, origin


def _scale_nm_noise(monkeypatch, weights=1.0, means=1.0):
    """Patch the ledger's Laplace call: the weight (1-D) and mean (2-D) releases of
    NoisyMicroaggregation use ``weights`` resp. ``means`` times their sensitivity."""
    real = privacy.laplace_mechanism
    recorded = []

    def patched(values, sensitivity, epsilon, rng, **kwargs):
        factor = weights if np.ndim(values) == 1 else means
        out = real(values, sensitivity * factor, epsilon, rng, **kwargs)
        if np.ndim(values) == 1:
            recorded.append(out[0])
        return out

    monkeypatch.setattr(privacy, "laplace_mechanism", patched)
    return recorded


def audit_noisy_microaggregation_release(variant, n_runs, random_state=0, monkeypatch=None):
    """Events on the final released model (weights_ and records_) against the total ε."""
    if variant == "mean-noise-cut-1000":
        _scale_nm_noise(monkeypatch, means=1e-3)
    X0, X1 = _nm_pair()

    def mechanism(X, seed):
        est = noisy_microaggregation.NoisyMicroaggregation(
            epsilon=NM_EPSILON, t=1, random_state=seed
        ).fit(X)
        outer, origin = _nm_cells(est)
        return est.weights_[outer], est.weights_[origin], est.records_[outer, 0], est.b_

    b = mechanism(X0, 0)[3]
    mean1 = (NM_N // 2 + 1) / max(NM_N // 2 + 1, b)  # outer cell's damped mean on D'
    events = {
        "outer mean >= its value on D'": lambda o: o[2] >= mean1,
        "outer mean > 0.02 above its value on D": lambda o: o[2] > mean1 - 1 / b + 0.02,
        "weight share >= its value on D'": lambda o: o[0] >= 0.55 * (o[0] + o[1]),
        "both": lambda o: o[2] >= mean1 and o[0] >= 0.55 * (o[0] + o[1]),
    }
    result = audit_mechanism(
        mechanism,
        X0,
        X1,
        events=events,
        epsilon=NM_EPSILON,
        n_runs=n_runs,
        random_state=random_state,
    )
    exact = {
        "honest": NM_EPSILON / 2,
        "mean-noise-cut-1000": NM_EPSILON / 3 + 1000 * NM_EPSILON / 6,
    }
    row = {
        "mechanism": "NoisyMicroaggregation, final release (p = 1, n = 20)",
        "variant": variant,
        "claimed": f"ε = {NM_EPSILON:g} (total)",
        "lower": f"ε ≥ {result.epsilon_lower:.2f}",
        "exact": f"ε = {exact[variant]:.4g} (weights + means on the pair)",
        "caught": result.violation,
        "runs": n_runs,
    }
    return result, row


def audit_noisy_microaggregation_weights(variant, n_runs, random_state=0, monkeypatch=None):
    """The cell-weight release (read at the ledger's Laplace call) against its ε/3.

    The released ``weights_`` are normalised, which hides the sum of the two moving
    weights, so the full ratio of the release needs the raw noisy weights: the event
    "outer weight at or above its value on D' and origin weight at or below its value
    on D'" has probability 1/4 on D' and ``e^{−ε/3}/4`` on D.
    """
    recorded = _scale_nm_noise(
        monkeypatch, weights=0.5 if variant == "weight-noise-halved" else 1.0
    )
    X0, X1 = _nm_pair()
    half = NM_N // 2

    def mechanism(X, seed):
        recorded.clear()
        est = noisy_microaggregation.NoisyMicroaggregation(
            epsilon=NM_EPSILON, t=1, random_state=seed
        ).fit(X)
        outer, origin = _nm_cells(est)
        return recorded[0][outer], recorded[0][origin]

    w1 = ((half + 1) / NM_N, (half - 1) / NM_N)  # outer, origin on D'
    events = {
        "outer >= w'(outer) and origin <= w'(origin)": (lambda o: o[0] >= w1[0] and o[1] <= w1[1]),
        "outer − origin >= its value on D'": lambda o: o[0] - o[1] >= w1[0] - w1[1],
    }
    claimed = NM_EPSILON / 3
    result = audit_mechanism(
        mechanism,
        X0,
        X1,
        events=events,
        epsilon=claimed,
        n_runs=n_runs,
        random_state=random_state,
    )
    factor = 2.0 if variant == "weight-noise-halved" else 1.0
    row = {
        "mechanism": "NoisyMicroaggregation, cell weights (p = 1, n = 20)",
        "variant": variant,
        "claimed": f"ε/3 = {claimed:g} (of ε = {NM_EPSILON:g})",
        "lower": f"ε ≥ {result.epsilon_lower:.2f}",
        "exact": f"ε = {factor * claimed:.2f}",
        "caught": result.violation,
        "runs": n_runs,
    }
    return result, row


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["honest", "mean-noise-cut-1000"])
def test_audit_noisy_microaggregation_release(variant, monkeypatch):
    result, row = audit_noisy_microaggregation_release(
        variant, 1500, random_state=5, monkeypatch=monkeypatch
    )
    print(row)
    if variant == "honest":
        assert not result.violation and result.epsilon_lower <= NM_EPSILON, result.summary()
        # Power: the audit would refute this noise claimed at ε = 0.5 (exact ε: 1.5).
        assert result.epsilon_lower > 0.5, result.summary()
    else:
        assert result.violation and result.epsilon_lower > NM_EPSILON, result.summary()


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["honest", "weight-noise-halved"])
def test_audit_noisy_microaggregation_weights(variant, monkeypatch):
    result, row = audit_noisy_microaggregation_weights(
        variant, 1500, random_state=6, monkeypatch=monkeypatch
    )
    print(row)
    claimed = NM_EPSILON / 3
    if variant == "honest":
        assert not result.violation and result.epsilon_lower <= claimed, result.summary()
        assert result.epsilon_lower > 0.5 * claimed, result.summary()  # power
    else:
        assert result.violation and result.epsilon_lower > claimed, result.summary()


# ------------------------------------------------------------ private PCA (Bingham step)

BINGHAM_EPSILON = 12.0  # t = 1: β = ε/(6t) = 2


def bingham_pair_epsilon(beta):
    """Exact ε of one PVEC draw on the pair ``A = 0`` vs ``A' = β·uuᵀ`` in R².

    On the unit circle ``v = (cos θ, sin θ)``, ``(v·u)² = (1 + cos 2(θ − θ_u))/2``; the
    density of ``v`` under ``A'`` is ``exp(β(v·u)²)/Z`` with
    ``Z = E_uniform[exp(β(v·u)²)] = e^{β/2} I₀(β/2)``, and under ``A = 0`` uniform, so the
    log-ratio ``β(v·u)² − ln Z`` ranges over ``[−ln Z, β − ln Z]``.
    """
    log_z = beta / 2 + math.log(i0e(beta / 2)) + beta / 2  # i0e(x) = e^{−x} I₀(x)
    return max(log_z, beta - log_z)


def audit_bingham(variant, n_runs, random_state=0, monkeypatch=None):
    """The released direction of NoisyMicroaggregation (p = 2, t = 1) on the cube pair.

    D: 20 records at the origin (``A = 0``, the direction is uniform); D': one of them
    at (1, 1) (``A' = β·uuᵀ``, ``u = (1, 1)/√2``, ``β = ε/(6t)``).  Events on ``(v·u)²``
    (the likelihood ratio is monotone in it).  Claim: the exact ε of the honest step
    on this pair (:func:`bingham_pair_epsilon`).  Broken: ``A`` doubled before
    ``private_pca`` (β = ε/(3t), the normalising constant's factor forgotten).
    """
    if variant == "beta-doubled":
        real = noisy_microaggregation.private_pca
        monkeypatch.setattr(
            noisy_microaggregation, "private_pca", lambda A, t, rng: real(2.0 * A, t, rng)
        )
    X0, X1 = cube_corner_neighbours(20, 2)
    u = np.ones(2) / math.sqrt(2)

    def mechanism(X, seed):
        est = noisy_microaggregation.NoisyMicroaggregation(
            epsilon=BINGHAM_EPSILON, t=1, random_state=seed
        ).fit(X)
        return float((est.components_[:, 0] @ u) ** 2)

    events = {f"(v·u)² <= {c}": (lambda c2, c=c: c2 <= c) for c in (0.05, 0.15)}
    events.update({f"(v·u)² >= {c}": (lambda c2, c=c: c2 >= c) for c in (0.85, 0.95)})
    beta = BINGHAM_EPSILON / 6
    claimed = bingham_pair_epsilon(beta)
    result = audit_mechanism(
        mechanism,
        X0,
        X1,
        events=events,
        epsilon=claimed,
        n_runs=n_runs,
        random_state=random_state,
    )
    realised = bingham_pair_epsilon(2 * beta if variant == "beta-doubled" else beta)
    row = {
        "mechanism": "NoisyMicroaggregation, private PCA step (p = 2, t = 1, β = 2)",
        "variant": variant,
        "claimed": f"ε = {claimed:.2f} (exact, honest step on the pair; ledger 2β = {2 * beta:g})",
        "lower": f"ε ≥ {result.epsilon_lower:.2f}",
        "exact": f"ε = {realised:.2f}",
        "caught": result.violation,
        "runs": n_runs,
    }
    return result, row


def test_bingham_exact_epsilon():
    """The closed form against quadrature, and the slack of the ledger's 2β per draw."""
    theta = np.linspace(0, 2 * np.pi, 400_001)
    for beta in (0.5, 2.0, 4.0):
        log_density = beta * np.cos(theta - np.pi / 4) ** 2
        log_z = math.log(np.trapezoid(np.exp(log_density), theta) / (2 * np.pi))
        expected = max(np.max(log_density - log_z), np.max(log_z - log_density))
        assert bingham_pair_epsilon(beta) == pytest.approx(expected, rel=1e-6)
        # Lemma 5.1(3) charges 2β per draw; on this pair a doubled β stays below it.
        assert bingham_pair_epsilon(2 * beta) < 2 * beta


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["honest", "beta-doubled"])
def test_audit_bingham(variant, monkeypatch):
    result, row = audit_bingham(variant, 1500, random_state=7, monkeypatch=monkeypatch)
    print(row)
    claimed = bingham_pair_epsilon(BINGHAM_EPSILON / 6)
    if variant == "honest":
        assert not result.violation and result.epsilon_lower <= claimed, result.summary()
        assert result.epsilon_lower > 0.5 * claimed, result.summary()  # power
    else:
        assert result.violation and result.epsilon_lower > claimed, result.summary()
