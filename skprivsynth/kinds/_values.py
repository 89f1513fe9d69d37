"""Values shared by every kind: the missing level, datetime resolutions and parts, and
the readers of missing values, numbers and datetimes."""

from __future__ import annotations

import numpy as np
import pandas as pd

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
NA_MARKERS = (
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
    "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
)  # fmt: skip

#: The text of a cell that stands for a missing number, date or truth value: pandas'
#: markers and the "?" of UCI files and questionnaires (never a number or a date).
MISSING_TEXT = frozenset(NA_MARKERS) | {"?"}


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


def isna(values):
    """Missing entries (NaN, None, NaT, pd.NA) of a 1-D array-like."""
    return np.asarray(pd.isna(pd.Series(values, copy=False)), dtype=bool)


def object_array(values):
    """A 1-D object array of ``values`` (tuples stay elements)."""
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


def iso(seconds):
    """ISO text of seconds since 1970-01-01: a date when at midnight, else to the second
    (to the microsecond when fractional)."""
    if seconds % 86400 == 0:
        return str(np.datetime64(int(seconds // 86400), "D"))
    if seconds % 1 == 0:
        return str(np.datetime64(int(seconds), "s"))
    return str(np.datetime64(round(seconds * 1e6), "us"))


def iso_seconds(value, where):
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


def to_seconds(values):
    """Float seconds since 1970-01-01 of datetimes (datetime64 of any unit, Timestamps
    or ISO strings); NaN for missing or unreadable values."""
    values = pd.Series(values, copy=False)
    if not pd.api.types.is_datetime64_any_dtype(values.dtype):
        values = pd.to_datetime(values, errors="coerce", format="ISO8601")
    if getattr(values.dt, "tz", None) is not None:
        values = values.dt.tz_convert(None)
    seconds = (values - pd.Timestamp(0)) / pd.Timedelta(1, "s")
    return seconds.to_numpy(dtype=np.float64, na_value=np.nan)


def as_int(value):
    """An integral float as an int (a released integer bin may start half a step early)."""
    return int(value) if value == int(value) else float(value)


def nullable_dtype(dtype):
    """The pandas dtype of ``dtype`` that holds a missing value."""
    if pd.api.types.is_bool_dtype(dtype):
        return pd.BooleanDtype()
    if pd.api.types.is_integer_dtype(dtype) and isinstance(dtype, np.dtype):
        return pd.api.types.pandas_dtype(
            f"{'U' if dtype.kind == 'u' else ''}Int{dtype.itemsize * 8}"
        )
    return dtype


def check_flag(spec, key, where):
    """The bool ``spec[key]`` (False when absent)."""
    value = spec.get(key, False)
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{where}[{key!r}] must be a bool; got {value!r}.")
    return bool(value)


def parse_numbers(values, where, kind, integers=True):
    """Float64 array of the finite numbers of a declaration (datetimes: ISO strings, as
    seconds)."""
    if isinstance(values, str | bytes) or not hasattr(values, "__len__"):
        raise TypeError(f"{where} must be a list; got {values!r}.")
    if kind == "datetime":
        out = np.array([iso_seconds(v, where) for v in values], dtype=np.float64)
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
