"""Float columns: real numbers in bins."""

from __future__ import annotations

from ._numeric import Numeric


class Float(Numeric):
    """A column of real numbers, declared ``{"type": "float", "range": [lo, hi]}`` or
    ``{"bins": [e0, ..., eB]}``, decoded inside its bins (rounded to ``decimals``)."""

    key = "float"

    def to_json(self):
        out = super().to_json()
        if not self.bins_at_fit:  # declared bins are floats: no type needed
            del out["type"]
        return out
