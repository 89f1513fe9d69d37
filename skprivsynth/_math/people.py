"""One person, many rows: contribution bounding and the person-weighted table.

Replace-one-person neighbours are two tables with the same number of people that
differ in all the rows of one person.  Each person keeps at most ``k`` rows, chosen by a
rule that reads that person's rows only (:func:`bound_contributions`), and each kept
row carries the weight ``1/c``, ``c`` the person's number of kept rows
(:func:`person_weights`).  A person then adds to any count table a non-negative vector
``u`` of total weight ``‖u‖₁ = 1``; replacing the person by another (``v``) changes the
table by ``u − v``, with ``‖u − v‖₁ <= 2`` and ``‖u − v‖₂² = ‖u‖₂² + ‖v‖₂² − 2u·v <= 2``
(``‖u‖₂ <= ‖u‖₁`` and ``u·v >= 0``).  More generally, ``u − v = Σ_ij α_i β_j (e_i − e_j)``
with ``α, β`` the two persons' weights, so by convexity every norm of a linear function
of the table moves by at most its largest move under one row replaced by another: each
release calibrated to replace-one rows is calibrated to replace-one persons on the
weighted table, and the weighted table's total is the number of people.
"""

import numpy as np

__all__ = [
    "bound_contributions",
    "chunk_ranks",
    "draw_people",
    "fill_slots",
    "merge_person_counts",
    "one_row_per_person",
    "person_means",
    "person_weights",
    "previous_rows",
]

#: Each kept row's weight is ``1/c`` rounded down to a multiple of ``2**-WEIGHT_BITS``
#: (:func:`person_weights`), so that every sum of weights of fewer than
#: ``2**(53 - WEIGHT_BITS)`` people is exact in float64, in any order: a table summed
#: over chunks, in any chunking, equals the table summed in memory.
WEIGHT_BITS = 24


def bound_contributions(persons, max_rows):
    """The rows each person keeps: their first ``max_rows`` rows in the table's order.

    Which rows of a person are kept depends on that person's rows (and their order) only,
    so replacing one person changes only that person's kept rows (Wilson et al. 2020,
    Sect. 4; Amin et al. 2019).

    Parameters
    ----------
    persons : ndarray of shape (n_rows,)
        The person of each row (any values ``numpy.unique`` sorts).
    max_rows : int
        Most rows a person keeps (``k >= 1``).

    Returns
    -------
    keep : ndarray of bool, shape (n_rows,)
        The kept rows.
    person : ndarray of int, shape (n_rows,)
        Index of each row's person, ``0..n_people − 1``.
    first : ndarray of int, shape (n_people,)
        Each person's first row.
    counts : ndarray of int, shape (n_people,)
        Each person's number of kept rows, ``c = min(n_i, k)``.
    """
    _, person = np.unique(np.asarray(persons), return_inverse=True)
    person = person.ravel()
    order = np.argsort(person, kind="stable")  # each person's rows, in the table's order
    rows = np.bincount(person)
    starts = np.cumsum(rows) - rows
    rank = np.empty(person.size, dtype=np.int64)
    rank[order] = np.arange(person.size) - np.repeat(starts, rows)
    return rank < max_rows, person, order[starts], np.minimum(rows, max_rows)


def one_row_per_person(persons, max_rows, rng):
    """One row of each person, drawn uniformly among their kept rows (their first
    ``max_rows``): a table of one row per person, on which replace-one rows is
    replace-one persons.  The draw reads the person's rows only (and ``rng``).

    Returns
    -------
    ndarray of int, shape (n_people,)
        The index of each person's drawn row, persons in ``numpy.unique`` order.
    """
    _, person, _, counts = bound_contributions(persons, max_rows)
    order = np.argsort(person, kind="stable")
    rows = np.bincount(person)
    starts = np.cumsum(rows) - rows
    return order[starts + np.floor(rng.random(counts.size) * counts).astype(np.int64)]


def person_means(x, keep, person, n_codes):
    """Each kept row's person mean of the numeric codes ``x``: the rounded mean of the
    person's kept rows' codes below ``n_codes`` (the numeric bins; missing values and
    other levels left out), or ``n_codes`` for a person without one.  A function of the
    person's own rows."""
    kept = np.flatnonzero(keep)
    owner = person[kept]
    numeric = x[kept] < n_codes
    sums = np.bincount(owner[numeric], weights=x[kept][numeric], minlength=person.max() + 1)
    counts = np.bincount(owner[numeric], minlength=person.max() + 1)
    means = np.where(counts > 0, np.floor(sums / np.maximum(counts, 1) + 0.5), n_codes)
    return means[owner]


def person_weights(counts):
    """The weight of each kept row of a person with ``c`` kept rows: ``1/c`` rounded
    down to a multiple of ``2**-WEIGHT_BITS`` (the sums are then exact in any order).

    A person's weights sum to at most 1 (to within ``c·2**-WEIGHT_BITS`` of it), and
    they are non-negative: the module's derivation holds with ``‖u‖₁ <= 1``, so the
    sensitivities are those of one row moved at row level.
    """
    scale = float(2**WEIGHT_BITS)
    return np.floor(scale / np.asarray(counts, dtype=np.float64)) / scale


def draw_people(people, counts, draw, key, rng, draws_per_row):
    """The rows of synthetic people from a model of the person-weighted table.

    A record of the model is a person (its person-level attributes and its number of
    rows ``c``, summarised by ``key``) together with one of its rows.  The model's
    distribution of the person part is that of the people, and given it the row part
    is that of a person's rows; so a synthetic person drawn as one record keeps that
    record as its first row and takes ``c − 1`` further records of the same key from
    pools of records drawn from the model (:func:`fill_slots`).  A row whose key the
    pools never hold (a kind of vanishing mass under the model, drawn as a person by
    chance, that the pools did not hold within their draws) repeats the person's own
    record.

    Parameters
    ----------
    people : ndarray of shape (n_people, p)
        One record of the model per synthetic person.
    counts : ndarray of int, shape (n_people,)
        Each person's number of rows, ``>= 1``.
    draw : callable
        ``draw(m) -> ndarray of shape (m, p)``: records of the model.
    key : callable
        ``key(records) -> ndarray of int``: each record's person key.
    rng : numpy.random.Generator
        Shuffles each pool.
    draws_per_row : int
        Most records drawn in pools, per row to fill (:func:`fill_slots`).

    Returns
    -------
    records : ndarray of shape (Σ counts, p)
        The rows, each person's contiguous, the person's own record first.
    person : ndarray of int
        Index of each row's synthetic person.
    """
    n_people = len(people)
    keys = key(people)
    need = counts - 1
    slots = np.repeat(np.arange(n_people), need)  # the persons of the missing rows
    filled, todo = fill_slots(keys[slots], people.shape[1], people.dtype, draw, key, rng,
                              max(int(need.sum()), 1), draws_per_row)  # fmt: skip
    filled[todo] = people[slots[todo]]  # a kind of vanishing mass: the person's own record
    starts = np.cumsum(counts) - counts
    records = np.empty((int(counts.sum()), people.shape[1]), dtype=people.dtype)
    records[starts] = people
    rest = np.ones(len(records), dtype=bool)
    rest[starts] = False
    records[rest] = filled
    return records, np.repeat(np.arange(n_people), counts)


def fill_slots(slot_keys, width, dtype, draw, key, rng, pool_size, draws_per_slot):
    """Records of the model for slots that each ask for a key (rejection from pools).

    Pools of records are drawn from the model (``draw(m)``, shuffled since the model's
    sampler orders its records): ``pool_size`` records first, then twice the open slots
    at each round, doubling (a kind of mass ``q`` is found after about ``log2(1/q)``
    rounds), at most four times the first pool; the ``j``-th open slot of a key takes
    the ``j``-th record of that key in the pool, each record used once, until every
    slot is served or the pools hold ``draws_per_slot`` records per slot (the cost of a
    kind of vanishing mass is bounded by that of the slots).  Returns the records (rows
    of open slots undefined) and the indices of the slots left open.
    """
    filled = np.empty((slot_keys.size, width), dtype=dtype)
    todo = np.arange(slot_keys.size)
    budget, cap = draws_per_slot * max(slot_keys.size, 1), 4 * max(pool_size, todo.size)
    round_ = 0
    while todo.size and budget > 0:
        size = max(pool_size, todo.size) if round_ == 0 else todo.size << min(round_, 30)
        size = min(size, cap, budget)
        budget, round_ = budget - size, round_ + 1
        pool = draw(size)
        pool = pool[rng.permutation(len(pool))]
        pool_keys = key(pool)
        values, slot_key = np.unique(slot_keys[todo], return_inverse=True)
        slot_rank = _rank_within(slot_key)
        where = np.searchsorted(values, pool_keys)
        match = (where < values.size) & (values[np.minimum(where, values.size - 1)] == pool_keys)
        pool_idx = np.flatnonzero(match)
        pool_key = where[match]
        pool_rank = _rank_within(pool_key)
        available = np.bincount(pool_key, minlength=values.size)
        served = slot_rank < available[slot_key]
        # The pool record of (key, rank): sort the pool's by (key, rank).
        order = np.lexsort((pool_rank, pool_key))
        offsets = np.cumsum(available) - available
        chosen = pool_idx[order[offsets[slot_key[served]] + slot_rank[served]]]
        filled[todo[served]] = pool[chosen]
        todo = todo[~served]
    return filled, todo


def previous_rows(keep, person):
    """For each kept row, the index of the same person's previous kept row (-1 for a
    person's first): the rows a person's lag columns read (their own rows only)."""
    index = np.flatnonzero(keep)
    owner = person[index]
    order = np.argsort(owner, kind="stable")
    previous = np.full(index.size, -1, dtype=np.int64)
    same = owner[order][1:] == owner[order][:-1]
    previous[order[1:][same]] = index[order[:-1][same]]
    return previous


def merge_person_counts(keys, counts, persons):
    """The distinct persons (sorted, as ``numpy.unique`` sorts them) and their numbers
    of rows, after the rows of ``persons`` are added to ``keys`` with ``counts`` (None
    before the first chunk): a person's number of rows summed over a table read in
    chunks."""
    new, added = np.unique(np.asarray(persons), return_counts=True)
    if keys is None:
        return new, added.astype(np.int64)
    # The chunk's persons found among ``keys`` add to their counts; the others are
    # inserted at their places (a merge of two sorted arrays, no sort of the whole).
    where = np.searchsorted(keys, new)
    found = where < keys.size
    found[found] = keys[where[found]] == new[found]
    counts = counts.copy()
    counts[where[found]] += added[found]
    keys = keys.astype(np.promote_types(keys.dtype, new.dtype), copy=False)  # no truncation
    at = where[~found]
    return np.insert(keys, at, new[~found]), np.insert(counts, at, added[~found])


def chunk_ranks(person, seen):
    """Each row's rank among its person's rows in the table's order, for a chunk of
    rows whose persons' indices are ``person``, ``seen`` the rows of each person in
    the earlier chunks (updated in place): the ranks :func:`bound_contributions`
    gives the whole table."""
    rank = seen[person] + _rank_within(person)
    seen += np.bincount(person, minlength=seen.size)
    return rank


def _rank_within(groups):
    """Rank of each element among the elements of its group, in order."""
    order = np.argsort(groups, kind="stable")
    sizes = np.bincount(groups)
    starts = np.cumsum(sizes) - sizes
    rank = np.empty(groups.size, dtype=np.int64)
    rank[order] = np.arange(groups.size) - np.repeat(starts, sizes)
    return rank
