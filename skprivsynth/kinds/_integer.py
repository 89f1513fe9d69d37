"""Integer columns: integer codes ``range(K)``, one level per integer of a short range,
or bins of a wide one."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._numeric import Numeric
from ._specs import Levels
from ._values import MAX_INTEGER_LEVELS, as_int


class Integer(Numeric):
    """A column of integers.  A value is read as its integer part, rounded down (2.5 is
    2); decoded values are integers."""

    key = "integer"
    _decimals_accepted = (-15, 0)

    @property
    def step(self):
        """1, or ``10**-decimals`` for a declared recording in whole tens, hundreds..."""
        decimals = getattr(self.spec, "decimals", None)
        return 10**-decimals if decimals is not None and decimals < 0 else 1

    def numbers(self, values):
        return np.floor(super().numbers(values))

    def level_array(self):
        return np.asarray(self.levels)

    def output_dtype(self, dtype, declared_levels):
        """Integers read as floats or text decode to ``int64`` (``Int64`` with missing
        values); a categorical input dtype is read as for levels."""
        integral = pd.api.types.is_integer_dtype(dtype) or pd.api.types.is_bool_dtype(dtype)
        if not (integral or isinstance(dtype, pd.CategoricalDtype)):
            dtype = np.dtype(np.int64)
        return super().output_dtype(dtype, declared_levels)

    def _json_number(self, number):
        return as_int(number)

    def _precision_json(self):
        decimals = getattr(self.spec, "decimals", None)
        return {"decimals": decimals} if decimals is not None and decimals < 0 else {}

    def describe(self):
        if isinstance(self.spec, range):
            return f"integer codes 0..{len(self.spec) - 1}"
        return super().describe()

    def to_json(self):
        spec = self.spec
        if isinstance(spec, range):
            return len(spec)
        if isinstance(spec, Levels):
            bounds = [spec.levels[0], spec.levels[-1]]
            return {"type": "integer", "range": bounds, **self._missing_json()}
        return super().to_json()

    def _level_codes(self, values):
        spec = self.spec
        if isinstance(spec, range):  # text "3" or 3.0 is 3
            return pd.Index(np.arange(len(spec))).get_indexer(_plain_values(values))
        codes = self.numbers(values) - spec.levels[0]
        inside = (codes >= 0) & (codes < len(spec.levels))
        return np.where(inside, codes, -1).astype(np.int64)

    def _cast(self, numbers, nullable):
        numbers = np.floor(numbers)  # as the encoder reads an integer column: 2.5 is 2
        return numbers.astype("Int64") if nullable else numbers.astype(np.int64)

    @property
    def integer_levels(self):
        """Whether the codes are one level per integer of a declared range."""
        return isinstance(self.spec, Levels)

    @property
    def numeric_codes(self):
        return self.binned or self.integer_levels

    @classmethod
    def _range_levels(cls, lo, hi, spec, where, missing, codes):
        if hi - lo + 1 > MAX_INTEGER_LEVELS or spec.get("decimals", 0) < 0:
            return None  # bins (of the multiples of a whole-hundreds recording)
        if spec.get("clip", False):
            raise ValueError(
                f"{where}: an integer range of at most {MAX_INTEGER_LEVELS} values is "
                f"one level per integer, which has no 'clip'; got {spec!r}."
            )
        return Levels(tuple(range(int(lo), int(hi) + 1)), True, "integer", missing, codes)


def _plain_values(values):
    values = pd.Series(values, copy=False)
    if isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype(object)
    if not pd.api.types.is_numeric_dtype(values.dtype):
        values = pd.to_numeric(values, errors="coerce")
    return values.to_numpy()
