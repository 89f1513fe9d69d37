"""Datetime columns: timestamps in bins, at a resolution."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._numeric import Numeric
from ._values import RESOLUTIONS, iso, to_seconds


class Datetime(Numeric):
    """A column of naive timestamps, declared ``{"type": "datetime", "range": [iso,
    iso], "resolution": ...}``: numbers are seconds since 1970-01-01, written as ISO
    text; decoded values are rounded down to the resolution."""

    key = "datetime"

    @property
    def step(self):
        return RESOLUTIONS[self.spec.resolution]

    def numbers(self, values):
        return to_seconds(values)

    def reads_dtype(self, dtype):
        return True  # datetimes of any dtype, or ISO text

    def coerce(self, values):
        return values

    def typed(self, values):
        if pd.api.types.is_datetime64_any_dtype(values.dtype):
            return values
        return pd.to_datetime(values, errors="coerce", format="ISO8601")

    def output_dtype(self, dtype, declared_levels):
        """The input's datetime dtype, else ``datetime64[s]`` (dates read as text)."""
        return dtype if pd.api.types.is_datetime64_any_dtype(dtype) else np.dtype("datetime64[s]")

    def from_numbers(self, numbers, dtype):
        """Whole ``numbers`` of seconds since 1970-01-01 (NaN: NaT) in ``dtype``, a
        datetime64 dtype of any unit, time zone aware or not."""
        out = np.full(numbers.size, np.datetime64("NaT"), dtype="datetime64[s]")
        known = ~np.isnan(numbers)
        out[known] = numbers[known].astype(np.int64).astype("datetime64[s]")
        series = pd.Series(out)
        tz = getattr(dtype, "tz", None)
        if tz is not None:
            return series.dt.tz_localize("UTC").dt.tz_convert(tz).astype(dtype)
        return series.astype(dtype)

    def show(self, number):
        return iso(number)

    def _json_number(self, number):
        return iso(number)

    def _precision_json(self):
        return {"resolution": self.spec.resolution}

    def parse_csv(self, text, absent, nullable, column, what):
        try:
            values = pd.to_datetime(text[~absent], format="ISO8601")
        except (ValueError, TypeError) as exc:
            raise ValueError(
                f"column {column!r} of {what} is declared a datetime, but some "
                "cells are not ISO 8601 dates or timestamps."
            ) from exc
        return values.reindex(text.index)

    @classmethod
    def _resolution(cls, spec, where):
        resolution = spec.get("resolution", "s")
        if resolution not in RESOLUTIONS:
            raise ValueError(
                f"{where}['resolution'] must be one of {list(RESOLUTIONS)}; got {resolution!r}."
            )
        return resolution

    @classmethod
    def _step(cls, resolution):
        return RESOLUTIONS[resolution]
