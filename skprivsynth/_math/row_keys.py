"""One sortable, hashable key per Boolean row (the row's bits packed)."""

from __future__ import annotations

import numpy as np

__all__ = ["row_keys"]


def row_keys(Z):
    """One key per row of the Boolean matrix ``Z``: equal keys ⇔ equal rows.

    The bits of each row are packed (``np.packbits``); up to 64 columns a key is one
    big-endian ``uint64`` (fast to sort and compare), beyond that a void scalar of
    ``ceil(p/8)`` bytes.  Either way keys sort in the lexicographic order of the
    packed bytes.
    """
    packed = np.packbits(np.asarray(Z).astype(np.uint8, copy=False), axis=1)
    n, width = packed.shape
    if width <= 8:
        padded = np.zeros((n, 8), dtype=np.uint8)
        padded[:, :width] = packed
        return padded.view(">u8").ravel()
    packed = np.ascontiguousarray(packed)
    return packed.view(np.dtype((np.void, width))).ravel()
