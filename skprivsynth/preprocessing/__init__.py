"""Encoders between a table and the codes synthesizers work on.

:class:`BooleanEncoder` turns a table (a :class:`pandas.DataFrame` of mixed dtypes or a
2-D array) into codes, one block per input column: one-hot bits (the default), the
binary digits of each code's index (``encoding="binary"``), or the index itself
(``encoding="ordinal"``, for synthesizers of integer codes); it decodes synthetic
codes back to the original columns and dtypes.  :func:`private_level_frequencies`
releases level frequencies with differential privacy, as decoding weights.
:func:`boolean_cube_to_signs` and :func:`signs_to_boolean_cube` are the affine "cube
maps" between ``{0, 1}`` and ``{-1, 1}`` used by sign-based mechanisms.

**Privacy of the encoding.**  An encoding is *public* only if its domain (categories,
bin edges) does not depend on the private records.  Declare the domain with the
``categories`` parameter; every column whose domain is learned from the data triggers
a :class:`~skprivsynth.exceptions.PrivacyLeakWarning` naming it.
"""

from ._counts import private_level_frequencies
from ._cube import boolean_cube_to_signs, signs_to_boolean_cube
from ._encoder import BooleanEncoder

__all__ = [
    "BooleanEncoder",
    "boolean_cube_to_signs",
    "private_level_frequencies",
    "signs_to_boolean_cube",
]
