"""The forms of a parsed column spec: :class:`Levels`, :class:`Bins`, :class:`Range`
and :class:`DatetimePart` (plain levels are a tuple, integer codes ``range(K)``).

A spec says how a column is coded; its :mod:`kind <skprivsynth.kinds>` says what its
values are.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._values import MISSING

__all__ = ["Bins", "DatetimePart", "Levels", "Range"]


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
        Decoded values are rounded to this many decimals (prices in cents: 2; a length
        of stay in tenths of a day: 1; amounts in whole hundreds: -2, the one precision
        an integer column takes).  Where a range's fine
        cells hold 2 values of this precision or more, the values that recur on many
        rows are released on their own and come back exactly (user guide, "Values
        that recur: grid points").
    missing_codes : tuple of float, default=()
        Values that stand for a missing value (a survey's 98 "don't know", 99 "no
        answer"): read as missing (``missing`` is then true), never as numbers.
    format : str or None, default=None
        Datetime columns only: the strftime/strptime format their CSV cells are read
        and written in (``"%d/%m/%Y %H:%M"``); None: ISO 8601.
    """

    edges: tuple[float, ...]
    clip: bool = False
    kind: str = "float"
    resolution: str | None = None
    missing: bool = False
    decimals: int | None = None
    missing_codes: tuple = ()
    format: str | None = None

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
                ("format", None),
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
    format : str or None, default=None
        Datetime columns only: the strftime/strptime format their CSV cells are read
        and written in (``"%d/%m/%Y %H:%M"``); None: ISO 8601.
    """

    lo: float
    hi: float
    kind: str = "float"
    resolution: str | None = None
    clip: bool = False
    missing: bool = False
    decimals: int | None = None
    missing_codes: tuple = ()
    format: str | None = None

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
