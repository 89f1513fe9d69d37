"""Categorical columns: levels, ordered or not."""

from __future__ import annotations

from collections.abc import Set

import numpy as np
import pandas as pd

from ._base import Kind
from ._specs import Levels
from ._values import MISSING, NA_MARKERS, check_flag, object_array


class Categorical(Kind):
    """A column of levels (text, numbers or any hashable values), declared as a list,
    a :class:`pandas.CategoricalDtype` or ``{"levels": [...], "ordered": bool}``."""

    key = "categorical"

    @property
    def ordered(self):
        return isinstance(self.spec, Levels) and self.spec.ordered

    def is_missing_code(self, values):
        codes = self.missing_codes
        values = pd.Series(values, copy=False)
        if not codes:
            return np.zeros(len(values), dtype=bool)
        text = values.astype(str).isin({str(c) for c in codes})
        return (values.isin(codes) | text).to_numpy()

    def to_json(self):
        spec = self.spec
        if isinstance(spec, tuple):
            return list(spec)
        ordered = {"ordered": True} if spec.ordered else {}
        return {"levels": list(spec.levels), **ordered, **self._missing_json()}

    def csv_na_values(self):
        """Only an empty cell: a level ``"NA"`` or ``"null"`` stays that string."""
        return [""]

    def missing_text(self):
        """pandas' usual missing markers (``"NA"``, ``"null"``, ...) but the levels."""
        return frozenset(NA_MARKERS) - {str(v) for v in self.levels}

    def csv_dtype(self):
        """Text when every level is text (a level ``"01"`` stays ``"01"``)."""
        return str if all(isinstance(v, str) for v in self.levels) else None

    def parse_csv(self, text, absent, nullable, column, what):
        """The declared level of each cell (by its text, or by its number for numeric
        levels); missing cells NaN; other cells kept as text (outside the domain)."""
        levels = self.levels
        by_text = {str(level): level for level in levels}
        values = text.map(by_text)
        numeric = {
            float(v): v
            for v in levels
            if isinstance(v, int | float | np.number) and not isinstance(v, bool | np.bool_)
        }
        unmatched = values.isna() & ~absent
        if numeric and unmatched.any():
            numbers = pd.to_numeric(text[unmatched], errors="coerce")
            values[unmatched] = numbers.map(numeric)
        unmatched = values.isna() & ~absent
        values[unmatched] = text[unmatched]
        values[absent] = np.nan
        if not unmatched.any():
            types = {type(v) for v in levels}
            if types <= {int}:
                return values.astype("Int64") if nullable else values.astype(np.int64)
            if types <= {bool}:
                return values.astype("boolean") if nullable else values.astype(bool)
            if types <= {float, int}:
                return values.astype(np.float64)
        return values

    @classmethod
    def parse(cls, spec, where, missing, codes):
        """The parsed spec of ``{"levels": [...], "ordered": bool}``."""
        ordered = check_flag(spec, "ordered", where)
        levels = parse_levels(spec["levels"], f"{where}['levels']", spec["levels"])
        if ordered or missing:
            return Levels(levels, ordered, "categorical", missing, codes)
        return levels

    @classmethod
    def parse_missing_codes(cls, value, spec, where):
        """The values listed by ``"missing": [...]``, none of them a level."""
        codes = parse_levels(value, f"{where}['missing']", value)
        declared = set(parse_levels(spec["levels"], f"{where}['levels']", spec["levels"]))
        if declared & set(codes):
            raise ValueError(
                f"{where}['missing'] lists values that are also levels; got {value!r}."
            )
        return codes


#: What a column spec may be, for error messages.
ACCEPTED = (
    "an int K (codes 0..K-1), a list of levels, a pandas.CategoricalDtype, "
    "{'bins': [e0, ..., eB], 'clip': bool}, {'levels': [...], 'ordered': bool} or "
    "{'type': 'integer' | 'float' | 'datetime' | 'boolean', ...} or "
    "{'part_of': datetime column, 'part': ...}"
)


def parse_levels(spec, where, shown):
    """The tuple of declared levels: hashable, distinct, none missing."""
    try:
        if isinstance(spec, str | bytes | bool | np.bool_ | Set):
            raise TypeError
        levels = tuple(v.item() if isinstance(v, np.generic) else v for v in spec)
    except TypeError as exc:
        raise TypeError(f"{where} must be {ACCEPTED}; got {shown!r}.") from exc
    if not levels:
        raise ValueError(f"{where} must list at least one level; got {shown!r}.")
    try:
        hash(levels)
    except TypeError as exc:
        raise TypeError(f"{where} must list hashable levels; got {shown!r}.") from exc
    if pd.isna(object_array(levels)).any() or MISSING in levels:
        raise ValueError(
            f'{where} must not contain missing values (declare them with "missing": true); '
            f"got {shown!r}."
        )
    if pd.Index(object_array(levels)).has_duplicates:
        raise ValueError(f"{where} lists a level twice; got {shown!r}.")
    return levels
