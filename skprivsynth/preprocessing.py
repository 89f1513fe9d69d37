"""Encoders between tabular data and the Boolean cube ``{0, 1}^p``.

Every synthesizer of this package works on Boolean matrices.  :class:`BooleanEncoder`
turns a table (a :class:`pandas.DataFrame` of mixed dtypes or a 2-D array) into one-hot
blocks (or, with ``encoding="binary"``, into the binary digits of each level's index),
one block per input column, and decodes synthetic Boolean rows back to the original
columns and dtypes.  :func:`boolean_cube_to_signs` and
:func:`signs_to_boolean_cube` are the affine "cube maps" between ``{0, 1}`` and
``{-1, 1}`` used by sign-based mechanisms.

**Privacy of the encoding.**  An encoding is *public* only if its domain (categories,
bin edges) does not depend on the private records.  Declare the domain with the
``categories`` parameter; every column whose domain is learned from the data triggers
a :class:`~skprivsynth.exceptions.PrivacyLeakWarning` naming it.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from numbers import Integral, Real

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import (
    _check_feature_names_in,
    check_array,
    check_is_fitted,
    validate_data,
)

from ._math.tails import decay_rate, decaying_positions
from .accountant import charge_active
from .chunks import as_chunks, reduce_chunks
from .domain import Domain, as_domain, codes_as_missing, fitted_domain
from .kinds import (
    MISSING,
    RESOLUTIONS,
    Bins,
    DatetimePart,
    Levels,
    Range,
    isna,
    iso,
    kind_of,
    nullable_dtype,
    object_array,
    observed_levels,
    quantile_bins,
)
from .privacy import PrivacyCost, PrivacyReport, check_epsilon, warn_privacy_leak
from .privacy.binning import SUB_BINS, binning_cost, release_bins
from .validation import check_random_generator, check_unit_interval, role_generator

__all__ = [
    "BooleanEncoder",
    "boolean_cube_to_signs",
    "private_level_frequencies",
    "signs_to_boolean_cube",
]

#: Largest dense output (entries) :meth:`BooleanEncoder.transform` allocates at once.
_MAX_OUTPUT_ENTRIES = 2**31


# ----------------------------------------------------------------------------- cube maps
def boolean_cube_to_signs(X):
    """Map ``{0, 1}`` to ``{-1, 1}`` by ``s = 1 - 2x`` (so ``x = 0`` maps to ``+1``).

    The map is affine, so it also sends ``[0, 1]`` onto ``[-1, 1]`` (means of Boolean
    vectors to means of sign vectors); entries outside ``[0, 1]`` are rejected.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Entries in ``[0, 1]`` (typically in ``{0, 1}``).

    Returns
    -------
    S : ndarray of float64, same shape
        ``1 - 2 X``.

    See Also
    --------
    signs_to_boolean_cube : The inverse map ``x = (1 - s) / 2``.

    Examples
    --------
    >>> from skprivsynth.preprocessing import boolean_cube_to_signs
    >>> boolean_cube_to_signs([[0, 1], [1, 1]]).tolist()
    [[1.0, -1.0], [-1.0, -1.0]]
    """
    X = check_array(X, dtype=np.float64, ensure_all_finite=True, input_name="X")
    check_unit_interval(X, name="X")
    return 1.0 - 2.0 * X


def signs_to_boolean_cube(S):
    """Map ``{-1, 1}`` to ``{0, 1}`` by ``x = (1 - s) / 2`` (so ``s = +1`` maps to ``0``).

    Inverse of :func:`boolean_cube_to_signs`; ``[-1, 1]`` is sent onto ``[0, 1]`` and
    entries outside ``[-1, 1]`` are rejected.

    Parameters
    ----------
    S : array-like of shape (n_samples, n_features)
        Entries in ``[-1, 1]`` (typically in ``{-1, 1}``).

    Returns
    -------
    X : ndarray of float64, same shape
        ``(1 - S) / 2``.

    Examples
    --------
    >>> from skprivsynth.preprocessing import signs_to_boolean_cube
    >>> signs_to_boolean_cube([[1, -1]]).tolist()
    [[0.0, 1.0]]
    """
    S = check_array(S, dtype=np.float64, ensure_all_finite=True, input_name="S")
    bad = np.abs(S) > 1
    if bad.any():
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        raise ValueError(f"S must have all entries in [-1, 1]; column {j} has values outside it.")
    return (1.0 - S) / 2.0


# ------------------------------------------------------------------------- column specs
class _Column:
    """Fitted encoding of one input column (internal).

    Built from a :class:`~skprivsynth.Domain` column ``spec``: ``kind`` is
    ``"levels"`` (one code per level, or per contiguous range of levels when
    ``ranges`` is set) or ``"bins"`` (one code per numeric bin; a
    :class:`~skprivsynth.domain.Range` gets its edges when its bins are released)
    or ``"part"`` (a :class:`~skprivsynth.domain.DatetimePart`: no code, computed
    from its decoded datetime column).  With ``missing``, one more code, the last,
    stands for missing values.
    """

    def __init__(self, spec, learned=False):
        self.spec = spec  # levels (tuple, range(K) or Levels), Bins, Range or DatetimePart
        self.kind = "bins" if isinstance(spec, Bins | Range) else "levels"
        if isinstance(spec, DatetimePart):
            self.kind = "part"
        self.value_kind = kind_of(spec).name  # categorical, integer, float, datetime, boolean
        self.missing = bool(getattr(spec, "missing", False))
        self.levels = None  # ndarray of the levels (kind "levels"), missing level excluded
        self.edges = None  # float ndarray of bin edges (kind "bins")
        # Binned columns decoded on a grid: 1 for integers, the resolution in seconds
        # for datetimes; None for real values.
        self.step = None
        if isinstance(spec, Bins | Range):
            self.step = _grid_step(spec)
            if isinstance(spec, Bins):
                self.edges = np.asarray(spec.edges, dtype=np.float64)
        elif isinstance(spec, DatetimePart):
            pass  # no codes: decoded from its datetime column
        elif isinstance(spec, range):
            self.levels = np.arange(len(spec), dtype=np.int64)
        elif isinstance(spec, Levels):
            levels = np.asarray(spec.levels) if spec.kind == "integer" else None
            self.levels = levels if levels is not None else object_array(spec.levels)
        else:
            self.levels = object_array(spec)
        self.ranges = None  # None or int ndarray of range boundaries into levels
        self.learned = learned  # domain learned from the data
        self.level_weights = None  # public weights of the codes of len(spec) (decoding)
        self.sub_weights = None  # (n_bins, n_sub) weights of the sub-bins of each bin
        # Points a range's bins decode to exactly, or None: (bins, values, shares), the
        # share of its bin at each point (the range's bounds, measured with the sub-bin
        # weights, and the grid points released before them).
        self.points = None
        self.part = None  # the DatetimePart of a part modelled as its values

    @property
    def n_values(self):
        """Number of codes of values (levels, ranges or bins): the missing code is next."""
        if self.kind == "part":
            return 0
        if self.kind == "bins":
            return self.edges.size - 1
        if self.ranges is not None:
            return self.ranges.size - 1
        return self.levels.size

    @property
    def width(self):
        """Number of codes, the missing code included (0 for a part: not encoded)."""
        return 0 if self.kind == "part" else self.n_values + self.missing

    def fallback_weights(self):
        """Public weights used to decode an all-zero block."""
        missing = [1.0] if self.missing else []
        if self.kind == "levels" and self.level_weights is not None:
            weights = self.level_weights
            if self.ranges is not None:
                weights = np.append(
                    np.add.reduceat(weights[: self.levels.size], self.ranges[:-1]),
                    weights[self.levels.size :],
                )
            if weights.sum() > 0:
                return weights
        if self.kind == "levels" and self.ranges is not None:
            # Uniform over the underlying levels: each range weighs its number of levels.
            return np.append(np.diff(self.ranges).astype(np.float64), missing)
        return np.ones(self.width)

    def labels(self):
        """Text label of each output bit (the part after ``name=``)."""
        if self.ranges is None:
            return kind_of(self.spec).labels()
        r = self.ranges
        return [
            str(self.levels[r[k]])
            if r[k + 1] - r[k] == 1
            else f"{self.levels[r[k]]}..{self.levels[r[k + 1] - 1]}"
            for k in range(len(r) - 1)
        ] + [str(MISSING)] * self.missing


def _fmt(x):
    return f"{x:g}"


def _n_bits(n_codes):
    """``ceil(log2(n_codes))``: bits of a binary code for ``n_codes >= 1`` codes."""
    return int(n_codes - 1).bit_length()


def _column_name(label):
    return repr(_show(label))


def _show(value):
    """A value as the user wrote it (``5`` rather than ``np.int64(5)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _is_float_dtype(dtype):
    return pd.api.types.is_float_dtype(dtype)


def _is_integer_dtype(dtype):
    return pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _is_bool_dtype(dtype):
    return pd.api.types.is_bool_dtype(dtype)


def _ranged_columns(categories):
    """The columns that ``categories`` declares with a range and no bins (public)."""
    if isinstance(categories, str):
        return []
    items = categories.items() if isinstance(categories, dict | Domain) else enumerate(categories)
    ranged = []
    for label, spec in items:
        if isinstance(spec, Range) or (
            isinstance(spec, dict) and "range" in spec and "bins" not in spec
        ):
            try:
                parsed = as_domain({label: spec}, "categories")[label]
            except (TypeError, ValueError):
                continue  # the encoder's fit names the error
            if isinstance(parsed, Range):
                ranged.append(label)
    return ranged


def _learn_column(series, n_bins):
    """Learn the domain of one column from its (private) values."""
    dtype = series.dtype
    if _is_bool_dtype(dtype):
        # The dtype fixes the domain {False, True}: nothing is learned from the data.
        return _Column((False, True))
    if isinstance(dtype, pd.CategoricalDtype):
        return _Column(tuple(dtype.categories), learned=True)
    if _is_float_dtype(dtype):
        return _Column(quantile_bins(series.to_numpy(dtype=np.float64), n_bins), learned=True)
    return _Column(tuple(observed_levels(series.to_numpy())), learned=True)


def _coarsen(column, max_bins):
    """Group the levels of ``column`` into ``max_bins`` contiguous ranges (in place).

    The boundaries ``floor(k L / m)`` depend only on the number of levels ``L``
    (public once declared), never on the data; range widths differ by at most one.
    ``m = max_bins``, or ``max_bins - 1`` when the missing level is a code of its own.
    """
    if column.kind != "levels" or max_bins is None:
        return
    L = column.levels.size
    if L + column.missing > max_bins:
        m = max_bins - column.missing  # the missing code stays a code of its own
        column.ranges = (np.arange(m + 1) * L) // m


# ------------------------------------------------------------------------------ encoder
class BooleanEncoder(TransformerMixin, BaseEstimator):
    """Encode a table as Boolean blocks (one-hot or binary) and decode Boolean rows back.

    Each input column becomes a block of ``{0, 1}`` columns in the output, in column
    order.  With the default ``encoding="onehot"`` the block has one bit per code and
    exactly one bit set per row; with ``encoding="binary"`` it holds the index of the
    code in ``ceil(log2(K))`` bits; with ``encoding="ordinal"`` it is one column holding
    the index itself (see ``encoding``).  The codes of a column are:

    * **levels** (categories): one bit per level, in the declared order;
    * **coarsened levels**: with ``max_bins``, a column with ``L > max_bins`` levels gets
      one bit per contiguous range of levels (boundaries ``floor(k L / max_bins)``, so
      the widths differ by at most one and depend only on the public ``L``);
    * **numeric bins**: one bit per bin ``[e_k, e_{k+1})`` (the last bin is closed).

    Parameters
    ----------
    categories : "auto", dict, list or Domain, default="auto"
        The public domain of the columns (read as a :class:`~skprivsynth.Domain`).  A
        dict maps column names (or integer column indices for arrays) to a spec; a list
        gives one spec per column, in order (``None`` or ``"auto"`` to learn that
        column).  Spec forms:

        - ``int K``: integer codes ``0..K-1`` (the style of
          :func:`skprivsynth.datasets.load_adult` ``.domain``);
        - a list of values (or a :class:`pandas.CategoricalDtype`): the levels, in order;
        - ``{"bins": [e0, ..., eB]}``: numeric bin edges, strictly increasing.  Values
          outside ``[e0, eB]`` are handled as unknown (see ``handle_unknown``) unless
          the spec has ``"clip": True``, which puts them in the end bins.

        Columns not declared are learned from the data and a
        :class:`~skprivsynth.exceptions.PrivacyLeakWarning` names them: float columns get
        ``n_bins`` quantile bins (clipped at transform), categorical columns the
        categories of their dtype, other columns their sorted distinct values.  Boolean
        columns are the exception: their domain ``{False, True}`` is fixed by the dtype,
        so no warning is emitted for them.
    encoding : {"onehot", "binary", "ordinal"}, default="onehot"
        How the ``K`` codes of a column (its levels, coarsened ranges or bins, after
        ``max_bins``) are written as bits:

        - ``"onehot"``: ``K`` bits, the bit of the row's code set;
        - ``"binary"``: the code's index ``0..K-1`` written in ``ceil(log2(K))`` bits,
          most significant bit first, so the output has ``sum_j ceil(log2(K_j))``
          columns instead of ``sum_j K_j``.  A column with a single code gets **0
          bits** (it is constant: it decodes to its only level).  Indices
          ``K..2^b - 1`` are *invalid codes*; with ``handle_unknown="ignore"`` the
          all-ones code is reserved for unknown values, so the column gets
          ``ceil(log2(K + 1))`` bits.  Meant for mechanisms whose cost grows with
          the size ``2^p`` of the cube, such as
          :class:`~skprivsynth.CorrelatedGaussianMechanism`:
          ``BooleanEncoder(categories=load_adult().domain, encoding="binary",
          max_bins=2)`` encodes Adult in 14 bits (``max_bins=4``: 26 bits).
          ``feature_blocks_`` is None in this mode (there are no one-hot blocks; see
          ``column_blocks_``), and decoding is described in the Notes;
        - ``"ordinal"``: one output column per input column holding the code's index
          ``0..K-1`` as a float, for synthesizers of integer codes such as
          :class:`~skprivsynth.MarginalSynthesizer` (``n_codes_`` gives each ``K``).
          Decoding rounds each value to the nearest integer and clips it into
          ``0..K-1`` (never NaN); ``feature_blocks_`` is None and
          ``handle_unknown="ignore"`` is refused (no code is left for unknown values).
    n_bins : int, default=8
        Number of quantile bins of a float column learned from the data (fewer when
        quantiles tie).
    max_bins : int or None, default=None
        If set, a column with more than ``max_bins`` levels is coarsened into
        ``max_bins`` contiguous ranges of levels.  Meant for ordinal integer codes
        (``BooleanEncoder(categories=load_adult().domain, max_bins=8)`` encodes Adult in
        94 bits instead of 588).
    handle_unknown : {"error", "ignore"}, default="error"
        What :meth:`transform` does with a value outside the declared domain (an
        undeclared category, or a number outside the bin edges without ``clip``):
        ``"error"`` raises a ``ValueError`` naming the column, the value and its row;
        ``"ignore"`` encodes it as an all-zero block (with ``encoding="binary"``: as
        the reserved all-ones code, an invalid code; refused with
        ``encoding="ordinal"``).  During :meth:`fit`, a value
        outside a declared domain always raises.
    level_weights : dict, "private" or None, default=None
        Weights used only for decoding: a coarsened range decodes to a level drawn
        proportionally to the weights of its levels instead of uniformly, and an
        all-zero block to a level drawn from them.

        - a dict (column -> one non-negative number per level): public weights.  They
          must not come from the private data itself: take them from public
          knowledge or from a differentially private release such as
          :func:`private_level_frequencies`;
        - ``"private"``: :meth:`fit` releases, in one
          :func:`private_level_frequencies` release with budget ``decode_epsilon``,
          the level frequencies of every *declared* column that ``max_bins``
          coarsens and the frequencies of the 8 equal-width sub-bins of every bin of
          every *declared* binned column (a bin then decodes to a value distributed
          like the data inside it, e.g. the mean of a skewed income is kept), and
          records the release in ``privacy_report_`` (its ε adds to the
          synthesizer's by basic composition; :class:`~skprivsynth.SynthesisPipeline`
          composes both).  Nothing is released when there is no such column;
        - None: uniform decoding within each range and bin.
    decode_epsilon : float, default=0.1
        Budget (> 0) of the release of ``level_weights="private"``; unused otherwise.
    binning_epsilon : float, default=0.25
        Budget (> 0) of the bins of the columns declared with a public range and no
        bins (:class:`~skprivsynth.domain.Range`: ``{"type": "float", "range": [lo,
        hi]}``, a wide integer or a datetime range), chosen at :meth:`fit` with
        differential privacy; unused when there is none.  The release is ρ-zCDP with
        ``ρ = zcdp_rho(binning_epsilon, 1e-9)`` (so it is
        ``(binning_epsilon, 1e-9)``-DP on its own), split evenly between the ranged
        columns.  In each, a quarter goes to PrivTree bins over a fine histogram of
        ``2**10`` cells (Zhang, Xiao & Xie, SIGMOD 2016: dense regions get fine bins,
        empty ones coarse bins), the rest to non-negative, noise-aware frequencies of
        8 sub-bins of each bin for decoding (Hay, Rastogi, Miklau & Suciu, PVLDB
        2010), so that noise in empty regions does not become mass.  Recorded in
        ``privacy_report_``; in a :class:`~skprivsynth.SynthesisPipeline` its ρ adds
        to a zCDP synthesizer's, which costs less than ``binning_epsilon``: behind
        ``MarginalSynthesizer(epsilon=1)`` the total is ε = 1.014 with the default
        (1.107 with 0.5).  On 20,000 rows of four ranged columns (a zero-inflated
        income, an age, a measurement, an hourly timestamp) the median KS statistic
        of the decoded columns was 0.02-0.03 (0.014 with 0.5, 0.008 with 1).
        Integer and datetime ranges get bins of whole grid points; with ``max_bins``
        a column gets at most ``max_bins`` codes.  Read more in the
        :ref:`User Guide <private_binning>`.
    noise : {"continuous", "discrete"}, default="continuous"
        Noise of every release of the encoder, as the synthesizers' ``noise``: the
        private level frequencies (:func:`~skprivsynth.privacy.laplace_mechanism`) and
        the private bins (PrivTree's split tests, the grid points, the sub-bin counts;
        :mod:`skprivsynth.privacy.binning`).  ``"discrete"`` is floating-point-safe.
    datetime_parts : {"computed", "modelled"}, default="modelled"
        How the parts of a datetime column (:class:`~skprivsynth.domain.DatetimePart`)
        are synthesized; decoded parts always agree with their datetime.  The
        default keeps the relations of parts finer than the datetime's bins (hour,
        weekday) to the other columns: on 20,000-row flights-like and daily-sales
        tables at ε = 1, 2-way TVD of (hour, carrier) 0.048 modelled vs 0.293
        computed, (weekday, store) 0.013 vs 0.204, (month, carrier) 0.026 vs 0.038:

        - ``"computed"``: not encoded; computed from the decoded datetime, so they
          cost nothing but are only as accurate as the datetime's bins (an hour of
          the day is drawn within a bin that spans days);
        - ``"modelled"``: every part but ``"date"`` is encoded as the integer levels
          it can take (months 1..12, the years of the range ...), modelled with the
          other columns, and the decoded datetime is drawn inside its bin on a day
          that matches the decoded weekday, day, month and year (the finest first:
          when no day of the bin matches them all, the coarsest are dropped, which
          the bin then decides), at the decoded hour and minute; then the parts are
          computed from it.  The parts of a time-zone-aware column are computed.
          Measured on generated tables at ε = 1 (see the User Guide),
          it keeps the relations of the hour and the weekday to other columns that
          ``"computed"`` loses.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seeds the randomness of :meth:`inverse_transform` (decoding invalid blocks,
        fractional bits and coarsened ranges) and the noise of the private bins and
        of ``level_weights="private"``, each with an independent stream
        (:func:`~skprivsynth.validation.role_generator`; a Generator is drawn from,
        never kept).  The streams are seeded at :meth:`fit`; successive calls
        continue the decoding stream.  Leave it None for a private release.

    Attributes
    ----------
    categories_ : list of ndarray or None
        Levels of each column (all levels, even when coarsened): ``arange(K)`` for a
        spec ``K``, an object array otherwise; None for a binned column.
    bin_edges_ : list of ndarray or None
        Bin edges of each binned column; None for a column of levels.
    level_ranges_ : list of ndarray or None
        For a coarsened column, the boundaries ``r`` such that output bit ``k`` stands
        for ``categories_[j][r[k]:r[k+1]]``; None otherwise.
    domain_ : Domain
        The domain of the codes, column by column: the declared spec, a declared
        range with its released bins, a learned column with its learned levels or
        bins, a part modelled as its values with those values' levels.
    modelled_parts_ : dict
        The parts of datetime columns modelled as their values
        (``datetime_parts="modelled"``): column -> its declared
        :class:`~skprivsynth.domain.DatetimePart`.
    n_codes_ : list of int
        Number of codes ``K`` of each column: its levels, coarsened ranges or bins
        (in every encoding); 0 for a part of a datetime column (see Notes).
    column_blocks_ : list of slice
        The output columns of each input column (in every encoding; an empty slice
        for a 0-bit column in binary mode and for a part of a datetime column).
    feature_blocks_ : list of slice or None
        The one-hot blocks of the encoded columns (``column_blocks_`` without the
        empty slices of parts) with ``encoding="onehot"``, None otherwise, so that
        consumers of one-hot blocks (e.g. :class:`~skprivsynth.ReducedSpaceLP`
        ``feature_blocks``) never read binary codes as one-hot blocks.
    dtypes_ : list of dtype
        The dtype restored by :meth:`inverse_transform` for each column.
    learned_columns_ : list
        Columns whose domain was learned from the data (privacy leak).
    privacy_report_ : PrivacyReport or None
        The release of ``level_weights="private"`` (None when nothing was released).
    n_features_out_ : int
        Number of output (Boolean) columns.
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of str
        Column names, when fitted on a DataFrame with string column names.

    Notes
    -----
    **Parts of a datetime column.**  A column declared ``{"part_of": column, "part":
    "month"}`` (:class:`~skprivsynth.domain.DatetimePart`) is a public function of
    its datetime column.  With ``datetime_parts="computed"`` it is not encoded (no
    output column, so a synthesizer never models it and spends no budget on it),
    its values are never read, and :meth:`inverse_transform` computes it from the
    decoded datetime, in the column's dtype (missing where the datetime is).  With
    ``"modelled"`` it is encoded as the levels it can take and the datetime is
    decoded to agree with it where its bin allows (post-processing of the decoded
    codes).  Decoded parts always agree with their datetime, even where the input
    did not.

    **Decoding** (:meth:`inverse_transform`).  Each block of ``Xt`` is read as
    non-negative weights ``w = clip(block, 0, 1)``: a level is drawn with probability
    proportional to ``w``.  So a valid one-hot block decodes to its level, a block with
    several bits set to one of them uniformly at random, and a block of fractional
    values (e.g. un-rounded averages of one-hot rows) to a level drawn from that
    categorical distribution.  An all-zero block (including ``handle_unknown="ignore"``
    outputs) decodes to a level drawn from public weights only: uniform over the
    levels (over the *underlying* levels for a coarsened column, i.e. each range weighs
    its size; uniform over the bins for a binned column).  A coarsened range decodes to
    a level drawn uniformly within the range (or proportionally to the declared
    public ``level_weights``), and a bin to a value drawn uniformly in the bin (an
    integer of the bin for integer dtypes), or, with ``level_weights="private"``,
    from the released frequencies of its 8 equal-width sub-bins, then uniformly in
    the sub-bin: the within-range distribution of the private data is never used
    except through such a DP release.  The outermost occupied bin on each side,
    where it has no such frequencies, is drawn from a density that decays away
    from its denser inner neighbour, at the rate that gives it its share of the
    decoded rows (post-processing of ``Xt`` and the edges; User Guide, "The end
    bins").  The randomness comes from ``random_state``.

    **Decoding binary codes** (``encoding="binary"``).  Each bit is read as the
    probability ``clip(x, 0, 1)`` of a 1: entries exactly 0 or 1 (or outside
    ``[0, 1]``) are kept (clipped) as they are, and a fractional entry (e.g. an
    un-rounded mean of records) becomes a 1 with that probability, independently
    (randomized rounding).  The bits give an index; a valid index decodes to its code
    (a coarsened range or bin is then decoded as above).  An invalid index ``>= K``
    (possible when ``K`` is not a power of two, or the reserved code of
    ``handle_unknown="ignore"``) decodes exactly like an all-zero one-hot block: to a
    code drawn from the public fallback weights (uniform over the underlying levels,
    or the declared ``level_weights``; uniform over the bins).  The rule never looks
    at the data, never gives NaN, and is seeded by ``random_state``.

    Complexity: :meth:`fit` is ``O(n p_in)`` (plus a sort per learned column),
    :meth:`transform` and :meth:`inverse_transform` are ``O(n p_out)`` time and memory.

    Examples
    --------
    >>> import pandas as pd
    >>> from skprivsynth.preprocessing import BooleanEncoder
    >>> df = pd.DataFrame({"color": ["red", "blue", "red"], "size": [0, 2, 1]})
    >>> enc = BooleanEncoder(categories={"color": ["red", "blue"], "size": 3})
    >>> enc.fit_transform(df).tolist()
    [[1.0, 0.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0, 0.0]]
    >>> enc.get_feature_names_out().tolist()
    ['color=red', 'color=blue', 'size=0', 'size=1', 'size=2']
    >>> enc.inverse_transform(enc.transform(df)).equals(df)
    True

    Binary codes (``size`` has 3 levels, so 2 bits; ``color`` 2 levels, 1 bit):

    >>> enc = BooleanEncoder(categories={"color": ["red", "blue"], "size": 3},
    ...                      encoding="binary")
    >>> enc.fit_transform(df).tolist()
    [[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    >>> enc.get_feature_names_out().tolist()
    ['color@bit0', 'size@bit1', 'size@bit0']
    >>> enc.inverse_transform(enc.transform(df)).equals(df)
    True

    Ordinal codes (one column per input column):

    >>> enc = BooleanEncoder(categories={"color": ["red", "blue"], "size": 3},
    ...                      encoding="ordinal")
    >>> enc.fit_transform(df).tolist()
    [[0.0, 0.0], [1.0, 2.0], [0.0, 1.0]]
    >>> enc.n_codes_
    [2, 3]
    >>> enc.inverse_transform([[1, 2.2], [0, -1]])
      color  size
    0  blue     2
    1   red     0
    """

    _parameter_constraints = {
        "categories": [StrOptions({"auto"}), dict, list, Domain],
        "n_bins": [Interval(Integral, 2, None, closed="left")],
        "max_bins": [Interval(Integral, 2, None, closed="left"), None],
        "encoding": [StrOptions({"onehot", "binary", "ordinal"})],
        "handle_unknown": [StrOptions({"error", "ignore"})],
        "level_weights": [dict, StrOptions({"private"}), None],
        "decode_epsilon": [Interval(Real, 0, None, closed="neither")],
        "binning_epsilon": [Interval(Real, 0, None, closed="neither")],
        "noise": [StrOptions({"continuous", "discrete"})],
        "datetime_parts": [StrOptions({"computed", "modelled"})],
        "random_state": ["random_state", np.random.Generator],
    }

    def __init__(
        self,
        categories="auto",
        *,
        n_bins=8,
        max_bins=None,
        encoding="onehot",
        handle_unknown="error",
        level_weights=None,
        decode_epsilon=0.1,
        binning_epsilon=0.25,
        noise="continuous",
        datetime_parts="modelled",
        random_state=None,
    ):
        self.categories = categories
        self.n_bins = n_bins
        self.max_bins = max_bins
        self.encoding = encoding
        self.handle_unknown = handle_unknown
        self.level_weights = level_weights
        self.decode_epsilon = decode_epsilon
        self.binning_epsilon = binning_epsilon
        self.noise = noise
        self.datetime_parts = datetime_parts
        self.random_state = random_state

    # ----------------------------------------------------------------------- input
    def _as_frame(self, X, reset):
        """Validate ``X`` and return it as a DataFrame with positional access."""
        if isinstance(X, pd.DataFrame):
            validate_data(self, X, reset=reset, skip_check_array=True)
            if X.shape[1] == 0:
                raise ValueError(
                    f"0 feature(s) (shape={X.shape}) while a minimum of 1 is required."
                )
            if X.shape[0] == 0:
                raise ValueError(
                    f"Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 "
                    "is required."
                )
            if reset:
                self._columns = list(X.columns)
                self._fitted_on_frame = True
            return X.reset_index(drop=True)
        Xa = validate_data(
            self,
            X,
            reset=reset,
            dtype=None,
            ensure_all_finite=False,
            ensure_2d=True,
            ensure_min_samples=1,
            ensure_min_features=1,
        )
        if reset:
            self._columns = list(range(Xa.shape[1]))
            self._fitted_on_frame = False
            self._array_dtype = Xa.dtype
        return pd.DataFrame(Xa, columns=self._columns, copy=False)

    def _declared_domain(self, frame):
        """The :class:`~skprivsynth.Domain` of the declared columns of ``frame``."""
        cats = self.categories
        labels = list(frame.columns)
        if isinstance(cats, str):
            cats = {}
        elif isinstance(cats, list):
            if len(cats) != len(labels):
                raise ValueError(
                    f"categories given as a list must have one entry per column "
                    f"({len(labels)}); got {len(cats)}."
                )
            cats = dict(zip(labels, cats, strict=True))
        unknown = [k for k in cats if k not in labels]
        if unknown:
            raise ValueError(
                f"categories has keys {unknown!r} that are not columns of X; the columns "
                f"are {labels!r}."
            )
        declared = {
            k: v for k, v in cats.items() if not (v is None or isinstance(v, str) and v == "auto")
        }
        return as_domain(declared, "categories")

    # ------------------------------------------------------------------------- fit
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fix the encoding of every column.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            The data; NaN (or ``pd.NA``) is rejected.  Or a source of chunks
            (:class:`~skprivsynth.Chunks`, iterator of chunks, Dask DataFrame) when
            the domain of every column is declared: the encoding is fixed from the
            first chunk (columns, dtypes), and ``level_weights="private"`` counts the
            levels over all chunks before its release; the other chunks are not read.
        y : None
            Ignored.

        Returns
        -------
        self : BooleanEncoder
        """
        if self.encoding == "ordinal" and self.handle_unknown == "ignore":
            raise ValueError(
                "handle_unknown='ignore' is not available with encoding='ordinal': every "
                "code 0..K-1 stands for a level, so none is left for an unknown value. "
                "Declare the value in `categories` or use handle_unknown='error'."
            )
        chunks = as_chunks(X)
        if chunks is not None:
            X = chunks._peek()
            if X is None:
                raise ValueError("X is a source of chunks without any chunk.")
        frame = self._as_frame(X, reset=True)
        domain = self._declared_domain(frame)
        # The declared columns with codes for missing (read as missing from here on).
        self._coded = domain.project([c for c in domain if domain.missing_codes(c)])
        frame = codes_as_missing(frame, self._coded)
        if chunks is not None and len(self._coded):
            chunks = chunks.map(functools.partial(codes_as_missing, domain=self._coded))
        columns, dtypes = [], []
        for j, label in enumerate(frame.columns):
            series = frame.iloc[:, j]
            if label in domain:
                column = self._declared_column(domain, label, frame)
                if column.kind != "part":  # a computed part's values are never read
                    _check_declared_missing(series, label, column)
            else:
                _check_no_missing(series, label)
                column = _learn_column(series, self.n_bins)
            _coarsen(column, self.max_bins)
            labels = column.labels() if column.edges is not None or column.kind == "levels" else []
            if len(set(labels)) != len(labels):
                raise ValueError(
                    f"The levels of column {_column_name(label)} give duplicate output names "
                    f"{labels!r} (e.g. 1 and '1'); declare distinct levels in `categories`."
                )
            columns.append(column)
            dtypes.append(_output_dtype(series.dtype, column))
            if column.kind == "bins" and column.step is None and _is_integer_dtype(series.dtype):
                column.step = 1  # bins of an integer column decode to integers
        undeclared = [label for label, c in zip(frame.columns, columns, strict=True) if c.learned]
        if chunks is not None and undeclared:
            raise ValueError(
                "BooleanEncoder.fit on a source of chunks needs the declared domain of every "
                f"column (categories={{column: spec}}); the domain of columns {undeclared!r} "
                "would be learned from the first chunk only."
            )
        if self.level_weights != "private":
            self._attach_level_weights(columns, frame)
        self._encoding = columns
        # Values outside a declared domain are an error at fit, whatever handle_unknown
        # (a declared range is checked by the counts of its bins' release, before it).
        for j, column in enumerate(columns):
            if column.edges is not None or column.kind == "levels":
                _encode_column(frame.iloc[:, j], column, frame.columns[j], "error")
        data = frame if chunks is None else chunks
        reports = [self._release_bins(columns, data, domain)]
        if self.level_weights == "private":
            reports.append(self._release_level_weights(columns, data, domain))
        reports = [r for r in reports if r is not None]
        report = reports[0].compose(*reports[1:]) if len(reports) > 1 else next(iter(reports), None)
        learned = [label for label, c in zip(self._columns, columns, strict=True) if c.learned]
        if learned:
            warn_privacy_leak(
                f"BooleanEncoder learned the domain (categories or bin edges) of columns "
                f"{learned!r} from the data, so the encoding depends on private records. "
                "Declare each column's public domain with categories={column: spec}, where "
                "spec is an int K (codes 0..K-1), a list of values, {'bins': [e0, ..., eB]} "
                "or {'type': 'float', 'range': [lo, hi]} (see Domain for every kind).",
                stacklevel=4,  # warn_privacy_leak -> fit -> sklearn's fit wrapper -> caller
            )
        self.learned_columns_ = learned
        self.privacy_report_ = report
        self.domain_ = fitted_domain(zip(self._columns, (c.spec for c in columns), strict=True))
        self.modelled_parts_ = {
            label: c.part
            for label, c in zip(self._columns, columns, strict=True)
            if c.part is not None
        }
        self.categories_ = [c.levels if c.kind == "levels" else None for c in columns]
        self.bin_edges_ = [c.edges if c.kind == "bins" else None for c in columns]
        self.level_ranges_ = [c.ranges for c in columns]
        self.dtypes_ = dtypes
        self.n_codes_ = [c.width for c in columns]
        if self.encoding == "binary":
            reserve = 1 if self.handle_unknown == "ignore" else 0
            widths = [_n_bits(c.width + reserve) for c in columns]
        elif self.encoding == "ordinal":
            widths = [1] * len(columns)
        else:
            widths = list(self.n_codes_)
        widths = [0 if c.kind == "part" else w for c, w in zip(columns, widths, strict=True)]
        stops = np.cumsum(widths)
        starts = stops - np.array(widths)
        blocks = [slice(int(a), int(b)) for a, b in zip(starts, stops, strict=True)]
        self.column_blocks_ = blocks
        self.feature_blocks_ = None
        if self.encoding == "onehot":  # a part has no block
            self.feature_blocks_ = [b for b, c in zip(blocks, columns, strict=True) if c.width]
        self.n_features_out_ = int(stops[-1])
        self._decode_rng = role_generator(self.random_state, "encoder decoding")
        return self

    def _declared_column(self, domain, label, frame):
        """The :class:`_Column` of a declared column: a part of a datetime modelled
        as the integer levels it can take (``datetime_parts="modelled"``; not the
        date, nor a part of a time-zone-aware column (read from its dtype) or a
        year range binned)."""
        spec = domain[label]
        if (
            isinstance(spec, DatetimePart)
            and self.datetime_parts == "modelled"
            and getattr(frame[spec.of].dtype, "tz", None) is None
        ):
            values = kind_of(spec).values_spec(domain)
            if spec.part != "date" and isinstance(values, Levels):
                column = _Column(values)
                column.part = spec
                return column
        return _Column(spec)

    def _release_bins(self, columns, X, domain):
        """Choose the bins of every declared :class:`~skprivsynth.domain.Range` and
        their within-bin decoding weights with differential privacy
        (:func:`~skprivsynth.privacy.binning.release_bins`, on the fine histograms of
        :class:`_FineCounts` summed over the chunks of ``X``); return the report."""
        ranged = {label: spec for label, spec in domain.items() if isinstance(spec, Range)}
        if not ranged:
            return None
        charge_active("private bins", binning_cost(self.binning_epsilon))  # before any draw
        counts = reduce_chunks(X, _FineCounts(ranged))
        labels = list(self._columns)
        grids, min_widths = {}, {}
        for label, spec in ranged.items():
            column = columns[labels.index(label)]
            grids[label] = grid = _FineGrid(spec)
            min_widths[label] = 1
            if self.max_bins is not None:  # at most max_bins - missing bins (public cap)
                cap = 1 << (int(self.max_bins - column.missing).bit_length() - 1)
                min_widths[label] = max(1, grid.n_cells // cap)
        released, report = release_bins(
            counts,
            grids,
            min_widths,
            self.binning_epsilon,
            role_generator(self.random_state, "encoder bins"),
            role_generator(self.random_state, "encoder grid points"),
            noise=self.noise,
        )
        for label, spec in ranged.items():
            column, bins = columns[labels.index(label)], released[label]
            column.spec = Bins(
                bins.edges,
                spec.clip,
                spec.kind,
                spec.resolution,
                spec.missing,
                spec.decimals,
                spec.missing_codes,
            )
            column.edges = np.asarray(bins.edges)
            column.sub_weights = bins.sub_weights
            column.points = bins.points
        return report

    def _release_level_weights(self, columns, frame, domain):
        """``level_weights="private"``: release the frequencies of the levels of the
        declared coarsened columns and of the sub-bins of the declared binned columns
        (in the declared order) and attach them; return the report.  ``frame`` is the
        data, in memory or a source of chunks (its counts are summed over the chunks).

        Which columns are released depends only on the declared domain and
        ``max_bins``; learned columns are never released.
        """
        labels = list(self._columns)
        released = {}
        for label, spec in domain.items():
            column = columns[labels.index(label)]
            if isinstance(spec, Bins):
                released[label] = _sub_bins(spec)
            elif column.ranges is not None:
                released[label] = column.spec  # a modelled part: its levels
        if not released:
            return None
        weights, report = private_level_frequencies(
            frame,
            released,
            self.decode_epsilon,
            self.random_state,
            noise=self.noise,
            return_report=True,
        )
        for label, w in weights.items():
            column = columns[labels.index(label)]
            if column.kind == "bins":
                column.sub_weights = w[: column.n_values * SUB_BINS].reshape(-1, SUB_BINS)
            else:
                column.level_weights = w
        return report

    def _attach_level_weights(self, columns, frame):
        """Check ``level_weights`` and attach them to the columns they describe."""
        if self.level_weights is None:
            return
        labels = list(frame.columns)
        for label, weights in self.level_weights.items():
            if label not in labels:
                raise ValueError(
                    f"level_weights has key {label!r}, which is not a column of X; the "
                    f"columns are {labels!r}."
                )
            column = columns[labels.index(label)]
            if column.kind == "part":
                raise ValueError(
                    f"level_weights[{label!r}]: the column is a part of a datetime column, "
                    "computed from it: it has no levels to weigh."
                )
            if column.kind != "levels":
                raise ValueError(
                    f"level_weights[{label!r}]: the column is binned, not a column of levels."
                )
            weights = np.asarray(weights, dtype=np.float64)
            size = column.levels.size + column.missing
            if weights.shape != (size,) or not np.all(np.isfinite(weights)) or (weights < 0).any():
                raise ValueError(
                    f"level_weights[{label!r}] must be {size} finite, non-negative numbers "
                    f"(one per level, the missing level last); got shape {weights.shape}."
                )
            column.level_weights = weights

    # ------------------------------------------------------------------- transform
    def transform(self, X):
        """Encode ``X`` as one-hot blocks (or binary or ordinal codes, see ``encoding``).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features_in)
            Same columns as in :meth:`fit`.

        Returns
        -------
        Xt : ndarray of float64, shape (n_samples, n_features_out)
            One-hot: entries in ``{0, 1}``, one bit per block set (none for an unknown
            value with ``handle_unknown="ignore"``).  Binary: each block holds the
            code's index in ``{0, 1}`` bits, most significant bit first (all ones for
            an unknown value with ``handle_unknown="ignore"``).  Ordinal: the code's
            index ``0..K-1`` of each column.
        """
        check_is_fitted(self)
        frame = codes_as_missing(self._as_frame(X, reset=False), self._coded)
        n = frame.shape[0]
        if n * self.n_features_out_ > _MAX_OUTPUT_ENTRIES:
            raise ValueError(
                f"The encoded output would have {n} x {self.n_features_out_} entries, more "
                f"than {_MAX_OUTPUT_ENTRIES}; reduce the number of levels (categories, "
                "max_bins, n_bins) or transform fewer rows at a time."
            )
        out = np.zeros((n, self.n_features_out_), dtype=np.float64)
        rows = np.arange(n)
        for j, (column, block) in enumerate(zip(self._encoding, self.column_blocks_, strict=True)):
            if column.kind == "part":
                continue  # not encoded: computed from its datetime column when decoded
            series = frame.iloc[:, j]
            if self._encoding[j].learned:
                _check_no_missing(series, frame.columns[j])
            else:
                _check_declared_missing(series, frame.columns[j], self._encoding[j])
            codes = _encode_column(series, column, frame.columns[j], self.handle_unknown)
            known = codes >= 0
            if self.encoding == "ordinal":
                out[:, block.start] = codes  # every code is known: handle_unknown is "error"
            elif self.encoding == "binary":
                b = block.stop - block.start
                codes = np.where(known, codes, (1 << b) - 1)  # unknown: the all-ones code
                out[:, block] = (codes[:, None] >> np.arange(b - 1, -1, -1)) & 1
            else:
                out[rows[known], block.start + codes[known]] = 1.0
        return out

    # ----------------------------------------------------------- inverse transform
    def inverse_transform(self, X, random_state=None):
        """Decode Boolean (or fractional) rows back to the original columns.

        See the Notes of the class for the decoding rule of invalid blocks.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_out)
            Finite real values; a one-hot block is read as weights
            ``clip(block, 0, 1)``, a binary bit as the probability ``clip(x, 0, 1)``
            of a 1, an ordinal code as the nearest code in ``0..K-1``.
        random_state : None, int or numpy.random.Generator, optional
            Seed of this call; None continues the encoder's own stream (seeded at fit).

        Returns
        -------
        X_original : DataFrame or ndarray of shape (n_samples, n_features_in)
            A DataFrame with the fitted column names, order and dtypes and index
            ``0..n-1`` when fitted on a DataFrame, else an ndarray of the fitted dtype.
        """
        check_is_fitted(self)
        Xt = check_array(
            X,
            dtype=np.float64,
            ensure_all_finite=True,
            ensure_min_features=0 if self.n_features_out_ == 0 else 1,
            input_name="X",
        )
        if Xt.shape[1] != self.n_features_out_:
            raise ValueError(
                f"X has {Xt.shape[1]} columns, but BooleanEncoder.inverse_transform expects "
                f"n_features_out_={self.n_features_out_} columns."
            )
        rng = self._decode_rng if random_state is None else check_random_generator(random_state)
        has_negative = bool((Xt < 0).any())
        decoded = {}
        for j, (column, block) in enumerate(zip(self._encoding, self.column_blocks_, strict=True)):
            if column.kind == "part":
                continue
            if self.encoding == "ordinal":
                idx = np.clip(np.rint(Xt[:, block.start]), 0, column.width - 1).astype(np.int64)
            elif self.encoding == "binary":
                idx = _draw_binary_block(Xt[:, block], column, rng)
            else:
                idx = _draw_block(Xt[:, block], column.fallback_weights(), rng, has_negative)
            decoded[j] = _decode_column(idx, column, self.dtypes_[j], rng)
        modelled = {}  # datetime column index -> {part: decoded values}
        for j, column in enumerate(self._encoding):
            if column.part is not None:
                of = self._columns.index(column.part.of)
                values = decoded[j].to_numpy(dtype=np.float64, na_value=np.nan)
                modelled.setdefault(of, {})[column.part.part] = values
        for of, parts in modelled.items():  # naive datetimes only (see fit)
            decoded[of] = _datetimes_with_parts(
                decoded[of], self._encoding[of], parts, self.dtypes_[of], rng
            )
        for j, column in enumerate(self._encoding):
            part = column.spec if column.kind == "part" else column.part
            if part is not None:
                of = decoded[self._columns.index(part.of)]
                decoded[j] = _datetime_part(of, part.part, self.dtypes_[j])
        decoded = {j: decoded[j] for j in range(len(self._encoding))}  # input order
        if not self._fitted_on_frame:
            out = np.empty((Xt.shape[0], self.n_features_in_), dtype=self._array_dtype)
            for j, values in decoded.items():
                out[:, j] = values.to_numpy()
            return out
        frame = pd.DataFrame(decoded)
        frame.columns = pd.Index(self._columns)
        return frame

    # ------------------------------------------------------------------------ names
    def get_feature_names_out(self, input_features=None):
        """Output names ``"column=level"`` (``"column=a..b"`` for a coarsened range,
        ``"column=[lo, hi)"`` for a bin); with ``encoding="binary"``,
        ``"column@bit{k}"`` for the bit of weight ``2^k``, listed most significant
        first (``age@bit1, age@bit0``); with ``encoding="ordinal"``, the column names
        (a part of a datetime column, not encoded, has none).

        Parameters
        ----------
        input_features : array-like of str, optional
            Input names; defaults to ``feature_names_in_`` (or ``x0, x1, ...``).

        Returns
        -------
        ndarray of str objects, shape (n_features_out,)
        """
        check_is_fitted(self)
        names = _check_feature_names_in(self, input_features)
        if self.encoding == "ordinal":  # a part of a datetime column has no output
            return np.asarray(
                [n for n, b in zip(names, self.column_blocks_, strict=True) if b.stop > b.start],
                dtype=object,
            )
        if self.encoding == "binary":
            return np.asarray(
                [
                    f"{name}@bit{k}"
                    for name, block in zip(names, self.column_blocks_, strict=True)
                    for k in range(block.stop - block.start - 1, -1, -1)
                ],
                dtype=object,
            )
        return np.asarray(
            [
                f"{name}={label}"
                for name, column in zip(names, self._encoding, strict=True)
                for label in column.labels()
            ],
            dtype=object,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        tags.input_tags.sparse = False
        return tags


# ------------------------------------------------------------------ column helpers
def _check_no_missing(series, label):
    """Refuse missing and infinite values; the message names the column, never a value
    nor a row."""
    missing = series.isna().to_numpy()
    if _is_float_dtype(series.dtype):
        missing = missing | ~np.isfinite(series.to_numpy(dtype=np.float64, na_value=np.nan))
    if missing.any():
        raise ValueError(
            f"Input X contains NaN or infinity: column {_column_name(label)} has missing or "
            "infinite values. BooleanEncoder needs complete, finite data; impute or drop "
            "missing values first (or encode them as an explicit category)."
        )


def _check_declared_missing(series, label, column):
    """Refuse missing values in a declared column without a missing level, and
    infinities; the message names the column and the key to add, never a value."""
    if not column.missing and series.isna().any():
        raise ValueError(
            f"Column {_column_name(label)} has missing values (NaN, None, NaT or pd.NA), but "
            'its declared domain has no missing level; add "missing": true to its spec '
            f'(e.g. categories[{_show(label)!r}] = {{..., "missing": true}}) to synthesize '
            "them as one more level, or drop or impute them first."
        )
    if _is_float_dtype(series.dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isinf(values).any():
            raise ValueError(
                f"Column {_column_name(label)} has infinite values, which no declared "
                "domain holds; replace them first."
            )


def _output_dtype(dtype, column):
    """The dtype inverse_transform restores; never one that turns a level into NaN.

    The input dtype, except: a boolean column is ``bool`` (``"boolean"`` with a
    missing level); a datetime column read as text is ``datetime64[s]``; an integer
    column whose input dtype is not an integer one (floats, text) is ``int64``; an
    integer or bool dtype with a missing level becomes nullable (``Int64``); a
    categorical column of declared levels has the declared levels as categories, in
    their order (ordered when declared so, or when its dtype is).  Read from the
    declaration and the dtype only, never from the values.
    """
    kind = column.value_kind
    if kind == "boolean":
        return pd.BooleanDtype() if column.missing else np.dtype(bool)
    if kind == "datetime":
        return dtype if pd.api.types.is_datetime64_any_dtype(dtype) else np.dtype("datetime64[s]")
    if isinstance(dtype, pd.CategoricalDtype):
        if column.kind != "levels" or column.learned:
            return dtype
        spec = column.spec
        if isinstance(spec, Levels):
            return pd.CategoricalDtype(list(spec.levels), ordered=spec.ordered or dtype.ordered)
        return pd.CategoricalDtype(list(spec), ordered=dtype.ordered)
    if kind == "integer" and not (_is_integer_dtype(dtype) or _is_bool_dtype(dtype)):
        dtype = np.dtype(np.int64)  # declared integers read as floats or text
    return nullable_dtype(dtype) if column.missing else dtype


def _encode_column(series, column, label, handle_unknown):
    """Output bit index of each row within the column's block (-1 = all-zero block)."""
    if column.kind == "bins" and column.value_kind != "datetime":
        if not (pd.api.types.is_numeric_dtype(series.dtype) and not _is_bool_dtype(series.dtype)):
            raise TypeError(
                f"categories[{label!r}] declares numeric bins, but the column has dtype "
                f"{series.dtype}; bins need a numeric column."
            )
    codes = kind_of(column.spec).codes(series)
    if column.ranges is not None:
        inside = (codes >= 0) & (codes < column.levels.size)
        ranged = np.searchsorted(column.ranges, codes, side="right") - 1
        codes = np.where(inside, ranged, np.where(codes < 0, -1, column.n_values))
    unknown = codes < 0
    if unknown.any() and handle_unknown == "error":
        raise ValueError(
            f"Column {_column_name(label)} has values outside {_accepted(column.spec)}. "
            "Declare them in `categories`, or use handle_unknown='ignore' to encode them as "
            "all-zero blocks."
        )
    return codes


def _accepted(spec):
    """What a parsed column spec accepts, for messages: its bin edges' bounds, or its
    first levels (never a value of the data)."""
    if isinstance(spec, Bins):
        shown = [iso(e) if spec.kind == "datetime" else _fmt(e) for e in spec.edges]
        return f"the bin edges [{shown[0]}, {shown[-1]}]"
    levels = [v for v in spec if v is not MISSING]
    return f"the categories {[_show(v) for v in levels[:10]] + ['...'] * (len(levels) > 10)}"


def _draw_block(block, fallback, rng, has_negative=True):
    """Index of the bit drawn in each row, with probability proportional to the weights.

    Rows that are exactly one-hot give their set bit without randomness.  Other rows
    are clipped to ``[0, 1]`` and a bit is drawn with probability proportional to the
    clipped values; an all-zero row uses the public ``fallback`` weights.
    """
    idx = block.argmax(axis=1)
    # Largest entry 1 and sum 1, with no negative entry: exactly one-hot.
    one_hot = (block[np.arange(idx.size), idx] == 1) & (block.sum(axis=1) == 1)
    if has_negative:
        one_hot &= block.min(axis=1) >= 0
    if one_hot.all():
        return idx
    rows = np.flatnonzero(~one_hot)
    W = np.clip(block[rows], 0.0, 1.0)
    empty = W.sum(axis=1) <= 0
    W[empty] = fallback
    u = 1.0 - rng.random(rows.size)  # in (0, 1]: a zero weight is never drawn
    cum = np.cumsum(W, axis=1)
    # The total is the last cumulative sum itself (not ``W.sum``, whose pairwise
    # rounding may exceed it and let ``u = 1`` land on a trailing zero weight).
    total = cum[:, -1]
    idx[rows] = np.minimum((cum < (u * total)[:, None]).sum(axis=1), W.shape[1] - 1)
    return idx


def _draw_binary_block(block, column, rng):
    """Code index of each row from its binary bits (most significant first).

    A bit is 1 with probability ``clip(x, 0, 1)`` (no randomness for entries already
    in ``{0, 1}`` or outside ``[0, 1]``).  An invalid index ``>= K`` is replaced by a
    code drawn from the column's public fallback weights, as for an all-zero one-hot
    block.
    """
    n, b = block.shape
    n_codes = column.width
    if b == 0:
        return np.zeros(n, dtype=np.int64)
    P = np.clip(block, 0.0, 1.0)
    bits = P >= 1.0
    fractional = (P > 0.0) & (P < 1.0)
    if fractional.any():
        bits[fractional] = rng.random(int(fractional.sum())) < P[fractional]
    idx = bits.astype(np.int64) @ (np.int64(1) << np.arange(b - 1, -1, -1, dtype=np.int64))
    invalid = idx >= n_codes
    if invalid.any():
        empty = np.zeros((int(invalid.sum()), n_codes))
        idx[invalid] = _draw_block(empty, column.fallback_weights(), rng)
    return idx


def _draw_within_ranges(idx, column, rng):
    """Level drawn inside each row's coarsened range ``idx``.

    Uniform within the range (public: no within-range statistic of the data is
    stored), or proportional to the declared public ``level_weights`` when given
    (uniform again in a range whose weights are all zero).
    """
    r = column.ranges
    if column.level_weights is None:
        return rng.integers(r[idx], r[idx + 1])
    levels = np.empty_like(idx)
    for k in np.unique(idx):
        rows = np.flatnonzero(idx == k)
        weights = column.level_weights[r[k] : r[k + 1]]
        if weights.sum() <= 0:
            levels[rows] = rng.integers(r[k], r[k + 1], size=rows.size)
            continue
        cumulative = np.cumsum(weights) / weights.sum()
        draws = np.searchsorted(cumulative, rng.random(rows.size), side="right")
        levels[rows] = r[k] + np.minimum(draws, weights.size - 1)
    return levels


def _sub_bins(spec):
    """The :class:`~skprivsynth.domain.Bins` splitting each bin of ``spec`` into
    ``SUB_BINS`` equal-width sub-bins (public: computed from the declared edges)."""
    e = np.asarray(spec.edges, dtype=np.float64)
    t = np.arange(SUB_BINS) / SUB_BINS
    fine = ((1.0 - t) * e[:-1, None] + t * e[1:, None]).ravel()
    return dataclasses.replace(spec, edges=tuple(np.append(fine, e[-1]).tolist()))


def _position_in_bins(idx, column, rng):
    """A position ``t`` in ``[0, 1)`` drawn in each row's bin ``idx``.

    Uniform when no sub-bin weights were released (so a bin's values average to its
    midpoint); otherwise a sub-bin drawn proportionally to its released weight
    (uniformly when the bin's weights are all zero), then uniform in that sub-bin.
    """
    if column.sub_weights is None:
        t = rng.random(idx.size)  # position in the bin
    else:
        n_sub = column.sub_weights.shape[1]
        weights = column.sub_weights[idx]
        weights[weights.sum(axis=1) <= 0] = 1.0
        cumulative = np.cumsum(weights, axis=1)
        u = rng.random(idx.size) * cumulative[:, -1]
        sub = np.minimum((cumulative <= u[:, None]).sum(axis=1), n_sub - 1)
        t = (sub + rng.random(idx.size)) / n_sub
    return np.minimum(t, np.nextafter(1.0, 0.0))


def _decay_in_end_bins(idx, t, present, column):
    """Positions ``t`` of the rows in the outermost occupied bins (each side) moved to a
    density that decays away from the bin's inner neighbour
    (:mod:`~skprivsynth._math.tails`), where the bin has no sub-bin weights beyond
    uniform.  Post-processing of the decoded codes and the public edges; the uniform
    positions are transformed in place, so no draw is added.
    """
    counts = np.bincount(idx[present], minlength=column.n_values)
    occupied = np.flatnonzero(counts)
    if occupied.size < 2:
        return t
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        density = counts / np.diff(column.edges)  # inf in a bin one float wide
    for k, inner, outwards in (
        (occupied[0], occupied[0] + 1, -1),
        (occupied[-1], occupied[-1] - 1, 1),
    ):
        weights = None if column.sub_weights is None else column.sub_weights[k]
        # Uniform up to float rounding (a last bin cut at the range's end) decays too.
        if (weights is not None and np.ptp(weights) > 1e-9) or counts[inner] == 0:
            continue
        with np.errstate(invalid="ignore"):
            rate = decay_rate(density[k] / density[inner])  # 0 unless a finite ratio < 1
        if rate > 0:
            rows = present & (idx == k)
            s = decaying_positions(rate, t[rows])
            t[rows] = s if outwards > 0 else np.minimum(1.0 - s, np.nextafter(1.0, 0.0))
    return t


def _at_points(values, idx, present, column, rng):
    """``values`` with rows of a bin holding points (the range's bounds, recurring grid
    values) set to one of them, each with the released share of its bin at that point
    (one uniform draw a row of such a bin, bin by bin in order; none where the shares
    are 0).  Post-processing of the decoded codes and the released shares."""
    bins, points, shares = column.points
    by_bin = np.argsort(bins, kind="stable")
    bins, points, shares = bins[by_bin], points[by_bin], shares[by_bin]
    rows = np.flatnonzero(present)
    rows = rows[np.argsort(idx[rows], kind="stable")]  # by bin, in order within a bin
    row_bins = idx[rows]
    for k in np.unique(bins[shares > 0]):
        a, b = np.searchsorted(bins, [k, k + 1])
        lo, hi = np.searchsorted(row_bins, [k, k + 1])
        cumulative = np.cumsum(shares[a:b])
        which = np.searchsorted(cumulative, rng.random(hi - lo), side="right")
        hit = which < cumulative.size
        values[rows[lo:hi][hit]] = points[a:b][which[hit]]
    return values


def _grid_values(idx, t, column, dtype):
    """Grid point (integer, or multiple of a datetime resolution) at position ``t`` of
    each row's bin ``idx``, inside ``[e_0, e_B]`` and the range of an integer dtype.

    Bin ``k`` holds the grid points of ``[e_k, e_{k+1})`` (the last bin also
    ``e_B``), ``lo..hi``, indexed by ``t``; a bin without a grid point gives the
    first grid point after its lower edge.
    """
    e, g = column.edges / column.step, column.step
    first, last = np.ceil(e[0]), np.floor(e[-1])
    if _is_integer_dtype(dtype):
        # Declared edges may exceed the dtype's range (bins [100, 1000] on uint8): the
        # bin's integers are those of the dtype, so that the cast never wraps around.
        info = np.iinfo(getattr(dtype, "numpy_dtype", dtype))
        upper = float(info.max)  # rounds up to 2**63 (not representable) for int64
        if int(upper) > info.max:
            upper = np.nextafter(upper, -np.inf)
        first, last = max(first, float(info.min)), min(last, upper)
    last = max(first, last)
    lo = np.clip(np.ceil(e[idx]), first, last)
    hi = np.where(idx == e.size - 2, np.floor(e[idx + 1]), np.ceil(e[idx + 1]) - 1)
    hi = np.clip(np.maximum(lo, hi), first, last)
    return np.minimum(lo + np.floor(t * (hi - lo + 1.0)), hi) * g


def _decode_column(idx, column, dtype, rng):
    """Turn drawn codes into a Series of ``dtype`` (the missing code: its missing value)."""
    missing = idx == column.n_values if column.missing else np.zeros(idx.size, dtype=bool)
    idx = np.where(missing, 0, idx)
    if column.kind == "bins":
        e = column.edges
        t = _decay_in_end_bins(idx, _position_in_bins(idx, column, rng), ~missing, column)
        if column.step is None:
            values = (1.0 - t) * e[idx] + t * e[idx + 1]  # inside the bin, never overflows
            # Below the upper edge of a half-open bin despite rounding (a bin one float
            # wide, such as a range's bound [lo, lo⁺), decodes to its lower edge).
            below = np.nextafter(e[idx + 1], -np.inf)
            last = idx == e.size - 2
            values = np.where(last, values, np.minimum(values, below))
            if e[-2] == np.nextafter(e[-1], -np.inf):  # [hi⁻, hi]: the values at the bound
                values[last] = e[-1]
            decimals = getattr(column.spec, "decimals", None)
            if decimals is not None:  # the declared precision, inside the declared edges
                values = np.clip(np.round(values, decimals), e[0], e[-1])
        else:
            values = _grid_values(idx, t, column, dtype)
        if column.points is not None:
            values = _at_points(values, idx, ~missing, column, rng)
        values[missing] = np.nan
        if column.value_kind == "datetime":
            return _datetimes(values, dtype)
        return pd.Series(values).astype(dtype)
    if column.ranges is not None:
        idx = _draw_within_ranges(idx, column, rng)
    values = column.levels[idx]
    if missing.any():
        values = values.astype(object if values.dtype == object else np.float64)
        values[missing] = np.nan
    if isinstance(dtype, pd.CategoricalDtype):
        return pd.Series(pd.Categorical(values, dtype=dtype))
    return pd.Series(values, dtype=object if values.dtype == object else None).astype(dtype)


def _datetime_part(datetimes, part, dtype):
    """Series of ``dtype`` of a part (year, month, ..., weekday with Monday = 0, or the
    date at midnight) of decoded ``datetimes``, in their time zone; missing where they
    are."""
    if part == "date":
        dates = datetimes.dt.normalize()
        if getattr(dates.dt, "tz", None) is not None and getattr(dtype, "tz", None) is None:
            dates = dates.dt.tz_localize(None)  # the local calendar date
        return dates.astype(dtype)
    name = "day_of_week" if part == "weekday" else part  # Monday = 0
    return getattr(datetimes.dt, name).astype("Int64").astype(dtype)


#: Parts of the day a modelled datetime is matched on, in order of priority: the finest
#: first (the coarse ones are mostly decided by the datetime's bin already; measured on
#: a daily sales table at ε = 1, this order halved the error of the (weekday, store)
#: table compared with the coarsest first).
_DAY_PARTS = ("weekday", "day", "month", "year")


def _datetimes_with_parts(datetimes, column, parts, dtype, rng):
    """Decoded ``datetimes`` redrawn inside their bins to agree with decoded parts.

    A row keeps its decoded time of day with the hour and minute replaced by the
    decoded parts, and gets a day of its bin on which that time lies inside the bin
    (a bin's first and last days may be partial); among those days, the ones that
    match all its ``_DAY_PARTS`` that ``parts`` holds (part -> float values, NaN when
    missing), else the first ones in priority order, else any.  Where no day of its
    bin holds that time (a bin shorter than a day), the row keeps its decoded day and
    leaves the bin: the hour, modelled with the other columns, is worth more than
    where within a day the bin's 1-way count put the row.  The result is rounded down
    to the resolution, and a row that would leave the declared range keeps its
    decoded datetime.  Post-processing of decoded codes: no data read.
    """
    seconds = kind_of(column.spec).numbers(datetimes)
    edges, step = column.edges, column.step
    known = ~np.isnan(seconds)
    idx = np.clip(np.searchsorted(edges, seconds, side="right") - 1, 0, edges.size - 2)
    keys = [p for p in _DAY_PARTS if p in parts]
    out = seconds.copy()
    for k in np.unique(idx[known]):
        rows = np.flatnonzero(known & (idx == k))
        time = seconds[rows] % 86400
        for part, unit, period in (("hour", 3600, 86400), ("minute", 60, 3600)):
            if part in parts:
                value = parts[part][rows]
                replaced = time - time % period + value * unit + time % unit
                time = np.where(np.isnan(value), time, replaced)
        days = np.arange(int(edges[k] // 86400), int(edges[k + 1] // 86400) + 1)
        # The days on which a row's time lies in the bin: all but perhaps the first
        # and the last, so the rows fall into four groups of consecutive days.
        first, final = (_in_bin(day * 86400 + time, edges, k, step) for day in (days[0], days[-1]))
        chosen = np.zeros(rows.size)
        for a in (True, False):
            for b in (True, False):
                group = np.flatnonzero((first == a) & (final == b))
                pool = days[(0 if a else 1) : days.size - (0 if b else 1)]
                if not group.size:
                    continue
                if pool.size:
                    chosen[group] = _matching_days(pool, keys, parts, rows[group], rng)
                else:  # a bin shorter than a day: the decoded day
                    chosen[group] = seconds[rows[group]] // 86400
        drawn = np.floor((chosen * 86400 + time) / step) * step
        kept = (drawn >= edges[0]) & (drawn <= edges[-1])
        out[rows] = np.where(kept, drawn, seconds[rows])
    return _datetimes(out, dtype)


def _in_bin(seconds, edges, k, step):
    """Whether ``seconds``, rounded down to ``step``, lie in bin ``k`` of ``edges`` (the
    last bin closed)."""
    t = np.floor(seconds / step) * step
    last = k == edges.size - 2
    return (t >= edges[k]) & ((t < edges[k + 1]) | (last & (t <= edges[-1])))


def _matching_days(days, keys, parts, rows, rng):
    """For each of ``rows``, a day of ``days`` (days since 1970-01-01) drawn uniformly
    among those that match its ``parts`` on all ``keys``, else on the first ones in
    order, else any."""
    calendar = pd.DatetimeIndex(days.astype("datetime64[D]"))
    features = [
        getattr(calendar, "day_of_week" if p == "weekday" else p).to_numpy(np.float64) for p in keys
    ]
    chosen = np.full(rows.size, -1)
    for level in range(len(keys), 0, -1):
        todo = np.flatnonzero(chosen < 0)
        candidates = pd.Series(days).groupby(features[:level]).indices
        wanted = pd.Series(todo).groupby([parts[p][rows[todo]] for p in keys[:level]])
        for key, positions in wanted.indices.items():
            if key in candidates:
                pool = candidates[key]
                chosen[todo[positions]] = pool[rng.integers(pool.size, size=positions.size)]
    rest = chosen < 0
    chosen[rest] = rng.integers(days.size, size=int(rest.sum()))
    return days[chosen]


def _datetimes(seconds, dtype):
    """Series of ``dtype`` (a datetime64 dtype of any unit, time zone aware or not) of
    whole seconds since 1970-01-01 (NaN: NaT)."""
    out = np.full(seconds.size, np.datetime64("NaT"), dtype="datetime64[s]")
    known = ~np.isnan(seconds)
    out[known] = seconds[known].astype(np.int64).astype("datetime64[s]")
    series = pd.Series(out)
    tz = getattr(dtype, "tz", None)
    if tz is not None:
        return series.dt.tz_localize("UTC").dt.tz_convert(tz).astype(dtype)
    return series.astype(dtype)


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
        self.step = _grid_step(spec)
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
        # The inverse of ``starts`` in integers (a searchsorted is 25 times slower).
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


def _grid_step(spec):
    """Step of the grid a numeric spec decodes to: the resolution in seconds for a
    datetime, 1 for an integer; None for real values."""
    if spec.kind == "datetime":
        return RESOLUTIONS[spec.resolution]
    if spec.kind == "integer":
        return 1
    return None


class _KeyCounts:
    """Exact counts of the points of a public grid that a chunk's values fall on, sparse:
    sorted distinct ``keys`` and their ``counts``; ``+`` merges two chunks'.  Memory:
    the distinct values (2,000,000 rows of a continuous column at 6 decimals: 1.9
    million keys, 30 MB), at most ``n``; exact, since the release's sensitivity
    needs exact counts."""

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
    """Statistic of a DataFrame chunk: the fine histogram of each declared range, and
    the exact counts of the points of its public grid of values (None without one).

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
            series = X[label]
            column = _Column(spec)
            _check_declared_missing(series, label, column)
            if spec.kind != "datetime" and not (
                pd.api.types.is_numeric_dtype(series.dtype) and not _is_bool_dtype(series.dtype)
            ):
                raise TypeError(
                    f"categories[{label!r}] declares a numeric range, but the column has dtype "
                    f"{series.dtype}; a range needs a numeric column."
                )
            values = kind_of(spec).numbers(series)
            known = ~isna(series)
            if spec.clip:
                values = np.clip(values, spec.lo, spec.hi)
            inside = (values >= spec.lo) & (values <= spec.hi)
            if (known & ~inside).any():
                shown = [iso(v) if spec.kind == "datetime" else _fmt(v) for v in (spec.lo, spec.hi)]
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
        return counts


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
            values = X[label]
            if isinstance(spec, Bins) and spec.kind != "datetime":
                values = pd.to_numeric(values, errors="coerce")
            if not getattr(spec, "missing", False) and values.isna().any():
                _check_declared_missing(values, label, _Column(spec))
            codes = kind_of(spec).codes(values)
            if (codes < 0).any():
                raise ValueError(
                    f"Column {label!r} has values outside the declared domain "
                    f"categories[{label!r}] ({_accepted(spec)})."
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
    parts = [label for label, spec in domain.items() if isinstance(spec, DatetimePart)]
    if parts:
        raise ValueError(
            f"categories declares columns {parts!r} as parts of datetime columns: they have "
            "no levels of their own (leave them out)."
        )
    ranged = [label for label, spec in domain.items() if isinstance(spec, Range)]
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
