"""Each synthesizer of the package with its defaults, through the library's own pipeline.

Shared by bench_defaults.py (Adult, ε = 1) and bench_which.py (the categorical suite
against n and ε).  A synthesizer is built with no parameter but ``random_state`` (and,
when given, ``epsilon``) and fitted through ``make_private_pipeline(synthesizer,
domain)``: the encoding the library picks for it (ordinal codes for
MarginalSynthesizer, one-hot ``max_bins=8`` blocks for ReducedSpaceLP,
NoisyMicroaggregation and PrivateSampler, a binary code of at most 20 bits for
CorrelatedGaussianMechanism, one-hot without coarsening for the non-private
MicroaggregationSynthesizer).
"""

from __future__ import annotations

import time

import skprivsynth
from skprivsynth import make_private_pipeline

# The differentially private synthesizers, then the k-anonymous one (not DP).
DP_SYNTHESIZERS = {
    "MarginalSynthesizer": skprivsynth.MarginalSynthesizer,
    "NoisyMicroaggregation": skprivsynth.NoisyMicroaggregation,
    "ReducedSpaceLP": skprivsynth.ReducedSpaceLP,
    "PrivateSampler": skprivsynth.PrivateSampler,
    "CorrelatedGaussianMechanism": skprivsynth.CorrelatedGaussianMechanism,
}
K_ANONYMOUS_SYNTHESIZERS = {
    "MicroaggregationSynthesizer": skprivsynth.MicroaggregationSynthesizer,
}

# Share of a total budget ε spent on the level frequencies that decode coarsened
# columns (as in bench_adult.py); the synthesizer gets the rest.
DECODE_SHARE = 0.1


def default_synthesizer(name, seed, epsilon=None):
    """The synthesizer ``name`` with its defaults, seeded; ``epsilon`` when given."""
    make = {**DP_SYNTHESIZERS, **K_ANONYMOUS_SYNTHESIZERS}[name]
    return make(random_state=seed, **({} if epsilon is None else {"epsilon": epsilon}))


def default_pipeline(name, domain, seed, epsilon=None):
    """``make_private_pipeline`` around ``default_synthesizer(name, seed)``: its
    ``epsilon`` (the synthesizer's default when None) is the run's total, of which
    ``DECODE_SHARE`` decodes coarsened columns when the encoding coarsens one."""
    if epsilon is None or name in K_ANONYMOUS_SYNTHESIZERS:
        return make_private_pipeline(default_synthesizer(name, seed), domain, random_state=seed)
    return make_private_pipeline(
        default_synthesizer(name, seed, epsilon),
        domain,
        decode_share=DECODE_SHARE,
        random_state=seed,
    )


def fit_sample(pipe, data, n_samples, seed):
    """Fit ``pipe`` on ``data`` and draw ``n_samples`` rows: ``(synthetic, seconds)``."""
    start = time.perf_counter()
    pipe.fit(data)
    synthetic = pipe.sample(n_samples, random_state=seed)
    return synthetic, time.perf_counter() - start
