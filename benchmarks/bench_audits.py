"""Audits with power: the table of claimed ε, audited lower bounds and exact ε.

Runs the audit set-ups of ``tests/test_audit_power.py`` (worst-case replace-one pairs,
likelihood-ratio events, broken variants made by patching one constant or function)
with more runs than the test suite and prints a Markdown table: one row per mechanism
and variant, with the claim, the audited lower bound (95 % confidence, Bonferroni over
the audit's events) and the exact ε of the pair where it is computable.

Usage (about 3 minutes on 2 cores)::

    python benchmarks/bench_audits.py [--scale 1.0]

``--scale`` multiplies every number of runs (e.g. 0.25 for a quick look).
"""

import argparse
import sys
import time
from pathlib import Path

from _pytest.monkeypatch import MonkeyPatch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import test_audit_power as setups  # noqa: E402

# (set-up, variants, runs per dataset, seed)
AUDITS = [
    (setups.audit_correlated_gaussian, ["honest", "add-remove"], 20_000, 11),
    (setups.audit_reduced_space_lp, ["honest", "table-count-halved"], 5_000, 12),
    (setups.audit_noisy_microaggregation_release, ["honest", "mean-noise-cut-1000"], 4_000, 13),
    (setups.audit_noisy_microaggregation_weights, ["honest", "weight-noise-halved"], 4_000, 14),
    (setups.audit_bingham, ["honest", "beta-doubled"], 4_000, 15),
]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the runs")
    args = parser.parse_args(argv)
    print(
        "| mechanism | variant | claimed | audited lower bound | exact ε on the pair | "
        "refuted | runs per dataset | time (s) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for audit, variants, runs, seed in AUDITS:
        for variant in variants:
            patch = MonkeyPatch()
            start = time.perf_counter()
            try:
                _, row = audit(variant, max(50, int(runs * args.scale)), seed, patch)
            finally:
                patch.undo()
            elapsed = time.perf_counter() - start
            print(
                f"| {row['mechanism']} | {variant} | {row['claimed']} | {row['lower']} | "
                f"{row['exact']} | {'yes' if row['caught'] else 'no'} | {row['runs']} | "
                f"{elapsed:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
