"""The display of a synthetic table's quality, drawn from the metrics beside it:
:class:`MarginalErrorDisplay`, public in :mod:`skprivsynth.report`."""

from __future__ import annotations

import base64
import html
import io
import math
import warnings

import numpy as np
import pandas as pd

from ..domain import codes_as_missing
from ..kinds import as_numbers, kind_of
from ._categorical import _encode_categorical, categorical_marginal_errors
from ._domain import evaluation_domain
from ._numeric import (
    MIN_TAIL_RATIO,
    STD_RATIO_BAND,
    _tail_threshold,
    distribution_columns,
    log_axis_columns,
    missing_rates,
    numeric_column_errors,
    numeric_verdicts,
    table_verdict,
)
from ._utility import train_synthetic_test_real
from ._validation import _as_table_pair, _as_values_domain, _check_count

__all__ = ["MarginalErrorDisplay"]

_DEGREES = (1, 2, 3)
_REAL_COLOR = "#3b6ea8"
_SYNTHETIC_COLOR = "#e07b39"
_HEATMAP_CMAP = "Reds"
# Heatmaps with at most this many columns print the value in every cell.
_ANNOTATE_MAX_COLUMNS = 20
# Probabilities at which the quantiles of a numeric column are kept (the ECDF curves).
_QUANTILE_LEVELS = np.linspace(0.0, 1.0, 201)


def _quantiles(values):
    """Quantiles of the non-missing values at ``_QUANTILE_LEVELS`` (datetimes as
    ``datetime64[s]``); NaN when every value is missing."""
    numbers = as_numbers(values)
    numbers = numbers[~np.isnan(numbers)]
    if numbers.size == 0:
        return np.full(_QUANTILE_LEVELS.size, np.nan)
    quantiles = np.quantile(numbers, _QUANTILE_LEVELS)
    if pd.api.types.is_datetime64_any_dtype(values):
        return np.round(quantiles).astype("datetime64[s]")
    return quantiles


def _import_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "MarginalErrorDisplay.plot and .to_html need matplotlib, an optional "
            'dependency: pip install "skprivsynth[plot]".'
        ) from exc


# Thousands, millions, billions, trillions: the suffixes of _short_number.
_SUFFIXES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))


def _short_number(value):
    """Compact text of a number for an axis: up to four digits as they are (1234,
    0.25), larger numbers to three significant digits with a suffix (25000 -> '25k',
    1.5e6 -> '1.5M', 1.67e9 -> '1.67B', 2e12 -> '2T'), beyond 999T in scientific
    notation; the suffix is chosen after rounding, so 999,999 is '1M', never '1e+03k'.
    """
    value = float(value)
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    four = float(f"{value:.4g}")
    if abs(four) < 1e4:
        return f"{four:.4g}"
    three = float(f"{value:.3g}")
    for scale, suffix in _SUFFIXES:
        if abs(three) >= scale:
            if abs(three) >= 1000 * scale:  # above 999T
                return f"{value:.2e}"
            return f"{three / scale:.3g}{suffix}"
    return f"{three:.3g}"  # pragma: no cover (|three| >= 1e4 has a suffix)


def _short_dates(seconds):
    """Compact text of timestamps (seconds since 1970-01-01) for one axis: days when
    the ticks span ten days or more, else month, day and time to the minute."""
    stamps = pd.to_datetime(np.asarray(seconds, dtype=np.float64), unit="s")
    span = float(np.ptp(seconds)) if len(seconds) else 0.0
    return list(stamps.strftime("%Y-%m-%d" if span >= 10 * 86400 else "%m-%d %H:%M"))


def _typed(frame, domain):
    """``frame`` with each declared column as its kind's values (a datetime column's
    ISO text, as :meth:`~skprivsynth.Domain.read_csv_options` reads it, as
    timestamps)."""
    out = frame
    for column in frame.columns:
        if column in domain:
            values = kind_of(domain[column]).typed(frame[column])
            if values is not frame[column]:
                out = out.copy() if out is frame else out
                out[column] = values
    return out


def _level_labels(spec):
    """One short label per code of a column spec (levels, integer codes or bins)."""
    if kind_of(spec).binned:
        edges = [_short_number(e) for e in spec.edges]
        return [f"{a}–{b}" for a, b in zip(edges[:-1], edges[1:], strict=True)]
    labels = [str(level) for level in spec]
    return [label if len(label) <= 16 else label[:15] + "…" for label in labels]


class MarginalErrorDisplay:
    """Real-versus-synthetic marginals, pairwise errors and utility of a synthetic table.

    Build it with :meth:`from_data`; the constructor stores precomputed results, as
    scikit-learn's displays do.  :meth:`plot` draws per-column bar charts of the level
    (or bin) frequencies of both tables and a heatmap of the total variation distance
    (TVD) of every 2-way table; :meth:`to_html` writes them, with the summary and
    utility tables, into one self-contained HTML page.

    Read more in the :doc:`User Guide <user_guide/evaluating>`.

    Parameters
    ----------
    real_frequencies, synthetic_frequencies : dict of column -> ndarray
        Share of rows in each code of ``domain[column]`` (a level or a bin).
    pairwise_tvd : ndarray of shape (p, p)
        TVD of the 2-way table of columns ``(i, j)``, symmetric, NaN on the diagonal.
    summary : pandas.DataFrame
        One row per degree ``d``: ``n_tables`` compared, ``mean_tvd``, ``max_tvd``,
        ``worst_table`` (its columns) and ``floor_mean_tvd`` (the mean TVD of a
        bootstrap of the real table of the synthetic table's size).
    domain : Domain
        The domain in which the tables were compared (see
        :func:`~skprivsynth.metrics.evaluation_domain`).
    utility : pandas.DataFrame, optional
        The table of :func:`~skprivsynth.metrics.train_synthetic_test_real`.
    target : column label, optional
        The column the utility table predicts.
    quantile_binned : sequence of column labels, default=()
        Numeric columns binned at quantiles of the real table: the undeclared ones,
        and those declared by a range only (listed in ``ranged`` too).
    ranged : sequence of column labels, default=()
        Columns declared by a range only (their bins chosen at fit), among
        ``quantile_binned``.
    n_rows : tuple (int, int), optional
        Number of real and synthetic rows.
    numeric_errors : pandas.DataFrame, optional
        :func:`~skprivsynth.metrics.numeric_column_errors` of the numeric and datetime
        columns compared as distributions (binned, or with many values).
    quantiles : dict of column -> (ndarray, ndarray), optional
        Real and synthetic quantiles of the non-missing values of those columns at 201
        equally spaced probabilities (datetimes as ``datetime64[s]``): the ECDF curves.
    missing : pandas.DataFrame, optional
        :func:`~skprivsynth.metrics.missing_rates` of every column.
    log_axis : sequence of column labels, default=()
        Columns of ``quantiles`` drawn on a log axis
        (:func:`~skprivsynth.metrics.log_axis_columns` of the real table: positive
        values, skewness above 2).

    Attributes
    ----------
    verdicts : pandas.DataFrame or None
        :func:`~skprivsynth.metrics.numeric_verdicts` of ``numeric_errors``: per
        numeric column, ``flagged`` (std ratio outside [0.8, 1.25] or tail ratio below
        0.3) and a one-sentence ``verdict``.
    table_verdict : str or None
        :func:`~skprivsynth.metrics.table_verdict` of ``verdicts``: one line for the
        table.
    figure_ : matplotlib Figure
        The figure of the last :meth:`plot`.
    axes_ : ndarray of matplotlib Axes
        One bar chart per plotted column, in column order (absent without marginals).
    bars_ : dict of column -> (BarContainer, BarContainer)
        The real and the synthetic bars of each plotted column.
    heatmap_ax_ : matplotlib Axes or None
        Axes of the pairwise heatmap (None without it).
    heatmap_ : matplotlib AxesImage or None
        The heatmap; ``heatmap_.get_array()`` holds ``pairwise_tvd`` (diagonal masked).

    See Also
    --------
    skprivsynth.metrics.categorical_marginal_errors : The TVD of every d-way table.
    skprivsynth.metrics.train_synthetic_test_real : The utility table.

    Examples
    --------
    >>> import warnings
    >>> from skprivsynth import MicroaggregationSynthesizer, make_private_pipeline
    >>> from skprivsynth.datasets import load_adult
    >>> from skprivsynth.report import MarginalErrorDisplay
    >>> adult = load_adult()
    >>> real = adult.data.iloc[:2000, 3:9]
    >>> domain = {c: adult.domain[c] for c in real.columns}
    >>> pipe = make_private_pipeline(MicroaggregationSynthesizer(k=10, random_state=0), domain)
    >>> synthetic = pipe.fit(real).sample(random_state=0)
    >>> display = MarginalErrorDisplay.from_data(real, synthetic, domain=domain)
    >>> display.summary[["n_tables", "mean_tvd", "floor_mean_tvd"]].round(2)
            n_tables  mean_tvd  floor_mean_tvd
    degree
    1              6      0.01            0.02
    2             15      0.04            0.04
    3             20      0.10            0.08
    >>> display.plot()  # doctest: +SKIP
    """

    def __init__(
        self,
        real_frequencies,
        synthetic_frequencies,
        pairwise_tvd,
        summary,
        *,
        domain,
        utility=None,
        target=None,
        quantile_binned=(),
        ranged=(),
        n_rows=None,
        numeric_errors=None,
        quantiles=None,
        missing=None,
        log_axis=(),
    ):
        self.real_frequencies = real_frequencies
        self.synthetic_frequencies = synthetic_frequencies
        self.pairwise_tvd = pairwise_tvd
        self.summary = summary
        self.domain = domain
        self.utility = utility
        self.target = target
        self.quantile_binned = quantile_binned
        self.ranged = ranged
        self.n_rows = n_rows
        self.numeric_errors = numeric_errors
        self.quantiles = quantiles
        self.missing = missing
        self.log_axis = log_axis
        self.verdicts = self.table_verdict = None
        if numeric_errors is not None:
            self.verdicts = numeric_verdicts(numeric_errors)
            self.table_verdict = table_verdict(self.verdicts)

    @classmethod
    def from_data(
        cls,
        real,
        synthetic,
        *,
        domain=None,
        target=None,
        holdout=None,
        max_marginals=200,
        max_levels=20,
        n_bins=10,
        random_state=0,
    ):
        """Compare a synthetic table with the real one.

        Parameters
        ----------
        real, synthetic : pandas.DataFrame or 2-D array-like
            Tables with the same columns (row counts may differ).
        domain : dict or Domain, optional
            Declared domain of some or all columns; the others are read from the
            data by :func:`~skprivsynth.metrics.evaluation_domain` (numeric columns
            with more than ``max_levels`` values in ``n_bins`` quantile bins of the
            real data, with a warning).
        target : column label, optional
            Column predicted by the utility table
            (:func:`~skprivsynth.metrics.train_synthetic_test_real`); None: no
            utility table.
        holdout : pandas.DataFrame, optional
            Real rows the synthesizer did not see, to test the utility classifiers on;
            None holds out a quarter of ``real``.
        max_marginals : int, default=200
            Number of random 3-way tables compared (the benchmarks' tvd3); all 1- and
            2-way tables are compared.
        max_levels, n_bins : int, default=20, 10
            As in :func:`~skprivsynth.metrics.evaluation_domain`.
        random_state : int, default=0
            Seed of the 3-way tables, the bootstrap floor and the utility split.

        Returns
        -------
        MarginalErrorDisplay
        """
        real, synthetic = _as_table_pair(real, synthetic, "real", "synthetic")
        domain = None if domain is None else _as_values_domain(domain, "domain")
        if domain is not None:  # values declared as codes for missing are missing
            real, synthetic = codes_as_missing(real, domain), codes_as_missing(synthetic, domain)
            real, synthetic = _typed(real, domain), _typed(synthetic, domain)
            if holdout is not None:
                holdout = _typed(holdout, domain)
        max_marginals = _check_count(max_marginals, "max_marginals", 1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            eval_domain = evaluation_domain(
                real, synthetic, domain, max_levels=max_levels, n_bins=n_bins
            )
        for warning in caught:  # raised again here, pointing at the caller
            warnings.warn(warning.message, warning.category, stacklevel=2)
        declared = () if domain is None else domain
        ranged = [c for c in real.columns if c in declared and kind_of(declared[c]).bins_at_fit]
        quantile_binned = [
            c
            for c in real.columns
            if kind_of(eval_domain[c]).binned and (c not in declared or c in ranged)
        ]
        rng = np.random.default_rng(random_state)
        bootstrap = real.iloc[rng.integers(0, len(real), len(synthetic))]
        p = real.shape[1]
        rows, by_degree = [], {}
        for d in _DEGREES[: min(p, len(_DEGREES))]:
            kwargs = {
                "degree": d,
                "domain": eval_domain,
                "max_marginals": max_marginals if d == 3 else None,
                "random_state": random_state,
            }
            errors = categorical_marginal_errors(real, synthetic, **kwargs)
            floor = categorical_marginal_errors(real, bootstrap, **kwargs)
            worst = int(np.argmax(errors.errors))
            rows.append(
                {
                    "degree": d,
                    "n_tables": errors.errors.size,
                    "mean_tvd": errors.summary("mean"),
                    "max_tvd": errors.summary("max"),
                    "worst_table": errors.named_column_sets()[worst],
                    "floor_mean_tvd": floor.summary("mean"),
                }
            )
            by_degree[d] = errors
        summary = pd.DataFrame(rows).set_index("degree")
        pairwise = np.full((p, p), np.nan)
        if 2 in by_degree:
            i, j = by_degree[2].column_sets.T
            pairwise[i, j] = pairwise[j, i] = by_degree[2].errors
        real_codes, synth_codes, sizes = _encode_categorical(real, synthetic, eval_domain)
        real_frequencies, synthetic_frequencies = {}, {}
        for k, column in enumerate(real.columns):
            real_frequencies[column] = np.bincount(real_codes[:, k], minlength=sizes[k]) / len(real)
            synthetic_frequencies[column] = np.bincount(
                synth_codes[:, k], minlength=sizes[k]
            ) / len(synthetic)
        utility = None
        if target is not None:
            utility = train_synthetic_test_real(
                real,
                synthetic,
                target,
                holdout=holdout,
                domain=domain,
                random_state=random_state,
            )
        numeric = distribution_columns(real, eval_domain, max_levels)
        return cls(
            real_frequencies,
            synthetic_frequencies,
            pairwise,
            summary,
            domain=eval_domain,
            utility=utility,
            target=target,
            quantile_binned=tuple(quantile_binned),
            ranged=tuple(c for c in ranged if c in quantile_binned),
            n_rows=(len(real), len(synthetic)),
            numeric_errors=numeric_column_errors(real[numeric], synthetic[numeric])
            if numeric
            else None,
            quantiles={c: (_quantiles(real[c]), _quantiles(synthetic[c])) for c in numeric},
            missing=missing_rates(real, synthetic),
            log_axis=tuple(log_axis_columns(real[numeric])) if numeric else (),
        )

    # ------------------------------------------------------------------ plotting

    def _bar_data(self, column, max_bars):
        """Positions, real and synthetic heights, tick positions and labels of a column.

        Ordered columns (integer codes, bins) keep every code in order; columns of
        unordered levels with more than ``max_bars`` levels show the ``max_bars - 1``
        most frequent real levels and one bar for all the others.
        """
        spec = self.domain[column]
        real = self.real_frequencies[column]
        synthetic = self.synthetic_frequencies[column]
        positions = np.arange(real.size)
        # Codes of the values; a last one beyond them counts the missing values.
        kind = kind_of(spec)
        n_codes = kind.size - kind.missing
        if kind.binned:
            # Ticks on the bin boundaries, labelled with the edges (thinned out).
            step = max(1, math.ceil((n_codes + 1) / 12))
            ticks = np.arange(0, n_codes + 1, step)
            labels = self._edge_labels(column, [spec.edges[k] for k in ticks])
            if real.size > n_codes:
                return positions, real, synthetic, [*(ticks - 0.5), n_codes], [*labels, "NA"]
            return positions, real, synthetic, ticks - 0.5, labels
        if isinstance(spec, range):
            labels = [str(k) for k in range(n_codes)] + ["NA"] * (real.size - n_codes)
            if real.size <= max_bars:
                return positions, real, synthetic, positions, labels
            if real.size > n_codes:  # numeric ticks at the codes, and the missing one
                step = max(1, math.ceil(real.size / 10))
                ticks = [*range(0, n_codes, step), n_codes]
                return positions, real, synthetic, ticks, [labels[k] for k in ticks]
            return positions, real, synthetic, None, None  # numeric ticks at the codes
        labels = _level_labels(spec)[:n_codes] + ["missing"] * (real.size - n_codes)
        if real.size > max_bars:
            order = np.argsort(-real, kind="stable")
            top, rest = order[: max_bars - 1], order[max_bars - 1 :]
            real = np.append(real[top], real[rest].sum())
            synthetic = np.append(synthetic[top], synthetic[rest].sum())
            labels = [labels[k] for k in top] + [f"other ({rest.size})"]
            positions = np.arange(real.size)
        return positions, real, synthetic, positions, labels

    def _is_datetime(self, column):
        """Whether a column's numbers are seconds of timestamps (its quantiles are
        ``datetime64``)."""
        quantiles = (self.quantiles or {}).get(column)
        return quantiles is not None and np.issubdtype(quantiles[0].dtype, np.datetime64)

    def _edge_labels(self, column, edges):
        """Tick text of bin edges: dates for a datetime column, else short numbers."""
        if self._is_datetime(column):
            return _short_dates(edges)
        return [_short_number(edge) for edge in edges]

    def _plot_marginals(self, figure, columns, n_cols, max_bars):
        n_rows = math.ceil(len(columns) / n_cols)
        axes = figure.subplots(n_rows, n_cols, squeeze=False)
        one_way = dict(zip(self.domain.columns, self._one_way_tvd(), strict=True))
        bars = {}
        for ax, column in zip(axes.flat, columns, strict=False):
            positions, real, synthetic, ticks, labels = self._bar_data(column, max_bars)
            if real.size <= max_bars:  # side by side
                width, shift, alpha = 0.4, 0.2, 1.0
            else:  # many ordered codes: overlaid, as two histograms
                width, shift, alpha = 1.0, 0.0, 0.55
            real_bars = ax.bar(
                positions - shift, real, width, color=_REAL_COLOR, alpha=alpha, label="real"
            )
            synthetic_bars = ax.bar(
                positions + shift,
                synthetic,
                width,
                color=_SYNTHETIC_COLOR,
                alpha=alpha,
                label="synthetic",
            )
            bars[column] = (real_bars, synthetic_bars)
            ax.set_title(f"{column}   TVD {one_way[column]:.3f}", fontsize=10)
            if ticks is not None:
                ax.set_xticks(ticks, labels, fontsize=7)
                if sum(map(len, labels)) > 24:
                    ax.tick_params(axis="x", labelrotation=60)
                    for label in ax.get_xticklabels():
                        label.set_horizontalalignment("right")
                        label.set_rotation_mode("anchor")
            else:
                ax.tick_params(axis="x", labelsize=7)
            ax.tick_params(axis="y", labelsize=7)
            ax.set_ylim(0, 1.08 * max(real.max(), synthetic.max(), 1e-12))
            ax.spines[["top", "right"]].set_visible(False)
        for ax in axes.flat[len(columns) :]:
            ax.set_visible(False)
        for ax in axes[:, 0]:
            ax.set_ylabel("share of rows", fontsize=8)
        from matplotlib.patches import Patch

        handles = [Patch(color=_REAL_COLOR), Patch(color=_SYNTHETIC_COLOR)]
        figure.legend(
            handles, ["real", "synthetic"], loc="outside upper right", ncols=2, frameon=False
        )
        return axes.flat[: len(columns)], bars

    def _plot_pairs(self, figure):
        ax = figure.subplots()
        names = [str(c) for c in self.domain.columns]
        values = np.ma.masked_invalid(self.pairwise_tvd)
        vmax = max(float(values.max()), 1e-12)
        image = ax.imshow(values, cmap=_HEATMAP_CMAP, vmin=0.0, vmax=vmax)
        ax.set_xticks(np.arange(len(names)), names, rotation=45, ha="right", fontsize=8)
        ax.set_yticks(np.arange(len(names)), names, fontsize=8)
        ax.set_title("TVD of every 2-way table (real vs synthetic)", fontsize=10)
        if len(names) <= _ANNOTATE_MAX_COLUMNS:
            for i, j in zip(*np.nonzero(~np.ma.getmaskarray(values)), strict=True):
                value = float(values[i, j])
                ax.text(
                    j,
                    i,
                    f"{value:.2f}".lstrip("0"),
                    ha="center",
                    va="center",
                    fontsize=6.5,
                    color="white" if value > 0.6 * vmax else "black",
                )
        colorbar = figure.colorbar(image, ax=ax, shrink=0.8)
        colorbar.set_label("2-way TVD", fontsize=8)
        colorbar.ax.tick_params(labelsize=7)
        return ax, image

    def _one_way_tvd(self):
        return [
            0.5 * np.abs(self.real_frequencies[c] - self.synthetic_frequencies[c]).sum()
            for c in self.domain.columns
        ]

    def _heights(self, marginals, pairs, columns, n_cols):
        """Heights in inches of the bar-chart grid and of the heatmap."""
        bar_height = 2.8 * math.ceil(len(columns) / n_cols) if marginals else 0.0
        heat = min(max(0.45 * len(self.domain) + 2.0, 4.5), 11.0) if pairs else 0.0
        return bar_height, heat

    def _figsize(self, marginals, pairs, columns, n_cols):
        bar_height, heat = self._heights(marginals, pairs, columns, n_cols)
        width = 3.2 * n_cols if marginals else heat + 0.9
        return width, bar_height + heat

    def plot(
        self,
        *,
        marginals=True,
        pairs=True,
        columns=None,
        n_cols=4,
        max_bars=20,
        figure=None,
    ):
        """Draw the marginal bar charts and the pairwise heatmap.

        Parameters
        ----------
        marginals : bool, default=True
            Draw one bar chart per column: the share of real and of synthetic rows in
            each level or bin, titled with the column's 1-way TVD.
        pairs : bool, default=True
            Draw the heatmap of the TVD of every 2-way table (needs two columns).
        columns : list of column labels, optional
            Columns of the bar charts (default: all).
        n_cols : int, default=4
            Bar charts per row.
        max_bars : int, default=20
            A column of unordered levels with more levels shows its ``max_bars - 1``
            most frequent real levels and one bar for the others; integer codes and
            bins always show every code.
        figure : matplotlib Figure or SubFigure, optional
            Where to draw; by default a new figure of :mod:`matplotlib.pyplot`.

        Returns
        -------
        MarginalErrorDisplay
            ``self``, with ``figure_``, ``axes_``, ``bars_``, ``heatmap_ax_`` and
            ``heatmap_`` set.
        """
        _import_matplotlib()
        columns = list(self.domain.columns) if columns is None else list(columns)
        unknown = [c for c in columns if c not in self.domain]
        if unknown:
            raise ValueError(
                f"columns {unknown!r} are not compared columns; they are "
                f"{list(self.domain.columns)!r}."
            )
        n_cols = min(_check_count(n_cols, "n_cols", 1), max(len(columns), 1))
        max_bars = _check_count(max_bars, "max_bars", 2)
        pairs = pairs and len(self.domain) >= 2
        if not (marginals and columns) and not pairs:
            raise ValueError("nothing to plot: set marginals=True with columns, or pairs=True.")
        bar_height, heat = self._heights(marginals, pairs, columns, n_cols)
        if figure is None:
            import matplotlib.pyplot as plt

            figure = plt.figure(
                figsize=self._figsize(marginals, pairs, columns, n_cols), layout="constrained"
            )
        if marginals and pairs:
            top, bottom = figure.subfigures(2, 1, height_ratios=[bar_height, heat])
        else:
            top = bottom = figure
        self.figure_ = figure
        self.heatmap_ax_ = self.heatmap_ = None
        if marginals:
            self.axes_, self.bars_ = self._plot_marginals(top, columns, n_cols, max_bars)
        if pairs:
            self.heatmap_ax_, self.heatmap_ = self._plot_pairs(bottom)
        return self

    def plot_distributions(self, *, columns=None, n_cols=4, figure=None):
        """Draw the empirical distribution functions of the numeric columns, real and
        synthetic (from 201 quantiles of each), titled with their KS statistic.

        The columns of ``log_axis`` (positive and skewed to the right) get a log x
        axis; a flagged column's title says so.

        Parameters
        ----------
        columns : list of column labels, optional
            Columns to draw (default: every column of ``numeric_errors``).
        n_cols : int, default=4
            Plots per row.
        figure : matplotlib Figure or SubFigure, optional
            Where to draw; by default a new figure of :mod:`matplotlib.pyplot`.

        Returns
        -------
        MarginalErrorDisplay
            ``self``, with ``figure_`` and ``ecdf_axes_`` (one Axes per column) set.
        """
        _import_matplotlib()
        known = list(self.quantiles or {})
        columns = known if columns is None else list(columns)
        unknown = [c for c in columns if c not in known]
        if unknown or not columns:
            raise ValueError(
                f"columns {unknown!r} are not numeric columns compared as distributions; "
                f"they are {known!r}."
            )
        n_cols = min(_check_count(n_cols, "n_cols", 1), len(columns))
        n_rows = math.ceil(len(columns) / n_cols)
        if figure is None:
            import matplotlib.pyplot as plt

            figure = plt.figure(figsize=(3.2 * n_cols, 2.6 * n_rows), layout="constrained")
        axes = figure.subplots(n_rows, n_cols, squeeze=False)
        from matplotlib.ticker import FuncFormatter, NullFormatter

        for ax, column in zip(axes.flat, columns, strict=False):
            real, synthetic = self.quantiles[column]
            log = column in self.log_axis
            for values, color, label in [
                (real, _REAL_COLOR, "real"),
                (synthetic, _SYNTHETIC_COLOR, "synthetic"),
            ]:
                # On a log axis a synthetic value at or below 0 (real ones are positive)
                # is left off: its share is where the curve starts.
                shown = values > 0 if log else np.ones(values.size, dtype=bool)
                ax.plot(values[shown], _QUANTILE_LEVELS[shown], color=color, label=label, lw=1.4)
            ks = self.numeric_errors.loc[column, "ks"]
            title = f"{column}   KS {ks:.3f}"
            flagged = self.verdicts is not None and bool(self.verdicts.loc[column, "flagged"])
            if flagged:
                title += "   ⚠ flagged"
            ax.set_title(title, fontsize=10, color="#b42318" if flagged else "black")
            if log:
                ax.set_xscale("log")
                ax.set_xlabel("log scale", fontsize=7)
                ax.xaxis.set_minor_formatter(NullFormatter())
            if not self._is_datetime(column):
                ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _short_number(v)))
            ax.tick_params(labelsize=7)
            ax.tick_params(axis="x", labelrotation=30)
            ax.set_ylim(0, 1)
            ax.spines[["top", "right"]].set_visible(False)
        for ax in axes.flat[len(columns) :]:
            ax.set_visible(False)
        for ax in axes[:, 0]:
            ax.set_ylabel("share of rows ≤ x", fontsize=8)
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], color=_REAL_COLOR), Line2D([], [], color=_SYNTHETIC_COLOR)]
        figure.legend(
            handles, ["real", "synthetic"], loc="outside upper right", ncols=2, frameon=False
        )
        self.figure_, self.ecdf_axes_ = figure, axes.flat[: len(columns)]
        return self

    # ---------------------------------------------------------------------- HTML

    def _png(self, dpi, **plot_kwargs):
        """One plot as a base64 PNG, drawn on a figure outside pyplot's state."""
        from matplotlib.figure import Figure

        columns = list(self.domain.columns)
        n_cols = min(4, len(columns))
        figsize = self._figsize(plot_kwargs["marginals"], plot_kwargs["pairs"], columns, n_cols)
        figure = Figure(figsize=figsize, layout="constrained")
        self.plot(figure=figure, n_cols=n_cols, **plot_kwargs)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=dpi)
        return base64.b64encode(buffer.getvalue()).decode("ascii")

    def to_html(self, *, title="Synthetic data quality report", description=(), dpi=90):
        """The report as one self-contained HTML page (figures embedded as PNG).

        The page holds the summary of the k-way TVDs next to their sampling floor,
        the verdict line of the numeric columns, the utility table (when ``target``
        was given), the per-column bar charts, the numeric table with a verdict per
        column and the distribution functions (skewed columns on a log axis), the
        pairwise heatmap, notes on the columns binned at quantiles, and a privacy
        caveat: the report is computed from the real data and is not a differentially
        private release.  It loads nothing from the network.

        Parameters
        ----------
        title : str, default="Synthetic data quality report"
            Page title and heading.
        description : sequence of str, default=()
            Lines shown under the heading (e.g. the file names compared).
        dpi : int, default=90
            Resolution of the embedded figures.

        Returns
        -------
        str
            The HTML document.
        """
        from .. import __version__

        _import_matplotlib()
        esc = html.escape
        n_real, n_synthetic = self.n_rows if self.n_rows is not None else ("?", "?")
        facts = [
            *description,
            f"{n_real} real rows, {n_synthetic} synthetic rows, {len(self.domain)} columns.",
        ]
        sections = [
            f"<h1>{esc(title)}</h1>",
            "".join(f'<p class="meta">{esc(line)}</p>' for line in facts),
            '<div class="caveat"><strong>Privacy.</strong> This report is computed from '
            "the real data: its frequencies, errors and scores (and any bin edges read from "
            "the real data) are <em>not</em> differentially private, even when the synthetic "
            "data is. Share it only with people allowed to see statistics of the real data."
            "</div>",
            self._table_verdict_html(),
            "<h2>Marginal errors</h2>",
            "<p>Total variation distance (TVD) between the real and the synthetic table of "
            "every set of <i>d</i> columns: half the sum over cells of the absolute "
            "difference of the shares of rows, from 0 (same table) to 1 (disjoint). The "
            "sampling floor is the TVD of a bootstrap sample of the real rows of the "
            "synthetic table's size: the error of a perfect generator. Values near it "
            "are as good as synthetic data of this size can be.</p>",
            self._summary_html(),
        ]
        if self.utility is not None:
            sections += [
                "<h2>Utility: train on synthetic, test on real</h2>",
                f"<p>A gradient-boosting classifier of <code>{esc(str(self.target))}</code> "
                "trained on each table and tested on the same held-out real rows. Synthetic "
                "data useful for this task scores close to the real table; the majority "
                "class is the floor.</p>",
                self._utility_html(),
            ]
        sections += [
            "<h2>Columns</h2>",
            "<p>Share of rows in each level or bin, real and synthetic; the title gives "
            "the column's 1-way TVD.</p>",
            f'<img src="data:image/png;base64,{self._png(dpi, marginals=True, pairs=False)}" '
            'alt="per-column bar charts">',
        ]
        if self.numeric_errors is not None:
            sections += [
                "<h2>Numeric columns</h2>",
                "<p>The distribution of the values of each numeric or date column, real "
                "and synthetic: the Kolmogorov-Smirnov statistic (the largest gap between "
                "the two curves below, 0 to 1), the Wasserstein-1 distance over the real "
                "interquartile range, the ratio of the standard deviations, the share of "
                "synthetic values outside the real range, and the share above the real "
                "99.9th percentile over the real share above it (1: the real tail; 0: "
                "no synthetic value reaches it; more: an inflated tail). Missing values are "
                "left out here and compared below.</p>",
                self._numeric_html(),
                self._verdicts_html(),
                f'<img src="data:image/png;base64,{self._distributions_png(dpi)}" '
                'alt="empirical distribution functions of the numeric columns">',
            ]
        sections += ["<h2>Missing values</h2>", self._missing_html()]
        if len(self.domain) >= 2:
            sections += [
                "<h2>Pairs of columns</h2>",
                "<p>TVD of the 2-way table of every pair of columns: dark cells mark "
                "relations between two columns the synthetic data gets wrong.</p>",
                f'<img src="data:image/png;base64,{self._png(dpi, marginals=False, pairs=True)}" '
                'class="heatmap" alt="heatmap of the pairwise TVD">',
            ]
        sections.append(self._domain_html())
        sections.append(f'<p class="footer">Generated by skprivsynth {esc(__version__)}.</p>')
        body = "\n".join(sections)
        return (
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title>\n<style>{_CSS}</style>\n</head>\n"
            f"<body>\n<main>\n{body}\n</main>\n</body>\n</html>\n"
        )

    def _distributions_png(self, dpi):
        from matplotlib.figure import Figure

        n = len(self.quantiles)
        n_cols = min(4, n)
        figure = Figure(figsize=(3.2 * n_cols, 2.6 * math.ceil(n / n_cols)), layout="constrained")
        self.plot_distributions(figure=figure, n_cols=n_cols)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=dpi)
        return base64.b64encode(buffer.getvalue()).decode("ascii")

    def _table_verdict_html(self):
        if self.verdicts is None:
            return ""
        flagged = bool(self.verdicts["flagged"].any())
        css = "verdict flagged" if flagged else "verdict"
        return (
            f'<div class="{css}"><strong>Numeric columns.</strong> '
            f"{html.escape(self.table_verdict)}</div>"
        )

    def _verdicts_html(self):
        low, high = STD_RATIO_BAND
        items = "".join(
            f'<li class="flagged"><strong>⚠ flagged:</strong> {html.escape(row["verdict"])}</li>'
            if row["flagged"]
            else f"<li>{html.escape(row['verdict'])}</li>"
            for _, row in self.verdicts.iterrows()
        )
        log = ""
        if self.log_axis:
            names = ", ".join(f"<code>{html.escape(str(c))}</code>" for c in self.log_axis)
            log = (
                f"<p>Skewed to the right (positive real values of sample skewness above "
                f"2), {names} {'is' if len(self.log_axis) == 1 else 'are'} drawn on a log "
                "axis below.</p>"
            )
        return (
            f"<p>A column is flagged when its std ratio is outside [{low:g}, {high:g}] or "
            f"its tail ratio below {MIN_TAIL_RATIO:g} and below its sampling floor (what a "
            "resample of the real values would beat in 95 % of draws): its spread or its "
            "tail was not reproduced, as happens to a long tail whose few rows a "
            "differentially private synthesizer cannot place at its ε.</p>"
            f'<ul class="verdicts">{items}</ul>{log}'
        )

    def _numeric_html(self):
        rows = [
            [
                str(column),
                f"{row['ks']:.3f}",
                f"{row['wasserstein_iqr']:.3f}",
                f"{row['std_ratio']:.3f}",
                f"{row['outside_range']:.4f}",
                f"{row['tail_ratio']:.2f}",
                f"{row['missing_rate_error']:+.4f}",
            ]
            for column, row in self.numeric_errors.iterrows()
        ]
        header = ["column", "KS", "W1 / IQR", "std ratio", "outside range", "tail ratio",
                  "missing rate error", "verdict"]  # fmt: skip
        low, high = STD_RATIO_BAND
        marked = set()
        for k, (_, row) in enumerate(self.numeric_errors.iterrows()):
            std, tail = row["std_ratio"], row["tail_ratio"]
            if not low <= std <= high:  # NaN too
                marked.add((k, 3))
            if not tail >= _tail_threshold(row.get("tail_floor", np.nan)):
                marked.add((k, 5))
            flagged = bool(self.verdicts["flagged"].iloc[k])
            rows[k].append("flagged" if flagged else "ok")
            if flagged:
                marked.add((k, 7))
        return _html_table(header, rows, numeric=range(1, 7), marked=marked)

    def _missing_html(self):
        missing = self.missing
        if missing is None or not (missing[["real", "synthetic"]] > 0).any(axis=None):
            return "<p>No missing values in either table.</p>"
        shown = missing[(missing[["real", "synthetic"]] > 0).any(axis=1)]
        rows = [
            [str(c), f"{r['real']:.4f}", f"{r['synthetic']:.4f}", f"{r['error']:+.4f}"]
            for c, r in shown.iterrows()
        ]
        return (
            "<p>Share of missing cells of each column that has any, real and synthetic. "
            "In the marginal tables above, missing is a level of its own.</p>"
            + _html_table(["column", "real", "synthetic", "error"], rows, numeric=(1, 2, 3))
        )

    def _summary_html(self):
        p = len(self.domain)
        rows = []
        for degree, row in self.summary.iterrows():
            tables = f"{row['n_tables']}"
            if row["n_tables"] < math.comb(p, degree):
                tables += f" of {math.comb(p, degree)} (random)"
            rows.append(
                [
                    f"{degree}-way",
                    tables,
                    f"{row['mean_tvd']:.4f}",
                    f"{row['floor_mean_tvd']:.4f}",
                    f"{row['max_tvd']:.4f}",
                    " × ".join(map(str, row["worst_table"])),
                ]
            )
        header = ["marginals", "tables", "mean TVD", "sampling floor", "max TVD", "worst table"]
        return _html_table(header, rows, numeric=(2, 3, 4))

    def _utility_html(self):
        names = {
            "synthetic": "train on synthetic, test on real",
            "real": "train on real, test on real",
            "majority class": "majority class of real",
        }
        rows = [
            [
                names.get(label, str(label)),
                f"{row['accuracy']:.3f}",
                f"{row['balanced_accuracy']:.3f}",
                "—" if np.isnan(row["roc_auc"]) else f"{row['roc_auc']:.3f}",
                f"{int(row['n_train'])}",
            ]
            for label, row in self.utility.iterrows()
        ]
        header = ["classifier", "accuracy", "balanced accuracy", "ROC AUC", "training rows"]
        return _html_table(header, rows, numeric=(1, 2, 3, 4))

    def _domain_html(self):
        notes = []
        ranged = [c for c in self.quantile_binned if c in self.ranged]
        undeclared = [c for c in self.quantile_binned if c not in self.ranged]
        if undeclared:
            names = ", ".join(f"<code>{html.escape(str(c))}</code>" for c in undeclared)
            notes.append(
                f"<p>Numeric columns without a declared domain ({names}) are compared in "
                "bins at quantiles of the real data (edges in the bar charts). Declare "
                '<code>{"bins": [...]}</code> in the domain to choose the bins.</p>'
            )
        if ranged:
            names = ", ".join(f"<code>{html.escape(str(c))}</code>" for c in ranged)
            notes.append(
                f"<p>Columns declared by a range only ({names}) had their bins chosen "
                "at fit by the synthesizer; here they are compared in bins at quantiles "
                "of the real data (edges in the bar charts), which are not differentially "
                'private. Declare <code>{"bins": [...]}</code> in the domain to compare '
                "them in bins of your choice.</p>"
            )
        return "<h2>Notes</h2>" + "".join(notes) if notes else ""


def _html_table(header, rows, numeric=(), marked=()):
    """An HTML table; ``marked``: ``(row, column)`` of body cells shown as flagged."""

    def cell(tag, k, text, bad=False):
        classes = " ".join(c for c, on in (("num", k in numeric), ("bad", bad)) if on)
        css = f' class="{classes}"' if classes else ""
        return f"<{tag}{css}>{html.escape(text)}</{tag}>"

    head = "".join(cell("th", k, text) for k, text in enumerate(header))
    body = "".join(
        "<tr>"
        + "".join(cell("td", k, text, (i, k) in marked) for k, text in enumerate(row))
        + "</tr>"
        for i, row in enumerate(rows)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


_CSS = """
body { margin: 0; background: #f6f7f9; color: #1f2328;
  font: 15px/1.5 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1180px; margin: 0 auto; padding: 24px 32px 40px; background: #fff;
  min-height: 100vh; box-shadow: 0 0 0 1px #e3e6ea; }
h1 { font-size: 26px; margin: 8px 0 4px; }
h2 { font-size: 19px; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid #e3e6ea; }
p { margin: 6px 0 10px; max-width: 860px; }
p.meta { margin: 2px 0; color: #57606a; }
.caveat { margin: 16px 0; padding: 10px 14px; background: #fff8e6;
  border-left: 4px solid #d4a72c; max-width: 860px; }
table { border-collapse: collapse; margin: 8px 0 12px; font-size: 14px; }
th, td { padding: 5px 12px; border-bottom: 1px solid #e3e6ea; text-align: left; }
thead th { background: #f0f2f5; font-weight: 600; }
tbody tr:nth-child(even) { background: #fafbfc; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
img { display: block; max-width: 100%; height: auto; margin: 8px 0; }
img.heatmap { max-width: 820px; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px;
  background: #f0f2f5; padding: 1px 4px; border-radius: 3px; }
.verdict { margin: 16px 0; padding: 10px 14px; background: #eef6ee;
  border-left: 4px solid #2f8f46; max-width: 860px; }
.verdict.flagged { background: #fdecea; border-left-color: #b42318; }
ul.verdicts { max-width: 860px; padding-left: 20px; }
ul.verdicts li { margin: 4px 0; }
ul.verdicts li.flagged strong, td.bad { color: #b42318; font-weight: 600; }
.footer { margin-top: 32px; color: #8c959f; font-size: 13px; }
"""
