"""The kinds of a table's columns: what their values are and how they are coded.

A column's spec in a :class:`~skprivsynth.Domain` says how it is coded (levels, bins,
a range whose bins are chosen at fit time, a part of a datetime column); its kind,
:func:`kind_of`, says what its values are (categorical, integer, float, datetime,
boolean, a datetime part) and owns everything that depends on it: codes and labels,
the JSON form, how a CSV cell is read.  Code outside this package asks a kind rather
than switching on it.  A relation between columns (:class:`Sum`, :class:`Bound`) is
declared beside a column's spec and owns how the column is coded and decoded from the
columns it reads.

Read more in the :ref:`User Guide <domain_file>`.
"""

from ._base import Kind, kind_of
from ._boolean import Boolean
from ._categorical import Categorical
from ._datetime import Datetime
from ._draft import draft_domain, zero_padded_columns
from ._floating import Float
from ._infer import (
    as_numbers,
    evaluation_spec,
    learned_spec,
    observed_levels,
    quantile_bins,
    reads_as_numbers,
)
from ._integer import Integer
from ._parse import parse_column, parse_columns
from ._part import Part
from ._relation import RELATION_KEYS, Bound, Sum, relation_order
from ._specs import Bins, DatetimePart, Levels, Range
from ._values import (
    DATETIME_PARTS,
    MAX_INTEGER_LEVELS,
    MISSING,
    MISSING_TEXT,
    NA_MARKERS,
    RESOLUTIONS,
    isna,
    iso,
    nullable_dtype,
    object_array,
)

__all__ = [
    "DATETIME_PARTS",
    "MAX_INTEGER_LEVELS",
    "MISSING",
    "MISSING_TEXT",
    "NA_MARKERS",
    "RELATION_KEYS",
    "RESOLUTIONS",
    "Bins",
    "Boolean",
    "Bound",
    "Categorical",
    "Datetime",
    "DatetimePart",
    "Float",
    "Integer",
    "Kind",
    "Levels",
    "Part",
    "Range",
    "Sum",
    "as_numbers",
    "draft_domain",
    "evaluation_spec",
    "isna",
    "iso",
    "kind_of",
    "learned_spec",
    "nullable_dtype",
    "object_array",
    "observed_levels",
    "parse_column",
    "parse_columns",
    "quantile_bins",
    "reads_as_numbers",
    "relation_order",
    "zero_padded_columns",
]
