"""The public domain of a table: its columns with their levels or numeric bin edges.

A :class:`Domain` is what the data owner declares *before* looking at the data: for
every column, either its levels (categories, integer codes) or the edges of public
numeric bins.  Encoders, metrics and the command line read it through one parser
(:mod:`skprivsynth.kinds`), so every form accepted by one of them is accepted by all.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .kinds import (
    MAX_INTEGER_LEVELS,
    MISSING,
    Bins,
    Bound,
    DatetimePart,
    Levels,
    Range,
    Sum,
    draft_domain,
    evaluation_spec,
    kind_of,
    learned_spec,
    nullable_dtype,
    observed_levels,
    parse_columns,
    quantile_bins,
    relation_order,
)

__all__ = [
    "MAX_INTEGER_LEVELS",
    "MISSING",
    "Bins",
    "Bound",
    "DatetimePart",
    "Domain",
    "Levels",
    "Range",
    "Sum",
    "infer_domain",
    "observed_levels",
    "quantile_bins",
]


@dataclass(frozen=True, init=False, repr=False, eq=False)
class Domain(Mapping):
    """Immutable, ordered mapping of column names to their public domain.

    Each column is one of: a tuple of unordered **levels**; ``range(K)`` for integer
    codes ``0..K-1``; :class:`Levels` (levels with an order, a kind ``"integer"`` or
    ``"boolean"``, or a missing level); :class:`Bins` (public numeric bin edges); or
    :class:`Range` (a public numeric range whose bins are chosen with differential
    privacy at fit time); or :class:`DatetimePart` (a part of a datetime column, such
    as its month: a function of that column, without codes of its own).  The number
    of codes of a column, ``len(domain[column])``, is its number of levels or bins,
    the missing level included (0 for a :class:`DatetimePart`).  A numeric column may
    also declare a relation to other columns (:attr:`relations`), kept on every
    synthetic row: the sum of others (:class:`Sum`, computed from them), or at least
    or at most another (:class:`Bound`, modelled as the gap to it).

    Read more in the :ref:`User Guide <domain_file>`.

    Parameters
    ----------
    spec : dict, list or Domain
        A dict maps column names to specs; a list gives one spec per column, named
        ``0, 1, ...``.  A spec is an int ``K`` (codes ``0..K-1``), a list of levels
        (or a :class:`pandas.CategoricalDtype`, ordered or not),
        ``{"bins": [e0, ..., eB]}`` with an optional ``"clip": bool`` (see
        :class:`Bins`), ``{"levels": [...],
        "ordered": bool}``, ``{"type": "integer", "range": [lo, hi]}`` (optional
        ``"bins"``), ``{"type": "float", "range": [lo, hi]}`` (or ``"bins"``),
        ``{"type": "datetime", "range": [iso, iso], "resolution": "D" | "h" | "min" |
        "s"}`` (optional ``"bins"``: ISO strings), ``{"type": "boolean"}``,
        ``{"part_of": column, "part": "year" | "month" | "day" | "hour" | "minute" |
        "weekday" | "date"}`` (``column`` a datetime column of the domain), or a
        value of another ``Domain``.  Every dict form may add ``"missing": true`` (a
        part declares it exactly when its datetime column does); an integer, float or
        levels column may instead list the values that stand for missing,
        ``"missing": [98, 99]`` or ``["?"]``, which are then read as missing values.
        An integer, float or datetime column declared with a ``"range"`` (or
        ``"bins"``) may add one relation: ``"sum_of": [columns]`` (integer or float
        columns whose sums, from their ranges, lie in its range), ``"at_least":
        column`` or ``"at_most": column`` (a column of the same kind and resolution
        whose range leaves room: ``"at_least"`` needs its upper bound at most the
        column's, ``"at_most"`` its lower bound at least the column's); no cycle.
        :func:`skprivsynth.datasets.load_adult` ``.domain`` and the ``--domain``
        file of the command line are such dicts.

    Attributes
    ----------
    columns : tuple
        Column names, in order.
    sizes : tuple of int or None
        Number of codes (levels or bins, the missing level included) of each
        column; None for a :class:`Range` (its bins are chosen at fit time); 0 for a
        :class:`DatetimePart` (encoded through its datetime column, not on its own).
        A sum (:class:`Sum`) is coded as none (computed), a bounded column
        (:class:`Bound`) as its gap, whose bins are chosen at fit time.
    relations : dict
        Column -> its :class:`Sum` or :class:`Bound`, for the columns that declare
        one.

    See Also
    --------
    skprivsynth.preprocessing.BooleanEncoder : Encodes a table on a declared domain.

    Examples
    --------
    >>> from skprivsynth import Domain
    >>> domain = Domain({"sex": ["F", "M"], "age": 85, "income": {"bins": [0, 1e4, 1e6]}})
    >>> domain.columns, domain.sizes
    (('sex', 'age', 'income'), (2, 85, 2))
    >>> domain["sex"], domain["income"]
    (('F', 'M'), Bins(edges=(0.0, 10000.0, 1000000.0), clip=False))
    >>> domain.project(["income", "sex"])
    Domain({'income': {'bins': [0.0, 10000.0, 1000000.0]}, 'sex': ['F', 'M']})
    >>> Domain(domain.to_dict()) == domain
    True

    Kinds and missing values:

    >>> mixed = Domain({
    ...     "month": {"type": "integer", "range": [1, 12]},
    ...     "grade": {"levels": ["low", "mid", "high"], "ordered": True},
    ...     "income": {"type": "float", "range": [0, 20000], "missing": True},
    ...     "day": {"type": "datetime", "range": ["2013-01-01", "2013-12-31"],
    ...             "resolution": "D"},
    ... })
    >>> [mixed.kind(c) for c in mixed], [mixed.missing(c) for c in mixed]
    (['integer', 'categorical', 'float', 'datetime'], [False, False, True, False])
    >>> mixed.sizes
    (12, 3, None, None)
    >>> mixed.to_dict()["day"]
    {'type': 'datetime', 'range': ['2013-01-01', '2013-12-31'], 'resolution': 'D'}

    Parts of a datetime column (computed from it, no codes of their own):

    >>> flights = Domain({
    ...     "time_hour": {"type": "datetime", "range": ["2013-01-01", "2013-12-31T23:00"],
    ...                   "resolution": "h"},
    ...     "month": {"part_of": "time_hour", "part": "month"},
    ... })
    >>> flights["month"], flights.kind("month"), flights.sizes
    (DatetimePart(of='time_hour', part='month', missing=False), 'integer', (None, 0))

    Relations between columns (kept on every synthetic row):

    >>> stays = Domain({
    ...     "admitted": {"type": "datetime", "range": ["2024-01-01", "2024-12-31"],
    ...                  "resolution": "D"},
    ...     "discharged": {"type": "datetime", "range": ["2024-01-01", "2025-03-31"],
    ...                    "resolution": "D", "at_least": "admitted"},
    ...     "care": {"type": "float", "range": [0, 5000], "decimals": 2},
    ...     "drugs": {"type": "float", "range": [0, 1000], "decimals": 2},
    ...     "cost": {"type": "float", "range": [0, 6000], "decimals": 2,
    ...              "sum_of": ["care", "drugs"]},
    ... })
    >>> stays.relations
    {'discharged': Bound(of='admitted', side='at_least'), 'cost': Sum(of=('care', 'drugs'))}
    >>> stays.to_dict()["cost"]["sum_of"], stays.kind("discharged")
    (['care', 'drugs'], 'datetime')
    """

    _specs: tuple
    _relations: tuple

    def __init__(self, spec):
        _set(self, *_parse(spec, "domain"))

    @classmethod
    def from_json(cls, path):
        """Read a domain file: a JSON object column -> spec.

        Parameters
        ----------
        path : str or path-like

        Returns
        -------
        Domain
        """
        with open(path) as handle:
            try:
                spec = json.load(handle)
            except json.JSONDecodeError as exc:
                raise ValueError(f"domain file {str(path)!r} is not valid JSON: {exc}") from exc
        if not isinstance(spec, dict):
            raise ValueError(
                f"domain file {str(path)!r} must hold a JSON object column -> spec; "
                f"got a {type(spec).__name__}."
            )
        try:
            return cls(spec)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"domain file {str(path)!r}: {exc}") from exc

    @property
    def columns(self):
        return tuple(name for name, _ in self._specs)

    @property
    def relations(self):
        """The declared relations: column -> its :class:`Sum` or :class:`Bound`."""
        return dict(self._relations)

    @property
    def sizes(self):
        return tuple(kind_of(spec).size for _, spec in self._specs)

    def kind(self, column):
        """The kind of ``column``: ``"categorical"``, ``"integer"``, ``"float"``,
        ``"datetime"`` or ``"boolean"`` (integer codes ``K`` are ``"integer"``; a
        :class:`DatetimePart` is ``"datetime"`` for its ``"date"``, else
        ``"integer"``).

        Parameters
        ----------
        column : column name

        Returns
        -------
        str
        """
        return kind_of(self[column]).name

    def missing(self, column):
        """Whether ``column`` declares missing values as its last code.

        Parameters
        ----------
        column : column name

        Returns
        -------
        bool
        """
        return kind_of(self[column]).missing

    def missing_codes(self, column):
        """The values of ``column`` that stand for a missing value (``"missing": [98,
        99]``), read as missing wherever the column is read; ``()`` when none.

        Parameters
        ----------
        column : column name

        Returns
        -------
        tuple
        """
        return kind_of(self[column]).missing_codes

    def ordered(self, column):
        """Whether the codes of ``column`` are ordered (every kind but unordered
        categorical levels).

        Parameters
        ----------
        column : column name

        Returns
        -------
        bool
        """
        return kind_of(self[column]).ordered

    def project(self, columns):
        """The domain of ``columns`` only, in the order given.

        Parameters
        ----------
        columns : column name or iterable of column names

        Returns
        -------
        Domain
        """
        if isinstance(columns, str) or not hasattr(columns, "__iter__"):
            columns = [columns]
        columns = list(columns)
        missing = [c for c in columns if c not in self]
        if missing:
            raise ValueError(
                f"columns {missing!r} are not in the domain; its columns are {list(self)!r}."
            )
        relations = self.relations
        kept = {
            c: {**kind_of(self[c]).to_json(), **relations[c].to_json()}
            for c in columns
            if c in relations and set(relations[c].columns) <= set(columns)
        }
        return Domain({c: kept.get(c, self[c]) for c in columns})

    def labels(self, column):
        """A text label for each code of ``column``, the missing level last.

        Levels as text, ``"[lo, hi)"`` for a bin (``"[lo, hi]"`` for the last one;
        ISO text for datetimes) and ``"<missing>"`` for the missing level.

        Parameters
        ----------
        column : column name

        Returns
        -------
        list of str
            ``len(domain[column])`` labels (a :class:`Range` has none before the fit;
            a :class:`DatetimePart`, without codes of its own, has none: ``[]``).

        Examples
        --------
        >>> from skprivsynth import Domain
        >>> Domain({"x": {"bins": [0, 1.5, 10], "missing": True}}).labels("x")
        ['[0, 1.5)', '[1.5, 10]', '<missing>']
        """
        return kind_of(self[column]).labels()

    def read_csv_options(self):
        """Keyword arguments of :func:`pandas.read_csv` that read each declared column as
        its kind.

        A column of string levels is read as text (a level ``"NA"``, ``"null"`` or
        ``"01"`` stays that string) where only an empty cell is missing; numeric,
        datetime and boolean columns also read pandas' usual missing markers (``"NA"``,
        ``"N/A"``, ``"null"``, ...) and ``"?"`` as missing.  Datetime columns stay
        text (ISO 8601 or their declared ``"format"``), which the encoder reads.  Columns
        not declared get no missing marker.

        Returns
        -------
        dict
            ``keep_default_na``, ``na_values`` and ``dtype``, e.g. for
            ``pandas.read_csv(path, **domain.read_csv_options())`` or
            :meth:`Chunks.from_csv <skprivsynth.Chunks.from_csv>`.

        Examples
        --------
        >>> import io, pandas as pd
        >>> from skprivsynth import Domain
        >>> domain = Domain({"answer": {"levels": ["NA", "yes"], "missing": True},
        ...                  "n": {"type": "integer", "range": [0, 5], "missing": True}})
        >>> pd.read_csv(io.StringIO("answer,n\\nNA,NA\\n,3\\n"), **domain.read_csv_options())
          answer    n
        0     NA  NaN
        1    NaN  3.0
        """
        na_values, dtype = {}, {}
        for name, spec in self._specs:
            kind = kind_of(spec)
            na_values[name] = kind.csv_na_values()
            if kind.csv_dtype() is not None:
                dtype[name] = kind.csv_dtype()
        return {"keep_default_na": False, "na_values": na_values, "dtype": dtype}

    def to_dict(self):
        """The domain as a JSON-ready dict of specs (``Domain(d.to_dict()) == d``).

        Returns
        -------
        dict
            Column -> int ``K``, list of levels, or a dict in the forms of the
            parameter ``spec`` (datetimes as ISO strings), with its relation.
        """
        relations = self.relations
        out = {}
        for name, spec in self._specs:
            out[name] = kind_of(spec).to_json()
            if name in relations:
                out[name] = {**out[name], **relations[name].to_json()}
        return out

    def __getitem__(self, column):
        for name, spec in self._specs:
            if name == column:
                return spec
        raise KeyError(column)

    def __iter__(self):
        return iter(self.columns)

    def __len__(self):
        return len(self._specs)

    def __eq__(self, other):
        if not isinstance(other, Domain):
            return NotImplemented
        return self._specs == other._specs and self._relations == other._relations

    def __hash__(self):
        return hash((self._specs, self._relations))

    def __repr__(self):
        return f"Domain({self.to_dict()!r})"


def as_domain(spec, name="domain"):
    """``spec`` as a :class:`Domain`; parse errors name the parameter ``name``.

    Parameters
    ----------
    spec : dict, list or Domain
        As for :class:`Domain`.
    name : str, default="domain"
        The parameter named by errors.

    Returns
    -------
    Domain
    """
    if isinstance(spec, Domain):
        return spec
    domain = object.__new__(Domain)
    _set(domain, *_parse(spec, name))
    return domain


def fitted_domain(items, relations=()):
    """A :class:`Domain` of already parsed ``(column, spec)`` pairs (and ``(column,
    relation)`` pairs), not validated again (a fitted encoder's: a learned constant
    column has the bins ``(c, c)``)."""
    domain = object.__new__(Domain)
    _set(domain, tuple(items), tuple(relations))
    return domain


def _set(domain, specs, relations):
    object.__setattr__(domain, "_specs", specs)
    object.__setattr__(domain, "_relations", relations)


def coded_domain(domain):
    """The specs the columns of ``domain`` are coded by: a column bounded by another
    (:class:`Bound`) as its gap, a sum (:class:`Sum`, computed) left out.

    Parameters
    ----------
    domain : Domain

    Returns
    -------
    Domain
    """
    relations = domain.relations
    return fitted_domain(
        (c, relations[c].gap_spec() if c in relations else spec)
        for c, spec in domain.items()
        if not (c in relations and relations[c].computed)
    )


def relation_gaps(frame, relations):
    """``frame`` with each column bounded by another (``relations``: column -> its
    :class:`Sum` or :class:`Bound`) replaced by its gap to it, as a float number (NaN:
    missing), each sum by the sum of its parts first (a sum's own values are never
    read); ``frame`` itself when there is no relation.  A gap is clipped to its public
    range: a row that breaks the relation reads as one on its bound."""
    relations = {c: r for c, r in relations.items() if c in frame}
    if not relations:
        return frame
    frame = frame.copy()
    for column in relation_order(relations):  # the sums, as they are decoded
        if relations[column].computed:
            frame[column] = relations[column].values(frame)
    values = frame.copy()
    for column, relation in relations.items():
        if not relation.computed:
            frame[column] = relation.gaps(values[column], values[relation.of])
    return frame


def with_relations(decoded, relations, dtypes):
    """``decoded`` (column -> Series, the gap of a bounded column) with every column of
    ``relations`` computed in the order they read each other: a sum from its decoded
    parts, a bounded column from its decoded gap and bound, as ``dtypes[column]``."""
    for column in relation_order(relations):
        relation = relations[column]
        if relation.computed:
            numbers = relation.values(decoded)
        else:
            gaps = decoded[column].to_numpy(dtype=np.float64, na_value=np.nan)
            numbers = relation.values(gaps, decoded[relation.of])
        decoded[column] = kind_of(relation.spec).from_numbers(numbers, dtypes[column])
    return decoded


def value_domain(domain):
    """``domain`` with every :class:`DatetimePart` replaced by the spec of the values it
    can take (read from the declaration), for comparing it as a column of its own.

    Parameters
    ----------
    domain : Domain

    Returns
    -------
    Domain
    """
    return fitted_domain((c, kind_of(s).values_spec(domain)) for c, s in domain.items())


def infer_domain(frame, rule="draft", *, n_bins=10, max_levels=20):
    """The domain of ``frame`` read from its values, by one of the package's rules.

    Every door that reads a column without a declaration reads it by one of these:

    * ``"draft"``: the domain a user would declare (:func:`~skprivsynth.draft_domain`:
      levels, integer, float and date ranges, missing values, parts of a date), to
      review; columns it leaves out (identifier-like, unreadable dates) are left out.
    * ``"learned"``: what :class:`~skprivsynth.preprocessing.BooleanEncoder` learns
      for an undeclared column: the levels of a bool or categorical dtype, ``n_bins``
      quantile bins of floats, the observed levels of anything else.
    * ``"evaluation"``: what :func:`~skprivsynth.metrics.evaluation_domain` compares
      an undeclared column in: ``n_bins`` quantile bins of a column of numbers or
      datetimes with more than ``max_levels`` distinct values, else its levels.

    The result is read from private values: never a release's declaration (the draft
    warns :class:`~skprivsynth.PrivacyLeakWarning`).

    Parameters
    ----------
    frame : pandas.DataFrame
    rule : {"draft", "learned", "evaluation"}, default="draft"
    n_bins : int, default=10
        Quantile bins of the ``"learned"`` and ``"evaluation"`` rules.
    max_levels : int, default=20
        Largest number of distinct values a column of numbers is compared level by
        level in (``"evaluation"``).

    Returns
    -------
    Domain

    Examples
    --------
    >>> import pandas as pd, warnings
    >>> from skprivsynth.domain import infer_domain
    >>> frame = pd.DataFrame({"day": ["2024-01-01", "2024-03-05"], "n": [1, 2]})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     infer_domain(frame).kind("day")
    'datetime'
    >>> infer_domain(frame, rule="evaluation")["n"]
    (1, 2)
    """
    if rule not in ("draft", "learned", "evaluation"):
        raise ValueError(f"rule must be 'draft', 'learned' or 'evaluation'; got {rule!r}.")
    if rule == "draft":
        return Domain(draft_domain(frame)[0])
    if rule == "learned":  # a constant float column has the bins (c, c): not validated
        return fitted_domain((c, learned_spec(frame[c], n_bins)[0]) for c in frame.columns)
    return Domain({c: evaluation_spec(frame[c], n_bins, max_levels)[0] for c in frame.columns})


def ranged_columns(categories):
    """The columns that ``categories`` (a
    :class:`~skprivsynth.preprocessing.BooleanEncoder` ``categories``: a domain, a
    dict or a list of specs) declares with a range and no bins, whose bins are released
    at fit (public)."""
    if isinstance(categories, str):
        return []
    items = categories.items() if isinstance(categories, dict | Domain) else enumerate(categories)
    ranged = []
    for label, spec in items:
        if kind_of(spec).bins_at_fit or (
            isinstance(spec, dict) and "range" in spec and "bins" not in spec
        ):
            try:
                parsed = as_domain({label: spec}, "categories")[label]
            except (TypeError, ValueError):
                continue  # the encoder's fit names the error
            if kind_of(parsed).bins_at_fit:
                ranged.append(label)
    return ranged


def codes_as_missing(frame, domain):
    """``frame`` with the cells its columns' specs in ``domain`` declare as codes for
    missing set missing, in a dtype that holds a missing value (``Int64`` for
    ``int64``); ``frame`` itself when none occurs."""
    hits = {c: kind_of(domain[c]).is_missing_code(frame[c]) for c in domain if c in frame}
    hits = {column: hit for column, hit in hits.items() if hit.any()}
    if not hits:
        return frame
    frame = frame.copy()
    for column, hit in hits.items():
        frame[column] = frame[column].astype(nullable_dtype(frame[column].dtype)).mask(hit)
    return frame


def _parse(spec, name):
    """``(((column, spec), ...), ((column, relation), ...))`` from a dict or list of
    specs."""
    if isinstance(spec, Domain):
        return spec._specs, spec._relations
    if isinstance(spec, Mapping):
        items = list(spec.items())
    elif isinstance(spec, list | tuple):
        items = list(enumerate(spec))
    else:
        raise TypeError(
            f"{name} must be a dict column -> spec, a list of specs or a Domain; got {spec!r}."
        )
    return parse_columns(items, name)
