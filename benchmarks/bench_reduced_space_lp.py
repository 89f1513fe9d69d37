"""ReducedSpaceLP on Adult: LP size and time vs m and p, and accuracy vs epsilon.

Four markdown tables on stdout:

0. The issue's target: ``m = 10^4``, all 1- and 2-way tables of ``p ≈ 100`` columns
   (Adult with ``max_bins=9``: p = 103, and random product data with p = 100), uniform
   reduced space, ``objective="linf"``; goal under 60 s on 2 cores.
1. LP size, build and solve time vs ``m`` (size of the reduced space Ω*), all 1- and
   2-way tables of Adult one-hot encoded with ``BooleanEncoder(max_bins=5)`` (p = 64).
2. The same vs ``p`` (Adult encodings with ``max_bins`` = 5, 8, 10: p = 64, 94, 111).
3. Accuracy — tvd1 / tvd2 on Adult decoded to its 14 columns (the metric of benchmarks/RESULTS.md,
   synthetic size n = 48,842) — at ε ∈ {0.5, 1, 2, 4} for the "uniform" and the
   "independent" reduced spaces and both LP objectives, next to the independent product
   of Laplace-noised 1-way marginals of the 14 columns and the encoding's own floor.
   Total privacy per row: ε-DP, replace-one neighbours (basic composition of the
   decoding frequencies and the synthesizer).

The LP is solved exactly by column generation (see ``skprivsynth.synthesizers.reduced_space``):
"master LP" columns are the records that entered, "rounds" the number of master solves.
Timings are wall-clock on a shared 2-core machine and noisy.  Run::

    python benchmarks/bench_reduced_space_lp.py            # default sizes (~10-20 min)
    python benchmarks/bench_reduced_space_lp.py --quick    # smaller sizes
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from skprivsynth._math.solvers import SolverError
from skprivsynth.datasets import load_adult
from skprivsynth.metrics import categorical_marginal_tvd
from skprivsynth.preprocessing import BooleanEncoder, private_level_frequencies
from skprivsynth.privacy import laplace_mechanism
from skprivsynth.synthesizers.reduced_space import ReducedSpaceLP

DECODE_SHARE = 0.1
TIME_LIMIT = 300.0  # seconds per fit; a fit reaching it is reported as "> 300 (time limit)"


def encode(adult, max_bins):
    encoder = BooleanEncoder(categories=adult.domain, max_bins=max_bins).fit(adult.data)
    return encoder, np.asarray(encoder.transform(adult.data), dtype=float)


def fit_row(X, **params):
    start = time.perf_counter()
    try:
        est = ReducedSpaceLP(random_state=0, time_limit=TIME_LIMIT, **params).fit(X)
    except SolverError:
        return None, f"– | – | – | – | > {TIME_LIMIT:.0f} (time limit) | –"
    total = time.perf_counter() - start
    rows, cols, nnz = est.lp_shape_
    return est, (
        f"{rows:,} x {cols:,} | {nnz:,} | {est.n_lp_rounds_} | "
        f"{est.build_time_:.1f} | {est.solve_time_:.1f} | {total:.1f}"
    )


def m_table(adult, ms, epsilon):
    encoder, X = encode(adult, 5)
    print(
        f"\n### LP size and time vs m (Adult, max_bins=5: p = {X.shape[1]}, all 1- and "
        f"2-way tables, reduced_space='independent', epsilon={epsilon})\n"
    )
    print(
        "| m | objective | master LP rows x cols | nonzeros | rounds | build+pricing (s) "
        "| HiGHS (s) | fit total (s) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for m in ms:
        for objective in ("linf", "l1"):
            _, row = fit_row(
                X, epsilon=epsilon, m=m, objective=objective, reduced_space="independent"
            )
            print(f"| {m:,} | {objective} | {row} |", flush=True)


def p_table(adult, bins, m_for_p, epsilon):
    print(
        f"\n### LP size and time vs p (m = {m_for_p:,}, all 1- and 2-way tables, "
        f"reduced_space='independent', epsilon={epsilon})\n"
    )
    print(
        "| max_bins | p | queries | objective | master LP rows x cols | nonzeros | rounds "
        "| build+pricing (s) | HiGHS (s) | fit total (s) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for b in bins:
        encoder, X = encode(adult, b)
        p = X.shape[1]
        n_queries = 1 + 2 * p + 4 * (p * (p - 1) // 2)
        for objective in ("linf", "l1"):
            _, row = fit_row(
                X, epsilon=epsilon, m=m_for_p, objective=objective, reduced_space="independent"
            )
            print(f"| {b} | {p} | {n_queries:,} | {objective} | {row} |", flush=True)


def target_table(adult, m, epsilon):
    """Issue target: m = 10^4, all 1- and 2-way tables of p ~ 100 within 60 s."""
    encoder, X_adult = encode(adult, 9)
    rng = np.random.default_rng(0)
    X_synth = (rng.random((len(X_adult), 100)) < rng.random(100)).astype(float)
    print(
        f"\n### Target: m = {m:,}, all 1- and 2-way tables, p ~ 100, reduced_space="
        f"'uniform', objective='linf', epsilon={epsilon} (goal: < 60 s)\n"
    )
    print(
        "| data | p | master LP rows x cols | nonzeros | rounds | build+pricing (s) "
        "| HiGHS (s) | fit total (s) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name, X in (("Adult, max_bins=9", X_adult), ("random product", X_synth)):
        _, row = fit_row(X, epsilon=epsilon, m=m, objective="linf", reduced_space="uniform")
        print(f"| {name} | {X.shape[1]} | {row} |", flush=True)


def independent_laplace(adult, epsilon, n, rng):
    """Product of Laplace-noised 1-way histograms of the 14 columns (replace-one:
    one row moves 2 counts per histogram, so the L1 sensitivity is 2 * 14 / n)."""
    data = adult.data
    hists = [np.bincount(data[c], minlength=k) / len(data) for c, k in adult.domain.items()]
    noisy, _ = laplace_mechanism(np.concatenate(hists), 2 * len(hists) / len(data), epsilon, rng)
    out, start = {}, 0
    for (c, k), h in zip(adult.domain.items(), hists, strict=True):
        p = np.clip(noisy[start : start + len(h)], 0, None)
        start += len(h)
        p = p / p.sum() if p.sum() > 0 else np.full(k, 1 / k)
        out[c] = rng.choice(k, size=n, p=p)
    return pd.DataFrame(out)


def tvd(adult, synth):
    return [
        categorical_marginal_tvd(adult.data, synth, degree=d, domain=adult.domain) for d in (1, 2)
    ]


def accuracy_table(adult, max_bins, m, epsilons):
    """tvd1/tvd2 vs epsilon.  As in ``bench_adult.py``: coarsened columns are decoded in
    proportion to level frequencies released with 10 % of the budget
    (``private_level_frequencies``); ReducedSpaceLP gets the other 90 %."""
    data, domain, n = adult.data, adult.domain, len(adult.data)
    exact = {c: np.bincount(data[c], minlength=k) / n for c, k in domain.items()}
    floor_encoder = BooleanEncoder(
        categories=domain, max_bins=max_bins, level_weights=exact, random_state=0
    ).fit(data)
    X = np.asarray(floor_encoder.transform(data), dtype=float)
    print(
        f"\n### Accuracy on Adult (BooleanEncoder max_bins={max_bins}: p = {X.shape[1]}, "
        f"all 1- and 2-way tables, m = {m:,}; decoded to the 14 columns, n = {n:,} "
        "synthetic rows; 10 % of epsilon for the decoding level frequencies)\n"
    )
    print("| method | epsilon | tvd1 | tvd2 | positive weights | fit (s) |")
    print("|---|---|---|---|---|---|")
    t1, t2 = tvd(adult, floor_encoder.inverse_transform(X))
    print(
        f"| encoding floor: decode(encode(real data)), exact level weights, no privacy | – "
        f"| {t1:.3f} | {t2:.3f} | – | – |",
        flush=True,
    )
    for eps in epsilons:
        rng = np.random.default_rng(0)
        t1, t2 = tvd(adult, independent_laplace(adult, eps, n, rng))
        print(
            f"| independent Laplace 1-way (14 columns) | {eps} | {t1:.3f} | {t2:.3f} | – | 0.0 |",
            flush=True,
        )
        weights = private_level_frequencies(data, domain, DECODE_SHARE * eps, random_state=0)
        encoder = BooleanEncoder(
            categories=domain, max_bins=max_bins, level_weights=weights, random_state=0
        ).fit(data)
        Xe = np.asarray(encoder.transform(data), dtype=float)
        for space in ("uniform", "independent"):
            for objective in ("linf", "l1"):
                start = time.perf_counter()
                est = ReducedSpaceLP(
                    epsilon=(1 - DECODE_SHARE) * eps,
                    m=m,
                    reduced_space=space,
                    objective=objective,
                    random_state=0,
                ).fit(Xe)
                fit = time.perf_counter() - start
                synth = encoder.inverse_transform(est.sample(n, random_state=1))
                t1, t2 = tvd(adult, synth)
                print(
                    f"| ReducedSpaceLP {space}, {objective} | {eps} | {t1:.3f} | {t2:.3f} | "
                    f"{int((est.weights_ > 0).sum())} | {fit:.1f} |",
                    flush=True,
                )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    parser.add_argument("--skip-m", action="store_true", help="skip the table vs m")
    parser.add_argument("--skip-p", action="store_true", help="skip the table vs p")
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--skip-target", action="store_true", help="skip the 60 s target")
    args = parser.parse_args()
    adult = load_adult()
    if args.quick:
        ms, bins, m_for_p, acc_m = [1_000, 3_000], [5, 8], 2_000, 2_000
    else:
        ms, bins, m_for_p, acc_m = [1_000, 10_000, 100_000], [5, 8, 10], 10_000, 2_000
    if not args.skip_target:
        target_table(adult, 10_000, epsilon=1.0)
    if not args.skip_m:
        m_table(adult, ms, epsilon=1.0)
    if not args.skip_p:
        p_table(adult, bins, m_for_p, epsilon=1.0)
    if not args.skip_accuracy:
        accuracy_table(adult, 5, acc_m, [0.5, 1.0, 2.0, 4.0])


if __name__ == "__main__":
    main()
