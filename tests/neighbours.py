"""Releases on neighbouring datasets: each release's private statistic on ``D`` and,
replaying ``D``'s outputs (:mod:`skprivsynth.releases`), on ``D'``, and how far each
moved against its declared sensitivity — the worst-case neighbour tests of the
person-level releases (tests/test_people.py, tests/test_events.py)."""

import warnings

import numpy as np

from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.releases import record_releases, replay_releases


def _private_arguments(recording):
    """Wrap ``recording.observe`` to keep every release's private statistic."""
    kept = []
    observe = recording.observe

    def capture(call, rng, args, kwargs, function):
        value = kwargs.get("values", kwargs.get("scores", args[0] if args else None))
        kept.append((call, np.asarray(value, dtype=np.float64).copy()))
        return observe(call, rng, args, kwargs, function)

    recording.observe = capture
    return kept


def releases_on_neighbours(fit, D, D_prime):
    """Each release's ``(call, statistic)`` on ``D`` paired with the same release's on
    ``D'`` (run replaying ``D``'s outputs, so that both runs make the same releases)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with record_releases() as recording:
            on_d = _private_arguments(recording)
            fit(D)
        with replay_releases(recording) as replay:
            on_d_prime = _private_arguments(replay)
            fit(D_prime)
    return list(zip(on_d, on_d_prime, strict=True))


def largest_moves(pairs):
    """Per release kind, the largest ratio of the statistic's move to its declared
    sensitivity: L2 for Gaussian releases, L1 for Laplace ones, L∞ for
    exponential-mechanism scores; PrivTree's fine counts against one replaced row
    (two counts moved by 1)."""
    ratios = {}
    for (call, a), (_, b) in pairs:
        kind = call["release"]
        if kind == "Gaussian mechanism":
            ratio = np.linalg.norm(a - b) / call["sensitivity"]
        elif kind == "Laplace mechanism":
            ratio = np.abs(a - b).sum() / call["sensitivity"]
        elif kind == "PrivTree bins":
            ratio = np.abs(a - b).sum() / 2
        else:
            assert kind == "exponential mechanism", kind
            ratio = np.abs(a - b).max() / call["sensitivity"]
        ratios[kind] = max(ratios.get(kind, 0.0), ratio)
    return ratios
