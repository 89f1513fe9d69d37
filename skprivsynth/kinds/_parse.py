"""Parsing of column specs: the one parser behind :class:`~skprivsynth.Domain`."""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Mapping
from numbers import Integral

import numpy as np
import pandas as pd

from ._base import Kind, kind_of
from ._categorical import Categorical, parse_levels
from ._part import Part
from ._relation import RELATION_KEYS, check_relations, split_relation
from ._specs import Bins, DatetimePart, Levels, Range
from ._values import check_flag

#: The keys of each dict form (``None``: bins or a range without a type: floats).
_KEYS = {
    None: {"bins", "clip", "range", "missing", "decimals"},
    "levels": {"levels", "ordered", "missing"},
    "boolean": {"type", "missing"},
    "integer": {"type", "range", "bins", "clip", "missing", "decimals"},
    "float": {"type", "range", "bins", "clip", "missing", "decimals"},
    "datetime": {"type", "range", "bins", "resolution", "format", "clip", "missing"},
}
_FORM_NAMES = {
    None: "a column of bins",
    "levels": "a column of levels",
    "boolean": "a boolean column",
    "integer": "an integer column",
    "float": "a float column",
    "datetime": "a datetime column",
}


def parse_column(spec, where):
    """The parsed spec (levels as a tuple, ``range(K)`` or :class:`Levels`;
    :class:`Bins`, :class:`Range` or :class:`DatetimePart`) of one column spec in any
    of the forms :class:`~skprivsynth.Domain` accepts; errors name ``where``."""
    if isinstance(spec, Levels | Bins | Range | DatetimePart):
        spec = kind_of(spec).to_json()  # validated again: a spec may be built by hand
    elif isinstance(spec, range) and spec.start == 0 and spec.step == 1:
        spec = len(spec)
    if isinstance(spec, Integral | np.integer) and not isinstance(spec, bool | np.bool_):
        if spec < 1:
            raise ValueError(
                f"{where} must be a positive number of integer codes 0..K-1; got {spec!r}."
            )
        return range(int(spec))
    if isinstance(spec, Mapping):
        return _parse_dict(spec, where)
    if isinstance(spec, pd.CategoricalDtype):
        if spec.ordered:
            return Levels(parse_levels(list(spec.categories), where, spec), ordered=True)
        spec = list(spec.categories)
    return parse_levels(spec, where, spec)


def parse_columns(items, name):
    """``(specs, relations)``: ``((column, spec), ...)`` parsed from ``(column, spec)``
    pairs, each part of a datetime checked against its column, and ``((column,
    relation), ...)`` the relations the specs declare (:func:`split_relation`), checked
    against the columns; errors name the parameter ``name``."""
    specs, relations = [], []
    for column, value in items:
        where = f"{name}[{column!r}]"
        value, relation = split_relation(value, where)
        specs.append((column, parse_column(value, where)))
        if relation is not None:
            relations.append((column, relation))
    specs = tuple(specs)
    _check_parts(specs, name)
    return specs, tuple(
        (column, _with_gap(relation, f"the gap of {name}[{column!r}]"))
        for column, relation in check_relations(specs, relations, name)
    )


def _with_gap(relation, where):
    """A checked relation with the parsed spec of its gap (a bound; a sum has none)."""
    if relation.computed:
        return relation
    return dataclasses.replace(relation, gap=parse_column(relation.gap_json(), where))


def _check_parts(specs, name):
    """Every :class:`DatetimePart` names a datetime column of ``specs`` that is not a
    part itself, and declares missing values as it does."""
    by_name = dict(specs)
    datetimes = [c for c, s in specs if kind_of(s).key == "datetime"]
    for column, spec in specs:
        if not kind_of(spec).is_part:
            continue
        where = f"{name}[{column!r}]"
        if spec.of not in datetimes:
            raise ValueError(
                f"{where}['part_of'] must name a datetime column of the same domain "
                f"(declared {{'type': 'datetime', ...}}); got {spec.of!r}, and the datetime "
                f"columns are {datetimes!r}."
            )
        of = by_name[spec.of]
        if spec.missing != bool(of.missing):
            raise ValueError(
                f"{where}: a part is missing exactly where its datetime column "
                f'{spec.of!r} is, so it declares "missing": true if and only if that '
                f"column does; got {spec.missing} for the part and {bool(of.missing)} for "
                "the datetime."
            )


def _parse_dict(spec, where):
    if "part_of" in spec:
        return Part.parse(spec, where)
    kind = spec.get("type")
    form = "levels" if "levels" in spec and kind is None else kind
    if form not in _KEYS:
        raise ValueError(
            f"{where}['type'] must be one of 'integer', 'float', 'datetime', 'boolean'; "
            f"got {kind!r}."
        )
    unknown = set(spec) - _KEYS[form]
    if unknown and (form is not None or {"bins", "range"} & set(spec)):  # a typo'd key
        relations = set(RELATION_KEYS) if form not in ("levels", "boolean") else set()
        accepted = sorted(_KEYS[form] | relations)
        hints = [
            f"{key!r} (did you mean {close[0]!r}?)" if close else repr(key)
            for key in sorted(map(str, unknown))
            for close in [difflib.get_close_matches(key, accepted, n=1)]
        ]
        raise ValueError(
            f"{where} has unknown keys {', '.join(hints)}; {_FORM_NAMES[form]} accepts {accepted}."
        )
    if form in (None, "float", "integer", "datetime") and not {"bins", "range"} & set(spec):
        raise ValueError(
            f"{where} given as a dict must be {{'bins': [e0, ..., eB]}} with optional "
            "'clip': bool, {'levels': [...], 'ordered': bool} or {'type': ..., 'range': "
            f"[lo, hi]}}, each with optional 'missing' (a bool, or the values that stand for "
            f"missing); got keys {sorted(map(str, spec))}."
        )
    cls = Categorical if form == "levels" else Kind._registry[form or "float"]
    codes = _missing_codes(spec, cls, where)
    missing = bool(codes) or check_flag(spec, "missing", where)
    return cls.parse(spec, where, missing, codes)


def _missing_codes(spec, cls, where):
    """The values listed by ``"missing": [v, ...]``; ``()`` for a bool or no key."""
    value = spec.get("missing", False)
    if isinstance(value, bool | np.bool_):
        return ()
    if cls.key not in ("integer", "float", "categorical") or not isinstance(value, list | tuple):
        raise TypeError(
            f"{where}['missing'] must be a bool, or for an integer, float or levels column "
            f"the list of values that stand for missing (e.g. [98, 99]); got {value!r}."
        )
    return cls.parse_missing_codes(value, spec, where)
