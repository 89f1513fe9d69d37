"""The statistics of the encoder's private releases: the fine histograms (and grid
points) of the declared ranges, whose bins are released at fit, and the counts of
declared levels and bins behind :func:`private_level_frequencies`.

Each statistic is a function of a DataFrame chunk whose results add up over chunks
(:func:`~skprivsynth.chunks.reduce_chunks`), and checks the chunk against the declared
domain first.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from ..accountant import charge_active
from ..chunks import as_chunks, reduce_chunks
from ..domain import as_domain
from ..kinds import isna, kind_of
from ..privacy import PrivacyCost, PrivacyReport, check_epsilon
from ..privacy.binning import SUB_BINS
from ..validation import role_generator
from ._checks import _accepted, _check_declared_missing, _column_name

__all__ = ["private_level_frequencies"]

#: Depth of the fine histogram over a declared float range: ``2**_FINE_DEPTH`` cells.
_FINE_DEPTH = 10

#: Depth of the fine histogram over a declared integer or datetime range: one value a
#: cell up to ``2**_GRID_DEPTH`` values, so that values that recur (the distances of
#: a few routes, delays of whole minutes) keep their own bins where the data are dense.
_GRID_DEPTH = 14

#: Most points a grid may have for its values to be released on their own: keys and
#: values stay exact integers in float64.
_MAX_KEYS = 2**53


class _FineGrid:
    """The fine histogram of a declared :class:`~skprivsynth.domain.Range` (public).

    A float range ``[lo, hi]`` has ``C = 2**_FINE_DEPTH`` cells: the bounds themselves
    (cells ``[lo, lo⁺)`` and ``[hi⁻, hi]`` one float wide, so that a point mass at a
    bound, such as the zeros of an income, decodes to the bound) and ``C - 2`` equal
    cells between them.  An integer range (a datetime range: on the grid of its
    resolution) of ``N`` grid points has one point a cell when ``N <= C =
    2**_GRID_DEPTH``, in ``n_cells`` cells, the least power of two that covers them;
    otherwise its bounds' points have cells of their own too, and the ``N - 2`` points
    between them fill cells of ``w = ceil((N - 2)/(C - 2))`` points (the last one
    perhaps fewer).  The cells after the last grid point are empty: padding, from which
    PrivTree does not count its depths (``occupied``).

    Where the values lie on a public grid whose points a sub-bin would spread — an
    integer or datetime range (``per_cell`` points a cell, 1 up to ``2**_GRID_DEPTH``
    points: then a bin wider than ``SUB_BINS`` cells spreads several), a float range
    with declared ``decimals`` of 2 or more a cell — the grid's ``n_keys`` points are
    indexed (``keys``), so that the values that recur can be released on their own
    (:func:`~skprivsynth.privacy.binning.grid_points`); a float is counted at
    its declared decimals.  Elsewhere ``n_keys`` is 0.
    """

    def __init__(self, spec):
        self.spec = spec
        self.n_cells = 1 << _FINE_DEPTH
        self.step = kind_of(spec).step  # None: real values, without a grid
        self.occupied = self.n_cells  # cells that can hold values; the rest pad
        if self.step is None:
            self.inner = (np.nextafter(spec.lo, np.inf), np.nextafter(spec.hi, -np.inf))
            self.n_keys = self.per_cell = 0  # no public grid of values: real numbers
            if spec.decimals is not None:  # the multiples of 10**-decimals in the range
                self.scale = 10.0**spec.decimals
                self.key_first = math.ceil(spec.lo * self.scale - 1e-6)
                n = math.floor(spec.hi * self.scale + 1e-6) - self.key_first + 1
                self.per_cell = n / (self.n_cells - 2)
                self.n_keys = n if 2 <= self.per_cell and n <= _MAX_KEYS else 0
            return
        self.n_cells = 1 << _GRID_DEPTH
        self.first = math.ceil(spec.lo / self.step)
        self.n_points = n = math.floor(spec.hi / self.step) - self.first + 1
        self.width = 1  # points of a cell between the bounds
        if n <= self.n_cells:
            self.n_cells = 1 << (n - 1).bit_length()
            starts = np.arange(n)  # first point of each cell that holds any
        else:
            self.width = -(-(n - 2) // (self.n_cells - 2))
            starts = np.r_[0, np.arange(1, n - 1, self.width), n - 1]
        # starts[c]: first point of cell c; the empty cells start after the last point.
        self.starts = np.append(starts, np.full(self.n_cells + 1 - starts.size, n))
        self.occupied = starts.size
        # The grid's points (keys stay exact in floats): a wide bin's sub-bins hold
        # several of them even where a cell holds one.
        self.per_cell = self.width
        self.n_keys = n if n <= _MAX_KEYS else 0

    def keys(self, values):
        """Index of each value's point on the public grid of values (inside the range)."""
        if self.step is None:
            keys = np.rint(values * self.scale) - self.key_first
            return np.clip(keys, 0, self.n_keys - 1).astype(np.int64)
        keys = np.floor(values / self.step) - self.first
        return np.clip(keys, 0, self.n_points - 1).astype(np.int64)

    def key_values(self, keys):
        """The value of each point of the grid."""
        if self.step is None:
            return (self.key_first + np.asarray(keys, dtype=np.float64)) / self.scale
        return (self.first + np.asarray(keys, dtype=np.float64)) * self.step

    def key_cells(self, keys):
        """Cell of each point of the grid."""
        if self.step is None:
            return self.cells(self.key_values(keys))
        keys = np.asarray(keys, dtype=np.int64)
        if self.width == 1:
            return keys
        # The inverse of ``starts`` in integers (rather than a searchsorted).
        cells = 1 + (keys - 1) // self.width
        cells[keys == 0] = 0
        cells[keys == self.n_points - 1] = self.occupied - 1
        return cells

    def eligible_keys(self, boundaries):
        """Half-open ranges of the points whose rows a bin's sub-bins would spread: those
        of the bins (cells ``boundaries``) holding more than one point whose sub-bins
        hold more than one (the cells do, or the bin is wider than ``SUB_BINS`` cells),
        but the range's bounds (their cells are measured on their own).  Public."""
        edges = np.asarray(boundaries)
        first = self._first_keys(np.r_[edges, 1, self.occupied - 1])
        starts, (lo, hi) = first[: edges.size], first[edges.size :]
        a, b = np.maximum(starts[:-1], lo), np.minimum(starts[1:], hi)
        spread = (self.per_cell > 1) | (np.diff(edges) > SUB_BINS)
        several = (starts[1:] - starts[:-1] > 1) & (b > a) & spread
        return np.column_stack([a[several], b[several]])

    def _first_keys(self, cells):
        """The first point in or after each cell (``n_keys`` after the last point):
        bisection on the points, whose cells never decrease."""
        lo = np.zeros(len(cells), dtype=np.int64)
        hi = np.full(len(cells), self.n_keys, dtype=np.int64)
        while np.any(lo < hi):
            active = lo < hi
            mid = (lo + hi) // 2
            below = self.key_cells(np.minimum(mid, self.n_keys - 1)) < cells
            lo = np.where(active & below, mid + 1, lo)
            hi = np.where(active & ~below, mid, hi)
        return lo

    def cells(self, values):
        """Cell of each value (inside the range)."""
        spec = self.spec
        if self.step is None:
            lo, hi = self.inner
            cells = 1 + np.floor((values - lo) / (hi - lo) * (self.n_cells - 2))
            cells = np.clip(cells, 1, self.n_cells - 2)
            cells[values <= spec.lo] = 0
            cells[values >= spec.hi] = self.n_cells - 1
            return cells.astype(np.int64)
        return self.key_cells(self.keys(values))

    def edges(self, boundaries):
        """Edges (values) of the bins of released cell boundaries, and the share of
        the last bin's cells that hold grid points (1 for a float range).

        On a grid, bins after the last grid point (without any) are left out, the
        last edge is the last grid point (the last bin is closed), and a last bin
        holding only that point starts half a step before it.
        """
        spec = self.spec
        if self.step is None:
            lo, hi = self.inner
            edges = lo + (boundaries - 1) / (self.n_cells - 2) * (hi - lo)
            edges[boundaries == self.n_cells - 1] = hi
            edges[0], edges[-1] = spec.lo, spec.hi
            return edges, 1.0
        starts = self.starts[boundaries[:-1]]
        starts = starts[starts < self.n_points]
        first_cell, end_cell = boundaries[starts.size - 1], boundaries[starts.size]
        fraction = (self.occupied - first_cell) / (end_cell - first_cell)
        points = np.append(starts, self.n_points - 1).astype(np.float64)
        if starts.size > 1 and starts[-1] == self.n_points - 1:
            points[-2] -= 0.5
        return (self.first + points) * self.step, fraction


class _KeyCounts:
    """Exact counts of the points of a public grid that a chunk's values fall on, sparse:
    sorted distinct ``keys`` and their ``counts``; ``+`` merges two chunks'.  Memory:
    the distinct values, at most ``n``; exact, since the release's sensitivity needs
    exact counts."""

    def __init__(self, keys, counts):
        self.keys, self.counts = keys, counts

    def __add__(self, other):
        keys, inverse = np.unique(np.concatenate([self.keys, other.keys]), return_inverse=True)
        counts = np.bincount(inverse, np.concatenate([self.counts, other.counts]))
        return _KeyCounts(keys, counts.astype(np.int64))

    def at(self, keys):
        """The count of each of ``keys`` (0 where no value falls)."""
        keys = np.asarray(keys, dtype=np.int64)
        if self.keys.size == 0:
            return np.zeros(keys.size, dtype=np.int64)
        i = np.minimum(np.searchsorted(self.keys, keys), self.keys.size - 1)
        return np.where(self.keys[i] == keys, self.counts[i], 0)


class _FineCounts:
    """Statistic of a DataFrame chunk: ``(n_rows, counts)``, ``counts`` the fine
    histogram of each declared range and the exact counts of the points of its public
    grid of values (None without one).

    The domain check of the ranged columns: a missing value not declared, or a value
    outside the range without ``clip``, raises (naming the column, never a value).
    """

    def __init__(self, ranged):
        self.ranged = ranged

    def __call__(self, X):
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"every chunk of X must be a pandas DataFrame; got {type(X).__name__}.")
        counts = {}
        for label, spec in self.ranged.items():
            series, kind = X[label], kind_of(spec)
            _check_declared_missing(series, label, kind.missing)
            if not kind.reads_dtype(series.dtype):
                raise TypeError(
                    f"categories[{label!r}] declares a numeric range, but the column has dtype "
                    f"{series.dtype}; a range needs a numeric column."
                )
            values = kind.numbers(series)
            known = ~isna(series)
            if spec.clip:
                values = np.clip(values, spec.lo, spec.hi)
            inside = (values >= spec.lo) & (values <= spec.hi)
            if (known & ~inside).any():
                shown = [kind.show(v) for v in (spec.lo, spec.hi)]
                raise ValueError(
                    f"Column {_column_name(label)} has values outside its declared range "
                    f'[{shown[0]}, {shown[1]}]; widen the range or declare "clip": true.'
                )
            grid = _FineGrid(spec)
            values, keys = values[known], None
            if grid.n_keys:  # a float counted at its declared decimals
                points = grid.keys(values)
                cells = grid.key_cells(points)
                keys = _KeyCounts(*np.unique(points, return_counts=True))
            else:
                cells = grid.cells(values)
            counts[label] = (np.bincount(cells, minlength=grid.n_cells), keys)
        return X.shape[0], counts


class _LevelCounts:
    """Statistic of a DataFrame chunk: ``(n_rows, [int64 counts of each column's levels])``.

    The documented domain check: a value outside its declared levels (or bins) raises.
    """

    def __init__(self, domain):
        self.domain = domain

    def __call__(self, X):
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"every chunk of X must be a pandas DataFrame; got {type(X).__name__}.")
        counts = []
        for label, spec in self.domain.items():
            if label not in X.columns:
                raise ValueError(f"categories has key {label!r}, which is not a column of X.")
            kind = kind_of(spec)
            values = kind.coerce(X[label])
            if not kind.missing and values.isna().any():
                _check_declared_missing(values, label, False)
            codes = kind.codes(values)
            if (codes < 0).any():
                raise ValueError(
                    f"Column {label!r} has values outside the declared domain "
                    f"categories[{label!r}] ({_accepted(kind)})."
                )
            counts.append(np.bincount(codes, minlength=len(spec)))
        return X.shape[0], counts


def private_level_frequencies(
    X, categories, epsilon, random_state=None, noise="continuous", return_report=False
):
    """Differentially private level frequencies of columns, for decoding weights.

    Releases the 1-way histogram (as fractions of ``n``) of every column named in
    ``categories`` (over its levels, or its bins) with Laplace noise, and clips negative
    entries to 0.  Meant for
    :class:`BooleanEncoder` ``level_weights``: with ``max_bins``, a coarsened range is
    then decoded in proportion to these (noisy, public) frequencies rather than
    uniformly.

    Privacy (replace-one neighbours, ``n = len(X)`` public): replacing one row moves
    ``1/n`` of mass between two levels of each column, so the concatenated frequency
    vector of ``m`` columns has L1 sensitivity ``2m/n``; Laplace noise of scale
    ``2m/(n·epsilon)`` on every level makes the release ``epsilon``-DP.  Clipping is
    post-processing.  The budget adds to that of the synthesizer fitted on the same
    data (basic composition).

    Parameters
    ----------
    X : DataFrame or source of DataFrame chunks
        The private data, in memory or in chunks (:class:`~skprivsynth.Chunks`, Dask
        DataFrame): the counts are summed over the chunks before the release.
    categories : dict or Domain
        Column -> public levels or bins, in any form :class:`~skprivsynth.Domain`
        accepts (an int ``K`` for codes ``0..K-1``, a list of values, a
        :class:`pandas.CategoricalDtype`, ``{"bins": [...]}``).
    epsilon : float
        Budget of this release.
    random_state : None, int or numpy.random.Generator
        Seeds the noise, through the stream ``"encoder level frequencies"`` of
        :func:`~skprivsynth.validation.role_generator` (the encoder's for the same seed).
    noise : {"continuous", "discrete"}, default="continuous"
        Laplace sampler of :func:`~skprivsynth.privacy.laplace_mechanism`;
        ``"discrete"`` is the floating-point-safe one.
    return_report : bool, default=False
        Also return the :class:`~skprivsynth.PrivacyReport` of the release, to compose
        with the synthesizer's (``synthesizer.privacy_report_.compose(report)``).

    Returns
    -------
    dict
        Column -> ndarray of non-negative weights, one per level (or bin).
    report : PrivacyReport
        Only with ``return_report=True``.

    Examples
    --------
    >>> from skprivsynth.datasets import load_adult
    >>> adult = load_adult()
    >>> weights = private_level_frequencies(adult.data, adult.domain, epsilon=0.1,
    ...                                     random_state=0)
    >>> weights["age"].shape
    (85,)
    """
    epsilon = check_epsilon(epsilon)
    if not isinstance(X, pd.DataFrame) and as_chunks(X) is None:
        raise TypeError(
            f"X must be a pandas DataFrame or a source of DataFrame chunks; got {type(X).__name__}."
        )
    domain = as_domain(categories, "categories")
    if not domain:
        raise ValueError("categories must declare at least one column.")
    parts = [label for label, spec in domain.items() if kind_of(spec).is_part]
    if parts:
        raise ValueError(
            f"categories declares columns {parts!r} as parts of datetime columns: they have "
            "no levels of their own (leave them out)."
        )
    ranged = [label for label, spec in domain.items() if kind_of(spec).bins_at_fit]
    if ranged:
        raise ValueError(
            f"categories declares the ranges of columns {ranged!r}, whose bins are chosen "
            "at fit time (BooleanEncoder's domain_); give their levels or bins."
        )
    n, counts = reduce_chunks(X, _LevelCounts(domain)) or (0, None)
    if n == 0:
        raise ValueError("X must have at least one row.")
    charge_active("level frequencies", PrivacyCost(epsilon=epsilon))  # public cost, before any draw
    frequencies = [c / n for c in counts]
    report = PrivacyReport("level frequencies")
    noisy = report.release_laplace(
        "level frequencies of " + ", ".join(map(str, domain)),
        np.concatenate(frequencies),
        2.0 * len(frequencies) / n,
        epsilon,
        role_generator(random_state, "encoder level frequencies"),
        noise=noise,
        derivation="one replaced row changes two frequencies of each column by 1/n: 2m/n",
    )
    noisy = np.clip(noisy, 0.0, None)
    splits = np.cumsum([f.size for f in frequencies])[:-1]
    weights = dict(zip(domain, np.split(noisy, splits), strict=True))
    return (weights, report) if return_report else weights


def _sub_bins(spec):
    """The :class:`~skprivsynth.domain.Bins` splitting each bin of ``spec`` into
    ``SUB_BINS`` equal-width sub-bins (public: computed from the declared edges)."""
    e = np.asarray(spec.edges, dtype=np.float64)
    t = np.arange(SUB_BINS) / SUB_BINS
    fine = ((1.0 - t) * e[:-1, None] + t * e[1:, None]).ravel()
    return dataclasses.replace(spec, edges=tuple(np.append(fine, e[-1]).tolist()))
