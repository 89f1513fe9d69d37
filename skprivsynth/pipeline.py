"""A :class:`~sklearn.pipeline.Pipeline` that can ``sample`` and decode.

``SynthesisPipeline([("encode", BooleanEncoder(...)), ("synth", SomeSynthesizer())])``
fits like any pipeline; :meth:`SynthesisPipeline.sample` draws records from the last
step and sends them back through ``inverse_transform`` of the earlier steps, so a
DataFrame goes in and a DataFrame with the same columns and dtypes comes out.
"""

from __future__ import annotations

import inspect

from sklearn.pipeline import Pipeline, _name_estimators
from sklearn.preprocessing import OrdinalEncoder
from sklearn.utils.validation import check_is_fitted

from ._math.sampling import sample_weighted_records
from .base import BaseSynthesizer, check_random_generator
from .preprocessing import BooleanEncoder
from .validation import check_n_samples

__all__ = ["SynthesisPipeline", "declared_code_sizes", "make_synthesis_pipeline"]


class SynthesisPipeline(Pipeline):
    """Pipeline of transformers ending in a synthesizer, with a decoding ``sample``.

    All parameters, ``fit``, ``set_params``, ``clone``, slicing and use inside
    :class:`~sklearn.model_selection.GridSearchCV` are those of
    :class:`sklearn.pipeline.Pipeline` (this subclass adds a verb, in the spirit of
    imbalanced-learn's pipeline, and changes nothing else).

    The transformers in front of the synthesizer must implement
    ``inverse_transform`` (encoders and validators of :mod:`skprivsynth` do).

    Privacy: the pipeline's privacy guarantee is the synthesizer's, *provided the
    transformers do not learn anything from the data* — declare the encoder's domain
    (``BooleanEncoder(categories=domain)``); learned domains emit
    :class:`~skprivsynth.PrivacyLeakWarning`.

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

    def fit(self, X, y=None, **params):
        """Fit the transformers, then the synthesizer on their output.

        As :meth:`sklearn.pipeline.Pipeline.fit`, except for a synthesizer whose
        ``fit`` takes the public ``domain`` of its integer-coded input (such as
        :class:`~skprivsynth.MarginalSynthesizer`): it receives the domain declared by
        the last transformer (:func:`declared_code_sizes`) unless ``domain`` is set
        on the synthesizer or passed as ``<step>__domain``.
        """
        name, final = self.steps[-1]
        wants_domain = (
            final not in (None, "passthrough")
            and "domain" in inspect.signature(final.fit).parameters
            and getattr(final, "domain", None) is None
            and f"{name}__domain" not in params
            and len(self.steps) > 1
        )
        if not wants_domain:
            return super().fit(X, y, **params)
        prefix = f"{name}__"
        head = {k: v for k, v in params.items() if not k.startswith(prefix)}
        last = {k[len(prefix) :]: v for k, v in params.items() if k.startswith(prefix)}
        Xt = self[:-1].fit_transform(X, y, **head)
        final.fit(Xt, y, domain=declared_code_sizes(self._last_transformer()), **last)
        return self

    def sample(self, n_samples=None, random_state=None):
        """Draw synthetic records from the last step and decode them.

        Parameters
        ----------
        n_samples : int, optional
            Number of records; defaults to the synthesizer's ``n_samples_fit_``.
        random_state : None, int or numpy.random.Generator, optional
            Seed of this draw: it seeds both the synthesizer's sample and the
            randomness of decoding (transformers whose ``inverse_transform`` takes a
            ``random_state``, such as the encoder's rule for invalid one-hot blocks).
            None continues the steps' own streams.

        Returns
        -------
        DataFrame or ndarray
            What the first step's ``inverse_transform`` returns (a DataFrame for
            :class:`~skprivsynth.preprocessing.BooleanEncoder`).
        """
        check_is_fitted(self)
        sample_seed = decode_seed = None
        if random_state is not None:
            sample_seed, decode_seed = check_random_generator(random_state).spawn(2)
        data = self._draw(n_samples, sample_seed)
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

        When the synthesizer's candidate records are fractional (group means, noisy
        means) and the step in front of it is a :class:`BooleanEncoder`, the records
        are drawn *without* coordinate-wise randomized rounding: the encoder's
        ``inverse_transform`` then draws one category per one-hot block with
        probabilities proportional to the block's values.  This is randomized
        rounding that respects the one-hot constraint: every 1-way marginal and
        every product of coordinates in different blocks keeps its expectation, as
        with coordinate-wise rounding (Boedihardjo, Strohmer & Vershynin,
        *Covariance's loss is privacy's gain*, Lemma 4.7), while no invalid block
        (several or no bits set) is ever produced.  Synthesizers that override
        ``sample`` (e.g. to account a sampling budget) are always called through it.
        """
        synthesizer = self[-1]
        decoder = self._last_transformer()
        if (
            isinstance(decoder, BooleanEncoder)
            and isinstance(synthesizer, BaseSynthesizer)
            and type(synthesizer).sample is BaseSynthesizer.sample
        ):
            check_is_fitted(synthesizer)
            records, weights, rounding = synthesizer._candidates()
            if rounding:
                n = check_n_samples(n_samples, synthesizer.n_samples_fit_)
                rng = synthesizer._sampling_generator(random_state)
                return sample_weighted_records(records, weights, n, rng, rounding=False)
        return synthesizer.sample(n_samples=n_samples, random_state=random_state)

    def _last_transformer(self):
        for _, step in reversed(self.steps[:-1]):
            if step is not None and step != "passthrough":
                return step
        return None


def declared_code_sizes(transformer):
    """Number of integer codes of each output column that ``transformer`` declares.

    ``BooleanEncoder(encoding="ordinal")``: its ``n_codes_``; scikit-learn's
    :class:`~sklearn.preprocessing.OrdinalEncoder` with declared ``categories``: the
    number of categories of each column.  None otherwise -- in particular for a
    domain learned from the data, whose sizes would depend on private records.
    """
    if isinstance(transformer, BooleanEncoder):
        if transformer.encoding == "ordinal" and not transformer.learned_columns_:
            return list(transformer.n_codes_)
        return None
    if isinstance(transformer, OrdinalEncoder) and not isinstance(transformer.categories, str):
        return [len(c) for c in transformer.categories_]
    return None


def make_synthesis_pipeline(*steps, memory=None, verbose=False):
    """Build a :class:`SynthesisPipeline` with step names derived from the classes.

    Like :func:`sklearn.pipeline.make_pipeline`: ``make_synthesis_pipeline(
    BooleanEncoder(), MicroaggregationSynthesizer())`` names the steps
    ``"booleanencoder"`` and ``"microaggregationsynthesizer"``, so a grid search uses
    ``{"microaggregationsynthesizer__k": [5, 10, 50]}``.
    """
    return SynthesisPipeline(_name_estimators(steps), memory=memory, verbose=verbose)
