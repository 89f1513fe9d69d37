"""Parts of a datetime column: its year, month, day, hour, minute, weekday or date."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._base import Kind
from ._datetime import Datetime
from ._integer import Integer
from ._specs import DatetimePart, Levels, Range
from ._values import DATETIME_PARTS, check_flag, iso

#: The values of the integer parts of a datetime (a year's are those of its range).
PART_VALUES = {"month": (1, 12), "day": (1, 31), "hour": (0, 23), "minute": (0, 59),
               "weekday": (0, 6)}  # fmt: skip


class Part(Kind):
    """A part of a datetime column of the same domain, declared ``{"part_of": column,
    "part": part}``: a public function of that column, with no codes of its own."""

    key = "part"
    is_part = True

    @property
    def name(self):
        """``"datetime"`` for the date, ``"integer"`` for the other parts."""
        return self.spec.kind

    @property
    def _values_kind(self):
        return (Datetime if self.spec.part == "date" else Integer)(self.spec)

    @property
    def size(self):
        return 0

    def width(self, max_bins):
        return 0

    def codes(self, values):
        spec = self.spec
        raise TypeError(
            f"a part of a datetime column ({spec.part} of {spec.of!r}) has no codes of its "
            "own: it is encoded through that column."
        )

    def labels(self):
        return []

    def numbers(self, values):
        return self._values_kind.numbers(values)

    def output_dtype(self, dtype, declared_levels):
        """That of its values: a datetime for the date, an integer for the others."""
        return self._values_kind.output_dtype(dtype, declared_levels)

    def to_json(self):
        spec = self.spec
        return {"part_of": spec.of, "part": spec.part, **self._missing_json()}

    def csv_text(self, values):
        return self._values_kind.csv_text(values)

    def parse_csv(self, text, absent, nullable, column, what):
        return self._values_kind.parse_csv(text, absent, nullable, column, what)

    def modelled_spec(self, domain):
        """The levels the part can take (not the date, a year range too wide to be
        levels, nor a part of a column kept by a relation, which stay computed)."""
        if self.spec.of in getattr(domain, "relations", {}):
            return self.spec
        values = self.values_spec(domain)
        if self.spec.part != "date" and isinstance(values, Levels):
            return values
        return self.spec

    def values_spec(self, domain):
        """The spec of the values the part can take, read from the declaration only: its
        integers (the years of the range), or the dates of the range."""
        spec, of = self.spec, domain[self.spec.of]
        lo, hi = (of.lo, of.hi) if isinstance(of, Range) else (of.edges[0], of.edges[-1])
        missing = {"missing": True} if spec.missing else {}
        if spec.part == "date":
            first, last = (np.floor(x / 86400) * 86400 for x in (lo, hi))
            days = [first, last] if first < last else [first, first + 86400]  # one day: a bin
            key = "range" if first < last else "bins"
            dates = {"type": "datetime", key: [iso(d) for d in days], "resolution": "D"}
            return Datetime.parse({**dates, **missing}, "part", spec.missing, ())
        if spec.part == "year":
            bounds = [pd.Timestamp(x, unit="s").year for x in (lo, hi)]
        else:
            bounds = list(PART_VALUES[spec.part])
        integers = {"type": "integer", "range": bounds, **missing}
        return Integer.parse(integers, "part", spec.missing, ())

    @classmethod
    def parse(cls, spec, where):
        """A :class:`DatetimePart` from ``{"part_of": column, "part": part}`` (its column
        is checked against the whole domain when the domain is parsed)."""
        unknown = set(spec) - {"part_of", "part", "missing"}
        if unknown or "part" not in spec:
            raise ValueError(
                f"{where} given with 'part_of' must be {{'part_of': column, 'part': ...}} "
                f"with optional 'missing': bool; got keys {sorted(map(str, spec))}."
            )
        part = spec["part"]
        if not isinstance(part, str) or part not in DATETIME_PARTS:
            raise ValueError(
                f"{where}['part'] must be one of {list(DATETIME_PARTS)}; got {part!r}."
            )
        of = spec["part_of"]
        try:
            hash(of)
        except TypeError as exc:
            raise TypeError(f"{where}['part_of'] must be a column name; got {of!r}.") from exc
        return DatetimePart(of, part, check_flag(spec, "missing", where))
