"""Ablation of MarginalSynthesizer's budget plan (skprivsynth/_math/budget.py).

Run:  python benchmarks/bench_budget.py [--tables mexico ofp adult ...] [--epsilon 0.5 1]
                                        [--seeds 0 1] [--rows N]
                                        [--variants independent fixed default
                                         share:1/3 plan:3 tol=1 ...]

Variants (everything else at the defaults):

``default``
    The defaults (budget.one_way_share): with ``M`` the median candidate pair's margin
    over its noise, the 1-way tables get all of ρ at ``M ≤ 1``, MST's third up to
    ``M = 3``, then ``1/M`` down to AIM's split; at ``M ≤ 3`` a noisy test of the pairs'
    gain against the 1-way tables' gain decides whether rounds run at MST's third.
``margin-only``
    The default without that test: the margin alone decides.
``fixed``
    The plan before the plan: a third of ρ on the 1-way tables and 16 d rounds (AIM's
    number) whatever n and ρ, no test.
``plan:S``
    The default rule with ``SIGNAL = S`` (the default is √(2/π)/(2·(1/15)) ≈ 6.0).
``share:F``
    A fixed share ``F`` of ρ (e.g. ``share:1/3``, MST's third: the default before
    2026-11-26, fourth stop) on the 1-way tables where the default rule runs rounds,
    all of ρ where it does not (the margin alone deciding).  AIM spends about 1/19
    there (one round's noise per 1-way table).
``name=value``
    The default plan with ``MarginalSynthesizer(name=value)``, e.g. ``tol=1`` (each
    model fit stops once a step lowers the loss by at most 1 nat; default 0.1) or
    ``iterations=500`` (at most 500 mirror-descent steps in the final fit and 100 in
    each round's; default 1000).
``steps:K``
    Each selection round's re-fit is ``K`` mirror-descent steps from the previous
    model, whatever the loss does, then a final fit of 500 steps (the rule before
    2026-11-26 was ``steps:50``: ``iterations // 10`` steps a round).
``independent``
    The product of noisy 1-way marginals at the same ρ (bench_peers.py).

Tables: benchmarks/categorical_tables.py and Adult (its package domain).  Metric: tvd1,
tvd2, tvd3 as bench_peers.py; CPU seconds of fit + sample.  Prints one markdown table.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import categorical_tables  # noqa: E402
from bench_peers import independent_gaussian, tvd_row  # noqa: E402

import skprivsynth.synthesizers.marginal as marginal  # noqa: E402
from skprivsynth import MarginalSynthesizer  # noqa: E402
from skprivsynth._math import budget  # noqa: E402
from skprivsynth.datasets import load_adult  # noqa: E402

SHARE, SIGNAL = marginal.one_way_share, budget.SIGNAL
REFIT = MarginalSynthesizer._refit
ROUNDS_PAY = MarginalSynthesizer._rounds_pay


def load(name, rows=None):
    X, sizes, columns = _load(name)
    if rows is not None and rows < len(X):
        X = X[np.random.default_rng(0).choice(len(X), rows, replace=False)]
    return X, sizes, columns


def _load(name):
    if name == "adult":
        adult = load_adult()
        sizes = [v if isinstance(v, int) else len(v) for v in adult["domain"].values()]
        return np.asarray(adult["data"]), sizes, list(adult["domain"])
    return categorical_tables.load(name)


def fixed_share(share, always_rounds=False):
    """``one_way_share`` replaced by a fixed ``share`` (all of ρ where the default gives
    no rounds, unless ``always_rounds``)."""

    def rule(n, d, rho, cells, floor, numeric_pair=False):
        rounds = always_rounds or SHARE(n, d, rho, cells, floor, numeric_pair) < 1
        return share if rounds else 1.0

    return rule


def margin_answer(rule):
    """``rule`` (a ``one_way_share``) keeping its last answer, for :func:`no_test`."""

    def recorded(*args, **kwargs):
        recorded.last = rule(*args, **kwargs)
        return recorded.last

    return recorded


def no_test(self, data, data_sizes, candidates, compression, *args):
    """``MarginalSynthesizer._rounds_pay`` replaced: the margin alone decides (rounds at
    MST's third, with the candidates' tables counted, where it is the margin's share)."""
    if marginal.one_way_share.last == 1:
        return None, 0.0
    return self._count_candidates(data, data_sizes, candidates, compression), 0.0


def run(variant, X, sizes, columns, epsilon, seed):
    if variant == "independent":
        return independent_gaussian(X, columns, sizes, epsilon, 1e-9, seed), None
    if variant in ("margin-only", "fixed") or variant.startswith("share:"):
        MarginalSynthesizer._rounds_pay = no_test
        marginal.one_way_share = margin_answer(SHARE)
    if variant == "fixed":
        marginal.one_way_share = margin_answer(fixed_share(1 / 3, always_rounds=True))
    if variant.startswith("share:"):
        numerator, _, denominator = variant.split(":")[1].partition("/")
        share = float(numerator) / float(denominator or 1)
        marginal.one_way_share = margin_answer(fixed_share(share))
    budget.SIGNAL = float(variant.split(":")[1]) if variant.startswith("plan:") else SIGNAL
    name, is_param, value = variant.partition("=")
    params = {name: float(value) if "." in value else int(value)} if is_param else {}
    if variant.startswith("steps:"):
        steps = int(variant.split(":")[1])

        def refit(self, measurements, sizes, n, model, iterations):
            final = iterations == self.iterations  # the old rule's final fit: 500 steps
            return marginal.estimate(
                measurements, sizes, n, iterations=500 if final else steps, warm_start=model
            )

        MarginalSynthesizer._refit = refit
    try:
        est = MarginalSynthesizer(epsilon, domain=sizes, random_state=seed, **params).fit(X)
        return est.sample(len(X), random_state=seed), len(est.cliques_)
    finally:
        marginal.one_way_share, budget.SIGNAL = SHARE, SIGNAL
        MarginalSynthesizer._refit, MarginalSynthesizer._rounds_pay = REFIT, ROUNDS_PAY


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["mexico", "bfi", "ofp", "hi", "adult"])
    parser.add_argument("--epsilon", nargs="+", type=float, default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    parser.add_argument("--rows", type=int, help="a row sample of each table (seed 0)")
    parser.add_argument(
        "--variants", nargs="+", default=["independent", "fixed", "share:1/3", "default"]
    )
    args = parser.parse_args(argv)
    print("| table | ε | variant | tvd1 | tvd2 | tvd3 | rounds measured | CPU s |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.tables:
        X, sizes, columns = load(name, args.rows)
        for epsilon in args.epsilon:
            for variant in args.variants:
                rows, cliques = [], []
                for seed in args.seeds:
                    start = time.process_time()
                    Y, k = run(variant, X, sizes, columns, epsilon, seed)
                    rows.append({**tvd_row(X, Y, sizes), "cpu": time.process_time() - start})
                    cliques.append(k)
                mean = {key: np.mean([r[key] for r in rows]) for key in rows[0]}
                measured = "–" if cliques[0] is None else f"{np.mean(cliques):.0f}"
                print(
                    f"| {name} | {epsilon:g} | {variant} | {mean['tvd1']:.4f} | "
                    f"{mean['tvd2']:.4f} | {mean['tvd3']:.4f} | {measured} | {mean['cpu']:.1f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
