"""Datetime columns: timestamps in bins, at a resolution."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._numeric import Numeric
from ._values import RESOLUTIONS, iso, to_seconds

#: The text a datetime column is written in when its spec declares no ``"format"``:
#: ISO 8601 down to its resolution (a timestamp at minutes has no seconds).
DEFAULT_FORMATS = {"D": "%Y-%m-%d", "h": "%Y-%m-%d %H:%M", "min": "%Y-%m-%d %H:%M",
                   "s": "%Y-%m-%d %H:%M:%S"}  # fmt: skip

#: A timestamp on every resolution's grid but the day's, to check a format on.
_PROBE = pd.Timestamp("2001-02-13 14:35:56")


class Datetime(Numeric):
    """A column of naive timestamps, declared ``{"type": "datetime", "range": [iso,
    iso], "resolution": ..., "format": ...}``: numbers are seconds since 1970-01-01;
    CSV cells are read and written in the declared ``"format"`` (a strftime format
    such as ``"%d/%m/%Y %H:%M"``; one of ISO 8601 text, ``"%Y-%m-%d ..."``, reads any
    ISO 8601 cell), else read as ISO 8601 and written as it down to the resolution
    (:data:`DEFAULT_FORMATS`); decoded values are rounded down to the resolution."""

    key = "datetime"

    @property
    def step(self):
        return RESOLUTIONS[self.spec.resolution]

    @property
    def text_format(self):
        """The strftime format of the column's CSV cells, or None: ISO 8601."""
        return getattr(self.spec, "format", None)

    @property
    def reading_format(self):
        """The format cells are read in: the declared one, but ``"ISO8601"`` for none or
        an ISO 8601 one (``"%Y-%m-%d %H:%M:%S"``: any ISO 8601 cell is read, the format
        is how cells are written)."""
        text_format = self.text_format
        if text_format is None or text_format.startswith("%Y-%m-%d"):
            return "ISO8601"
        return text_format

    def numbers(self, values):
        values = pd.Series(values, copy=False)
        if self.reading_format != "ISO8601" and pd.api.types.infer_dtype(values) == "string":
            values = pd.to_datetime(values, format=self.reading_format, errors="coerce")
        return to_seconds(values)

    def csv_text(self, values):
        """Datetimes as text in the declared ``"format"``, else ISO 8601 down to the
        resolution (``2023-12-03 12:57`` at minutes); missing ones stay missing (an
        empty cell).  Other values, and time-zone-aware ones without a declared format
        (pandas writes their offset), are left as they are."""
        values = pd.Series(values, copy=False)
        if not pd.api.types.is_datetime64_any_dtype(values.dtype):
            return values
        if self.text_format is None and getattr(values.dt, "tz", None) is not None:
            return values
        resolution = getattr(self.spec, "resolution", None) or "D"
        return values.dt.strftime(self.text_format or DEFAULT_FORMATS[resolution])

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
        text_format = {"format": self.text_format} if self.text_format is not None else {}
        return {"resolution": self.spec.resolution, **text_format}

    def parse_csv(self, text, absent, nullable, column, what):
        """Cells in the declared ``"format"`` (else ISO 8601); a cell that is not is an
        error naming the column and the format, never the cell (values are private)."""
        text_format = self.reading_format
        try:
            values = pd.to_datetime(text[~absent], format=text_format)
        except (ValueError, TypeError):
            if text_format == "ISO8601":
                expected = (
                    'are not ISO 8601 dates or timestamps (declare the "format" they are '
                    'written in, e.g. "format": "%d/%m/%Y")'
                )
            else:
                expected = f"do not match its declared format {text_format!r}"
            raise ValueError(
                f"column {column!r} of {what} is declared a datetime, but some cells {expected}."
            ) from None  # pandas' message quotes the cell
        return values.reindex(text.index)

    @classmethod
    def _format(cls, spec, where, resolution):
        """The declared ``"format"``: a strftime format that writes a timestamp at the
        resolution and reads it back; None when absent."""
        text_format = spec.get("format")
        if text_format is None:
            return None
        probe = _PROBE.floor(resolution)
        back = None
        if isinstance(text_format, str) and "%" in text_format:
            try:
                back = pd.to_datetime(probe.strftime(text_format), format=text_format)
            except (ValueError, TypeError):
                back = None
        if back != probe:
            raise ValueError(
                f"{where}['format'] must be a strftime format that writes a datetime at "
                f"the column's resolution {resolution!r} and reads it back (such as "
                "'%Y/%m/%d' for dates, with \"resolution\": \"D\", or '%d/%m/%Y %H:%M'); "
                f"got {text_format!r}."
            )
        return text_format

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
