"""NoisyMicroaggregation: fit time vs n and p, and accuracy on Adult (RESULTS.md metric).

Run:  python benchmarks/bench_noisy_microaggregation.py [--seeds 2] [--quick]

Prints markdown tables to stdout:

0. the Bingham sampler (PVEC): time per draw and acceptance rate vs dimension ``q`` and
   ``‖B‖`` (random rotation of a spread spectrum; the concentrated-limit acceptance rate
   is ``≈ √(2/e)/√q``);
1. fit time (seconds) vs ``n`` (Adult rows, ``BooleanEncoder(max_bins=8)``, p = 94) and vs
   ``p`` (random Boolean data, n = 20,000), with the ``"auto"`` parameters and with
   ``t = 4`` (cost ``O(n·p² + t·p³)``);
2. accuracy on Adult at ε ∈ {0.5, 1, 2, 4}: tvd1/tvd2/tvd3 of the synthetic data decoded to
   the 14 original columns (mean total variation distance of 1-, 2- and 200 random 3-way
   tables, synthetic size n = 48,842), next to the product of Laplace-noised 1-way
   marginals at the same ε; also tvd2 of the 94-bit encoded cube ("cube tvd2", the
   expected error of the released (weights, means) before rounding).  Each ε is run
   without a declared bound (``row_l1_bound=None``: ``B = p = 94``, mean-noise scale
   ``6·94/(bε)``) and with ``row_l1_bound=14`` (every one-hot row of the 14 columns has
   exactly 14 ones — public, from the encoding: scale ``6·28/(bε)``).

Privacy accounting of the decoded rows (replace-one neighbours, basic composition), as in
``benchmarks/bench_adult.py``: 10 % of ε releases the level frequencies used to decode
the coarsened columns (``private_level_frequencies``), NoisyMicroaggregation gets 90 %.
The timings come from a shared 2-core machine and are noisy.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from skprivsynth._math.bingham import sample_bingham
from skprivsynth.datasets import load_adult
from skprivsynth.metrics import categorical_marginal_tvd, marginal_error
from skprivsynth.preprocessing import BooleanEncoder, private_level_frequencies
from skprivsynth.privacy import laplace_mechanism
from skprivsynth.synthesizers.noisy_microaggregation import NoisyMicroaggregation

DECODE_SHARE = 0.1
MAX_BINS = 8


def markdown_table(rows):
    header = list(rows[0])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(row[h]) for h in header) + " |" for row in rows]
    return "\n".join(lines)


def tvd_row(real, synthetic, domain):
    return {
        f"tvd{d}": categorical_marginal_tvd(
            real,
            synthetic,
            degree=d,
            domain=domain,
            max_marginals=200 if d == 3 else None,
            random_state=0,
        )
        for d in (1, 2, 3)
    }


def independent_laplace(data, domain, epsilon, seed):
    """Product of Laplace-noised 1-way marginals (replace-one: L1 sensitivity 2m/n)."""
    rng = np.random.default_rng(seed)
    n, m = data.shape
    histograms = [np.bincount(data[c], minlength=k) / n for c, k in domain.items()]
    noisy, _ = laplace_mechanism(np.concatenate(histograms), 2 * m / n, epsilon, rng)
    pieces = np.split(np.clip(noisy, 0, None), np.cumsum([h.size for h in histograms])[:-1])
    columns = {}
    for (c, k), w in zip(domain.items(), pieces, strict=True):
        w = w / w.sum() if w.sum() > 0 else np.full(k, 1 / k)
        columns[c] = rng.choice(k, size=n, p=w)
    return pd.DataFrame(columns)


def bingham_table(quick):
    rng = np.random.default_rng(0)
    rows = []
    for q in [50, 200] if quick else [50, 200, 500]:
        Q = np.linalg.qr(rng.standard_normal((q, q)))[0]
        for norm in (1e3, 1e6):
            B = (Q * (norm * rng.random(q) ** 2)) @ Q.T
            start = time.perf_counter()
            _, rate = sample_bingham(B, rng, size=200, return_acceptance=True)
            per_draw = (time.perf_counter() - start) / 200
            rows.append(
                {
                    "q": q,
                    "‖B‖": f"{norm:.0e}",
                    "ms per draw": round(1e3 * per_draw, 3),
                    "acceptance": round(rate, 3),
                    "√(2/e)/√q": round(float(np.sqrt(2 / np.e / q)), 3),
                }
            )
    return rows


def timing_tables(adult, quick):
    encoder = BooleanEncoder(categories=adult.domain, max_bins=MAX_BINS).fit(adult.data)
    X = np.asarray(encoder.transform(adult.data), dtype=np.float64)
    rows_n = []
    for n in [5_000, 20_000] if quick else [5_000, 10_000, 20_000, 48_842]:
        row = {"n": n, "p": X.shape[1]}
        for label, t in (("auto", "auto"), ("t=4", 4)):
            est = NoisyMicroaggregation(epsilon=1.0, t=t, random_state=0)
            start = time.perf_counter()
            est.fit(X[:n])
            row[f"fit s ({label})"] = round(time.perf_counter() - start, 3)
            row[f"cells ({label})"] = est.n_cells_
        rows_n.append(row)
    rows_p = []
    rng = np.random.default_rng(0)
    for p in [50, 200] if quick else [50, 100, 200, 400]:
        Xp = (rng.random((20_000, p)) < 0.3).astype(np.float64)
        row = {"n": 20_000, "p": p}
        for label, t in (("auto", "auto"), ("t=4", 4)):
            est = NoisyMicroaggregation(epsilon=1.0, t=t, random_state=0)
            start = time.perf_counter()
            est.fit(Xp)
            row[f"fit s ({label})"] = round(time.perf_counter() - start, 3)
        rows_p.append(row)
    return rows_n, rows_p


ROW_L1_BOUNDS = (None, 14)  # 14 = number of one-hot columns of Adult


def accuracy_table(adult, epsilons, seeds):
    data, domain = adult.data, adult.domain
    rows = []
    for epsilon, bound in ((e, bound) for e in epsilons for bound in ROW_L1_BOUNDS):
        results, baseline = [], []
        for seed in range(seeds):
            start = time.perf_counter()
            weights = private_level_frequencies(data, domain, DECODE_SHARE * epsilon, seed)
            encoder = BooleanEncoder(
                categories=domain, max_bins=MAX_BINS, level_weights=weights, random_state=seed
            ).fit(data)
            X = np.asarray(encoder.transform(data), dtype=np.float64)
            est = NoisyMicroaggregation(
                epsilon=(1 - DECODE_SHARE) * epsilon, row_l1_bound=bound, random_state=seed
            )
            est.fit(X)
            synthetic = encoder.inverse_transform(est.sample(len(data), random_state=seed))
            elapsed = time.perf_counter() - start
            cube = marginal_error(X, est.records_, degree=2, sample_weight_Y=est.weights_)
            results.append(
                {
                    **tvd_row(data, synthetic, domain),
                    "cube tvd2": cube,
                    "time s": elapsed,
                    "cells": est.n_cells_,
                    "t": est.t_,
                    "b": est.b_,
                }
            )
            baseline.append(tvd_row(data, independent_laplace(data, domain, epsilon, seed), domain))
        mean = pd.DataFrame(results).mean()
        base = pd.DataFrame(baseline).mean()
        rows.append(
            {
                "ε": epsilon,
                "row_l1_bound": bound,
                "tvd1": round(float(mean["tvd1"]), 4),
                "tvd2": round(float(mean["tvd2"]), 4),
                "tvd3": round(float(mean["tvd3"]), 4),
                "cube tvd2": round(float(mean["cube tvd2"]), 4),
                "indep. Laplace tvd1/tvd2/tvd3": " / ".join(
                    f"{base[f'tvd{d}']:.4f}" for d in (1, 2, 3)
                ),
                "t, cells, b": f"{int(mean['t'])}, {int(mean['cells'])}, {mean['b']:.0f}",
                "time s": round(float(mean["time s"]), 2),
            }
        )
        print(rows[-1], flush=True)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilons", nargs="*", type=float, default=[0.5, 1.0, 2.0, 4.0])
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="fewer sizes (CI smoke run)")
    args = parser.parse_args()
    adult = load_adult()
    rows_b = bingham_table(args.quick)
    rows_n, rows_p = timing_tables(adult, args.quick)
    accuracy = accuracy_table(adult, args.epsilons, args.seeds)
    print("\nBingham sampler (PVEC, 200 draws of a rotated diag(‖B‖·U²), U uniform)\n")
    print(markdown_table(rows_b))
    print("\nFit time vs n (Adult, BooleanEncoder(max_bins=8), ε = 1)\n")
    print(markdown_table(rows_n))
    print("\nFit time vs p (random Boolean data, n = 20,000, ε = 1)\n")
    print(markdown_table(rows_p))
    print(
        f"\nAdult accuracy, mean of {args.seeds} seed(s), synthetic n = 48,842 "
        "(replace-one neighbours; 10 % of ε for decoding weights)\n"
    )
    print(markdown_table(accuracy))


if __name__ == "__main__":
    main()
