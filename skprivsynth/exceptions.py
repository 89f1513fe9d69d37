"""Exceptions and warnings raised by skprivsynth (like :mod:`sklearn.exceptions`).

A leaf module: it imports nothing from the package, so every layer may use it.
"""

__all__ = ["BudgetExceededError", "PrivacyLeakWarning", "SolverError"]


class BudgetExceededError(RuntimeError):
    """A release would cross the budget of an active :class:`~skprivsynth.PrivacyAccountant`.

    Raised before the release draws anything, from public quantities only (the
    release's cost and the charges so far); nothing is charged.
    """


class SolverError(RuntimeError):
    """An LP/QP solver did not return an optimal solution (the status is in the message).

    Raised by ``fit`` of the synthesizers that solve an optimisation problem
    (:class:`~skprivsynth.ReducedSpaceLP`, :class:`~skprivsynth.PrivateSampler`); the
    estimator is then left as it was before that ``fit``.
    """


class PrivacyLeakWarning(UserWarning):
    """A choice made from the private data weakens or voids the privacy guarantee.

    Raised, for instance, when an encoder learns categories or bin edges from the
    data (the *domain* then depends on private records) or when a parameter is
    chosen from the data.  Declare the public domain to avoid it.
    """
