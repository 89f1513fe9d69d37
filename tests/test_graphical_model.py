import itertools
import math

import numpy as np
import pytest

from skprivsynth._math import graphical_model
from skprivsynth._math.graphical_model import (
    Factor,
    GraphicalModel,
    Measurement,
    estimate,
    junction_tree,
    model_size,
)

SIZES = [2, 3, 2, 4, 3, 2]
CLIQUES = [(0, 1), (1, 2), (2, 3), (3, 4), (1, 5), (0, 2), (3, 5)]  # has cycles


def _random_model(rng, cliques=CLIQUES, sizes=SIZES):
    model = GraphicalModel(cliques, sizes)
    model.potentials = [Factor(c, rng.normal(size=[sizes[a] for a in c])) for c in model.nodes]
    return model.calibrate()


def _joint(model):
    attrs = tuple(range(len(model.sizes)))
    log_p = sum(f.expand(attrs) for f in model.potentials)
    p = np.exp(log_p - log_p.max())
    return p / p.sum()


def test_junction_tree_covers_cliques_and_has_running_intersection():
    nodes, edges = junction_tree(CLIQUES, SIZES)
    assert all(any(set(c) <= set(node) for node in nodes) for c in CLIQUES)
    assert len(edges) == len(nodes) - 1
    # running intersection: the nodes holding any attribute form a connected subtree
    for a in range(len(SIZES)):
        holding = {i for i, node in enumerate(nodes) if a in node}
        inner = sum(1 for p, c in edges if p in holding and c in holding)
        assert inner == len(holding) - 1
    assert model_size(CLIQUES, SIZES) == sum(math.prod(SIZES[a] for a in c) for c in nodes)


def _log_cells(v, neighbours, sizes):
    """Log of the cells of ``v`` with its neighbours (summed as the elimination does)."""
    return math.log(sizes[v]) + sum(math.log(sizes[u]) for u in sorted(neighbours))


def _greedy_elimination(cliques, sizes):
    """The elimination game by its definition: eliminate the vertex whose clique with its
    neighbours has the fewest cells (ties: the lowest vertex), join its neighbours, and
    keep the created cliques not inside another, in the order created."""
    adjacent = {v: set() for v in range(len(sizes))}
    for c in cliques:
        for a, b in itertools.permutations(c, 2):
            adjacent[a].add(b)
    created = []
    while adjacent:
        v = min(adjacent, key=lambda u: (_log_cells(u, adjacent[u], sizes), u))
        nbrs = adjacent.pop(v)
        created.append(nbrs | {v})
        for u in nbrs:
            adjacent[u] = (adjacent[u] | nbrs) - {u, v}
    return [
        tuple(sorted(c))
        for i, c in enumerate(created)
        if not any(c < s for s in created) and c not in created[:i]
    ]


def test_junction_tree_nodes_are_the_greedy_elimination_cliques():
    # The elimination skips attributes without neighbours and checks containment only
    # against the cliques holding the eliminated vertex; its nodes must be those of the
    # plain definition, in the same order, on graphs with isolated attributes and ties.
    rng = np.random.default_rng(0)
    for _ in range(300):
        d = int(rng.integers(1, 25))
        sizes = [int(s) for s in rng.choice([2, 2, 3, 4, 10], d)]
        pairs = [
            tuple(sorted(rng.choice(d, min(d, 2), replace=False)))
            for _ in range(int(rng.integers(0, 2 * d)))
        ]
        cliques = [(j,) for j in range(d)] + pairs
        nodes, _ = junction_tree(cliques, sizes)
        assert nodes == _greedy_elimination(cliques, sizes)


def test_belief_propagation_gives_the_exact_marginals():
    model = _random_model(np.random.default_rng(0))
    joint = _joint(model)
    for attrs in [(0,), (1, 2), (0, 3), (2, 5), (0, 3, 5), (1, 3, 4), (0, 1, 2, 3, 4, 5)]:
        exact = joint.sum(axis=tuple(a for a in range(len(SIZES)) if a not in attrs))
        np.testing.assert_allclose(model.marginal(attrs), exact, atol=1e-12)


def test_belief_propagation_is_exact_when_potentials_span_thousands_of_nats():
    # Messages are shifted by their table's maximum; a separator value whose every cell
    # lies thousands of nats below it would sum to zero there (log 0, then inf − inf in
    # the downward pass), so such sums are shifted by their own maximum instead.
    rng = np.random.default_rng(1)
    model = GraphicalModel(CLIQUES, SIZES)
    model.potentials = [
        Factor(c, 1000 * rng.normal(size=[SIZES[a] for a in c])) for c in model.nodes
    ]
    model.calibrate()
    joint = _joint(model)
    for attrs in [(0,), (1, 2), (0, 3), (2, 5), (1, 3, 4)]:
        exact = joint.sum(axis=tuple(a for a in range(len(SIZES)) if a not in attrs))
        np.testing.assert_allclose(model.marginal(attrs), exact, atol=1e-12)


def test_belief_propagation_in_probability_and_log_space_agree():
    rng = np.random.default_rng(2)
    model = GraphicalModel(CLIQUES, SIZES)
    model.potentials = [Factor(c, 5 * rng.normal(size=[SIZES[a] for a in c])) for c in model.nodes]
    linear = model._calibrate_linear([float(f.values.max()) for f in model.potentials]).marginals
    log = model._calibrate_log().marginals
    for a, b in zip(linear, log, strict=True):
        assert a.attrs == b.attrs
        np.testing.assert_allclose(a.values, b.values, rtol=1e-10, atol=1e-15)


def test_marginals_of_many_sets_at_once_are_each_sets_exact_marginal():
    # Sets sharing nodes and subtrees share their sums; each table is still its own.
    model = _random_model(np.random.default_rng(3))
    joint = _joint(model)
    sets = [c for k in (1, 2, 3) for c in itertools.combinations(range(len(SIZES)), k)]
    for attrs, table in zip(sets, model.marginals_of(sets), strict=True):
        exact = joint.sum(axis=tuple(a for a in range(len(SIZES)) if a not in attrs))
        np.testing.assert_allclose(table, exact, atol=1e-12)


def test_measurement_groups_give_each_marginal_and_the_summed_node_gradient():
    # Sets summed through their groups' tables, gradients added up through them: the
    # same tables as summed from the node and broadcast one by one.
    rng = np.random.default_rng(4)
    node, sizes = (0, 1, 2, 3), (4, 3, 5, 6)
    model = GraphicalModel([node], sizes)
    model.potentials = [Factor(node, rng.normal(size=sizes))]
    model.calibrate()
    sets = [(0,), (1,), (0, 1), (0, 2), (1, 3), (2, 3), (0, 1, 2), (0, 1, 2, 3), (3,)]
    measurements = [Measurement(c, np.zeros([sizes[a] for a in c]), 1.0) for c in sets]
    hosts = [0] * len(sets)
    groups = graphical_model._node_sets(model, measurements, hosts)
    tables = graphical_model._fitted_marginals(model, measurements, hosts, groups)
    grads = [rng.normal(size=t.shape) for t in tables]
    gradients = graphical_model._group_gradients(model, measurements, hosts, grads, groups)
    node_gradient = sum(Factor(a, g).expand(node) for (_, a), g in gradients.items())
    expected = np.zeros(sizes)
    for c, table, g in zip(sets, tables, grads, strict=True):
        np.testing.assert_allclose(table, model.marginals[0].sum_to(c).values, atol=1e-15)
        expected = expected + Factor(c, g).expand(node)
    np.testing.assert_allclose(node_gradient, expected, atol=1e-12)


def test_estimate_recovers_marginals_from_exact_measurements():
    rng = np.random.default_rng(1)
    truth = _joint(_random_model(rng))
    n = 10_000
    measurements = [
        Measurement(c, n * truth.sum(axis=tuple(a for a in range(6) if a not in c)), 1.0)
        for c in CLIQUES + [(j,) for j in range(6)]
    ]
    model = estimate(measurements, SIZES, n, iterations=3000)
    for c in CLIQUES:
        exact = truth.sum(axis=tuple(a for a in range(6) if a not in c))
        assert 0.5 * np.abs(model.marginal(c) - exact).sum() < 2e-3


def test_estimate_weights_measurements_by_their_noise():
    # Two conflicting measurements of one column: the estimate is their precision-weighted
    # mean (the least-squares optimum), here 0.8·precise + 0.2·rough.
    n = 1000
    precise = Measurement((0,), np.array([600.0, 400.0]), 1.0)
    rough = Measurement((0,), np.array([400.0, 600.0]), 2.0)
    model = estimate([precise, rough], [2], n, iterations=2000)
    np.testing.assert_allclose(n * model.marginal((0,)), [560.0, 440.0], atol=0.5)


def _loss(model, measurements, n):
    return sum(
        0.5 * np.sum((n * model.marginal(m.attrs) - m.counts) ** 2) / m.sigma**2
        for m in measurements
    )


def test_estimate_stops_when_the_loss_stops_decreasing_by_tol_at_the_optimum():
    rng = np.random.default_rng(4)
    truth = _joint(_random_model(rng))
    n = 10_000
    measurements = [
        Measurement(
            c,
            n * truth.sum(axis=tuple(a for a in range(6) if a not in c))
            + rng.normal(0, 20, [SIZES[a] for a in c]),
            20.0,
        )
        for c in CLIQUES + [(j,) for j in range(6)]
    ]
    reference = _loss(estimate(measurements, SIZES, n, iterations=5000, tol=0), measurements, n)
    model = estimate(measurements, SIZES, n, iterations=5000, tol=0.1)
    assert model.converged
    loss = _loss(model, measurements, n)
    # one more step lowers the loss by at most tol nats: that is why it stopped
    again = estimate(
        measurements, SIZES, n, iterations=1, warm_start=model, step_size=model.step_size, tol=0
    )
    assert loss - _loss(again, measurements, n) <= 0.1 + 1e-9
    # and the optimum of many fixed steps is reached to within a few nats
    assert reference <= loss <= reference + 5
    # a run capped before that is not converged
    assert not estimate(measurements, SIZES, n, iterations=2, tol=0.1).converged


def test_systematic_sampling_matches_the_model_within_one_record_per_group():
    rng = np.random.default_rng(2)
    model = _random_model(rng)
    n = 5000
    sample = model.sample(n, rng)
    assert sample.shape == (n, 6) and sample.min() >= 0
    assert all(sample[:, j].max() < s for j, s in enumerate(SIZES))
    root = model.nodes[0]
    counts = np.zeros([SIZES[a] for a in root])
    np.add.at(counts, tuple(sample[:, a] for a in root), 1)
    assert np.abs(counts - n * model.marginals[0].values).max() < 1 + 1e-9
    # every other marginal within a sampling error far below a bootstrap's
    for attrs in itertools.combinations(range(6), 2):
        tab = np.zeros([SIZES[a] for a in attrs])
        np.add.at(tab, tuple(sample[:, a] for a in attrs), 1)
        assert 0.5 * np.abs(tab / n - model.marginal(attrs)).sum() < 0.03


def test_sampling_balances_new_columns_across_the_values_drawn_before():
    # Cliques (0, 1) and (1, 2): column 2 is drawn given 1, among records that already
    # hold a value of 0.  The model says 2 is independent of 0 given 1, and the sample
    # follows it closely: in every group of 1 and value of 0, each count of 2 is within
    # a few records of its share (records in random order miss by about 17 here), and
    # these misses cancel across the 100 groups (a radical inverse not shifted in each
    # group gives the first value of 0 the lowest points everywhere: about 75).
    rng = np.random.default_rng(0)
    sizes = [3, 100, 4]
    model = _random_model(rng, [(0, 1), (1, 2)], sizes)
    sample = model.sample(40_000, rng)
    share = model.marginal((1, 2)) / model.marginal((1,))[:, None]
    counts = np.zeros(sizes)
    np.add.at(counts, (sample[:, 0], sample[:, 1], sample[:, 2]), 1)
    miss = counts - counts.sum(axis=2, keepdims=True) * share[None]
    assert np.abs(miss).max() < 4
    assert np.abs(miss.sum(axis=1)).max() < 40


def test_sampling_randomises_records_within_groups():
    # Two independent uniform bits: the second must not follow the first's sort order.
    model = GraphicalModel([(0,), (1,)], [2, 2]).calibrate()
    sample = model.sample(4000, np.random.default_rng(3))
    table = np.histogram2d(sample[:, 0], sample[:, 1], bins=2)[0]
    np.testing.assert_allclose(table / 4000, 0.25, atol=0.03)


@pytest.mark.parametrize("bad", [[(0, 1)], [(0,), (5,)]])
def test_model_over_every_attribute_even_when_not_in_a_clique(bad):
    model = GraphicalModel(bad, SIZES).calibrate()
    assert set().union(*map(set, model.nodes)) == set(range(len(SIZES)))
    np.testing.assert_allclose(model.marginal((4,)), np.full(3, 1 / 3))


@pytest.mark.parametrize("scale", [1.0, 300.0])
def test_steps_on_group_tables_give_the_marginals_of_the_summed_potentials(scale):
    # A fit steps tables over each node's top groups and propagates the product of their
    # exponentials; the potentials they add up to give the same marginals (at 300 nats a
    # cell the ranges exceed the linear bound: the potentials' own test then decides).
    rng = np.random.default_rng(5)
    model = _random_model(rng)
    sets = [(0,), (1, 2), (0, 2), (2, 3), (3, 5), (4,), (1, 5)]
    measurements = [Measurement(c, np.zeros([SIZES[a] for a in c]), 1.0) for c in sets]
    hosts = [model.host(c) for c in sets]
    steps = graphical_model._Steps(model, graphical_model._node_sets(model, measurements, hosts))
    tables = {key: scale * rng.normal(size=h.shape) for key, h in steps.zeros().items()}
    stepped = [m.values for m in steps.calibrate(tables).marginals]
    model.potentials = steps.potentials(tables)
    joint = _joint(model)
    for attrs, table in zip(model.nodes, stepped, strict=True):
        exact = joint.sum(axis=tuple(a for a in range(len(SIZES)) if a not in attrs))
        np.testing.assert_allclose(table, exact, atol=1e-12)
