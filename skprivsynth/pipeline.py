"""A :class:`~sklearn.pipeline.Pipeline` that can ``sample`` and decode.

``SynthesisPipeline([("encode", BooleanEncoder(...)), ("synth", SomeSynthesizer())])``
fits like any pipeline; :meth:`SynthesisPipeline.sample` draws records from the last
step and sends them back through ``inverse_transform`` of the earlier steps, so a
DataFrame goes in and a DataFrame with the same columns and dtypes comes out.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import math

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.pipeline import Pipeline, _name_estimators
from sklearn.preprocessing import FunctionTransformer, OrdinalEncoder
from sklearn.utils.validation import check_is_fitted

from ._table_checks import check_table
from .base import (
    BaseSynthesizer,
    get_synthesizer_tags,
    seed_warning_given,
    seed_warning_is_given,
    spent_before_fit,
)
from .chunks import as_chunks
from .domain import Domain, coded_domain, ranged_columns, relation_gaps
from .kinds import kind_of
from .metrics import categorical_marginal_tvd, warn_if_differentially_private
from .people import check_person_chunks, count_people, encoder_rows, person_relation
from .preprocessing import BooleanEncoder
from .privacy import PrivacyReport, remaining_cost, warn_privacy_leak
from .privacy.binning import BINNING_DELTA, binning_cost
from .validation import (
    BooleanValidator,
    UnitIntervalValidator,
    is_differentially_private,
    is_seeded,
    role_generator,
    seed_name,
)

__all__ = [
    "SynthesisPipeline",
    "declared_code_sizes",
    "declared_numeric_codes",
    "make_private_pipeline",
    "make_synthesis_pipeline",
]


class SynthesisPipeline(Pipeline):
    """Pipeline of transformers ending in a synthesizer, with a decoding ``sample``.

    Parameters, ``set_params``, ``clone``, slicing and use inside
    :class:`~sklearn.model_selection.GridSearchCV` are those of
    :class:`sklearn.pipeline.Pipeline`, in the spirit of imbalanced-learn's pipeline.
    It adds the verb :meth:`sample`, passes the public structure of the encoding to
    the synthesizer in :meth:`fit`, checks that the domain is declared, composes
    ``privacy_report_`` and scores with :meth:`score`.

    The transformers in front of the synthesizer must implement
    ``inverse_transform`` (encoders and validators of :mod:`skprivsynth` do).

    Privacy: the pipeline's privacy guarantee is the synthesizer's (composed with the
    releases of its transformers, see ``privacy_report_``), *provided the
    transformers do not learn anything from the data*: declare the encoder's domain
    (``BooleanEncoder(categories=domain)``).  By default a domain learned from the
    data in front of a differentially private synthesizer is an error raised before
    any release, naming the undeclared columns; with ``allow_learned_domain=True`` it
    emits a :class:`~skprivsynth.PrivacyLeakWarning` instead (the release is then not
    covered by the guarantee).

    Parameters
    ----------
    steps : list of (str, estimator) tuples
        As in :class:`sklearn.pipeline.Pipeline`; the last step is a synthesizer.
    transform_input, memory, verbose
        As in :class:`sklearn.pipeline.Pipeline`.
    allow_learned_domain : bool, default=False
        False (the default) refuses to fit a differentially private synthesizer behind
        transformers whose domain is (partly) learned from the data, before any
        release; True lets it proceed with a warning (the release is then not covered
        by the guarantee).
    binning_share, decode_share : float or None, default=None
        The shares of a differentially private synthesizer's ``epsilon`` that a
        :class:`~skprivsynth.preprocessing.BooleanEncoder` first step spends on the
        private bins of declared ranges (its ``binning_epsilon``) and on its decoding
        weights (``decode_epsilon``), set at each fit (``share × epsilon``); None:
        the encoder's own.  Either way the synthesizer's ``epsilon`` (and ``delta``)
        is the whole run's: its fit spends what the encoder's releases leave
        (:func:`~skprivsynth.privacy.remaining_cost`), so ``privacy_report_`` totals
        the ε given.

    Attributes
    ----------
    privacy_report_ : PrivacyReport
        For a differentially private synthesizer: its report composed with the
        releases of the transformers (private bins, ``level_weights="private"``);
        its total is the synthesizer's ``epsilon`` and ``delta``.  Absent otherwise.

    Examples
    --------
    >>> from skprivsynth import MicroaggregationSynthesizer, make_synthesis_pipeline
    >>> from skprivsynth.datasets import load_adult
    >>> from skprivsynth.preprocessing import BooleanEncoder
    >>> adult = load_adult()
    >>> pipe = make_synthesis_pipeline(
    ...     BooleanEncoder(categories=adult.domain, max_bins=8, random_state=0),
    ...     MicroaggregationSynthesizer(k=10, random_state=0),
    ... ).fit(adult.data)
    >>> synthetic = pipe.sample(5)
    >>> list(synthetic.columns) == list(adult.data.columns), synthetic.shape
    (True, (5, 14))
    """

    def __init__(self, steps, *, transform_input=None, memory=None, verbose=False,
                 allow_learned_domain=False, binning_share=None, decode_share=None):  # fmt: skip
        super().__init__(steps, transform_input=transform_input, memory=memory, verbose=verbose)
        self.allow_learned_domain = allow_learned_domain
        self.binning_share = binning_share
        self.decode_share = decode_share

    def fit(self, X, y=None, **params):
        """Fit the transformers, then the synthesizer on their output.

        As :meth:`sklearn.pipeline.Pipeline.fit`, with the public structure of the
        encoding passed on to the synthesizer, as its tags declare
        (:class:`~skprivsynth.base.SynthesizerTags`):

        - ``code_domain`` (such as :class:`~skprivsynth.MarginalSynthesizer`): ``fit``
          receives the domain of the integer codes declared by the last transformer
          (:func:`declared_code_sizes`, :func:`declared_numeric_codes`);
        - ``feature_blocks`` (such as :class:`~skprivsynth.ReducedSpaceLP`): ``fit``
          receives the one-hot blocks ``feature_blocks_`` of the last transformer;

        unless the parameter of that name is set on the synthesizer or passed as
        ``<step>__domain`` (``<step>__feature_blocks``).  For a differentially private
        synthesizer, transformers that learned a domain from the data raise
        ``ValueError`` before the synthesizer's release (see ``allow_learned_domain``).

        Behind a :class:`~skprivsynth.preprocessing.BooleanEncoder`, two checks run
        before any work.  *Identifier-like columns*, of more levels than half the
        ``n`` rows, are refused (``ValueError``) for a differentially private
        synthesizer and warned about (:class:`~skprivsynth.PrivacyLeakWarning`)
        otherwise: their tables carry no signal and their decoded levels copy real
        values.  A one-hot encoding of more than 2,048 features is refused (memory
        ``n`` x ``p`` and a fit in ``p**2``).  A declared column is counted
        in its declared domain and ``n`` is public (replace-one neighbours), so
        neither check reads a private value there; a column whose domain is learned
        from the data is counted in the data (no guarantee covers it).

        ``X`` may be a source of chunks (:class:`~skprivsynth.Chunks`, a Dask
        DataFrame, an iterator of DataFrames): the transformers must then learn
        nothing from the data (a :class:`~skprivsynth.preprocessing.BooleanEncoder`
        with the domain of every column declared, validators, a stateless
        :class:`~sklearn.preprocessing.FunctionTransformer`); they are fitted on the
        first chunk (its columns and dtypes), the encoder's private decoding weights
        (``level_weights="private"``) are counted over all chunks, and each chunk is
        encoded as the synthesizer reads it, with the fit-time rule that a value
        outside the declared domain raises.  The synthesizer gets the encoded chunks,
        and releases what it releases on the encoded data in memory.  In a person-level
        fit on chunks (``<step>__persons`` a source of chunks of the persons, read
        alongside ``X``'s), the transformers are fitted, as in memory, on one row of each
        person (:func:`~skprivsynth.people.encoder_rows`, taken from the chunks).
        """
        seeded = _seeded_releases(self)
        if seeded and not seed_warning_is_given():
            warn_privacy_leak(
                f"{' and '.join(seeded)} {'seeds a' if len(seeded) == 1 else 'seed'} "
                f"differentially private release{'' if len(seeded) == 1 else 's'} with a "
                "known seed: anyone who knows it can regenerate the privacy noise and "
                "subtract it, which voids the guarantee. Seed for tests only; leave "
                "random_state=None for a release.",
                stacklevel=3,  # warn_privacy_leak -> fit -> caller
            )
        with seed_warning_given():  # one warning for all the steps' seeded fits
            return self._fit_steps(X, y, **params)

    def _fit_steps(self, X, y, **params):
        name, final = self.steps[-1]
        if final in (None, "passthrough") or len(self.steps) == 1:
            return super().fit(X, y, **params)
        chunks = as_chunks(X)
        private = is_differentially_private(final)
        if (private and not self.allow_learned_domain) or _needs_declared_codes(final):
            schema = X if chunks is None else chunks._peek()
            self._refuse_learned_domain(_undeclared_columns(self._first_transformer(), schema))
        persons = params.get(f"{name}__persons")
        n_people = None
        if persons is not None and getattr(final, "max_rows_per_person", None) is not None:
            if chunks is not None:  # refused before anything is read
                persons = check_person_chunks(chunks, persons)
            n_people = len(count_people(persons)[0])  # public; the rows are not
        if isinstance(self._first_transformer(), BooleanEncoder):
            check_table(self._first_transformer(), X, chunks, private, n_people)
        if private:
            self._share_budget(final)
        prefix = f"{name}__"
        head = {k: v for k, v in params.items() if not k.startswith(prefix)}
        last = {k[len(prefix) :]: v for k, v in params.items() if k.startswith(prefix)}
        transformers = self[:-1]
        if n_people is not None:
            # Person-level: the transformers learn from one row of each person, so their
            # releases are person-level (the people's rows are then all encoded).
            k = final.max_rows_per_person
            seed = getattr(self._first_transformer(), "random_state", None)
            rows = encoder_rows(persons, k, seed)
            if chunks is not None:
                one_each = chunks.take(rows)
            else:
                one_each = X.iloc[rows] if hasattr(X, "iloc") else np.asarray(X)[rows]
            transformers.fit(one_each, y, **head)
            Xt = transformers.transform(X) if chunks is None else chunks.map(transformers.transform)
            for _, step in transformers.steps:
                if getattr(step, "privacy_report_", None) is not None:
                    step.privacy_report_.neighbouring_relation = person_relation(k)
        elif chunks is None:
            Xt = transformers.fit_transform(X, y, **head)
        else:
            Xt = _fit_on_chunks(transformers, chunks, y, head)
        self.steps[:-1] = transformers.steps  # the fitted clones when memory caches them
        if (private and not self.allow_learned_domain) or _needs_declared_codes(final):
            learned = [
                column
                for _, step in self.steps[:-1]
                for column in getattr(step, "learned_columns_", None) or []
            ]
            self._refuse_learned_domain(learned)
        transformer = self._last_transformer()
        tags = get_synthesizer_tags(final)
        if tags.code_domain and final.domain is None and "domain" not in last:
            last["domain"] = declared_code_sizes(transformer)
            last.setdefault("numeric_codes", declared_numeric_codes(transformer))
        blocks = getattr(transformer, "feature_blocks_", None)
        if tags.feature_blocks and final.feature_blocks is None and blocks is not None:
            last.setdefault("feature_blocks", list(blocks))
        # The synthesizer's budget is the whole run's: its fit spends what the
        # transformers' releases (private bins, decoding weights) leave of it.
        spent = self._transformers_report() if private else None
        budget = spent_before_fit(spent) if spent is not None else contextlib.nullcontext()
        with _column_names(final, transformer), budget:
            final.fit(Xt, y, **last)
        return self

    def _share_budget(self, final):
        """A first :class:`~skprivsynth.preprocessing.BooleanEncoder` set to spend its
        shares (``binning_share``, ``decode_share``) of ``final``'s epsilon (a clone:
        the step given is left as it was)."""
        shares = {"binning_epsilon": self.binning_share, "decode_epsilon": self.decode_share}
        shares = {k: float(v) for k, v in shares.items() if v is not None}
        encoder = self._first_transformer()
        epsilon = _run_epsilon(final)
        if not shares or not isinstance(encoder, BooleanEncoder) or epsilon is None:
            return
        for key, share in shares.items():
            if not 0 <= share < 1:
                raise ValueError(f"{key.split('_')[0]}_share must be in [0, 1); got {share!r}.")
        resolved = {k: share * epsilon for k, share in shares.items() if share > 0}
        index = next(i for i, (_, step) in enumerate(self.steps) if step is encoder)
        encoder = clone(encoder).set_params(**resolved)
        self.steps[index] = (self.steps[index][0], encoder)
        # Refused before any release when the encoder's releases leave the fit nothing
        # (their cost follows from the parameters and the declared ranges: public).
        planned = PrivacyReport("BooleanEncoder", zcdp_delta=BINNING_DELTA)
        if ranged_columns(encoder.categories):
            planned.add("private bins", "planned", None, None, None, "", rho=binning_cost(
                encoder.binning_epsilon).rho)  # fmt: skip
        if encoder.level_weights == "private":
            planned.add("decoding weights", "planned", None, encoder.decode_epsilon, None, "")
        remaining_cost(final._fit_cost(None, None), planned, final._zcdp_delta())

    def _transformers_report(self):
        """The releases of the fitted transformers composed (None if none)."""
        reports = [
            step.privacy_report_
            for _, step in self.steps[:-1]
            if getattr(step, "privacy_report_", None) is not None
        ]
        return reports[0].compose(*reports[1:]) if reports else None

    def _refuse_learned_domain(self, columns):
        if not columns:
            return
        name = type(self[-1]).__name__
        if _needs_declared_codes(self[-1]):  # allow_learned_domain cannot help it
            what = f"{name} models the declared codes of every column"
            way_out = (
                f"; allow_learned_domain=True does not apply to {name}, which needs the "
                "public number of levels of each column."
            )
        else:
            what = f"{name} is differentially private only over a declared domain"
            way_out = (
                ", or pass allow_learned_domain=True to the pipeline to accept a release "
                "that the guarantee does not cover."
            )
        raise ValueError(
            f"{what}, but the domain of columns {list(columns)!r} would be learned from "
            "the data. Declare them, e.g. make_private_pipeline(synthesizer, domain) or "
            "BooleanEncoder(categories={column: spec, ...}) with spec an int K (codes "
            "0..K-1), a list of levels, {'bins': [e0, ..., eB]} or {'type': 'float', "
            "'range': [lo, hi]} (see Domain for every kind; "
            "skprivsynth.draft_domain(frame) drafts one to review), or leave them out of "
            f"X{way_out}"
        )

    @property
    def privacy_report_(self):
        """The synthesizer's privacy report composed with its transformers' releases."""
        report = getattr(self.steps[-1][1], "privacy_report_", None)
        if report is None:
            raise AttributeError(
                "privacy_report_ is available only once a differentially private "
                "synthesizer is fitted."
            )
        others = [
            step.privacy_report_
            for _, step in self.steps[:-1]
            if getattr(step, "privacy_report_", None) is not None
        ]
        return report.compose(*others) if others else report

    def privacy_statement(self):
        """The guarantee of the fitted pipeline, in one line.

        The synthesizer's guarantee (its ``privacy_report_``, or the ``k`` of a
        k-anonymous synthesizer) composed with the releases of the first transformer
        (private bins of declared ranges, decoding weights).

        Returns
        -------
        str
            For instance ``"privacy: epsilon = 1.1 (1 synthesizer + 0.1 decoding
            weights), replace-one neighbours"``.
        """
        check_is_fitted(self)
        synthesizer = self[-1]
        decode_report = getattr(self._first_transformer(), "privacy_report_", None)
        report = getattr(synthesizer, "privacy_report_", None)
        if decode_report is not None:
            names = {"private bins": "private bins", "level frequencies": "decoding weights"}
            encoder = " and ".join(names.get(m, m) for m in decode_report.mechanism.split(" + "))
        if report is None:
            k = getattr(synthesizer, "k", None)
            text = f"privacy: k-anonymous microaggregation, k = {k} (not differential privacy)"
            if decode_report is not None:
                text += f"; {encoder}: epsilon = {decode_report.epsilon:.4g} (replace-one)"
            return text
        if decode_report is not None:
            total = report.compose(decode_report)
            if math.isclose(total.epsilon, report.epsilon + decode_report.epsilon):
                parts = (
                    f" ({report.epsilon:.4g} synthesizer + {decode_report.epsilon:.4g} {encoder})"
                )
            else:  # their zCDP parts compose before the conversion: less than the sum
                parts = (
                    f" (synthesizer {report.epsilon:.4g} and {encoder} {decode_report.epsilon:.4g}"
                    " alone, composed in zCDP)"
                )
        else:
            total, parts = report, ""
        text = f"privacy: epsilon = {total.epsilon:.4g}{parts}"
        delta = f", delta = {total.delta:.3g}" if total.delta else ""
        return f"{text}{delta}, {total.neighbouring_relation.split(' (')[0]} neighbours"

    def score(self, X, y=None):
        """Minus the mean total variation distance of the decoded 2-way tables.

        A sample of ``len(X)`` records (seed 0, the same for every call) is decoded
        by :meth:`sample` and compared with ``X`` over every pair of columns by
        :func:`~skprivsynth.metrics.categorical_marginal_tvd`; behind a
        :class:`~skprivsynth.preprocessing.BooleanEncoder` the columns are read in its
        fitted domain (numeric columns binned by its bin edges; columns computed from
        others, parts of a datetime column and sums, left out; a column bounded by
        another compared as its gap to it).  Greater is better,
        at most 0; it lets ``cross_val_score(pipe, X)`` run without ``scoring``.  The
        score is an exact function of ``X``: for a differentially private
        synthesizer it warns :class:`~skprivsynth.PrivacyLeakWarning`, as the marginal
        scorer does (use ``make_marginal_scorer(epsilon=...)`` for a DP score).

        Parameters
        ----------
        X : DataFrame or array-like
            Real data, in the pipeline's input space.
        y : None
            Ignored.

        Returns
        -------
        float
        """
        check_is_fitted(self)
        warn_if_differentially_private(self)
        synthetic = self.sample(len(X), random_state=0)
        real, synthetic, domain = self._scored_tables(X, synthetic)
        return -categorical_marginal_tvd(
            real, synthetic, degree=min(2, real.shape[1]), domain=domain
        )

    def _scored_tables(self, X, synthetic):
        """``(real, synthetic, domain)`` as :meth:`score` compares them: DataFrames
        with ``X``'s columns and, behind a :class:`BooleanEncoder`, its fitted domain
        with the columns computed from others left out (also used by
        ``make_marginal_scorer(space="decoded")``)."""
        real = X if isinstance(X, pd.DataFrame) else pd.DataFrame(np.asarray(X))
        if not isinstance(synthetic, pd.DataFrame):
            synthetic = pd.DataFrame(np.asarray(synthetic), columns=real.columns)
        encoder = self._first_transformer()
        domain = None
        if isinstance(encoder, BooleanEncoder):
            relations = encoder.domain_.relations
            domain = {
                label: spec
                for label, spec, k in zip(
                    real.columns, encoder.domain_.values(), encoder.n_codes_, strict=True
                )
                if k  # a function of other columns (a computed part, a sum), left out
            }
            # A column bounded by another is compared as the gap it is coded by.
            real, synthetic = (relation_gaps(t, relations)[list(domain)] for t in (real, synthetic))
        return real, synthetic, domain

    def sample(self, n_samples=None, random_state=None):
        """Draw synthetic records from the last step and decode them.

        Parameters
        ----------
        n_samples : int, optional
            Number of records; defaults to the synthesizer's ``n_samples_fit_``.
        random_state : None, int or numpy.random.Generator, optional
            Seed of this draw: it seeds the synthesizer's sample and the randomness
            of decoding (transformers whose ``inverse_transform`` takes a
            ``random_state``, such as the encoder's rule for invalid one-hot blocks),
            each with a stream of its own (``"pipeline sampling"``, ``"pipeline
            decoding"``), never one of the streams the same seed gives a fit.
            None continues the steps' own streams.

        Returns
        -------
        DataFrame or ndarray
            What the first step's ``inverse_transform`` returns (a DataFrame for
            :class:`~skprivsynth.preprocessing.BooleanEncoder`).
        """
        check_is_fitted(self)
        sample_seed = decode_seed = None
        if random_state is not None:  # streams of their own, not the steps' fit streams
            sample_seed = role_generator(random_state, "pipeline sampling")
            decode_seed = role_generator(random_state, "pipeline decoding")
        return self._decode(self._draw(n_samples, sample_seed), decode_seed)

    def sample_people(self, n_people=None, random_state=None):
        """Draw synthetic people from a person-level synthesizer and decode their rows:
        ``(rows, persons)``, ``n_people`` and ``random_state`` as ``n_samples`` and
        ``random_state`` of :meth:`sample`, ``persons`` the synthetic person of each row
        (:meth:`~skprivsynth.MarginalSynthesizer.sample_people`)."""
        check_is_fitted(self)
        seeds = (None, None)
        if random_state is not None:
            seeds = [
                role_generator(random_state, f"pipeline {r}") for r in ("sampling", "decoding")
            ]
        rows, persons = self[-1].sample_people(n_people, random_state=seeds[0])
        return self._decode(rows, seeds[1]), persons

    def _decode(self, data, decode_seed):
        """``data`` through the transformers' ``inverse_transform``, last first."""
        for _, step in reversed(self.steps[:-1]):
            if step is None or step == "passthrough":
                continue
            if "random_state" in inspect.signature(step.inverse_transform).parameters:
                data = step.inverse_transform(data, random_state=decode_seed)
            else:
                data = step.inverse_transform(data)
        return data

    def _draw(self, n_samples, random_state):
        """Sample from the last step, leaving fractional records to a one-hot decoder.

        In front of a :class:`BooleanEncoder`, a synthesizer's records are drawn through
        its sampling hook without coordinate-wise randomized rounding (candidate records
        may be fractional: group means, noisy means): the encoder's
        ``inverse_transform`` then draws one category per one-hot block with
        probabilities proportional to the block's values.  This is randomized rounding
        that respects the one-hot constraint: every 1-way marginal and every product of
        coordinates in different blocks keeps its expectation, as with coordinate-wise
        rounding (Boedihardjo, Strohmer & Vershynin, *Covariance's loss is privacy's
        gain*, Lemma 4.7), while no invalid block (several or no bits set) is ever
        produced.  Size checks and release budgets are the synthesizer's
        (``_sample_size``), as in its :meth:`sample`.
        """
        synthesizer = self[-1]
        if isinstance(self._last_transformer(), BooleanEncoder) and isinstance(
            synthesizer, BaseSynthesizer
        ):
            check_is_fitted(synthesizer)
            n = synthesizer._sample_size(n_samples)
            rng = synthesizer._sampling_generator(random_state)
            return synthesizer._sample(n, rng, rounding=False)
        return synthesizer.sample(n_samples=n_samples, random_state=random_state)

    def _first_transformer(self):
        for _, step in self.steps[:-1]:
            if step is not None and step != "passthrough":
                return step
        return None

    def _last_transformer(self):
        for _, step in reversed(self.steps[:-1]):
            if step is not None and step != "passthrough":
                return step
        return None


# Transformers that learn nothing from the data beyond the first chunk's schema (the
# BooleanEncoder is checked to have a declared domain for every column by its own fit).
_CHUNK_SAFE = (BooleanEncoder, BooleanValidator, UnitIntervalValidator, FunctionTransformer)


def _fit_on_chunks(transformers, chunks, y, params):
    """Fit ``transformers`` on a source of chunks; return the source of encoded chunks."""
    for step_name, step in transformers.steps:
        if step is None or step == "passthrough":
            continue
        if not isinstance(step, _CHUNK_SAFE):
            raise TypeError(
                f"A SynthesisPipeline fitted on a source of chunks needs transformers that "
                f"learn nothing from the data (BooleanEncoder with a declared domain, "
                f"BooleanValidator, UnitIntervalValidator, FunctionTransformer); step "
                f"{step_name!r} is a {type(step).__name__}."
            )
        if isinstance(step, BooleanEncoder) and step.level_weights == "private":
            chunks.check_reiterable(
                f"step {step_name!r} (level_weights='private') reads X, then the synthesizer"
            )
        if isinstance(step, BooleanEncoder) and ranged_columns(step.categories):
            chunks.check_reiterable(
                f"step {step_name!r} (bins chosen from declared ranges) reads X, then the "
                "synthesizer"
            )
    for step_name, step in transformers.steps:
        if step is None or step == "passthrough":
            continue
        step_params = {
            k[len(step_name) + 2 :]: v for k, v in params.items() if k.startswith(f"{step_name}__")
        }
        if isinstance(step, BooleanEncoder):
            step.fit(chunks, y, **step_params)  # every column declared, or it raises
        else:
            first = chunks._peek()
            step.fit(first, y, **step_params)
        chunks = chunks.map(_FitTimeTransform(step))
    return chunks


class _FitTimeTransform:
    """``step.transform`` of one chunk, with the fit-time rule of a BooleanEncoder: a
    value outside the declared domain raises, whatever ``handle_unknown`` (picklable,
    for Dask workers)."""

    def __init__(self, step):
        if isinstance(step, BooleanEncoder) and step.handle_unknown != "error":
            step = copy.copy(step)
            step.handle_unknown = "error"  # same output on known values
        self.step = step

    def __call__(self, chunk):
        return self.step.transform(chunk)


def declared_code_sizes(transformer):
    """Number of integer codes of each output column that ``transformer`` declares.

    ``BooleanEncoder(encoding="ordinal")``: its ``n_codes_`` of the encoded columns
    (a part of a datetime column has no code and no output column); scikit-learn's
    :class:`~sklearn.preprocessing.OrdinalEncoder` with declared ``categories``: the
    number of categories of each column.  None otherwise -- in particular for a
    domain learned from the data, whose sizes would depend on private records.
    """
    if isinstance(transformer, BooleanEncoder):
        if transformer.encoding == "ordinal" and not transformer.learned_columns_:
            return [k for k in transformer.n_codes_ if k]
        return None
    if isinstance(transformer, OrdinalEncoder) and not isinstance(transformer.categories, str):
        return [len(c) for c in transformer.categories_]
    return None


def declared_numeric_codes(transformer):
    """For each output column of ``transformer``, how many of its first codes are
    numeric bins in increasing order (0 for levels), or None.

    ``BooleanEncoder(encoding="ordinal")`` with a declared domain: the bins of its
    columns declared with bins or a range (numbers and dates; a missing level is the
    code after them), an integer range of one level per integer included (bins of one
    value: its rare top values are numbers, not unordered levels).  Public: it follows
    from the declaration.
    """
    if (
        isinstance(transformer, BooleanEncoder)
        and transformer.encoding == "ordinal"
        and not transformer.learned_columns_
    ):
        modelled, codes = transformer.modelled_parts_, transformer.n_codes_
        return [
            k - kind.missing if kind.numeric_codes and label not in modelled else 0
            for (label, spec), k in zip(transformer.domain_.items(), codes, strict=True)
            if k  # a part of a datetime column has no code and no output column
            for kind in [kind_of(spec)]
        ]
    return None


@contextlib.contextmanager
def _column_names(synthesizer, transformer):
    """The names of ``transformer``'s output columns lent to ``synthesizer`` for its
    fit (its progress lines and report labels name columns by them; public: they
    follow from the declared domain), and taken back after it."""
    names = None
    if isinstance(synthesizer, BaseSynthesizer) and hasattr(transformer, "get_feature_names_out"):
        try:
            names = [str(name) for name in transformer.get_feature_names_out()]
        except (AttributeError, TypeError, ValueError):
            names = None
    if names is None:
        yield
        return
    synthesizer._fit_column_names = names
    try:
        yield
    finally:
        del synthesizer._fit_column_names


def _needs_declared_codes(synthesizer):
    """Whether ``synthesizer`` takes the declared number of codes of each column from the
    encoder (``code_domain`` tag) and has no ``domain`` of its own: it cannot be fitted
    behind a learned domain, whatever ``allow_learned_domain`` (read from parameters)."""
    return get_synthesizer_tags(synthesizer).code_domain and synthesizer.domain is None


def _undeclared_columns(transformer, X):
    """Columns of ``X`` whose domain a :class:`BooleanEncoder` would learn from the data.

    Read from the declared parameters and the column names and dtypes of ``X`` (its
    schema, not its values), so it can be checked before anything is fitted.  Other
    transformers are checked after their fit through their ``learned_columns_``.
    """
    if isinstance(transformer, BooleanEncoder):
        categories = transformer.categories
        labels = list(X.columns) if isinstance(X, pd.DataFrame) else None
        if labels is None:
            n_columns = len(X[0]) if len(X) else 0
            labels = list(range(n_columns))
        if isinstance(categories, str):
            declared = {}
        elif isinstance(categories, list):
            if len(categories) != len(labels):
                return []  # the encoder's fit names the length mismatch
            declared = dict(zip(labels, categories, strict=True))
        else:
            declared = dict(categories.items())
        undeclared = [
            label
            for label in labels
            if declared.get(label) is None or isinstance(declared.get(label), str)
        ]
        if isinstance(X, pd.DataFrame):  # a bool dtype fixes the domain {False, True}
            undeclared = [c for c in undeclared if not pd.api.types.is_bool_dtype(X[c].dtype)]
        return undeclared
    return []


def make_synthesis_pipeline(*steps, memory=None, verbose=False, allow_learned_domain=False):
    """Build a :class:`SynthesisPipeline` with step names derived from the classes.

    Like :func:`sklearn.pipeline.make_pipeline`: ``make_synthesis_pipeline(
    BooleanEncoder(), MicroaggregationSynthesizer())`` names the steps
    ``"booleanencoder"`` and ``"microaggregationsynthesizer"``, so a grid search uses
    ``{"microaggregationsynthesizer__k": [5, 10, 50]}``.  ``allow_learned_domain``
    is the parameter of :class:`SynthesisPipeline`.
    """
    return SynthesisPipeline(
        _name_estimators(steps),
        memory=memory,
        verbose=verbose,
        allow_learned_domain=allow_learned_domain,
    )


def _run_epsilon(synthesizer):
    """The ε of the whole run a DP synthesizer states (its ``_fit_cost`` as (ε, δ)),
    or None when it depends on the data's shape (``PrivateSampler(epsilon=None)``)."""
    try:
        cost = synthesizer._fit_cost(None, None)
    except ValueError:
        return None
    return None if cost is None else float(cost.to_dp(synthesizer._zcdp_delta())[0])


def _binary_width(domain, max_bins):
    """Bits of the binary encoding of the declared ``domain`` coarsened to ``max_bins``."""
    # A declared range gets at most max_bins codes from its private bins.
    return sum(
        int(kind_of(spec).width(max_bins) - 1).bit_length()  # bits of a binary code
        for spec in domain.values()
        if not kind_of(spec).is_part  # computed from its datetime: no bits
    )


def _binary_max_bins(domain, budget):
    """Largest power of two ``max_bins`` whose binary encoding of ``domain`` fits in
    ``budget`` bits (2 if none does: the synthesizer then reports the cube's size).

    Doubling ``max_bins`` adds a bit to every coarsened column, so an unchanged width
    means that nothing is coarsened any more.
    """
    best, max_bins, previous = 2, 2, None
    while True:
        width = _binary_width(domain, max_bins)
        if width > budget or width == previous:
            return best
        best, previous = max_bins, width
        max_bins *= 2


def make_private_pipeline(
    synthesizer,
    domain,
    *,
    max_bins="auto",
    binning_share=0.25,
    decode_share=0.1,
    datetime_parts="modelled",
    allow_learned_domain=False,
    random_state=None,
):
    """A :class:`SynthesisPipeline` with the encoding that suits ``synthesizer``.

    The encoding is chosen from the synthesizer and the declared ``domain`` only
    (public quantities):

    - **encoding**: as the synthesizer's class states it: ``"ordinal"`` codes for a
      synthesizer of integer codes (:class:`~skprivsynth.MarginalSynthesizer`);
      ``"binary"`` codes for one that works on the whole cube ``{0,1}^p``
      (:class:`~skprivsynth.CorrelatedGaussianMechanism` without an explicit
      ``universe``); one-hot blocks otherwise;
    - **max_bins** (``"auto"``): for the whole cube, the largest power of two whose
      binary encoding of the declared columns has at most ``log2(max_universe)``
      bits (2 on Adult: 14 bits); 8 for the other differentially private
      synthesizers on one-hot blocks; no coarsening for integer codes and for
      non-private synthesizers;
    - **decoding of coarsened and numeric columns**: a coarsened range is decoded
      in proportion to level frequencies, and a bin to values drawn from the
      frequencies of its sub-bins, both released with ``decode_share`` of the
      synthesizer's ε (``BooleanEncoder(level_weights="private")``);
      ``decode_share=0`` decodes uniformly within a range or bin and spends nothing.
      Only declared columns with bins or with more than ``max_bins`` levels are
      released;
    - **bins of declared ranges** (``{"type": "float", "range": [lo, hi]}``, a wide
      integer or a datetime range declared without bins): chosen at fit time with
      ``binning_share`` of the synthesizer's ε (PrivTree bins and within-bin
      decoding weights, ``BooleanEncoder(binning_epsilon=...)``); the synthesizer
      then sees the released number of codes.

    The synthesizer's ``epsilon`` (and ``delta``) is the whole run's: the encoder's
    releases are shares of it, and the synthesizer's fit spends what they leave, all
    composed once (:func:`~skprivsynth.privacy.remaining_cost`); ``privacy_report_``
    shows the split.

    Parameters
    ----------
    synthesizer : estimator
        The synthesizer (last step).
    domain : dict, list, Domain or None
        The public domain of the columns (:class:`~skprivsynth.Domain` forms).  None
        declares nothing: every column is learned from the data, which is refused for
        a differentially private synthesizer unless ``allow_learned_domain=True``.
    max_bins : "auto", int or None, default="auto"
        Coarsening of the columns of levels (see above); None: none.
    binning_share : float, default=0.25
        Share in ``(0, 1)`` of the synthesizer's ε spent on the bins of the declared
        ranges (see :class:`~skprivsynth.preprocessing.BooleanEncoder`); unused
        without ranges.
    decode_share : float, default=0.1
        Share in ``[0, 1)`` of the synthesizer's ε spent on the level frequencies
        used for decoding coarsened and binned columns (0: uniform decoding).
    datetime_parts : {"computed", "modelled"}, default="modelled"
        Parts of a datetime column (``{"part_of": ..., "part": ...}``) computed from
        the decoded datetime only, or also modelled as levels, the datetime decoded
        to agree with them (see :class:`~skprivsynth.preprocessing.BooleanEncoder`).
        Decoded parts agree with their datetime either way.
    allow_learned_domain : bool, default=False
        As in :class:`SynthesisPipeline`: by default, columns missing from ``domain``
        are refused for a differentially private synthesizer, before any release.
    random_state : None, int or numpy.random.Generator, default=None
        Seeds the encoder (its releases and decoding); leave it None for a release.
        A differentially private release of the pipeline seeded by any
        ``random_state`` but None (the encoder's by this one, or the synthesizer's by
        its own) warns :class:`~skprivsynth.PrivacyLeakWarning` at ``fit``, once for
        all its steps: anyone who knows the seed can regenerate the noise and subtract
        it.

    Returns
    -------
    SynthesisPipeline

    Examples
    --------
    >>> from skprivsynth import ReducedSpaceLP, make_private_pipeline
    >>> from skprivsynth.datasets import load_adult
    >>> adult = load_adult()
    >>> pipe = make_private_pipeline(ReducedSpaceLP(epsilon=1.0, m=2000, random_state=0),
    ...                              adult.domain, random_state=0)
    >>> pipe[0].max_bins, pipe[0].level_weights
    (8, 'private')
    >>> synthetic = pipe.fit(adult.data.iloc[:5000]).sample(3, random_state=0)
    >>> round(pipe.privacy_report_.epsilon, 6)  # 0.9 synthesizer + 0.1 decoding weights
    1.0
    >>> round(pipe[-1].privacy_report_.epsilon, 6)
    0.9
    """
    declared = domain is not None
    domain = Domain({} if domain is None else domain)
    for name, share, low in (
        ("binning_share", binning_share, 0),
        ("decode_share", decode_share, 0),
    ):
        if isinstance(share, bool) or not isinstance(share, int | float) or not low <= share < 1:
            raise ValueError(f"{name} must be a number in [0, 1); got {share!r}.")
    if binning_share <= 0:
        raise ValueError(f"binning_share must be a number in (0, 1); got {binning_share!r}.")
    private = is_differentially_private(synthesizer)
    epsilon = _run_epsilon(synthesizer) if private else None
    scale = 1.0 if epsilon is None else epsilon
    tags = get_synthesizer_tags(synthesizer)
    encoding, budget = tags.encoding, tags.max_bits
    codes = encoding == "ordinal"
    encoded = coded_domain(domain)  # the codes the encoder gives each column
    if datetime_parts == "modelled":  # parts but the date are the levels they can take
        encoded = {c: kind_of(s).modelled_spec(domain) for c, s in encoded.items()}
    if isinstance(max_bins, str) and max_bins == "auto":
        if budget is not None:
            max_bins = _binary_max_bins(encoded, budget)
        else:
            max_bins = 8 if private and not codes else None
    weighted = any(
        not kind.bins_at_fit and (kind.binned or kind.width(max_bins) < kind.size)
        for kind in map(kind_of, encoded.values())
    )
    encoder = BooleanEncoder(
        categories=domain if declared else "auto",
        max_bins=max_bins,
        encoding=encoding,
        level_weights="private" if weighted and decode_share > 0 else None,
        decode_epsilon=(decode_share if decode_share > 0 else 0.1) * scale,
        binning_epsilon=binning_share * scale,
        noise=synthesizer.noise if tags.noise else "continuous",
        datetime_parts=datetime_parts,
        random_state=random_state,
    )
    pipe = make_synthesis_pipeline(encoder, synthesizer, allow_learned_domain=allow_learned_domain)
    if private:
        pipe.set_params(binning_share=binning_share, decode_share=decode_share)
    return pipe


def _seeded_releases(pipe):
    """The steps of ``pipe`` that make a differentially private release with a known seed.

    A step counts when its ``random_state`` is a seed (:func:`is_seeded`: anything
    but None) and it releases something
    under differential privacy: a differentially private synthesizer, or a
    :class:`~skprivsynth.preprocessing.BooleanEncoder` with
    ``level_weights="private"`` or declared ranges (private bins).  Read from the
    parameters only (public).

    Parameters
    ----------
    pipe : SynthesisPipeline

    Returns
    -------
    list of str
        ``"Class(random_state=seed)"`` of each such step, in pipeline order.
    """
    seeded = []
    for _, step in pipe.steps:
        if not hasattr(step, "get_params"):
            continue
        seed = step.get_params(deep=False).get("random_state")
        if not is_seeded(seed):
            continue
        releases = is_differentially_private(step) or (
            isinstance(step, BooleanEncoder)
            and (step.level_weights == "private" or bool(ranged_columns(step.categories)))
        )
        if releases:
            seeded.append(f"{type(step).__name__}(random_state={seed_name(seed)})")
    return seeded
