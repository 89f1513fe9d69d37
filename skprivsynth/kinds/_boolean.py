"""Boolean columns: ``(False, True)``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._base import Kind
from ._specs import Levels

#: The CSV text of True and of False.
TRUE_TEXT = frozenset({"True", "true", "TRUE", "1"})
FALSE_TEXT = frozenset({"False", "false", "FALSE", "0"})


class Boolean(Kind):
    """A column of truth values, declared ``{"type": "boolean"}``: the levels
    ``(False, True)``."""

    key = "boolean"

    def output_dtype(self, dtype, declared_levels):
        """``bool`` whatever the input dtype (``"boolean"`` with missing values)."""
        return pd.BooleanDtype() if self.missing else np.dtype(bool)

    def to_json(self):
        return {"type": "boolean", **self._missing_json()}

    #: Cells are read as text and parsed here: pandas' own guess is bool, int or
    #: float depending on the spellings and missing cells of each chunk.
    csv_as_text = True

    def parse_csv(self, text, absent, nullable, column, what):
        present = text[~absent]
        known = present.isin(TRUE_TEXT | FALSE_TEXT)
        if not known.all():
            raise ValueError(
                f"column {column!r} of {what} is declared boolean, but some cells "
                f"are not one of {sorted(TRUE_TEXT | FALSE_TEXT)}."
            )
        values = present.isin(TRUE_TEXT)
        if nullable:
            return values.astype("boolean").reindex(text.index)
        return values.astype(bool)

    def is_missing_code(self, values):
        return np.zeros(len(values), dtype=bool)

    @classmethod
    def parse(cls, spec, where, missing, codes):
        """The parsed spec of ``{"type": "boolean"}``."""
        return Levels((False, True), True, "boolean", missing)
