"""Column sets of a marginal metric: all ``C(p, d)`` sets in lexicographic order, a
reproducible uniform random subset of them (see :mod:`skprivsynth.metrics`), or the
sets of a declared workload."""

import math

import numpy as np

from .._math.workload import check_column_sets
from ..validation import check_random_generator
from ._validation import _check_degree, _check_max_marginals

# Refuse to enumerate more column sets than this (memory (M, d) ints + the work M·n);
# the error message asks for ``max_marginals``.
_MAX_COLUMN_SETS = 5_000_000
# Ranks below this are drawn exactly with Generator.choice; int64-safe.
_RANK_LIMIT = 2**62
# Random keys (float64) drawn per batch of the rejection sampler: 2^16 · 8 B = 512 kB.
_KEY_BATCH_ELEMENTS = 2**16


def _unrank_lexicographic(ranks, p, d):
    """Column sets with the given lexicographic ranks among the C(p, d) sets.

    The lexicographic rank of ``a_1 < … < a_d`` equals ``C(p, d) − 1`` minus the
    colexicographic rank ``Σ_k C(b_k, k)`` of the reflected set ``b = p − 1 − a``
    (combinatorial number system); the colex digits are found greedily, largest first,
    by a binary search in the table ``c ↦ C(c, k)``.
    """
    remaining = (math.comb(p, d) - 1) - np.asarray(ranks, dtype=np.int64)
    out = np.empty((remaining.size, d), dtype=np.int64)
    for k in range(d, 0, -1):
        # Entries above every possible remainder are clipped: the table stays sorted.
        table = np.array([min(math.comb(c, k), _RANK_LIMIT) for c in range(p)], dtype=np.int64)
        digit = np.searchsorted(table, remaining, side="right") - 1
        remaining = remaining - table[digit]
        out[:, d - k] = p - 1 - digit
    return out


def _random_distinct_sets(p, d, m, rng):
    """``m`` distinct uniform d-subsets when C(p, d) is too large to rank in int64.

    Distinct values among i.i.d. uniform draws form, given their number, a uniform
    random subset; subsampling ``m`` of them uniformly keeps it uniform.
    """
    batch = max(1, _KEY_BATCH_ELEMENTS // p)
    sets = np.empty((0, d), dtype=np.int64)
    while sets.shape[0] < m:
        keys = rng.random((batch, p))
        draws = np.sort(np.argpartition(keys, d - 1, axis=1)[:, :d], axis=1)
        sets = np.unique(np.vstack([sets, draws]), axis=0)
    keep = np.sort(rng.choice(sets.shape[0], size=m, replace=False))
    return sets[keep]


def _column_sets(p, d, max_marginals, random_state):
    total = math.comb(p, d)
    if max_marginals is None or max_marginals >= total:
        if total > _MAX_COLUMN_SETS:
            raise ValueError(
                f"degree={d} on {p} columns gives C({p}, {d}) = {total} column sets, more "
                f"than {_MAX_COLUMN_SETS}; set max_marginals to evaluate a random subset."
            )
        return _unrank_lexicographic(np.arange(total, dtype=np.int64), p, d)
    if max_marginals > _MAX_COLUMN_SETS:
        raise ValueError(
            f"max_marginals={max_marginals} is more than the {_MAX_COLUMN_SETS} column sets "
            "this module evaluates at once; choose a smaller value."
        )
    rng = check_random_generator(random_state)
    if total < _RANK_LIMIT:
        ranks = np.sort(rng.choice(total, size=max_marginals, replace=False))
        return _unrank_lexicographic(ranks, p, d)
    return _random_distinct_sets(p, d, max_marginals, rng)


def _check_workload(workload, p, max_marginals):
    """The sets of a metric's ``workload=`` (``p`` None: their range is left unchecked)."""
    if max_marginals is not None:
        raise ValueError(
            "max_marginals draws a subset of the degree-way sets; with workload= the sets "
            f"scored are the workload's: leave max_marginals=None (got {max_marginals!r})."
        )
    return check_column_sets(workload, p, "workload")


def _metric_sets(p, degree, max_marginals, random_state, workload):
    """The column sets a marginal metric evaluates, and their groups by size.

    Without ``workload``: the ``degree``-way sets (all, or ``max_marginals`` of them).
    With it: its sets, sorted inside, in its order (``degree`` ignored), as one
    ``(M, k)`` array when they all have ``k`` columns, else as a list of tuples.
    The groups are ``(positions, (m, k) array)``, one per size, for the vectorised
    kernels.
    """
    max_marginals = _check_max_marginals(max_marginals)
    if workload is None:
        sets = _column_sets(p, _check_degree(degree, p), max_marginals, random_state)
        return sets, [(np.arange(sets.shape[0]), sets)]
    listed = _check_workload(workload, p, max_marginals)
    sizes = np.array([len(s) for s in listed])
    groups = [
        (np.flatnonzero(sizes == k), np.array([s for s in listed if len(s) == k], dtype=np.int64))
        for k in np.unique(sizes)
    ]
    sets = groups[0][1] if len(groups) == 1 else listed
    return sets, groups
