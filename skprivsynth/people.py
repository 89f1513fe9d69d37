"""One person, many rows: person-level differential privacy on one table.

A table where one person has many rows (visits, claims, person-years) is protected at
the level of a person by bounding each person's rows and weighting each kept row by
``1/c``, ``c`` the person's number of kept rows (:mod:`skprivsynth._math.people`): every
release calibrated to replace-one rows is then calibrated to replace-one persons.  The
number of people is public, the number of rows is not.  Read more in the
:ref:`User Guide <people>`.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np

from ._math.people import (
    bound_contributions,
    draw_people,
    fill_slots,
    one_row_per_person,
    person_means,
    person_weights,
    previous_rows,
)
from .privacy import warn_privacy_leak
from .validation import role_generator

__all__ = [
    "PersonTable",
    "encoder_rows",
    "check_person_columns",
    "person_relation",
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
    return one_row_per_person(np.asarray(persons), max_rows_per_person, rng)


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
    weighs ``1/c`` (:meth:`weights`).  Over the event columns the weighted table sums
    to the people's distribution of their person columns and ``c``.  Each column of
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


def synthesize_people(pipeline, frame, person, max_rows_per_person, random_state=None):
    """Fit ``pipeline`` person-level on ``frame`` and return its synthetic people.

    The column ``person`` names each row's person: it is left out of the fit, given to
    the synthesizer's ``fit`` as ``persons`` with ``max_rows_per_person`` set on it,
    and comes back holding the synthetic persons' keys ``0..n_people − 1``
    (:meth:`~skprivsynth.SynthesisPipeline.sample_people`).  What the command line's
    ``synthesize --person COLUMN --max-rows-per-person K`` runs.

    Returns
    -------
    DataFrame
        The synthetic rows, each person's contiguous, the key in column ``person``.
    """
    if person is None or max_rows_per_person is None:
        raise ValueError(
            "a person-level run needs both the person column and max_rows_per_person; "
            f"got person={person!r}, max_rows_per_person={max_rows_per_person!r}."
        )
    if person not in frame.columns:
        raise ValueError(f"person={person!r} is not a column of the table.")
    name, synthesizer = pipeline.steps[-1]
    synthesizer.set_params(max_rows_per_person=max_rows_per_person)
    persons = frame[person].to_numpy()
    pipeline.fit(frame.drop(columns=person), **{f"{name}__persons": persons})
    rows, keys = pipeline.sample_people(random_state=random_state)
    rows.insert(int(frame.columns.get_loc(person)), person, keys)
    return rows
