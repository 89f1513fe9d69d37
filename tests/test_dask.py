"""Fits on Dask collections: per-partition statistics on a 2-process LocalCluster,
merged on the workers, release exactly what the in-memory fit releases."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from skprivsynth import (
    Chunks,
    CorrelatedGaussianMechanism,
    MarginalSynthesizer,
    MicroaggregationSynthesizer,
    NoisyMicroaggregation,
    PrivateSampler,
    ReducedSpaceLP,
    make_synthesis_pipeline,
)
from skprivsynth.chunks import is_chunk_source, reduce_chunks
from skprivsynth.preprocessing import BooleanEncoder

distributed = pytest.importorskip("dask.distributed")  # the optional [dask] extra
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


def _codes(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, 4))
    X[:, 1] = (X[:, 0] + rng.integers(0, 2, n)) % 4
    return X


def test_statistics_are_computed_on_the_workers(client):
    X = np.arange(40, dtype=np.int64).reshape(20, 2)

    def stat(chunk):
        from distributed import get_worker

        return {"gram": chunk.T @ chunk, "where": {get_worker().address}}

    def merge(a, b):
        return {"gram": a["gram"] + b["gram"], "where": a["where"] | b["where"]}

    result = reduce_chunks(da.from_array(X, chunks=(3, 1)), stat, merge)
    np.testing.assert_array_equal(result["gram"], X.T @ X)
    workers = result["where"]
    assert workers <= set(client.scheduler_info()["workers"]) and workers


@pytest.mark.parametrize("selection", ["mst", "adaptive"])
def test_marginal_synthesizer_on_a_cluster_is_the_in_memory_fit(client, selection):
    X = _codes()
    frame = pd.DataFrame(X, columns=list("abcd"))
    params = dict(domain=[4] * 4, selection=selection, iterations=30, random_state=5)
    expected = MarginalSynthesizer(**params).fit(X)
    for data in (da.from_array(X, chunks=(57, 2)), dd.from_pandas(frame, npartitions=3)):
        assert is_chunk_source(data)
        est = MarginalSynthesizer(**params).fit(data)
        assert est.n_samples_fit_ == len(X) and est.cliques_ == expected.cliques_
        assert str(est.privacy_report_) == str(expected.privacy_report_)
        np.testing.assert_array_equal(
            est.sample(100, random_state=1), expected.sample(100, random_state=1)
        )
    assert list(est.feature_names_in_) == list("abcd")


def test_a_mapped_dask_source_fits_like_the_mapped_array(client):
    X = _codes()
    chunks = Chunks.from_dask(da.from_array(X + 1, chunks=(100, 4))).map(_minus_one)
    params = dict(domain=[4] * 4, iterations=20, random_state=0)
    a = MarginalSynthesizer(**params).fit(X)
    b = MarginalSynthesizer(**params).fit(chunks)
    np.testing.assert_array_equal(b.sample(50, random_state=1), a.sample(50, random_state=1))


def _minus_one(chunk):
    return chunk - 1


@pytest.mark.parametrize(
    "estimator",
    [
        ReducedSpaceLP(epsilon=1.0, m=64),
        CorrelatedGaussianMechanism(epsilon=1.0),
        NoisyMicroaggregation(epsilon=2.0),
        PrivateSampler(epsilon=None, n_samples=12, m=64),
    ],
    ids=lambda est: type(est).__name__,
)
def test_every_dp_synthesizer_on_a_cluster_is_the_in_memory_fit(client, estimator):
    rng = np.random.default_rng(0)
    latent = rng.random((300, 1))
    X = (rng.random((300, 5)) < 0.2 + 0.6 * latent).astype(float)
    a = clone(estimator).set_params(random_state=3).fit(X)
    b = clone(estimator).set_params(random_state=3).fit(da.from_array(X, chunks=(70, 5)))
    assert str(b.privacy_report_) == str(a.privacy_report_)
    np.testing.assert_array_equal(b.sample(12, random_state=1), a.sample(12, random_state=1))


def test_pipeline_on_a_dask_dataframe_encodes_on_the_workers(client, adult):
    frame = adult.data.iloc[:1500].reset_index(drop=True)

    def pipeline():
        return make_synthesis_pipeline(
            BooleanEncoder(categories=adult.domain, max_bins=8, encoding="ordinal"),
            MarginalSynthesizer(epsilon=1.0, iterations=20, random_state=0),
        )

    a = pipeline().fit(frame)
    b = pipeline().fit(dd.from_pandas(frame, npartitions=3))
    pd.testing.assert_frame_equal(b.sample(100, random_state=1), a.sample(100, random_state=1))


def test_microaggregation_on_a_cluster_groups_each_partition_on_its_worker(client):
    """Global moments merged from the workers; the groups of each partition are those of
    the same chunks read one by one (exact: the moments of 0/1 data are integers)."""
    rng = np.random.default_rng(0)
    X = (rng.random((900, 6)) < 0.2 + 0.6 * rng.random((900, 1))).astype(float)
    params = dict(k=7, random_state=0)
    expected = MicroaggregationSynthesizer(**params).fit(Chunks.from_array(X, 250))
    est = MicroaggregationSynthesizer(**params).fit(da.from_array(X, chunks=(250, 6)))
    assert est.n_partitions_ == expected.n_partitions_ == 4
    for name in ("components_", "records_", "group_sizes_", "weights_", "covariance_loss_"):
        np.testing.assert_array_equal(getattr(est, name), getattr(expected, name))
    in_memory = MicroaggregationSynthesizer(**params).fit(X)
    np.testing.assert_array_equal(est.components_, in_memory.components_)
    assert est.group_sizes_.min() >= 7 and est.group_sizes_.sum() == len(X)
