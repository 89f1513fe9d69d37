"""A draft of a domain from the data, to review and replace by public knowledge.

:func:`draft_domain` reads a table and writes the domain a user would declare for it
(levels, integer, float and date ranges, missing values and codes, parts of a date),
with one line per column saying what it inferred.  The draft comes from private values:
a differentially private release over it is not covered by the guarantee until every
entry is replaced by public knowledge.  Read more in the :ref:`User Guide <your_table>`.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd

from .exceptions import PrivacyLeakWarning
from .kinds import MAX_INTEGER_LEVELS, MISSING_TEXT, observed_levels

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


def _draft_datetime(values):
    """The datetime spec of timestamps: the coarsest resolution every value sits on,
    and the range from the first day to the last one (at that resolution)."""
    # Sub-second timestamps get "s", the finest resolution a domain declares.
    resolution = next((u for u in _RESOLUTIONS if (values == values.dt.floor(u)).all()), "s")
    low, high = values.min().floor("D"), values.max()
    if resolution == "D":
        bounds = [low.strftime("%Y-%m-%d"), high.strftime("%Y-%m-%d")]
    else:
        high = (
            high.ceil("D") - pd.Timedelta(1, unit=resolution) if high != high.floor("D") else high
        )
        bounds = [low.isoformat(), high.isoformat()]
    return {"type": "datetime", "range": bounds, "resolution": resolution}


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
    if numbers.notna().all():
        converted = pd.to_numeric(series.where(~series.isin(MISSING_TEXT)), errors="coerce")
        return converted, f" (empty, or {spellings} among numbers)"
    if _iso_datetimes(rest) is not None:
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
            f"--drop {c}"
        )
        for c, (m, k) in balanced.items()
        if c not in occasions
    }


def _draft_column(series, n):
    """``(spec, why)`` of one column, or ``(None, why)`` for a column left out."""
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
            if distinct.size <= min(MAX_INTEGER_LEVELS, values.size / _ROWS_PER_VALUE):
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
        if high - low < MAX_INTEGER_LEVELS:
            return {"type": "integer", "range": [low, high]}, (
                f"integers {low}..{high}: one level per integer"
            )
        return {"type": "integer", "range": [int(v) for v in _round_range(low, high)]}, (
            f"integers spanning {high - low + 1} values: a range rounded outwards"
        )
    timestamps = _iso_datetimes(present)
    if timestamps is not None:
        return _draft_datetime(timestamps), "ISO 8601 dates or timestamps"
    if present.astype(str).str.fullmatch(_OTHER_DATE).all():
        return None, (
            "dates not in ISO 8601 ('01/31/2020'): write them as 2020-01-31 (or "
            "2020-01-31T08:30) and draft again"
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
    why = (
        f"{len(levels)} text levels, sorted (if they are ordered, list them in their order "
        'with "ordered": true)'
    )
    na_like = sorted(set(map(str, levels)) & MISSING_TEXT)
    if na_like:
        codes = json.dumps(na_like)
        why += (
            f"; {na_like} kept as a level: if it means missing, remove it from the levels "
            f'and declare "missing": {codes}'
        )
    return [_plain(v) for v in levels], why


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
        column: pd.to_datetime(columns[column], format="ISO8601")
        for column, spec in draft.items()
        if isinstance(spec, dict) and spec.get("type") == "datetime"
    }
    dates = [c for c in datetimes if draft[c]["resolution"] == "D"]
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
    fractional numbers a float range rounded outwards, with their decimals; ISO dates
    and timestamps a datetime range at the coarsest resolution every value sits on;
    booleans, categoricals in their order, other text sorted levels.  Empty cells
    give ``"missing": true``; codes such as 98 and 99 far above a column's other values
    ``"missing": [98, 99]``; an integer (or date) column equal to a part of a datetime
    column on every row ``{"part_of": column, "part": ...}``.  Identifier-like columns
    (all-distinct integers, more text levels than half the rows), columns without a
    value and dates or numbers written for people are left out, with advice.

    The draft reads private values, so it warns :class:`~skprivsynth.PrivacyLeakWarning`:
    replace every entry by public knowledge (the possible levels and their order, the
    range a column can take) before a differentially private release.

    Parameters
    ----------
    frame : DataFrame
        The table, read so that only empty cells are missing (``read_csv(path,
        keep_default_na=False, na_values=[""])``: a level ``"NA"`` stays a level).

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
    >>> explanations[0]
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
    for column in data.columns:
        series, read_as_missing = _missing_text(data[column])
        codes = _drafted_missing_codes(series)
        coded = int(series.isin(codes).sum())
        spec, why = _draft_column(series.mask(series.isin(codes)), n)
        if not (isinstance(spec, dict) and spec.get("type") in ("integer", "float")):
            codes, coded = [], 0
            spec, why = _draft_column(series, n)
        why += notes.get(column, "")
        if spec is None:
            lines[column] = f"{column!r}: left out: {why}; synthesize with --drop {column}"
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
