"""The base of the numeric kinds: integer, float and datetime columns."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._base import Kind
from ._specs import Bins, Range
from ._values import check_flag, parse_numbers, to_seconds


class Numeric(Kind):
    """A column of numbers: codes are bins of them (or, for a short integer range, one
    level per integer).  Subclasses say how a value becomes a number, how a number is
    written, and the grid decoded values lie on."""

    def numbers(self, values):
        values = pd.Series(values, copy=False)
        if pd.api.types.is_datetime64_any_dtype(values.dtype):  # seconds since 1970
            return to_seconds(values)
        if not pd.api.types.is_numeric_dtype(values.dtype):  # text or objects: "3" is 3
            values = pd.to_numeric(values, errors="coerce")
        return values.to_numpy(dtype=np.float64, na_value=np.nan)

    def reads_dtype(self, dtype):
        return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)

    def coerce(self, values):
        return pd.to_numeric(values, errors="coerce") if self.binned else values

    def with_edges(self, edges):
        """The :class:`~.specs.Bins` of ``edges`` with this spec's clip, kind, resolution,
        missing values and decimals (the released bins of a :class:`~.specs.Range`)."""
        spec = self.spec
        return Bins(
            edges,
            spec.clip,
            spec.kind,
            spec.resolution,
            spec.missing,
            spec.decimals,
            spec.missing_codes,
            spec.format,
        )

    def _json_number(self, number):
        return float(number)

    def to_json(self):
        spec = self.spec
        number = self._json_number
        clip = {"clip": True} if spec.clip else {}
        precision = self._precision_json()
        if self.bins_at_fit:
            bounds = {"range": [number(spec.lo), number(spec.hi)]}
        else:
            bounds = {"bins": [number(e) for e in spec.edges]}
        kind = {"type": self.key}
        return {**kind, **bounds, **precision, **clip, **self._missing_json()}

    def _precision_json(self):
        return {"decimals": self.spec.decimals} if self.spec.decimals is not None else {}

    def parse_csv(self, text, absent, nullable, column, what):
        """The values of a CSV column read as text (``absent``: its missing cells);
        ``nullable``: in a dtype that holds a missing value."""
        numbers = pd.to_numeric(text[~absent], errors="coerce")
        if numbers.isna().any():
            raise ValueError(
                f"column {column!r} of {what} is declared numeric ({self.name}), but some "
                "cells are not numbers."
            )
        return self._cast(numbers.astype(np.float64).reindex(text.index), nullable)

    def _cast(self, numbers, nullable):
        return numbers

    # ------------------------------------------------------------------ parsing
    @classmethod
    def _resolution(cls, spec, where):
        return None

    @classmethod
    def _format(cls, spec, where, resolution):
        return None

    @classmethod
    def _range_levels(cls, lo, hi, spec, where, missing, codes):
        """The levels a range ``[lo, hi]`` without bins stands for, or None (bins)."""
        return None

    #: The declared ``decimals`` accepted: ``-2`` is a recording in whole hundreds.
    _decimals_accepted = (-15, 15)

    @classmethod
    def _step(cls, resolution):
        return 0

    @classmethod
    def parse(cls, spec, where, missing, codes):
        """The parsed spec of a dict ``{"type": kind, "range": ..., "bins": ...}``."""
        kind = cls.key
        resolution = cls._resolution(spec, where)
        text_format = cls._format(spec, where, resolution)
        clip = check_flag(spec, "clip", where)
        decimals = spec.get("decimals")
        least, most = cls._decimals_accepted
        if decimals is not None and (
            isinstance(decimals, bool)
            or not isinstance(decimals, int)
            or not least <= decimals <= most
        ):
            raise ValueError(
                f"{where}['decimals'] must be an int from {least} to {most}; got {decimals!r}."
            )
        bounds = None
        if "range" in spec:
            bounds = parse_numbers(spec["range"], f"{where}['range']", kind)
        if bounds is not None and (bounds.size != 2 or bounds[0] > bounds[1]):
            raise ValueError(
                f"{where}['range'] must be [lo, hi] with lo <= hi; got {spec['range']!r}."
            )
        if "bins" not in spec:
            lo, hi = bounds.tolist()
            levels = cls._range_levels(lo, hi, spec, where, missing, codes)
            if levels is not None:
                return levels
            step, unit = cls._step(resolution), "values at its resolution"
            if decimals is not None and decimals < 0:  # whole tens, hundreds...
                step, unit = 10.0**-decimals, f"multiples of {10**-decimals}"
            if (lo >= hi) if step == 0 else (np.floor(hi / step) <= np.ceil(lo / step)):
                raise ValueError(
                    f"{where}['range'] must hold at least two "
                    f"{unit if step else 'values'}; got {spec['range']!r}."
                )
            return Range(lo, hi, kind, resolution, clip, missing, decimals, codes, text_format)
        edges = parse_numbers(spec["bins"], f"{where}['bins']", kind, integers=False)
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
        return Bins(
            tuple(edges.tolist()), clip, kind, resolution, missing, decimals, codes, text_format
        )

    @classmethod
    def parse_missing_codes(cls, value, spec, where):
        """The numbers listed by ``"missing": [v, ...]``, sorted, ints where whole."""
        codes = np.sort(parse_numbers(value, f"{where}['missing']", cls.key))
        if codes.size == 0 or np.unique(codes).size != codes.size:
            raise ValueError(
                f"{where}['missing'] must list distinct values that stand for missing; "
                f"got {value!r}."
            )
        return tuple(int(v) if v == int(v) else float(v) for v in codes.tolist())
