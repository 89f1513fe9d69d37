"""The fitted encoding of one column: its codes, how values become codes and how codes
become values again.

A column is coded by one of three representations, one class each: levels (one code
per level, or per contiguous range of levels when coarsened), numeric bins (declared,
learned, or released for a declared range at fit), or a part of a datetime column
(no codes: computed from its decoded datetime).  What depends on what the values are
(their codes, labels, numbers, the dtype they decode to) is asked of the column's
:mod:`kind <skprivsynth.kinds>`.
"""

from __future__ import annotations

import numpy as np

from ..kinds import MISSING, kind_of
from ..privacy.binning import SUB_BINS
from ._checks import (
    _accepted,
    _check_declared_missing,
    _check_no_missing,
    _column_name,
    _is_integer_dtype,
)
from ._decode import _level_values, _values_in_bins


class _Column:
    """Fitted encoding of one input column (internal).

    Built by :meth:`of` from a :class:`~skprivsynth.Domain` column ``spec``: a
    :class:`_LevelsColumn`, a :class:`_BinsColumn` or a :class:`_PartColumn`.  With
    ``missing``, one more code, the last, stands for missing values.

    Parameters
    ----------
    spec : parsed column spec
        Levels (a tuple, ``range(K)`` or ``Levels``), ``Bins``, ``Range`` or
        ``DatetimePart``.
    learned : bool, default=False
        Whether the spec was learned from the data.
    """

    #: Whether the column has output columns (a computed part has none).
    encoded = True

    def __init__(self, spec, learned=False):
        self.spec = spec
        self.missing = kind_of(spec).missing
        self.learned = learned  # domain learned from the data
        self.levels = None  # ndarray of the levels (a column of levels), missing excluded
        self.edges = None  # float ndarray of the bin edges (a binned column)
        self.ranges = None  # None or int ndarray of range boundaries into the levels
        # Binned columns decoded on a grid: 1 for integers, the resolution in seconds
        # for datetimes; None for real values.
        self.step = None
        self.level_weights = None  # public weights of the codes of len(spec) (decoding)
        self.sub_weights = None  # (n_bins, n_sub) weights of the sub-bins of each bin
        # Points a range's bins decode to exactly, or None: (bins, values, shares), the
        # share of its bin at each point (the range's bounds, measured with the sub-bin
        # weights, and the grid points released before them).
        self.points = None
        self.part = None  # the DatetimePart of a part modelled as its values

    @staticmethod
    def of(spec, learned=False):
        """The fitted column of ``spec``: levels, bins or a part of a datetime."""
        kind = kind_of(spec)
        if kind.is_part:
            return _PartColumn(spec, learned)
        return (_BinsColumn if kind.binned else _LevelsColumn)(spec, learned)

    @staticmethod
    def computed(spec):
        """The column of a spec computed from other columns at decode (a sum)."""
        return _PartColumn(spec)

    @property
    def value_kind(self):
        """The :class:`~skprivsynth.kinds.Kind` of the (current) spec."""
        return kind_of(self.spec)

    @property
    def datetime_part(self):
        """The :class:`~skprivsynth.kinds.DatetimePart` decoded from its datetime column
        (a computed or a modelled part), or None."""
        return self.part

    @property
    def n_values(self):
        """Number of codes of values (levels, ranges or bins): the missing code is next."""
        raise NotImplementedError

    @property
    def width(self):
        """Number of codes, the missing code included (0 for a part: not encoded)."""
        return self.n_values + self.missing

    @property
    def has_codes(self):
        """Whether the codes are known (not before a range's bins are released)."""
        return True

    def labels(self):
        """Text label of each output bit (the part after ``name=``)."""
        return self.value_kind.labels()

    def fallback_weights(self):
        """Public weights used to decode an all-zero block."""
        return np.ones(self.width)

    # ------------------------------------------------------------------------- fit
    def coarsen(self, max_bins):
        """Group levels into at most ``max_bins`` codes (in place); only levels are."""

    def fit_dtype(self, dtype):
        """The dtype :meth:`decode` restores from the input ``dtype`` (see
        :meth:`~skprivsynth.kinds.Kind.output_dtype`)."""
        return self.value_kind.output_dtype(dtype, declared_levels=False)

    def set_level_weights(self, label, weights):
        """Take the public ``level_weights`` of the column (only levels have them)."""
        raise ValueError(f"level_weights[{label!r}]: the column is binned, not a column of levels.")

    def set_released_weights(self, weights):
        """Take the released frequencies of ``level_weights="private"``: of the levels
        (of the sub-bins of each bin for a binned column)."""
        self.level_weights = weights

    # ------------------------------------------------------------------- transform
    def check_missing(self, series, label):
        """Refuse missing values that the domain does not hold, and infinities."""
        if self.learned:
            _check_no_missing(series, label)
        else:
            _check_declared_missing(series, label, self.missing)

    def encode(self, series, label, handle_unknown):
        """Code of each row within the column's block (-1 = unknown: all-zero block)."""
        codes = self._codes(series, label)
        if (codes < 0).any() and handle_unknown == "error":
            raise ValueError(
                f"Column {_column_name(label)} has values outside "
                f"{_accepted(self.value_kind)}. Declare them in `categories`, or use "
                "handle_unknown='ignore' to encode them as all-zero blocks."
            )
        return codes

    def _codes(self, series, label):
        return self.value_kind.codes(series)

    def decode(self, idx, dtype, rng):
        """A Series of ``dtype`` of the drawn codes ``idx`` (the missing code: missing)."""
        missing = idx == self.n_values if self.missing else np.zeros(idx.size, dtype=bool)
        return self._decode(np.where(missing, 0, idx), missing, dtype, rng)


class _LevelsColumn(_Column):
    """Levels: one code per level, or per contiguous range of levels (``ranges``)."""

    def __init__(self, spec, learned=False):
        super().__init__(spec, learned)
        self.levels = self.value_kind.level_array()

    @property
    def n_values(self):
        if self.ranges is not None:
            return self.ranges.size - 1
        return self.levels.size

    def labels(self):
        if self.ranges is None:
            return super().labels()
        r = self.ranges
        return [
            str(self.levels[r[k]])
            if r[k + 1] - r[k] == 1
            else f"{self.levels[r[k]]}..{self.levels[r[k + 1] - 1]}"
            for k in range(len(r) - 1)
        ] + [str(MISSING)] * self.missing

    def fallback_weights(self):
        missing = [1.0] if self.missing else []
        if self.level_weights is not None:
            weights = self.level_weights
            if self.ranges is not None:
                weights = np.append(
                    np.add.reduceat(weights[: self.levels.size], self.ranges[:-1]),
                    weights[self.levels.size :],
                )
            if weights.sum() > 0:
                return weights
        if self.ranges is not None:
            # Uniform over the underlying levels: each range weighs its number of levels.
            return np.append(np.diff(self.ranges).astype(np.float64), missing)
        return super().fallback_weights()

    def coarsen(self, max_bins):
        """Group the levels into ``max_bins`` contiguous ranges (in place).

        The boundaries ``floor(k L / m)`` depend only on the number of levels ``L``
        (public once declared), never on the data; range widths differ by at most one.
        ``m = max_bins``, or ``max_bins - 1`` when the missing level is a code of its
        own.
        """
        if max_bins is None:
            return
        L = self.levels.size
        if L + self.missing > max_bins:
            m = max_bins - self.missing  # the missing code stays a code of its own
            self.ranges = (np.arange(m + 1) * L) // m

    def fit_dtype(self, dtype):
        return self.value_kind.output_dtype(dtype, declared_levels=not self.learned)

    def set_level_weights(self, label, weights):
        weights = np.asarray(weights, dtype=np.float64)
        size = self.levels.size + self.missing
        if weights.shape != (size,) or not np.all(np.isfinite(weights)) or (weights < 0).any():
            raise ValueError(
                f"level_weights[{label!r}] must be {size} finite, non-negative numbers "
                f"(one per level, the missing level last); got shape {weights.shape}."
            )
        self.level_weights = weights

    def _codes(self, series, label):
        codes = super()._codes(series, label)
        if self.ranges is not None:
            inside = (codes >= 0) & (codes < self.levels.size)
            ranged = np.searchsorted(self.ranges, codes, side="right") - 1
            codes = np.where(inside, ranged, np.where(codes < 0, -1, self.n_values))
        return codes

    def _decode(self, idx, missing, dtype, rng):
        return _level_values(idx, missing, self, dtype, rng)


class _BinsColumn(_Column):
    """Numeric bins ``[e_k, e_{k+1})`` (the last one closed); a declared range gets its
    edges when its bins are released (:meth:`release`)."""

    def __init__(self, spec, learned=False):
        super().__init__(spec, learned)
        kind = self.value_kind
        self.step = kind.step
        if not kind.bins_at_fit:
            self.edges = np.asarray(spec.edges, dtype=np.float64)

    @property
    def n_values(self):
        return self.edges.size - 1

    @property
    def has_codes(self):
        return self.edges is not None

    def fit_dtype(self, dtype):
        if self.step is None and _is_integer_dtype(dtype):
            self.step = 1  # bins of an integer column decode to integers
        return super().fit_dtype(dtype)

    def release(self, bins):
        """Take the released bins of a declared range: edges, sub-bin weights, points."""
        self.spec = self.value_kind.with_edges(bins.edges)
        self.edges = np.asarray(bins.edges)
        self.sub_weights = bins.sub_weights
        self.points = bins.points

    def set_released_weights(self, weights):
        self.sub_weights = weights[: self.n_values * SUB_BINS].reshape(-1, SUB_BINS)

    def _codes(self, series, label):
        if not self.value_kind.reads_dtype(series.dtype):
            raise TypeError(
                f"categories[{label!r}] declares numeric bins, but the column has dtype "
                f"{series.dtype}; bins need a numeric column."
            )
        return super()._codes(series, label)

    def _decode(self, idx, missing, dtype, rng):
        values = _values_in_bins(idx, missing, self, dtype, rng)
        return self.value_kind.from_numbers(values, dtype)


class _PartColumn(_Column):
    """A column computed from others at decode (a part of a datetime column, from its
    decoded datetime; a sum, from its parts): no codes, no output columns, and its
    values are never read."""

    encoded = False

    @property
    def datetime_part(self):
        return self.spec if self.value_kind.is_part else None

    @property
    def n_values(self):
        return 0

    @property
    def width(self):
        return 0

    @property
    def has_codes(self):
        return False

    def set_level_weights(self, label, weights):
        raise ValueError(
            f"level_weights[{label!r}]: the column is computed from other columns (a "
            "part of a datetime, or a sum): it has no levels to weigh."
        )

    def check_missing(self, series, label):
        """Nothing: a computed column's values are never read."""
