"""The base of every kind, and :func:`kind_of`, the one place a spec's kind is read."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._specs import Bins, DatetimePart, Levels, Range
from ._values import MISSING, MISSING_TEXT, NA_MARKERS, isna, nullable_dtype, object_array

__all__ = ["Kind", "kind_of"]


class Kind:
    """What the values of one column are, and how they map to its codes.

    A kind wraps one parsed column spec (levels, :class:`~.specs.Bins`,
    :class:`~.specs.Range` or :class:`~.specs.DatetimePart`) and owns everything that
    depends on what the values are: their codes and labels, their JSON form, how a CSV
    cell is read and how missing values are written.  :func:`kind_of` gives the kind of
    a spec; one subclass per kind (categorical, integer, float, datetime, boolean,
    datetime part).

    Parameters
    ----------
    spec : parsed column spec
        A value of a :class:`~skprivsynth.Domain`.
    """

    #: The kind's key in :func:`kind_of`'s registry.
    key = None
    _registry = {}

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.key is not None:
            Kind._registry[cls.key] = cls

    def __init__(self, spec):
        self.spec = spec

    def __repr__(self):
        return f"{type(self).__name__}({self.spec!r})"

    # ------------------------------------------------------------------ the codes
    @property
    def name(self):
        """``"categorical"``, ``"integer"``, ``"float"``, ``"datetime"`` or
        ``"boolean"``: what :meth:`Domain.kind <skprivsynth.Domain.kind>` says."""
        return self.key

    @property
    def size(self):
        """Number of codes, the missing one included; None before a :class:`Range`'s
        bins are chosen."""
        return None if self.bins_at_fit else len(self.spec)

    @property
    def binned(self):
        """Whether the codes are numeric bins (declared, or chosen at fit time)."""
        return isinstance(self.spec, Bins | Range)

    @property
    def bins_at_fit(self):
        """Whether the bins are chosen with differential privacy at fit time (a
        declared range without bins)."""
        return isinstance(self.spec, Range)

    #: Whether the column is a part of a datetime column (no codes of its own).
    is_part = False

    #: The grid binned values decode to (1 for integers, the resolution in seconds for
    #: datetimes), or None for real values.
    step = None

    @property
    def levels(self):
        """The levels, the missing one excluded; None for bins."""
        if self.binned:
            return None
        spec = self.spec
        return tuple(spec.levels) if isinstance(spec, Levels) else tuple(spec)

    @property
    def missing(self):
        """Whether missing values are one more code, the last."""
        return bool(getattr(self.spec, "missing", False))

    @property
    def missing_codes(self):
        """The values that stand for a missing value (``"missing": [98, 99]``)."""
        return getattr(self.spec, "missing_codes", ())

    @property
    def ordered(self):
        """Whether the codes are ordered (all but unordered categorical levels)."""
        return True

    @property
    def numeric_codes(self):
        """Whether the codes are numbers in order, each a number of the column: bins
        (and one level per integer of a declared integer range)."""
        return self.binned

    def width(self, max_bins):
        """Codes of the column when levels are coarsened to ``max_bins`` (None: no
        limit): a range gets at most ``max_bins`` bins at fit, declared bins keep
        theirs; None for a range without a limit."""
        if self.bins_at_fit:
            return max_bins
        if self.binned or max_bins is None:
            return len(self.spec)
        return min(len(self.spec), max_bins)

    def modelled_spec(self, domain):
        """The spec the column is encoded as when parts of datetimes are modelled
        (``datetime_parts="modelled"``): its own (a part: the levels it can take)."""
        return self.spec

    def values_spec(self, domain):
        """The spec of the values this column takes, as a column of its own (a part
        of a datetime column: the levels it can take; every other column: its spec)."""
        return self.spec

    def codes(self, values):
        """Code of each value; -1 outside the domain.

        Missing values (NaN, None, NaT, pd.NA) and declared missing codes get the last
        code when the spec declares missing values, else -1.
        """
        spec = self.spec
        if self.bins_at_fit:
            raise TypeError("a Range has no codes before its bins are chosen at fit time.")
        if self.binned:
            edges = np.asarray(spec.edges)
            numbers = self.numbers(values)
            if spec.clip:
                numbers = np.clip(numbers, edges[0], edges[-1])
            codes = np.minimum(np.searchsorted(edges, numbers, side="right") - 1, edges.size - 2)
            codes[~((numbers >= edges[0]) & (numbers <= edges[-1]))] = -1  # NaN: outside
        else:
            codes = self._level_codes(values)
        if self.missing:
            missing = isna(values)
            if self.missing_codes:
                missing = missing | self.is_missing_code(values)
            codes[missing] = len(spec) - 1
        return codes

    def _level_codes(self, values):
        values = pd.Series(values, copy=False)
        if isinstance(values.dtype, pd.CategoricalDtype):
            values = values.astype(object)
        return pd.Index(object_array(self.levels)).get_indexer(values.to_numpy())

    def labels(self):
        """A text label for each code: levels as text, ``"[lo, hi)"`` for a bin
        (``"[lo, hi]"`` for the last one) and ``"<missing>"`` for the missing level."""
        spec = self.spec
        if self.bins_at_fit:
            raise TypeError("a Range has no codes before its bins are chosen at fit time.")
        if not self.binned:
            return [str(level) for level in spec]
        e = [self.show(x) for x in spec.edges]
        last = len(e) - 2
        labels = [f"[{e[k]}, {e[k + 1]}{']' if k == last else ')'}" for k in range(last + 1)]
        return labels + [str(MISSING)] * spec.missing

    def describe(self):
        """A short text of what the codes stand for (``"bins from 17 to 102"``), or
        None where the levels speak for themselves."""
        if self.binned and not self.bins_at_fit:
            edges = self.spec.edges
            return f"bins from {self.show(edges[0])} to {self.show(edges[-1])}"
        return None

    def show(self, number):
        """Text of a number of the column (a bin edge)."""
        return f"{number:g}"

    def numbers(self, values):
        """Float64 values (datetimes in seconds since 1970-01-01); NaN when missing."""
        raise TypeError(f"a {self.name} column has no numbers.")

    # ------------------------------------------------------------------ encoding
    def level_array(self):
        """The levels as an array, the missing one excluded: objects (integers for an
        integer column of levels)."""
        return object_array(self.levels)

    def reads_dtype(self, dtype):
        """Whether the values of a column of ``dtype`` can be read as this kind's
        numbers (numeric bins need a numeric dtype, not bool)."""
        return True

    def coerce(self, values):
        """The values as counted on the codes: for numeric bins, text that is no number
        is read as missing; other kinds keep them."""
        return values

    def typed(self, values):
        """The values of a :class:`pandas.Series` as the kind's own values, for a
        comparison of their distributions: unchanged, but for a datetime column's ISO
        text (as :meth:`Domain.read_csv_options <skprivsynth.Domain.read_csv_options>`
        leaves it), read as timestamps."""
        return values

    def output_dtype(self, dtype, declared_levels):
        """The dtype a decoded column with input ``dtype`` gets; never one that turns a
        level into NaN.  Read from the declaration and the dtype, never the values.

        The input dtype, nullable (``Int64``) when missing values are declared; a
        categorical input dtype of a column decoded to ``declared_levels`` gets them
        as its categories, in their order (ordered when declared so, or when the
        input dtype is); of any other column (bins, a part, learned levels) it is
        kept.
        """
        if isinstance(dtype, pd.CategoricalDtype):
            if not declared_levels:
                return dtype
            ordered = getattr(self.spec, "ordered", False) or dtype.ordered
            return pd.CategoricalDtype(list(self.levels), ordered=ordered)
        return nullable_dtype(dtype) if self.missing else dtype

    def from_numbers(self, numbers, dtype):
        """A :class:`pandas.Series` of ``dtype`` of decoded float ``numbers`` (NaN:
        missing)."""
        return pd.Series(numbers).astype(dtype)

    def is_missing_code(self, values):
        """Boolean mask of the ``values`` that are declared codes for missing."""
        codes = self.missing_codes
        if not codes:
            return np.zeros(len(values), dtype=bool)
        return np.isin(self.numbers(values), codes)

    # ------------------------------------------------------------------ JSON and CSV
    def to_json(self):
        """The JSON-ready form of the spec (``parse_column(k.to_json()) == k.spec``)."""
        raise NotImplementedError

    def _missing_json(self):
        codes = self.missing_codes
        if codes:
            return {"missing": [_plain(v) for v in codes]}
        return {"missing": True} if self.missing else {}

    def csv_na_values(self):
        """Text that :func:`pandas.read_csv` reads as missing in this column: pandas'
        usual markers and the ``"?"`` of UCI files (never a number or a date)."""
        return [*NA_MARKERS, "?"]

    def missing_text(self):
        """The text of a CSV cell that stands for a missing value in this column."""
        return MISSING_TEXT

    def parse_csv(self, text, absent, nullable, column, what):
        """The values of a CSV column read as text.

        Parameters
        ----------
        text : pandas.Series of object
            The cells as read.
        absent : ndarray of bool
            The cells that are missing.
        nullable : bool
            Whether the values need a dtype that holds a missing value.
        column, what : str
            The column and the file, for error messages (which never show a cell).
        """
        raise NotImplementedError

    def csv_text(self, values):
        """The decoded ``values`` as :func:`~skprivsynth.write_csv` writes them (a
        datetime in its declared format); here, as they are."""
        return values

    #: Whether :func:`~skprivsynth.read_csv` reads the cells as text and parses them
    #: with :meth:`parse_csv` (else pandas reads them with :meth:`csv_dtype`).
    csv_as_text = False

    def csv_dtype(self):
        """The dtype :func:`pandas.read_csv` reads the column as (None: its guess)."""
        return None


def _plain(value):
    """A declared missing code as written: an integral float as an int."""
    return int(value) if isinstance(value, float) and value == int(value) else value


def kind_of(spec):
    """The :class:`Kind` of a parsed column spec.

    Parameters
    ----------
    spec : parsed column spec
        A value of a :class:`~skprivsynth.Domain`.

    Returns
    -------
    Kind

    Examples
    --------
    >>> from skprivsynth import Domain
    >>> from skprivsynth.kinds import kind_of
    >>> domain = Domain({"sex": ["F", "M"], "age": {"type": "integer", "range": [0, 120]}})
    >>> kind_of(domain["sex"]).name, kind_of(domain["age"]).name
    ('categorical', 'integer')
    >>> kind_of(domain["age"]).size is None  # its bins are chosen at fit time
    True
    """
    if isinstance(spec, DatetimePart):
        key = "part"
    elif isinstance(spec, Levels | Bins | Range):
        key = spec.kind
    elif isinstance(spec, range):
        key = "integer"
    else:
        key = "categorical"
    return Kind._registry[key](spec)
