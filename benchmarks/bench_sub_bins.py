"""Within-bin decoding of the private sub-bin weights on bins of known shape.

Run:  python benchmarks/bench_sub_bins.py [--rows 2000 300] [--rho 0.002] [--draws 100]

A bin of 256 fine cells cut into 16 sub-bins, holding ``rows`` rows drawn from one of
four densities (smooth, a bump on a floor, half-empty, decaying).  Its sub-bin counts
get the Gaussian noise of ``consistent_sub_bin_weights`` at ``rho``
(σ = 1/sqrt(ρ)); the weights are decoded uniformly inside each sub-bin.  Prints the
largest gap between the decoded and the real within-bin CDF, averaged over ``draws``
draws, per shape, and the same for the naive release (noisy counts, negatives
clipped, normalised) and for a uniform bin.
"""

import argparse

import numpy as np

from skprivsynth._math.private_binning import top_down_shares

CELLS, N_SUB = 256, 16
X = (np.arange(CELLS) + 0.5) / CELLS
SHAPES = {
    "smooth": np.exp(-(((X - 0.3) / 0.35) ** 2)),
    "bump on a floor": 0.3 + np.exp(-(((X - 0.7) / 0.05) ** 2)),
    "half-empty": (X < 0.5) * 1.0,
    "decaying": np.exp(-X / 0.15),
}


def cdf_gap(weights, fine, rows):
    decoded = np.repeat(weights / (CELLS // N_SUB), CELLS // N_SUB)
    return np.abs(np.cumsum(decoded) - np.cumsum(fine) / rows).max()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", type=int, default=[2000, 300])
    parser.add_argument("--rho", type=float, default=0.002)
    parser.add_argument("--draws", type=int, default=100)
    args = parser.parse_args(argv)
    sigma = 1 / np.sqrt(args.rho)
    print(f"ρ = {args.rho:g} (σ = {sigma:.1f} a sub-bin), {N_SUB} sub-bins, {args.draws} draws")
    print()
    print("| rows | decoding | " + " | ".join(SHAPES) + " |")
    print("|---|---|" + "---|" * len(SHAPES))
    for rows in args.rows:
        gaps = {"consistent_sub_bin_weights": [], "naive": [], "uniform": []}
        for density in SHAPES.values():
            p = density / density.sum()
            per_shape = {k: [] for k in gaps}
            for seed in range(args.draws):
                rng = np.random.default_rng(seed)
                fine = rng.multinomial(rows, p)
                y = fine.reshape(N_SUB, -1).sum(axis=1) + rng.normal(0.0, sigma, N_SUB)
                naive = np.maximum(y, 0.0)
                naive = naive / naive.sum() if naive.sum() > 0 else np.full(N_SUB, 1 / N_SUB)
                for key, w in (
                    ("consistent_sub_bin_weights", top_down_shares(y[None, :], sigma, 1.5)[0]),
                    ("naive", naive),
                    ("uniform", np.full(N_SUB, 1 / N_SUB)),
                ):
                    per_shape[key].append(cdf_gap(w, fine, rows))
            for key in gaps:
                gaps[key].append(np.mean(per_shape[key]))
        for key, values in gaps.items():
            print(f"| {rows:,} | {key} | " + " | ".join(f"{v:.3f}" for v in values) + " |")


if __name__ == "__main__":
    main()
