"""The public domain of a table: its columns with their levels or numeric bin edges.

A :class:`Domain` is what the data owner declares *before* looking at the data: for
every column, either its levels (categories, integer codes) or the edges of public
numeric bins.  Encoders, metrics and the command line read it through one parser, so
every form accepted by one of them is accepted by all.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Set
from dataclasses import dataclass
from numbers import Integral

import numpy as np
import pandas as pd

__all__ = ["Bins", "Domain"]

_ACCEPTED = (
    "an int K (codes 0..K-1), a list of levels, a pandas.CategoricalDtype or "
    "{'bins': [e0, ..., eB], 'clip': bool}"
)


@dataclass(frozen=True)
class Bins:
    """Public numeric bins ``[e_k, e_{k+1})`` of a column (the last bin is closed).

    Parameters
    ----------
    edges : tuple of float
        Strictly increasing, finite, at least two.
    clip : bool, default=False
        Whether values outside ``[e_0, e_B]`` fall in the end bins (else they are
        outside the domain).
    """

    edges: tuple[float, ...]
    clip: bool = False

    def __len__(self):
        """Number of bins ``B``."""
        return len(self.edges) - 1


@dataclass(frozen=True, init=False, repr=False, eq=False)
class Domain(Mapping):
    """Immutable, ordered mapping of column names to their public domain.

    Each column is either a tuple of **levels** (``range(K)`` for integer codes
    ``0..K-1``) or :class:`Bins` (public numeric bin edges).  The number of codes of
    a column, ``len(domain[column])``, is its number of levels or bins.

    Read more in the :ref:`User Guide <domain_file>`.

    Parameters
    ----------
    spec : dict, list or Domain
        A dict maps column names to specs; a list gives one spec per column, named
        ``0, 1, ...``.  A spec is an int ``K`` (codes ``0..K-1``), a list of levels
        (or a :class:`pandas.CategoricalDtype`), ``{"bins": [e0, ..., eB]}`` with an
        optional ``"clip": bool`` (see :class:`Bins`), or a value of another
        ``Domain``.  :func:`skprivsynth.datasets.load_adult` ``.domain`` and the
        ``--domain`` file of the command line are such dicts.

    Attributes
    ----------
    columns : tuple
        Column names, in order.
    sizes : tuple of int
        Number of codes (levels or bins) of each column.

    See Also
    --------
    skprivsynth.preprocessing.BooleanEncoder : Encodes a table on a declared domain.

    Examples
    --------
    >>> from skprivsynth import Domain
    >>> domain = Domain({"sex": ["F", "M"], "age": 85, "income": {"bins": [0, 1e4, 1e6]}})
    >>> domain.columns, domain.sizes
    (('sex', 'age', 'income'), (2, 85, 2))
    >>> domain["sex"], domain["income"]
    (('F', 'M'), Bins(edges=(0.0, 10000.0, 1000000.0), clip=False))
    >>> domain.project(["income", "sex"])
    Domain({'income': {'bins': [0.0, 10000.0, 1000000.0]}, 'sex': ['F', 'M']})
    >>> Domain(domain.to_dict()) == domain
    True
    """

    _specs: tuple

    def __init__(self, spec):
        object.__setattr__(self, "_specs", _parse_domain(spec, "domain"))

    @classmethod
    def from_json(cls, path):
        """Read a domain file: a JSON object column -> spec.

        Parameters
        ----------
        path : str or path-like

        Returns
        -------
        Domain
        """
        with open(path) as handle:
            try:
                spec = json.load(handle)
            except json.JSONDecodeError as exc:
                raise ValueError(f"domain file {str(path)!r} is not valid JSON: {exc}") from exc
        if not isinstance(spec, dict):
            raise ValueError(
                f"domain file {str(path)!r} must hold a JSON object column -> spec; "
                f"got a {type(spec).__name__}."
            )
        try:
            return cls(spec)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"domain file {str(path)!r}: {exc}") from exc

    @property
    def columns(self):
        return tuple(name for name, _ in self._specs)

    @property
    def sizes(self):
        return tuple(len(spec) for _, spec in self._specs)

    def project(self, columns):
        """The domain of ``columns`` only, in the order given.

        Parameters
        ----------
        columns : column name or iterable of column names

        Returns
        -------
        Domain
        """
        if isinstance(columns, str) or not hasattr(columns, "__iter__"):
            columns = [columns]
        columns = list(columns)
        missing = [c for c in columns if c not in self]
        if missing:
            raise ValueError(
                f"columns {missing!r} are not in the domain; its columns are {list(self)!r}."
            )
        return Domain({c: self[c] for c in columns})

    def to_dict(self):
        """The domain as a JSON-ready dict of specs (``Domain(d.to_dict()) == d``).

        Returns
        -------
        dict
            Column -> int ``K``, list of levels or ``{"bins": [...]}`` (with
            ``"clip": True`` when set).
        """
        return {name: _to_spec(spec) for name, spec in self._specs}

    def __getitem__(self, column):
        for name, spec in self._specs:
            if name == column:
                return spec
        raise KeyError(column)

    def __iter__(self):
        return iter(self.columns)

    def __len__(self):
        return len(self._specs)

    def __eq__(self, other):
        if not isinstance(other, Domain):
            return NotImplemented
        return self._specs == other._specs

    def __hash__(self):
        return hash(self._specs)

    def __repr__(self):
        return f"Domain({self.to_dict()!r})"


def _as_domain(spec, name):
    """``spec`` as a :class:`Domain`; parse errors name the parameter ``name``."""
    if isinstance(spec, Domain):
        return spec
    domain = object.__new__(Domain)
    object.__setattr__(domain, "_specs", _parse_domain(spec, name))
    return domain


def _to_spec(spec):
    if isinstance(spec, Bins):
        return {"bins": list(spec.edges), **({"clip": True} if spec.clip else {})}
    if isinstance(spec, range):
        return len(spec)
    return list(spec)


def _parse_domain(spec, name):
    """``((column, levels or Bins), ...)`` from a dict or list of specs."""
    if isinstance(spec, Domain):
        return spec._specs
    if isinstance(spec, Mapping):
        items = list(spec.items())
    elif isinstance(spec, list | tuple):
        items = list(enumerate(spec))
    else:
        raise TypeError(
            f"{name} must be a dict column -> spec, a list of specs or a Domain; got {spec!r}."
        )
    return tuple((column, _parse_column(value, f"{name}[{column!r}]")) for column, value in items)


def _parse_column(spec, where):
    """Levels (a tuple, or ``range(K)``) or :class:`Bins` from one column spec."""
    if isinstance(spec, Bins):
        spec = _to_spec(spec)  # validated again: a Bins may be built by hand
    elif isinstance(spec, range) and spec.start == 0 and spec.step == 1:
        spec = len(spec)
    if isinstance(spec, Integral | np.integer) and not isinstance(spec, bool | np.bool_):
        if spec < 1:
            raise ValueError(
                f"{where} must be a positive number of integer codes 0..K-1; got {spec!r}."
            )
        return range(int(spec))
    if isinstance(spec, Mapping):
        return _parse_bins(spec, where)
    if isinstance(spec, pd.CategoricalDtype):
        spec = list(spec.categories)
    try:
        if isinstance(spec, str | bytes | bool | np.bool_ | Set):
            raise TypeError
        levels = tuple(v.item() if isinstance(v, np.generic) else v for v in spec)
    except TypeError as exc:
        raise TypeError(f"{where} must be {_ACCEPTED}; got {spec!r}.") from exc
    if not levels:
        raise ValueError(f"{where} must list at least one level; got {spec!r}.")
    try:
        hash(levels)
    except TypeError as exc:
        raise TypeError(f"{where} must list hashable levels; got {spec!r}.") from exc
    if pd.isna(_object_array(levels)).any():
        raise ValueError(f"{where} must not contain missing values; got {spec!r}.")
    if pd.Index(_object_array(levels)).has_duplicates:
        raise ValueError(f"{where} lists a level twice; got {spec!r}.")
    return levels


def _parse_bins(spec, where):
    unknown = set(spec) - {"bins", "clip"}
    if "bins" not in spec or unknown:
        raise ValueError(
            f"{where} given as a dict must be {{'bins': [e0, ..., eB]}} with optional "
            f"'clip': bool; got keys {sorted(map(str, spec))}."
        )
    try:
        edges = np.asarray(spec["bins"], dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{where}['bins'] must be a list of numbers; got {spec['bins']!r}."
        ) from exc
    if edges.ndim != 1 or edges.size < 2:
        raise ValueError(f"{where}['bins'] needs at least 2 edges; got {spec['bins']!r}.")
    if not np.isfinite(edges).all() or not (np.diff(edges) > 0).all():
        raise ValueError(
            f"{where}['bins'] must be finite and strictly increasing; got {spec['bins']!r}."
        )
    clip = spec.get("clip", False)
    if not isinstance(clip, bool | np.bool_):
        raise TypeError(f"{where}['clip'] must be a bool; got {clip!r}.")
    return Bins(tuple(edges.tolist()), bool(clip))


def _codes(values, spec):
    """Code of each value of a column under ``spec`` (levels or Bins); -1 outside."""
    if isinstance(spec, Bins):
        edges = np.asarray(spec.edges)
        values = np.asarray(values, dtype=np.float64)
        if spec.clip:
            values = np.clip(values, edges[0], edges[-1])
        codes = np.minimum(np.searchsorted(edges, values, side="right") - 1, edges.size - 2)
        codes[~((values >= edges[0]) & (values <= edges[-1]))] = -1  # NaN is outside too
        return codes
    levels = pd.Index(np.arange(len(spec)) if isinstance(spec, range) else _object_array(spec))
    return levels.get_indexer(np.asarray(values))


def _object_array(values):
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out
