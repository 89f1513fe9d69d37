"""MarginalSynthesizer on large tables: CPU seconds and accuracy of the default fit.

Run (one command; one process, one fit at a time):

    OMP_NUM_THREADS=1 python benchmarks/bench_large.py [--tables flights adult250k]
        [--seeds 0 1 2] [--epsilon 1] [--param max_rounds=16] [--profile DIR]
        [--json FILE] [--label TEXT]

Tables: ``flights`` (benchmarks/categorical_tables.py: 336,776 rows, 11 columns, integer
codes and public sizes) and ``adult250k`` (the bundled Adult codes, ``load_adult()``,
250,000 rows drawn with replacement by ``numpy.random.default_rng(0)``, its declared
domain).  Each run: ``MarginalSynthesizer(epsilon, domain=sizes, random_state=seed,
**params).fit(codes).sample(n)``, δ = 1e-9, timed in CPU seconds of this process (user
+ system, all threads; ``resource.getrusage``), fit and sample apart.  Metrics:
``categorical_marginal_tvd``, all 1- and 2-way tables and 200 random 3-way tables
(seed 0), as ``bench_suite.py``.  The script imports ``skprivsynth`` from the path, so
an older commit is timed by pointing ``PYTHONPATH`` at its worktree (parameters it does
not know are refused by it).  ``--profile DIR`` writes a cProfile of each fit.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import resource
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import skprivsynth  # noqa: E402
from skprivsynth.datasets import load_adult  # noqa: E402
from skprivsynth.metrics import categorical_marginal_tvd  # noqa: E402

DELTA = 1e-9


def adult250k():
    adult = load_adult()
    codes = adult.data.to_numpy(dtype=np.int64)
    rows = np.random.default_rng(0).integers(0, len(codes), size=250_000)
    return codes[rows], [adult.domain[c] for c in adult.data.columns], list(adult.data.columns)


def flights():
    import categorical_tables

    return categorical_tables.load("flights")


TABLES = {"flights": flights, "adult250k": adult250k}


def cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _value(text):
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"None": None, "True": True, "False": False}.get(text, text)


def run(codes, sizes, columns, epsilon, seed, params, profile=None):
    synth = skprivsynth.MarginalSynthesizer(
        epsilon=epsilon, delta=DELTA, domain=list(sizes), random_state=seed, **params
    )
    start = cpu()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the seeded-release warning (a benchmark)
        if profile:
            profiler = cProfile.Profile()
            profiler.runcall(synth.fit, codes)
            profiler.dump_stats(profile)
        else:
            synth.fit(codes)
        fitted = cpu()
        synthetic = np.asarray(synth.sample(len(codes)), dtype=np.int64)
    done = cpu()
    real = pd.DataFrame(codes, columns=columns)
    fake = pd.DataFrame(synthetic, columns=columns)
    domain = dict(zip(columns, sizes, strict=True))
    tvd = {
        f"tvd{k}": categorical_marginal_tvd(
            real,
            fake,
            degree=k,
            domain=domain,
            max_marginals=200 if k == 3 else None,
            random_state=0,
        )
        for k in (1, 2, 3)
    }
    return {
        "fit_cpu": fitted - start,
        "sample_cpu": done - fitted,
        "cpu": done - start,
        "rounds": len(synth.cliques_),
        **tvd,
    }


def commit():
    root = os.path.dirname(os.path.dirname(os.path.abspath(skprivsynth.__file__)))
    try:
        out = subprocess.run(
            ["git", "-C", root, "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=list(TABLES), choices=list(TABLES))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--profile", metavar="DIR")
    parser.add_argument("--json", metavar="FILE", help="append one JSON line per run")
    parser.add_argument("--label", default="")
    args = parser.parse_args(argv)
    params = dict(p.split("=", 1) for p in args.param)
    params = {k: _value(v) for k, v in params.items()}
    label = args.label or commit()
    print(
        f"skprivsynth from {commit()}; params {params}; "
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS')}",
        flush=True,
    )
    print("| table | seed | fit CPU s | sample CPU s | rounds | tvd1 | tvd2 | tvd3 |")
    print("|---|---|---|---|---|---|---|---|", flush=True)
    rows = []
    for name in args.tables:
        codes, sizes, columns = TABLES[name]()
        for seed in args.seeds:
            profile = None
            if args.profile:
                os.makedirs(args.profile, exist_ok=True)
                profile = os.path.join(args.profile, f"{name}-seed{seed}.prof")
            r = run(codes, sizes, columns, args.epsilon, seed, params, profile)
            r.update(table=name, seed=seed, epsilon=args.epsilon, params=params, label=label)
            rows.append(r)
            print(
                f"| {name} | {seed} | {r['fit_cpu']:.1f} | {r['sample_cpu']:.1f} | "
                f"{r['rounds']} | {r['tvd1']:.4f} | {r['tvd2']:.4f} | {r['tvd3']:.4f} |",
                flush=True,
            )
            if args.json:
                with open(args.json, "a") as f:
                    f.write(json.dumps(r) + "\n")
    for name in args.tables:
        mine = [r for r in rows if r["table"] == name]
        print(
            f"{name}: mean fit+sample CPU {np.mean([r['cpu'] for r in mine]):.1f} s, "
            f"tvd2 {np.mean([r['tvd2'] for r in mine]):.4f} "
            f"({min(r['tvd2'] for r in mine):.4f}–{max(r['tvd2'] for r in mine):.4f})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
