"""A table of people with a table of their events, under person-level DP.

One row per person (sex, birth year, region) and one row per event with the person's
key (date, diagnosis, cost): :class:`PeopleEventsSynthesizer` releases a synthetic
people table and a synthetic events table whose keys point into it, both covered by
one person-level guarantee.  The two tables are joined into one table of events, each
carrying its person's attributes (a person without events contributes one row that
says so), and fitted person-level (:mod:`skprivsynth.people`): every release is
calibrated to two pairs of tables that differ in one person, their row of the people
table and all their events.  Read more in the :ref:`User Guide <people_events>`.
"""

from __future__ import annotations

from functools import partial
from operator import itemgetter

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from .chunks import Chunks
from .domain import Domain
from .io import write_csv
from .pipeline import make_private_pipeline
from .synthesizers.marginal import MarginalSynthesizer
from .validation import role_generator

__all__ = ["PeopleEventsSynthesizer", "write_tables"]


class PeopleEventsSynthesizer(BaseEstimator):
    """Synthetic people and their events under person-level differential privacy.

    ``fit(people, events, key=...)`` joins each event to its person's attributes,
    bounds each person to their first ``max_events_per_person`` events in the events
    table's order (before any release), adds a person column saying whether the
    person has any event (a person without events contributes one row, its event
    columns missing), and fits ``synthesizer`` person-level on that table
    (:class:`~skprivsynth.people.PersonTable`: every person weighs 1, so every
    release calibrated to replace-one rows is calibrated to replace-one persons).
    ``sample`` draws synthetic people (one model record each: their attributes and
    their number of events) and each person's events given their attributes and
    number of events, and splits them into the two tables with synthetic keys
    ``0..n_people − 1``: every event's key is a person of the people table.

    The number of people (rows of ``people``) is public; the number of events, and
    any person's, is not.  A key repeated in ``people`` is one person (their first
    row); events whose key is not in ``people`` belong to no person and are left out.

    Read more in the :ref:`User Guide <people_events>`.

    Parameters
    ----------
    synthesizer : estimator or None, default=None
        A person-level capable synthesizer
        (:class:`~skprivsynth.MarginalSynthesizer`, its ε the whole run's); None:
        ``MarginalSynthesizer()`` (ε = 1).  Its ``max_rows_per_person`` and
        ``person_columns`` are set by the fit.
    domain : dict or Domain
        The public domain of every column of both tables but the key (one file for
        both, as :class:`~skprivsynth.Domain`); the bins of a declared range are
        chosen privately from one event of each person (``binning_share`` of ε, as
        in :func:`~skprivsynth.make_private_pipeline`).  An event column is declared
        missing in the joined table (a person without events); it comes back missing
        only if declared so.
    max_events_per_person : int
        The most events a person contributes (public).
    lag_columns : str, list of str or None, default=None
        Event columns whose value at the person's previous event (in the events
        table's order) is modelled with the event, so that a synthetic person's
        consecutive events keep their relation (a cost and the next visit's cost);
        the synthesizer's ``lag_columns``.
    mean_columns : str, list of str or None, default=None
        Numeric event columns whose mean over the person's events is modelled as an
        attribute of the person (their level of a repeated measure: a patient's usual
        cost), so that a synthetic person's events share a level; the synthesizer's
        ``mean_columns``.  With neither, a person's events are independent given the
        person's columns and number of events.
    binning_share, decode_share : float, default=0.25, 0.1
        Shares of the synthesizer's ε spent on the private bins of declared ranges and
        on the decoding weights, as in :func:`~skprivsynth.make_private_pipeline`.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the encoder; leave it None for a release.

    Attributes
    ----------
    pipeline_ : SynthesisPipeline
        The fitted person-level pipeline of the joined table.
    privacy_report_ : PrivacyReport
        The releases of the fit, under replace-one-person neighbours.
    people_columns_, event_columns_ : list of str
        The non-key columns of each table.
    n_people_ : int
        The number of people (public).

    Examples
    --------
    >>> import pandas as pd
    >>> from skprivsynth import MarginalSynthesizer, PeopleEventsSynthesizer
    >>> people = pd.DataFrame({"id": range(400), "sex": ["F", "M"] * 200})
    >>> events = pd.DataFrame({"id": [i // 3 for i in range(900)],
    ...                        "ward": ["A", "B", "C"] * 300})
    >>> est = PeopleEventsSynthesizer(
    ...     MarginalSynthesizer(epsilon=1.0, random_state=0),
    ...     domain={"sex": ["F", "M"], "ward": ["A", "B", "C"]}, max_events_per_person=3)
    >>> synthetic_people, synthetic_events = est.fit(people, events, key="id").sample(
    ...     random_state=0)
    >>> len(synthetic_people), synthetic_events["id"].isin(synthetic_people["id"]).all()
    (400, np.True_)
    """

    def __init__(
        self, synthesizer=None, *, domain, max_events_per_person, lag_columns=None,
        mean_columns=None, binning_share=0.25, decode_share=0.1, random_state=None,
    ):  # fmt: skip
        self.synthesizer = synthesizer
        self.domain = domain
        self.max_events_per_person = max_events_per_person
        self.lag_columns = lag_columns
        self.mean_columns = mean_columns
        self.binning_share = binning_share
        self.decode_share = decode_share
        self.random_state = random_state

    def fit(self, people, events, key):
        """Fit on a people table and its events table, joined on ``key``.

        Parameters
        ----------
        people : DataFrame
            One row per person: ``key`` and the person's attributes.
        events : DataFrame or Chunks of DataFrames
            One row per event: ``key`` (the person's) and the event's attributes, a
            person's events in the order they are kept (sort by date to keep the
            earliest).  A re-iterable :class:`~skprivsynth.Chunks` of DataFrames (e.g.
            :meth:`Chunks.from_csv(path, chunksize, domain) <skprivsynth.Chunks.from_csv>`)
            for an events table larger than memory: the fit reads it chunk by chunk at
            each of its passes, joined to ``people`` (in memory) as one table of events
            then the people without any, and releases what the fit in memory releases
            (a person's first ``max_events_per_person`` events in the chunks' order,
            across chunks); memory holds ``people``, one chunk and a few values a
            person.  The first chunk's columns and dtypes are the events' schema.
        key : str
            The key column of both tables (left out of the fit).

        Returns
        -------
        self
        """
        head = _events_schema(events)
        people_columns, event_columns = _check_tables(people, head, key)
        k = self.max_events_per_person
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
            raise ValueError(f"max_events_per_person must be an integer >= 1; got {k!r}.")
        for name in ("lag_columns", "mean_columns"):
            columns = getattr(self, name)
            columns = [columns] if isinstance(columns, str) else list(columns or [])
            if not set(columns) <= set(event_columns):
                raise ValueError(
                    f"{name} must name event columns {event_columns!r}; got {columns!r}."
                )
        has = _has_events_name(key, people_columns, event_columns)
        domain = _joined_domain(Domain(self.domain), people_columns, event_columns, has)
        # Per-person rules only: a key's first row in people; events of no person out.
        people = people.drop_duplicates(subset=key, keep="first").reset_index(drop=True)
        join = _Join(people, head, key, has, list(domain.columns))
        if isinstance(events, pd.DataFrame):
            frames, positions = zip(*join.frames([events]), strict=True)
            X, persons = pd.concat(frames, ignore_index=True), np.concatenate(positions)
        else:  # the joined table read chunk by chunk, at every pass of the fit
            joined = Chunks(partial(join.frames, events))
            X, persons = joined.map(itemgetter(0)), joined.map(itemgetter(1))
        synthesizer = clone(MarginalSynthesizer() if self.synthesizer is None else self.synthesizer)
        modelled = [c for c in [*people_columns, has] if "sum_of" not in _spec(domain, c)]
        # lag_columns / mean_columns: this estimator's, else the synthesizer's own.
        own = {"lag_columns": self.lag_columns, "mean_columns": self.mean_columns}
        synthesizer.set_params(
            max_rows_per_person=int(k), person_columns=modelled,
            **{name: value for name, value in own.items() if value is not None},
        )  # fmt: skip
        pipe = make_private_pipeline(
            synthesizer, domain, binning_share=self.binning_share,
            decode_share=self.decode_share, random_state=self.random_state,
        )  # fmt: skip
        name = pipe.steps[-1][0]
        pipe.fit(X, **{f"{name}__persons": persons})
        self.pipeline_, self.privacy_report_ = pipe, pipe.privacy_report_
        self.people_columns_, self.event_columns_ = people_columns, event_columns
        self.n_people_ = int(len(people))
        self._key, self._has = key, has
        self._dtypes = {**people.dtypes.to_dict(), **head.dtypes.to_dict()}
        del self._dtypes[key]  # synthetic keys are 0..n_people - 1
        source = Domain(self.domain)
        self._missing = {c for c in event_columns if source.missing(c)}
        return self

    def sample(self, n_people=None, random_state=None, batch_size=None):
        """Synthetic people and their events.

        Parameters
        ----------
        n_people : int, optional
            Number of synthetic people; defaults to the number of people of ``fit``.
        random_state : None, int or numpy.random.Generator, optional
            Seed of this draw; None continues the estimator's streams.
        batch_size : int, optional
            People drawn at a time, for synthetic tables larger than memory: then an
            iterator of ``(people, events)`` pairs, one a batch, the keys running on
            across batches (one stream of ``random_state`` through them); with one
            batch and a Generator, the tables drawn without ``batch_size``.

        Returns
        -------
        people : DataFrame
            One row per synthetic person: the key ``0..n_people − 1`` and the
            people columns.
        events : DataFrame
            One row per synthetic event: the key of its person and the event columns,
            each person's events contiguous.
        """
        check_is_fitted(self)
        if batch_size is None:
            return self._draw(n_people, random_state, 0, None)[:2]
        if isinstance(batch_size, bool) or not isinstance(batch_size, int | np.integer) or (
            batch_size < 1
        ):
            raise ValueError(f"batch_size must be an integer >= 1 or None; got {batch_size!r}.")
        n_people = self.n_people_ if n_people is None else n_people
        rng = None if random_state is None else np.random.default_rng(random_state)
        return self._batches(n_people, rng, int(batch_size))

    def _batches(self, n_people, rng, batch_size):
        """The ``(people, events)`` pairs of :meth:`sample` with ``batch_size``."""
        fill = None
        for start in range(0, n_people, batch_size):
            people, events, fill = self._draw(min(batch_size, n_people - start), rng, start, fill)
            yield people, events

    def _draw(self, n_people, random_state, start, fill):
        """Synthetic people keyed from ``start`` and their events, the missing cells
        filled from ``fill`` (None: the stream ``"events filling"`` of ``random_state``,
        taken after the people are drawn), and that stream."""
        rows, persons = self.pipeline_.sample_people(n_people, random_state=random_state)
        key = self._key
        _, first = np.unique(persons, return_index=True)
        people = rows.iloc[first][self.people_columns_].reset_index(drop=True)
        people.insert(0, key, start + np.arange(len(people)))
        has = rows[self._has].to_numpy(dtype=bool)
        events = rows.loc[has, self.event_columns_].reset_index(drop=True)
        events.insert(0, key, start + persons[has])
        if fill is None:
            fill = role_generator(random_state, "events filling")  # a stream of its own
        for column in self.event_columns_:
            if column not in self._missing:
                events[column] = _fill_missing(events[column], fill)
        return _as_dtypes(people, self._dtypes), _as_dtypes(events, self._dtypes), fill


def write_tables(pairs, people_path, events_path, domain=None):
    """Write the ``(people, events)`` batches of
    :meth:`~skprivsynth.PeopleEventsSynthesizer.sample` to two CSV files
    (:func:`~skprivsynth.write_csv`): the events as they come, the people (one row a
    person, in memory) once all are drawn.  Returns the numbers of people and of events
    written."""
    people = []

    def events():
        for batch_people, batch_events in pairs:
            people.append(batch_people)
            yield batch_events

    n_events = write_csv(events(), events_path, domain)
    return write_csv(pd.concat(people, ignore_index=True), people_path, domain), n_events


def _check_tables(people, events, key):
    """The people and event columns (all but ``key``), after the tables' checks."""
    for name, table in (("people", people), ("events", events)):
        if not isinstance(table, pd.DataFrame):
            raise TypeError(f"{name} must be a pandas DataFrame; got {type(table).__name__}.")
        if key not in table.columns:
            raise ValueError(
                f"key={key!r} is not a column of {name}; its columns are {list(table.columns)!r}."
            )
    people_columns = [c for c in people.columns if c != key]
    event_columns = [c for c in events.columns if c != key]
    both = sorted(set(people_columns) & set(event_columns), key=str)
    if both:
        raise ValueError(
            f"columns {both!r} are in both people and events; a column other than the key "
            "belongs to one table (rename one of them)."
        )
    if not event_columns:
        raise ValueError("events has no column but the key; give the events' attributes.")
    if len(people) == 0:  # the number of people is public
        raise ValueError("people has no row; give one row per person.")
    return people_columns, event_columns


def _events_schema(events):
    """The first rows of ``events`` (a DataFrame, or a re-iterable
    :class:`~skprivsynth.Chunks` of DataFrames): its columns and dtypes, the schema."""
    if isinstance(events, pd.DataFrame):
        return events
    if not isinstance(events, Chunks):
        raise TypeError(
            "events must be a pandas DataFrame or a skprivsynth.Chunks of DataFrames (read "
            f"several times, e.g. Chunks.from_csv(path, chunksize)); got {type(events).__name__}."
        )
    head = events._peek()
    if not isinstance(head, pd.DataFrame):
        raise TypeError(
            "events must be a pandas DataFrame or a skprivsynth.Chunks of DataFrames; its "
            f"first chunk is {type(head).__name__}."
        )
    return head


class _Join:
    """The joined table of ``people`` (one row a person) and their events, a frame of
    each chunk of events then one of the people without any, each row's person its
    position in ``people``: the one home of the join, for events in memory (one chunk)
    and in chunks.

    An event of a person of ``people`` gets the person's columns and ``has`` True (an
    event of no person is left out); a person without events gets ``has`` False and the
    event columns missing.  The event columns take the dtypes they have with a missing
    value, read from the schema ``head`` (public; the first chunk's, every chunk cast
    to them): never from the data, nor from whether anyone has no event.
    """

    def __init__(self, people, head, key, has, columns):
        self.people, self.key, self.has, self.columns = people, key, has, columns
        self.index = pd.Index(people[key])  # unique: a key's first row
        self.schema = head[[c for c in head.columns if c != key]].head(0)
        self.dtypes = self.schema.reindex([0]).dtypes.to_dict()

    def frames(self, events):
        """The ``(frame, persons)`` pairs of one pass over ``events`` (an iterable of
        DataFrames): each chunk's events in its order, then the people without events;
        memory holds one chunk and one flag a person."""
        seen = np.zeros(len(self.people), dtype=bool)
        for chunk in events:
            at = self.index.get_indexer(chunk[self.key])
            kept = at >= 0
            at = at[kept]
            seen[at] = True
            if at.size:
                rows = chunk[kept].reset_index(drop=True).astype(self.dtypes)
                person = self.people.iloc[at].reset_index(drop=True)
                frame = pd.concat([rows.drop(columns=self.key), person], axis=1)
                yield frame.assign(**{self.has: True})[self.columns], at
        alone = np.flatnonzero(~seen)
        if alone.size:
            empty = self.schema.reindex(range(alone.size)).astype(self.dtypes)
            frame = pd.concat([self.people.iloc[alone].reset_index(drop=True), empty], axis=1)
            yield frame.assign(**{self.has: False})[self.columns], alone


def _has_events_name(key, people_columns, event_columns):
    """The name of the joined person column 'has events' (not a column already)."""
    name = "has events"
    while name in {key, *people_columns, *event_columns}:
        name = f"_{name}"
    return name


def _spec(domain, column):
    """The JSON form of ``column``'s spec with its relation (a dict)."""
    spec = domain.project([column]).to_dict()[column] if column in domain else {}
    relation = domain.relations.get(column)
    spec = spec if isinstance(spec, dict) else {"levels": spec}
    return {**spec, **(relation.to_json() if relation is not None else {})}


def _joined_domain(domain, people_columns, event_columns, has):
    """The domain of the joined table: the people columns, ``has`` (boolean) and the
    event columns, each declared missing (a person without events)."""
    undeclared = [c for c in [*people_columns, *event_columns] if c not in domain]
    if undeclared:
        raise ValueError(
            f"domain must declare every column of both tables but the key; columns "
            f"{undeclared!r} are not declared."
        )
    specs = domain.to_dict()
    tables = {**dict.fromkeys(people_columns, "people"), **dict.fromkeys(event_columns, "events")}
    for column in [*people_columns, *event_columns]:
        spec = specs[column]
        read = [spec["part_of"]] if isinstance(spec, dict) and "part_of" in spec else []
        relation = domain.relations.get(column)
        read += list(relation.columns) if relation is not None else []
        other = [c for c in read if tables.get(c) != tables[column]]
        if other:
            raise ValueError(
                f"column {column!r} of {tables[column]} is declared from {other!r}, which "
                "are not in the same table; a part or a relation reads its own table."
            )
    joined = {c: specs[c] for c in people_columns}
    joined[has] = {"type": "boolean"}
    for column in event_columns:
        spec = specs[column]
        if isinstance(spec, int | list):
            spec = {"levels": list(range(spec)) if isinstance(spec, int) else spec}
        if not spec.get("missing"):
            spec = {**spec, "missing": True}
        joined[column] = spec
    return Domain(joined)


def _fill_missing(column, rng):
    """``column``'s missing cells (a synthetic person's event drawn with the 'no event'
    level) filled with values drawn from its other synthetic cells (post-processing)."""
    missing = column.isna().to_numpy()
    if not missing.any() or missing.all():
        return column
    values = column[~missing].to_numpy()
    column = column.copy()
    column[missing] = values[rng.integers(0, len(values), missing.sum())]
    return column


def _as_dtypes(frame, dtypes):
    """``frame``'s columns in the dtypes of the tables given to ``fit`` where they hold
    its values (the schema is public; a column the dtype cannot hold is left)."""
    for column in frame.columns:
        dtype = dtypes.get(column)
        if dtype is None or frame[column].dtype == dtype:
            continue
        try:
            frame[column] = frame[column].astype(dtype)
        except (TypeError, ValueError):
            pass
    return frame
