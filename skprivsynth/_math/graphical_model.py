"""A distribution over a product domain from noisy marginals: junction tree, belief
propagation, mirror descent, ancestral sampling.

This is the *generate* step of select–measure–generate synthesizers (Private-PGM:
McKenna, Sheldon & Miklau, "Graphical-model based estimation and inference for
differential privacy", ICML 2019).  Given noisy measurements ``y_r ≈ n·μ_r`` of the
marginals of some attribute sets ``r``, it finds the distribution of a graphical model
whose cliques contain every ``r`` minimising ``Σ_r ||n·μ_r − y_r||² / σ_r²`` by mirror
descent on the clique potentials, with marginals computed by belief propagation on a
junction tree.  Everything here is post-processing of the measurements: no data.

Attributes are integers ``0..d-1`` with public sizes; an attribute set is a sorted tuple.
"""

from __future__ import annotations

import functools
import heapq
import math
from dataclasses import dataclass

import numpy as np
import scipy.special

from .residuals import center

__all__ = [
    "Factor",
    "GraphicalModel",
    "Measurement",
    "estimate",
    "junction_tree",
    "model_size",
]


def _sum_over(values, axes):
    """``values`` summed over the tuple ``axes``.

    Tables of more than a thousand cells are summed as matrix-vector products with a
    vector of ones, one block of consecutive summed axes at a time (the block of most
    cells first): each product runs over contiguous memory whatever the sizes of the
    axes left, where a reduction's inner loop would run over the last axis (often a
    column of two levels).  Smaller tables by ``sum`` (less overhead).  The blocks are
    planned once per shape (:func:`_sum_plan`)."""
    if not axes:
        return values
    if values.size <= 1000:
        return np.add.reduce(values, axis=axes)
    products, kept_shape = _sum_plan(values.shape, axes)
    x = values
    for before, size, after in products:
        ones = _ones(size, values.dtype)
        if after == 1:
            x = x.reshape(before, size) @ ones
        elif before == 1:
            x = ones @ x.reshape(size, after)
        else:
            x = np.matmul(ones, x.reshape(before, size, after))
    return x.reshape(kept_shape)


@functools.lru_cache(maxsize=4096)
def _sum_plan(shape, axes):
    """The products of :func:`_sum_over` for a table of ``shape``: ``(before, size,
    after)`` of each summed block in turn, and the shape left."""
    kept_shape = tuple(s for k, s in enumerate(shape) if k not in axes)
    blocks = _blocks([(k in axes, s) for k, s in enumerate(shape)])
    products = []
    while any(summed for summed, _ in blocks):
        j = max((k for k, b in enumerate(blocks) if b[0]), key=lambda k: blocks[k][1])
        before = math.prod(b[1] for b in blocks[:j])
        after = math.prod(b[1] for b in blocks[j + 1 :])
        products.append((before, blocks[j][1], after))
        blocks = _blocks(blocks[:j] + blocks[j + 1 :])
    return tuple(products), kept_shape


@functools.lru_cache(maxsize=1024)
def _ones(size, dtype):
    """A read-only vector of ``size`` ones."""
    ones = np.ones(size, dtype=dtype)
    ones.flags.writeable = False
    return ones


def _blocks(axes):
    """Runs of consecutive ``(summed, size)`` axes merged into one (their sizes
    multiplied)."""
    merged = []
    for summed, size in axes:
        if merged and merged[-1][0] == summed:
            merged[-1][1] *= size
        else:
            merged.append([summed, size])
    return merged


def _logsumexp(values, axis=None):
    """``log Σ exp`` over ``axis`` (finite inputs), shifted by the table's maximum: one
    contiguous reduction, about twice as fast as scipy's maximum along ``axis``.  Where
    a sum would then fall out of the normal range of doubles (every term of an output
    far below the table's maximum), scipy's ``logsumexp`` instead."""
    top = values.max()
    shifted = np.exp(values - top)
    total = shifted.sum() if axis is None else _sum_over(shifted, axis)
    if np.min(total) < 1e-250:
        return scipy.special.logsumexp(values, axis=axis)
    return np.log(total) + top


@dataclass(frozen=True)
class Factor:
    """A nonnegative (or log-) table over the sorted attribute tuple ``attrs``."""

    attrs: tuple
    values: np.ndarray

    def expand(self, attrs):
        """The values broadcastable against a table over the superset ``attrs``."""
        shape = [self.values.shape[self.attrs.index(a)] if a in self.attrs else 1 for a in attrs]
        return self.values.reshape(shape)

    def spread(self, attrs, shape):
        """The values repeated over the attributes of the superset ``attrs`` (of table
        ``shape``) that they lack: a contiguous table, built one block of consecutive
        new axes at a time by copying runs (faster to add than a broadcast whose
        inner loop runs over a short last axis)."""
        blocks = _blocks([(a not in self.attrs, s) for a, s in zip(attrs, shape, strict=True)])
        x, done = self.values, 1
        rest = self.values.size
        for new, size in blocks:
            if new:
                x = np.repeat(x.reshape(done, 1, rest), size, axis=1)
            else:
                rest //= size
            done *= size
        return x.reshape(shape)

    def sum_to(self, attrs):
        axes, kept = _summed(self.attrs, tuple(sorted(attrs)))
        return Factor(kept, _sum_over(self.values, axes))

    def logsumexp_to(self, attrs):
        axes = tuple(i for i, a in enumerate(self.attrs) if a not in attrs)
        kept = tuple(a for a in self.attrs if a in attrs)
        return Factor(kept, _logsumexp(self.values, axis=axes) if axes else self.values)

    def __mul__(self, other):
        attrs = tuple(sorted(set(self.attrs) | set(other.attrs)))
        return Factor(attrs, self.expand(attrs) * other.expand(attrs))


@functools.lru_cache(maxsize=65536)
def _summed(attrs, kept):
    """The axes of a table over ``attrs`` summed out to keep ``kept``, and the
    attributes left."""
    axes = tuple(i for i, a in enumerate(attrs) if a not in kept)
    return axes, tuple(a for a in attrs if a in kept)


def _times(values, factor, attrs, out=None, ufunc=np.multiply):
    """``values`` (a table over ``attrs``) times ``factor`` (over a subset of them), or
    another ``ufunc`` of the two, into ``out``.  Where the broadcast's inner loop would
    run over fewer than ``_RUN`` cells of a large table (the factor lacks one of its
    last axes), the factor is first spread over the table (:meth:`Factor.spread`): a
    copy and a contiguous product, faster; the same products."""
    run = 1
    for a, size in zip(reversed(attrs), reversed(values.shape), strict=True):
        if a not in factor.attrs:
            break
        run *= size
    if run < _RUN and values.size > _SPREAD:
        return ufunc(values, factor.spread(attrs, values.shape), out=out)
    return ufunc(values, factor.expand(attrs), out=out)


_RUN, _SPREAD = 32, 4096


def _contract(factors, keep):
    """The product of ``factors`` summed over every attribute not in ``keep``."""
    attrs = sorted(set().union(*(f.attrs for f in factors)))
    index = {a: k for k, a in enumerate(attrs)}
    subscripts = tuple(tuple(index[a] for a in f.attrs) for f in factors)
    out = tuple(a for a in attrs if a in keep)
    output = tuple(index[a] for a in out)
    operands, shape = [], {}
    for f, sub in zip(factors, subscripts, strict=True):
        operands += [f.values, list(sub)]
        shape.update(zip(sub, f.values.shape, strict=True))
    if math.prod(shape.values()) <= _DIRECT:  # one loop over every cell: no plan to follow
        return Factor(out, np.einsum(*operands, list(output)))
    path = _einsum_path(subscripts, tuple(f.values.shape for f in factors), output)
    return Factor(out, np.einsum(*operands, list(output), optimize=path))


# Most cells of the product of all factors that one einsum loop runs over (contracting
# pairwise in order costs a fixed overhead a call, about that many cells' work).
_DIRECT = 1 << 14


@functools.lru_cache(maxsize=4096)
def _einsum_path(subscripts, shapes, output):
    """The contraction order ``np.einsum(..., optimize=True)`` would compute (greedy),
    once per pattern: a selection round contracts the same patterns for every
    candidate, and finding the order cost as much as contracting."""
    operands = []
    for sub, shape in zip(subscripts, shapes, strict=True):
        operands += [np.broadcast_to(0.0, shape), list(sub)]
    return np.einsum_path(*operands, list(output), optimize="greedy")[0]


@dataclass(frozen=True)
class Measurement:
    """A noisy marginal: ``counts`` ≈ ``n·μ_attrs`` with Gaussian noise of std ``sigma``.

    With ``residual=True`` it is the noisy *residual* of the marginal: ``counts`` ≈
    ``P(n·μ_attrs)``, ``P`` centering along every axis, with noise ``σ²P``
    (:mod:`skprivsynth._math.residuals`); its loss is ``½||P(n·μ) − counts||²/σ²``.
    """

    attrs: tuple
    counts: np.ndarray
    sigma: float
    residual: bool = False


# ---------------------------------------------------------------------- structure


def _members(mask):
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _eliminate(cliques, sizes):
    """Greedy elimination (smallest created clique first); return the maximal cliques.

    Neighbourhoods are bit sets (Python ints): this runs once per candidate marginal in
    each round of an adaptive selection, so it must be cheap.  An attribute without
    neighbours changes no other's cost when eliminated, so those are kept aside in
    their order and merged in (the order is the same); the clique created with a vertex
    can only lie inside one created before it that holds the vertex (the vertex is gone
    afterwards).
    """
    adjacent = [0] * len(sizes)
    for c in cliques:
        c = [int(a) for a in c]
        mask = sum(1 << a for a in c)
        for a in c:
            adjacent[a] |= mask
    adjacent = tuple(m & ~(1 << a) for a, m in enumerate(adjacent))
    return list(_eliminate_graph(adjacent, tuple(int(s) for s in sizes)))


@functools.lru_cache(maxsize=65536)
def _log_cells(mask, sizes):
    """``Σ log sizes[a]`` over the attributes of the bit set ``mask``, in order."""
    return sum(math.log(sizes[a]) for a in _members(mask))


@functools.lru_cache(maxsize=4096)
def _eliminate_graph(adjacent, sizes):
    """:func:`_eliminate` on the graph of neighbourhoods ``adjacent`` (bit sets), once
    per graph: candidates of a round often add the same edges."""
    d = len(sizes)
    log_size = [math.log(s) for s in sizes]
    adjacent = list(adjacent)
    alone = sorted((log_size[v], v) for v in range(d) if not adjacent[v])[::-1]
    cost = {v: log_size[v] + _log_cells(adjacent[v], sizes) for v in range(d) if adjacent[v]}
    heap = [(c, v) for v, c in cost.items()]  # (cost, vertex), stale entries skipped
    heapq.heapify(heap)
    maximal = []
    holders = [[] for _ in range(d)]  # the earlier created cliques holding each vertex
    while cost or alone:
        while heap and cost.get(heap[0][1]) != heap[0][0]:
            heapq.heappop(heap)
        if alone and (not heap or alone[-1] < heap[0]):
            maximal.append(1 << alone.pop()[1])  # in no other clique
            continue
        v = heapq.heappop(heap)[1]
        del cost[v]
        nbrs = adjacent[v]
        created = nbrs | (1 << v)
        if not any(created & s == created for s in holders[v]):
            maximal.append(created)
        for u in _members(nbrs):
            holders[u].append(created)
            adjacent[u] = (adjacent[u] | nbrs) & ~(1 << u) & ~(1 << v)
            cost[u] = log_size[u] + _log_cells(adjacent[u], sizes)
            heapq.heappush(heap, (cost[u], u))
    return tuple(tuple(_members(c)) for c in maximal)


def junction_tree(cliques, sizes):
    """Maximal cliques of a triangulation covering ``cliques`` and the tree joining them.

    Every attribute ``0..len(sizes)-1`` is covered.  The tree is a maximum spanning tree
    of the clique graph weighted by separator size, which has the running intersection
    property for the cliques of an elimination ordering (Koller & Friedman 2009, 10.4).

    Returns
    -------
    nodes : list of tuple
    edges : list of (int, int)
        Parent-child pairs with node 0 the root, in breadth-first order.
    """
    nodes = _eliminate(cliques, sizes)
    k = len(nodes)
    in_tree, edges = {0}, []
    best = {j: (len(set(nodes[0]) & set(nodes[j])), 0) for j in range(1, k)}
    while len(in_tree) < k:
        j = max(best, key=lambda u: (best[u][0], -u))
        edges.append((best[j][1], j))
        in_tree.add(j)
        del best[j]
        for u in best:
            w = len(set(nodes[j]) & set(nodes[u]))
            if w > best[u][0]:
                best[u] = (w, j)
    return nodes, edges


def model_size(cliques, sizes):
    """Number of cells of the junction tree of ``cliques`` (public sizes only)."""
    return sum(math.prod(sizes[a] for a in c) for c in _eliminate(cliques, sizes))


# ------------------------------------------------------------------------ the model


class GraphicalModel:
    """A distribution ``∝ exp(Σ_C θ_C)`` over the junction tree of ``cliques``.

    Parameters
    ----------
    cliques : list of tuple
        Attribute sets that the model must represent jointly.
    sizes : sequence of int
        Public number of levels of each attribute.
    """

    def __init__(self, cliques, sizes):
        self.sizes = tuple(int(s) for s in sizes)
        self.nodes, self.edges = junction_tree(cliques, self.sizes)
        self.parent = {child: parent for parent, child in self.edges}
        self.children = {i: [] for i in range(len(self.nodes))}
        self.neighbours = {i: set() for i in range(len(self.nodes))}
        for parent, child in self.edges:
            self.children[parent].append(child)
            self.neighbours[parent].add(child)
            self.neighbours[child].add(parent)
        self.potentials = [self._zeros(c) for c in self.nodes]
        self.marginals = None
        self.converged, self.step_size = False, None  # set by estimate

    def _zeros(self, attrs):
        return Factor(attrs, np.zeros([self.sizes[a] for a in attrs]))

    def host(self, attrs):
        """Index of a junction-tree node containing ``attrs``, or None."""
        s = set(attrs)
        fits = [i for i, c in enumerate(self.nodes) if s <= set(c)]
        return min(fits, key=lambda i: len(self.nodes[i])) if fits else None

    def warm_start(self, other):
        """Start from the potentials of ``other`` (those this model can host)."""
        for factor in other.potentials:
            i = self.host(factor.attrs)
            if i is None:
                continue
            node = self.potentials[i]
            self.potentials[i] = Factor(node.attrs, node.values + factor.expand(node.attrs))
        return self.calibrate()

    def calibrate(self):
        """Belief propagation (two passes); sets ``marginals``. Returns self.

        In probability space where no table can leave the normal range of doubles
        (:meth:`_calibrate_linear`), else in log space (:meth:`_calibrate_log`)."""
        # Every value of a node's belief lies within exp(range of its potential +
        # log cells) of the belief's maximum, times its children's messages (by
        # induction over the subtree): below 600 nats over the whole tree, no value
        # of any table falls out of the normal range (about 708 nats).
        tops = [float(f.values.max()) for f in self.potentials]
        spread = sum(
            top - float(f.values.min()) + math.log(f.values.size)
            for top, f in zip(tops, self.potentials, strict=True)
        )
        return self._calibrate_linear(tops) if spread < 600 else self._calibrate_log()

    def _calibrate_linear(self, tops):
        """Belief propagation on ``exp(θ_C − max θ_C)`` (:meth:`_propagate`).
        ``tops``: each potential's maximum."""

        def table(i):
            values = np.subtract(self.potentials[i].values, tops[i])
            return np.exp(values, out=values)

        return self._propagate(table)

    def _propagate(self, table):
        """Belief propagation on the nonnegative tables ``table(i)`` (node ``i``'s
        ``exp(θ_C)`` up to a constant factor, a new array; each built as the upward
        pass reaches it, while the products follow): upward, a node's belief (its
        table times its children's messages) summed to the separator with its parent;
        downward, a child's marginal is its belief times the parent's marginal on their
        separator over that sum (Koller & Friedman 2009, 10.3): no normalising sum but
        the root's.  Sets ``marginals``. Returns self."""
        order = [0] + [child for _, child in self.edges]
        up, tables = {}, {}
        for i in reversed(order):
            attrs = self.nodes[i]
            belief = tables[i] = table(i)
            for c in self.children[i]:
                _times(belief, up[c], attrs, out=belief)
            if i:
                sep = tuple(a for a in attrs if a in self.nodes[self.parent[i]])
                up[i] = Factor(attrs, belief).sum_to(sep)
        self.marginals = [None] * len(self.nodes)
        for i in order:
            attrs, belief = self.nodes[i], tables[i]
            if i:
                sep = up[i].attrs
                parent = self.marginals[self.parent[i]].sum_to(sep).values
                total = up[i].values
                ratio = np.divide(parent, total, where=total > 0, out=np.zeros_like(total))
                _times(belief, Factor(sep, ratio), attrs, out=belief)
            else:
                belief /= belief.sum()
            self.marginals[i] = Factor(attrs, belief)
        return self

    def _calibrate_log(self):
        """Belief propagation (two passes, log space); sets ``marginals``. Returns self.

        Downward, a node's message to a child is its log marginal summed to their
        separator, plus ``log Z``, less the child's upward message (a function of the
        separator alone, so it leaves the sum): one ``exp`` of each node's belief, into
        its marginal, instead of one more for every child."""
        order = [0] + [child for _, child in self.edges]
        up = {}
        for i in reversed(order[1:]):
            belief = self.potentials[i].values
            attrs = self.nodes[i]
            for k, c in enumerate(self.children[i]):
                if k:  # a sum allocated here: added to in place
                    belief += up[c].expand(attrs)
                else:
                    belief = belief + up[c].expand(attrs)
            sep = tuple(a for a in attrs if a in self.nodes[self.parent[i]])
            up[i] = Factor(attrs, belief).logsumexp_to(sep)
        down = {}
        self.marginals = [None] * len(self.nodes)
        log_z = None
        for i in order:
            attrs = self.nodes[i]
            messages = [down[i]] if i in down else []
            messages += [up[c] for c in self.children[i]]
            belief = self.potentials[i].values.copy()
            for message in messages:
                belief += message.expand(attrs)
            if log_z is None:
                log_z = float(_logsumexp(belief))
            belief -= log_z
            marginal = Factor(attrs, np.exp(belief, out=belief))
            self.marginals[i] = marginal
            for c in self.children[i]:
                sep = tuple(a for a in attrs if a in self.nodes[c])
                with np.errstate(divide="ignore"):  # a separator cell of mass 0: -inf
                    total = np.log(marginal.sum_to(sep).values)
                down[c] = Factor(sep, total + log_z - up[c].values)
        return self

    def marginal(self, attrs):
        """The model's marginal table over the sorted tuple ``attrs`` (probabilities)."""
        return self.marginals_of([attrs])[0]

    def marginals_of(self, attr_sets):
        """The marginal tables over each attribute set of ``attr_sets``, as
        :meth:`marginal`; the sums of a node's marginal that several need (to a set, or
        to the attributes a set spanning nodes keeps there) computed once."""
        sums, messages = {}, {}

        def node_sum(i, attrs):
            if (i, attrs) not in sums:
                sums[i, attrs] = self.marginals[i].sum_to(attrs)
            return sums[i, attrs]

        out = []
        for attrs in attr_sets:
            attrs = tuple(sorted(attrs))
            i = self.host(attrs)
            if i is not None:
                out.append(node_sum(i, attrs).values)
            else:
                across = self._marginal_across(set(attrs), node_sum, messages)
                out.append(across.sum_to(attrs).values)
        return out

    def _marginal_across(self, targets, node_sum, messages):
        """Variable elimination over ``Π μ_C / Π μ_sep`` restricted to the subtree
        spanning the nodes that hold ``targets`` (other leaves sum to one); each node's
        marginal first summed to the targets and separators it holds (``node_sum(i,
        attrs)``), its other attributes being in no other factor.  A node's message to
        its neighbour depends on the nodes kept on its side and the targets they hold
        only: kept in ``messages`` for the other sets."""
        keep = set(range(len(self.nodes)))
        leaves = [i for i in keep if len(self.neighbours[i]) <= 1]
        while leaves and len(keep) > 1:  # prune leaves holding no target beyond their separator
            i = leaves.pop()
            if i not in keep:
                continue
            nbrs = self.neighbours[i] & keep
            others = set().union(*(self.nodes[j] for j in nbrs))
            if (set(self.nodes[i]) - others) & targets:
                continue
            keep.discard(i)
            leaves.extend(j for j in nbrs if len(self.neighbours[j] & keep) <= 1)

        def kept(i, parent):
            return sorted(j for j in self.neighbours[i] & keep if j != parent)

        @functools.cache
        def side(i, parent):
            """The kept nodes on the side of ``i`` away from ``parent``, the targets they
            hold and the cells of the products formed there (each node's table over the
            targets and separators it holds, times the targets held beyond it)."""
            nodes, held, cells = [i], targets & set(self.nodes[i]), 0
            for j in kept(i, parent):
                below, more, inner = side(j, i)
                nodes, held, cells = nodes + list(below), held | set(more), cells + inner
            near = set().union(*(self.nodes[j] for j in self.neighbours[i] & keep))
            own = set(self.nodes[i]) & (targets | near)
            cells += math.prod(self.sizes[a] for a in own | held)
            return tuple(sorted(nodes)), tuple(sorted(held)), cells

        def collect(i, parent):
            key = (i, parent) + side(i, parent)[:2]
            if parent is not None and key in messages:
                return messages[key]
            held = targets.union(*(self.nodes[j] for j in self.neighbours[i] & keep))
            own = node_sum(i, tuple(a for a in self.nodes[i] if a in held))
            factors = [own] + [collect(j, i) for j in kept(i, parent)]
            if parent is None:
                return _contract(factors, targets)
            sep = tuple(a for a in self.nodes[i] if a in self.nodes[parent])
            sep_marginal = node_sum(i, sep).values
            inverse = np.divide(
                1.0, sep_marginal, where=sep_marginal > 0, out=np.zeros_like(sep_marginal)
            )
            messages[key] = _contract(factors + [Factor(sep, inverse)], targets | set(sep))
            return messages[key]

        # Rooted where the messages are smallest (targets carried across the fewest cells).
        root = min(keep, key=lambda r: (side(r, None)[2], r))
        return collect(root, None)

    # -------------------------------------------------------------------- sampling

    def sample(self, n_samples, rng):
        """``n_samples`` records by ancestral sampling along the junction tree.

        Within each group of records sharing the values of a separator, the new
        attributes are drawn by systematic sampling from the conditional distribution,
        so the counts of each group follow the model to within one record (the sampling
        error of a bootstrap is avoided where it can be).  The group's records are
        ordered by the values drawn so far (:func:`_systematic_draws`), so the new
        attributes also come out balanced across them, as the model's conditional
        independence says.
        """
        out = np.zeros((n_samples, len(self.sizes)), dtype=np.int64)
        order = [0] + [child for _, child in self.edges]
        drawn = []
        for i in order:
            attrs = self.nodes[i]
            table = self.marginals[i].values
            if i == 0:
                sep = ()
            else:
                sep = tuple(a for a in attrs if a in self.nodes[self.parent[i]])
            new = tuple(a for a in attrs if a not in sep)
            if not new:
                continue
            perm = [attrs.index(a) for a in sep + new]
            sep_cells = math.prod(self.sizes[a] for a in sep)
            cond = np.transpose(table, perm).reshape(sep_cells, -1)
            if sep:
                group = np.ravel_multi_index(
                    tuple(out[:, a] for a in sep), [self.sizes[a] for a in sep]
                )
            else:
                group = np.zeros(n_samples, dtype=np.int64)
            strata = [out[:, a] for a in rng.permutation([a for a in drawn if a not in sep])]
            cells = _systematic_draws(cond, group, rng, strata)
            values = np.unravel_index(cells, [self.sizes[a] for a in new])
            for a, v in zip(new, values, strict=True):
                out[:, a] = v
            drawn.extend(new)
        return out


_REVERSED_BYTES = np.array([int(f"{b:08b}"[::-1], 2) for b in range(256)], dtype=np.uint64)


def _radical_inverse(i):
    """Base-2 radical inverse of non-negative integers below 2³² (van der Corput 1935),
    as integers: the 32 bits of ``i`` reversed."""
    i = i.astype(np.uint64)
    out = np.zeros_like(i)
    for shift in (0, 8, 16, 24):
        byte = (i >> np.uint64(shift)) & np.uint64(255)
        out |= _REVERSED_BYTES[byte] << np.uint64(24 - shift)
    return out


def _systematic_draws(cond, group, rng, strata=()):
    """For each record, a column of ``cond[group]`` (rows normalised), systematically.

    A group of ``m`` records gets the ``m`` points ``(j + u)/m`` (one uniform ``u`` a
    group) of its cumulative distribution.  Its records are sorted by ``strata`` (the
    first array the innermost key; ties at random) and take the points in the order of
    the radical inverse of their rank, shifted at random in each group: every run of
    records sharing the values of ``strata`` gets points spread over the whole
    distribution, within a few records of its share of each value.
    """
    n = group.size
    totals = cond.sum(axis=1, keepdims=True)
    width = cond.shape[1]
    probs = np.divide(cond, totals, where=totals > 0, out=np.full_like(cond, 1.0 / width))
    cum = np.cumsum(probs, axis=1)
    cum[:, -1] = 1.0
    key = group
    for column in reversed(strata):  # one integer key: group, then strata (mixed radix)
        radix = int(column.max()) + 1
        if int(key.max()) >= 2**62 // radix:
            key = np.unique(key, return_inverse=True)[1]  # dense ranks, same order
        key = key * radix + column
    order = np.lexsort((rng.random(n), key))  # ties at random
    g = group[order]
    counts = np.bincount(g, minlength=cond.shape[0])
    starts = np.cumsum(counts) - counts
    rank = np.arange(n) - starts[g]
    if len(strata):
        shift = rng.integers(0, 2**20, size=cond.shape[0])
        spread = np.argsort(g.astype(np.uint64) << 32 | _radical_inverse(rank + shift[g]))
        rank[spread] = np.arange(n) - starts[g[spread]]
    offset = rng.random(cond.shape[0])
    position = (rank + offset[g]) / counts[g]
    flat = (cum + np.arange(cond.shape[0])[:, None]).ravel()
    picked = np.searchsorted(flat, g + position, side="right") - g * width
    result = np.empty(n, dtype=np.int64)
    result[order] = np.minimum(picked, width - 1)
    return result


# ---------------------------------------------------------------------- estimation


def _pooled(measurements):
    """Measurements of one attribute set (and kind) pooled into one: their losses
    ``½ Σ_k ||f − y_k||²/σ_k²`` are ``½ ||f − ȳ||²·W`` plus a constant, with ``W = Σ_k
    1/σ_k²`` and ``ȳ = Σ_k y_k/σ_k² / W`` (cell by cell): the same minimiser and the same
    steps, one table to compare."""
    groups = {}
    for m in measurements:
        groups.setdefault((m.attrs, m.residual), []).append(m)
    pooled = []
    for (attrs, residual), group in groups.items():
        if len(group) == 1:
            pooled.append(group[0])
            continue
        weights = [1.0 / np.square(m.sigma) for m in group]
        total = sum(weights)
        counts = sum(w * m.counts for w, m in zip(weights, group, strict=True)) / total
        pooled.append(Measurement(attrs, counts, 1.0 / np.sqrt(total), residual))
    return pooled


@functools.lru_cache(maxsize=1024)
def _groups(node, sets, sizes):
    """The attribute sets ``sets`` held in ``node`` as a forest of groups, each an
    ``(attrs, members)`` pair over the union of its members' attributes (a set is a
    group without members).  Two groups merge, those of the smallest union first, while
    that union has at most half the node's cells or is one of them: a table summed
    from the node, or spread over it, is then one pass over the node for several sets
    (the union table read or written once more instead, at most half as long)."""
    cells = math.prod(sizes[a] for a in node)
    groups = [(attrs, ()) for attrs in sorted(set(sets))]
    while len(groups) > 1:
        size, j, k = min(
            (math.prod(sizes[a] for a in set(groups[j][0]) | set(groups[k][0])), j, k)
            for j in range(len(groups))
            for k in range(j + 1, len(groups))
        )
        union = tuple(sorted(set(groups[j][0]) | set(groups[k][0])))
        if size > cells // 2 and union not in (groups[j][0], groups[k][0]):
            break
        members = [g for g in (groups[j], groups[k]) if g[0] != union]
        members += [m for g in (groups[j], groups[k]) if g[0] == union for m in g[1]]
        groups = [g for t, g in enumerate(groups) if t not in (j, k)] + [(union, tuple(members))]
    return tuple(groups)


def _node_sets(model, measurements, hosts):
    """Each node's groups (:func:`_groups`) of the attribute sets of its measurements."""
    held = {}
    for m, i in zip(measurements, hosts, strict=True):
        held.setdefault(i, set()).add(m.attrs)
    return {
        i: _groups(model.nodes[i], tuple(sorted(sets)), model.sizes) for i, sets in held.items()
    }


def _fitted_marginals(model, measurements, hosts, groups):
    """Each measurement's marginal ``μ_r``, summed from its node's marginal through the
    tables of its groups (``groups`` from :func:`_node_sets`)."""
    tables = {}

    def down(i, source, group):
        attrs, members = group
        factor = source if source.attrs == attrs else source.sum_to(attrs)
        tables[i, attrs] = factor.values
        for member in members:
            down(i, factor, member)

    for i, forest in groups.items():
        for group in forest:
            down(i, model.marginals[i], group)
    return [tables[i, m.attrs] for m, i in zip(measurements, hosts, strict=True)]


class _Layout:
    """The measurements' tables laid end to end (one vector of cells): their counts and
    variances there, so that the loss and its gradient are a few operations on the
    vector, not a few on each table (the same operations on each cell)."""

    def __init__(self, measurements):
        sizes = [m.counts.size for m in measurements]
        ends = np.cumsum(sizes)
        self.slices = [slice(e - k, e) for e, k in zip(ends, sizes, strict=True)]
        self.shapes = [m.counts.shape for m in measurements]
        self.counts = np.concatenate([np.ravel(m.counts) for m in measurements])
        self.variances = np.concatenate(
            [np.full(m.counts.size, np.square(m.sigma)) for m in measurements]
        )
        self.residual = [k for k, m in enumerate(measurements) if m.residual]

    def tables(self, vector):
        """The measurements' tables of ``vector`` (views)."""
        return [vector[s].reshape(shape) for s, shape in zip(self.slices, self.shapes, strict=True)]

    def dot(self, a, b):
        """``Σ_r ⟨a_r, b_r⟩`` over the measurements' tables, one table at a time."""
        return sum(float(np.vdot(a[s], b[s])) for s in self.slices)


def _loss_and_gradient(model, measurements, hosts, n, groups, layout):
    """The loss, the measurements' marginals ``μ_r`` and their gradients ``∂L/∂μ_r``,
    laid out by ``layout`` (a :class:`_Layout`; a node's gradient is the sum of its
    measurements' gradients, broadcast)."""
    marginals = _fitted_marginals(model, measurements, hosts, groups)
    flat = np.concatenate([np.ravel(mu) for mu in marginals])
    fitted = n * flat
    for k in layout.residual:
        # P is an orthogonal projection: the gradient of ½||P(nμ) − y||² is nP(nμ − y).
        s, shape = layout.slices[k], layout.shapes[k]
        fitted[s] = np.ravel(center(fitted[s].reshape(shape), range(len(shape))))
    diff = fitted - layout.counts
    weighted = diff / layout.variances
    return 0.5 * layout.dot(weighted, diff), flat, n * weighted


def _group_gradients(model, measurements, hosts, grads, groups):
    """The gradient of each node's top groups (``groups`` from :func:`_node_sets`),
    keyed ``(node, attrs)``: its measurements' gradients added up through the tables of
    its groups, over the top group's attributes.  A node's gradient is the broadcast
    sum of its top groups' (what a step changes: :class:`_Steps`)."""
    leaves = {}
    for m, i, g in zip(measurements, hosts, grads, strict=True):
        if (i, m.attrs) in leaves:
            leaves[i, m.attrs] = leaves[i, m.attrs] + g
        else:
            leaves[i, m.attrs] = g

    def level(i, group):
        """The group's summed gradient over its own attributes: its members' (in
        order, each over its own attributes, then broadcast) plus its own table's."""
        own, members = group
        total = None
        for member in members:
            part = Factor(member[0], level(i, member))
            if total is None:
                total = part.spread(own, [model.sizes[a] for a in own])
            else:
                _times(total, part, own, out=total, ufunc=np.add)
        leaf = leaves.get((i, own))
        if leaf is None or total is None:
            return total if leaf is None else leaf
        return np.add(leaf, total, out=total)

    out = {}
    for i, forest in groups.items():
        for group in forest:
            attrs = group[0]
            part = level(i, group)
            out[i, attrs] = part if (i, attrs) not in out else out[i, attrs] + part
    return out


class _Steps:
    """The potentials during one fit: each node's table at the start ``θ⁰_C`` plus the
    steps taken, kept as tables ``h_g`` over the attributes of the node's top groups
    (:func:`_group_gradients`): ``θ − η∇L`` changes those only, so a trial step
    exponentiates them, not the node, ``exp(θ_C) = exp(θ⁰_C)·Π_g exp(h_g)`` with
    ``exp(θ⁰_C)`` once a fit (the same potentials as stepping the node's table)."""

    def __init__(self, model, groups):
        self.model, self.start = model, list(model.potentials)
        self.attrs = {i: [] for i in range(len(model.nodes))}
        for i, forest in groups.items():
            self.attrs[i] = sorted({group[0] for group in forest})
        self.exp, self.ranges = [], []  # exp(θ⁰_C − max θ⁰_C); range + log cells
        for start in self.start:
            top = float(start.values.max())
            self.exp.append(np.exp(start.values - top))
            span = top - float(start.values.min())
            self.ranges.append(span + math.log(start.values.size))

    def zeros(self):
        """The tables of no step."""
        sizes = self.model.sizes
        return {
            (i, a): np.zeros([sizes[j] for j in a]) for i, held in self.attrs.items() for a in held
        }

    @staticmethod
    def stepped(tables, gradients, step):
        """The tables ``h − step·∇L`` (``gradients`` from :func:`_group_gradients`)."""
        out = {}
        for key, h in tables.items():
            values = np.multiply(gradients[key], -step)
            values += h
            out[key] = values
        return out

    def potentials(self, tables):
        """The potentials ``θ⁰_C + Σ_g h_g`` as tables."""
        out = []
        for i, start in enumerate(self.start):
            values = start.values.copy()
            for a in self.attrs[i]:
                values += Factor(a, tables[i, a]).spread(start.attrs, values.shape)
            out.append(Factor(start.attrs, values))
        return out

    def calibrate(self, tables):
        """The model calibrated at ``θ⁰ + h`` (``tables``): belief propagation on the
        products of exponentials (:meth:`GraphicalModel._propagate`) where the ranges
        of the tables (each a bound on its part of the node's range) plus the log cells
        sum to under 600 nats (then no value leaves the range of doubles, as in
        :meth:`GraphicalModel.calibrate`); else the potentials' own test."""
        model = self.model
        spread, exps = 0.0, {}
        for i in range(len(self.start)):
            spread += self.ranges[i]
            for a in self.attrs[i]:
                h = tables[i, a]
                top = float(h.max())
                spread += top - float(h.min())
                exps[i, a] = Factor(a, np.exp(np.subtract(h, top)))
        if spread >= 600:
            model.potentials = self.potentials(tables)
            return model.calibrate()

        def table(i):
            attrs = model.nodes[i]
            values = self.exp[i]
            if not self.attrs[i]:
                return values.copy()
            for k, a in enumerate(self.attrs[i]):
                values = _times(values, exps[i, a], attrs, out=values if k else None)
            return values

        return model._propagate(table)


def estimate(
    measurements, sizes, n, cliques=(), iterations=500, warm_start=None, step_size=None, tol=0.0
):
    """The graphical model that best explains ``measurements`` (Private-PGM).

    Minimises ``L(μ) = ½ Σ_r ||n·μ_r − y_r||² / σ_r²`` over the marginals ``μ`` of the
    model over the cliques of the measurements (and ``cliques``), by entropic mirror
    descent on the potentials ``θ`` (``θ ← θ − η ∇_μ L``, McKenna et al. 2019, Alg. 1)
    with an Armijo backtracking step size.  ``n`` is the public number of records.

    Parameters
    ----------
    iterations : int, default=500
        Largest number of mirror-descent steps.
    warm_start : GraphicalModel, optional
        Start from its potentials.
    step_size : float, optional
        First step size (the ``step_size`` a previous fit ended with, say).  None:
        the inverse of the largest curvature of ``L`` along one cell, a safe start.
    tol : float, default=0.0
        Stop after a step that lowers ``L`` by at most ``tol``.  ``L`` is the negative
        log-likelihood of the measurements (up to a constant), so ``tol`` is in nats.

    Returns
    -------
    GraphicalModel
        Calibrated: ``marginals`` holds the junction-tree clique marginals;
        ``converged`` tells whether the fit stopped by ``tol`` (not by
        ``iterations``) and ``step_size`` is the step size it ended with.
    """
    all_cliques = [m.attrs for m in measurements] + [tuple(c) for c in cliques]
    model = GraphicalModel(all_cliques, sizes)
    if step_size is None:
        step_size = 1.0 / max(float(np.max(n * n / np.square(m.sigma))) for m in measurements)
    step = step_size
    if warm_start is not None:
        model.warm_start(warm_start)
    else:
        model.calibrate()
    measurements = _pooled(measurements)
    hosts = [model.host(m.attrs) for m in measurements]
    groups = _node_sets(model, measurements, hosts)
    layout = _Layout(measurements)
    loss, marginals, grads = _loss_and_gradient(model, measurements, hosts, n, groups, layout)
    steps = _Steps(model, groups)
    tables = steps.zeros()
    for _ in range(iterations):
        gradients = _group_gradients(model, measurements, hosts, layout.tables(grads), groups)
        while True:
            trial = steps.stepped(tables, gradients, step)
            steps.calibrate(trial)
            new_loss, new_marginals, new_grads = _loss_and_gradient(
                model, measurements, hosts, n, groups, layout
            )
            # sufficient decrease: L(μ') <= L(μ) − ⟨∇L, μ − μ'⟩/2, the inner product
            # taken measurement by measurement (∇L is their broadcast sum on each node)
            decrease = layout.dot(grads, marginals - new_marginals)
            if new_loss <= loss - 0.5 * decrease or step < 1e-30:
                break
            step *= 0.5
        model.converged = loss - new_loss <= tol
        loss, marginals, grads, tables = new_loss, new_marginals, new_grads, trial
        step *= 1.5
        if model.converged:
            break
    model.potentials = steps.potentials(tables)
    model.step_size = step
    return model
