"""Sources of chunks and fits from merged statistics (skprivsynth.chunks)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.preprocessing import StandardScaler

from skprivsynth import (
    Chunks,
    CorrelatedGaussianMechanism,
    MarginalSynthesizer,
    NoisyMicroaggregation,
    PrivateSampler,
    ReducedSpaceLP,
    make_synthesis_pipeline,
)
from skprivsynth.chunks import add_statistics, is_chunk_source, reduce_chunks
from skprivsynth.preprocessing import BooleanEncoder


def _codes(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 4))
    X[:, 1] = (X[:, 0] + rng.integers(0, 2, n)) % 4  # a dependence worth selecting
    X[:, 3] = np.where(rng.random(n) < 0.9, 0, X[:, 3])  # rare levels to compress
    return X


# ------------------------------------------------------------------ sources


def test_from_array_gives_consecutive_slices_with_an_uneven_last_chunk():
    X = np.arange(20).reshape(10, 2)
    chunks = Chunks.from_array(X, 4)
    assert [c.shape for c in chunks] == [(4, 2), (4, 2), (2, 2)]
    np.testing.assert_array_equal(np.vstack(list(chunks)), X)  # re-iterable
    frame = pd.DataFrame(X, columns=["a", "b"])
    assert [list(c.index) for c in Chunks.from_array(frame, 6)] == [list(range(6)), [6, 7, 8, 9]]


def test_from_csv_reads_the_file_at_every_pass(tmp_path):
    path = tmp_path / "x.csv"
    frame = pd.DataFrame({"a": range(7), "b": range(7, 14)})
    frame.to_csv(path, index=False)
    chunks = Chunks.from_csv(path, chunksize=3)
    for _ in range(2):
        parts = list(chunks)
        assert [len(c) for c in parts] == [3, 3, 1]
        pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), frame)


@pytest.mark.parametrize("chunksize", [0, -1, 2.5, True])
def test_chunksize_must_be_a_positive_integer(chunksize):
    with pytest.raises((TypeError, ValueError), match="chunksize must be a positive integer"):
        Chunks.from_array(np.zeros((3, 1)), chunksize)


def test_factory_must_be_callable():
    with pytest.raises(TypeError, match="factory must be a callable"):
        Chunks([np.zeros((2, 2))])


def test_map_is_lazy_and_re_iterable():
    calls = []

    def double(c):
        calls.append(len(c))
        return 2 * c

    chunks = Chunks.from_array(np.ones((5, 1)), 2).map(double)
    assert calls == []
    assert [c.sum() for c in chunks] == [4.0, 4.0, 2.0]
    assert [c.sum() for c in chunks] == [4.0, 4.0, 2.0]
    assert calls == [2, 2, 1, 2, 2, 1]


def test_what_counts_as_a_chunk_source():
    X = np.zeros((3, 2))
    assert is_chunk_source(Chunks.from_array(X, 1))
    assert is_chunk_source(iter([X]))
    assert is_chunk_source(x for x in [X])
    assert not is_chunk_source(X)
    assert not is_chunk_source(pd.DataFrame(X))
    assert not is_chunk_source(X.tolist())


def test_reduce_chunks_adds_nested_statistics_exactly():
    X = np.arange(30, dtype=np.int64).reshape(10, 3)

    def stat(c):
        return {"n": len(c), "sums": (c.sum(axis=0), c.T @ c)}

    expected = stat(X)
    for size in (1, 3, 10):
        got = reduce_chunks(Chunks.from_array(X, size), stat)
        assert got["n"] == expected["n"]
        np.testing.assert_array_equal(got["sums"][0], expected["sums"][0])
        np.testing.assert_array_equal(got["sums"][1], expected["sums"][1])
        assert got["sums"][1].dtype == np.int64
    assert add_statistics(None, 3) == 3 and add_statistics([1, 2], [3, 4]) == [4, 6]


# ------------------------------------------------------------------ fits


@pytest.mark.parametrize("selection", ["mst", "adaptive"])
@pytest.mark.parametrize("measurement", ["independent", "correlated"])
@pytest.mark.parametrize("chunksize", [1, 7, 299, 300, 1000])
def test_marginal_synthesizer_chunked_fit_is_the_in_memory_fit(selection, measurement, chunksize):
    X = _codes()
    params = dict(
        domain=[4] * 4, selection=selection, measurement=measurement, iterations=30, random_state=3
    )
    a = MarginalSynthesizer(**params).fit(X)
    b = MarginalSynthesizer(**params).fit(Chunks.from_array(X, chunksize))
    assert b.cliques_ == a.cliques_
    assert str(b.privacy_report_) == str(a.privacy_report_)
    np.testing.assert_array_equal(b.sample(200, random_state=1), a.sample(200, random_state=1))
    np.testing.assert_array_equal(b.sample(50), a.sample(50))  # the default streams too


def test_marginal_synthesizer_reads_a_csv_in_chunks(tmp_path):
    X = _codes()
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    frame.to_csv(tmp_path / "x.csv", index=False)
    params = dict(domain=[4] * 4, iterations=30, random_state=0)
    a = MarginalSynthesizer(**params).fit(frame)
    b = MarginalSynthesizer(**params).fit(Chunks.from_csv(tmp_path / "x.csv", chunksize=64))
    assert list(b.feature_names_in_) == ["a", "b", "c", "d"]
    np.testing.assert_array_equal(b.sample(100, random_state=1), a.sample(100, random_state=1))


def test_a_one_shot_iterator_is_refused_before_any_pass_when_two_are_needed():
    reads = []

    def chunks():
        for c in np.array_split(_codes(), 3):
            reads.append(len(c))
            yield c

    est = MarginalSynthesizer(domain=[4] * 4, random_state=0)
    with pytest.raises(TypeError, match="one-shot iterator.*Chunks"):
        est.fit(chunks())
    assert reads == [100]  # only the first chunk, read for the number of columns
    assert not hasattr(est, "model_")
    # One column with MST: one pass suffices, and a one-shot iterator is enough.
    one = MarginalSynthesizer(domain=[4], selection="mst", iterations=10, random_state=0)
    one.fit(iter(np.array_split(_codes()[:, :1], 4)))
    assert one.n_samples_fit_ == 300


def test_chunks_with_other_columns_are_refused():
    X = _codes()
    chunks = Chunks(lambda: iter([X[:10], X[10:20, :3]]))
    with pytest.raises(ValueError, match="every chunk of X must have the columns of the first"):
        MarginalSynthesizer(domain=[4] * 4, random_state=0).fit(chunks)
    frames = Chunks(
        lambda: iter(
            [pd.DataFrame(X[:5], columns=list("abcd")), pd.DataFrame(X[5:], columns=list("abce"))]
        )
    )
    with pytest.raises(ValueError, match="every chunk of X must have the columns of the first"):
        MarginalSynthesizer(domain=[4] * 4, random_state=0).fit(frames)


def test_a_code_outside_the_declared_domain_in_any_chunk_is_refused_before_release():
    X = _codes()
    X[250, 2] = 4
    est = MarginalSynthesizer(domain=[4] * 4, random_state=0)
    with pytest.raises(ValueError, match="column 2 of X must hold integer codes 0..3"):
        est.fit(Chunks.from_array(X, 100))
    assert not hasattr(est, "privacy_report_")


def test_empty_chunks_are_neutral_and_an_empty_source_is_refused():
    X = _codes()
    parts = [X[:0], X[:150], X[150:150], X[150:]]
    params = dict(domain=[4] * 4, iterations=20, random_state=0)
    a = MarginalSynthesizer(**params).fit(X)
    b = MarginalSynthesizer(**params).fit(Chunks(lambda: iter(parts)))
    np.testing.assert_array_equal(b.sample(50, random_state=1), a.sample(50, random_state=1))
    with pytest.raises(ValueError, match="without any chunk"):
        MarginalSynthesizer(**params).fit(Chunks(lambda: iter([])))
    with pytest.raises(ValueError, match="no rows in any chunk"):
        MarginalSynthesizer(**params).fit(Chunks(lambda: iter([X[:0]])))


# ------------------------------------------------------------------ pipelines


def _adult_pipeline(adult, **encoder):
    params = dict(categories=adult.domain, max_bins=8, encoding="ordinal", random_state=0)
    return make_synthesis_pipeline(
        BooleanEncoder(**{**params, **encoder}),
        MarginalSynthesizer(epsilon=1.0, iterations=20, random_state=0),
    )


@pytest.mark.parametrize("level_weights", [None, "private"])
def test_pipeline_on_chunks_encodes_lazily_and_releases_the_in_memory_release(adult, level_weights):
    frame = adult.data.iloc[:2000]
    a = _adult_pipeline(adult, level_weights=level_weights).fit(frame)
    b = _adult_pipeline(adult, level_weights=level_weights).fit(Chunks.from_array(frame, 333))
    assert str(b.privacy_report_) == str(a.privacy_report_)
    pd.testing.assert_frame_equal(b.sample(100, random_state=1), a.sample(100, random_state=1))


def test_pipeline_on_chunks_needs_a_declared_domain_and_stateless_transformers(adult):
    frame = adult.data.iloc[:500]
    chunks = Chunks.from_array(frame, 100)
    partial = {k: v for k, v in adult.domain.items() if k != "age"}
    with pytest.raises(ValueError, match=r"learned from the first chunk only"):
        make_synthesis_pipeline(  # a synthesizer that may run on a learned domain
            BooleanEncoder(categories=partial),
            NoisyMicroaggregation(epsilon=1.0, random_state=0),
            allow_learned_domain=True,
        ).fit(chunks)
    with pytest.raises(TypeError, match=r"learn nothing from the data.*'standardscaler'"):
        make_synthesis_pipeline(
            BooleanEncoder(categories=adult.domain, encoding="ordinal"),
            StandardScaler(),
            MarginalSynthesizer(random_state=0),
        ).fit(chunks)


def test_pipeline_on_chunks_refuses_a_value_outside_the_declared_domain_in_a_later_chunk(adult):
    frame = adult.data.iloc[:500].copy()
    frame["age"] = frame["age"].astype(object)
    frame.loc[450, "age"] = "unheard of"
    pipe = _adult_pipeline(adult, handle_unknown="ignore", encoding="onehot")
    pipe.steps[-1] = ("reducedspacelp", ReducedSpaceLP(epsilon=1.0, m=64, random_state=0))
    with pytest.raises(ValueError, match="age"):
        pipe.fit(frame)  # in memory: the encoder's fit checks every value
    with pytest.raises(ValueError, match="age"):
        pipe.fit(Chunks.from_array(frame, 100))  # in chunks: each chunk as it is encoded


# ------------------------------------------------------------------ other synthesizers


def _boolean(n=300, p=6, seed=0):
    rng = np.random.default_rng(seed)
    latent = rng.random((n, 1))
    return (rng.random((n, p)) < 0.2 + 0.6 * latent).astype(float)


def _one_hot(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = np.zeros((n, 6))
    X[np.arange(n), rng.integers(0, 3, n)] = 1
    X[np.arange(n), 3 + rng.integers(0, 3, n)] = 1
    return X


BLOCKS = [slice(0, 3), slice(3, 6)]


@pytest.mark.parametrize(
    "params, data",
    [
        (dict(), _boolean()),
        (dict(reduced_space="uniform", workload=[(0, 1), (2,)]), _boolean()),
        (dict(feature_blocks=BLOCKS), _one_hot()),
        (dict(feature_blocks=BLOCKS, workload="tables", reduced_space="uniform"), _one_hot()),
    ],
    ids=["independent", "column-sets", "blocks", "blocks-tables"],
)
@pytest.mark.parametrize("chunksize", [1, 41, 300])
def test_reduced_space_lp_chunked_fit_is_the_in_memory_fit(params, data, chunksize):
    a = ReducedSpaceLP(epsilon=1.0, m=64, random_state=3, **params).fit(data)
    b = ReducedSpaceLP(epsilon=1.0, m=64, random_state=3, **params).fit(
        Chunks.from_array(data, chunksize)
    )
    np.testing.assert_array_equal(b.noisy_answers_, a.noisy_answers_)
    np.testing.assert_array_equal(b.weights_, a.weights_)
    np.testing.assert_array_equal(b.sample(100, random_state=1), a.sample(100, random_state=1))


@pytest.mark.parametrize(
    "params", [dict(), dict(noise="discrete"), dict(workload="conjunctions", degree=1)]
)
@pytest.mark.parametrize("chunksize", [1, 41, 300])
def test_correlated_gaussian_chunked_fit_is_the_in_memory_fit(params, chunksize):
    X = _boolean()
    a = CorrelatedGaussianMechanism(epsilon=1.0, random_state=3, **params).fit(X)
    b = CorrelatedGaussianMechanism(epsilon=1.0, random_state=3, **params).fit(
        Chunks.from_array(X, chunksize)
    )
    np.testing.assert_array_equal(b.noisy_answers_, a.noisy_answers_)
    np.testing.assert_array_equal(b.histogram_, a.histogram_)
    np.testing.assert_array_equal(b.sample(100, random_state=1), a.sample(100, random_state=1))


@pytest.mark.parametrize("params", [dict(), dict(row_l1_bound=6.0), dict(t=2, alpha=0.5)])
@pytest.mark.parametrize("chunksize", [1, 41, 300])
def test_noisy_microaggregation_chunked_fit_is_the_in_memory_fit(params, chunksize):
    X = _boolean()  # integer sums: exact in any order (no row above the bound is rescaled)
    a = NoisyMicroaggregation(epsilon=2.0, random_state=3, **params).fit(X)
    b = NoisyMicroaggregation(epsilon=2.0, random_state=3, **params).fit(
        Chunks.from_array(X, chunksize)
    )
    np.testing.assert_array_equal(b.components_, a.components_)
    np.testing.assert_array_equal(b.records_, a.records_)
    np.testing.assert_array_equal(b.weights_, a.weights_)
    np.testing.assert_array_equal(b.sample(100, random_state=1), a.sample(100, random_state=1))


def test_noisy_microaggregation_chunked_sums_of_fractional_rows_agree_to_rounding():
    # Rows rescaled onto row_l1_bound are fractional: their sums depend on the order of
    # summation in the last bits only; the Gram matrix and cell sums agree to rounding.
    from skprivsynth.synthesizers.noisy_microaggregation import _RowGram

    X = _boolean()
    gram = _RowGram(2.0)
    whole = gram(X)
    chunked = reduce_chunks(Chunks.from_array(X, 7), gram)
    np.testing.assert_allclose(chunked, whole, rtol=1e-13)
    assert not np.array_equal(np.rint(whole), whole)  # fractional indeed


@pytest.mark.parametrize("chunksize", [1, 41, 300])
def test_private_sampler_chunked_fit_is_the_in_memory_fit(chunksize):
    X = _boolean(p=5)
    params = dict(epsilon=None, n_samples=12, m=64, random_state=3)
    a = PrivateSampler(**params).fit(X)
    # One pass: a one-shot iterator is enough.
    b = PrivateSampler(**params).fit(iter(list(Chunks.from_array(X, chunksize))))
    np.testing.assert_array_equal(b.fourier_coefficients_, a.fourier_coefficients_)
    np.testing.assert_array_equal(b.weights_, a.weights_)
    assert b.max_row_frequency_ == a.max_row_frequency_
    np.testing.assert_array_equal(b.sample(random_state=1), a.sample(random_state=1))


def test_pipeline_on_a_one_shot_iterator_reads_it_once_or_refuses_before_reading(adult):
    frame = adult.data.iloc[:600]
    pipe = _adult_pipeline(adult, encoding="onehot")
    pipe.steps[-1] = ("reducedspacelp", ReducedSpaceLP(epsilon=1.0, m=64, random_state=0))
    a = clone(pipe).fit(frame)
    b = clone(pipe).fit(iter(list(Chunks.from_array(frame, 250))))  # one pass: enough
    pd.testing.assert_frame_equal(b.sample(50, random_state=1), a.sample(50, random_state=1))
    reads = []

    def chunks():
        for c in Chunks.from_array(frame, 250):
            reads.append(len(c))
            yield c

    private = _adult_pipeline(adult, encoding="onehot", level_weights="private")
    private.steps[-1] = pipe.steps[-1]
    with pytest.raises(TypeError, match="level_weights='private'.*one-shot.*Chunks"):
        private.fit(chunks())
    assert reads == [250]  # the first chunk only, read for the schema
