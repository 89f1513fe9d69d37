"""Relations between columns declared in the domain, against the same domain without
them (issue 45, "Every front door").

The generated hospital table of ``benchmarks/hospital.py`` with its related columns
(``make_hospital(N, seed, relations=True)``): ``discharged`` at least ``admitted``,
``cost`` the sum of ``care`` and ``drugs``, ``paid`` at most ``cost``.
``make_private_pipeline(MarginalSynthesizer(epsilon=1))`` with its defaults, on every
declared column, seeds 0-2, once with the relations declared and once with the same
ranges without them.

Printed per run: the share of synthetic rows keeping each relation (a sum is kept when
it is within half a cent of its parts' sum: all three are written at cents), and the
mean 1-way and 2-way total variation distances (tvd1, tvd2) over the six related
columns, each binned at the real data's deciles (an evaluation, not a release), the
related pairs included; then the 1-way TVD of each related column, over the seeds.

Run:  PYTHONPATH=. OMP_NUM_THREADS=1 python benchmarks/bench_relations.py
"""

from __future__ import annotations

import itertools
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from hospital import hospital_domain, make_hospital  # noqa: E402

from skprivsynth import Domain, MarginalSynthesizer, make_private_pipeline  # noqa: E402

N = 20_000
SEEDS = (0, 1, 2)
EPSILON = 1.0
RELATED = ["admitted", "discharged", "cost", "care", "drugs", "paid"]


def kept(frame):
    """Share of the rows of ``frame`` keeping each relation of the hospital table."""
    return {
        "discharged >= admitted": float((frame["discharged"] >= frame["admitted"]).mean()),
        "cost = care + drugs": float(
            (np.abs(frame["cost"] - (frame["care"] + frame["drugs"])) <= 0.005).mean()
        ),
        "paid <= cost": float((frame["paid"] <= frame["cost"]).mean()),
    }


def decile_codes(real, synthetic):
    """Codes of both columns in the real data's decile bins."""
    numbers = [
        pd.Series(c).astype("int64" if c.dtype.kind == "M" else float) for c in (real, synthetic)
    ]
    edges = np.unique(np.quantile(numbers[0], np.linspace(0, 1, 11)))
    return [
        np.clip(np.searchsorted(edges, x, side="right") - 1, 0, edges.size - 2) for x in numbers
    ]


def tvds(real, synthetic):
    """The 1-way TVD of each related column and the mean 2-way TVD of their pairs, in
    real-decile bins."""
    codes = {c: decile_codes(real[c], synthetic[c]) for c in RELATED}
    one = {c: 0.5 * np.abs(_share(r, 10) - _share(s, 10)).sum() for c, (r, s) in codes.items()}
    two = []
    for a, b in itertools.combinations(RELATED, 2):
        (ra, sa), (rb, sb) = codes[a], codes[b]
        two.append(0.5 * np.abs(_share(ra * 10 + rb, 100) - _share(sa * 10 + sb, 100)).sum())
    return one, float(np.mean(two))


def _share(codes, size):
    return np.bincount(codes, minlength=size) / codes.size


def run(declared, seed):
    frame, _ = make_hospital(N, seed, relations=True)
    domain = Domain(hospital_domain(relations=True, declared=declared))
    real = frame[list(domain)]
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe = make_private_pipeline(
            MarginalSynthesizer(epsilon=EPSILON, random_state=seed), domain, random_state=seed
        )
        synthetic = pipe.fit(real).sample(N, random_state=seed)
    seconds = time.perf_counter() - start
    return kept(synthetic), tvds(real, synthetic), seconds


def main():
    print(f"hospital table with relations, n={N}, MarginalSynthesizer(epsilon={EPSILON})")
    print(f"real rows keeping each relation: {kept(make_hospital(N, 0, relations=True)[0])}")
    header = "| relations | seed | discharged >= admitted | cost = care + drugs | paid <= cost "
    print(header + "| tvd1 | tvd2 | time_s |")
    print("|" + "---|" * 8)
    means, columns = {}, {}
    for declared in (True, False):
        for seed in SEEDS:
            shares, (one, tvd2), seconds = run(declared, seed)
            tvd1 = float(np.mean(list(one.values())))
            means.setdefault(declared, []).append([*shares.values(), tvd1, tvd2])
            columns.setdefault(declared, []).append(list(one.values()))
            cells = " | ".join(f"{v:.4f}" for v in [*shares.values(), tvd1, tvd2])
            name = "declared" if declared else "not declared"
            print(f"| {name} | {seed} | {cells} | {seconds:.0f} |", flush=True)
    for declared, rows in means.items():
        cells = " | ".join(f"{v:.4f}" for v in np.mean(rows, axis=0))
        print(f"| {'declared' if declared else 'not declared'} | mean | {cells} | |")
    print("\nmean 1-way TVD of each related column over the seeds")
    print("| relations | " + " | ".join(RELATED) + " |")
    print("|" + "---|" * (len(RELATED) + 1))
    for declared, rows in columns.items():
        cells = " | ".join(f"{v:.4f}" for v in np.mean(rows, axis=0))
        print(f"| {'declared' if declared else 'not declared'} | {cells} |")


if __name__ == "__main__":
    main()
