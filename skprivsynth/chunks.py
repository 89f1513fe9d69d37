"""Data that does not fit in memory: sources of row chunks and their additive statistics.

Every fit in skprivsynth reduces the data to sums over rows (count tables, workload
answers, Gram matrices, Fourier coefficients).  Sums merge, so a fit can read its data
one chunk of rows at a time, or on a Dask cluster, and release exactly what the
in-memory fit releases: the statistics of the chunks are merged first, and the noise
is drawn once, after the merge.

- :class:`Chunks` is a re-iterable source of 2-D chunks (arrays or DataFrames):
  ``Chunks(factory)``, :meth:`Chunks.from_csv`, :meth:`Chunks.from_array`,
  :meth:`Chunks.from_dask`.
- :func:`reduce_chunks` reduces a source with a per-chunk statistic and an additive
  merge: a loop over the chunks, or a tree of merges on Dask (only the statistics
  leave the workers).

A synthesizer's ``fit`` accepts, besides arrays and DataFrames, a :class:`Chunks`, a
Dask array or Dask DataFrame (Dask is an optional extra,
``pip install skprivsynth[dask]``), or a one-shot iterator of chunks (for fits that
read the data once).  Read more in the :ref:`User Guide <large-data-chunks>`.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator
from numbers import Integral

import numpy as np

from .io import _CsvSchema

__all__ = ["Chunks", "add_statistics", "is_chunk_source", "reduce_chunks"]


def _is_dask_collection(X):
    """Whether ``X`` is a Dask collection (Dask imported only if the caller uses it)."""
    if "dask" not in sys.modules:  # a Dask object implies an imported dask
        return False
    import dask

    return dask.is_dask_collection(X)


def _dask_partitions(X):
    """The delayed row partitions of a Dask array (one column block) or DataFrame."""
    if getattr(X, "ndim", None) == 2 and hasattr(X, "rechunk"):  # dask.array.Array
        return list(X.rechunk({1: -1}).to_delayed().ravel())
    if getattr(X, "ndim", None) == 1 or not hasattr(X, "to_delayed"):
        raise TypeError(
            "X must be a 2-D Dask array or a Dask DataFrame; got "
            f"{type(X).__name__} with ndim={getattr(X, 'ndim', None)}."
        )
    return list(X.to_delayed())


class Chunks:
    """A re-iterable source of row chunks, for fits on data larger than memory.

    Each iteration calls ``factory()`` for a fresh iterator of 2-D chunks (numpy
    arrays or pandas DataFrames, the same columns in every chunk), so a fit may read
    the data more than once (:class:`~skprivsynth.MarginalSynthesizer` reads it twice).
    Pass a ``Chunks`` wherever a synthesizer or a
    :class:`~skprivsynth.SynthesisPipeline` takes ``X``; the fit releases exactly
    what it releases on the concatenated chunks in memory, and keeps no more than one
    chunk and the statistics in memory.

    Parameters
    ----------
    factory : callable
        ``factory()`` returns a new iterable of 2-D chunks, each time from the start.

    See Also
    --------
    reduce_chunks : per-chunk statistics merged over a source.

    Notes
    -----
    The number of rows ``n`` is the total over the chunks; it is public for the
    replace-one neighbours of every differentially private synthesizer here.  The
    chunking (sizes, order) never changes a release whose statistics are counts or
    sums of integers; sums of fractional values (rows rescaled onto a declared norm
    bound, function workloads) agree with the in-memory ones to rounding.  A plain
    iterator of chunks (such as ``pandas.read_csv(path, chunksize=N)``) can be passed
    to ``fit`` too, but only to fits that read the data once; ``Chunks`` can be read
    any number of times.  A Dask collection is wrapped by :meth:`from_dask`
    automatically.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth import Chunks, MarginalSynthesizer
    >>> X = np.random.default_rng(0).integers(0, 3, size=(1000, 3))
    >>> chunks = Chunks.from_array(X, chunksize=300)
    >>> [len(c) for c in chunks]
    [300, 300, 300, 100]
    >>> a = MarginalSynthesizer(domain=[3, 3, 3], iterations=50, random_state=0).fit(X)
    >>> b = MarginalSynthesizer(domain=[3, 3, 3], iterations=50, random_state=0).fit(chunks)
    >>> bool((a.sample(100, random_state=1) == b.sample(100, random_state=1)).all())
    True
    """

    def __init__(self, factory):
        if not callable(factory):
            raise TypeError(
                "factory must be a callable returning a new iterable of chunks at each "
                f"call (e.g. lambda: pandas.read_csv(path, chunksize=N)); got {factory!r}."
            )
        self.factory = factory
        self._delayed = None  # the partitions of a Dask collection (from_dask)

    def __iter__(self):
        if self._delayed is not None:
            return (part.compute() for part in self._delayed)
        return iter(self.factory())

    def check_reiterable(self, reader):
        """Refuse, before reading anything, a one-shot source that ``reader`` (a
        description of who reads it more than once) would read twice: raises TypeError
        for a plain iterator of chunks, does nothing for a re-iterable source."""

    def _peek(self):
        """The first chunk (None if there is none), without using up a pass."""
        if self._delayed is not None:
            return self._delayed[0].compute() if self._delayed else None
        iterator = iter(self)
        try:
            return next(iterator, None)
        finally:
            _close(iterator)  # e.g. the file of a pandas reader left after one chunk

    def __repr__(self):
        if self._delayed is not None:
            return f"Chunks(<{len(self._delayed)} Dask partitions>)"
        return f"Chunks({self.factory!r})"

    @classmethod
    def from_array(cls, X, chunksize):
        """Chunks of ``chunksize`` consecutive rows of ``X`` (array or DataFrame).

        The last chunk holds the remaining rows.  Slices are views, so this costs no
        copy: it is how to check or test a chunked fit against the in-memory one.
        """
        chunksize = _check_chunksize(chunksize)
        take = X.iloc.__getitem__ if hasattr(X, "iloc") else X.__getitem__

        def factory():
            return (take(slice(i, i + chunksize)) for i in range(0, len(X), chunksize))

        return cls(factory)

    @classmethod
    def from_csv(cls, path, chunksize, domain=None, **read_csv_kwargs):
        """Chunks of ``chunksize`` rows of the CSV file ``path``, as DataFrames.

        Each pass reads the file again with ``pandas.read_csv(path,
        chunksize=chunksize, **read_csv_kwargs)``; memory holds one chunk at a time.
        With a ``domain``, each chunk is read as :func:`~skprivsynth.read_csv` reads
        the file, every declared column by its kind (``undeclared_missing`` is
        :func:`~skprivsynth.read_csv`'s).
        """
        import pandas as pd

        chunksize = _check_chunksize(chunksize)
        schema = None
        if domain is not None:
            missing = read_csv_kwargs.pop("undeclared_missing", "error")
            schema = _CsvSchema(path, domain, missing, read_csv_kwargs)
            read_csv_kwargs = schema.options

        def factory():
            return pd.read_csv(path, chunksize=chunksize, **read_csv_kwargs)

        return cls(factory) if schema is None else cls(factory).map(schema)

    @classmethod
    def from_dask(cls, X):
        """The row partitions of a 2-D Dask array or a Dask DataFrame.

        :func:`reduce_chunks` computes the statistic of each partition on the workers
        of the current Dask scheduler (a ``dask.distributed.Client`` if one is active)
        and merges them in a tree there: only the statistics come back.
        """
        chunks = cls(lambda: iter(()))
        chunks._delayed = _dask_partitions(X)
        return chunks

    def take(self, rows):
        """The rows at positions ``rows`` of the concatenated chunks, in that order, in
        memory (one pass; memory holds one chunk and the rows taken): a DataFrame
        when the chunks are DataFrames (their index kept), else an array."""
        import pandas as pd

        rows = np.asarray(rows, dtype=np.int64)
        order = np.argsort(rows, kind="stable")
        wanted, parts, start = rows[order], [], 0
        for chunk in self:
            lo, hi = np.searchsorted(wanted, [start, start + len(chunk)])
            at = wanted[lo:hi] - start
            parts.append(chunk.iloc[at] if hasattr(chunk, "iloc") else np.asarray(chunk)[at])
            start += len(chunk)
        if not parts:
            raise ValueError("take reads a source of chunks without any chunk.")
        frames = isinstance(parts[0], pd.DataFrame)
        taken = pd.concat(parts) if frames else np.concatenate(parts)
        inverse = np.empty_like(order)
        inverse[order] = np.arange(order.size)
        if len(taken) != rows.size:
            raise ValueError("rows lists positions beyond the rows of the chunks.")
        return taken.iloc[inverse] if frames else taken[inverse]

    def map(self, func):
        """A new source whose chunks are ``func(chunk)``, applied lazily.

        On a Dask source, ``func`` runs on the workers (it must be picklable).
        """
        if self._delayed is not None:
            import dask

            mapped = Chunks(lambda: iter(()))
            shared, apply = dask.delayed(func, pure=True), dask.delayed(_apply, pure=True)
            mapped._delayed = [apply(shared, part) for part in self._delayed]
            return mapped
        return Chunks(_MappedFactory(self, func))


def _apply(func, chunk):
    return func(chunk)


class _MappedFactory:
    def __init__(self, source, func):
        self.source, self.func = source, func

    def __call__(self):
        iterator = iter(self.source)
        try:
            for chunk in iterator:
                yield self.func(chunk)
        finally:
            _close(iterator)


def _close(iterator):
    """Close an iterator left before its end (a generator, a pandas reader), if it can."""
    close = getattr(iterator, "close", None)
    if close is not None:
        close()


class _OneShot(Chunks):
    """A plain iterator of chunks: readable once; a second pass names :class:`Chunks`."""

    def __init__(self, iterator):
        super().__init__(lambda: self._iterator)
        self._iterator = iterator
        self._used = False

    def check_reiterable(self, reader):
        raise TypeError(
            f"{reader} reads X more than once, and X is a one-shot iterator of chunks; "
            "pass a re-iterable skprivsynth.Chunks instead (e.g. Chunks.from_csv(path, "
            "chunksize=N) or Chunks(factory) with factory() returning a new iterator)."
        )

    def _peek(self):
        first = next(self._iterator, None)
        if first is not None:
            self._iterator = itertools.chain([first], self._iterator)
        return first

    def __iter__(self):
        if self._used:
            raise TypeError(
                "X is a one-shot iterator of chunks, already read once, and this fit "
                "reads the data more than once; wrap it in a re-iterable source, e.g. "
                "skprivsynth.Chunks(lambda: pandas.read_csv(path, chunksize=N)) or "
                "Chunks.from_csv(path, chunksize=N)."
            )
        self._used = True
        return super().__iter__()

    def map(self, func):
        return _OneShot(map(func, self))


def _check_chunksize(chunksize):
    if not isinstance(chunksize, Integral | np.integer) or isinstance(chunksize, bool):
        raise TypeError(f"chunksize must be a positive integer; got {chunksize!r}.")
    if chunksize < 1:
        raise ValueError(f"chunksize must be a positive integer; got {chunksize!r}.")
    return int(chunksize)


def is_chunk_source(X):
    """Whether ``X`` is a source of chunks (not one in-memory array or DataFrame).

    True for a :class:`Chunks`, a Dask collection and an iterator of chunks (such as
    a generator or ``pandas.read_csv(..., chunksize=N)``); False for arrays,
    DataFrames and lists.
    """
    return isinstance(X, Chunks | Iterator) or _is_dask_collection(X)


def as_chunks(X):
    """``X`` as a :class:`Chunks` (Dask collections and iterators wrapped), or None
    when ``X`` is in-memory data."""
    if isinstance(X, Chunks):
        return X
    if isinstance(X, Iterator):
        return _OneShot(X)
    if _is_dask_collection(X):
        return Chunks.from_dask(X)
    return None


def add_statistics(a, b):
    """Sum of two statistics: arrays and numbers added, tuples/lists element-wise,
    dicts key-wise; None is the empty statistic (of an empty chunk)."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, dict):
        return {key: add_statistics(a[key], b[key]) for key in a}
    if isinstance(a, tuple | list):
        return type(a)(add_statistics(x, y) for x, y in zip(a, b, strict=True))
    return a + b


def _merge_tree(items, merge):
    """Merge delayed statistics pairwise, level by level (depth log2 of their number)."""
    import dask

    merge = dask.delayed(merge, pure=True)
    while len(items) > 1:
        pairs = [merge(a, b) for a, b in zip(items[0::2], items[1::2], strict=False)]
        items = pairs + ([items[-1]] if len(items) % 2 else [])
    return items[0]


def reduce_chunks(X, statistic, merge=add_statistics):
    """Merge ``statistic(chunk)`` over the chunks of ``X``.

    Parameters
    ----------
    X : array-like, DataFrame, Chunks, iterator of chunks, Dask array or DataFrame
        The data; in-memory data is one chunk.
    statistic : callable
        ``statistic(chunk)`` returns the statistic of one chunk: an array, a number,
        or a tuple/list/dict of them; None for "nothing" (e.g. an empty chunk).
    merge : callable, default=add_statistics
        Associative, commutative merge of two statistics; the default adds them
        (element-wise, key-wise).

    Returns
    -------
    The merged statistic (None for a source without chunks).

    Notes
    -----
    A Dask source is reduced on the current Dask scheduler: ``statistic`` runs on each
    partition, and the merges in a binary tree, so only statistics travel.  Counts
    summed as integers are exact in any order; sums of floats are exact only when
    each partial sum is an integer below ``2**53`` (counts stored as floats).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.chunks import Chunks, reduce_chunks
    >>> X = np.arange(12).reshape(6, 2)
    >>> reduce_chunks(Chunks.from_array(X, 4), lambda c: (len(c), c.sum(axis=0)))
    (6, array([30, 36]))
    """
    chunks = as_chunks(X)
    if chunks is None:
        return statistic(X)
    if chunks._delayed is not None:
        import dask

        if not chunks._delayed:
            return None
        # The statistic is one node of the graph (shipped once to each worker that needs
        # it, not once per partition: it may hold a model or a lattice).
        shared = dask.delayed(statistic, pure=True)
        apply = dask.delayed(_apply, pure=True)
        parts = [apply(shared, p) for p in chunks._delayed]
        (result,) = dask.compute(_merge_tree(parts, merge))
        return result
    result = None
    for chunk in chunks:
        stat = statistic(chunk)
        result = stat if result is None else merge(result, stat)
    return result
