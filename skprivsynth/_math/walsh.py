"""Walsh (parity) functions of low degree on the Boolean cube.

Sign convention
---------------
The package stores data on ``{0, 1}^p``; Fourier analysis works on ``{-1, 1}^p``.
The two are linked by ``s = 1 - 2x`` (so ``x = 0 ↦ s = +1`` and ``x = 1 ↦ s = -1``)
and back by ``x = (1 - s) / 2`` (:func:`boolean_to_signs`, :func:`signs_to_boolean`).
With this map the Walsh function of a set ``J`` of columns,
``w_J(s) = Π_{c ∈ J} s[c]``, equals ``(-1)^{Σ_{c∈J} x[c]}`` (a parity), and
``w_∅ = 1``.

Ordering
--------
The Walsh functions of degree at most ``d`` are ordered by degree, then
lexicographically within a degree: ``∅, {0}, {1}, …, {p-1}, {0,1}, {0,2}, …,
{p-2,p-1}, {0,1,2}, …``.  There are ``L = Σ_{j ≤ d} C(p, j)`` of them
(:func:`n_walsh_functions`).  Every matrix and coefficient vector of this module
uses that column order.

Normalisation
-------------
The degree-``≤ d`` Fourier coefficients of a dataset ``X`` (rows ``x_1..x_n``) are
the empirical means ``c_J = (1/n) Σ_i w_J(x_i)`` (:func:`fourier_coefficients`), i.e.
the inner products ``⟨f_n, w_J⟩ = Σ_x f_n(x) w_J(x)`` with the empirical probability
mass function ``f_n``.  A probability vector ``h`` on points ``θ_1..θ_m`` has the
coefficients ``W_Sᵀ h`` with the same normalisation (``c_∅ = Σ h = 1``), so two
distributions have the same marginals of order ``≤ d`` iff these vectors agree
(Boedihardjo, Strohmer, Vershynin, "Private sampling", Sect. 4).

Conjunction basis
-----------------
The *conjunctions* ``x_K = Π_{c ∈ K} x[c]`` (``K`` of size ``≤ d``, same order) span the
same space of functions as the Walsh functions of degree ``≤ d``:
``x_K = 2^{-|K|} Σ_{J ⊆ K} (-1)^{|J|} w_J`` (from ``x[c] = (1 - s[c]) / 2``), an
invertible (unit-triangular up to the diagonal ``2^{-|K|}``) change of basis
:func:`walsh_to_conjunction`.  So ``W_Sᵀ h = c`` iff ``M_Sᵀ h = Vᵀ c`` with ``M_S`` the
conjunction matrix (:func:`conjunction_matrix`) and ``Vᵀ`` that map.  On uniform points
``M_S`` is sparse (a conjunction of degree ``j`` is 1 on a fraction ``2^{-j}`` of them:
~28 % of the entries at ``p = 20, d = 2``), which makes LPs and QPs with these equality
constraints several times cheaper than with the dense ±1 matrix ``W_S``.

References
----------
March Boedihardjo, Thomas Strohmer, Roman Vershynin, "Private sampling: a noiseless
approach for generating differentially private synthetic data", SIAM J. Math. Data
Sci. (2022), Sections 4 and 9 (well-conditioning, condition (9.1)).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from itertools import combinations
from numbers import Integral

import numpy as np

__all__ = [
    "boolean_to_signs",
    "conjunction_matrix",
    "fourier_coefficients",
    "is_well_conditioned",
    "n_walsh_functions",
    "signs_to_boolean",
    "smallest_singular_value",
    "walsh_matrix",
    "walsh_subsets",
    "walsh_to_conjunction",
    "well_conditioning_threshold",
]

# Number of matrix entries (rows x Walsh functions) built at once when a Walsh
# matrix is produced chunk by chunk: ~32 MB of float64 per chunk, whatever n is.
_CHUNK_ENTRIES = 4_000_000


def _check_degree(p, degree):
    if isinstance(p, bool) or not isinstance(p, Integral | np.integer) or p < 1:
        raise ValueError(f"p (number of columns) must be a positive integer; got {p!r}.")
    if isinstance(degree, bool) or not isinstance(degree, Integral | np.integer) or degree < 0:
        raise ValueError(f"degree must be a non-negative integer; got {degree!r}.")
    if degree > p:
        raise ValueError(f"degree={degree} exceeds the number of columns p={p}; use degree <= p.")
    return int(p), int(degree)


def n_walsh_functions(p, degree):
    """Number ``L = Σ_{j ≤ degree} C(p, j)`` of Walsh functions of degree ``≤ degree``.

    Parameters
    ----------
    p : int
        Number of Boolean columns.
    degree : int
        Largest degree, ``0 ≤ degree ≤ p``.

    Returns
    -------
    int

    Examples
    --------
    >>> from skprivsynth._math.walsh import n_walsh_functions
    >>> n_walsh_functions(20, 2)
    211
    """
    p, degree = _check_degree(p, degree)
    return sum(math.comb(p, j) for j in range(degree + 1))


def walsh_subsets(p, degree):
    """The subsets ``J`` indexing the Walsh functions of degree ``≤ degree``.

    Parameters
    ----------
    p : int
        Number of Boolean columns.
    degree : int
        Largest degree, ``0 ≤ degree ≤ p``.

    Returns
    -------
    tuple of ndarray
        ``subsets[j]`` is an ``intp`` array of shape ``(C(p, j), j)`` whose rows are
        the column sets of size ``j`` in lexicographic order (``subsets[0]`` has one
        empty row).  Concatenated over ``j = 0..degree`` they give the column order
        of :func:`walsh_matrix` and :func:`fourier_coefficients`.

    Examples
    --------
    >>> from skprivsynth._math.walsh import walsh_subsets
    >>> [s.tolist() for s in walsh_subsets(3, 2)]
    [[[]], [[0], [1], [2]], [[0, 1], [0, 2], [1, 2]]]
    """
    p, degree = _check_degree(p, degree)
    blocks = [np.empty((1, 0), dtype=np.intp)]
    for j in range(1, degree + 1):
        if j == 1:
            block = np.arange(p, dtype=np.intp)[:, None]
        elif j == 2:
            block = np.column_stack(np.triu_indices(p, 1)).astype(np.intp)
        else:
            flat = np.fromiter(
                (c for combo in combinations(range(p), j) for c in combo),
                dtype=np.intp,
                count=math.comb(p, j) * j,
            )
            block = flat.reshape(-1, j)
        blocks.append(block)
    return tuple(blocks)


def boolean_to_signs(X):
    """Map ``{0, 1}`` entries to ``{+1, -1}`` by ``s = 1 - 2x`` (float64)."""
    return 1.0 - 2.0 * np.asarray(X, dtype=np.float64)


def signs_to_boolean(S):
    """Map ``{+1, -1}`` entries back to ``{0, 1}`` by ``x = (1 - s) / 2`` (float64)."""
    return (1.0 - np.asarray(S, dtype=np.float64)) / 2.0


def _subsets_width(subsets):
    return sum(block.shape[0] for block in subsets)


def _fill_walsh_rows(signs, subsets, out):
    """Write the Walsh matrix of the ±1 rows ``signs`` into ``out`` (same #rows)."""
    col = 0
    for block in subsets:
        k, j = block.shape
        target = out[:, col : col + k]
        if j == 0:
            target.fill(1.0)
        else:
            np.take(signs, block[:, 0], axis=1, out=target)
            for t in range(1, j):
                target *= np.take(signs, block[:, t], axis=1)
        col += k
    return out


def walsh_matrix(points, subsets, *, dtype=np.float64, chunk_size=None):
    """Walsh matrix ``W[i, J] = w_J(points[i]) = Π_{c ∈ J} points[i, c]``.

    Parameters
    ----------
    points : array-like of shape (n_points, p)
        Points of ``{-1, 1}^p`` (use :func:`boolean_to_signs` for ``{0, 1}`` data).
    subsets : tuple of ndarray
        Output of :func:`walsh_subsets` for this ``p``.
    dtype : numpy dtype, default=float64
        Output dtype (entries are exactly ±1 in any float or signed-integer type).
    chunk_size : int, optional
        Rows built at once; by default about 4·10⁶ entries per chunk, so the
        temporaries stay bounded while the output itself is ``n_points × L``.

    Returns
    -------
    ndarray of shape (n_points, L)
        Columns in the order of ``subsets`` (degree, then lexicographic).
        Cost ``O(n_points · Σ_J |J|)`` time.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth._math.walsh import walsh_matrix, walsh_subsets
    >>> walsh_matrix(np.array([[1, -1, -1]]), walsh_subsets(3, 2)).astype(int).tolist()
    [[1, 1, -1, -1, -1, -1, 1]]
    """
    points = np.asarray(points, dtype=np.float64)
    if points.ndim != 2:
        raise ValueError(f"points must be a 2-D array; got shape {points.shape}.")
    if points.size and not np.all(np.abs(points) == 1.0):
        raise ValueError(
            "points must have entries in {-1, +1}; map {0, 1} data with "
            "boolean_to_signs (s = 1 - 2x)."
        )
    width = _subsets_width(subsets)
    p_needed = max((int(b.max()) + 1 for b in subsets if b.size), default=0)
    if points.shape[1] < p_needed:
        raise ValueError(
            f"points has {points.shape[1]} columns but the subsets use column {p_needed - 1}."
        )
    n_points = points.shape[0]
    out = np.empty((n_points, width), dtype=dtype)
    if chunk_size is None:
        chunk_size = max(1, _CHUNK_ENTRIES // max(width, 1))
    buffer = np.empty((min(chunk_size, max(n_points, 1)), width), dtype=np.float64)
    for start in range(0, n_points, chunk_size):
        stop = min(start + chunk_size, n_points)
        block = _fill_walsh_rows(points[start:stop], subsets, buffer[: stop - start])
        out[start:stop] = block
    return out


def _iter_blocks(X):
    """Yield 2-D row blocks: the whole array, or each element of an iterator of blocks."""
    if (
        isinstance(X, np.ndarray | list | tuple)
        or hasattr(X, "__array__")
        or not isinstance(X, Iterable)
    ):
        blocks = (X,)
    else:
        blocks = X
    for block in blocks:
        block = np.asarray(block)
        if block.ndim != 2:
            raise ValueError(f"X (and every block of it) must be 2-D; got shape {block.shape}.")
        yield block


def fourier_coefficients(X, degree, *, chunk_size=None, return_n_rows=False):
    """Degree-``≤ d`` Fourier coefficients ``c_J = (1/n) Σ_i w_J(x_i)`` of a dataset.

    The rows are processed in chunks: memory is ``O(chunk_size · L)`` on top of
    ``X`` itself, never an ``n × L`` matrix, and ``X`` may be an iterable of row
    blocks (e.g. read from disk), so the extra memory does not grow with ``n``.

    Parameters
    ----------
    X : array-like of shape (n_samples, p) or iterable of such arrays
        Boolean data with entries in ``{0, 1}`` (mapped by ``s = 1 - 2x``).
    degree : int
        Largest degree ``d``.
    chunk_size : int, optional
        Rows per chunk; by default about 4·10⁶ / L.
    return_n_rows : bool, default=False
        Also return the number of rows seen (useful when ``X`` is streamed).

    Returns
    -------
    coefficients : ndarray of shape (L,)
        In the order of :func:`walsh_subsets`; ``coefficients[0] = 1``.
    n_rows : int
        Only when ``return_n_rows=True``.

    Raises
    ------
    ValueError
        If an entry is not 0 or 1, the widths of the chunks differ or there is no row.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth._math.walsh import fourier_coefficients
    >>> fourier_coefficients(np.array([[0, 0], [1, 0]]), 2).tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    total, n_rows = _fourier_totals(X, degree, chunk_size)
    coefficients = total / n_rows
    return (coefficients, n_rows) if return_n_rows else coefficients


def _fourier_totals(X, degree, chunk_size):
    """``(Σ_i w_J(x_i) for every J, n)`` over the rows of ``X`` (blocks, in chunks)."""
    if isinstance(degree, bool) or not isinstance(degree, Integral | np.integer) or degree < 0:
        raise ValueError(f"degree must be a non-negative integer; got {degree!r}.")
    subsets = None
    total = None
    n_rows = 0
    width = None
    buffer = None
    for chunk in _iter_blocks(X):
        if subsets is None:
            width = chunk.shape[1]
            subsets = walsh_subsets(width, degree)
            L = _subsets_width(subsets)
            rows = chunk_size or max(1, _CHUNK_ENTRIES // L)
            total = np.zeros(L, dtype=np.float64)
        elif chunk.shape[1] != width:
            raise ValueError(
                f"all chunks of X must have the same number of columns; got {chunk.shape[1]} "
                f"after {width}."
            )
        for start in range(0, chunk.shape[0], rows):
            part = np.asarray(chunk[start : start + rows], dtype=np.float64)
            if not np.all((part == 0.0) | (part == 1.0)):
                raise ValueError(
                    "X must be a Boolean matrix with entries in {0, 1}; encode other data "
                    "with skprivsynth.preprocessing.BooleanEncoder."
                )
            if buffer is None or buffer.shape[0] < part.shape[0]:
                buffer = np.empty((part.shape[0], L), dtype=np.float64)
            block = _fill_walsh_rows(boolean_to_signs(part), subsets, buffer[: part.shape[0]])
            total += block.sum(axis=0)
            n_rows += part.shape[0]
    if n_rows == 0:
        raise ValueError("X must have at least one row to compute Fourier coefficients.")
    return total, n_rows


def fourier_sums(X, degree):
    """Unnormalised Fourier coefficients ``Σ_i w_J(x_i)`` of the Boolean rows ``X``.

    Integers (sums of ±1) stored as float64, so they add over chunks of rows exactly:
    ``fourier_sums(X, d) / n`` is ``fourier_coefficients(X, d)`` bit for bit.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth._math.walsh import fourier_sums
    >>> fourier_sums(np.array([[0, 0], [1, 0]]), 2).tolist()
    [2.0, 0.0, 2.0, 0.0]
    """
    return _fourier_totals(X, degree, None)[0]


def conjunction_matrix(X, subsets, *, dtype=np.float64):
    """Conjunction matrix ``M[i, K] = Π_{c ∈ K} X[i, c]`` of Boolean rows.

    Parameters
    ----------
    X : array-like of shape (n_points, p)
        Points of ``{0, 1}^p``.
    subsets : tuple of ndarray
        Output of :func:`walsh_subsets` for this ``p``.
    dtype : numpy dtype, default=float64

    Returns
    -------
    ndarray of shape (n_points, L)
        Entries 0/1, columns in the order of ``subsets``.  ``M = W V`` with ``W`` the
        Walsh matrix of ``1 - 2X`` and ``V`` the map of :func:`walsh_to_conjunction`.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth._math.walsh import conjunction_matrix, walsh_subsets
    >>> conjunction_matrix(np.array([[1, 1, 0]]), walsh_subsets(3, 2)).astype(int).tolist()
    [[1, 1, 1, 0, 1, 0, 0]]
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array; got shape {X.shape}.")
    if X.size and not np.all((X == 0.0) | (X == 1.0)):
        raise ValueError("X must have entries in {0, 1} to build its conjunction matrix.")
    out = np.empty((X.shape[0], _subsets_width(subsets)), dtype=np.float64)
    _fill_walsh_rows(X, subsets, out)  # the same products, on 0/1 entries
    return out.astype(dtype, copy=False)


def _lex_ranks(combos, p):
    """Rank of each row of ``combos`` (sorted ``r``-subsets of ``range(p)``) in lex order.

    ``rank = Σ_i [C(p - c_{i-1} - 1, r - i) - C(p - c_i, r - i)]`` with ``c_{-1} = -1``
    (the number of ``r``-subsets before it: hockey-stick sums over the smaller entries).
    """
    n_rows, r = combos.shape
    ranks = np.zeros(n_rows, dtype=np.int64)
    if r == 0:
        return ranks
    table = np.array(
        [[math.comb(a, b) for b in range(r + 1)] for a in range(p + 2)], dtype=np.int64
    )
    previous = np.full(n_rows, -1, dtype=np.int64)
    for i in range(r):
        current = combos[:, i].astype(np.int64)
        ranks += table[p - previous - 1, r - i] - table[p - current, r - i]
        previous = current
    return ranks


def walsh_to_conjunction(coefficients, subsets):
    """Map Walsh coefficients to conjunction marginals: ``t_K = 2^{-|K|} Σ_{J⊆K} (-1)^{|J|} c_J``.

    For the coefficients ``c = (1/n) Σ_i w(x_i)`` of a dataset, ``t_K`` is the fraction
    of rows with ``x_K = 1`` (all columns of ``K`` equal to 1), ``t_∅ = c_∅``.  The map is
    linear and invertible (``c_J = Σ_{K⊆J} (-2)^{|K|} t_K``), so it is also the change of
    basis of the constraints ``W_Sᵀ h = c ⇔ M_Sᵀ h = t`` (:func:`conjunction_matrix`).

    Parameters
    ----------
    coefficients : array-like of shape (L,) or (L, k)
        Walsh coefficients (columns: several vectors at once) in the order of ``subsets``.
    subsets : tuple of ndarray
        Output of :func:`walsh_subsets`.

    Returns
    -------
    ndarray of the same shape
        Cost ``O(Σ_j C(p, j) · 2^j · j)``.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth._math.walsh import (fourier_coefficients, walsh_subsets,
    ...                                      walsh_to_conjunction)
    >>> X = np.array([[1, 1], [1, 0], [0, 0], [0, 0]])
    >>> walsh_to_conjunction(fourier_coefficients(X, 2), walsh_subsets(2, 2)).tolist()
    [1.0, 0.5, 0.25, 0.25]
    """
    c = np.asarray(coefficients, dtype=np.float64)
    L = _subsets_width(subsets)
    if c.shape[:1] != (L,):
        raise ValueError(f"coefficients must have {L} rows (one per subset); got {c.shape}.")
    p = max((int(b.max()) + 1 for b in subsets if b.size), default=0)
    offsets = np.cumsum([0] + [b.shape[0] for b in subsets])
    out = np.zeros_like(c)
    for j, block in enumerate(subsets):
        rows = slice(offsets[j], offsets[j + 1])
        for r in range(j + 1):
            for positions in combinations(range(j), r):
                index = offsets[r] + _lex_ranks(block[:, list(positions)], p)
                out[rows] += (-1.0) ** r * c[index]
        out[rows] *= 0.5**j
    return out


def well_conditioning_threshold(m, degree):
    """The threshold ``sqrt(m) / (2 e^d)`` of the well-conditioning test (9.1)."""
    return math.sqrt(m) / (2.0 * math.exp(degree))


def smallest_singular_value(W):
    """Smallest singular value of the tall matrix ``W`` (``m ≥ L``) via its Gram matrix.

    ``σ_min(W)² = λ_min(WᵀW)``; the ``L × L`` Gram matrix costs ``O(m L²)`` (one
    BLAS call) and ``O(L²)`` memory.  Accurate to about ``1e-16 · σ_max² / σ_min``,
    ample for the well-conditioning test where ``σ_max / σ_min`` is a small constant.
    Returns 0 when ``W`` has fewer rows than columns.
    """
    W = np.asarray(W, dtype=np.float64)
    if W.ndim != 2:
        raise ValueError(f"W must be a 2-D array; got shape {W.shape}.")
    m, L = W.shape
    if m < L or L == 0:
        return 0.0
    gram = W.T @ W
    smallest = float(np.linalg.eigvalsh(gram)[0])
    return math.sqrt(max(smallest, 0.0))


def is_well_conditioned(W, degree):
    """Test ``σ_min(W_S) ≥ sqrt(m) / (2 e^d)`` (Pierquin, Zimmermann & Boussard, eq. 9.1).

    Parameters
    ----------
    W : ndarray of shape (m, L)
        Walsh matrix of a reduced space (:func:`walsh_matrix`).
    degree : int
        The degree ``d`` used to build ``W``.

    Returns
    -------
    bool

    References
    ----------
    Boedihardjo, Strohmer, Vershynin, "Private sampling", Algorithm 2 step 2 and
    Lemma 9.2; Pierquin, Zimmermann, Boussard (2023), Algorithm 1 step 2.
    """
    W = np.asarray(W)
    return smallest_singular_value(W) >= well_conditioning_threshold(W.shape[0], degree)
