"""Does private tuning pay for its cost?  MarginalSynthesizer on Adult at equal total ε.

Run:  nice -n 10 python benchmarks/bench_tuning.py [--epsilon 1 2 4] [--seeds 0 1 2]
                                                    [--stop-probability 0.2] [--quick]

At each total (ε, δ = 1e-9), two releases of the bundled Adult data (48,842 rows, 14
declared columns, ordinal codes):

``default``
    ``MarginalSynthesizer`` with its default configuration, given the whole total.
``default at the per-fit ε``
    The same default configuration at the per-fit ε of the search (below): what
    selection gains over not selecting at the same per-run budget.
``selected``
    ``PrivateSelectionSearch`` over a grid of MarginalSynthesizer configurations
    (``selection`` adaptive/mst × ``max_degree`` auto/2/3 for adaptive ×
    ``measurement`` independent/correlated: 8 candidates), each run fitting one
    candidate at a per-fit ε and scoring it with a DP score (decoded mean 2-way TVD,
    ``epsilon=EPS_SCORE``).  The per-fit ε is the largest (bisection) for which the
    selection's total (Papernot & Steinke 2022, Thm. 2, geometric number of runs)
    is at most the total ε: tuning is paid for out of the same budget.

Metric: decoded mean 2-way TVD (tvd2, ``categorical_marginal_tvd``) of ``n`` released
records against the real data; mean and (min-max) over the seeds.  Each seed seeds
both releases (fits, noise of the score, number of runs and candidates drawn).
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings

import numpy as np

from skprivsynth import MarginalSynthesizer, PrivacyAccountant, make_synthesis_pipeline
from skprivsynth.accountant import fit_cost
from skprivsynth.datasets import load_adult
from skprivsynth.metrics import categorical_marginal_tvd, make_marginal_scorer
from skprivsynth.model_selection import PrivateSelectionSearch, selection_cost
from skprivsynth.preprocessing import BooleanEncoder

DELTA = 1e-9
EPS_SCORE = 0.01  # Laplace scale 1/(48842 * 0.01) = 0.002 on a tvd2 of ~0.03
GRID = [
    {
        "marginalsynthesizer__selection": ["adaptive"],
        "marginalsynthesizer__max_degree": ["auto", 2, 3],
        "marginalsynthesizer__measurement": ["independent", "correlated"],
    },
    {
        "marginalsynthesizer__selection": ["mst"],
        "marginalsynthesizer__measurement": ["independent", "correlated"],
    },
]


def pipeline(domain, epsilon, seed):
    return make_synthesis_pipeline(
        BooleanEncoder(categories=domain, encoding="ordinal"),
        MarginalSynthesizer(epsilon=epsilon, delta=DELTA, random_state=seed),
    )


def per_fit_epsilon(total, gamma, n, p):
    """Largest per-fit ε whose selection total is <= ``total`` (bisection, 40 steps)."""

    def cost(eps):
        fit = fit_cost(MarginalSynthesizer(epsilon=eps, delta=DELTA), n, p)
        return selection_cost([fit], EPS_SCORE, gamma, DELTA)["epsilon"]

    lo, hi = 1e-4, total
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cost(mid) <= total else (lo, mid)
    return lo


def tvd2(real, synthetic, domain):
    return categorical_marginal_tvd(real, synthetic, degree=2, domain=domain)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", type=float, nargs="+", default=[1.0, 2.0, 4.0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--stop-probability", type=float, default=0.2)
    parser.add_argument("--quick", action="store_true", help="one total, one seed")
    args = parser.parse_args()
    epsilons, seeds = args.epsilon, args.seeds
    if args.quick:
        epsilons, seeds = [2.0], seeds[:1]
    gamma = args.stop_probability
    adult = load_adult()
    data, domain = adult.data, adult.domain
    n, p = data.shape
    print(
        f"Adult: n = {n}, {p} columns; delta = {DELTA:g}; stop probability {gamma:g} "
        f"(mean {1 / gamma:g} runs); score epsilon {EPS_SCORE:g}; {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, numpy {np.__version__}",
        flush=True,
    )
    rows = []
    for total in epsilons:
        eps_fit = per_fit_epsilon(total, gamma, n, p)
        for seed in seeds:
            start = time.perf_counter()
            default = pipeline(domain, total, seed).fit(data)
            t_default = time.perf_counter() - start
            d_tvd = tvd2(data, default.sample(random_state=seed), domain)
            same = pipeline(domain, eps_fit, seed).fit(data)
            f_tvd = tvd2(data, same.sample(random_state=seed), domain)

            accountant = PrivacyAccountant(epsilon=total, delta=DELTA)
            search = PrivateSelectionSearch(
                pipeline(domain, eps_fit, seed),
                GRID,
                scoring=make_marginal_scorer(
                    space="decoded",
                    epsilon=EPS_SCORE,
                    noise_random_state=np.random.default_rng(seed),
                ),
                stop_probability=gamma,
                delta=DELTA,
                random_state=seed,
            )
            start = time.perf_counter()
            with accountant, warnings.catch_warnings():
                warnings.simplefilter("error")  # no leak warning may be silenced
                search.fit(data)
            t_search = time.perf_counter() - start
            s_tvd = tvd2(data, search.sample(random_state=seed), domain)
            chosen = {k.split("__")[1]: v for k, v in search.best_params_.items()}
            rows.append((total, seed, eps_fit, d_tvd, s_tvd, f_tvd, chosen))
            print(
                f"eps={total:g} seed={seed}: default tvd2 {d_tvd:.4f} ({t_default:.0f} s), "
                f"at per-fit eps {f_tvd:.4f}; "
                f"selected tvd2 {s_tvd:.4f} at per-fit eps {eps_fit:.3f}, spent "
                f"{accountant.spent:.4f} ({t_search:.0f} s), chose {chosen}",
                flush=True,
            )
    print(
        "\n| total ε | per-fit ε | default at total ε | default at per-fit ε | selected "
        "| selected − default at total |"
    )
    print("|---|---|---|---|---|---|")
    for total in epsilons:
        r = [row for row in rows if row[0] == total]
        d, s, f = (np.array([row[k] for row in r]) for k in (3, 4, 5))
        print(
            f"| {total:g} | {r[0][2]:.3f} | {_cell(d)} | {_cell(f)} | {_cell(s)} | "
            f"{(s - d).mean():+.4f} ({(s - d).min():+.4f} to {(s - d).max():+.4f}) |"
        )


def _cell(values):
    return f"{values.mean():.4f} ({values.min():.4f}–{values.max():.4f})"


if __name__ == "__main__":
    main()
