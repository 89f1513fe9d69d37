"""One person, many rows: person-level differential privacy on one table.

A table where one person has many rows (visits, claims, person-years) is protected at
the level of a person by bounding each person's rows and weighting each kept row by
``1/c``, ``c`` the person's number of kept rows (:mod:`skprivsynth._math.people`): every
release calibrated to replace-one rows is then calibrated to replace-one persons.  The
number of people is public, the number of rows is not.  Read more in the
:ref:`User Guide <people>`.
"""

from __future__ import annotations

from functools import partial
from numbers import Integral

import numpy as np
import pandas as pd

from ._math.people import (
    bound_contributions,
    chunk_ranks,
    draw_people,
    fill_slots,
    merge_person_counts,
    one_row_per_person,
    person_means,
    person_weights,
    previous_rows,
)
from .chunks import Chunks, as_chunks
from .privacy import warn_privacy_leak
from .validation import role_generator

__all__ = [
    "PersonChunks",
    "PersonTable",
    "encoder_rows",
    "check_person_columns",
    "check_person_chunks",
    "person_relation",
    "count_people",
    "read_persons",
    "with_text_keys",
    "sample_people",
    "synthesize_people",
    "warn_per_row",
]


#: Most records of the model drawn in pools per synthetic row asking for a kind (a
#: person's kind, or with previous values): the sampling of people then costs at most
#: this many times a plain sample; a row whose kind the pools miss falls back.
_DRAWS_PER_ROW = 16


def person_relation(max_rows_per_person):
    """The neighbouring relation of a person-level fit, in words (for the report)."""
    return (
        "replace-one person (person-level DP): tables of the same public number of "
        "people that differ in all the rows of one person; each person keeps their "
        f"first {max_rows_per_person} rows in the table's order, the number of rows is "
        "not public"
    )


def encoder_rows(persons, max_rows_per_person, random_state):
    """The rows a person-level pipeline fits its transformers on: one row of each
    person, drawn uniformly among their kept rows
    (:func:`~skprivsynth._math.people.one_row_per_person`, the stream ``"encoder
    person rows"`` of ``random_state``).  On that table replace-one rows is
    replace-one persons, so the encoder's releases (private bins, decoding weights)
    keep their row-level calibration and are person-level."""
    rng = role_generator(random_state, "encoder person rows")
    chunks = as_chunks(persons)
    if chunks is None:
        return one_row_per_person(np.asarray(persons), max_rows_per_person, rng)
    # The same draw on a source of chunks of persons: each person's rank among their
    # kept rows, then the position in the table of the row of that rank.
    keys, counts = count_people(chunks)
    draw = rng.random(keys.size) * np.minimum(counts, max_rows_per_person)
    chosen = np.floor(draw).astype(np.int64)
    rows, seen, start = np.full(keys.size, -1, dtype=np.int64), np.zeros_like(counts), 0
    for chunk in chunks:
        person = np.searchsorted(keys, np.asarray(chunk))
        hit = chunk_ranks(person, seen) == chosen[person]
        rows[person[hit]] = start + np.flatnonzero(hit)
        start += len(person)
    if not np.array_equal(seen, counts):
        raise ValueError("persons gave other rows in a second pass; pass a source that "
                         "gives the same chunks at every pass.")  # fmt: skip
    return rows


def count_people(persons):
    """The distinct persons of ``persons`` (an array, or a source of chunks of persons
    read once), sorted as ``numpy.unique`` sorts them, and the number of rows of each:
    memory holds the persons and one chunk."""
    chunks = as_chunks(persons)
    if chunks is None:
        keys, counts = np.unique(np.asarray(persons), return_counts=True)
        return keys, counts.astype(np.int64)
    keys = counts = None
    for chunk in chunks:
        keys, counts = merge_person_counts(keys, counts, chunk)
    if keys is None:
        raise ValueError("persons is a source of chunks without any chunk.")
    return keys, counts


def read_persons(path, person, chunksize=None):
    """The column ``person`` of the CSV file ``path`` as text, every cell a key (an empty
    cell too: no value is missing), so that its chunks agree with the whole column
    ("007" stays "007" in every chunk).  A Series, or with ``chunksize`` a
    :class:`~skprivsynth.Chunks` of arrays of that many keys."""
    options = {"usecols": [person], "dtype": str, "keep_default_na": False}
    if chunksize is None:
        return pd.read_csv(path, **options)[person]
    return Chunks.from_csv(path, chunksize, **options).map(_Column(person, str))


def with_text_keys(table, path, person, chunksize=None):
    """``table``, read from the CSV file ``path`` (a DataFrame, or with ``chunksize``
    a :class:`~skprivsynth.Chunks` of that many rows), with its column ``person``
    replaced by the same column read as text (:func:`read_persons`), so that a key
    compares alike in every chunk and in every file; ``table`` as it is when the file
    has no column ``person`` (the fit names it)."""
    if person not in pd.read_csv(path, nrows=0).columns:
        return table
    keys = read_persons(path, person, chunksize)
    if chunksize is None:
        return table.assign(**{person: keys.to_numpy()})
    return Chunks(partial(_with_keys, table, keys, person))


def _with_keys(chunks, keys, person):
    """Each chunk of ``chunks`` with its column ``person`` the chunk of ``keys``."""
    frames, columns = iter(chunks), iter(keys)
    try:
        for frame, column in zip(frames, columns, strict=True):
            yield frame.assign(**{person: column})
    finally:
        for iterator in (frames, columns):
            getattr(iterator, "close", lambda: None)()


class _Column:
    """The values of one column of a DataFrame chunk (picklable); with ``dtype=str``
    a numpy array of strings (a few bytes a key, sorted as the Python strings are)."""

    def __init__(self, name, dtype=None):
        self.name, self.dtype = name, dtype

    def __call__(self, frame):
        return frame[self.name].to_numpy(dtype=self.dtype)


def warn_per_row(estimator):
    """Warn that a fit given persons without ``max_rows_per_person`` is row-level."""
    warn_privacy_leak(
        f"{estimator} was given the person of each row but max_rows_per_person=None: its "
        "guarantee is per row, and a person with k rows is protected only at k times "
        "epsilon (group privacy). Set max_rows_per_person for a person-level guarantee.",
        stacklevel=4,
    )


class PersonTable:
    """The person-weighted table of a table of codes whose rows belong to people.

    Each person keeps their first ``max_rows`` rows in the table's order
    (:func:`~skprivsynth._math.people.bound_contributions`, applied before any
    release); the columns ``person_columns`` (declared constant within a person:
    public) take the value of the person's first row; a last column holds ``c − 1``,
    ``c = min(n_i, max_rows)`` the person's number of kept rows, and each kept row
    weighs ``1/c`` (:meth:`weights`, rounded down to a dyadic value: exact sums).
    Over the event columns the weighted table sums to the people's distribution of
    their person columns and ``c``.  Each column of
    ``lag_columns`` adds a column after it: the column's code at the person's previous
    kept row, or ``sizes[j]`` (one more code: "first row") at their first
    (:func:`~skprivsynth._math.people.previous_rows`; a person's own rows only).  Each
    column of ``mean_columns`` (numeric) adds a person column after those: the rounded
    mean of the person's kept codes of it, their level
    (:func:`~skprivsynth._math.people.person_means`).

    Parameters
    ----------
    X : ndarray of shape (n_rows, d)
        Integer codes.
    persons : array-like of shape (n_rows,)
        The person of each row.
    max_rows : int
        Most rows a person contributes (public).
    person_columns : sequence of int
        Columns constant within a person (public).
    lag_columns : sequence of int, default=()
        Columns whose value at the person's previous row is a column (public).
    mean_columns : sequence of int, default=()
        Numeric columns whose mean over the person's rows is a person column (public).
    sizes, numeric : sequence of int, optional
        The number of codes of each column, and of its numeric bins (needed with
        ``lag_columns`` and ``mean_columns``).

    Attributes
    ----------
    codes : ndarray of shape (n_kept, d + 1 + len(lag_columns) + len(mean_columns))
        The kept rows, their person columns set, ``c − 1``, the lag columns, then the
        person means.
    n_people : int
        The number of people (public under replace-one-person neighbours).
    person_columns, lag_columns, mean_columns : tuple of int
        As given.
    key_columns : tuple of int
        The columns constant within a person: ``person_columns`` and the means.
    lags : list of (int, int)
        Each lag column and the column of its value at the previous row.
    """

    def __init__(
        self, X, persons, max_rows, person_columns, lag_columns=(), sizes=None, mean_columns=(),
        numeric=None,
    ):  # fmt: skip
        persons = np.asarray(persons)
        if persons.ndim != 1 or len(persons) != len(X):
            raise ValueError(
                f"persons must give the person of each of the {len(X)} rows of X (one "
                f"value a row); got an array of shape {persons.shape}."
            )
        keep, person, first, counts = bound_contributions(persons, max_rows)
        kept = person[keep]
        codes = np.column_stack([X[keep], counts[kept] - 1]).astype(np.float64)
        columns = list(person_columns)
        codes[:, columns] = X[first[kept]][:, columns]
        if lag_columns:
            lags = list(lag_columns)
            previous = previous_rows(keep, person)
            first_row = np.asarray(sizes, dtype=np.float64)[lags]
            before = X[np.maximum(previous, 0)][:, lags]
            lagged = np.where(previous[:, None] >= 0, before, first_row)
            codes = np.column_stack([codes, lagged])
        means = [person_means(X[:, j], keep, person, numeric[j]) for j in mean_columns]
        codes = np.column_stack([codes, *means])
        self.codes, self.n_people = codes, int(len(counts))
        self.person_columns, self.lag_columns = tuple(columns), tuple(lag_columns)
        self.mean_columns = tuple(mean_columns)
        d = X.shape[1]
        self.lags = [(j, d + 1 + i) for i, j in enumerate(self.lag_columns)]
        first_mean = d + 1 + len(self.lag_columns)
        self.key_columns = (*columns, *range(first_mean, first_mean + len(self.mean_columns)))

    @staticmethod
    def weights(codes, count_column):
        """The weight ``1/c`` of each row (``c − 1`` in ``count_column``)."""
        return person_weights(codes[:, count_column] + 1)


def check_person_chunks(X, persons):
    """``persons`` as a :class:`~skprivsynth.Chunks` alongside the source of chunks
    ``X``; refused before anything is read (``ValueError`` for persons in memory,
    ``TypeError`` for a one-shot iterator of either: a person-level fit reads both
    several times)."""
    source = as_chunks(persons)
    if source is None:
        raise ValueError(
            "X is a source of chunks, so persons must be one too, its chunk i the "
            f"persons of chunk i of X (e.g. Chunks.map of the same reader); got {persons!r}."
        )
    for chunks in (X, source):
        chunks.check_reiterable("a person-level fit (of X and of persons)")
    return source


class PersonChunks:
    """The person-weighted table of :class:`PersonTable`, from a table read in chunks.

    ``X`` and ``persons`` are sources of chunks read side by side (chunk ``i`` of
    ``persons`` gives the persons of chunk ``i`` of ``X``).  A first pass over the
    persons counts each person's rows; when person columns or means are declared, a
    pass over both takes each person's first row and sums their kept codes.  The
    attribute ``codes`` is then a re-iterable :class:`~skprivsynth.Chunks` of the rows
    of :attr:`PersonTable.codes`, in the same order: each person's first
    ``max_rows`` rows (their ranks carried across chunks), weighted by their kept
    count, their lag columns read from the person's previous kept row (carried across
    chunks).  Memory holds a few values per person and one chunk, whatever the number
    of rows.  Parameters and attributes are :class:`PersonTable`'s, and ``check``
    (optional) validates each chunk of ``X`` before it is read.
    """

    def __init__(
        self, X, persons, max_rows, person_columns, lag_columns=(), sizes=None, mean_columns=(),
        numeric=None, check=None,
    ):  # fmt: skip
        self.X, self.persons = X, check_person_chunks(X, persons)
        self.max_rows, self.check = max_rows, check or np.asarray
        self.keys, counts = count_people(self.persons)
        self.counts = np.minimum(counts, max_rows)
        self.n_people = int(self.keys.size)
        self.person_columns, self.lag_columns = tuple(person_columns), tuple(lag_columns)
        self.mean_columns = tuple(mean_columns)
        self.first_row = np.asarray(sizes, dtype=np.float64)[list(self.lag_columns)]
        self.first = np.zeros((self.n_people, len(self.person_columns)))
        means = np.zeros((self.n_people, len(self.mean_columns)))
        if self.person_columns or self.mean_columns:
            cap = np.asarray([numeric[j] for j in self.mean_columns], dtype=np.float64)
            totals, numbers = np.zeros_like(means), np.zeros_like(means)
            for codes, person, rank in self._chunks():
                first = rank == 0
                self.first[person[first]] = codes[first][:, list(self.person_columns)]
                kept = rank < max_rows
                values = codes[kept][:, list(self.mean_columns)]
                numbered = values < cap  # numeric bins only (missing, other levels out)
                for i in range(len(self.mean_columns)):
                    owner = person[kept][numbered[:, i]]
                    totals[:, i] += np.bincount(owner, values[numbered[:, i], i], self.n_people)
                    numbers[:, i] += np.bincount(owner, minlength=self.n_people)
            # The rounded mean of each person's kept numeric codes (person_means).
            rounded = np.floor(totals / np.maximum(numbers, 1) + 0.5)
            means = np.where(numbers > 0, rounded, cap)
        self.means, self.codes = means, Chunks(self._weighted)
        first_chunk = self.X._peek()
        d = 0 if first_chunk is None else np.shape(first_chunk)[1]
        self.lags = [(j, d + 1 + i) for i, j in enumerate(self.lag_columns)]
        first_mean = d + 1 + len(self.lag_columns)
        self.key_columns = (
            *self.person_columns, *range(first_mean, first_mean + len(self.mean_columns))
        )

    def _chunks(self):
        """Each chunk's codes (checked), the index of each row's person and its rank
        among the person's rows in the table's order."""
        seen = np.zeros(self.n_people, dtype=np.int64)
        codes, persons = iter(self.X), iter(self.persons)
        try:
            for chunk, keys in zip(codes, persons, strict=True):
                keys = np.asarray(keys)
                chunk = self.check(np.asarray(chunk, dtype=np.float64))
                if len(keys) != len(chunk):
                    raise ValueError(
                        "a chunk of persons does not give one person a row of its chunk of "
                        "X; the two sources must be cut alike."
                    )
                person = np.searchsorted(self.keys, keys)
                yield chunk, person, chunk_ranks(person, seen)
        finally:
            for iterator in (codes, persons):
                getattr(iterator, "close", lambda: None)()

    def _weighted(self):
        """The chunks of the person-weighted table (one pass over ``X``)."""
        lags = list(self.lag_columns)
        previous = np.tile(self.first_row, (self.n_people, 1))  # "first row"
        for codes, person, rank in self._chunks():
            kept = rank < self.max_rows
            rows, owner = codes[kept], person[kept]
            table = np.column_stack([rows, self.counts[owner] - 1]).astype(np.float64)
            table[:, list(self.person_columns)] = self.first[owner]
            if lags:
                # Within the chunk, a row's previous kept row is the last earlier one of
                # the same person; the person's first row in the chunk reads ``previous``.
                order = np.argsort(owner, kind="stable")
                same = np.zeros(owner.size, dtype=bool)  # the person's earlier row here
                same[1:] = owner[order][1:] == owner[order][:-1]
                lagged = np.empty((owner.size, len(lags)))
                lagged[order[~same]] = previous[owner[order[~same]]]
                lagged[order[1:][same[1:]]] = rows[order[:-1][same[1:]]][:, lags]
                ends = np.ones(owner.size, dtype=bool)  # the person's last row here
                ends[:-1] = ~same[1:]
                previous[owner[order[ends]]] = rows[order[ends]][:, lags]
                table = np.column_stack([table, lagged])
            yield np.column_stack([table, self.means[owner]])


def check_person_columns(person_columns, n_features, names=None, parameter="person_columns"):
    """``person_columns`` (or the columns of ``parameter``) as a sorted tuple of column
    indices (public).

    A column may be given by name when ``names`` lists the columns' names (the
    encoder's output names in a :class:`~skprivsynth.SynthesisPipeline`).
    """
    if person_columns is None:
        columns = []
    elif isinstance(person_columns, str):  # one column by name
        columns = [person_columns]
    else:
        columns = list(person_columns)
    if names is not None:
        index = {str(name): j for j, name in enumerate(names)}
        unknown = [c for c in columns if isinstance(c, str) and c not in index]
        if unknown:
            raise ValueError(
                f"{parameter} names {unknown!r}, which are not among the modelled "
                f"columns {list(index)!r}."
            )
        columns = [index[c] if isinstance(c, str) else c for c in columns]
    if not all(
        isinstance(j, Integral) and not isinstance(j, bool) and 0 <= j < n_features for j in columns
    ) or len(set(columns)) != len(columns):
        raise ValueError(
            f"{parameter} must list distinct column indices 0..{n_features - 1}"
            f"{' or column names' if names is not None else ''}; got {person_columns!r}."
        )
    return tuple(sorted(int(j) for j in columns))


def sample_people(model, compression, n_people, person_columns, rng, n_features=None, lags=()):
    """Rows of ``n_people`` synthetic people from a model of the person-weighted table.

    Each person is one record of the model, decoded once: its person columns and its
    number of rows ``c`` (column ``n_features``, by default the last).  Without
    ``lags`` its rows are ``c`` records of the same compressed person columns and
    ``c`` (:func:`~skprivsynth._math.people.draw_people`).  With ``lags`` (pairs
    ``(j, p)``: column ``p`` holds column ``j``'s code at the previous row, its last
    code at the first) the rows are drawn one position at a time, each a record of
    the person's kind whose ``p`` is the code of ``j`` in the person's previous
    synthetic row (the first's: "first row"); a row whose kind has no record in the
    pools is drawn given the person's kind alone, and failing that is the person's
    own record.  Rows are decoded, with the
    person's values in its person columns.  Returns the rows' codes (the input's
    columns) and each row's synthetic person, ``0..n_people − 1``.
    """
    count = len(model.sizes) - 1 if n_features is None else n_features
    key_columns = list(person_columns) + [count]

    def keyer(columns):
        sizes = [model.sizes[j] for j in columns]
        return lambda records: np.ravel_multi_index(tuple(records[:, columns].T), sizes)

    people = model.sample(n_people, rng)
    decoded = compression.inverse_transform(people, rng)
    counts = decoded[:, count].astype(np.int64) + 1
    draw = lambda m: model.sample(m, rng)  # noqa: E731
    if not lags:
        rows, person = draw_people(
            people, counts, draw, keyer(key_columns), rng, _DRAWS_PER_ROW
        )
        rows = compression.inverse_transform(rows, rng)
    else:
        targets = [p for _, p in lags]
        by_kind, by_person = keyer(key_columns + targets), keyer(key_columns)
        person = np.repeat(np.arange(n_people), counts)
        starts = np.cumsum(counts) - counts
        rows = np.empty((int(counts.sum()), people.shape[1]), dtype=people.dtype)
        first_row = [compression.encode[p][-1] for p in targets]  # compressed "first row"
        state = np.tile(first_row, (n_people, 1))
        for t in range(int(counts.max(initial=0))):
            who = np.flatnonzero(counts > t)
            wanted = people[who].copy()
            wanted[:, targets] = state[who]
            width, dtype, draws = people.shape[1], people.dtype, _DRAWS_PER_ROW
            filled, todo = fill_slots(
                by_kind(wanted), width, dtype, draw, by_kind, rng, who.size, draws
            )
            if todo.size:  # a kind the model gives vanishing mass: the person's alone
                filled[todo], left = fill_slots(
                    by_person(wanted[todo]), width, dtype, draw, by_person, rng, todo.size, draws
                )
                filled[todo[left]] = people[who[todo[left]]]  # else the person's record
            full = compression.inverse_transform(filled, rng)
            rows[starts[who] + t] = full
            state[who] = np.column_stack(
                [compression.encode[p][full[:, j].astype(np.int64)] for j, p in lags]
            )
    rows[:, key_columns] = decoded[person][:, key_columns]
    return rows[:, :count], person


def synthesize_people(
    pipeline, frame, person, max_rows_per_person, random_state=None, *, persons=None,
    batch_size=None,
):  # fmt: skip
    """Fit ``pipeline`` person-level on ``frame`` and return its synthetic people.

    The column ``person`` names each row's person: it is left out of the fit, given to
    the synthesizer's ``fit`` as ``persons`` with ``max_rows_per_person`` set on it,
    and comes back holding the synthetic persons' keys ``0..n_people − 1``
    (:meth:`~skprivsynth.SynthesisPipeline.sample_people`).  What the command line's
    ``synthesize --person COLUMN --max-rows-per-person K`` runs.

    ``frame`` may be a :class:`~skprivsynth.Chunks` of DataFrames, for a table larger
    than memory: the fit then reads it chunk by chunk (:class:`PersonChunks`;
    ``synthesize --person ... --chunksize N``), and the synthetic people come back in
    batches of ``batch_size`` people.  With the same seed and a single batch, the
    rows are those of the fit in memory.

    Parameters
    ----------
    pipeline : SynthesisPipeline
        Ending in a person-level capable synthesizer.
    frame : DataFrame or Chunks of DataFrames
        The table, with the column ``person``.
    person : str
        The column of each row's person.
    max_rows_per_person : int
        Most rows a person contributes (public).
    random_state : None, int or numpy.random.Generator, default=None
        Seed of the draw (one stream through the batches); None continues the
        synthesizer's own stream.
    persons : array-like or Chunks, optional
        The persons to use instead of the column ``person`` (e.g. :func:`read_persons`,
        which reads the keys as text); a source of chunks alongside ``frame``'s.
    batch_size : int, optional
        People drawn at a time (default: all at once).

    Returns
    -------
    DataFrame, or an iterator of DataFrames (one a batch) when ``frame`` is a source of chunks
        The synthetic rows, each person's contiguous, the key in column ``person``.
    """
    if person is None or max_rows_per_person is None:
        raise ValueError(
            "a person-level run needs both the person column and max_rows_per_person; "
            f"got person={person!r}, max_rows_per_person={max_rows_per_person!r}."
        )
    chunks = as_chunks(frame)
    head = frame if chunks is None else chunks._peek()
    if head is None or person not in head.columns:
        raise ValueError(f"person={person!r} is not a column of the table.")
    if chunks is None:
        X, keys = frame.drop(columns=person), frame[person].to_numpy()
    else:
        X, keys = chunks.map(_Without(person)), chunks.map(_Column(person))
    name, synthesizer = pipeline.steps[-1]
    synthesizer.set_params(max_rows_per_person=max_rows_per_person)
    pipeline.fit(X, **{f"{name}__persons": keys if persons is None else persons})
    position = int(head.columns.get_loc(person))
    batches = _people_batches(pipeline, person, position, batch_size, random_state)
    if chunks is not None:
        return batches
    return next(batches) if batch_size is None else pd.concat(list(batches), ignore_index=True)


def _people_batches(pipeline, person, position, batch_size, random_state):
    """The synthetic people of a fitted person-level ``pipeline``, ``batch_size`` at a
    time, their keys in column ``person`` at ``position`` (continued across batches)."""
    n_people = pipeline[-1].n_samples_fit_
    size = batch_size or n_people
    rng = None if random_state is None else np.random.default_rng(random_state)
    for start in range(0, n_people, size):
        rows, keys = pipeline.sample_people(min(size, n_people - start), random_state=rng)
        rows.insert(position, person, keys + start)
        yield rows


class _Without:
    """A DataFrame chunk without one column (picklable)."""

    def __init__(self, name):
        self.name = name

    def __call__(self, frame):
        return frame.drop(columns=self.name)
