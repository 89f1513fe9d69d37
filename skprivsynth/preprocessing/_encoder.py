"""The encoder between a table and codes: :class:`BooleanEncoder` (one-hot, binary or
ordinal codes of every column)."""

from __future__ import annotations

import functools
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

from ..accountant import charge_active
from ..chunks import as_chunks, reduce_chunks
from ..domain import (
    Domain,
    as_domain,
    coded_domain,
    codes_as_missing,
    fitted_domain,
    relation_gaps,
    with_relations,
)
from ..kinds import kind_of, learned_spec
from ..privacy import PrivacyCost, warn_privacy_leak
from ..privacy.binning import plan_bins, release_bins
from ..validation import check_random_generator, role_generator
from ._checks import _check_no_missing, _column_name
from ._columns import _Column
from ._counts import _FineCounts, _FineGrid, _sub_bins, private_level_frequencies
from ._decode import _datetime_part, _datetimes_with_parts, _draw_binary_block, _draw_block

__all__ = ["BooleanEncoder"]

#: Largest dense output (entries) :meth:`BooleanEncoder.transform` allocates at once.
_MAX_OUTPUT_ENTRIES = 2**31


def n_bits(n_codes):
    """``ceil(log2(n_codes))``: bits of a binary code for ``n_codes >= 1`` codes."""
    return int(n_codes - 1).bit_length()


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
        2010), so that noise in empty regions does not become mass; a release the
        public ``n`` cannot lift out of its noise is left out
        (:func:`~skprivsynth.privacy.binning.range_plan`: its ρ goes to PrivTree, or,
        below PrivTree's own noise, the bins are public and cost nothing).  Recorded in
        ``privacy_report_``; in a :class:`~skprivsynth.SynthesisPipeline` its ρ adds
        to a zCDP synthesizer's, which costs less than ``binning_epsilon``
        (:func:`~skprivsynth.make_private_pipeline` gives it a share of the
        synthesizer's ε, which is then the run's total).  Integer and datetime ranges
        get bins of whole grid
        points; with ``max_bins`` a column gets at most ``max_bins`` codes.  Read more
        in the
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
        weekday) to the other columns, which ``"computed"`` loses (User Guide):

        - ``"computed"``: not encoded; computed from the decoded datetime, so they
          cost nothing but are only as accurate as the datetime's bins (an hour of
          the day is drawn within a bin that spans days);
        - ``"modelled"``: every part but ``"date"`` is encoded as the integer levels
          it can take (months 1..12, the years of the range ...), modelled with the
          other columns, and the decoded datetime is drawn on a day that matches
          the decoded weekday, day, month and year, inside its bin, or in a bin
          drawn given those parts when its own holds no such day (the finest
          first: when no day of the range matches them all, the coarsest are
          dropped), at the decoded hour and minute; then the parts are computed
          from it.  The parts of a time-zone-aware column are computed.
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
    decoded to agree with it: inside its bin where the bin holds days of its parts,
    else in a bin drawn with probability proportional to its decoded share times
    the share of its time on those days (post-processing of the decoded codes and
    of the released bins).  Decoded parts always agree with their datetime, even where the input
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
        if isinstance(cats, Domain):
            return cats
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
        # A column bounded by another is coded as its gap to it (clipped to its public
        # range), a sum is computed from its parts: neither is read as it is.  Both are
        # public maps of each row alone, so two tables differing in one row still
        # differ in one row after them, and every release below keeps its sensitivity.
        self._relations = domain.relations
        values, frame = frame, relation_gaps(frame, self._relations)
        if chunks is not None and self._relations:
            chunks = chunks.map(functools.partial(relation_gaps, relations=self._relations))
        columns, dtypes = [], []
        for j, label in enumerate(frame.columns):
            series = frame.iloc[:, j]
            if label in domain:
                column = self._declared_column(domain, label, frame)
                column.check_missing(series, label)  # a computed column's: never read
            else:
                _check_no_missing(series, label)
                spec, learned = learned_spec(series, self.n_bins)
                column = _Column.of(spec, learned=learned)
            column.coarsen(self.max_bins)
            labels = column.labels() if column.has_codes else []
            if len(set(labels)) != len(labels):
                raise ValueError(
                    f"The levels of column {_column_name(label)} give duplicate output names "
                    f"{labels!r} (e.g. 1 and '1'); declare distinct levels in `categories`."
                )
            columns.append(column)
            if label in self._relations:  # decoded to the column's values, not its gap's
                dtypes.append(_Column.of(domain[label]).fit_dtype(values.iloc[:, j].dtype))
            else:
                dtypes.append(column.fit_dtype(series.dtype))
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
            if column.has_codes:
                column.encode(frame.iloc[:, j], frame.columns[j], "error")
        data = frame if chunks is None else chunks
        coded = coded_domain(domain)
        reports = [self._release_bins(columns, data, coded)]
        if self.level_weights == "private":
            reports.append(self._release_level_weights(columns, data, coded))
        reports = [r for r in reports if r is not None]
        report = reports[0].compose(*reports[1:]) if len(reports) > 1 else next(iter(reports), None)
        learned = [label for label, c in zip(self._columns, columns, strict=True) if c.learned]
        if learned:
            warn_privacy_leak(
                f"BooleanEncoder learned the domain (categories or bin edges) of columns "
                f"{learned!r} from the data, so the encoding depends on private records. "
                "Declare each column's public domain (an entry of the domain: in Python "
                "categories={column: spec}, on the command line the --domain file), where "
                "spec is an int K (codes 0..K-1), a list of values, {'bins': [e0, ..., eB]} "
                "or {'type': 'float', 'range': [lo, hi]} (see Domain for every kind), or "
                "leave the column out (--drop on the command line).",
                stacklevel=4,  # warn_privacy_leak -> fit -> sklearn's fit wrapper -> caller
            )
        self.learned_columns_ = learned
        self.privacy_report_ = report
        self.domain_ = fitted_domain(
            zip(self._columns, (c.spec for c in columns), strict=True), self._relations.items()
        )
        self.modelled_parts_ = {
            label: c.part
            for label, c in zip(self._columns, columns, strict=True)
            if c.part is not None
        }
        self.categories_ = [c.levels for c in columns]
        self.bin_edges_ = [c.edges for c in columns]
        self.level_ranges_ = [c.ranges for c in columns]
        self.dtypes_ = dtypes
        self.n_codes_ = [c.width for c in columns]
        if self.encoding == "binary":
            reserve = 1 if self.handle_unknown == "ignore" else 0
            widths = [n_bits(c.width + reserve) for c in columns]
        elif self.encoding == "ordinal":
            widths = [1] * len(columns)
        else:
            widths = list(self.n_codes_)
        widths = [w if c.encoded else 0 for c, w in zip(columns, widths, strict=True)]
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
        kind = kind_of(spec)
        relation = domain.relations.get(label)
        if relation is not None:
            return _Column.computed(spec) if relation.computed else _Column.of(relation.gap_spec())
        if (
            kind.is_part
            and self.datetime_parts == "modelled"
            and getattr(frame[spec.of].dtype, "tz", None) is None
        ):
            modelled = kind.modelled_spec(domain)
            if modelled is not spec:
                column = _Column.of(modelled)
                column.part = spec
                return column
        return _Column.of(spec)

    def _release_bins(self, columns, X, domain):
        """Choose the bins of every declared :class:`~skprivsynth.domain.Range` and
        their within-bin decoding weights with differential privacy
        (:func:`~skprivsynth.privacy.binning.release_bins`, on the fine histograms of
        :class:`_FineCounts` summed over the chunks of ``X``); return the report."""
        ranged = {label: spec for label, spec in domain.items() if kind_of(spec).bins_at_fit}
        if not ranged:
            return None
        n, counts = reduce_chunks(X, _FineCounts(ranged))
        labels = list(self._columns)
        grids, min_widths = {}, {}
        for label, spec in ranged.items():
            column = columns[labels.index(label)]
            grids[label] = grid = _FineGrid(spec)
            min_widths[label] = 1
            if self.max_bins is not None:  # at most max_bins - missing bins (public cap)
                cap = 1 << (int(self.max_bins - column.missing).bit_length() - 1)
                min_widths[label] = max(1, grid.n_cells // cap)
        # The plan's cost (public: the declaration, n and the budget), before any draw.
        rho = sum(plan.rho for plan in plan_bins(n, grids, self.binning_epsilon).values())
        if rho > 0:
            charge_active("private bins", PrivacyCost(rho=rho))
        released, report = release_bins(
            counts,
            grids,
            min_widths,
            self.binning_epsilon,
            role_generator(self.random_state, "encoder bins"),
            role_generator(self.random_state, "encoder grid points"),
            n,
            noise=self.noise,
        )
        for label in ranged:
            columns[labels.index(label)].release(released[label])
        return report if rho > 0 else None

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
            column, kind = columns[labels.index(label)], kind_of(spec)
            if kind.binned and not kind.bins_at_fit:  # declared bins
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
            columns[labels.index(label)].set_released_weights(w)
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
            columns[labels.index(label)].set_level_weights(label, weights)

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
        frame = relation_gaps(frame, self._relations)
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
            if not column.encoded:
                continue  # computed from its datetime column when decoded
            series = frame.iloc[:, j]
            column.check_missing(series, frame.columns[j])
            codes = column.encode(series, frame.columns[j], self.handle_unknown)
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
            if not column.encoded:
                continue
            if self.encoding == "ordinal":
                idx = np.clip(np.rint(Xt[:, block.start]), 0, column.width - 1).astype(np.int64)
            elif self.encoding == "binary":
                idx = _draw_binary_block(Xt[:, block], column, rng)
            else:
                idx = _draw_block(Xt[:, block], column.fallback_weights(), rng, has_negative)
            gap = self._columns[j] in self._relations  # a gap: a number, until with_relations
            decoded[j] = column.decode(idx, np.float64 if gap else self.dtypes_[j], rng)
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
        if self._relations:
            labels = self._columns
            by_label = with_relations(
                {labels[j]: v for j, v in decoded.items()},
                self._relations,
                dict(zip(labels, self.dtypes_, strict=True)),
            )
            decoded = {labels.index(c): v for c, v in by_label.items()}
        for j, column in enumerate(self._encoding):
            part = column.datetime_part
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
