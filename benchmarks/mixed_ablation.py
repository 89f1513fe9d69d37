"""One line per table and seed for ablations of MarginalSynthesizer on mixed tables.

Run on each variant of the code (a branch, a changed constant):

    python benchmarks/mixed_ablation.py [--tables weather diamonds flights] [--seeds 0 1]

``make_private_pipeline(MarginalSynthesizer(epsilon=0.6))`` with ``binning_epsilon``
0.25 and ``decode_epsilon`` 0.1 (a total ε of about 1, not calibrated as in
bench_mixed.py, so that variants spend exactly the same), on the training split of
bench_mixed.py's tables; the line gives the 2-way TVD on real deciles, the median KS
statistic, the largest share outside the real [min, max], then every numeric column
whose std ratio is outside [0.9, 1.1] or whose tail ratio is above 3 (bench_mixed.py's
metrics).  With ``--per-column``, each table ends with the mean over the seeds of every
numeric column's KS statistic, W1/IQR, |log std ratio| and tail ratio, and the share
of the real column's variance held by its 1 % of rows farthest from its mean
(``var_top1``: where it is large, the std ratio hangs on a few hundred rows).
``--scale s`` multiplies the three budgets by ``s`` (how the misses fall with ε).
"""

from __future__ import annotations

import argparse
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_mixed  # noqa: E402
import mixed_tables  # noqa: E402

from skprivsynth import MarginalSynthesizer, make_private_pipeline  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=["weather", "diamonds", "flights"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    parser.add_argument("--per-column", action="store_true", help="means over the seeds")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every ε")
    args = parser.parse_args(argv)
    scale = args.scale
    for name in args.tables:
        data, domain, _, dates, _ = mixed_tables.load(name)
        train, _ = mixed_tables.train_test_indices(len(data))
        real = data.iloc[train].reset_index(drop=True)
        declared = bench_mixed.with_parts(domain, dates, real.columns)
        columns = []
        for seed in args.seeds:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the seeded-release warning (a benchmark)
                pipe = make_private_pipeline(
                    MarginalSynthesizer(epsilon=scale, delta=bench_mixed.DELTA, random_state=seed),
                    declared,
                    random_state=seed,
                )
                synthetic = pipe.fit(real).sample(len(real))
            numeric, _ = bench_mixed.column_errors(real, synthetic, domain)
            columns.append(numeric.assign(log_std=np.abs(np.log(numeric["std_ratio"]))))
            missed = [
                f"{c} std {r['std_ratio']:.2f}"
                for c, r in numeric.iterrows()
                if not 0.9 <= r["std_ratio"] <= 1.1
            ] + [f"{c} tail {r['tail']:.1f}" for c, r in numeric.iterrows() if r["tail"] > 3]
            print(
                f"{name} seed {seed}: tvd2 {bench_mixed.two_way_tvd(real, synthetic, domain):.4f}"
                f", median KS {numeric['ks'].median():.4f}, max outside "
                f"{numeric['outside'].max():.4f} | " + ", ".join(missed),
                flush=True,
            )
        if args.per_column:
            means = pd.concat(columns).groupby(level=0, sort=False).mean()
            means["var_top1"] = [_variance_share(real[c]) for c in means.index]
            print(
                means[["ks", "w1_iqr", "log_std", "tail", "var_top1"]].round(4).to_string(),
                flush=True,
            )


def _variance_share(column, share=0.01):
    """Share of the variance of ``column`` (missing values left out) held by its
    ``share`` of rows farthest from the mean."""
    x = pd.to_numeric(column, errors="coerce").dropna().to_numpy(dtype=np.float64)
    deviation = np.sort((x - x.mean()) ** 2)[::-1]
    total = deviation.sum()
    return deviation[: math.ceil(share * x.size)].sum() / total if total > 0 else 0.0


if __name__ == "__main__":
    main()
