"""A draft of a domain from the data, to review and replace by public knowledge.

:func:`draft_domain` reads a table and writes the domain a user would declare for it
(levels, integer, float and date ranges, missing values and codes, parts of a date),
with one line per column saying what it inferred.  The draft comes from private values:
a differentially private release over it is not covered by the guarantee until every
entry is replaced by public knowledge.  Read more in the :ref:`User Guide <your_table>`.
"""

from __future__ import annotations

import json
import math
import re
import shlex
import warnings

import numpy as np
import pandas as pd

from ..exceptions import PrivacyLeakWarning
from ._datetime import DEFAULT_FORMATS
from ._infer import observed_levels
from ._values import MAX_INTEGER_LEVELS, MISSING_TEXT

__all__ = ["draft_domain"]


#: Datetime resolutions, coarsest first (the ``"resolution"`` of a datetime spec).
_RESOLUTIONS = ("D", "h", "min", "s")

#: ISO 8601 dates and timestamps without a time zone (a datetime domain has none):
#: what the draft reads as a datetime column.
_ISO_DATETIME = r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}(?::\d{2}(?::\d{2}(?:\.\d+)?)?)?)?"
#: Dates as spreadsheets write them ("01/31/2020", "1/31/20", "31.01.2020 08:30",
#: "2020/01/31"); a dotted or dashed one with a 4-digit year (not a version, 1.10.12).
_OTHER_DATE = (
    r"(?:\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})|\d{1,2}([.-])\d{1,2}\1\d{4}|\d{4}/\d{1,2}/\d{1,2})"
    r"(?:[ T]\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AaPp][Mm])?)?"
)


#: The date formats the draft reads beside ISO 8601 (regular expression, strftime
#: format).  ``%d/%m/%Y`` and ``%m/%d/%Y`` share their text: a column is read in one of
#: them only when a day above 12 decides it.
_DATE_FORMATS = (
    (r"\d{4}-\d{2}-\d{2}", "%Y-%m-%d"),
    (r"\d{4}/\d{1,2}/\d{1,2}", "%Y/%m/%d"),
    (r"\d{4}\.\d{1,2}\.\d{1,2}", "%Y.%m.%d"),
    (r"\d{1,2}/\d{1,2}/\d{4}", "%d/%m/%Y"),
    (r"\d{1,2}/\d{1,2}/\d{4}", "%m/%d/%Y"),
    (r"\d{1,2}\.\d{1,2}\.\d{4}", "%d.%m.%Y"),
)
#: The times that may follow a date (the same on every cell of a column).
_TIME_FORMATS = (
    ("", ""),
    (r" \d{2}:\d{2}", " %H:%M"),
    (r" \d{2}:\d{2}:\d{2}", " %H:%M:%S"),
    (r"T\d{2}:\d{2}", "T%H:%M"),
    (r"T\d{2}:\d{2}:\d{2}", "T%H:%M:%S"),
)


def _text_formats(text):
    """The formats of :data:`_DATE_FORMATS` (with a time of :data:`_TIME_FORMATS`) that
    read every cell of ``text`` (non-missing strings) as a valid timestamp, with the
    timestamps: ``[(format, timestamps), ...]``."""
    found = []
    for date_pattern, date_format in _DATE_FORMATS:
        for time_pattern, time_format in _TIME_FORMATS:
            if time_format.startswith("T") and date_format != "%Y-%m-%d":
                continue
            pattern = date_pattern + time_pattern
            if re.fullmatch(pattern, text.iloc[0]) is None or not text.str.fullmatch(pattern).all():
                continue
            text_format = date_format + time_format
            stamps = pd.to_datetime(text, format=text_format, errors="coerce")
            if stamps.notna().all():
                found.append((text_format, stamps))
    return found


def _text_datetimes(series):
    """``(timestamps, format, ambiguous)`` of a column of text (non-missing): its
    timestamps when every cell is in one format of :data:`_DATE_FORMATS` (``format``,
    or None when it is what ISO 8601 text is written as at its resolution) or in ISO
    8601, else None; ``ambiguous`` lists the formats that read every cell when there
    are more than one (``["%d/%m/%Y", "%m/%d/%Y"]`` where no day is above 12)."""
    if series.empty:
        return None, None, []
    text = series.astype(str)
    found = _text_formats(text)
    if len(found) > 1:
        return None, None, [f for f, _ in found]
    if found:
        text_format, stamps = found[0]
        resolution = _resolution(stamps)
        return stamps, (None if DEFAULT_FORMATS[resolution] == text_format else text_format), []
    return _iso_datetimes(series), None, []


def _round_range(low, high):
    """``[low, high]`` rounded outwards to multiples of the power of ten below the span
    (age 17..90: [10, 90]; income 1234..98765: [0, 100000])."""
    unit = 10.0 ** np.floor(np.log10(high - low))
    low, high = np.floor(low / unit) * unit, np.ceil(high / unit) * unit
    return [float(f"{low:.12g}"), float(f"{high:.12g}")]


def _is_integral(values):
    return bool(np.all(values == np.round(values)))


def _looks_like_code(value):
    """Whether an integer reads as a survey's code for a missing answer: 9, 99, 999
    ... or, from two digits on, one or two below (98 "don't know", 97 "refused"),
    or the negative of one of these."""
    digits = len(str(int(abs(value))))
    top = 10**digits - 1
    return abs(value) == top or (digits >= 2 and top - abs(value) in (1, 2))


def _drafted_missing_codes(series):
    """The integers of a numeric column that read as codes for a missing answer (see
    :func:`_looks_like_code`) and stand apart from the other values: codes above them
    at least twice the largest of them, codes below zero where they are not; ``[]``
    when none."""
    if not pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series):
        return []
    distinct = np.unique(series.dropna().to_numpy(dtype=np.float64))
    if distinct.size < 3:
        return []
    codes = [v for v in distinct if v == round(v) and _looks_like_code(v)]
    rest = distinct[~np.isin(distinct, codes)]
    if rest.size < 2:
        return []
    high = [v for v in codes if v > 0 and v >= 2 * max(abs(rest.max()), abs(rest.min())) + 1]
    low = [v for v in codes if v < 0 and rest.min() >= 0]
    return [int(v) for v in low + high]


def _iso_datetimes(series):
    """``series`` (non-missing text) as timestamps when every value is ISO 8601, else None."""
    if series.empty or not series.astype(str).str.fullmatch(_ISO_DATETIME).all():
        return None
    try:
        return pd.to_datetime(series, format="ISO8601")
    except (ValueError, TypeError):
        return None


def _resolution(values):
    """The coarsest resolution every timestamp sits on (sub-second ones: ``"s"``, the
    finest a domain declares)."""
    return next((u for u in _RESOLUTIONS if (values == values.dt.floor(u)).all()), "s")


def _draft_datetime(values, text_format=None):
    """The datetime spec of timestamps: the coarsest resolution every value sits on,
    the range from the first day to the last one (at that resolution), and the
    ``"format"`` of their text when it is not ISO 8601."""
    resolution = _resolution(values)
    low, high = values.min().floor("D"), values.max()
    if resolution == "D":
        bounds = [low.strftime("%Y-%m-%d"), high.strftime("%Y-%m-%d")]
    else:
        high = (
            high.ceil("D") - pd.Timedelta(1, unit=resolution) if high != high.floor("D") else high
        )
        bounds = [low.isoformat(), high.isoformat()]
    spec = {"type": "datetime", "range": bounds, "resolution": resolution}
    return spec if text_format is None else {**spec, "format": text_format}


def _missing_text(series):
    """A text column read with only empty cells missing: its NA-like text (``"NA"``,
    ``"null"``, ``"?"`` ...) made missing too when every other value is a number or a
    timestamp, else kept as a level; and the note saying what was read as missing."""
    if series.dtype != object and not pd.api.types.is_string_dtype(series.dtype):
        return series, ""
    text = series.dropna().astype(str)
    na_like = text.isin(MISSING_TEXT)
    if not na_like.any() or na_like.all():
        return series, ""
    spellings = sorted(set(text[na_like]))
    rest = text[~na_like]
    numbers = pd.to_numeric(rest, errors="coerce")
    if numbers.notna().all() and not _zero_padded(rest):
        converted = pd.to_numeric(series.where(~series.isin(MISSING_TEXT)), errors="coerce")
        return converted, f" (empty, or {spellings} among numbers)"
    if _text_datetimes(rest)[0] is not None:
        absent = series.isin(MISSING_TEXT)
        return series.where(~absent), f" (empty, or {spellings} among dates)"
    return series, ""


#: Share of a float column's values that its drafted ``decimals`` must write exactly.
#: A few computed values (an imputed mean, a ratio) among values recorded in hundredths
#: would otherwise leave every synthetic value at full float precision.
_DECIMALS_SHARE = 0.99


def _decimals(values, most=6):
    """``(k, m)``: the fewest decimals ``k`` (at most ``most``) that write at least
    ``_DECIMALS_SHARE`` of the values exactly, ``m`` the values that need more; or None."""
    for k in range(most + 1):
        scaled = values * 10.0**k
        more = int(np.count_nonzero(np.abs(scaled - np.round(scaled)) > 1e-6))
        if more <= (1 - _DECIMALS_SHARE) * values.size:
            return k, more
    return None


#: A fractional column with at most ``MAX_INTEGER_LEVELS`` distinct values, each on this
#: many rows on average, is drafted as levels: its values are codes (log-rates of a
#: few tariffs, years of schooling with a half year), whose point masses a float
#: range would spread over its bins.
_ROWS_PER_VALUE = 20


#: Fewest distinct values of a column drafted as the key of units of several rows.
_MIN_UNITS = 20


def _balanced(series):
    """``(m, k)`` where each of the ``m >= _MIN_UNITS`` values of ``series`` is on exactly
    ``k >= 2`` rows (the key of a balanced panel: persons, firms or countries observed
    ``k`` times), else None."""
    counts = series.value_counts()
    k = int(counts.iloc[0]) if counts.size else 0
    if counts.size < _MIN_UNITS or k < 2 or counts.iloc[-1] != k:
        return None
    return counts.size, k


def _unit_notes(data):
    """Column -> a note on the unit of privacy, for the columns that look like the key
    of a balanced panel.  Of two such columns that cross into every row (316 persons
    answering 24 items: 316 × 24 rows), the one with fewer values is the occasion,
    not the unit, and gets no note."""
    balanced = {c: b for c in data.columns if (b := _balanced(data[c].dropna())) is not None}
    occasions = {
        c
        for c, (m, _) in balanced.items()
        for d, (m_d, _) in balanced.items()
        if m < m_d and m * m_d == len(data)
    }
    return {
        c: (
            f"; each of its {m} values is on exactly {k} rows: the key of units observed "
            f"{k} times (a panel)?  The guarantee is per row; a unit's {k} rows are "
            f"covered by group privacy only (zCDP: ρ times {k * k}, Bun & Steinke 2016): "
            f"keep one row per unit, or lower ε; if it is an identifier, synthesize with "
            f"{_drop_advice(c)}"
        )
        for c, (m, k) in balanced.items()
        if c not in occasions
    }


def _zero_padded(text):
    """Whether text cells are digit codes some of which have a leading zero (``"01"``,
    ``"007"``): codes, not numbers, whose zeros a number would lose."""
    text = pd.Series(text, copy=False).astype(str)
    return bool(text.str.fullmatch(r"\d+").all() and text.str.fullmatch(r"0\d+").any())


def zero_padded_columns(text):
    """The columns of ``text`` (a table read as strings, only empty cells missing) whose
    cells, but for missing spellings such as ``"NA"``, are digit codes with leading
    zeros: to be drafted as text levels."""
    out = []
    for column in text.columns:
        cells = text[column].dropna().astype(str)
        cells = cells[~cells.isin(MISSING_TEXT)]
        if not cells.empty and _zero_padded(cells):
            out.append(column)
    return out


#: A column with more distinct values than this share of its rows, each on at most
#: ``_KEY_ROWS`` rows at the median, is drafted as a key (of persons, institutions or
#: records): synthesized as a number or a level, its synthetic values would equal real
#: keys by chance and carry no meaning.
_KEY_SHARE = 0.25
_KEY_ROWS = 2  # and more values than MAX_INTEGER_LEVELS: fewer stay levels
#: Share of the integers of its span that an integer key numbered consecutively (1, 2,
#: 3 ... with a few gaps) takes; a quantity with many values on few rows (a follow-up
#: time in days) leaves more of its span empty.  Below it, only a name saying ``id``
#: or ``key`` makes such a column a key.
_KEY_DENSITY = 0.9


def _key_like(present, n):
    """``(m, median)`` when the ``m`` distinct values of ``present`` are more than
    ``_KEY_SHARE * n`` (and more than ``MAX_INTEGER_LEVELS``), on at most ``_KEY_ROWS``
    rows each at the median, else None."""
    counts = present.value_counts()
    median = float(np.median(counts.to_numpy())) if counts.size else 0.0
    many = counts.size > max(_KEY_SHARE * n, MAX_INTEGER_LEVELS)
    if many and median <= _KEY_ROWS:
        return counts.size, median
    return None


def _named_key(name):
    """Whether a column's name says it is a key (``id``, ``key``, ``code``, ``no``,
    ``number`` as a word, or a name ending in ``id``: ``unitid``, ``PersonID``)."""
    words = _words(name)
    return bool(
        re.search(r"(^| )(id|ids|key|code|identifier|no|num|number)( |$)", words)
        or str(name).lower().endswith("id")
    )


def _words(name):
    """The lower-case words of a column name (``"DayOfYear"``, ``"day_of_year"`` and
    ``"day of year"`` give ``day of year``)."""
    name = re.sub(r"([a-z])([A-Z])", r"\1 \2", str(name))
    return " ".join(re.findall(r"[a-z]+|\d+", name.lower()))


#: Quantities whose range is known from their meaning, by the words of a column's name
#: (singular words only: ``"hours"`` or ``"months"`` is a duration): (pattern, what,
#: ranges the values may fit, first that fits).
_QUANTITIES = (
    (r"(day of (the )?year|doy|yday|julian day)", "day of the year", ((1, 366),)),
    (r"(day of (the )?week|weekday|dow|wday)", "day of the week", ((0, 6), (1, 7))),
    (r"(day of (the )?month|mday)", "day of the month", ((1, 31),)),
    (r"(hour|hour of (the )?day|hr)", "hour of the day", ((0, 23),)),
    (r"(minute)", "minute of the hour", ((0, 59),)),
    (r"(month|month of (the )?year|mnth)", "month", ((1, 12),)),
    (r"(quarter|qtr)", "quarter", ((1, 4),)),
)


def _known_range(name, low, high):
    """``(lo, hi, what)``: the public range of the quantity a column's name says it is
    (:data:`_QUANTITIES`) when its values ``low..high`` fit it, else None."""
    words = _words(name)
    for pattern, what, ranges in _QUANTITIES:
        if re.search(rf"(^| ){pattern}( |$)", words):
            for lo, hi in ranges:
                if lo <= low and high <= hi:
                    return lo, hi, what
    return None


#: Orders of answers and calendars, lower-case, each word with its rank.
_SCALES = (
    (
        "months",
        {
            **{m: i for i, m in enumerate(
                "january february march april may june july august september october "
                "november december".split())},
            **{m: i for i, m in enumerate(
                "jan feb mar apr may jun jul aug sep oct nov dec".split())},
            "sept": 8,
        },
    ),
    (
        "weekdays",
        {
            **{d: i for i, d in enumerate(
                "monday tuesday wednesday thursday friday saturday sunday".split())},
            **{d: i for i, d in enumerate("mon tue wed thu fri sat sun".split())},
            "tues": 1, "thur": 3, "thurs": 3,
        },
    ),
    (
        "an agreement scale",
        {
            "strongly disagree": 0, "disagree": 1, "somewhat disagree": 2,
            "slightly disagree": 2, "mildly disagree": 2, "tend to disagree": 2,
            "neither agree nor disagree": 3, "neither agree or disagree": 3, "neutral": 3,
            "undecided": 3, "somewhat agree": 4, "slightly agree": 4, "mildly agree": 4,
            "tend to agree": 4, "agree": 5, "strongly agree": 6,
        },
    ),
    (
        "a satisfaction scale",
        {
            "very dissatisfied": 0, "dissatisfied": 1, "somewhat dissatisfied": 2,
            "neutral": 3, "neither satisfied nor dissatisfied": 3, "somewhat satisfied": 4,
            "satisfied": 5, "very satisfied": 6,
        },
    ),
    (
        "a frequency scale",
        {
            "never": 0, "almost never": 1, "rarely": 2, "seldom": 2, "sometimes": 3,
            "occasionally": 3, "often": 4, "frequently": 4, "usually": 5, "very often": 5,
            "almost always": 6, "always": 7,
        },
    ),
    (
        "a quality scale",
        {"very poor": 0, "poor": 1, "fair": 2, "average": 2, "good": 3, "very good": 4,
         "excellent": 5},
    ),
    (
        "a low-to-high scale",
        {"very low": 0, "low": 1, "medium": 2, "moderate": 2, "high": 3, "very high": 4},
    ),
)  # fmt: skip

#: A bracket of numbers as surveys write them: "<10k", "10k-20k", "50-59", "65+",
#: "$25,000 to $34,999", "under 18", "100 or more"; group ``below`` marks the open
#: lower end, ``first`` the first number.
_BRACKET = re.compile(
    r"\s*(?P<below>(<=?|≤|under|below|less than|up to|fewer than)\s*)?"
    r"(?P<above>(>=?|≥|over|above|more than)\s*)?"
    r"[$€£]?(?P<first>(\d{1,3}(,\d{3})+|\d+)(\.\d+)?)\s*(?P<unit>[kKmM])?"
    r"(\s*(-|–|to)\s*[$€£]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?\s*[kKmM]?)?"
    r"\s*(\+|or more|or over|or older|and over|and above|plus)?\s*(years?|yrs?)?\s*",
    re.IGNORECASE,
)


def _bracket_key(level):
    """The number a bracket starts at (an open lower end just before it), or None."""
    match = _BRACKET.fullmatch(level)
    if match is None:
        return None
    unit = {"k": 1e3, "m": 1e6}.get((match["unit"] or "").lower(), 1.0)
    first = float(match["first"].replace(",", "")) * unit
    return first - 0.5 if match["below"] else first


def _ordered_words(levels):
    """``(ordered levels, what)`` when the text levels (but missing spellings such as
    ``"NA"``, put last) are words of one order of :data:`_SCALES` or numeric brackets
    (ordered by their first number), at least three of them; else None."""
    words = [v for v in levels if v not in MISSING_TEXT]
    rest = [v for v in levels if v in MISSING_TEXT]
    if len(words) < 3 or not all(isinstance(v, str) for v in words):
        return None
    for what, ranks in _SCALES:
        keys = [ranks.get(" ".join(v.lower().replace("-", " ").split())) for v in words]
        if None not in keys and len(set(keys)) == len(keys):
            return [v for _, v in sorted(zip(keys, words, strict=True))] + rest, what
    keys = [_bracket_key(v) for v in words]
    plain = all(re.fullmatch(r"\s*\d+(\.\d+)?\s*", v) for v in words)
    if None not in keys and not plain and len(set(keys)) == len(keys):
        return [v for _, v in sorted(zip(keys, words, strict=True))] + rest, "brackets of numbers"
    return None


def _multiple_of(values):
    """The largest of 1000, 100 and 10 that every value is a multiple of (amounts
    recorded in whole hundreds), or None."""
    nonzero = values[values != 0]
    if nonzero.size < 2:
        return None
    return next((u for u in (1000, 100, 10) if np.all(nonzero % u == 0)), None)


def _drop_advice(column):
    """The ``--drop`` option for ``column``, quoted for the shell."""
    return f"--drop {shlex.quote(str(column))}"


#: Most decimals of a recording: a column whose values are written with at most this
#: many (tenths, hundredths, thousandths) was recorded at that precision; values with
#: more are computed (a log, a ratio) and drafted each on its own.
_RECORDED_DECIMALS = 3


def _recording(series):
    """``(decimals, as_levels)`` of a column of fractional numbers recorded with at most
    ``_RECORDED_DECIMALS`` decimals (``as_levels``: whether its values alone would be
    drafted as levels), else None."""
    if not pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series):
        return None
    values = series.dropna().to_numpy(dtype=np.float64)
    if values.size == 0 or _is_integral(values) or values.min() == values.max():
        return None
    precision = _decimals(values)
    if precision is None or precision[0] > _RECORDED_DECIMALS:
        return None
    return precision[0], _fractional_levels(values)


def _fractional_levels(values):
    """Whether fractional ``values`` are few, each on many rows: drafted as levels."""
    return np.unique(values).size <= min(MAX_INTEGER_LEVELS, values.size / _ROWS_PER_VALUE)


def _one_rule(recordings):
    """Column -> note, for the columns of fractional numbers recorded with the same
    decimals (:func:`_recording`) of which some would be levels and some ranges: all
    are drafted as ranges (the form that holds any value of the recording), and the
    note says so."""
    groups = {}
    for column, (decimals, as_levels) in recordings.items():
        groups.setdefault(decimals, []).append((column, as_levels))
    notes = {}
    for decimals, members in groups.items():
        if len({as_levels for _, as_levels in members}) < 2:
            continue
        names = [c for c, _ in members]
        for column, _ in members:
            notes[column] = (
                f"; one rule for the columns recorded with {decimals} decimal(s), "
                f"{names}: a range each, as some of them take too many values to be levels"
            )
    return notes


def _draft_column(series, n, name=None, as_range=False):
    """``(spec, why)`` of one column, or ``(None, why)`` for a column left out
    (``as_range``: fractional numbers as a range, never levels)."""
    present = series.dropna()
    dtype = series.dtype
    if present.empty:
        return None, "every cell is missing: nothing to declare"
    if isinstance(dtype, pd.CategoricalDtype):
        levels = [_plain(v) for v in dtype.categories]
        if dtype.ordered:
            return {"levels": levels, "ordered": True}, "ordered categorical, in its order"
        return levels, "categorical, its categories"
    if pd.api.types.infer_dtype(present) == "boolean":
        return {"type": "boolean"}, "True/False values"
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return _draft_datetime(present), "timestamps"
    if pd.api.types.is_numeric_dtype(dtype):
        values = present.to_numpy(dtype=np.float64)
        low, high = float(values.min()), float(values.max())
        if low == high:
            value = int(low) if _is_integral(values) else low
            return [value], "constant: one level"
        if not _is_integral(values):
            distinct = np.unique(values)
            if not as_range and _fractional_levels(values):
                levels = [_plain(v) for v in distinct]
                return {"levels": levels, "ordered": True}, (
                    f"{distinct.size} fractional values, each on {values.size / distinct.size:.0f} "
                    "rows on average: a coded or rounded variable, one level each (declare a "
                    "float range instead if it can take other values)"
                )
            spec = {"type": "float", "range": _round_range(low, high)}
            why = "fractional numbers: a range rounded outwards (bins chosen privately at fit)"
            precision = _decimals(values)
            if precision is not None:
                spec["decimals"], more = precision
                why += f"; {spec['decimals']} decimal(s), as " + (
                    f"all but {more} value(s) (those come back rounded)" if more else "every value"
                )
            return spec, why
        low, high = int(low), int(high)
        if present.nunique() == n and n > 1:
            return None, "integers all distinct: identifier-like (a row number?)"
        known = _known_range(name, low, high)
        if known is not None:
            lo, hi, what = known
            return {"type": "integer", "range": [lo, hi]}, (
                f"its name says {what}: the quantity's public range {lo}..{hi}, not the "
                f"observed {low}..{high}"
            )
        key = _key_like(present, n)
        dense = key is not None and key[0] >= _KEY_DENSITY * (high - low + 1)
        if key is not None and (dense or _named_key(name)):
            return None, (
                f"{key[0]} distinct integers in {n} rows, {key[1]:g} row(s) each at the "
                f"median, {'numbered densely' if dense else 'named as a key'}: "
                "identifier-like (the key of persons, institutions or records: "
                "synthesized as a number, its synthetic keys would equal real ones by "
                "chance); if it is a quantity, declare "
                '{"type": "integer", "range": [lo, hi]} from its meaning'
            )
        unit = _multiple_of(values)
        many = ""
        if key is not None and unit is None:
            many = (
                f"; {key[0]} distinct values, {key[1]:g} row(s) each at the median: if "
                f"it is a key rather than a quantity, synthesize with {_drop_advice(name)}"
            )
        if unit is not None and high - low >= MAX_INTEGER_LEVELS:
            first = low // unit * unit
            grid = list(range(first, high + 1, unit))
            if len(grid) <= MAX_INTEGER_LEVELS:
                return {"levels": grid, "ordered": True}, (
                    f"integers, every one a multiple of {unit} (recorded in whole "
                    f"{unit}s): the multiples of {unit} from {first} to {high}, one level "
                    "each, so that synthetic values keep that precision"
                )
            bounds = [int(v) for v in _round_range(low, high)]
            return {"type": "integer", "range": bounds, "decimals": -round(math.log10(unit))}, (
                f"integers spanning {high - low + 1} values, every one a multiple of {unit} "
                f"(recorded in whole {unit}s): a range rounded outwards, decoded to "
                f"multiples of {unit}{many}"
            )
        if high - low < MAX_INTEGER_LEVELS:
            span = high - low + 1
            distinct = present.nunique()
            why = f"integers {low}..{high}: one level per integer"
            if span - distinct > span / 4:
                why += (
                    f"; only {distinct} of these {span} integers occur: the other "
                    f"{span - distinct} are levels too (synthetic rows may take them); if "
                    "the column takes only some values (survey years, waves), list them as "
                    "levels"
                )
            return {"type": "integer", "range": [low, high]}, why
        return {"type": "integer", "range": [int(v) for v in _round_range(low, high)]}, (
            f"integers spanning {high - low + 1} values: a range rounded outwards{many}"
        )
    timestamps, text_format, ambiguous = _text_datetimes(present)
    if timestamps is not None:
        if text_format is None:
            return _draft_datetime(timestamps), "ISO 8601 dates or timestamps"
        return _draft_datetime(timestamps, text_format), (
            f'dates or timestamps written {text_format!r}: "format" {json.dumps(text_format)}, '
            "read and written back in it"
        )
    if ambiguous:
        return None, (
            f"dates that read in each of the formats {ambiguous} (no day above 12 decides "
            'which): declare it with {"type": "datetime", "range": [first, last], '
            '"resolution": "D", "format": ...}'
        )
    if present.astype(str).str.fullmatch(_OTHER_DATE).all():
        return None, (
            "dates in a format the draft does not read ('1/31/20'): declare it with "
            '{"type": "datetime", ..., "format": "%m/%d/%y"} (a strftime format), or '
            "write them as 2020-01-31 (or 2020-01-31T08:30) and draft again"
        )
    if _numbers_as_text(present):
        return None, (
            "numbers written with thousands separators, currency or % signs ('$52,000', "
            "'45%'): neither levels nor numbers as they stand; write them as plain "
            "numbers and draft again"
        )
    levels = observed_levels(present.to_numpy())
    if len(levels) > n / 2:
        return None, f"{len(levels)} distinct values in {n} rows: identifier-like"
    key = _key_like(present, n)
    if key is not None:
        return None, (
            f"{key[0]} distinct values in {n} rows, {key[1]:g} row(s) each at the median: "
            "identifier-like (the key of persons, institutions or records)"
        )
    ordered = _ordered_words([_plain(v) for v in levels])
    if ordered is not None:
        levels, what = ordered
        spec, why = (
            {"levels": levels, "ordered": True},
            (
                f"{len(levels)} text levels, read as {what}: proposed in that order with "
                '"ordered": true (check it against the codebook)'
            ),
        )
    else:
        spec, why = (
            [_plain(v) for v in levels],
            (
                f"{len(levels)} text levels, sorted (if they are ordered, list them in their "
                'order with "ordered": true)'
            ),
        )
    if _zero_padded([v for v in levels if v not in MISSING_TEXT]):
        why += "; digit codes with leading zeros ('01'): text levels, written back as they are"
    na_like = sorted(set(map(str, levels)) & MISSING_TEXT)
    if na_like:
        codes = json.dumps(na_like)
        why += (
            f"; {na_like} kept as a level: if it means missing, remove it from the levels "
            f'and declare "missing": {codes}'
        )
    return spec, why


#: A number written for people: a currency sign, thousands separators, a % sign.
_FORMATTED_NUMBER = r"\s*[-+]?[$€£]?\s*[-+]?\d{1,3}(,\d{3})*(\.\d+)?\s*%?\s*|\s*[-+]?\d+(\.\d+)?"


def _numbers_as_text(present):
    """Whether text cells are all numbers written for people (``_FORMATTED_NUMBER``),
    some of them with a sign or separator that keeps them from reading as numbers
    (``"1,3"``, a multiple-choice answer, is no such number)."""
    text = present.astype(str)
    if not text.str.contains(r"[,$€£%]", regex=True).any():
        return False
    return bool(text.str.fullmatch(_FORMATTED_NUMBER).all())


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


#: The parts of a datetime drafted for each resolution: those its values can vary in.
_DRAFT_PARTS = {
    "D": ("year", "month", "day", "weekday"),
    "h": ("year", "month", "day", "weekday", "hour"),
    "min": ("year", "month", "day", "weekday", "hour", "minute"),
    "s": ("year", "month", "day", "weekday", "hour", "minute"),
}


def _datetime_part_of(values, datetimes, draft):
    """``(column, part)`` of the first datetime column of ``datetimes`` (column ->
    timestamps) that ``values`` equals a part of on every row, missing exactly where
    it is missing; or None.  ``values`` are integers, or dates (then the part is the
    ``"date"`` of a finer datetime)."""
    absent = values.isna().to_numpy()
    is_date = pd.api.types.is_datetime64_any_dtype(values.dtype)
    for of, stamps in datetimes.items():
        if not np.array_equal(absent, stamps.isna().to_numpy()):
            continue
        present, known = values[~absent].to_numpy(), stamps[~absent]
        if is_date:
            parts = () if draft[of]["resolution"] == "D" else ("date",)
        else:
            parts = _DRAFT_PARTS[draft[of]["resolution"]]
        for part in parts:
            name = {"date": "normalize", "weekday": "day_of_week"}.get(part, part)
            computed = getattr(known.dt, name)
            if (present == (computed() if part == "date" else computed).to_numpy()).all():
                return of, part
    return None


def _draft_parts(draft, columns, lines):
    """Declare as a part of a datetime column, in place, every integer column (and
    every date column) equal to that part of it on every row."""
    datetimes = {
        column: pd.to_datetime(columns[column], format=spec.get("format", "ISO8601"))
        for column, spec in draft.items()
        if isinstance(spec, dict) and spec.get("type") == "datetime"
    }
    # a date part is read as ISO 8601: one written in a format stays a datetime
    dates = [c for c in datetimes if draft[c]["resolution"] == "D" and "format" not in draft[c]]
    integers = [
        c
        for c, values in columns.items()
        if c not in datetimes
        and pd.api.types.is_numeric_dtype(values.dtype)
        and not pd.api.types.is_bool_dtype(values.dtype)
        and _is_integral(values.dropna().to_numpy(dtype=np.float64))
    ]
    for column in dates + integers:  # a date that becomes a part is no datetime to others
        targets = {c: v for c, v in datetimes.items() if c != column and "part_of" not in draft[c]}
        values = datetimes.get(column, columns[column])
        found = _datetime_part_of(values, targets, draft)
        if found is None:
            continue
        of, part = found
        missing = {"missing": True} if draft[of].get("missing") else {}
        draft[column] = {"part_of": of, "part": part, **missing}
        lines[column] = (
            f"{column!r}: part_of: equals the {part} of {of!r} on every row: computed from "
            "it (no codes, no budget; the synthetic column always agrees with it)"
        )


def draft_domain(frame):
    """Draft the domain of ``frame`` from its values, to review before a release.

    Constant columns become their one level; integer columns ``{"type": "integer",
    "range": [lo, hi]}`` (one level per integer up to ``MAX_INTEGER_LEVELS`` values, a
    wider range rounded outwards); a fractional column of at most that many values,
    each on 20 rows or more on average, its values as ordered levels; other
    fractional numbers a float range rounded outwards, with their decimals (one rule
    for the columns recorded with the same decimals: ranges when some would not be
    levels); an integer column named as a quantity of known range (day of year, hour,
    month ...) that range; integers that are all multiples of 10, 100 or 1000 those
    multiples as levels when at most 64; dates and timestamps a datetime range at the
    coarsest resolution every value sits on, with their ``"format"`` when they are
    written in one of a few common ones other than ISO 8601 (``%Y/%m/%d``,
    ``%d/%m/%Y`` ...; a day above 12 decides between ``%d/%m`` and ``%m/%d``);
    booleans, categoricals in their order, text levels whose words are months,
    weekdays, answer scales or brackets of numbers in that order, other text sorted
    levels (digit codes with leading zeros among them).  Empty cells
    give ``"missing": true``; codes such as 98 and 99 far above a column's other values
    ``"missing": [98, 99]``; an integer (or date) column equal to a part of a datetime
    column on every row ``{"part_of": column, "part": ...}``.  Identifier-like columns
    (all-distinct integers, more text levels than half the rows, keys of more values
    than a quarter of the rows on at most 2 rows each at the median), columns without
    a value, ambiguous dates and numbers written for people are left out, with advice
    (``--drop`` quoted for the shell).

    The draft reads private values, so it warns :class:`~skprivsynth.PrivacyLeakWarning`:
    replace every entry by public knowledge (the possible levels and their order, the
    range a column can take) before a differentially private release.

    Parameters
    ----------
    frame : DataFrame
        The table, read so that only empty cells are missing (``read_csv(path,
        keep_default_na=False, na_values=[""])``: a level ``"NA"`` stays a level); a
        column of codes with leading zeros read as text (``dtype=str``), as the
        ``skprivsynth domain`` command reads it.

    Returns
    -------
    domain : dict
        Column -> spec, in the JSON forms of :class:`~skprivsynth.Domain`.
    explanations : list of str
        One line per column (left-out columns included): what was inferred and why.

    Examples
    --------
    >>> import pandas as pd, warnings
    >>> from skprivsynth import PrivacyLeakWarning, draft_domain
    >>> frame = pd.DataFrame({"age": [23, 41, 41, 67], "sex": ["F", "M", "F", "F"]})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", PrivacyLeakWarning)
    ...     domain, explanations = draft_domain(frame)
    >>> domain
    {'age': {'type': 'integer', 'range': [23, 67]}, 'sex': ['F', 'M']}
    >>> explanations[0].split(";")[0]
    "'age': integer: integers 23..67: one level per integer"
    """
    warnings.warn(
        "this domain is drafted from the private values of the data (levels, ranges, "
        "dates): a differentially private run over it is not covered by the guarantee. "
        "Review every entry and replace it by public knowledge (the possible levels and "
        "their order, the range a column can take, from a codebook or the field's "
        "meaning) before a release.",
        PrivacyLeakWarning,
        stacklevel=2,
    )
    data = frame
    n, draft, lines, columns = len(data), {}, {}, {}
    notes = _unit_notes(data)
    read = {column: _missing_text(data[column]) for column in data.columns}
    masked = {
        c: series.mask(series.isin(_drafted_missing_codes(series)))
        for c, (series, _) in read.items()
    }
    recordings = {c: r for c, series in masked.items() if (r := _recording(series)) is not None}
    rule = _one_rule(recordings)
    for column in data.columns:
        series, read_as_missing = read[column]
        codes = _drafted_missing_codes(series)
        coded = int(series.isin(codes).sum())
        as_range = column in rule
        spec, why = _draft_column(masked[column], n, column, as_range)
        if not (isinstance(spec, dict) and spec.get("type") in ("integer", "float")):
            codes, coded = [], 0
            spec, why = _draft_column(series, n, column, as_range)
        why += rule.get(column, "") + notes.get(column, "")
        if spec is None:
            lines[column] = f"{column!r}: left out: {why}; synthesize with {_drop_advice(column)}"
            continue
        missing = int(series.isna().sum())
        if coded:
            spec = {**spec, "missing": codes}
            why += (
                f"; {coded} cells hold {codes}, far from the other values: read as codes for "
                f"a missing answer{f' (and {missing} missing cells)' if missing else ''}, "
                "missing is a level and they come back as empty cells (if they are real "
                'values, remove "missing" and widen the range)'
            )
        elif missing:
            spec = {"levels": spec} if isinstance(spec, list) else spec
            spec = {**spec, "missing": True}
            why += f"; {missing} missing cells{read_as_missing}: missing is a level"
        draft[column], columns[column] = spec, series
        kind = spec.get("type", "levels") if isinstance(spec, dict) else "levels"
        lines[column] = f"{column!r}: {kind}: {why}"
    _draft_parts(draft, columns, lines)
    return draft, list(lines.values())
