"""The suite: MarginalSynthesizer against AIM, MST, PrivBayes (dpmm) on seven public tables.

Run (one command; the dpmm peers run in dpmm's own venv, in a subprocess, one at a time):

    python benchmarks/bench_suite.py [--tables mexico bfi ...] [--epsilon 0.5 1 2]
        [--seeds 0 1 2] [--methods ours independent aim mst privbayes]
        [--relations replaceone addremove] [--cache DIR] [--timeout 1800]
        [--dpmm-python /work/venv-dpmm/bin/python]
        [--write-results]

Tables: benchmarks/categorical_tables.py (n 1,359–336,776, 11–32 columns, integer codes
and public domain sizes).  Every method gets the same codes and sizes, δ = 1e-9, and
draws n = table size synthetic rows.  ``--methods`` names the methods to *run*; with
``--cache``, the rows of the dpmm peers not named are read from the cache only, so
``--methods ours independent --cache DIR --write-results`` re-measures ours in minutes
beside the peers' stored runs.

Methods and relations (ρ = ``skprivsynth.privacy.zcdp_rho(ε, δ)``, the Canonne–Kamath–
Steinke conversion; dpmm's ``cdp_rho`` is the same conversion, equal to 1e-12 here):

``ours``
    ``skprivsynth.MarginalSynthesizer`` with its defaults, ``domain`` = the sizes;
    replace-one (two tables of the same n differing in one row), ρ-zCDP.
``independent``
    ``bench_peers.independent_gaussian``: product of Gaussian-noised 1-way marginals,
    replace-one, ρ-zCDP.
``aim`` / ``mst`` / ``privbayes``
    dpmm 0.1.9 ``dpmm.models.AIMGM`` / ``MSTGM`` / ``PrivBayesGM`` on the integer codes
    with ``domain`` = {column: size} (nothing binned or read from the data; the models'
    defaults otherwise, ``compress=True`` included; ``n_jobs=1``), each under two
    relations:

    *add/remove* — dpmm's own calibration at ε: count tables of L2 sensitivity 1, L1
    selection scores of sensitivity 1.

    *replace-one* — the same algorithm with every sensitivity at its replace-one value:
    a count table's L2 sensitivity is √2 (vs 1), so a Gaussian measurement calibrated
    at ρ/2 for sensitivity 1 adds σ = 1/√(2·ρ/2) = √2/√(2ρ), the noise of a sensitivity-√2
    table at ρ; an L1 selection score (AIM's and MST's) has sensitivity 2 (vs 1), and the
    exponential mechanism's zCDP cost is (η·range)²/8 with η = ε_em/(2Δ): at ρ/2 its ε_em
    is 1/√2 of its value at ρ, so declaring Δ = √2 (not 1) gives exactly the replace-one
    mechanism at ρ.  So AIM and MST run at the ε' whose dpmm ρ is ρ(ε, δ)/2 (found by
    bisection on dpmm's ``cdp_rho`` and checked in the worker) with their exponential
    mechanism's sensitivity multiplied by √2: each step then costs its add/remove share of
    ρ under replace-one, ρ in total.  (Without the √2 on the selection, "AIM at ρ/2"
    spends 1.1ρ under replace-one and MST 4ρ/3.)  PrivBayes in dpmm is not pure ε-DP: an
    exponential mechanism at ε/2 selects the network (normalised mutual information,
    scored with PrivBayes's sensitivity for a fixed n) and Gaussian noise at
    ρ(ε/2, δ) measures it; its replace-one variant runs at ε/2 (selection at ε/4: a
    replacement is a removal and an addition, twice the sensitivity) with the
    measurement noise set to ρ(ε/2, δ)/2 (σ × √2 against dpmm at ε).

Metrics (``skprivsynth.metrics.categorical_marginal_tvd``, as bench_peers.py): mean TVD of
the 1-way (tvd1), all 2-way (tvd2) and 200 random 3-way tables (tvd3, seed 0).  Time:
fit + sample, wall and CPU seconds (user + system of the process, all threads, and its
children: the machine is shared, so times are compared in CPU seconds).

dpmm runs (``--cache``: one file per method, relation, table, ε and seed; finished runs
and timeouts are kept and read back, never rerun) go in this order: ε = 1 seed 0 first
(every table AIM replace-one, then AIM add/remove, MST both, PrivBayes both), then
ε = 0.5 and 2 at seed 0, then the other seeds.  A run past ``--timeout`` is reported as
"did not finish in T s".
"""

from __future__ import annotations

import argparse
import math
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _dpmm  # noqa: E402
import categorical_tables  # noqa: E402

DELTA = 1e-9
RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
SECTION = "## Suite: MarginalSynthesizer against AIM, MST, PrivBayes"
PEERS = {"aim": "AIM", "mst": "MST", "privbayes": "PrivBayes"}
RELATIONS = {"replaceone": "replace-one", "addremove": "add/remove"}

# --------------------------------------------------------------------------- dpmm side


def replace_one_epsilon(epsilon, delta, rho_of):
    """The ε' whose ``rho_of(ε', δ)`` is ``rho_of(ε, δ) / 2`` (bisection; monotone)."""
    target, lo, hi = rho_of(epsilon, delta) / 2, 0.0, epsilon
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if rho_of(mid, delta) < target else (lo, mid)
    return hi


def dpmm_model(method, relation, epsilon, domain, seed):
    """The dpmm model of ``method`` under ``relation`` at ε (see the module docstring),
    and the ρ its Gaussian measurements are calibrated to."""
    from dpmm.models import AIMGM, MSTGM, PrivBayesGM
    from dpmm.models.aim import AIM
    from dpmm.models.base.mechanisms import cdp_rho
    from dpmm.models.mst import MST

    class ReplaceOneAIM(AIM):
        def exponential_mechanism(self, qualities, epsilon, sensitivity=1.0, base_measure=None):
            # L1 score: sensitivity 2 under replace-one; at ρ/2, √2 × 1 gives ε_em/(2·2).
            return super().exponential_mechanism(
                qualities, epsilon, math.sqrt(2) * sensitivity, base_measure
            )

    class ReplaceOneMST(MST):
        def exponential_mechanism(self, q, eps, sensitivity, monotonic=False):
            return super().exponential_mechanism(q, eps, math.sqrt(2) * sensitivity, monotonic)

    common = {"delta": DELTA, "domain": domain, "n_jobs": 1}
    common["random_state"] = np.random.RandomState(seed)
    model_class = {"aim": AIMGM, "mst": MSTGM, "privbayes": PrivBayesGM}[method]
    if relation == "addremove":
        model = model_class(epsilon=epsilon, **common)
        return model, model.generator.rho
    if method == "privbayes":
        model = model_class(epsilon=epsilon / 2, **common)  # selection at ε/4
        rho = cdp_rho(epsilon / 2, DELTA) / 2  # measurement: σ × √2 against dpmm at ε
        model.generator.rho, model.generator.sigma = rho, math.sqrt(1 / (2 * rho))
        return model, rho
    epsilon_half = replace_one_epsilon(epsilon, DELTA, cdp_rho)
    model = model_class(epsilon=epsilon_half, **common)
    rho = model.generator.rho
    if abs(rho / (cdp_rho(epsilon, DELTA) / 2) - 1) > 1e-9:
        raise AssertionError(f"dpmm rho {rho} is not rho(eps, delta) / 2")
    model.generator.__class__ = {"aim": ReplaceOneAIM, "mst": ReplaceOneMST}[method]
    return model, rho


def dpmm_worker(args):
    """Runs inside dpmm's venv: fit + generate one model, pickle the synthetic codes."""
    codes, sizes, columns = categorical_tables.load(args.tables[0])
    df = pd.DataFrame(codes, columns=columns)
    model, rho = dpmm_model(
        args.worker,
        args.relation,
        args.epsilon[0],
        dict(zip(columns, sizes, strict=True)),
        args.seeds[0],
    )

    def fit_generate():
        model.fit(df)
        return model.generate(n_records=len(df))

    synth, seconds, cpu = _dpmm.timed(fit_generate)
    synth = synth[columns].to_numpy(dtype=np.int64).astype(np.int16)
    _dpmm.dump({"columns": synth, "seconds": seconds, "cpu_seconds": cpu, "rho": rho}, args.out)


def peer_key(method, relation, table, epsilon, seed):
    return f"{method}-{relation}-{table}-eps{epsilon:g}-seed{seed}"


# --------------------------------------------------------------------------- our side


def run_local(method, codes, sizes, columns, epsilon, seed):
    """ours / independent in this process: (synthetic codes, wall s, CPU s)."""
    import bench_peers

    function = {
        "ours": bench_peers.marginal_synthesizer,
        "independent": bench_peers.independent_gaussian,
    }[method]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the seeded-release warning (a benchmark)
        return _dpmm.timed(lambda: function(codes, columns, sizes, epsilon, DELTA, seed))


def metrics(codes, synthetic, sizes, columns):
    """tvd1, tvd2, tvd3 (bench_peers.tvd_row) of the synthetic codes."""
    import bench_peers

    real = pd.DataFrame(codes, columns=columns)
    fake = pd.DataFrame(np.asarray(synthetic, dtype=np.int64), columns=columns)
    return bench_peers.tvd_row(real, fake, dict(zip(columns, sizes, strict=True)))


def peer_order(epsilons, seeds):
    """(ε, seed) pairs: ε = 1 seed 0 first, then the other ε at seed 0, then the rest."""
    first = [e for e in epsilons if e == 1.0] + [e for e in epsilons if e != 1.0]
    return [(e, s) for s in seeds for e in first]


# --------------------------------------------------------------------------- report


def _cell(values):
    if not values:
        return "–"
    v = np.asarray(values)
    if v.size == 1:
        return f"{v[0]:.4f}"
    return f"{v.mean():.4f} ({v.min():.4f}–{v.max():.4f})"


def variants(methods):
    """Report rows: (method, relation) in a fixed order."""
    rows = [("ours", "replaceone")]
    for peer in PEERS:
        rows += [(peer, "replaceone"), (peer, "addremove")]
    rows.append(("independent", "replaceone"))
    return rows


def label(method, relation):
    name = {"ours": "**MarginalSynthesizer**", "independent": "independent 1-way"}
    return f"{name.get(method, 'dpmm ' + PEERS.get(method, method))} ({RELATIONS[relation]})"


def table_section(name, facts, epsilons, seeds, timeout):
    runs, n, d = facts["runs"], facts["n"], facts["d"]
    head = " | ".join(f"tvd2, ε = {e:g}" for e in epsilons)
    lines = [
        f"### {name} ({n:,} rows, {d} columns)",
        "",
        f"| method | {head} | tvd3, ε = 1 | CPU s (wall s), ε = 1 |",
        "|---|" + "---|" * (len(epsilons) + 2),
    ]
    for method, relation in variants(None):
        cells = []
        for e in epsilons:
            done = [
                r for r in runs.get((method, relation, e), {}).values() if r["tvd2"] is not None
            ]
            late = [r for r in runs.get((method, relation, e), {}).values() if r["tvd2"] is None]
            cell = _cell([r["tvd2"] for r in done])
            if len(done) not in (0, len(seeds)):
                cell += f" [{len(done)} seed{'s' * (len(done) > 1)}]"
            if late:
                cell = (
                    (cell + "; " if done else "")
                    + f"did not finish in {timeout:g} s"
                    + (f" ({len(late)} seed{'s' * (len(late) > 1)})" if len(seeds) > 1 else "")
                )
            cells.append(cell)
        at1 = [r for r in runs.get((method, relation, 1.0), {}).values() if r["tvd2"] is not None]
        if all(c == "–" for c in cells):
            continue
        tvd3 = _cell([r["tvd3"] for r in at1])
        time_cell = (
            f"{np.mean([r['cpu'] for r in at1]):.1f} ({np.mean([r['wall'] for r in at1]):.1f})"
            if at1
            else "–"
        )
        lines.append(
            f"| {label(method, relation)} | " + " | ".join(cells) + f" | {tvd3} | {time_cell} |"
        )
    return "\n".join(lines) + "\n"


def _paired(a, b, metric):
    """Means of ``metric`` of the runs a and b over the seeds both finished."""
    seeds = sorted(
        set(k for k, r in a.items() if r["tvd2"] is not None)
        & set(k for k, r in b.items() if r["tvd2"] is not None)
    )
    if not seeds:
        return None
    return np.mean([a[s][metric] for s in seeds]), np.mean([b[s][metric] for s in seeds]), seeds


def summary(tables, epsilons):
    """Table × ε: ours against AIM (both relations), MST and independent; the targets."""
    lines = [
        "| table | ε | ours tvd2 | AIM r-o | AIM a/r | MST r-o | indep. | tvd2 ≤ AIM r-o "
        "| tvd3 ≤ AIM r-o | ≤ MST r-o (tvd2, tvd3) | ≤ indep. (tvd2, tvd3) | CPU ≤ AIM r-o / 10 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def mark(ok):
        return "–" if ok is None else ("✓" if ok else "✗")

    for name, facts in tables.items():
        runs = facts["runs"]
        for e in epsilons:
            ours = runs.get(("ours", "replaceone", e), {})
            if not ours:
                continue
            peers = {
                k: runs.get((*k, e), {})
                for k in [("aim", "replaceone"), ("aim", "addremove"), ("mst", "replaceone"),
                          ("independent", "replaceone")]
            }  # fmt: skip
            cells = [name, f"{e:g}", _cell([r["tvd2"] for r in ours.values()])]
            for runs_k in peers.values():
                done = [r["tvd2"] for r in runs_k.values() if r["tvd2"] is not None]
                late = any(r["tvd2"] is None for r in runs_k.values())
                cells.append(_cell(done) if done else ("did not finish" if late else "–"))

            def better(peer, metric, ours=ours, peers=peers):
                p = _paired(ours, peers[peer], metric)
                return None if p is None else p[0] <= p[1]

            aim = peers[("aim", "replaceone")]
            aim_late = any(r["tvd2"] is None for r in aim.values()) and not any(
                r["tvd2"] is not None for r in aim.values()
            )
            t2, t3 = better(("aim", "replaceone"), "tvd2"), better(("aim", "replaceone"), "tvd3")
            both = []
            for peer in [("mst", "replaceone"), ("independent", "replaceone")]:
                a, b = better(peer, "tvd2"), better(peer, "tvd3")
                both.append("–" if a is None else f"{mark(a)} {mark(b)}")
            p = _paired(ours, aim, "cpu")
            if aim_late:
                ours_cpu = np.mean([r["cpu"] for r in ours.values()])
                cpu = f"? (AIM > {facts['timeout']:g} s wall; ours {ours_cpu:.0f} s)"
            else:
                cpu = "–" if p is None else f"{mark(p[0] <= p[1] / 10)} ({p[0]:.0f} / {p[1]:.0f} s)"
            cells += [mark(t2), mark(t3), *both, cpu]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --------------------------------------------------------------------------- main


def record(store, key, seed, result, codes, sizes, columns):
    """Store one run's metrics (or its timeout) under key[seed]; print it."""
    method, relation, table, epsilon = key
    if result["columns"] is None:
        row = {"tvd1": None, "tvd2": None, "tvd3": None, "note": result["seconds"]}
        text = row["note"]
    else:
        row = metrics(codes, result["columns"], sizes, columns)
        row.update(wall=result["seconds"], cpu=result["cpu_seconds"])
        text = (
            f"tvd1={row['tvd1']:.4f} tvd2={row['tvd2']:.4f} tvd3={row['tvd3']:.4f} "
            f"cpu {row['cpu']:.1f} s wall {row['wall']:.1f} s"
        )
    store.setdefault(table, {}).setdefault((method, relation, epsilon), {})[seed] = row
    print(
        f"[{time.strftime('%H:%M:%S')}] {table:8s} {method:11s} {RELATIONS[relation]:11s} "
        f"eps={epsilon:<4g} seed={seed}  {text}",
        flush=True,
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=list(categorical_tables.TABLES))
    parser.add_argument("--epsilon", nargs="+", type=float, default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    methods = ["ours", "independent", *PEERS]
    parser.add_argument("--methods", nargs="+", default=methods, choices=methods)
    parser.add_argument("--write-results", action="store_true")
    _dpmm.add_arguments(parser, timeout=1800.0)
    parser.add_argument(
        "--relations", nargs="+", default=list(RELATIONS), choices=list(RELATIONS),
        help="relations under which the dpmm peers named in --methods run (others: cache)",
    )
    parser.add_argument("--relation", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return dpmm_worker(args)

    import skprivsynth
    from skprivsynth.privacy import zcdp_rho

    data = {name: categorical_tables.load(name) for name in args.tables}
    store = {}
    for method in ("ours", "independent"):
        if method not in args.methods:
            continue
        for name, (codes, sizes, columns) in data.items():
            for e in args.epsilon:
                for seed in args.seeds:
                    synthetic, wall, cpu = run_local(method, codes, sizes, columns, e, seed)
                    result = {"columns": synthetic, "seconds": wall, "cpu_seconds": cpu}
                    record(
                        store, (method, "replaceone", name, e), seed, result, codes, sizes, columns
                    )

    has_dpmm = Path(args.dpmm_python).exists()
    if not has_dpmm and any(m in PEERS for m in args.methods):
        print(f"note: {args.dpmm_python} not found: the dpmm peers are not run", flush=True)
    rho_checks = []
    for e, seed in peer_order(args.epsilon, args.seeds):
        for method in PEERS:
            for relation in RELATIONS:
                for name, (codes, sizes, columns) in data.items():
                    key = peer_key(method, relation, name, e, seed)
                    if method in args.methods and relation in args.relations and has_dpmm:
                        worker = ["--worker", method, "--relation", relation, "--tables", name,
                                  "--epsilon", e, "--seeds", seed]  # fmt: skip
                        result = _dpmm.run(
                            __file__, worker, args.dpmm_python, args.timeout, key, args.cache
                        )
                    elif args.cache:
                        result = _dpmm.cached(key, args.cache, args.timeout)
                    else:
                        result = None
                    if result is None or str(result["seconds"]).startswith("failed"):
                        if result is not None:
                            print(f"{key}: {result['seconds']}", flush=True)
                        continue
                    if result["columns"] is not None:
                        ours_rho = zcdp_rho(e, DELTA) / (2 if relation == "replaceone" else 1)
                        if method == "privbayes":
                            ours_rho = zcdp_rho(e / 2, DELTA) / (
                                2 if relation == "replaceone" else 1
                            )
                        rho_checks.append(abs(result["rho"] / ours_rho - 1))
                    record(store, (method, relation, name, e), seed, result, codes, sizes, columns)

    tables = {
        name: {"n": len(codes), "d": codes.shape[1], "runs": store.get(name, {}),
               "timeout": args.timeout}
        for name, (codes, _, _) in data.items()
    }  # fmt: skip
    versions = f"skprivsynth {skprivsynth.__version__} (numpy {np.__version__})"
    if has_dpmm:
        versions += "; dpmm " + subprocess.run(
            [args.dpmm_python, "-c", "from importlib.metadata import version as v; "
             "print(v('dpmm'), '(numpy', v('numpy') + ', pandas', v('pandas') + ', opendp', "
             "v('opendp') + ')')"],
            capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
    command = "python benchmarks/bench_suite.py " + " ".join(argv or sys.argv[1:])
    late = [
        f"{label(m, r)} {name} ε = {e:g} seed {s}"
        for name, f in tables.items()
        for (m, r, e), by_seed in f["runs"].items()
        for s, row in by_seed.items()
        if row["tvd2"] is None
    ]
    text = [
        f"{SECTION} (bench_suite.py, {time.strftime('%Y-%m-%d')})",
        "",
        f"`{command.strip()}` — {versions}; δ = {DELTA:g}; synthetic n = table n; the "
        "tables of benchmarks/categorical_tables.py (integer codes, public domain sizes).  "
        "Ours and the independent baseline run in this process; the dpmm models (AIMGM, "
        "MSTGM, PrivBayesGM with their defaults, `domain` = the sizes, `n_jobs=1`) in "
        "dpmm's venv, one at a time, each run kept in `--cache` and read back (its times "
        f"are those of the run), limit {args.timeout:g} s wall a run.  Relations: ours and "
        "'independent' replace-one (two tables of the same n differing in one row), "
        "ρ = zcdp_rho(ε, δ); dpmm 'add/remove' = its own calibration at ε (its `cdp_rho` "
        "is the same conversion); dpmm 'replace-one' = the same algorithm with every "
        "sensitivity at its replace-one value, the same ρ: AIM and MST at the ε' whose "
        "dpmm ρ is ρ/2 (Gaussian σ × √2: count-table L2 sensitivity √2 instead of 1) with "
        "their exponential mechanism's declared sensitivity × √2 (L1 score sensitivity 2 "
        "instead of 1; at ρ/2 this is exactly the selection at ρ); PrivBayes at ε/2 "
        "(selection at ε/4) with its Gaussian measurement at ρ(ε/2, δ)/2 (σ × √2 against "
        "dpmm at ε).  Largest relative gap between the ρ dpmm's measurements used and the "
        f"ρ intended: {max(rho_checks) if rho_checks else float('nan'):.1e}.  Machine: "
        "2 cores shared with 4–5 other agents' jobs (load average 3–6), so times are "
        "compared in **CPU seconds** of the fit + sample (user + system, all threads); wall "
        "seconds in parentheses.  tvd1/2/3: `categorical_marginal_tvd`, all 1-way and "
        "2-way tables, 200 random 3-way tables (seed 0).  dpmm draws its Gaussian noise "
        "from OpenDP's sampler, not from the seed: its runs are not reproducible draw "
        "for draw.",
        "",
        "### Summary: tvd2 mean over seeds; ✓/✗ compare ours with the peer on the seeds both ran",
        "",
        summary(tables, args.epsilon),
        "",
        *[table_section(n, f, args.epsilon, args.seeds, args.timeout) for n, f in tables.items()],
        "Did not finish in the time limit: " + ("; ".join(late) if late else "none") + ".",
    ]
    print("\n".join(text), flush=True)
    if args.write_results:
        from bench_mixed import write_results

        write_results("\n".join(text), SECTION)
    return 0


if __name__ == "__main__":
    sys.exit(main())
