"""PrivateSampler: solve time and memory, the release cap on Adult, accuracy of h*.

Four markdown tables on stdout:

1. Build (reduced space, well-conditioning test, coefficients, OSQP setup/factorisation)
   and solve (HiGHS LP + OSQP QP iterations and polishing) time
   and peak memory vs ``m`` and ``p`` at ``d = 2`` (synthetic correlated data, n = 20,000).
   Each configuration runs in a fresh process; memory is that process's peak RSS.
   Configurations above ``MAX_WALSH_ENTRIES`` are listed as refused.  Table 1b repeats
   the target configuration m = 10⁴, p = 20 over three seeds.
2. Streaming the Fourier coefficients of ``n`` rows (p = 20, d = 2) from a generator of
   row blocks: time and peak extra Python/numpy memory (tracemalloc), vs ``n``.
3. ``max_samples_`` — the number of records Theorem 12.2 lets PrivateSampler release —
   vs ``n`` and ``ε`` on Adult encodings (``BooleanEncoder(categories=adult.domain,
   max_bins=b)``), at the smallest sensible reduced space ``m = 2L``.  The real Adult has
   n = 48,842; larger ``n`` are hypothetical (same p), to show how the cap scales.
4. Accuracy of the density ``h*`` itself (no sampling): mean TVD of all 1-way and 2-way
   tables of the *Boolean* columns between ``h*`` and the data, next to the uniform
   density on the same reduced space (what full shrinkage λ = 1 gives).  This is the
   upper bound of what any sample from ``h*`` could achieve.  (Points of a uniform
   reduced space are not valid one-hot rows, so the 14-column decoded metric of
   benchmarks/RESULTS.md does not apply to them.)

Timings are wall-clock on a shared 2-core machine with other jobs running: noisy.
Run::

    python benchmarks/bench_private_sampler.py            # default sizes (~3-5 min)
    python benchmarks/bench_private_sampler.py --full     # adds m = 3e4; p = 40 at m = 1e4
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import multiprocessing as mp
import resource
import time
import tracemalloc

import numpy as np

from skprivsynth._math.walsh import (
    boolean_to_signs,
    fourier_coefficients,
    n_walsh_functions,
    walsh_matrix,
    walsh_subsets,
)
from skprivsynth.datasets import load_adult
from skprivsynth.preprocessing import BooleanEncoder
from skprivsynth.synthesizers.private_sampling import (
    MAX_WALSH_ENTRIES,
    PrivateSampler,
    max_samples_bound,
)


def correlated(n, p, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.random((n, 1))
    return (rng.random((n, p)) < 0.15 + 0.7 * z).astype(np.float64)


def _timed_fit(m, p):
    X = correlated(20_000, p)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    est = PrivateSampler(m=m, random_state=0).fit(X)
    total = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    lp_time, qp_time = est.solve_time_["lp"], est.solve_time_["qp"]
    build = total - lp_time - qp_time
    return (
        m,
        p,
        est.n_walsh_functions_,
        build,
        lp_time,
        qp_time,
        total,
        peak / 1024,
        (peak - base) / 1024,
        est.qp_iterations_,
        est.shrinkage_,
        est.constraint_residual_,
        est.n_tries_,
    )


def table_solve(configs):
    print("\n### 1. Fit time and memory vs m and p (d = 2, n = 20,000 correlated rows)\n")
    print(
        "| m | p | L | m·L | build + solver setup (s) | LP (s) | QP (s) | fit total (s) "
        "| peak RSS (MB) | RSS growth in fit (MB) | draws of S | QP iters | λ* "
        "| max residual |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    ctx = mp.get_context("spawn")
    for m, p in configs:
        L = n_walsh_functions(p, 2)
        if m * L > MAX_WALSH_ENTRIES:
            print(
                f"| {m:,} | {p} | {L} | {m * L:,} | refused: m·L > MAX_WALSH_ENTRIES "
                f"= {MAX_WALSH_ENTRIES:,} | | | | | | | | | |"
            )
            continue
        with cf.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
            r = pool.submit(_timed_fit, m, p).result()
        print(
            f"| {r[0]:,} | {r[1]} | {r[2]} | {r[0] * r[2]:,} | {r[3]:.2f} | {r[4]:.2f} | "
            f"{r[5]:.2f} | {r[6]:.2f} | {r[7]:.0f} | {r[8]:.0f} | {r[12]} | {r[9]} | "
            f"{r[10]:.3f} | {r[11]:.1e} |",
            flush=True,
        )


def _target_fit(seed, m=10_000, p=20):
    X = correlated(20_000, p, seed=seed)
    start = time.perf_counter()
    est = PrivateSampler(m=m, random_state=seed).fit(X)
    return time.perf_counter() - start, est.solve_time_["lp"], est.solve_time_["qp"]


def table_target(seeds=(0, 1, 2)):
    print(
        "\n### 1b. Target: m = 10,000, p = 20, d = 2 fitted in <= 10 s (fresh process per seed)\n"
    )
    print("| seed | fit total (s) | LP (s) | QP solve (s) | <= 10 s |")
    print("|---|---|---|---|---|")
    ctx = mp.get_context("spawn")
    for seed in seeds:
        with cf.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
            total, lp, qp = pool.submit(_target_fit, seed).result()
        print(
            f"| {seed} | {total:.2f} | {lp:.2f} | {qp:.2f} | {'yes' if total <= 10 else 'NO'} |",
            flush=True,
        )


def table_streaming(ns, p=20, block=50_000):
    print(
        f"\n### 2. Streaming Fourier coefficients (p = {p}, d = 2, L = "
        f"{n_walsh_functions(p, 2)}, blocks of {block:,} rows from a generator)\n"
    )
    print("| n | time (s) | peak traced memory (MB) |")
    print("|---|---|---|")
    for n in ns:

        def blocks(n=n):
            rng = np.random.default_rng(0)
            for start in range(0, n, block):
                rows = min(block, n - start)
                yield (rng.random((rows, p)) < 0.3).astype(np.uint8)

        tracemalloc.start()
        start = time.perf_counter()
        _, n_seen = fourier_coefficients(blocks(), 2, return_n_rows=True)
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert n_seen == n
        print(f"| {n:,} | {elapsed:.2f} | {peak / 2**20:.1f} |", flush=True)


def _fit_rows(n, p, m):
    X = correlated(n, p)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    PrivateSampler(m=m, random_state=0).fit(X)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return elapsed, X.nbytes / 2**20, (peak - base) / 1024


def table_fit_rows(ns, p=20, m=1_000):
    print(f"\n### 2b. PrivateSampler.fit vs n (p = {p}, m = {m:,}, d = 2; X is float64)\n")
    print("| n | fit (s) | size of X (MB) | RSS growth in fit beyond X (MB) |")
    print("|---|---|---|---|")
    ctx = mp.get_context("spawn")
    for n in ns:
        with cf.ProcessPoolExecutor(max_workers=1, mp_context=ctx) as pool:
            elapsed, x_mb, growth = pool.submit(_fit_rows, n, p, m).result()
        print(f"| {n:,} | {elapsed:.2f} | {x_mb:.0f} | {growth:.0f} |", flush=True)


def adult_encodings(adult, bins):
    out = {}
    for b in bins:
        enc = BooleanEncoder(categories=adult.domain, max_bins=b).fit(adult.data)
        out[b] = np.asarray(enc.transform(adult.data), dtype=np.float64)
    return out


def table_budget(encodings, epsilons, ns, bounds=(0.25, 2.0)):
    print(f"\n### 3. max_samples_ on Adult encodings (d = 2, m = 2L, density_bounds = {bounds})\n")
    print(
        "Entries: the Theorem 12.2 bound k (records allowed = floor(k)).  n = 48,842 is "
        "the real Adult; larger n are hypothetical datasets of the same width.\n"
    )
    header = " | ".join(f"ε = {e:g}, n = {n:,}" for n in ns for e in epsilons)
    print(f"| max_bins | p | L | m | {header} |")
    print("|---|---|---|---|" + "---|" * (len(ns) * len(epsilons)))
    for b, X in encodings.items():
        p = X.shape[1]
        L = n_walsh_functions(p, 2)
        m = 2 * L
        cells = [
            max_samples_bound(e, n=n, m=m, p=p, degree=2, density_bounds=bounds)
            for n in ns
            for e in epsilons
        ]
        print(f"| {b} | {p} | {L} | {m:,} | " + " | ".join(f"{k:.3g}" for k in cells) + " |")


def boolean_tvd(c_a, c_b, p):
    """Mean TVD of the 1-way and 2-way Boolean tables given two coefficient vectors."""
    d1 = c_a[1 : p + 1] - c_b[1 : p + 1]
    tvd1 = np.mean(np.abs(d1)) / 2  # P(x=0) - P'(x=0) = (c - c')/2; TVD = |c - c'|/2
    i, j = np.triu_indices(p, 1)
    d2 = c_a[p + 1 :] - c_b[p + 1 :]
    tvds = np.zeros(i.size)
    for si in (1, -1):
        for sj in (1, -1):
            tvds += np.abs(si * d1[i] + sj * d1[j] + si * sj * d2) / 4
    return tvd1, float(np.mean(tvds / 2))


def table_accuracy(encodings, m_factors, deltas):
    print("\n### 4. Accuracy of the density h* (no sampling) on Adult encodings, d = 2\n")
    print(
        "Mean TVD over all 1-way / 2-way tables of the Boolean columns, h* vs the data; "
        "'uniform' is the uniform density on the same reduced space (λ = 1).\n"
    )
    print(
        "| max_bins | p | m | density_bounds | λ* | tvd1 h* | tvd2 h* | tvd1 uniform | "
        "tvd2 uniform | fit (s) | max_samples_ at ε = 1 |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for b, X in encodings.items():
        p = X.shape[1]
        L = n_walsh_functions(p, 2)
        c = fourier_coefficients(X, 2)
        for factor in m_factors:
            m = factor * L
            if m * L > MAX_WALSH_ENTRIES:
                continue
            for Delta in deltas:
                start = time.perf_counter()
                est = PrivateSampler(m=m, density_bounds=(0.25, Delta), random_state=0).fit(X)
                elapsed = time.perf_counter() - start
                W = walsh_matrix(boolean_to_signs(est.records_), walsh_subsets(p, 2))
                t1, t2 = boolean_tvd(W.T @ est.weights_, c, p)
                u1, u2 = boolean_tvd(W.mean(axis=0), c, p)
                print(
                    f"| {b} | {p} | {m:,} | (0.25, {Delta:g}) | {est.shrinkage_:.3f} | "
                    f"{t1:.3f} | {t2:.3f} | {u1:.3f} | {u2:.3f} | {elapsed:.1f} | "
                    f"{est.max_samples_} |",
                    flush=True,
                )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="add m = 3e4 and 1e5")
    args = parser.parse_args()
    configs = [
        (1_000, 10),
        (1_000, 20),
        (1_000, 30),
        (1_000, 40),
        (3_000, 20),
        (10_000, 10),
        (10_000, 20),
        (100_000, 10),
        (100_000, 40),
    ]
    if args.full:
        configs += [(10_000, 40), (30_000, 20), (100_000, 20)]
    table_solve(configs)
    table_target()
    table_streaming([100_000, 1_000_000])
    table_fit_rows([100_000, 1_000_000])
    adult = load_adult()
    encodings = adult_encodings(adult, [2, 3, 8])
    table_budget(encodings, [0.1, 1.0, 10.0], [48_842, 10**6, 10**9])
    table_accuracy({2: encodings[2]}, [2, 8], [2.0, 8.0])


if __name__ == "__main__":
    main()
