"""Empirical differential-privacy audits: statistical evidence that a guarantee holds.

A mechanism ``M`` is (ε, δ)-DP when, for every pair of neighbouring datasets ``D, D'``
and every event ``E`` on its output, ``P[M(D) ∈ E] <= e^ε · P[M(D') ∈ E] + δ``.
An audit runs ``M`` many times on a fixed neighbouring pair, estimates both event
probabilities with exact Clopper–Pearson confidence bounds and turns them into a
*lower confidence bound* on ε:

    ``ε >= ln((p_lo − δ) / q_hi)``,  where ``P[M(D) ∈ E] >= p_lo`` and ``P[M(D') ∈ E] <= q_hi``

hold jointly with the stated confidence.  If that lower bound exceeds the claimed ε,
the implementation violates its claim (with confidence ``confidence``); if it stays
below, the audit found no violation *for this pair and these events* -- an audit can
refute a guarantee, never prove it.  Its power comes from a worst-case neighbouring
pair (:func:`cube_corner_neighbours`, :func:`moved_record_neighbours`) and a
well-chosen event (a released weight or noisy answer above a threshold).

Every candidate event is tested in both directions (``D`` vs ``D'`` and ``D'`` vs
``D``) and with its complement; with ``m`` candidate events there are ``4m`` tests,
and the Bonferroni correction runs each at level ``(1 − confidence)/(4m)`` so that the
*maximum* over all tests is still a valid lower bound.  When thresholds are searched
(``statistic=`` with ``n_thresholds``), they are chosen on separate pilot runs so that
the final runs test fixed hypotheses.

Every test also bounds the Gaussian-DP parameter μ (Dong, Roth and Su 2022), the
claim to test for a Gaussian release, whose (ε, δ) claim at small δ is out of reach of
event frequencies (:func:`gdp_mu` converts one into the other).  An exception raised by
the mechanism is an outcome like any other (``exceptions=``), so a failure path that
depends on the data is audited too.

This follows Ding, Wang, Wang, Zhang, Kifer, "Detecting Violations of Differential
Privacy", CCS 2018, and Google's differential-privacy stochastic tester, with exact
(Clopper–Pearson) intervals in place of their hypothesis tests.

Examples
--------
>>> import numpy as np
>>> from skprivsynth.auditing import audit_mechanism
>>> from skprivsynth.privacy import laplace_mechanism
>>> def count(X, seed):  # ε = 1 release of a count; sensitivity 1
...     return laplace_mechanism([X.sum()], 1.0, 1.0, np.random.default_rng(seed))[0][0]
>>> X0, X1 = np.zeros(10), np.r_[np.zeros(9), 1.0]
>>> result = audit_mechanism(count, X0, X1, statistic=lambda y: y, epsilon=1.0,
...                          n_runs=2000, random_state=0)
>>> bool(result.epsilon_lower <= 1.0)
True
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
from scipy import optimize, stats

__all__ = [
    "AuditResult",
    "audit_mechanism",
    "clopper_pearson",
    "cube_corner_neighbours",
    "epsilon_lower_bound",
    "gdp_delta",
    "gdp_epsilon",
    "gdp_mu",
    "gdp_mu_lower_bound",
    "likelihood_ratio_statistic",
    "moved_record_neighbours",
]


def clopper_pearson(successes, trials, alpha=0.05, side="two-sided"):
    """Exact (Clopper–Pearson) confidence bounds for a binomial proportion.

    Parameters
    ----------
    successes : int
        Number of successes ``k``, ``0 <= k <= trials``.
    trials : int
        Number of trials ``n >= 1``.
    alpha : float, default=0.05
        Error probability: the interval covers the true proportion with probability
        at least ``1 − alpha``.
    side : {"two-sided", "lower", "upper"}, default="two-sided"
        ``"lower"`` returns ``(lo, 1)`` with ``P(p < lo) <= alpha``; ``"upper"`` returns
        ``(0, hi)``; ``"two-sided"`` splits ``alpha`` equally.

    Returns
    -------
    (lower, upper) : tuple of float
        ``lower = Beta(alpha', k, n−k+1)`` quantile (0 if ``k = 0``) and
        ``upper = Beta(1−alpha', k+1, n−k)`` quantile (1 if ``k = n``).

    Examples
    --------
    >>> lo, hi = clopper_pearson(5, 10)
    >>> round(lo, 4), round(hi, 4)
    (0.1871, 0.8129)
    """
    if isinstance(trials, bool) or not isinstance(trials, Integral) or trials < 1:
        raise ValueError(f"trials must be a positive integer; got {trials!r}.")
    if (
        isinstance(successes, bool)
        or not isinstance(successes, Integral)
        or not 0 <= successes <= trials
    ):
        raise ValueError(
            f"successes must be an integer in [0, trials={trials}]; got {successes!r}."
        )
    if not isinstance(alpha, Real) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be in the open interval (0, 1); got {alpha!r}.")
    if side not in ("two-sided", "lower", "upper"):
        raise ValueError(f"side must be 'two-sided', 'lower' or 'upper'; got {side!r}.")
    k, n = int(successes), int(trials)
    a = alpha / 2 if side == "two-sided" else alpha
    with warnings.catch_warnings():  # extreme alpha: scipy warns and returns NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        lower = 0.0 if k == 0 else float(stats.beta.ppf(a, k, n - k + 1))
        upper = 1.0 if k == n else float(stats.beta.ppf(1 - a, k + 1, n - k))
    # For astronomically small alpha the quantile can underflow to NaN; the trivial
    # bounds are then the (valid, conservative) answer.
    lower = lower if math.isfinite(lower) else 0.0
    upper = upper if math.isfinite(upper) else 1.0
    if side == "lower":
        upper = 1.0
    elif side == "upper":
        lower = 0.0
    return lower, upper


def epsilon_lower_bound(k0, n0, k1, n1, alpha=0.05, delta=0.0):
    """Lower confidence bound on ε from one event seen ``k0/n0`` times on D, ``k1/n1`` on D'.

    With probability ``>= 1 − alpha``, ``P_D(E) >= p_lo`` and ``P_D'(E) <= q_hi``
    (one-sided Clopper–Pearson bounds at ``alpha/2`` each, union bound), hence for an
    (ε, δ)-DP mechanism ``ε >= ln((p_lo − δ)/q_hi)``.  Returns 0 when the bound is
    not positive (no evidence), ``inf`` when ``q_hi = 0`` cannot happen (never: the
    upper bound is positive).

    Returns
    -------
    float
    """
    p_lo = clopper_pearson(k0, n0, alpha / 2, side="lower")[0]
    q_hi = clopper_pearson(k1, n1, alpha / 2, side="upper")[1]
    if p_lo - delta <= 0 or p_lo - delta <= q_hi:
        return 0.0
    return math.log((p_lo - delta) / q_hi)


def _delta_lower_bound(k0, n0, k1, n1, alpha, epsilon):
    """Lower confidence bound on δ at a given ε: ``δ >= p_lo − e^ε·q_hi``."""
    p_lo = clopper_pearson(k0, n0, alpha / 2, side="lower")[0]
    q_hi = clopper_pearson(k1, n1, alpha / 2, side="upper")[1]
    if p_lo <= 0.0:
        return 0.0
    if q_hi <= 0.0:  # cannot happen for an exact upper bound; kept for safety
        return p_lo
    # Compare in the log domain first: ``e^ε`` overflows for the large claimed ε of,
    # e.g., PrivateSampler (ε in the thousands), where the bound is simply 0.
    if epsilon >= math.log(p_lo) - math.log(q_hi):
        return 0.0
    return max(0.0, p_lo - math.exp(epsilon) * q_hi)


def gdp_mu_lower_bound(k0, n0, k1, n1, alpha=0.05):
    """Lower confidence bound on the Gaussian-DP μ from one event.

    The event was seen ``k0/n0`` times on D and ``k1/n1`` on D'.  A μ-GDP mechanism
    has ``Φ⁻¹(P_D[E]) − Φ⁻¹(P_D'[E]) <= μ`` for every event (its trade-off function
    is at least ``G_μ``; Dong, Roth and Su, "Gaussian differential privacy", JRSS-B
    2022, Def. 2.6); with probability ``>= 1 − alpha`` both ``P_D[E] >= p_lo`` and
    ``P_D'[E] <= q_hi`` (one-sided Clopper–Pearson at ``alpha/2`` each), hence
    ``μ >= Φ⁻¹(p_lo) − Φ⁻¹(q_hi)``.  Returns 0 when that is not positive.

    Examples
    --------
    >>> round(gdp_mu_lower_bound(840, 1000, 160, 1000), 3)
    1.799
    """
    p_lo = clopper_pearson(k0, n0, alpha / 2, side="lower")[0]
    q_hi = clopper_pearson(k1, n1, alpha / 2, side="upper")[1]
    if p_lo <= 0.0 or q_hi >= 1.0:
        return 0.0
    return max(0.0, float(stats.norm.ppf(p_lo) - stats.norm.ppf(q_hi)))


def gdp_delta(mu, epsilon):
    """Exact δ(ε) of a μ-GDP mechanism (Dong, Roth and Su 2022, Cor. 2.13).

    ``δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)``: the privacy profile of a Gaussian
    mechanism with sensitivity/σ = μ (Balle and Wang 2018, Thm. 8).
    """
    if mu <= 0:
        return 0.0
    a, b = -epsilon / mu + mu / 2, -epsilon / mu - mu / 2
    # e^ε Φ(b) in the log domain: e^ε overflows for large ε where Φ(b) underflows.
    return max(0.0, float(stats.norm.cdf(a) - math.exp(epsilon + stats.norm.logcdf(b))))


def gdp_epsilon(mu, delta):
    """Smallest ε with ``gdp_delta(mu, ε) <= delta``: the exact ε of a Gaussian pair.

    Examples
    --------
    >>> round(gdp_epsilon(1.0, 1e-6), 3)
    4.887
    """
    if not (isinstance(delta, Real) and 0 < delta < 1):
        raise ValueError(f"delta must be in the open interval (0, 1); got {delta!r}.")
    if not (isinstance(mu, Real) and math.isfinite(mu) and mu >= 0):
        raise ValueError(f"mu must be a finite number >= 0; got {mu!r}.")
    if gdp_delta(mu, 0.0) <= delta:
        return 0.0
    high = 1.0
    while gdp_delta(mu, high) > delta:
        high *= 2
    return float(optimize.brentq(lambda e: gdp_delta(mu, e) - delta, 0.0, high, xtol=1e-12))


def gdp_mu(epsilon, delta):
    """Largest μ whose Gaussian mechanism is (ε, δ)-DP: the μ an (ε, δ) claim allows.

    The inverse of :func:`gdp_epsilon` in ``mu`` (``gdp_delta`` increases with μ).

    Examples
    --------
    >>> round(gdp_epsilon(gdp_mu(1.0, 1e-6), 1e-6), 6)
    1.0
    """
    if not (isinstance(epsilon, Real) and math.isfinite(epsilon) and epsilon >= 0):
        raise ValueError(f"epsilon must be a finite number >= 0; got {epsilon!r}.")
    if not (isinstance(delta, Real) and 0 < delta < 1):
        raise ValueError(f"delta must be in the open interval (0, 1); got {delta!r}.")
    high = 1.0
    while gdp_delta(high, epsilon) < delta:
        high *= 2
    return float(optimize.brentq(lambda m: gdp_delta(m, epsilon) - delta, 0.0, high, xtol=1e-12))


@dataclass
class AuditResult:
    """Outcome of :func:`audit_mechanism`.

    Attributes
    ----------
    epsilon_lower : float
        Lower confidence bound on the ε of the mechanism (0 = no evidence of privacy
        loss), valid simultaneously over all tested events (Bonferroni).
    epsilon_claimed : float or None
        The ε the mechanism claims.
    delta_claimed : float
        The δ the bound accounts for.
    delta_lower : float or None
        Lower confidence bound on δ at ``epsilon_claimed`` (None without a claim).
    violation : bool
        ``epsilon_lower > epsilon_claimed`` (or ``delta_lower > delta_claimed``, or
        ``mu_lower > mu_claimed``): the claim is refuted at the stated confidence.
    confidence : float
        Joint confidence level of all bounds.
    n_runs : int
        Runs of the mechanism per dataset in the final (testing) phase.
    n_search_runs : int
        Pilot runs per dataset used to choose thresholds.
    n_tests : int
        Number of (event, direction) tests in the Bonferroni correction.
    best_event : str
        The event and direction attaining ``epsilon_lower``.
    best_counts : tuple of int
        ``(k_num, n, k_den, n)`` for the best test: event counts on the dataset in the
        numerator of ``ln(p/q)`` and on the other one (the order of ``best_event``).
    mu_lower : float
        Lower confidence bound on the Gaussian-DP parameter μ, jointly with
        ``epsilon_lower`` (the same tests).
    mu_claimed : float or None
        The μ the mechanism claims.
    n_raised : tuple of int
        Testing runs on ``D`` and on ``D'`` that raised one of ``exceptions``.
    events : list of dict
        Per event: name, frequencies on D and D', and its ε lower bound.
    elapsed : float
        Wall-clock seconds.
    """

    epsilon_lower: float
    epsilon_claimed: float | None
    delta_claimed: float
    delta_lower: float | None
    violation: bool
    confidence: float
    n_runs: int
    n_search_runs: int
    n_tests: int
    best_event: str
    best_counts: tuple
    mu_lower: float = 0.0
    mu_claimed: float | None = None
    n_raised: tuple = (0, 0)
    events: list = field(default_factory=list)
    elapsed: float = 0.0

    def summary(self):
        """Readable multi-line report."""
        if self.epsilon_claimed is not None:
            claim = f"claimed ε = {self.epsilon_claimed:.4g}, δ = {self.delta_claimed:.3g}"
        elif self.mu_claimed is not None:
            claim = f"claimed Gaussian-DP μ = {self.mu_claimed:.4g}"
        else:
            claim = "no claim given"
        verdict = (
            "VIOLATION: the claim is refuted"
            if self.violation
            else "no violation detected (an audit cannot prove privacy)"
        )
        k0, n0, k1, n1 = self.best_counts
        lines = [
            "Differential-privacy audit",
            f"  {claim}",
            f"  ε lower bound ({100 * self.confidence:.0f}% confidence, Bonferroni over "
            f"{self.n_tests} tests): {self.epsilon_lower:.4f}",
        ]
        if self.delta_lower is not None:
            lines.append(f"  δ lower bound at the claimed ε: {self.delta_lower:.4g}")
        mu_claim = "" if self.mu_claimed is None else f" (claimed μ = {self.mu_claimed:.4g})"
        lines.append(f"  Gaussian-DP μ lower bound: {self.mu_lower:.4f}{mu_claim}")
        if any(self.n_raised):
            lines.append(f"  runs that raised: {self.n_raised[0]} on D, {self.n_raised[1]} on D'")
        lines += [
            (
                f"  best event: {self.best_event}  (counts {k0}/{n0} vs {k1}/{n1})"
                if self.epsilon_lower > 0
                else "  best event: none (no event gives a positive lower bound)"
            ),
            f"  runs per dataset: {self.n_runs} (+ {self.n_search_runs} pilot runs); "
            f"time {self.elapsed:.1f} s",
            f"  verdict: {verdict}",
        ]
        return "\n".join(lines)

    def __str__(self):
        return self.summary()


def _check_neighbours(X0, X1):
    a, b = np.asarray(X0), np.asarray(X1)
    if a.shape != b.shape:
        raise ValueError(
            "X0 and X1 must have the same shape (replace-one neighbours); "
            f"got {a.shape} and {b.shape}."
        )
    if a.ndim >= 1 and a.shape[0] > 0:
        differing = np.flatnonzero(np.any((a != b).reshape(a.shape[0], -1), axis=1))
        if differing.size > 1:
            raise ValueError(
                "X0 and X1 must differ in at most one row (replace-one neighbours); "
                f"rows {differing[:5].tolist()} differ."
            )


def _run(mechanism, X, seeds, statistic, events, exceptions):
    """Run ``mechanism`` once per seed; an exception listed in ``exceptions`` is an outcome.

    Returns the statistic values (NaN rows for runs that raised, so that no threshold
    event ``statistic >= c`` holds for them), the event hits (False for runs that raised)
    and, per class of ``exceptions``, whether the run raised an instance of it.
    """
    values, hits, raised = [], [], []
    for seed in seeds:
        try:
            out = mechanism(X, int(seed))
        except exceptions as exc:
            values.append(None)
            hits.append([False] * len(events))
            raised.append([isinstance(exc, cls) for cls in exceptions])
            continue
        raised.append([False] * len(exceptions))
        if statistic is not None:
            s = np.asarray(statistic(out), dtype=np.float64).ravel()
            if not np.all(np.isfinite(s)):
                raise ValueError("statistic returned a non-finite value; it must be finite.")
            values.append(s)
        if events:
            hits.append([bool(e(out)) for e in events.values()])
    if statistic is not None:
        width = next((v.size for v in values if v is not None), 0)
        values = np.array([np.full(width, np.nan) if v is None else v for v in values])
        values = values.reshape(len(seeds), width)
    else:
        values = None
    hits = np.array(hits, dtype=bool).reshape(len(seeds), len(events))
    raised = np.array(raised, dtype=bool).reshape(len(seeds), len(exceptions))
    return values, hits, raised


def _check_exceptions(exceptions):
    classes = (exceptions,) if isinstance(exceptions, type) else tuple(exceptions)
    for cls in classes:
        if not (isinstance(cls, type) and issubclass(cls, Exception)):
            raise TypeError(
                f"exceptions must be an Exception subclass or a tuple of them; got {exceptions!r}."
            )
    return classes


def _check_positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer; got {value!r}.")
    return int(value)


def _check_audit_arguments(
    events, statistic, n_runs, n_thresholds, n_search_runs, confidence, delta, epsilon, mu,
    exceptions,
):  # fmt: skip
    """The checked arguments of :func:`audit_mechanism` (messages name each one)."""
    if events is None and statistic is None:
        raise ValueError("give events (dict of name -> callable) and/or statistic (callable).")
    events = dict(events or {})
    for name, e in events.items():
        if not callable(e):
            raise TypeError(f"events[{name!r}] must be callable as event(output) -> bool.")
    if statistic is not None and not callable(statistic):
        raise TypeError(f"statistic must be callable; got {statistic!r}.")
    n_runs = _check_positive_int(n_runs, "n_runs")
    n_thresholds = _check_positive_int(n_thresholds, "n_thresholds")
    if n_search_runs is None:
        n_search_runs = max(50, n_runs // 4) if statistic is not None else 0
    elif statistic is not None:
        n_search_runs = _check_positive_int(n_search_runs, "n_search_runs")
    if not isinstance(confidence, Real) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be in the open interval (0, 1); got {confidence!r}.")
    if not isinstance(delta, Real) or not 0 <= delta < 1:
        raise ValueError(f"delta must be in [0, 1); got {delta!r}.")
    if epsilon is not None and (
        not isinstance(epsilon, Real) or not (math.isfinite(epsilon) and epsilon >= 0)
    ):
        raise ValueError(f"epsilon must be a finite number >= 0 or None; got {epsilon!r}.")
    if mu is not None and (not isinstance(mu, Real) or not (math.isfinite(mu) and mu >= 0)):
        raise ValueError(f"mu must be a finite number >= 0 or None; got {mu!r}.")
    exceptions = _check_exceptions(exceptions)
    return events, n_runs, n_thresholds, n_search_runs, exceptions


def _pilot_thresholds(mechanism, X0, X1, seeds, statistic, n_thresholds, exceptions):
    """``(coordinate, threshold)`` pairs: quantiles of the pilot runs of ``statistic``
    (both datasets pooled), fixed before the testing runs."""
    thresholds = []
    if statistic is None:
        return thresholds
    pilot0, _, _ = _run(mechanism, X0, seeds[0], statistic, {}, exceptions)
    pilot1, _, _ = _run(mechanism, X1, seeds[1], statistic, {}, exceptions)
    pooled = np.vstack([pilot0, pilot1])
    levels = np.linspace(0, 1, n_thresholds + 2)[1:-1]
    for j in range(pooled.shape[1]):
        column = pooled[:, j][np.isfinite(pooled[:, j])]  # runs that did not raise
        if column.size == 0:
            continue
        thresholds.extend((j, float(c)) for c in np.unique(np.quantile(column, levels)))
    return thresholds


def _event_bounds(names, counts0, counts1, n_runs, alpha, delta, epsilon):
    """Clopper–Pearson bounds of every event and its complement, both directions:
    ``(best, delta_best, mu_best, table)``."""
    best = (0.0, "none", (0, n_runs, 0, n_runs))
    delta_best = mu_best = 0.0
    table = []
    for i, name in enumerate(names):
        k0, k1 = int(counts0[i]), int(counts1[i])
        tests = (
            (f"P_D[{name}] vs P_D'", k0, k1),
            (f"P_D'[{name}] vs P_D", k1, k0),
            (f"P_D[not {name}] vs P_D'", n_runs - k0, n_runs - k1),
            (f"P_D'[not {name}] vs P_D", n_runs - k1, n_runs - k0),
        )
        event_best = 0.0
        for label, a, b in tests:
            lb = epsilon_lower_bound(a, n_runs, b, n_runs, alpha=alpha, delta=delta)
            event_best = max(event_best, lb)
            mu_best = max(mu_best, gdp_mu_lower_bound(a, n_runs, b, n_runs, alpha=alpha))
            if lb > best[0]:
                best = (lb, label, (a, n_runs, b, n_runs))
            if epsilon is not None:
                delta_best = max(
                    delta_best, _delta_lower_bound(a, n_runs, b, n_runs, alpha, epsilon)
                )
        table.append(
            {
                "event": name,
                "freq_D": k0 / n_runs,
                "freq_D'": k1 / n_runs,
                "epsilon_lower": event_best,
            }
        )
    return best, delta_best, mu_best, table


def audit_mechanism(
    mechanism,
    X0,
    X1,
    *,
    events=None,
    statistic=None,
    n_thresholds=8,
    n_runs=1000,
    n_search_runs=None,
    epsilon=None,
    delta=0.0,
    mu=None,
    exceptions=(Exception,),
    confidence=0.95,
    random_state=None,
):
    """Estimate a lower confidence bound on the ε of ``mechanism`` from repeated runs.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(X, seed) -> output``: runs the private algorithm on dataset ``X``
        with the integer ``seed`` (in ``[0, 2**32)``) as its only source of randomness
        (e.g. fit an estimator with ``random_state=seed`` and return it, or a noisy
        statistic).
    X0, X1 : array-like
        A replace-one neighbouring pair (same shape, at most one differing row).
    events : dict of str -> callable, optional
        Events fixed in advance: ``event(output) -> bool``.
    statistic : callable, optional
        ``statistic(output) -> float or 1-D array``; for each coordinate ``j`` the
        events ``statistic_j >= c`` are tested for ``n_thresholds`` thresholds ``c``
        chosen as quantiles of pilot runs (both datasets pooled).
    n_thresholds : int, default=8
        Thresholds per coordinate of ``statistic``.
    n_runs : int, default=1000
        Runs per dataset in the testing phase.
    n_search_runs : int, optional
        Pilot runs per dataset for choosing thresholds (default ``n_runs // 4``,
        at least 50); independent of the testing runs.
    epsilon : float, optional
        Claimed ε; sets ``violation`` and ``delta_lower``.
    delta : float, default=0.0
        Claimed δ, subtracted in the bound ``ln((p_lo − δ)/q_hi)``.
    mu : float, optional
        Claimed Gaussian-DP parameter μ (Dong, Roth and Su 2022); sets ``violation``
        when ``mu_lower > mu``.  For a mechanism whose output is Gaussian, an (ε, δ)
        claim is the claim ``mu = gdp_mu(ε, δ)``; at small δ this is the test with
        power (an event-frequency ε bound needs events of probability ~δ).
    exceptions : exception class or tuple of them, default=(Exception,)
        Exceptions that are *outcomes* of the mechanism: a run raising an instance of
        ``cls`` is the event ``raised cls`` (one event per class, fixed in advance);
        user events are false and the statistic undefined on such a run (no threshold
        event holds).  A failure whose probability depends on the data is thus audited
        like any other output.  Exceptions of other classes propagate; ``()`` lets
        every exception propagate.
    confidence : float, default=0.95
        Joint confidence of all reported bounds.
    random_state : None or int
        Seeds the runs (each run gets its own seed; D and D' runs are independent).

    Returns
    -------
    AuditResult

    Notes
    -----
    Every (event, direction) test also yields a Gaussian-DP bound
    ``μ >= Φ⁻¹(p_lo) − Φ⁻¹(q_hi)`` from the same Clopper–Pearson bounds (a μ-GDP
    mechanism has ``Φ⁻¹(P_D[E]) − Φ⁻¹(P_D'[E]) <= μ`` for every event, Dong, Roth and
    Su 2022, Def. 2.6 and Prop. 2.4), so ``mu_lower`` and ``epsilon_lower`` hold jointly.

    Cost: ``2·(n_runs + n_search_runs)`` calls of ``mechanism``.  The largest ε an
    audit can certify is about ``ln(n_runs / 3)``: with few runs it cannot see large
    violations; prefer events of probability around 0.1–0.5 on one dataset.

    References
    ----------
    Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of
    Differential Privacy", CCS 2018.  C. J. Clopper, E. S. Pearson, "The use of
    confidence or fiducial limits illustrated in the case of the binomial",
    Biometrika 1934.
    """
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable as mechanism(X, seed); got {mechanism!r}.")
    _check_neighbours(X0, X1)
    events, n_runs, n_thresholds, n_search_runs, exceptions = _check_audit_arguments(
        events, statistic, n_runs, n_thresholds, n_search_runs, confidence, delta, epsilon, mu,
        exceptions,
    )  # fmt: skip

    start = time.perf_counter()
    # 32-bit seeds (accepted by every scikit-learn ``random_state``), drawn without
    # replacement: Clopper–Pearson needs independent runs, and a repeated seed (a
    # birthday collision, probability ~ runs²/2**33) would repeat a run.
    seeds = np.random.default_rng(random_state).choice(
        2**32, size=(2, n_search_runs + n_runs), replace=False
    )
    names = list(events) + [f"raised {cls.__name__}" for cls in exceptions]
    thresholds = _pilot_thresholds(
        mechanism, X0, X1, seeds[:, :n_search_runs], statistic, n_thresholds, exceptions
    )
    names += [f"statistic[{j}] >= {c:.6g}" for j, c in thresholds]
    final0, final1 = seeds[0, n_search_runs:], seeds[1, n_search_runs:]
    values0, hits0, raised0 = _run(mechanism, X0, final0, statistic, events, exceptions)
    values1, hits1, raised1 = _run(mechanism, X1, final1, statistic, events, exceptions)
    hits0, hits1 = np.hstack([hits0, raised0]), np.hstack([hits1, raised1])
    if raised0.any(axis=1).all() and raised1.any(axis=1).all():
        warnings.warn(
            "every run of the mechanism raised an exception counted as an outcome, on both "
            "datasets: the audit measures nothing else.  Check the mechanism (pass "
            "exceptions=() to see the error).",
            RuntimeWarning,
            stacklevel=2,
        )
    if thresholds:
        cols = np.array([j for j, _ in thresholds])
        cuts = np.array([c for _, c in thresholds])
        # ">=" (not ">") so that an atom of the statistic at a threshold -- e.g. the
        # maximum of a clipped likelihood-ratio statistic -- can be an event.
        with np.errstate(invalid="ignore"):  # NaN (a raised run) is below every cut
            hits0 = np.hstack([hits0, values0[:, cols] >= cuts])
            hits1 = np.hstack([hits1, values1[:, cols] >= cuts])
    counts0, counts1 = hits0.sum(axis=0), hits1.sum(axis=0)

    n_tests = 4 * len(names)
    alpha = (1 - confidence) / n_tests
    best, delta_best, mu_best, table = _event_bounds(
        names, counts0, counts1, n_runs, alpha, delta, epsilon
    )
    eps_lower, best_name, best_counts = best
    violation = (epsilon is not None and (eps_lower > epsilon or delta_best > delta)) or (
        mu is not None and mu_best > mu
    )
    return AuditResult(
        epsilon_lower=eps_lower,
        epsilon_claimed=None if epsilon is None else float(epsilon),
        delta_claimed=float(delta),
        delta_lower=None if epsilon is None else delta_best,
        violation=bool(violation),
        confidence=float(confidence),
        n_runs=n_runs,
        n_search_runs=int(n_search_runs),
        n_tests=n_tests,
        best_event=best_name,
        best_counts=best_counts,
        mu_lower=mu_best,
        mu_claimed=None if mu is None else float(mu),
        n_raised=(int(raised0.any(axis=1).sum()), int(raised1.any(axis=1).sum())),
        events=table,
        elapsed=time.perf_counter() - start,
    )


def likelihood_ratio_statistic(answers0, answers1, noise="laplace", scales=None, covariance=None):
    """Test statistic of the most powerful events for a noisy release of known answers.

    For a release ``y = answers + noise`` on ``D`` (exact answers ``a = answers0``) and
    on ``D'`` (``b = answers1``), the Neyman–Pearson lemma says the events
    ``{T(y) >= c}``, with ``T`` increasing in the likelihood ratio ``p_D'(y)/p_D(y)``,
    are the most powerful tests, so an audit with ``statistic=T`` can see the
    release's whole ε (the atom at ``T = max`` carries the ratio ``e^ε`` exactly).

    * ``noise="laplace"`` (independent Laplace, scale ``scales[i]``, default equal):
      ``T(y) = Σ_i clip((y_i − a_i)·sign(b_i − a_i), 0, |b_i − a_i|) / scales_i``
      -- the log-likelihood ratio is ``2T − Σ|b_i − a_i|/scales_i``.
    * ``noise="gaussian"`` (covariance ``Σ``, default identity):
      ``T(y) = (b − a)ᵀ Σ⁺ (y − a)``, linear, the log-likelihood ratio up to constants.

    The scales may be the claimed ones: the statistic only chooses the events; a wrong
    scale costs power, never validity.

    Parameters
    ----------
    answers0, answers1 : array-like of shape (q,)
        Exact (noise-free) answers on ``D`` and ``D'``.
    noise : {"laplace", "gaussian"}, default="laplace"
    scales : array-like of shape (q,), optional
        Laplace scales per coordinate.
    covariance : array-like of shape (q, q), optional
        Gaussian noise covariance (pseudo-inverted).

    Returns
    -------
    callable
        ``T(y) -> float`` for a released vector ``y`` of shape ``(q,)``.
    """
    a = np.asarray(answers0, dtype=np.float64).ravel()
    b = np.asarray(answers1, dtype=np.float64).ravel()
    if a.shape != b.shape or not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError(
            "answers0 and answers1 must be finite vectors of the same length; "
            f"got shapes {a.shape} and {b.shape}."
        )
    d = b - a
    if noise == "laplace":
        w = np.ones_like(a) if scales is None else np.asarray(scales, dtype=np.float64).ravel()
        if w.shape != a.shape or not np.all(w > 0):
            raise ValueError(f"scales must be {a.size} positive numbers; got {scales!r}.")
        sign, width = np.sign(d), np.abs(d)

        def statistic(y):
            y = np.asarray(y, dtype=np.float64).ravel()
            return float(np.sum(np.clip((y - a) * sign, 0.0, width) / w))

        return statistic
    if noise == "gaussian":
        if covariance is None:
            direction = d
        else:
            cov = np.asarray(covariance, dtype=np.float64)
            if cov.shape != (a.size, a.size):
                raise ValueError(
                    f"covariance must have shape ({a.size}, {a.size}); got {cov.shape}."
                )
            direction = np.linalg.pinv(cov, hermitian=True) @ d

        def statistic(y):
            y = np.asarray(y, dtype=np.float64).ravel()
            return float(direction @ (y - a))

        return statistic
    raise ValueError(f"noise must be 'laplace' or 'gaussian'; got {noise!r}.")


# ------------------------------------------------------------------ neighbour pairs


def cube_corner_neighbours(n_samples, n_features, base="zeros", random_state=None):
    """Worst-case pair on the Boolean cube: one record moved to the opposite corner.

    ``X0`` has ``n_samples`` rows; ``X1`` equals ``X0`` except that its last row, the
    all-zeros record, is replaced by the all-ones record -- the largest possible
    change of every marginal and of the second-moment matrix ``XᵀX/n`` under the
    replace-one relation (an outlier at a cube corner).

    Parameters
    ----------
    n_samples, n_features : int
        Shape of both datasets.
    base : {"zeros", "random"}, default="zeros"
        The other ``n_samples − 1`` rows: all zeros (the moved record is then the only
        one in its cell on D', the extreme case) or uniform random Boolean rows.
    random_state : None or int
        Used with ``base="random"``.

    Returns
    -------
    X0, X1 : ndarray of shape (n_samples, n_features), float64
    """
    n = _check_positive_int(n_samples, "n_samples")
    p = _check_positive_int(n_features, "n_features")
    if base == "zeros":
        X0 = np.zeros((n, p))
    elif base == "random":
        X0 = np.random.default_rng(random_state).integers(0, 2, size=(n, p)).astype(np.float64)
    else:
        raise ValueError(f"base must be 'zeros' or 'random'; got {base!r}.")
    X0[-1] = 0.0
    X1 = X0.copy()
    X1[-1] = 1.0
    return X0, X1


def moved_record_neighbours(X, index, new_row):
    """Replace-one pair ``(X, X')`` where row ``index`` of ``X`` becomes ``new_row``.

    Use it to move a record between two cells of a partition (e.g. two lattice cells
    of a covering, or two cells of a marginal table).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    index : int
        Row to replace (negative indices allowed).
    new_row : array-like of shape (n_features,)

    Returns
    -------
    X0, X1 : ndarray, float64 (copies)
    """
    X0 = np.array(X, dtype=np.float64, copy=True)
    if X0.ndim != 2 or X0.shape[0] == 0:
        raise ValueError(f"X must be a non-empty 2-D array; got shape {X0.shape}.")
    if isinstance(index, bool) or not isinstance(index, Integral):
        raise TypeError(f"index must be an integer; got {index!r}.")
    if not -X0.shape[0] <= index < X0.shape[0]:
        raise ValueError(f"index must be a row of X (0..{X0.shape[0] - 1}); got {index!r}.")
    row = np.asarray(new_row, dtype=np.float64).ravel()
    if row.shape != (X0.shape[1],):
        raise ValueError(
            f"new_row must have {X0.shape[1]} entries (one per column of X); got {row.size}."
        )
    X1 = X0.copy()
    X1[index] = row
    return X0, X1
