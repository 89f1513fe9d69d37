"""The public domain of a table: its columns with their levels or numeric bin edges.

A :class:`Domain` is what the data owner declares *before* looking at the data: for
every column, either its levels (categories, integer codes) or the edges of public
numeric bins.  Encoders, metrics and the command line read it through one parser, so
every form accepted by one of them is accepted by all.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Set
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import pandas as pd

__all__ = [
    "MAX_INTEGER_LEVELS",
    "MISSING",
    "Bins",
    "DatetimePart",
    "Domain",
    "Levels",
    "Range",
    "observed_levels",
    "quantile_bins",
]

#: Largest number of integers ``hi - lo + 1`` of a ``{"type": "integer", "range": [lo,
#: hi]}`` column declared without bins that becomes one level per integer; a wider
#: range is binned (declared ``"bins"``, or bins chosen with differential privacy).
MAX_INTEGER_LEVELS = 64

#: Seconds of each datetime ``"resolution"``: decoded datetimes are rounded down to it.
RESOLUTIONS = {"D": 86400, "h": 3600, "min": 60, "s": 1}

#: The parts of a datetime that a ``{"part_of": column, "part": part}`` column may be:
#: integers as pandas' ``Series.dt`` gives them (``"weekday"``: Monday = 0), and the
#: calendar ``"date"`` (the datetime at midnight).
DATETIME_PARTS = ("year", "month", "day", "hour", "minute", "weekday", "date")

#: What pandas reads as missing by default (pandas.read_csv, ``na_values``).
_NA_MARKERS = (
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
    "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)  # fmt: skip

_ACCEPTED = (
    "an int K (codes 0..K-1), a list of levels, a pandas.CategoricalDtype, "
    "{'bins': [e0, ..., eB], 'clip': bool}, {'levels': [...], 'ordered': bool} or "
    "{'type': 'integer' | 'float' | 'datetime' | 'boolean', ...} or "
    "{'part_of': datetime column, 'part': ...}"
)


class _Missing:
    """The missing level of a column declared with ``"missing": true`` (a singleton)."""

    def __repr__(self):
        return "MISSING"

    def __str__(self):
        return "<missing>"

    def __reduce__(self):
        return "MISSING"


#: The last level of a column declared with ``"missing": true``: iterating over its
#: :class:`Levels` gives the levels, then ``MISSING`` (the code of NaN, None, NaT, pd.NA).
MISSING = _Missing()


@dataclass(frozen=True, repr=False)
class Bins:
    """Public numeric bins ``[e_k, e_{k+1})`` of a column (the last bin is closed).

    Parameters
    ----------
    edges : tuple of float
        Strictly increasing, finite, at least two (seconds since 1970-01-01 for a
        datetime column).
    clip : bool, default=False
        Whether values outside ``[e_0, e_B]`` fall in the end bins (else they are
        outside the domain).
    kind : {"float", "integer", "datetime"}, default="float"
        ``"integer"`` and ``"datetime"`` columns decode to integers (to multiples of
        the resolution) inside ``[e_0, e_B]``.  A fractional value of an integer
        column (of any spec) is read as its integer part, rounded down.
    resolution : {"D", "h", "min", "s"} or None, default=None
        Datetime columns only (``"s"`` when not given): decoded values are rounded
        down to it.
    missing : bool, default=False
        Whether missing values are one more code, after the bins.
    decimals : int or None, default=None
        Float columns only: decoded values are rounded to this many decimals (prices
        in cents: 2; a length of stay in tenths of a day: 1).  Where a range's fine
        cells hold 2 values of this precision or more, the values that recur on many
        rows are released on their own and come back exactly (user guide, "Values
        that recur: grid points").
    missing_codes : tuple of float, default=()
        Values that stand for a missing value (a survey's 98 "don't know", 99 "no
        answer"): read as missing (``missing`` is then true), never as numbers.
    """

    edges: tuple[float, ...]
    clip: bool = False
    kind: str = "float"
    resolution: str | None = None
    missing: bool = False
    decimals: int | None = None
    missing_codes: tuple = ()

    def __len__(self):
        """Number of codes: the bins ``B``, plus one when missing is declared."""
        return len(self.edges) - 1 + self.missing

    def __repr__(self):
        extra = "".join(
            f", {name}={getattr(self, name)!r}"
            for name, default in (
                ("kind", "float"),
                ("resolution", None),
                ("missing", False),
                ("decimals", None),
                ("missing_codes", ()),
            )
            if getattr(self, name) != default
        )
        return f"Bins(edges={self.edges!r}, clip={self.clip!r}{extra})"


@dataclass(frozen=True)
class Range:
    """A public numeric range ``[lo, hi]`` whose bins are chosen at fit time.

    The bins are released with differential privacy by
    :class:`~skprivsynth.preprocessing.BooleanEncoder` (its ``binning_epsilon``), so
    the number of codes is not known before the fit: ``len`` raises ``TypeError``.

    Parameters
    ----------
    lo, hi : float
        The bounds, ``lo <= hi`` (seconds since 1970-01-01 for a datetime column;
        both included for integer and datetime columns).
    kind : {"float", "integer", "datetime"}, default="float"
    resolution : {"D", "h", "min", "s"} or None, default=None
        Datetime columns only.
    clip : bool, default=False
        Whether values outside ``[lo, hi]`` are moved to the nearest bound (else
        they are outside the domain).
    missing : bool, default=False
        Whether missing values are one more code, after the bins.
    decimals : int or None, default=None
        Float columns only: decoded values are rounded to this many decimals.
    missing_codes : tuple of float, default=()
        Values that stand for a missing value, as for :class:`Bins`.
    """

    lo: float
    hi: float
    kind: str = "float"
    resolution: str | None = None
    clip: bool = False
    missing: bool = False
    decimals: int | None = None
    missing_codes: tuple = ()

    def __len__(self):
        raise TypeError(
            "a Range has no number of codes before the fit: its bins are chosen with "
            "differential privacy by BooleanEncoder.fit (see its domain_)."
        )


@dataclass(frozen=True)
class DatetimePart:
    """A column that is a part of a datetime column of the same domain (its year, month
    ...), declared ``{"part_of": column, "part": part}``.

    It is a deterministic, public function of that column, so it has no codes of its
    own (``len`` is 0): encoders leave it out (no model and no budget are spent on it)
    and compute it from the decoded datetime, so the two always agree
    (:class:`~skprivsynth.preprocessing.BooleanEncoder` ``datetime_parts="modelled"``
    models it as the levels it can take instead, and still decodes it from the
    datetime).  Read more in the :ref:`User Guide <domain_file>`.

    Parameters
    ----------
    of : column name
        The datetime column (a datetime kind of the same domain, not itself a part).
    part : {"year", "month", "day", "hour", "minute", "weekday", "date"}
        As pandas' ``Series.dt`` gives it (``"weekday"``: Monday = 0); ``"date"`` is
        the calendar date, the datetime at midnight.
    missing : bool, default=False
        Must be that of the datetime column: the part is missing where it is.
    """

    of: object
    part: str
    missing: bool = False

    @property
    def kind(self):
        """``"datetime"`` for the date, ``"integer"`` for the other parts."""
        return "datetime" if self.part == "date" else "integer"

    def __len__(self):
        """No codes of its own: 0."""
        return 0

    def __iter__(self):
        return iter(())


@dataclass(frozen=True)
class Levels:
    """Levels of a column with a declared order, kind or missing level.

    Plain unordered levels without missing values are a tuple; integer codes
    ``0..K-1`` are ``range(K)``.

    Parameters
    ----------
    levels : tuple
        The levels, in the order of the codes.
    ordered : bool, default=False
        Whether the order is meaningful (kept in the output dtype and reports).
        Integer and boolean levels are ordered.
    kind : {"categorical", "integer", "boolean"}, default="categorical"
        ``"integer"``: the consecutive integers of a ``{"type": "integer"}`` range;
        ``"boolean"``: ``(False, True)``.
    missing : bool, default=False
        Whether missing values are one more level, :data:`MISSING`, the last.
    missing_codes : tuple, default=()
        Values that stand for a missing value, as for :class:`Bins` (``"?"`` or
        ``"unknown"`` beside categorical levels, 98 beside integer ones).
    """

    levels: tuple
    ordered: bool = False
    kind: str = "categorical"
    missing: bool = False
    missing_codes: tuple = ()

    def __len__(self):
        """Number of codes: the levels, plus one when missing is declared."""
        return len(self.levels) + self.missing

    def __iter__(self):
        yield from self.levels
        if self.missing:
            yield MISSING

    def __getitem__(self, index):
        return tuple(self)[index]


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
    the missing level included (0 for a :class:`DatetimePart`).

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
    """

    _specs: tuple

    def __init__(self, spec):
        object.__setattr__(self, "_specs", _parse_domain(spec, "domain"))

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
    def sizes(self):
        return tuple(None if isinstance(spec, Range) else len(spec) for _, spec in self._specs)

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
        return _kind(self[column])

    def missing(self, column):
        """Whether ``column`` declares missing values as its last code.

        Parameters
        ----------
        column : column name

        Returns
        -------
        bool
        """
        return bool(getattr(self[column], "missing", False))

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
        return getattr(self[column], "missing_codes", ())

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
        spec = self[column]
        return not isinstance(spec, tuple) and getattr(spec, "ordered", True)

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
        return Domain({c: self[c] for c in columns})

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
        return _labels(self[column])

    def read_csv_options(self):
        """Keyword arguments of :func:`pandas.read_csv` that read each declared column as
        its kind.

        A column of string levels is read as text (a level ``"NA"``, ``"null"`` or
        ``"01"`` stays that string) where only an empty cell is missing; numeric,
        datetime and boolean columns also read pandas' usual missing markers (``"NA"``,
        ``"N/A"``, ``"null"``, ...) and ``"?"`` as missing.  Datetime columns stay ISO
        text, which the encoder reads.  Columns not declared get no missing marker.

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
            if _kind(spec) == "categorical":
                na_values[name] = [""]
                if all(isinstance(v, str) for v in getattr(spec, "levels", spec)):
                    dtype[name] = str
            else:  # and the "?" of UCI files, never a number or a date
                na_values[name] = [*_NA_MARKERS, "?"]
        return {"keep_default_na": False, "na_values": na_values, "dtype": dtype}

    def to_dict(self):
        """The domain as a JSON-ready dict of specs (``Domain(d.to_dict()) == d``).

        Returns
        -------
        dict
            Column -> int ``K``, list of levels, or a dict in the forms of the
            parameter ``spec`` (datetimes as ISO strings).
        """
        return {name: _to_spec(spec) for name, spec in self._specs}

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
        return self._specs == other._specs

    def __hash__(self):
        return hash(self._specs)

    def __repr__(self):
        return f"Domain({self.to_dict()!r})"


def _is_missing_code(values, spec):
    """Boolean mask of the ``values`` of a column that are among the codes its ``spec``
    declares for missing (``"missing": [98, 99]``): for a numeric column, by number
    (the text ``"98.0"`` too); for levels, by value or text."""
    values = pd.Series(values, copy=False)
    codes = getattr(spec, "missing_codes", ())
    if not codes:
        return np.zeros(len(values), dtype=bool)
    if _kind(spec) != "categorical":
        return np.isin(_numbers(values, spec), codes)
    return (values.isin(codes) | values.astype(str).isin({str(c) for c in codes})).to_numpy()


def codes_as_missing(frame, domain):
    """``frame`` with the cells its columns' specs in ``domain`` declare as codes for
    missing set missing, in a dtype that holds a missing value (``Int64`` for
    ``int64``); ``frame`` itself when none occurs."""
    hits = {c: _is_missing_code(frame[c], domain[c]) for c in domain if c in frame}
    hits = {column: hit for column, hit in hits.items() if hit.any()}
    if not hits:
        return frame
    frame = frame.copy()
    for column, hit in hits.items():
        frame[column] = frame[column].astype(_nullable(frame[column].dtype)).mask(hit)
    return frame


def _nullable(dtype):
    """The pandas dtype of ``dtype`` that holds a missing value."""
    if pd.api.types.is_bool_dtype(dtype):
        return pd.BooleanDtype()
    if pd.api.types.is_integer_dtype(dtype) and isinstance(dtype, np.dtype):
        return pd.api.types.pandas_dtype(
            f"{'U' if dtype.kind == 'u' else ''}Int{dtype.itemsize * 8}"
        )
    return dtype


def observed_levels(values):
    """The distinct values of a column, sorted when they can be compared.

    The one rule for the levels of a column read from data: the learned domain of
    :class:`~skprivsynth.preprocessing.BooleanEncoder`, the columns
    :func:`~skprivsynth.metrics.evaluation_domain` does not bin and the draft of the
    ``skprivsynth domain`` command.

    Parameters
    ----------
    values : pandas.Series or 1-D numpy.ndarray
        The values of one column; a missing value, if any, is one of the levels.

    Returns
    -------
    list
        The distinct values, sorted, or in order of first appearance when they cannot
        be sorted (e.g. numbers and strings mixed).

    Examples
    --------
    >>> import pandas as pd
    >>> from skprivsynth.domain import observed_levels
    >>> observed_levels(pd.Series(["b", "a", "b"]))
    ['a', 'b']
    >>> observed_levels(pd.Series(["b", 1, "b"]))
    ['b', 1]
    """
    levels = pd.unique(values)
    try:
        return sorted(levels)
    except TypeError:
        return list(levels)


def quantile_bins(values, n_bins):
    """Bins at the ``n_bins``-quantiles of ``values``, edges rounded to the fewest
    significant digits that keep them distinct; values beyond fall in the end bins.

    A value holding more than one quantile (a point mass, such as the zeros of an
    income column) gets a bin of its own: an edge is added at the next larger value.
    The one rule for bins read from data: the learned domain of
    :class:`~skprivsynth.preprocessing.BooleanEncoder` and the bins of
    :func:`~skprivsynth.metrics.evaluation_domain`.  The edges come from the values:
    not for a private release.

    Parameters
    ----------
    values : 1-D array of float
        The values, without missing ones.
    n_bins : int
        Number of quantile bins (fewer when quantiles coincide).

    Returns
    -------
    Bins

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.domain import quantile_bins
    >>> quantile_bins(np.r_[np.zeros(8), np.arange(1, 9)], 4).edges  # zeros: a bin of their own
    (0.0, 0.5, 1.0, 4.2, 8.0)
    """
    values = np.asarray(values, dtype=np.float64)
    levels = np.linspace(0.0, 1.0, n_bins + 1)
    with np.errstate(over="ignore", invalid="ignore"):
        quantiles = np.quantile(values, levels)
    if not np.all(np.isfinite(quantiles)):  # interpolation overflowed (values near ±1e308)
        quantiles = np.quantile(values, levels, method="inverted_cdf")
    raw, counts = np.unique(quantiles, return_counts=True)
    distinct = np.unique(values)
    after = np.searchsorted(distinct, raw[counts > 1], side="right")
    raw = np.union1d(raw, distinct[after[after < distinct.size]])
    for digits in range(2, 17):
        edges = np.unique([float(f"{edge:.{digits}g}") for edge in raw])
        if edges.size == raw.size:  # rounding is monotone: distinct means increasing
            break
    if edges.size == 1:  # a constant column: one bin holding its value
        edges = np.repeat(edges, 2)
    return Bins(tuple(edges.tolist()), clip=True)


def _as_domain(spec, name):
    """``spec`` as a :class:`Domain`; parse errors name the parameter ``name``."""
    if isinstance(spec, Domain):
        return spec
    domain = object.__new__(Domain)
    object.__setattr__(domain, "_specs", _parse_domain(spec, name))
    return domain


def _fitted_domain(items):
    """A :class:`Domain` of already parsed ``(column, spec)`` pairs, unvalidated (a
    fitted encoder's: a learned constant column has the bins ``(c, c)``)."""
    domain = object.__new__(Domain)
    object.__setattr__(domain, "_specs", tuple(items))
    return domain


def _labels(spec):
    """Text label of each code of a parsed column spec."""
    if isinstance(spec, Range):
        raise TypeError("a Range has no codes before its bins are chosen at fit time.")
    if not isinstance(spec, Bins):
        return [str(level) for level in spec]
    show = _iso if spec.kind == "datetime" else "{:g}".format
    e = [show(x) for x in spec.edges]
    last = len(e) - 2
    labels = [f"[{e[k]}, {e[k + 1]}{']' if k == last else ')'}" for k in range(last + 1)]
    return labels + [str(MISSING)] * spec.missing


#: The values of the integer parts of a datetime (a year's are those of its range).
_PART_VALUES = {"month": (1, 12), "day": (1, 31), "hour": (0, 23), "minute": (0, 59),
                "weekday": (0, 6)}  # fmt: skip


def _part_values(spec, of):
    """The parsed spec of the values that the part ``spec`` of the datetime spec ``of``
    can take, read from the declaration only: its integers (the years of the range),
    or the dates of the range.  For comparing a part as a column of its own."""
    lo, hi = (of.lo, of.hi) if isinstance(of, Range) else (of.edges[0], of.edges[-1])
    missing = {"missing": True} if spec.missing else {}
    if spec.part == "date":
        first, last = (np.floor(x / 86400) * 86400 for x in (lo, hi))
        days = [first, last] if first < last else [first, first + 86400]  # one day: one bin
        key = "range" if first < last else "bins"
        dates = {"type": "datetime", key: [_iso(d) for d in days], "resolution": "D"}
        return _parse_column({**dates, **missing}, "part")
    if spec.part == "year":
        bounds = [pd.Timestamp(x, unit="s").year for x in (lo, hi)]
    else:
        bounds = list(_PART_VALUES[spec.part])
    return _parse_column({"type": "integer", "range": bounds, **missing}, "part")


def _values_domain(domain):
    """``domain`` with every :class:`DatetimePart` replaced by the spec of its values
    (:func:`_part_values`), for metrics that compare it as a column of its own."""
    return _fitted_domain(
        (c, _part_values(s, domain[s.of]) if isinstance(s, DatetimePart) else s)
        for c, s in domain.items()
    )


def _kind(spec):
    if isinstance(spec, Levels | Bins | Range | DatetimePart):
        return spec.kind
    return "integer" if isinstance(spec, range) else "categorical"


def _to_spec(spec):
    """The JSON-ready form of a parsed column spec."""
    if isinstance(spec, range):
        return len(spec)
    if isinstance(spec, tuple):
        return list(spec)
    missing = {"missing": True} if spec.missing else {}
    if getattr(spec, "missing_codes", ()):
        codes = spec.missing_codes
        missing = {"missing": [_integer(v) if isinstance(v, float) else v for v in codes]}
    if isinstance(spec, DatetimePart):
        return {"part_of": spec.of, "part": spec.part, **missing}
    if isinstance(spec, Levels):
        if spec.kind == "boolean":
            return {"type": "boolean", **missing}
        if spec.kind == "integer":
            return {"type": "integer", "range": [spec.levels[0], spec.levels[-1]], **missing}
        ordered = {"ordered": True} if spec.ordered else {}
        return {"levels": list(spec.levels), **ordered, **missing}
    number = _iso if spec.kind == "datetime" else _integer if spec.kind == "integer" else float
    clip = {"clip": True} if spec.clip else {}
    resolution = {"resolution": spec.resolution} if spec.kind == "datetime" else {}
    if spec.decimals is not None:
        resolution = {"decimals": spec.decimals}
    if isinstance(spec, Range):
        bounds = {"range": [number(spec.lo), number(spec.hi)]}
    else:
        bounds = {"bins": [number(e) for e in spec.edges]}
    kind = {} if spec.kind == "float" and isinstance(spec, Bins) else {"type": spec.kind}
    return {**kind, **bounds, **resolution, **clip, **missing}


def _integer(value):
    """An integral float as an int (a released integer bin may start half a step early)."""
    return int(value) if value == int(value) else float(value)


def _parse_domain(spec, name):
    """``((column, spec), ...)`` from a dict or list of specs."""
    if isinstance(spec, Domain):
        return spec._specs
    if isinstance(spec, Mapping):
        items = list(spec.items())
    elif isinstance(spec, list | tuple):
        items = list(enumerate(spec))
    else:
        raise TypeError(
            f"{name} must be a dict column -> spec, a list of specs or a Domain; got {spec!r}."
        )
    specs = tuple((column, _parse_column(value, f"{name}[{column!r}]")) for column, value in items)
    _check_parts(specs, name)
    return specs


def _check_parts(specs, name):
    """Every :class:`DatetimePart` names a datetime column of ``specs`` that is not a
    part itself, and declares missing values as it does."""
    by_name = dict(specs)
    for column, spec in specs:
        if not isinstance(spec, DatetimePart):
            continue
        where = f"{name}[{column!r}]"
        of = by_name.get(spec.of)
        if spec.of not in by_name or _kind(of) != "datetime" or isinstance(of, DatetimePart):
            datetimes = [
                c for c, s in specs if _kind(s) == "datetime" and not isinstance(s, DatetimePart)
            ]
            raise ValueError(
                f"{where}['part_of'] must name a datetime column of the same domain "
                f"(declared {{'type': 'datetime', ...}}); got {spec.of!r}, and the datetime "
                f"columns are {datetimes!r}."
            )
        if spec.missing != bool(of.missing):
            raise ValueError(
                f"{where}: a part is missing exactly where its datetime column "
                f'{spec.of!r} is, so it declares "missing": true if and only if that '
                f"column does; got {spec.missing} for the part and {bool(of.missing)} for "
                "the datetime."
            )


def _parse_column(spec, where):
    """Levels (a tuple, ``range(K)`` or :class:`Levels`), :class:`Bins` or
    :class:`Range` from one column spec."""
    if isinstance(spec, Levels | Bins | Range | DatetimePart):
        spec = _to_spec(spec)  # validated again: a spec may be built by hand
    elif isinstance(spec, range) and spec.start == 0 and spec.step == 1:
        spec = len(spec)
    if isinstance(spec, Integral | np.integer) and not isinstance(spec, bool | np.bool_):
        if spec < 1:
            raise ValueError(
                f"{where} must be a positive number of integer codes 0..K-1; got {spec!r}."
            )
        return range(int(spec))
    if isinstance(spec, Mapping):
        return _parse_dict(spec, where)
    if isinstance(spec, pd.CategoricalDtype):
        if spec.ordered:
            return Levels(_parse_levels(list(spec.categories), where, spec), ordered=True)
        spec = list(spec.categories)
    return _parse_levels(spec, where, spec)


def _parse_levels(spec, where, shown):
    try:
        if isinstance(spec, str | bytes | bool | np.bool_ | Set):
            raise TypeError
        levels = tuple(v.item() if isinstance(v, np.generic) else v for v in spec)
    except TypeError as exc:
        raise TypeError(f"{where} must be {_ACCEPTED}; got {shown!r}.") from exc
    if not levels:
        raise ValueError(f"{where} must list at least one level; got {shown!r}.")
    try:
        hash(levels)
    except TypeError as exc:
        raise TypeError(f"{where} must list hashable levels; got {shown!r}.") from exc
    if pd.isna(_object_array(levels)).any() or MISSING in levels:
        raise ValueError(
            f'{where} must not contain missing values (declare them with "missing": true); '
            f"got {shown!r}."
        )
    if pd.Index(_object_array(levels)).has_duplicates:
        raise ValueError(f"{where} lists a level twice; got {shown!r}.")
    return levels


_KEYS = {
    None: {"bins", "clip", "range", "missing", "decimals"},
    "levels": {"levels", "ordered", "missing"},
    "boolean": {"type", "missing"},
    "integer": {"type", "range", "bins", "clip", "missing"},
    "float": {"type", "range", "bins", "clip", "missing", "decimals"},
    "datetime": {"type", "range", "bins", "resolution", "clip", "missing"},
}


def _parse_part(spec, where):
    """A :class:`DatetimePart` from ``{"part_of": column, "part": part}`` (its column is
    checked against the whole domain by :func:`_check_parts`)."""
    unknown = set(spec) - {"part_of", "part", "missing"}
    if unknown or "part" not in spec:
        raise ValueError(
            f"{where} given with 'part_of' must be {{'part_of': column, 'part': ...}} with "
            f"optional 'missing': bool; got keys {sorted(map(str, spec))}."
        )
    part = spec["part"]
    if not isinstance(part, str) or part not in DATETIME_PARTS:
        raise ValueError(f"{where}['part'] must be one of {list(DATETIME_PARTS)}; got {part!r}.")
    of = spec["part_of"]
    try:
        hash(of)
    except TypeError as exc:
        raise TypeError(f"{where}['part_of'] must be a column name; got {of!r}.") from exc
    return DatetimePart(of, part, _flag(spec, "missing", where))


def _parse_dict(spec, where):
    if "part_of" in spec:
        return _parse_part(spec, where)
    kind = spec.get("type")
    form = "levels" if "levels" in spec and kind is None else kind
    if form not in _KEYS:
        raise ValueError(
            f"{where}['type'] must be one of 'integer', 'float', 'datetime', 'boolean'; "
            f"got {kind!r}."
        )
    unknown = set(spec) - _KEYS[form]
    if unknown or (
        form in (None, "float", "integer", "datetime") and not {"bins", "range"} & set(spec)
    ):
        raise ValueError(
            f"{where} given as a dict must be {{'bins': [e0, ..., eB]}} with optional "
            "'clip': bool, {'levels': [...], 'ordered': bool} or {'type': ..., 'range': "
            f"[lo, hi]}}, each with optional 'missing' (a bool, or the values that stand for "
            f"missing); got keys {sorted(map(str, spec))}."
        )
    codes = _missing_codes(spec, form or "float", where)
    missing = bool(codes) or _flag(spec, "missing", where)
    if form == "levels":
        ordered = _flag(spec, "ordered", where)
        levels = _parse_levels(spec["levels"], f"{where}['levels']", spec["levels"])
        if ordered or missing:
            return Levels(levels, ordered, "categorical", missing, codes)
        return levels
    if form == "boolean":
        return Levels((False, True), True, "boolean", missing)
    kind = form or "float"
    resolution = None
    if kind == "datetime":
        resolution = spec.get("resolution", "s")
        if resolution not in RESOLUTIONS:
            raise ValueError(
                f"{where}['resolution'] must be one of {list(RESOLUTIONS)}; got {resolution!r}."
            )
    clip = _flag(spec, "clip", where)
    decimals = spec.get("decimals")
    if decimals is not None and (
        isinstance(decimals, bool) or not isinstance(decimals, int) or not 0 <= decimals <= 15
    ):
        raise ValueError(f"{where}['decimals'] must be an int from 0 to 15; got {decimals!r}.")
    bounds = _parse_numbers(spec["range"], f"{where}['range']", kind) if "range" in spec else None
    if bounds is not None and (bounds.size != 2 or bounds[0] > bounds[1]):
        raise ValueError(f"{where}['range'] must be [lo, hi] with lo <= hi; got {spec['range']!r}.")
    if "bins" not in spec:
        lo, hi = bounds.tolist()
        if kind == "integer" and hi - lo + 1 <= MAX_INTEGER_LEVELS:
            if clip:
                raise ValueError(
                    f"{where}: an integer range of at most {MAX_INTEGER_LEVELS} values is "
                    f"one level per integer, which has no 'clip'; got {spec!r}."
                )
            return Levels(tuple(range(int(lo), int(hi) + 1)), True, "integer", missing, codes)
        step = RESOLUTIONS[resolution] if kind == "datetime" else 0
        if (lo >= hi) if step == 0 else (np.floor(hi / step) <= np.ceil(lo / step)):
            raise ValueError(
                f"{where}['range'] must hold at least two values"
                f"{' at its resolution' if step else ''}; got {spec['range']!r}."
            )
        return Range(lo, hi, kind, resolution, clip, missing, decimals, codes)
    edges = _parse_numbers(spec["bins"], f"{where}['bins']", kind, integers=False)
    if edges.size < 2:
        raise ValueError(f"{where}['bins'] needs at least 2 edges; got {spec['bins']!r}.")
    if not (np.diff(edges) > 0).all():
        raise ValueError(
            f"{where}['bins'] must be finite and strictly increasing; got {spec['bins']!r}."
        )
    if bounds is not None and (bounds[0] != edges[0] or bounds[1] != edges[-1]):
        raise ValueError(
            f"{where}['range'] must be the first and last of its 'bins'; got range "
            f"{spec['range']!r} and bins {spec['bins']!r}."
        )
    return Bins(tuple(edges.tolist()), clip, kind, resolution, missing, decimals, codes)


def _missing_codes(spec, kind, where):
    """The values listed by ``"missing": [v, ...]``; ``()`` for a bool or no key.
    Numbers of an integer or float column (sorted, ints where whole), or values of a
    column of levels that are not among its levels (in their order)."""
    value = spec.get("missing", False)
    if isinstance(value, bool | np.bool_):
        return ()
    if kind not in ("integer", "float", "levels") or not isinstance(value, list | tuple):
        raise TypeError(
            f"{where}['missing'] must be a bool, or for an integer, float or levels column "
            f"the list of values that stand for missing (e.g. [98, 99]); got {value!r}."
        )
    if kind == "levels":
        codes = _parse_levels(value, f"{where}['missing']", value)
        declared = set(_parse_levels(spec["levels"], f"{where}['levels']", spec["levels"]))
        if declared & set(codes):
            raise ValueError(
                f"{where}['missing'] lists values that are also levels; got {value!r}."
            )
        return codes
    codes = np.sort(_parse_numbers(value, f"{where}['missing']", kind))
    if codes.size == 0 or np.unique(codes).size != codes.size:
        raise ValueError(
            f"{where}['missing'] must list distinct values that stand for missing; got {value!r}."
        )
    return tuple(_integer(v) for v in codes.tolist())


def _flag(spec, key, where):
    value = spec.get(key, False)
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{where}[{key!r}] must be a bool; got {value!r}.")
    return bool(value)


def _parse_numbers(values, where, kind, integers=True):
    """Float64 array of the finite numbers (datetimes: ISO strings, as seconds)."""
    if isinstance(values, str | bytes) or not hasattr(values, "__len__"):
        raise TypeError(f"{where} must be a list; got {values!r}.")
    if kind == "datetime":
        out = np.array([_iso_seconds(v, where) for v in values], dtype=np.float64)
    else:
        try:
            if any(isinstance(v, bool | np.bool_) for v in values):
                raise TypeError
            out = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{where} must be a list of numbers; got {values!r}.") from exc
    if out.ndim != 1 or not np.isfinite(out).all():
        raise ValueError(f"{where} must be finite and strictly increasing; got {values!r}.")
    if integers and kind == "integer" and not (out == np.round(out)).all():
        raise ValueError(f"{where} must be integers for an integer column; got {values!r}.")
    return out


def _iso_seconds(value, where):
    """Seconds since 1970-01-01 of a naive ISO date or datetime."""
    try:
        stamp = pd.Timestamp(value) if isinstance(value, str) else None
    except ValueError:
        stamp = None
    if stamp is None or pd.isna(stamp) or stamp.tz is not None:
        raise ValueError(
            f"{where} must hold ISO dates or datetimes without a time zone "
            f"('2013-01-01', '2013-12-31T23:00'); got {value!r}."
        )
    return (stamp - pd.Timestamp(0)) / pd.Timedelta(1, "s")


def _iso(seconds):
    """ISO text of seconds since 1970-01-01: a date when at midnight, else to the second
    (to the microsecond when fractional)."""
    if seconds % 86400 == 0:
        return str(np.datetime64(int(seconds // 86400), "D"))
    if seconds % 1 == 0:
        return str(np.datetime64(int(seconds), "s"))
    return str(np.datetime64(round(seconds * 1e6), "us"))


def _to_seconds(values):
    """Float seconds since 1970-01-01 of datetimes (datetime64 of any unit, Timestamps
    or ISO strings); NaN for missing or unreadable values."""
    values = pd.Series(values, copy=False)
    if not pd.api.types.is_datetime64_any_dtype(values.dtype):
        values = pd.to_datetime(values, errors="coerce", format="ISO8601")
    if getattr(values.dt, "tz", None) is not None:
        values = values.dt.tz_convert(None)
    seconds = (values - pd.Timestamp(0)) / pd.Timedelta(1, "s")
    return seconds.to_numpy(dtype=np.float64, na_value=np.nan)


def _isna(values):
    """Missing entries (NaN, None, NaT, pd.NA) of a 1-D array-like."""
    return np.asarray(pd.isna(pd.Series(values, copy=False)), dtype=bool)


def _numbers(values, spec):
    """Float64 values of a numeric column (datetimes as seconds); NaN when missing.
    A value of an integer column is its integer part, rounded down (2.5 is 2)."""
    if spec.kind == "datetime":
        return _to_seconds(values)
    values = pd.Series(values, copy=False)
    if not pd.api.types.is_numeric_dtype(values.dtype):  # text or objects: "3" is 3
        values = pd.to_numeric(values, errors="coerce")
    values = values.to_numpy(dtype=np.float64, na_value=np.nan)
    return np.floor(values) if spec.kind == "integer" else values


def _codes(values, spec):
    """Code of each value of a column under ``spec``; -1 outside.

    Missing values (NaN, None, NaT, pd.NA) get the last code when the spec declares
    them (``missing=True``), else -1.  A :class:`Range` has no codes before its bins
    are chosen.
    """
    if isinstance(spec, Range):
        raise TypeError("a Range has no codes before its bins are chosen at fit time.")
    if isinstance(spec, DatetimePart):
        raise TypeError(
            f"a part of a datetime column ({spec.part} of {spec.of!r}) has no codes of its "
            "own: it is encoded through that column."
        )
    missing = getattr(spec, "missing", False) and _isna(values)
    if getattr(spec, "missing_codes", ()):
        missing = missing | _is_missing_code(values, spec)
    if isinstance(spec, Bins):
        edges = np.asarray(spec.edges)
        values = _numbers(values, spec)
        if spec.clip:
            values = np.clip(values, edges[0], edges[-1])
        codes = np.minimum(np.searchsorted(edges, values, side="right") - 1, edges.size - 2)
        codes[~((values >= edges[0]) & (values <= edges[-1]))] = -1  # NaN is outside too
    elif isinstance(spec, Levels) and spec.kind == "integer":
        values = _numbers(values, spec)
        codes = values - spec.levels[0]
        inside = (codes >= 0) & (codes < len(spec.levels))
        codes = np.where(inside, codes, -1).astype(np.int64)
    else:
        if isinstance(spec, range):
            levels = np.arange(len(spec))
        else:
            levels = _object_array(spec.levels if isinstance(spec, Levels) else spec)
        values = pd.Series(values, copy=False)
        if isinstance(values.dtype, pd.CategoricalDtype):
            values = values.astype(object)
        codes = pd.Index(levels).get_indexer(values.to_numpy())
    if missing is not False:
        codes[missing] = len(spec) - 1
    return codes


def _object_array(values):
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out
