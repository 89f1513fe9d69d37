"""Datetime columns: timestamps in bins, at a resolution."""

from __future__ import annotations

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
