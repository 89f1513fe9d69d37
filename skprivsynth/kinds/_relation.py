"""Relations between the columns of a domain: a column that is the sum of others
(:class:`Sum`), or one that is at least or at most another (:class:`Bound`).

A relation is declared in the column's spec (``"sum_of": [columns]``, ``"at_least":
column``, ``"at_most": column``) beside the column's own values; it says how the
column is synthesized so that every synthetic row keeps it exactly: a sum is computed
from its decoded parts (never modelled), a bounded column is modelled as its
non-negative gap to its bound, whose public range follows from the two declared
ranges, and decoded as the bound plus (or minus) the gap.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ._base import kind_of
from ._specs import Bins, Levels, Range

__all__ = ["RELATION_KEYS", "Bound", "Sum", "check_relations", "relation_order", "split_relation"]

#: The keys of a column spec that declare a relation to other columns.
RELATION_KEYS = ("sum_of", "at_least", "at_most")

#: The kinds of values a relation relates.
_NUMERIC = ("integer", "float", "datetime")


@dataclass(frozen=True)
class Sum:
    """A column that is the sum of other columns of the domain, declared ``"sum_of":
    [columns]`` beside its own type and range.

    It is a public function of its parts, so it is never modelled and no budget is
    spent on it: its values are computed from the decoded parts (rounded to its
    ``decimals``, when declared), and its values in the real data are never read.  Read
    more in the :ref:`User Guide <domain_file>`.

    Parameters
    ----------
    of : tuple of column names
        The parts: integer or float columns of the same domain (integer ones for an
        integer sum).
    """

    of: tuple
    #: The parsed specs of the column and of its parts (filled in by the domain).
    spec: object = field(default=None, compare=False, repr=False)
    parts: tuple = field(default=(), compare=False, repr=False)

    #: Whether the column is computed from others (not modelled).
    computed = True

    @property
    def columns(self):
        """The columns the relation reads."""
        return tuple(self.of)

    def to_json(self):
        """``{"sum_of": [columns]}``."""
        return {"sum_of": list(self.of)}

    def values(self, decoded):
        """The sums of the decoded parts (``decoded``: column -> Series), NaN where one
        is missing, rounded to the column's decimals."""
        parts = zip(self.of, self.parts, strict=True)
        total = sum(kind_of(spec).numbers(decoded[c]) for c, spec in parts)
        decimals = getattr(self.spec, "decimals", None)
        return total if decimals is None else np.round(total, decimals)


@dataclass(frozen=True)
class Bound:
    """A column at least (``side="at_least"``: on or after, for datetimes) or at most
    (``"at_most"``) another column of the domain, declared ``"at_least": column`` or
    ``"at_most": column`` beside its own type and range.

    The column is modelled as its gap to the other, ``column - other`` (``other -
    column`` for ``"at_most"``), in ``[0, G]`` where ``G`` follows from the declared
    ranges only (``hi - other_lo``, ``other_hi - lo``), in units of the resolution
    of a datetime.  It is decoded as ``other + gap`` (``other - gap``) inside its
    range, so every synthetic row keeps the order.  A real row that breaks it has its
    gap clipped to ``[0, G]``: it is read as equal to its bound (no data-dependent
    error on a private path).  Read more in the :ref:`User Guide <domain_file>`.

    Parameters
    ----------
    of : column name
        The bound: a column of the same kind (and resolution) and not a part of a
        datetime.
    side : {"at_least", "at_most"}
    """

    of: object
    side: str
    #: The parsed specs of the column and of its bound (filled in by the domain).
    spec: object = field(default=None, compare=False, repr=False)
    other: object = field(default=None, compare=False, repr=False)
    gap: object = field(default=None, compare=False, repr=False)

    computed = False

    @property
    def columns(self):
        """The columns the relation reads."""
        return (self.of,)

    def to_json(self):
        """``{side: column}``."""
        return {self.side: self.of}

    @property
    def _sign(self):
        return 1.0 if self.side == "at_least" else -1.0

    @property
    def _unit(self):
        """The unit of a gap: the resolution of a datetime (1 for numbers)."""
        return kind_of(self.spec).step or 1.0

    def _limits(self):
        """The smallest and largest values the column decodes to (on its grid)."""
        lo, hi = bounds(self.spec)
        step = kind_of(self.spec).step
        if step:
            lo, hi = np.ceil(lo / step) * step, np.floor(hi / step) * step
        return lo, hi

    @property
    def largest_gap(self):
        """``G``: the largest gap, in units of the column (public: from the declared
        ranges of the two columns)."""
        lo, hi = bounds(self.spec)
        other_lo, other_hi = bounds(self.other)
        span = hi - other_lo if self.side == "at_least" else other_hi - lo
        step = kind_of(self.spec).step
        return float(np.floor(span / step)) if step else float(span)

    def gap_json(self):
        """The JSON form of the gap: a range ``[0, G]`` of the column's numbers
        (integers in units of the resolution for a datetime), missing where it is."""
        spec, name = self.spec, kind_of(self.spec).name
        gap = {"type": "integer" if name != "float" else "float"}
        gap["range"] = [0, int(self.largest_gap) if name != "float" else self.largest_gap]
        if getattr(spec, "decimals", None) is not None:
            gap["decimals"] = spec.decimals
        if kind_of(spec).missing:
            gap["missing"] = True
        return gap

    def gap_spec(self):
        """The parsed spec of the gap (:meth:`gap_json`, parsed by the domain's parser
        when the relation is checked)."""
        return self.gap

    def gaps(self, values, other):
        """The gaps of ``values`` to ``other`` (Series of the column and of its bound),
        clipped to ``[0, G]``; NaN where either is missing."""
        unit = self._unit
        gap = self._sign * (kind_of(self.spec).numbers(values) - kind_of(self.other).numbers(other))
        gap = np.clip(gap / unit, 0.0, self.largest_gap)
        return np.floor(gap) if kind_of(self.spec).name != "float" else gap

    def values(self, gaps, other):
        """The column's numbers from decoded ``gaps`` (float numbers) and its decoded
        bound ``other``: ``other + gap`` (``other - gap``) inside the column's range,
        never on the wrong side of ``other``."""
        bound = kind_of(self.other).numbers(other)
        values = bound + self._sign * np.asarray(gaps, dtype=np.float64) * self._unit
        decimals = getattr(self.spec, "decimals", None)
        if decimals is not None:
            values = np.round(values, decimals)
        lo, hi = self._limits()
        values = np.clip(values, lo, hi)
        keep = np.maximum if self.side == "at_least" else np.minimum  # NaN stays NaN
        return keep(values, bound)


def bounds(spec):
    """The smallest and largest numbers of a numeric parsed spec."""
    if isinstance(spec, Range):
        return spec.lo, spec.hi
    if isinstance(spec, Bins):
        return spec.edges[0], spec.edges[-1]
    levels = spec.levels if isinstance(spec, Levels) else spec
    return float(levels[0]), float(levels[-1])


def split_relation(spec, where):
    """``(spec, relation)``: a column spec without its relation key, and the
    :class:`Sum` or :class:`Bound` it declares (None)."""
    if not isinstance(spec, Mapping):
        return spec, None
    keys = [k for k in RELATION_KEYS if k in spec]
    if not keys:
        return spec, None
    if len(keys) > 1 or "part_of" in spec:
        raise ValueError(
            f"{where} declares at most one relation ('sum_of': [columns], 'at_least': "
            f"column or 'at_most': column), and not on a part of a datetime; got keys "
            f"{keys + ['part_of'] * ('part_of' in spec)}."
        )
    key = keys[0]
    value = spec[key]
    rest = {k: v for k, v in spec.items() if k != key}
    if key == "sum_of":
        if isinstance(value, str) or not isinstance(value, list | tuple) or not value:
            raise TypeError(f"{where}['sum_of'] must be a list of column names; got {value!r}.")
        names = tuple(value)
        _check_names(names, f"{where}['sum_of']")
        if len(set(names)) != len(names):
            raise ValueError(f"{where}['sum_of'] must name distinct columns; got {value!r}.")
        return rest, Sum(names)
    _check_names((value,), f"{where}[{key!r}]")
    return rest, Bound(value, key)


def _check_names(names, where):
    for name in names:
        try:
            hash(name)
        except TypeError as exc:
            raise TypeError(f"{where} must name columns; got {name!r}.") from exc


def check_relations(specs, relations, name):
    """The relations with the specs they read filled in, each checked against the
    parsed ``specs`` (``(column, spec)`` pairs): known columns of numbers, of one kind,
    ranges that leave room for the relation, missing values declared where they can
    occur, no cycle.  Errors name the column and what is accepted (public: only the
    declaration is read)."""
    by_name = dict(specs)
    resolved = []
    for column, relation in relations:
        where = f"{name}[{column!r}]"
        key = "sum_of" if relation.computed else relation.side
        own = kind_of(by_name[column])
        if (
            own.name not in _NUMERIC
            or own.is_part
            or (relation.computed and own.name == "datetime")
        ):
            accepted = "'integer' or 'float'"
            if not relation.computed:
                accepted = "'integer', 'float' or 'datetime'"
            raise ValueError(
                f"{where}[{key!r}]: a column with this relation must be declared with "
                f"'type' {accepted} and a 'range'; got a column of kind {own.name!r}."
            )
        numbers = [c for c, s in specs if kind_of(s).name in _NUMERIC and not kind_of(s).is_part]
        for other in relation.columns:
            if other == column or other not in by_name or kind_of(by_name[other]).is_part:
                raise ValueError(
                    f"{where}[{key!r}] must name other columns of the same domain with "
                    f"values of their own (integer, float or datetime, not parts of a "
                    f"datetime); got {other!r}, and those columns are {numbers!r}."
                )
        checked = _checked_sum if relation.computed else _checked_bound
        resolved.append((column, checked(where, column, relation, by_name)))
    _check_acyclic(resolved, name)
    return tuple(resolved)


def _checked_sum(where, column, relation, by_name):
    """A :class:`Sum` whose parts are integer or float columns (integer ones for an
    integer sum) whose sums fit in the column's range, and whose column declares
    missing values when a part does."""
    spec = by_name[column]
    own = kind_of(spec)
    parts = [by_name[c] for c in relation.of]
    accepted = ("integer",) if own.name == "integer" else ("integer", "float")
    for part, part_spec in zip(relation.of, parts, strict=True):
        if kind_of(part_spec).name not in accepted:
            raise ValueError(
                f"{where}['sum_of']: the parts of a{'n' if own.name == 'integer' else ''} "
                f"{own.name} sum must be {' or '.join(accepted)} columns; got {part!r} of "
                f"kind {kind_of(part_spec).name!r}."
            )
    lo, hi = (sum(bounds(p)[k] for p in parts) for k in (0, 1))
    own_lo, own_hi = bounds(spec)
    if lo < own_lo or hi > own_hi:
        raise ValueError(
            f"{where}: the sums of its parts {list(relation.of)!r} lie in [{lo:g}, {hi:g}] "
            f"(from their declared ranges), outside its range [{own_lo:g}, {own_hi:g}]; "
            f"declare a 'range' that holds [{lo:g}, {hi:g}]."
        )
    missing = any(kind_of(p).missing for p in parts)
    if missing != own.missing:
        raise ValueError(
            f"{where}: a sum is missing exactly where one of its parts is, so it declares "
            f'"missing": true if and only if one of {list(relation.of)!r} does; got '
            f"{own.missing} for the sum and {missing} for its parts."
        )
    return Sum(relation.of, spec, tuple(parts))


def _checked_bound(where, column, relation, by_name):
    """A :class:`Bound` between two columns of one kind (and resolution) whose ranges
    leave room for every value of the bound, and whose column declares missing values
    when its bound does."""
    spec, other = by_name[column], by_name[relation.of]
    own, theirs = kind_of(spec), kind_of(other)
    key = relation.side
    if theirs.name != own.name or own.step != theirs.step:
        what = own.name
        if own.name == "datetime":
            what = f"datetime at resolution {spec.resolution!r}"
        raise ValueError(
            f"{where}[{key!r}] must name a column of the same kind ({what}); got "
            f"{relation.of!r} of kind {theirs.name!r}"
            + (f" at resolution {other.resolution!r}." if theirs.name == "datetime" else ".")
        )
    (lo, hi), (other_lo, other_hi) = bounds(spec), bounds(other)
    room = other_hi <= hi if key == "at_least" else other_lo >= lo
    if not room:
        which, bound, theirs_bound, order = (
            ("upper", hi, other_hi, "at most")
            if key == "at_least"
            else ("lower", lo, other_lo, "at least")
        )
        raise ValueError(
            f"{where}[{key!r}]: every value of {relation.of!r} needs a value of the "
            f"column {key.replace('_', ' ')} it inside the column's range, so the "
            f"{which} bound of {relation.of!r}'s range ({theirs.show(theirs_bound)}) "
            f"must be {order} the column's ({own.show(bound)})."
        )
    if theirs.missing and not own.missing:
        raise ValueError(
            f"{where}[{key!r}]: the column is missing where {relation.of!r} is, so it "
            f'declares "missing": true as {relation.of!r} does.'
        )
    bound = Bound(relation.of, key, spec, other)
    if bound.largest_gap < 1 and own.name != "float" or bound.largest_gap <= 0:
        raise ValueError(
            f"{where}[{key!r}]: the ranges leave a single value to the column (it equals "
            f"{relation.of!r}); declare wider ranges, or leave the column out."
        )
    return bound


def _check_acyclic(relations, name):
    """Refuse a relation that reads, through others, its own column."""
    reads = {column: relation.columns for column, relation in relations}
    state = {}

    def visit(column, path):
        if state.get(column) == "done" or column not in reads:
            return
        if state.get(column) == "open":
            cycle = path[path.index(column) :] + [column]
            raise ValueError(
                f"{name}: the relations of columns {cycle!r} form a cycle (each reads the "
                "next); a column can be computed or bounded only from columns that do "
                "not read it back."
            )
        state[column] = "open"
        for other in reads[column]:
            visit(other, [*path, column])
        state[column] = "done"

    for column in reads:
        visit(column, [])


def relation_order(relations):
    """The columns of ``relations`` (column -> relation), each after the relation
    columns it reads (the order they are decoded in)."""
    order, seen = [], set()

    def visit(column):
        if column in seen or column not in relations:
            return
        seen.add(column)
        for other in relations[column].columns:
            visit(other)
        order.append(column)

    for column in relations:
        visit(column)
    return order
