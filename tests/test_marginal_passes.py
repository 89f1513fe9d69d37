"""MarginalSynthesizer reads the rows twice and counts each candidate table once per fit.

The counting kernel (``marginal._CountTables``) is called once per chunk and pass: pass
1 counts the 1-way tables, pass 2 every candidate of the rounds (also the rounds' test
reads them from pass 2).  A spy on the kernel records what each call counts.
"""

import collections

import numpy as np
import pytest

import skprivsynth.synthesizers.marginal as marginal
from skprivsynth import Chunks, MarginalSynthesizer


def _codes(n, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 4, n))
    c = rng.integers(0, 2, n)
    d = np.where(rng.random(n) < 0.8, 2 * c, rng.integers(0, 5, n))
    e = np.where(rng.random(n) < 0.7, (a + c) % 3, rng.integers(0, 3, n))
    return np.column_stack([a, b, c, d, e])


SIZES = [3, 4, 2, 5, 3]


@pytest.fixture
def spy(monkeypatch):
    """Every call of the counting kernel: (number of rows, cliques counted)."""
    calls = []
    kernel = marginal._CountTables.__call__

    def counting(self, X):
        calls.append((len(X), tuple(self.cliques)))
        return kernel(self, X)

    monkeypatch.setattr(marginal._CountTables, "__call__", counting)
    return calls


@pytest.mark.parametrize("chunks", [None, 3])
@pytest.mark.parametrize(
    "params",
    [
        {},  # rounds (and, at this n, the rounds' test)
        {"epsilon": 0.05},  # the test or the 1-way tables only
        {"selection": "mst"},
    ],
)
def test_each_table_is_counted_once_per_pass(spy, params, chunks):
    X = _codes(6000)
    source = X if chunks is None else Chunks.from_array(X, len(X) // chunks + 1)
    params = {"epsilon": 1.0, **params}
    est = MarginalSynthesizer(domain=SIZES, random_state=0, **params).fit(source)
    per_chunk = 1 if chunks is None else chunks
    # At most two passes, each one call per chunk, each pass over all the rows.
    passes = collections.defaultdict(list)
    for rows, cliques in spy:
        passes[cliques].append(rows)
    assert len(spy) in (per_chunk, 2 * per_chunk)
    assert all(len(r) == per_chunk and sum(r) == len(X) for r in passes.values())
    first, *second = passes
    assert first == tuple((j,) for j in range(len(SIZES)))
    counted = [c for cliques in second for c in cliques]
    assert len(counted) == len(set(counted))  # no table counted twice in a pass
    assert set(est.cliques_) <= set(counted)  # every measured table came from pass 2


def test_the_spy_sees_a_second_count(spy, monkeypatch):
    """The test above can fail: a fit that recounts its candidates is caught."""
    count = marginal.MarginalSynthesizer._count_candidates

    def twice(self, *args):
        count(self, *args)
        return count(self, *args)

    monkeypatch.setattr(marginal.MarginalSynthesizer, "_count_candidates", twice)
    MarginalSynthesizer(1.0, domain=SIZES, random_state=0).fit(_codes(6000))
    assert len(spy) == 3
