"""A privacy budget that follows every release made inside its scope.

:class:`PrivacyAccountant` holds a total budget, pure ``epsilon``, ``(epsilon, delta)``
or zero-concentrated ``rho``.  Inside ``with accountant:`` every differentially
private release of the package is charged to it *before* anything is drawn: the fit of
a DP synthesizer (its cost is a function of its public parameters and of the public
shape of ``X``), a DP score (:func:`~skprivsynth.metrics.make_marginal_scorer` with
``epsilon``), :func:`~skprivsynth.preprocessing.private_level_frequencies` and a
:class:`~skprivsynth.model_selection.PrivateSelectionSearch`.  A charge that would
cross the budget raises :class:`~skprivsynth.exceptions.BudgetExceededError` and the
release does not happen.

Composition (replace-one neighbours).  Write the charges as pure ``ε_i``, approximate
``(ε_j, δ_j)`` and zCDP ``ρ_k`` releases.  With a budget ``(ε, δ)`` the spent
``ε`` is

    ``Σ ε_i + Σ ε_j + zcdp_epsilon(Σ ρ_k, δ − Σ δ_j)``

and the spent ``δ`` is the whole ``δ``.  Proof: a pure ``ε``-DP mechanism has Rényi
divergence ``D_α <= ε`` at every order, an ``(ε, δ)``-DP one is ``δ``-approximately
``(ε, 0)``-zCDP and a ``ρ``-zCDP one has ``D_α <= ρα`` (Bun & Steinke 2016, Def. 1.1
and Sect. 8); δ-approximate ``(ξ, ρ)``-zCDP composes adaptively by adding ``ξ``, ``ρ``
and ``δ`` (ibid.), and the total curve ``ξ + ρα`` converts to ``(ξ + zcdp_epsilon(ρ,
δ'), δ' + Σ δ_j)``-DP (Canonne, Kamath & Steinke 2020, Prop. 12).  The conversion
``δ' = δ − Σ δ_j`` depends on the charges only (public).  This is how
:class:`~skprivsynth.PrivacyReport` composes, with one conversion for all ρ.  With a
pure ``ε`` budget only pure charges are accepted; with a ``ρ`` budget, ρ charges add
and a pure ``ε`` charge counts ``ε²/2`` (ε-DP implies ε²/2-zCDP, Bun & Steinke 2016,
Prop. 1.4); approximate ``(ε, δ)`` charges do not fit a ρ budget.

Parallelism.  The scope is a :mod:`contextvars` variable of the calling thread: worker
threads and processes do not see it, so two guards keep their releases from escaping.

- While an accountant is active, joblib (and so ``GridSearchCV(n_jobs=...)``) is
  configured with a backend that refuses any ``n_jobs`` other than 1 with a clear error.
- A backend configured inside the scope (``joblib.parallel_config(backend="threading")``)
  replaces that one; so, while any accountant is active in the process, every DP release
  made where no accountant is visible (another thread) is refused before it draws
  anything, and so is one in a process started while the scope is active (it inherits
  the environment variable ``SKPRIVSYNTH_ACCOUNTANT_SCOPE``, the path of a file that
  exists as long as the scope).

Not covered: a process started *before* the scope (a warm joblib/loky pool, a Dask
worker) and a release by code that does not go through this module.  Keep parallel
work outside the scope, or run it with ``n_jobs=1`` inside.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import tempfile
import threading

import joblib

# joblib's in-process backend (joblib exports only the abstract base class).
from joblib._parallel_backends import SequentialBackend

from .exceptions import BudgetExceededError
from .privacy import PrivacyCost, PrivacyReport, check_delta, check_epsilon, check_rho
from .validation import is_differentially_private

__all__ = ["PrivacyAccountant", "active_accountants", "fit_cost"]

_ACTIVE = contextvars.ContextVar("skprivsynth_active_accountants", default=())


def active_accountants():
    """The accountants whose scope is active in this context, outermost first."""
    return _ACTIVE.get()


# Process-wide record of the active scopes (see "Parallelism" in the module docstring).
_SCOPE_ENV = "SKPRIVSYNTH_ACCOUNTANT_SCOPE"
_scopes = {"count": 0, "marker": None}
_scopes_lock = threading.Lock()


def _open_process_scope():
    with _scopes_lock:
        if _scopes["count"] == 0 and _SCOPE_ENV not in os.environ:
            handle, marker = tempfile.mkstemp(prefix="skprivsynth-accountant-")
            os.close(handle)
            _scopes["marker"] = marker
            os.environ[_SCOPE_ENV] = marker
        _scopes["count"] += 1


def _close_process_scope():
    with _scopes_lock:
        _scopes["count"] -= 1
        marker = _scopes["marker"]
        if _scopes["count"] == 0 and marker is not None:
            _scopes["marker"] = None
            if os.environ.get(_SCOPE_ENV) == marker:
                del os.environ[_SCOPE_ENV]
            with contextlib.suppress(FileNotFoundError):
                os.remove(marker)


def _check_unseen_scope(description):
    """Refuse a release made where no accountant is visible while one is active.

    In another thread of the process, or in a process started during a scope (whose
    marker file still exists).
    """
    if _scopes["count"] > 0:
        where = "a thread that does not see it"
    else:
        marker = os.environ.get(_SCOPE_ENV)
        if marker is None or marker == _scopes["marker"] or not os.path.exists(marker):
            return
        where = "a process started during its scope"
    raise RuntimeError(
        f"{description}: a differentially private release in {where}, while a "
        "PrivacyAccountant is active; it would not be charged, and is refused before "
        "anything is drawn.  Run parallel work outside the accountant's scope, or with "
        "n_jobs=1 inside it (a joblib backend configured inside the scope, such as "
        "parallel_config(backend='threading'), runs its tasks where the scope is not seen)."
    )


class _SingleProcessBackend(SequentialBackend):
    """joblib backend of an accountant's scope: runs in this process, refuses n_jobs > 1."""

    def effective_n_jobs(self, n_jobs):
        if n_jobs is not None and n_jobs != 1:
            raise RuntimeError(
                f"n_jobs={n_jobs!r} inside a PrivacyAccountant scope: worker processes and "
                "threads do not see the accountant, so their releases would not be charged. "
                "Use n_jobs=1 (or None) inside the scope."
            )
        return 1


class PrivacyAccountant:
    """A total privacy budget charged by every DP release inside ``with accountant:``.

    Parameters
    ----------
    epsilon : float, optional
        Total ε (with ``delta``: an ``(ε, δ)`` budget; alone: a pure ε budget).
    delta : float, default=0.0
        Total δ of an ``(ε, δ)`` budget, in ``(0, 1)``; 0 for a pure budget.
    rho : float, optional
        Total ρ of a zero-concentrated budget (give it instead of ``epsilon``).

    Attributes
    ----------
    charges : list of dict
        One entry per accepted charge: ``description``, ``epsilon``, ``delta``, ``rho``.

    Notes
    -----
    Charges are checked and recorded before the release draws anything; a refused
    charge raises :class:`~skprivsynth.exceptions.BudgetExceededError` and records
    nothing.  The composition is stated in the module docstring.  Estimators and
    scorers keep no reference to the accountant, so ``clone`` (e.g. by
    ``GridSearchCV``) does not detach them from it; ``n_jobs`` other than 1 is
    refused inside the scope.  Read more in the :doc:`User Guide <user_guide/tuning>`.

    Examples
    --------
    >>> from skprivsynth.accountant import PrivacyAccountant
    >>> accountant = PrivacyAccountant(epsilon=1.0)
    >>> accountant.charge("a Laplace count", epsilon=0.25)
    >>> accountant.spent, accountant.remaining
    (0.25, 0.75)
    """

    def __init__(self, epsilon=None, delta=0.0, rho=None):
        if (epsilon is None) == (rho is None):
            raise ValueError(
                "give exactly one of epsilon (pure or with delta) and rho for the budget; "
                f"got epsilon={epsilon!r}, rho={rho!r}."
            )
        if rho is not None:
            if delta:
                raise ValueError(f"a rho budget takes no delta; got delta={delta!r}.")
            self.rho = check_rho(rho)
            self.epsilon, self.delta = None, 0.0
        else:
            self.epsilon = check_epsilon(epsilon)
            self.delta = 0.0 if delta == 0 else check_delta(delta)
            self.rho = None
        self.charges = []
        self._tokens = []

    # ------------------------------------------------------------------ budget
    @property
    def budget_kind(self):
        """``"epsilon"`` (pure), ``"epsilon-delta"`` or ``"rho"``."""
        if self.rho is not None:
            return "rho"
        return "epsilon-delta" if self.delta > 0 else "epsilon"

    def _spent(self, charges):
        """Spent budget (ε, or ρ for a ρ budget) of ``charges``; None if inadmissible."""
        costs = [_cost(c) for c in charges]
        kind = self.budget_kind
        if kind == "rho":
            # Each charge as zCDP first (ε-DP is ε²/2-zCDP), then the one rule: add.
            as_zcdp = [c.as_zcdp() for c in costs]
            if any(c is None for c in as_zcdp):
                return None
            return sum(as_zcdp, PrivacyCost()).rho
        total = sum(costs, PrivacyCost())
        if kind == "epsilon":
            return total.epsilon if total.is_pure else None
        conversion = self.delta - total.delta
        if conversion <= 0 and total.rho > 0 or conversion < 0:
            return None
        return total.to_dp(conversion if total.rho > 0 else None)[0]

    @property
    def total(self):
        """The budget in its own unit: ε (pure or with ``delta``) or ρ."""
        return self.rho if self.budget_kind == "rho" else self.epsilon

    @property
    def spent(self):
        """Budget spent so far, in the unit of :attr:`total` (ε, or ρ)."""
        return self._spent(self.charges)

    @property
    def remaining(self):
        """``total - spent``."""
        return self.total - self.spent

    def charge(self, description, epsilon=None, delta=0.0, rho=None):
        """Charge one release to this accountant, or refuse it.

        Give ``epsilon`` (pure, or with ``delta``) or ``rho``.  Call it *before* the
        release draws anything; the arguments must be public.

        Raises
        ------
        BudgetExceededError
            The charge would cross the budget or does not fit its kind (a ρ or
            ``(ε, δ)`` release against a pure ε budget, an ``(ε, δ)`` release against a
            ρ budget); nothing is recorded.
        """
        entry = _entry(description, _charge_cost(epsilon, delta, rho))
        self._check([entry])
        self.charges.append(entry)

    def _check(self, entries):
        spent = self._spent(self.charges + entries)
        what = "; ".join(e["description"] for e in entries)
        if spent is None:
            raise BudgetExceededError(
                f"{what}: a release costing {_cost_text(entries)} cannot be charged to a "
                f"{self._budget_text()} budget; {self._kind_advice(entries)}"
            )
        if spent > self.total:
            raise BudgetExceededError(
                f"{what}: a release costing {_cost_text(entries)} would bring the spent "
                f"budget to {spent:.6g}, above the total {self._budget_text()}; refused "
                f"before anything was drawn ({self.total - self.spent:.6g} remains)."
            )

    def _kind_advice(self, entries):
        """What budget admits ``entries`` that this one does not (public: the charges
        are functions of public parameters)."""
        if self.budget_kind == "rho":
            return (
                "a rho budget admits rho-zCDP and pure epsilon-DP releases only; charge "
                "(epsilon, delta)-DP releases to an (epsilon, delta) budget, e.g. "
                "PrivacyAccountant(epsilon=..., delta=1e-9)."
            )
        delta = math.fsum(c["delta"] for c in self.charges + entries)
        if self.budget_kind == "epsilon":
            # zCDP (rho) releases, such as MarginalSynthesizer's fit, and (epsilon, delta)
            # releases are not pure epsilon-DP: only a budget with a delta admits them.
            suggested = max(1e-9, 10 * delta)
            return (
                "a pure epsilon budget (PrivacyAccountant(epsilon=...) without delta) admits "
                "pure epsilon-DP releases only, and zCDP or (epsilon, delta)-DP releases "
                "(MarginalSynthesizer, CorrelatedGaussianMechanism) need a delta: give the "
                f"accountant one, e.g. PrivacyAccountant(epsilon={self.epsilon:.6g}, "
                f"delta={suggested:.3g})."
            )
        return (
            f"the releases' delta ({delta:.3g} in all, with the charges so far) leaves no "
            f"part of the budget's delta = {self.delta:.3g} for converting their zCDP "
            "charges; give the accountant a larger delta."
        )

    def _budget_text(self):
        if self.budget_kind == "rho":
            return f"rho = {self.rho:.6g}"
        if self.budget_kind == "epsilon":
            return f"pure epsilon = {self.epsilon:.6g}"
        return f"(epsilon = {self.epsilon:.6g}, delta = {self.delta:.3g})"

    def privacy_report(self, delta=None):
        """The charges as one composed :class:`~skprivsynth.PrivacyReport`.

        Parameters
        ----------
        delta : float, optional
            Conversion δ of the zCDP charges for a ρ budget (an ``(ε, δ)`` budget uses
            ``delta − Σ δ_j`` of its own, so that the report's δ is the budget's).
        """
        if self.budget_kind == "epsilon-delta":
            approx = math.fsum(c["delta"] for c in self.charges)
            zcdp_delta = self.delta - approx if self.delta > approx else None
        else:
            zcdp_delta = None if delta is None else check_delta(delta)
            if zcdp_delta is None and any(c["rho"] is not None for c in self.charges):
                raise ValueError(
                    "delta is required for the report of a rho budget with rho charges (the "
                    "conversion delta of their total); got delta=None."
                )
        report = PrivacyReport("PrivacyAccountant", zcdp_delta=zcdp_delta)
        for c in self.charges:
            if c["rho"] is not None:
                budget = {"epsilon": None, "rho": c["rho"]}
                derivation = "charged as rho-zCDP"
            else:
                budget = {"epsilon": c["epsilon"], "delta": c["delta"]}
                derivation = "charged as (epsilon, delta)-DP" if c["delta"] else "pure DP"
            report.add(
                c["description"],
                "charged release",
                None,
                scale=None,
                derivation=derivation,
                **budget,
            )
        return report

    # ------------------------------------------------------------------- scope
    def __enter__(self):
        active = _ACTIVE.get()
        if any(a is self for a in active):
            raise RuntimeError("this PrivacyAccountant's scope is already active.")
        config = joblib.parallel_config(backend=_SingleProcessBackend())
        config.__enter__()
        _open_process_scope()
        self._tokens.append((_ACTIVE.set((*active, self)), config))
        return self

    def __exit__(self, *exc_info):
        token, config = self._tokens.pop()
        _ACTIVE.reset(token)
        _close_process_scope()
        config.__exit__(*exc_info)
        return False

    def __repr__(self):
        spent = self.spent
        return (
            f"PrivacyAccountant({self._budget_text()}, spent {spent:.6g}, "
            f"{len(self.charges)} charge(s))"
        )


def _charge_cost(epsilon, delta, rho):
    """The :class:`PrivacyCost` of :meth:`PrivacyAccountant.charge`'s arguments."""
    if (epsilon is None) == (rho is None):
        raise ValueError(
            f"give exactly one of epsilon and rho for a charge; got epsilon={epsilon!r}, "
            f"rho={rho!r}."
        )
    if rho is not None:
        if delta:
            raise ValueError(f"a rho charge takes no delta; got delta={delta!r}.")
        return PrivacyCost(rho=check_rho(rho))
    return PrivacyCost(
        epsilon=check_epsilon(epsilon), delta=0.0 if delta == 0 else check_delta(delta)
    )


def _entry(description, cost):
    """A charge as recorded in :attr:`PrivacyAccountant.charges`: one release, pure ε,
    (ε, δ) or ρ."""
    if cost.rho and (cost.epsilon or cost.delta):
        raise ValueError(f"{description}: charge a zCDP and a DP release one at a time.")
    return {
        "description": str(description),
        "epsilon": None if cost.rho else cost.epsilon,
        "delta": cost.delta,
        "rho": cost.rho or None,
    }


def _cost(entry):
    return PrivacyCost(entry["epsilon"] or 0.0, entry["delta"], entry["rho"] or 0.0)


def _cost_text(entries):
    parts = []
    for e in entries:
        if e["rho"] is not None:
            parts.append(f"rho = {e['rho']:.6g}")
        elif e["delta"]:
            parts.append(f"(epsilon = {e['epsilon']:.6g}, delta = {e['delta']:.3g})")
        else:
            parts.append(f"epsilon = {e['epsilon']:.6g}")
    return " + ".join(parts)


def charge_active(description, cost):
    """Charge ``cost`` (a :class:`~skprivsynth.privacy.PrivacyCost`) to every active
    accountant, or to none: all are checked before any records.

    The hook of every DP release of the package; outside any scope a no-op, except
    that a release where an active scope is not visible is refused.
    """
    accountants = _ACTIVE.get()
    if not accountants:
        _check_unseen_scope(description)
        return
    entry = _entry(description, cost)
    for accountant in accountants:
        accountant._check([entry])
    for accountant in accountants:
        accountant.charges.append(dict(entry))


class _Recorder:
    """Stands for an accountant with no limit: records what a block charges."""

    def __init__(self):
        self.charges = []

    def _check(self, entries):
        pass


@contextlib.contextmanager
def recording():
    """Context in which the charges are recorded (yielded list), not checked: the inner
    releases of a mechanism whose total was charged at once (a private selection),
    which compares them with what its total assumed."""
    recorder = _Recorder()
    token = _ACTIVE.set((recorder,))
    try:
        yield recorder.charges
    finally:
        _ACTIVE.reset(token)


def fit_cost(estimator, n_samples, n_features):
    """Cost of one ``fit`` of ``estimator`` from its public parameters, or None.

    Parameters
    ----------
    estimator : synthesizer
    n_samples : int
        Number of rows (public under replace-one).
    n_features : int or None
        Width of the input, None when unknown (e.g. after an encoder).

    Returns
    -------
    PrivacyCost or None
        As the estimator states it (``_fit_cost``); None for a synthesizer that is not
        differentially private.
    """
    if not is_differentially_private(estimator):
        return None
    cost = getattr(estimator, "_fit_budget", None) or getattr(estimator, "_fit_cost", None)
    if cost is None:
        raise TypeError(
            f"{type(estimator).__name__} is differentially private but does not state its "
            "privacy cost (_fit_cost); it cannot be fitted inside a PrivacyAccountant scope."
        )
    return cost(n_samples, n_features)


def charge_fit(estimator, n_samples, n_features):
    """Charge the fit of ``estimator`` to the active accountants (before it draws)."""
    if not is_differentially_private(estimator):
        return
    if not _ACTIVE.get():
        _check_unseen_scope(f"fit of {type(estimator).__name__}")
        return
    cost = fit_cost(estimator, n_samples, n_features)
    if cost is not None:
        charge_active(f"fit of {type(estimator).__name__}", cost)
