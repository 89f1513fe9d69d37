"""Record the initial state of the generator of every role of a pipeline's fit and sample.

Wraps the consumers (not the seeding code), so that the record reads what each role
actually draws from: the encoder's private bins, grid points and level frequencies,
its kept decoding stream, the synthesizer's fit and its kept sampling stream, and the
sample's and the decoding's streams of ``SynthesisPipeline.sample(random_state=...)``.
"""

import skprivsynth.base
import skprivsynth.preprocessing
import skprivsynth.privacy
import skprivsynth.validation
from skprivsynth.base import BaseSynthesizer
from skprivsynth.preprocessing import BooleanEncoder
from skprivsynth.privacy import binning


def _state(rng):
    return repr(rng.bit_generator.state["state"])


def record_stream_starts(monkeypatch):
    """Patch the consumers; return ``{role: [initial state, ...]}``, filled as they run."""
    starts = {}

    def record(role, rng):
        starts.setdefault(role, []).append(_state(rng))

    def wrap_release(name, rng_index, role):
        original = getattr(binning, name)

        def wrapper(*args, **kwargs):
            record(role, args[rng_index])
            return original(*args, **kwargs)

        monkeypatch.setattr(binning, name, wrapper)

    wrap_release("privtree_bins", 2, "encoder bins")
    wrap_release("grid_points", 4, "encoder grid points")

    release_laplace = skprivsynth.privacy.PrivacyReport.release_laplace

    def laplace(self, step, values, sensitivity, epsilon, rng, *args, **kwargs):
        if step.startswith("level frequencies"):
            record("encoder level frequencies", rng)
        return release_laplace(self, step, values, sensitivity, epsilon, rng, *args, **kwargs)

    monkeypatch.setattr(skprivsynth.privacy.PrivacyReport, "release_laplace", laplace)

    fitted_state = skprivsynth.base._FitData.fitted_state

    def fit_streams(self):
        state, fit_rng = fitted_state(self)
        record("synthesizer fit", fit_rng)
        record("synthesizer sampling", state["_sample_rng"])
        return state, fit_rng

    monkeypatch.setattr(skprivsynth.base._FitData, "fitted_state", fit_streams)

    encoder_fit = BooleanEncoder.fit

    def fit(self, *args, **kwargs):
        fitted = encoder_fit(self, *args, **kwargs)
        record("encoder decoding", fitted._decode_rng)
        return fitted

    monkeypatch.setattr(BooleanEncoder, "fit", fit)

    sampling_generator = BaseSynthesizer._sampling_generator

    def sampling(self, random_state):
        rng = sampling_generator(self, random_state)
        if random_state is not None:
            record("sample", rng)
        return rng

    monkeypatch.setattr(BaseSynthesizer, "_sampling_generator", sampling)

    inverse_transform = BooleanEncoder.inverse_transform

    def decode(self, X, random_state=None):
        if random_state is not None:
            record("sample decoding", skprivsynth.validation.check_random_generator(random_state))
        return inverse_transform(self, X, random_state=random_state)

    monkeypatch.setattr(BooleanEncoder, "inverse_transform", decode)
    return starts


def assert_pairwise_different(starts, roles):
    """Every role in ``roles`` was drawn from, and no two start from the same state."""
    missing = [role for role in roles if role not in starts]
    assert not missing, f"roles never drawn from: {missing}"
    owners = {}
    for role in roles:
        for state in starts[role]:
            assert owners.setdefault(state, role) == role, (
                f"{role!r} and {owners[state]!r} start from the same state"
            )
