"""Differentially private synthetic data by select–measure–generate over marginals."""

from __future__ import annotations

import functools
import itertools
import math
from numbers import Integral, Real

import numpy as np
from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .._math.budget import (
    MST_SHARE,
    one_way_share,
    one_way_split,
    pairs_error,
    rounds_gain,
)
from .._math.compression import Compression
from .._math.graphical_model import Measurement, estimate, model_size
from .._math.residuals import allocate
from .._math.workload import weighted_column_sets, workload_closure
from ..base import BaseSynthesizer
from ..people import (
    PersonChunks,
    PersonTable,
    check_person_columns,
    person_relation,
    sample_people,
    warn_per_row,
)
from ..privacy import (
    NOISE_OPTIONS,
    PrivacyCost,
    PrivacyReport,
    gaussian_sigma_for_rho,
    zcdp_rho,
)
from ..privacy.residuals import measure_residuals

__all__ = ["MarginalSynthesizer"]


# Replace-one neighbours: one record moves from one cell of a count table to another,
# so the table changes by −1 and +1: L2 sensitivity sqrt(2), L1 sensitivity 2.
_TABLE_L2 = math.sqrt(2.0)
_TABLE_L1 = 2.0
# Most releases of the 1-way tables while their share grows (MarginalSynthesizer).
_SHARE_STEPS = 5
# Most (set, subset) pairs enumerated for the downward closure of a workload (10^6: about
# 4 s and 0.5 GB, measured); every round then scores every candidate.
_MAX_CLOSURE = 1_000_000


class _CountTables:
    """Statistic of a chunk of codes: the exact int64 count table of each clique.

    The codes are checked against the declared ``sizes``, then mapped by
    ``compression`` when given (rare levels merged; the tables are then over the
    compressed sizes).  Tables add over chunks.  With ``count_column`` (a person-level
    fit), each row weighs ``1/c`` (:class:`~skprivsynth.people.PersonTable`) and the
    tables are float64.
    """

    def __init__(self, sizes, cliques, compression=None, count_column=None):
        self.sizes, self.cliques, self.compression = sizes, cliques, compression
        self.count_column = count_column

    def __call__(self, X):
        codes, sizes = _check_codes(X, self.sizes), self.sizes
        weights = None
        if self.count_column is not None:
            weights = PersonTable.weights(codes, self.count_column)
        if self.compression is not None:
            codes, sizes = self.compression.transform(codes), self.compression.sizes
        # One contiguous row per column: the gathers below read memory in order.
        columns = np.ascontiguousarray(codes.T, dtype=np.intp)
        tables = {}
        for attrs in self.cliques:
            shape = [sizes[a] for a in attrs]
            cells = columns[attrs[0]].copy()  # the row-major cell index of each row
            for a in attrs[1:]:
                cells *= sizes[a]
                cells += columns[a]
            tables[attrs] = np.bincount(cells, weights, math.prod(shape)).reshape(shape)
        return tables


def _float_tables(tables):
    """Count tables as float64 (exact: every count is an integer below 2**53)."""
    return {attrs: table.astype(np.float64) for attrs, table in tables.items()}


def _margin_pairs(candidates, numeric):
    """The candidates whose median size sets the 1-way share (:mod:`~skprivsynth._math.budget`):
    the smallest ones with more than one column (the pairs, unless a workload has
    none), those of columns without numeric bins where there are any.  Groups of
    numeric bins are sized to the rounds' noise
    (:func:`~skprivsynth._math.compression.bin_groups`), so a pair of numeric columns
    stands just above that noise by construction and says nothing of the table's
    margin."""
    small = min((len(c) for c in candidates if len(c) > 1), default=1)
    pairs = [c for c in candidates if len(c) == small]
    return [c for c in pairs if not any(numeric[a] for a in c)] or pairs


def _one_way_precision(size_a, size_b, measurement):
    """What measuring a ``size_a × size_b`` table at ρ = 1 gives its two 1-way tables:
    the mean precision (1/σ² a cell) of its 1-way residuals (``"correlated"``,
    :func:`~skprivsynth._math.residuals.allocate`), or of its rows and columns summed
    (``"independent"``: σ = 1 a cell, ``c`` cells summed).  Public."""
    if measurement == "independent":
        return (1 / size_a + 1 / size_b) / 2
    subsets, sigmas = allocate((size_a, size_b), 1.0)
    ones = [s**-2.0 for axes, s in zip(subsets, sigmas, strict=True) if len(axes) == 1]
    return float(np.mean(ones))


class MarginalSynthesizer(BaseSynthesizer):
    """Differentially private synthetic data from noisy marginals (select–measure–generate).

    Measures every column's 1-way marginal, merges each column's rare levels (groups
    the bins of a numeric column), selects the 2- and 3-way marginals worth measuring
    by the exponential mechanism, measures them with Gaussian noise, fits a graphical
    model to all noisy marginals (Private-PGM) and samples records from it.  The 1-way
    marginals' share of the budget falls as the pairs of columns stand further above
    their noise (judged from n, ρ and the sizes only), and is split over them in
    proportion to their sizes to the power 2/3 (the least expected L1 error); when the
    table is too small for the budget (no pair would stand above its noise), the whole
    budget goes to the 1-way marginals.  The whole fit is ``rho``-zCDP with
    ``rho = zcdp_rho(epsilon, delta)``, hence (ε, δ)-DP, for replace-one neighbours.

    Read more in the :ref:`User Guide <marginal>`.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget ε of the whole fit.
    delta : float, default=1e-9
        δ of the (ε, δ) guarantee, used to convert ε into the zCDP budget ρ.
    domain : sequence of int, dict, Domain or None, default=None
        Public number of levels of each column (``X`` holds integer codes
        ``0..K_j−1``).  None: given to :meth:`fit` by a
        :class:`~skprivsynth.SynthesisPipeline` from its encoder's declared domain.
    selection : {"adaptive", "mst"}, default="adaptive"
        ``"adaptive"``: rounds of exponential-mechanism selection among the candidate
        marginals (see ``workload``), each measured at once and the model re-fitted,
        with budget annealing (AIM, McKenna et al. 2022).  ``"mst"``: a maximum
        spanning tree of 2-way marginals (MST, McKenna et al. 2021).
    workload : None, int, list of column sets or dict, default=None
        The marginals the release will be judged on (``"adaptive"``).  The candidates
        are its downward closure (every non-empty subset of a workload set), the
        error of candidate ``r`` weighted by ``w_r = Σ_{s∈W} c_s·|r ∩ s|`` (AIM,
        McKenna et al. 2022, Sect. 4).  A list of column sets, e.g.
        ``[(0, 1), (2, 3, 4)]`` (the spelling of :mod:`skprivsynth.workload`, each set
        of weight ``c_s = 1``); a dict ``{column set: c_s}`` of positive weights, e.g.
        ``{("cost",): 4, ("cost", "severity"): 2, ("age", "sex"): 1}`` (a set of one
        column may be the column alone); an int ``k``: all ``k``-way marginals; None:
        all ``max_degree``-way marginals.  Columns by position, or by name when ``X``
        is a DataFrame or in a :class:`~skprivsynth.SynthesisPipeline` (the encoder's
        column names).  A weight raises the selection score of its sets and of their
        subsets; the noise of each measurement is unchanged.  Public: it changes no
        privacy cost.
    max_degree : int or "auto", default="auto"
        Largest number of columns of a candidate marginal (``"adaptive"``).  "auto":
        with ``workload=None``, 3 for tables of up to 20 columns, 2 for wider ones
        (every round scores every candidate, and there are ``C(d, 3)`` 3-way ones);
        with a workload, no cap beyond its sets.
    max_model_size : int, default=1_000_000
        Largest number of cells of the graphical model (junction tree); a candidate
        that would exceed it is never selected.  Checked on the sizes after the
        compression of rare levels, which follow from the released 1-way marginals
        (post-processing: the check reads no private value).
    measurement : {"independent", "correlated"}, default="independent"
        How a selected marginal is measured.  ``"independent"``: Gaussian noise of
        equal scale on every cell.  ``"correlated"``: the same ρ spent on the
        marginal's residuals (its ANOVA parts, Xiao et al. 2023), each with its own
        noise scale chosen to minimise the summed variance of the marginal and all
        its sub-marginals — correlated noise shaped to that workload in the sense of
        Nikolov, Talwar & Zhang (2013).  Requires ``noise="continuous"``.
    noise : {"continuous", "discrete"}, default="continuous"
        ``"discrete"``: exact discrete Gaussian noise on a grid (floating-point safe,
        same ρ).
    iterations : int, default=1000
        Largest number of mirror-descent steps of the final model fit;
        ``iterations // 5`` for the re-fit of each selection round.
    tol : float, default=0.1
        Each model fit stops after a step that lowers its loss, the negative
        log-likelihood of the measurements, by at most ``tol`` nats (or at its cap of
        steps, above).  Smaller is slower and closer to the optimum; see the User
        Guide.
    max_rows_per_person : int or None, default=None
        Person-level privacy: the most rows a person contributes (public).  ``fit``
        then takes the person of each row (``persons``); each person keeps their first
        ``max_rows_per_person`` rows in the table's order, before any release, and the
        guarantee holds for two tables of the same number of people (public) that
        differ in all the rows of one person
        (:class:`~skprivsynth.people.PersonTable`).  :meth:`sample` then returns the
        rows of ``n_samples`` synthetic people, :meth:`sample_people` their keys too;
        see the :ref:`User Guide <people>`.  None: replace-one rows.
    person_columns : sequence of int or str, str or None, default=None
        With ``max_rows_per_person``: the columns constant within a person (public; a
        person takes the value of their first row), kept constant within each
        synthetic person; by position, or by name when ``X`` is a DataFrame or in a
        :class:`~skprivsynth.SynthesisPipeline` (the encoder's column names).
    lag_columns : sequence of int or str, or None, default=None
        With ``max_rows_per_person``: columns whose value at the person's previous row
        (in the table's order) is modelled with the row, so that consecutive rows of a
        synthetic person keep their relation (a cost and the next visit's cost).
        Each adds a column to the person-weighted table, its codes and one more
        ("first row"); a synthetic person's rows are then drawn in order, each given
        the previous one's value.  Spelled as ``person_columns``.
    mean_columns : sequence of int or str, or None, default=None
        With ``max_rows_per_person``: numeric columns whose mean over each person's
        kept rows (the bin of the mean of their codes; missing values left out) is
        modelled as a person column, the person's level of a repeated measure, so
        that a synthetic person's rows share a level (a patient's usual cost).
        Spelled as ``person_columns``.
    random_state : None, int, numpy.random.Generator or RandomState, default=None
        Seeds the noise, the selections and sampling.  A known seed voids a release.
    verbose : int, default=0
        0 is silent; 1 prints one line per phase of ``fit`` with its time on
        standard error (the 1-way tables, each selection round or MST's tree, the
        model fit).

    Attributes
    ----------
    cliques_ : list of tuple of int
        The selected marginals, in the order they were measured (column indices).
    model_ : GraphicalModel
        The fitted model over the compressed levels.
    privacy_report_ : PrivacyReport
        Every release with its sensitivity, ρ and noise scale.
    epsilon_, delta_, rho_ : float
        The guarantee of the fit, read from ``privacy_report_``.
    n_features_in_ : int
    n_samples_fit_ : int

    References
    ----------
    R. McKenna, D. Sheldon, G. Miklau, "Graphical-model based estimation and inference
    for differential privacy", ICML 2019.  R. McKenna, G. Miklau, D. Sheldon, "Winning
    the NIST contest: a scalable and general approach to differentially private
    synthetic data", J. Privacy and Confidentiality 2021.  R. McKenna, B. Mullins,
    D. Sheldon, G. Miklau, "AIM: an adaptive and iterative mechanism for differentially
    private synthetic data", PVLDB 2022.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth import MarginalSynthesizer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.integers(0, 3, size=(2000, 4))
    >>> est = MarginalSynthesizer(epsilon=1.0, domain=[3, 3, 3, 3], random_state=0).fit(X)
    >>> est.sample(5).shape, round(est.epsilon_, 6)
    ((5, 4), 1.0)
    """

    _differentially_private = True
    _cli_name = "marginal"

    _parameter_constraints = {
        **BaseSynthesizer._parameter_constraints,
        "epsilon": [Interval(Real, 0, None, closed="neither")],
        "delta": [Interval(Real, 0, 1, closed="neither")],
        "domain": "no_validation",
        "selection": [StrOptions({"adaptive", "mst"})],
        "workload": [None, Interval(Integral, 1, None, closed="left"), "array-like", dict],
        "max_degree": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "max_model_size": [Interval(Integral, 1, None, closed="left")],
        "measurement": [StrOptions({"independent", "correlated"})],
        "noise": [StrOptions(set(NOISE_OPTIONS))],
        "iterations": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_rows_per_person": [None, Interval(Integral, 1, None, closed="left")],
        "person_columns": [None, "array-like", str],
        "lag_columns": [None, "array-like", str],
        "mean_columns": [None, "array-like", str],
    }

    def __init__(
        self,
        epsilon=1.0,
        *,
        delta=1e-9,
        domain=None,
        selection="adaptive",
        workload=None,
        max_degree="auto",
        max_model_size=1_000_000,
        measurement="independent",
        noise="continuous",
        iterations=1000,
        tol=0.1,
        max_rows_per_person=None,
        person_columns=None,
        lag_columns=None,
        mean_columns=None,
        random_state=None,
        verbose=0,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.domain = domain
        self.selection = selection
        self.workload = workload
        self.max_degree = max_degree
        self.max_model_size = max_model_size
        self.measurement = measurement
        self.noise = noise
        self.iterations = iterations
        self.tol = tol
        self.max_rows_per_person = max_rows_per_person
        self.person_columns = person_columns
        self.lag_columns = lag_columns
        self.mean_columns = mean_columns
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ fitting

    def _sizes(self, domain, n_features):
        domain = self.domain if self.domain is not None else domain
        if domain is None:
            raise ValueError(
                "domain is required: the public number of levels of each column "
                "(MarginalSynthesizer(domain=[K1, K2, ...]), or an encoder with a declared "
                "domain in front of it in a SynthesisPipeline)."
            )
        if hasattr(domain, "sizes"):
            domain = domain.sizes
        elif isinstance(domain, dict):
            domain = list(domain.values())
        sizes = list(domain)
        if len(sizes) != n_features or not all(
            isinstance(k, Integral | np.integer) and not isinstance(k, bool) and k >= 1
            for k in sizes
        ):
            raise ValueError(
                f"domain must give one positive integer number of levels per column "
                f"({n_features} columns); got {domain!r}."
            )
        return tuple(int(k) for k in sizes)

    @staticmethod
    def _numeric_codes(numeric_codes, sizes):
        if numeric_codes is None:
            return (0,) * len(sizes)
        numeric = list(numeric_codes)
        if len(numeric) != len(sizes) or not all(
            isinstance(k, Integral | np.integer) and not isinstance(k, bool) and 0 <= k <= size
            for k, size in zip(numeric, sizes, strict=True)
        ):
            raise ValueError(
                "numeric_codes must give, for each column, a number of codes between 0 and "
                f"its size {list(sizes)}; got {numeric_codes!r}."
            )
        return tuple(int(k) for k in numeric)

    def _synthesizer_tags(self):
        """Integer codes, one column each, of the encoder's declared domain."""
        tags = super()._synthesizer_tags()
        tags.input_kind, tags.encoding = "real", "ordinal"
        tags.code_domain = tags.noise = True
        return tags

    def _fit_cost(self, n_samples, n_features):
        """``rho = zcdp_rho(epsilon, delta)``: every release of the fit is budgeted in it."""
        return PrivacyCost(rho=zcdp_rho(self.epsilon, self.delta))

    def _zcdp_delta(self):
        return self.delta

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, domain=None, numeric_codes=None, persons=None):
        """Fit the model to integer codes ``X`` under (``epsilon``, ``delta``)-DP.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Integer codes, column ``j`` in ``0..K_j−1``; or a re-iterable source of
            chunks (:class:`~skprivsynth.Chunks`, Dask array or DataFrame), read twice
            (1-way counts, then the candidate marginals of the compressed codes): the
            fit is then exactly the in-memory fit.
        y : None
            Ignored.
        domain : sequence of int, optional
            Public sizes, used when the ``domain`` parameter is None (a
            :class:`~skprivsynth.SynthesisPipeline` passes its encoder's).
        numeric_codes : sequence of int, optional
            For each column, how many of its first codes are numeric bins in
            increasing order (0: none; a :class:`~skprivsynth.SynthesisPipeline`
            passes its encoder's, :func:`~skprivsynth.pipeline.declared_numeric_codes`).
            The bins of such a column are grouped in order to as many codes as the
            later measurements' noise can tell apart, and decoded back by
            significance-tested shares, so that noise in the empty tails of a
            generous public range does not come back as far values (see the User
            Guide).  Public.
        persons : array-like of shape (n_samples,), optional
            The person of each row, for ``max_rows_per_person``; with ``X`` a source
            of chunks, a source of chunks of persons read alongside it.
            Without ``max_rows_per_person`` the fit is row-level and warns so.

        Returns
        -------
        self
        """
        self._log()
        data = self._validate_fit_source(X)
        d = data.n_features
        sizes = self._sizes(domain, d)
        numeric = self._numeric_codes(numeric_codes, sizes)
        people = self._person_table(data, persons, sizes, numeric)
        data.count_column = None
        if people is not None:  # the person-weighted table: c − 1, lag columns, means
            lags, means = people.lag_columns, people.mean_columns
            sizes, numeric = (
                sizes + (self.max_rows_per_person,) + tuple(sizes[j] + 1 for j in lags)
                + tuple(numeric[j] + 1 for j in means),
                numeric + (self.max_rows_per_person,) + tuple(numeric[j] for j in lags)
                + tuple(numeric[j] for j in means),
            )  # fmt: skip
            names, data = data.feature_names, self._validate_fit_source(people.codes)
            data.count_column, data.feature_names, d = d, names, len(sizes)
        if sum(sizes) > self.max_model_size:  # public: no release happens on refusal
            raise ValueError(
                f"max_model_size={self.max_model_size} is below the size of the 1-way "
                f"model ({sum(sizes)} cells); raise it or coarsen the domain."
            )
        if self.measurement == "correlated" and self.noise == "discrete":
            raise ValueError(
                "measurement='correlated' needs noise='continuous' (its noise is projected "
                "onto residual subspaces, which the discrete Gaussian's guarantee does not "
                "cover); got noise='discrete'."
            )
        if self.selection == "mst" and self.workload is not None:
            raise ValueError(
                f"workload applies to selection='adaptive'; got workload={self.workload!r} "
                "with selection='mst' (a spanning tree of all 2-way marginals)."
            )
        # The candidates and their weights: public, checked before any release.
        names = getattr(self, "_fit_column_names", data.feature_names)
        weight = self._candidates(d, names) if self.selection == "adaptive" else None
        if d > 1 or self.selection == "adaptive":
            data.check_reiterable()  # two passes: before and after the compression
        # Pass 1 over the data: the exact 1-way count tables (integer codes checked
        # against the declared sizes, chunk by chunk, before any release).
        one_way = data.reduce(
            _CountTables(sizes, [(j,) for j in range(d)], count_column=data.count_column)
        )
        self._log(f"counted the levels of each of the {d} columns (pass 1 over the data)")
        if people is not None:  # the weighted table's total (public)
            data.n_samples, data.n_features = people.n_people, data.count_column
        state, rng = data.fitted_state()
        rho = self._fit_budget(data.n_samples, data.n_features).rho
        report = PrivacyReport("MarginalSynthesizer", zcdp_delta=self.delta)
        if people is not None:
            report.neighbouring_relation = person_relation(self.max_rows_per_person)
        if self.selection == "mst":
            fit = self._fit_mst
        else:
            fit = functools.partial(self._fit_adaptive, weight=weight)
        model, cliques, compression = fit(data, sizes, numeric, one_way, rho, report, rng)
        return self._set_fitted(
            state,
            model_=model,
            cliques_=cliques,
            privacy_report_=report,
            epsilon_=report.epsilon,
            delta_=report.delta,
            rho_=report.rho,
            _compression=compression,
            _person_columns=None if people is None else people.key_columns,
            _lags=None if people is None else people.lags,
        )

    def _added_column_names(self, names):
        """A person-level fit's columns: each person's number of kept rows, then each
        lag column at the person's previous row."""
        if self.max_rows_per_person is None:
            return ()
        lags = self._check_lag_columns(len(names), names)
        means = check_person_columns(self.mean_columns, len(names), names, "mean_columns")
        return (
            "rows per person",
            *(f"{names[j]} (previous row)" for j in lags),
            *(f"{names[j]} (person mean)" for j in means),
        )

    def _check_lag_columns(self, n_features, names):
        names = getattr(self, "_fit_column_names", names)
        return check_person_columns(self.lag_columns, n_features, names, "lag_columns")

    def _check_mean_columns(self, n_features, names, numeric):
        names = getattr(self, "_fit_column_names", names)
        columns = check_person_columns(self.mean_columns, n_features, names, "mean_columns")
        if any(numeric[j] == 0 for j in columns):
            raise ValueError(
                f"mean_columns must name numeric columns (integer, float or datetime bins); "
                f"got {self.mean_columns!r}."
            )
        return columns

    def _check_person_columns(self, n_features, names):
        names = getattr(self, "_fit_column_names", names)
        return check_person_columns(self.person_columns, n_features, names)

    def _person_table(self, data, persons, sizes, numeric):
        """The person-weighted table of a person-level fit (None: row-level), after
        its public checks."""
        if self.max_rows_per_person is None:
            for name in ("person_columns", "lag_columns", "mean_columns"):
                if getattr(self, name) is not None:
                    raise ValueError(
                        f"{name}={getattr(self, name)!r} applies with max_rows_per_person; "
                        "got max_rows_per_person=None."
                    )
            if persons is not None:
                warn_per_row(type(self).__name__)
            return None
        if persons is None:
            raise ValueError(
                f"max_rows_per_person={self.max_rows_per_person} needs the person of each "
                "row: fit(X, persons=...)."
            )
        if self.noise == "discrete":
            raise ValueError(
                "max_rows_per_person needs noise='continuous' (the person-weighted "
                "tables are not on the discrete Gaussian's integer grid); got "
                "noise='discrete'."
            )
        columns = self._check_person_columns(data.n_features, data.feature_names)
        lags = self._check_lag_columns(data.n_features, data.feature_names)
        means = self._check_mean_columns(data.n_features, data.feature_names, numeric)
        args = (self.max_rows_per_person, columns, lags, sizes, means, numeric)
        if data.chunks is not None:  # persons a source of chunks alongside X's
            check = functools.partial(_check_codes, sizes=sizes)
            return PersonChunks(data.chunks, persons, *args, check=check)
        _check_codes(data.array, sizes)
        return PersonTable(data.array, persons, *args)

    def _measure_one_way(self, one_way, rho_each, report, rng, earlier=None):
        """Release 1-way marginal ``j`` at ``rho_each[j]``: the noisy tables and their σ.

        With ``earlier`` (noisy tables and σ of a first release), the two are combined
        by inverse-variance weights: the same Gaussian measurement as one release at
        the summed ρ (post-processing).
        """
        sigma = _TABLE_L2 / np.sqrt(2 * np.asarray(rho_each))
        noisy = [
            report.release_gaussian(
                f"1-way marginal of column {j}",
                one_way[(j,)].astype(np.float64),
                _TABLE_L2,
                rho_j,
                rng,
                self.noise,
                label=f"1-way marginal of {self._columns_text((j,))}",
            )
            for j, rho_j in enumerate(rho_each)
        ]
        if earlier is not None:
            first, s1 = earlier
            w = s1**-2 / (s1**-2 + sigma**-2)
            noisy = [w_j * y1 + (1 - w_j) * y2 for w_j, y1, y2 in zip(w, first, noisy, strict=True)]
            sigma = (s1**-2 + sigma**-2) ** -0.5
        return noisy, sigma

    def _compress(self, noisy, sigma, numeric, n, sigma_next):
        """Merge the rare levels of the noisy 1-way tables and group the numeric bins for
        later measurements of noise ``sigma_next``; the compressed 1-way measurements."""
        # Levels whose noisy count is below 3σ carry mostly noise (MST, Sect. 4).
        threshold = 3 * sigma
        # Numeric bins are grouped so that the 2-way table of two such columns has
        # cells of sigma_next rows on average when they are independent: K groups of
        # n/K rows, n/K² = sigma_next, i.e. groups of sqrt(n·sigma_next) rows.
        group_mass = np.maximum(threshold, math.sqrt(n * sigma_next))
        compression = Compression(noisy, threshold, numeric, sigma, group_mass)
        return compression, [
            compression.one_way(j, y, s) for j, (y, s) in enumerate(zip(noisy, sigma, strict=True))
        ]

    def _measure(self, table, attrs, rho_each, report, rng):
        """Measure the marginal ``table`` on ``attrs`` at ``rho_each``; return its
        measurements."""
        if self.measurement == "independent":
            noisy = report.release_gaussian(
                f"marginal of columns {attrs}", table, _TABLE_L2, rho_each, rng, self.noise,
                label=f"marginal of {self._columns_text(attrs)}",
            )  # fmt: skip
            return [Measurement(attrs, noisy, _TABLE_L2 / math.sqrt(2 * rho_each))]
        releases, rho_spent = measure_residuals(table, rho_each, rng)
        if not releases:  # every column compressed to one level: the public total
            return []
        report.add(
            f"residuals of the marginal of columns {attrs}",
            "correlated Gaussian mechanism",
            _TABLE_L2,
            None,
            [sigma for _, _, sigma in releases],
            "one residual P_s(x_s) per non-empty s, noise σ_s; ρ = ½ max over the "
            "patterns D of differing columns of Σ_s ||P_s(e_u − e_v)||²/σ_s² "
            f"= {rho_spent:.6g} (Bun & Steinke 2016, Prop. 1.6, Lemma 2.3)",
            rho=rho_spent,
            label=f"residuals of the marginal of {self._columns_text(attrs)}",
        )
        return [
            Measurement(tuple(attrs[i] for i in s), noisy, sigma, residual=True)
            for s, noisy, sigma in releases
        ]

    def _fit_mst(self, data, sizes, numeric, one_way, rho, report, rng):
        """MST: ρ/3 on 1-way marginals, ρ/3 on choosing a spanning tree, ρ/3 on its edges."""
        n, d = data.n_samples, len(sizes)
        # With one column there is no tree: the whole budget goes to its marginal.
        one_way_share = MST_SHARE if d > 1 else 1.0
        rho_edge = rho / (3 * (d - 1)) if d > 1 else rho
        sigma_edge = _TABLE_L2 / math.sqrt(2 * rho_edge)  # noise of a tree edge's table
        released = self._measure_one_way(one_way, np.full(d, one_way_share * rho / d), report, rng)
        compression, measurements = self._compress(*released, numeric, n, sigma_edge)
        self._log(
            "released each column's noisy level counts; rare levels merged, "
            f"{sum(compression.sizes)} levels remain"
        )
        data_sizes, sizes = sizes, compression.sizes
        cliques = []
        if d > 1:
            model = estimate(measurements, sizes, n, iterations=self.iterations, tol=self.tol)
            pairs = list(itertools.combinations(range(d), 2))
            # Pass 2 over the data: every pair's table of the compressed codes (the
            # compression is post-processing of the 1-way release).
            answers = _float_tables(
                data.reduce(_CountTables(data_sizes, pairs, compression, data.count_column))
            )
            self._log(f"counted the tables of the {len(pairs)} pairs of columns (pass 2)")
            # L1 error of the independent model on each pair: sensitivity 2 (replace-one).
            scores = np.array([np.abs(n * model.marginal(p) - answers[p]).sum() for p in pairs])
            component = list(range(d))
            rho_select = rho / (3 * (d - 1))
            for _ in range(d - 1):
                open_ = [k for k, (a, b) in enumerate(pairs) if component[a] != component[b]]
                k = open_[
                    report.release_choice(
                        "spanning-tree edge", scores[open_], _TABLE_L1, rho_select, rng
                    )
                ]
                a, b = pairs[k]
                old, new = component[b], component[a]
                component = [new if c == old else c for c in component]
                cliques.append(pairs[k])
            self._log(f"chose {len(cliques)} pairs of columns that link every column (a tree)")
            for c in cliques:
                measurements += self._measure(answers[c], c, rho / (3 * (d - 1)), report, rng)
            self._log("released the noisy tables of the chosen pairs")
        model = estimate(measurements, sizes, n, iterations=self.iterations, tol=self.tol)
        self._log("fitted the model to every released table")
        return model, cliques, compression

    def _candidates(self, d, names=None):
        """AIM's candidates of ``workload`` (capped at ``max_degree`` columns, columns
        named by ``names``) and their weights, divided by their greatest common divisor
        (real weights: by the largest; the exponential mechanism is unchanged: scores and
        their sensitivity scale together).  Public."""
        workload, cap = self.workload, self.max_degree
        if workload is None:  # all max_degree-way marginals: weights ∝ |r|
            cap = (3 if d <= 20 else 2) if cap == "auto" else cap
            workload = cap
        weights = None
        if isinstance(workload, Integral) and not isinstance(workload, bool):
            sets = list(itertools.combinations(range(d), min(workload, d)))
        else:
            sets, weights = weighted_column_sets(workload, names, d)
        cap = d if cap == "auto" else min(cap, d)
        pairs = sum(math.comb(len(s), k) for s in sets for k in range(1, min(len(s), cap) + 1))
        if pairs > _MAX_CLOSURE:
            raise ValueError(
                f"workload={self.workload!r} with max_degree={self.max_degree!r} gives "
                f"{pairs:,} subsets of its sets to enumerate as candidates, above "
                f"{_MAX_CLOSURE:,}; lower max_degree or use smaller sets."
            )
        weight = workload_closure(sets, cap, weights)
        if not all(isinstance(w, int) for w in weight.values()):  # the largest scaled to 1
            top = max(weight.values())
            return {r: w / top for r, w in weight.items()}
        g = math.gcd(*weight.values())
        return {r: w // g for r, w in weight.items()}

    def _fit_adaptive(self, data, sizes, numeric, one_way, rho, report, rng, weight):
        """AIM (McKenna et al. 2022, Alg. 2) with replace-one sensitivities; ``weight``:
        the candidates with their weights (:meth:`_candidates`)."""
        n, d = data.n_samples, len(sizes)
        alpha = 0.9  # share of each round's budget spent on measuring
        rounds = 16 * d
        # A first 1-way release at AIM's split (the d tables together get d times a
        # round's ρ: dρ_1 with ρ_1 = α(ρ − dρ_1)/rounds), then the share of the 1-way
        # tables from n, ρ and the compressed sizes (post-processing of the releases
        # so far) of the candidate pairs (of the smallest candidates when the workload
        # has none): skprivsynth/_math/budget.py.  A larger share keeps more levels,
        # which lowers the share's margin: the 1-way tables are topped up (combined
        # with the earlier releases) until the share no longer grows.  Every release
        # splits its ρ over the tables by their declared sizes (``one_way_split``).
        floor = alpha / (rounds / d + alpha)
        split = one_way_split(sizes, n, rho)
        pairs = _margin_pairs(weight, numeric)
        numeric_pair = any(len(c) == 2 and min(numeric[a] for a in c) > 1 for c in weight)
        # Where the margin gives MST's third or no rounds, the 1-way tables stop at the
        # third and the data decide whether the rounds pay (``_rounds_pay``); not where a
        # numeric pair sets the share (its groups are sized to the rounds' noise).
        cap = MST_SHARE if any(len(c) == 2 for c in weight) else 1.0
        share, target, released = 0.0, floor, None
        for _ in range(_SHARE_STEPS):
            released = self._measure_one_way(
                one_way, (target - share) * rho * split, report, rng, earlier=released
            )
            share = target
            # Replace-one: a measurement with std σ costs ρ = Δ²/(2σ²) = 1/σ².
            sigma = math.sqrt(rounds / (alpha * (1 - share) * rho)) if share < 1 else 0.0
            compression, measurements = self._compress(*released, numeric, n, sigma)
            # A column compressed to one code counts at its declared size: at this
            # share its table would be its partner's 1-way table (nothing to measure),
            # and a larger share may keep its levels.
            margin_sizes = [
                k if k > 1 else size for k, size in zip(compression.sizes, sizes, strict=True)
            ]
            cells = [math.prod(margin_sizes[a] for a in c) for c in pairs]
            rule = one_way_share(n, d, rho, cells, floor, numeric_pair)
            test = cap < 1 and (rule == 1 or (rule == MST_SHARE and not numeric_pair))
            target = cap if test else rule
            if target <= share:
                break
        used = share * rho
        data_sizes, sizes = sizes, compression.sizes
        # A candidate whose own table exceeds max_model_size cells can never be selected
        # (every clique of the model stays within it): not counted.  Public sizes.
        candidates = [c for c in weight if math.prod(sizes[a] for a in c) <= self.max_model_size]
        answers = None
        if share < 1:  # the rounds, or the test, start from the independent model
            model = estimate(measurements, sizes, n, iterations=self.iterations, tol=self.tol)
        if share < 1 and test:
            answers, rho_test = self._rounds_pay(
                data, data_sizes, candidates, compression, released, model, rho, report, rng
            )
            used += rho_test
            if answers is None:  # the rest of ρ on the 1-way tables
                released = self._measure_one_way(
                    one_way, (rho - used) * split, report, rng, earlier=released
                )
                share, used = 1.0, rho
                compression, measurements = self._compress(*released, numeric, n, 0.0)
        self._log(
            f"released each column's noisy level counts with {share:.0%} of the budget; "
            f"rare levels merged, {sum(compression.sizes)} levels remain"
        )
        if share == 1:
            # No marginal would stand above its noise: the independent model.
            self._log(
                "no table of several columns is measured: at this number of rows and "
                "epsilon their noise would outweigh what they add, so the columns come "
                "out independent (a larger epsilon or more rows would measure pairs)"
            )
            model = estimate(
                measurements, compression.sizes, n, iterations=self.iterations, tol=self.tol
            )
            return model, [], compression
        sigma = math.sqrt(rounds / (alpha * (rho - used)))
        eps = math.sqrt(8 * (1 - alpha) * (rho - used) / rounds)
        if answers is None:
            answers = self._count_candidates(data, data_sizes, candidates, compression)
        # Score of r: w_r·(‖n·M_r − Y_r‖₁ − bias·cells), M_r the model's marginal (fitted
        # to earlier releases) and bias public.  Replace-one moves the count table Y_r by
        # at most 2 in L1 (_TABLE_L1), hence the score by at most 2·w_r (triangle
        # inequality): sensitivity 2·max_r w_r over the candidates scored (AIM's
        # Δ = max_r w_r, McKenna et al. 2022, Sect. 4, here for replace-one).  A weight
        # thus tilts the choice towards its candidates without changing the selection's
        # ρ = ε²/8; the measurements' ρ does not depend on the weights.  The weights
        # follow from the public workload: no privacy cost changes with it.
        score_sensitivity = _TABLE_L1 * max(weight[c] for c in candidates)
        cliques = []
        last = False
        while not last:
            remaining = rho - used
            last = remaining < 2 * (1 / sigma**2 + eps**2 / 8)
            if last:  # spend exactly what remains: α·remaining + (1 − α)·remaining
                sigma = math.sqrt(1 / (alpha * remaining))
                eps = math.sqrt(8 * (1 - alpha) * remaining)
            used += 1 / sigma**2 + eps**2 / 8
            limit = self.max_model_size * min(used / rho, 1.0)
            current = [m.attrs for m in measurements]
            allowed = [
                c
                for c in candidates
                if model.host(c) is not None or model_size(current + [c], sizes) <= limit
            ]
            bias = math.sqrt(2 / math.pi) * sigma
            scores = np.array(
                [
                    weight[c] * (np.abs(n * mu - answers[c]).sum() - bias * answers[c].size)
                    for c, mu in zip(allowed, model.marginals_of(allowed), strict=True)
                ]
            )
            chosen = allowed[
                report.release_choice(
                    "marginal selection", scores, score_sensitivity, eps**2 / 8, rng
                )
            ]
            before = n * model.marginal(chosen)
            measurements += self._measure(answers[chosen], chosen, 1 / sigma**2, report, rng)
            cliques.append(chosen)
            model = self._refit(measurements, sizes, n, model, self.iterations // 5 or 1)
            # Annealing test on the re-fitted model (post-processing of the releases):
            # the model barely moved, so measure finer; but not into a round that would
            # be the last (less than twice its cost left): the rounds go on at this noise.
            finer = 4 * (1 / sigma**2 + eps**2 / 8)
            moved = np.abs(n * model.marginal(chosen) - before).sum()
            if moved <= bias * before.size and rho - used >= 2 * finer:
                sigma, eps = sigma / 2, eps * 2
            self._log(
                f"round {len(cliques)}: measured the table of {self._columns_text(chosen)}, "
                f"{min(used / rho, 1.0):.0%} of the budget spent"
            )
        model = self._refit(measurements, sizes, n, model, self.iterations)
        self._log("fitted the model to every released table")
        return model, cliques, compression

    def _rounds_pay(
        self, data, data_sizes, candidates, compression, released, model, rho, report, rng
    ):
        """Where the pairs' margin gives MST's third or no rounds: a noisy test of whether
        the rounds pay.

        ``k = d − 1`` rounds (a spanning tree's worth) measuring pairs with what is left
        of ρ would gain :func:`~skprivsynth._math.budget.rounds_gain` on them; the rest
        of ρ on the 1-way tables instead would lower the pairs' error
        (:func:`~skprivsynth._math.budget.pairs_error`, on the declared levels): that is
        the rounds' cost.  The gain, of L2 sensitivity ``2k``, is released with one of
        AIM's planned rounds' ρ (``ρ/16d``) and the rounds run when it exceeds the cost.
        The cost counts what the rounds give back to the 1-way tables: each column is
        re-measured ``2k/d`` times, with the precision the median pair's measurement
        gives its 1-way residuals — on the levels that are codes of their own.  A level
        merged with others keeps the split of its code from this release: the rounds
        measure codes and never refine it.  Where even pairs at total variation 1 from
        independence (``dᵣ = 2n``) would not clear the cost by three deviations of the
        gain's noise, no test is spent.  Returns the candidates' tables (pass 2) when the
        rounds run, else ``None``; and the ρ spent.
        """
        n, d, sizes = data.n_samples, len(data_sizes), compression.sizes
        pairs = [c for c in candidates if len(c) == 2 and sizes[c[0]] * sizes[c[1]] > 1]
        if not pairs:
            return None, 0.0
        rho_test, used = rho / (16 * d), report.rho
        k = min(d - 1, len(pairs))
        cells = [sizes[a] * sizes[b] for a, b in pairs]
        # Replace-one: k rounds measuring at ρ_r = 0.9(ρ − used − ρ_test)/k have σ = 1/√ρ_r.
        rho_round = 0.9 * (rho - used - rho_test) / k
        sigma = 1 / math.sqrt(rho_round)
        # Each 1-way table's precision (1/σ² a cell, rows) now, with the rest of ρ, and
        # kept with the rounds (and their re-measurements).
        now = np.asarray(released[1]) ** -2.0
        rest = now * (rho - rho_test) / used
        a, b = pairs[int(np.argsort(cells)[len(cells) // 2])]
        per_round = _one_way_precision(sizes[a], sizes[b], self.measurement) * rho_round
        kept = now + 2 * k / d * per_round
        # On the declared levels: the rounds measure the compressed codes, so a level
        # merged with others keeps the split of its code from this release (``now``).
        # Splitting a code's count errs on a level by about its count at most: a merged
        # level's noise is capped there (with the rest of ρ too).
        levels = [compression.frequencies(j, model.marginal((j,))) for j in range(d)]
        single = [np.bincount(encode)[encode] == 1 for encode in compression.encode]
        level_pairs = [c for c in candidates if len(c) == 2]

        def error(single_precision, merged_precision):
            noise = [
                np.where(
                    s, single_precision[j] ** -0.5, np.minimum(merged_precision[j] ** -0.5, n * p)
                )
                for j, (s, p) in enumerate(zip(single, levels, strict=True))
            ]
            return pairs_error(levels, noise, level_pairs)

        cost = error(kept, now) - error(rest, rest)
        # The test is spent only where pairs at total variation 1 from independence
        # (dᵣ = 2n) would clear the cost by three deviations of its noise: below, its
        # release tells the noise more than the data.
        sigma_gain = gaussian_sigma_for_rho(_TABLE_L1 * k, rho_test)
        if rounds_gain(np.full(len(pairs), 2.0 * n), cells, sigma, k) <= cost + 3 * sigma_gain:
            return None, 0.0
        answers = self._count_candidates(data, data_sizes, candidates, compression)
        deviations = [np.abs(answers[c] - n * model.marginal(c)).sum() for c in pairs]
        gain = report.release_gaussian(
            "gain of the rounds on the pairs",
            np.array([rounds_gain(deviations, cells, sigma, k)]),
            _TABLE_L1 * k,
            rho_test,
            rng,
            self.noise,
        )[0]
        self._log(
            "measuring tables of several columns pays at this number of rows and epsilon: "
            "selection rounds follow"
            if gain > cost
            else "measuring tables of several columns does not pay at this number of rows "
            "and epsilon: the rest of the budget goes to each column's own counts"
        )
        return (answers if gain > cost else None), rho_test

    def _count_candidates(self, data, data_sizes, candidates, compression):
        """Pass 2 over the data: every candidate's table of the compressed codes (the
        compression is post-processing of the 1-way release)."""
        answers = _float_tables(
            data.reduce(_CountTables(data_sizes, candidates, compression, data.count_column))
        )
        self._log(
            f"counted the {len(candidates)} candidate tables of several columns "
            "(pass 2 over the data)"
        )
        return answers

    def _refit(self, measurements, sizes, n, model, iterations):
        """The model fitted to ``measurements`` from ``model`` and its last step size:
        at most ``iterations`` steps, to ``tol`` nats."""
        return estimate(
            measurements,
            sizes,
            n,
            iterations=iterations,
            warm_start=model,
            step_size=model.step_size,
            tol=self.tol,
        )

    # ----------------------------------------------------------------- sampling

    def _sample(self, n_samples, rng, rounding):
        """Integer codes drawn from the fitted model, rare codes decoded; of
        ``n_samples`` people in a person-level fit."""
        if self._person_columns is not None:
            return self._sample_people(n_samples, rng)[0]
        return self._compression.inverse_transform(self.model_.sample(n_samples, rng), rng)

    def _sample_people(self, n_people, rng):
        return sample_people(
            self.model_, self._compression, n_people, self._person_columns, rng,
            self.n_features_in_, self._lags,
        )  # fmt: skip

    def sample_people(self, n_people=None, random_state=None):
        """Draw synthetic people and their rows (a person-level fit).

        Each synthetic person has a number of rows drawn from the model's distribution
        of ``c`` (the rows a person keeps), the same value in every person column,
        and rows drawn from the model given their person columns and ``c``.

        Parameters
        ----------
        n_people : int, optional
            Number of people; defaults to the number of people seen in ``fit``.
        random_state : None, int or numpy.random.Generator, optional
            Seed of this draw; None continues the estimator's own stream.

        Returns
        -------
        X : ndarray of shape (n_rows, n_features_in)
            The rows, each person's contiguous.
        persons : ndarray of int, shape (n_rows,)
            The synthetic person of each row, ``0..n_people − 1``.
        """
        check_is_fitted(self)
        if self._person_columns is None:
            raise ValueError(
                "sample_people needs a person-level fit (max_rows_per_person); this "
                "estimator was fitted row-level."
            )
        n = self._sample_size(n_people)
        return self._sample_people(n, self._sampling_generator(random_state))


def _check_codes(X, sizes):
    """Integer codes within the declared sizes (the documented domain check)."""
    codes = X.astype(np.int64)
    bad = (codes != X).any(axis=0) | (codes < 0).any(axis=0)
    bad |= (codes >= np.asarray(sizes)).any(axis=0)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"column {j} of X must hold integer codes 0..{sizes[j] - 1} (its declared "
            "domain); declare the domain of every value, or encode X with a declared "
            "domain first."
        )
    return codes
