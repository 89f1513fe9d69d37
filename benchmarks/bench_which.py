"""Which synthesizer?  Every synthesizer with its defaults on the categorical suite, by n and ε.

Run:  nice -n 5 python benchmarks/bench_which.py [--methods NAME ...] [--tables NAME ...]
          [--n 1000 10000 100000] [--epsilons 0.5 1 2] [--seeds 0 1] [--time-limit 300]
          [--csv PATH]

``--methods marginal`` runs MarginalSynthesizer alone (with the baselines, which take
milliseconds).  Method names: ``marginal``, ``noisy-microaggregation``,
``reduced-space-lp``, ``private-sampler``, ``correlated-gaussian`` (differentially
private) and ``microaggregation`` (k-anonymous, not DP).

Tables (``categorical_tables.py``, codes and domain sizes by its fixed rule, the domain
taken as public): three of the seven, of different widths, so that the whole run stays
under about 25 minutes of CPU:

- ``mexico`` (1,359 rows × 32 columns): the widest and the smallest table of the suite;
- ``movies`` (58,788 × 23): the widest table with at least 10,000 rows;
- ``flights`` (336,776 × 11): the narrowest, and the only one with at least 100,000 rows.

Left out for time: ``bfi``, ``ofp`` (n = 1,000 only, widths between mexico's and
movies'), ``hi`` and ``vietnam`` (11–12 columns like flights).  On ``hi`` (a 57-bit
one-hot encoding, 20-bit binary code) PrivateSampler and CorrelatedGaussianMechanism
run, but each went over 120 s of CPU per fit at n = 10,000 (probe of 2026-11-26), which
alone would take a third of the budget.

Each table gives a row subsample (without replacement, fixed seed 0) of every ``n`` it
is large enough for; a table smaller than ``n`` is skipped at that ``n``.  Every method
receives the same subsample, and draws ``n`` synthetic rows.

Methods.  Each synthesizer is built with its defaults (only ``random_state`` and
``epsilon`` set) and fitted through ``make_private_pipeline`` (``default_pipelines.py``,
the encoding the library picks for it).  ε is the total of the release: when the
encoding coarsens a column, 10 % of ε releases the level frequencies that decode it and
the synthesizer gets 90 %; δ is each synthesizer's default (MarginalSynthesizer 1e-9,
CorrelatedGaussianMechanism 1e-6, the others 0).  MicroaggregationSynthesizer is
k-anonymous with its default k, not differentially private: it has no ε, is reported
apart and never compared with the baselines.  Privacy: replace-one neighbours throughout.

Baselines: independent noisy 1-way marginals under the same relation and the same
guarantee — Gaussian noise at ρ = zcdp_rho(ε, δ) for a method with δ > 0
(``bench_peers.independent_gaussian``), Laplace noise at ε for a pure ε-DP method
(``bench_adult.independent_laplace``).  A method's cell is marked ✓ where its mean tvd2
is below that of the baseline with its own (ε, δ).

Metric: tvd2, ``skprivsynth.metrics.categorical_marginal_tvd`` on the decoded integer
codes, all 2-way tables, mean over seeds.  Time: fit + sample, seconds of wall time.

A run that cannot complete is reported with its reason: a refusal or error of the
method (its message), or the CPU limit ``--time-limit`` per fit (each fit runs in a
forked child with that CPU limit; a method over the limit on a table at some n is not
run again on it at that n).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import resource
import signal
import time
import warnings
from collections import defaultdict

import numpy as np
import pandas as pd
from bench_adult import independent_laplace, markdown_table
from bench_peers import independent_gaussian
from categorical_tables import load
from default_pipelines import default_pipeline, fit_sample

from skprivsynth.metrics import categorical_marginal_tvd

TABLES = ("mexico", "movies", "flights")
SIZES = (1_000, 10_000, 100_000)
SUBSAMPLE_SEED = 0
METHODS = {  # command-line name: synthesizer
    "marginal": "MarginalSynthesizer",
    "noisy-microaggregation": "NoisyMicroaggregation",
    "reduced-space-lp": "ReducedSpaceLP",
    "private-sampler": "PrivateSampler",
    "correlated-gaussian": "CorrelatedGaussianMechanism",
    "microaggregation": "MicroaggregationSynthesizer",
}
NOT_DP = {"microaggregation"}
BASELINE_DELTAS = (0.0, 1e-9, 1e-6)  # the package's default δ values: 0 (pure ε), 1e-9, 1e-6


def subsample(codes, n):
    rng = np.random.default_rng(SUBSAMPLE_SEED)
    return codes if n == len(codes) else codes[rng.choice(len(codes), n, replace=False)]


def tvd2(data, synthetic, domain):
    return categorical_marginal_tvd(data, synthetic, degree=2, domain=domain)


def baseline(data, domain, epsilon, delta, seed):
    """tvd2 of independent noisy 1-way marginals with the guarantee (ε, δ)."""
    if delta == 0:
        synthetic, _ = independent_laplace(data, domain, epsilon, seed)
    else:
        columns, levels = list(domain), list(domain.values())
        codes = independent_gaussian(data.to_numpy(), columns, levels, epsilon, delta, seed)
        synthetic = pd.DataFrame(codes, columns=columns)
    return tvd2(data, synthetic, domain)


def _run(connection, name, data, domain, epsilon, seed, cpu_limit):
    """Child: fit + sample one default pipeline, send tvd2 and the spent budget."""
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 5))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # seeded releases (PrivacyLeakWarning), solvers
            pipe = default_pipeline(METHODS[name], domain, seed, epsilon)
            synthetic, seconds = fit_sample(pipe, data, len(data), seed)
        result = {"tvd2": tvd2(data, synthetic, domain), "time_s": seconds}
        if epsilon is not None:
            report = pipe.privacy_report_
            if report.epsilon > epsilon * (1 + 1e-9):
                raise AssertionError(f"spent ε = {report.epsilon} above the total {epsilon}")
            result["delta"] = report.delta
    except Exception as error:  # reported as the reason the method cannot run here
        message = " ".join(str(error).split())
        result = {"error": f"{type(error).__name__}: {message[:300]}"}
    connection.send(result)
    connection.close()


def run_method(name, data, domain, epsilon, seed, cpu_limit):
    """One fit in a forked child under ``cpu_limit`` CPU seconds: a result dict."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_run, args=(send, name, data, domain, epsilon, seed, cpu_limit))
    child.start()
    send.close()
    result = None
    if receive.poll(4 * cpu_limit + 60):  # wall-clock guard on a loaded machine
        try:
            result = receive.recv()
        except EOFError:  # the child died without an answer (CPU limit, memory)
            pass
    if child.is_alive():
        child.kill()
    child.join()
    if result is None:
        if child.exitcode in (-signal.SIGXCPU, -signal.SIGKILL):
            return {"error": f"over the time limit ({cpu_limit} s of CPU per fit)"}
        return {"error": f"child process ended with code {child.exitcode}"}
    return result


def summarize(runs, baselines, epsilons):
    """One markdown table per (table, n): methods × ε, tvd2 mean over seeds, ✓ below
    the baseline with the method's own (ε, δ)."""
    out = []
    for (table, n, d), rows in runs.items():
        header = ["method"] + [f"ε = {e:g}" for e in epsilons] + ["fit+sample s", "note"]
        lines = []
        for delta in sorted({key[3] for key in baselines if key[:2] == (table, n)}):
            label = "Laplace, ε-DP" if delta == 0 else f"Gaussian, δ = {delta:g}"
            values = [f"{np.mean(baselines[(table, n, e, delta)]):.4f}" for e in epsilons]
            lines.append([f"independent 1-way ({label})", *values, "0.0", "baseline"])
        for name, by_epsilon in rows.items():
            label = METHODS[name] + (" † (k-anonymous, not DP)" if name in NOT_DP else "")
            values, times, notes = [], [], defaultdict(list)  # notes: reason -> ε values
            for e in epsilons:
                results = by_epsilon.get(None if name in NOT_DP else e, [])
                good = [r for r in results if "error" not in r]
                for error in sorted({r["error"] for r in results if "error" in r}):
                    notes[error].append(f"{e:g}")
                times += [r["time_s"] for r in good]
                if not results or len(good) < len(results):  # a seed did not run
                    values.append("–")
                    continue
                mean = np.mean([r["tvd2"] for r in good])
                deltas = {r["delta"] for r in good if "delta" in r}
                reference = baselines.get((table, n, e, *deltas)) if len(deltas) == 1 else None
                values.append(
                    f"{mean:.4f}" + (" ✓" if reference and mean < np.mean(reference) else "")
                )
            seconds = f"{np.mean(times):.1f}" if times else "–"
            notes = [
                reason if name in NOT_DP else f"ε = {', '.join(at)}: {reason}"
                for reason, at in notes.items()
            ]
            lines.append([label, *values, seconds, "; ".join(notes)])
        out.append(
            f"#### {table}, n = {n:,} ({d} columns)\n\n"
            + markdown_table([dict(zip(header, line, strict=True)) for line in lines])
        )
    return "\n\n".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", choices=list(METHODS), default=list(METHODS))
    parser.add_argument("--tables", nargs="+", default=list(TABLES))
    parser.add_argument("--n", nargs="+", type=int, default=list(SIZES))
    parser.add_argument("--epsilons", nargs="+", type=float, default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    parser.add_argument("--time-limit", type=int, default=300, help="CPU seconds per fit")
    parser.add_argument("--csv", default=None, help="also write every run to this CSV file")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    runs = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    baselines = defaultdict(list)
    records = []
    for table in args.tables:
        codes, sizes, columns = load(table)
        for n in args.n:
            if n > len(codes):
                print(f"{table}: {len(codes):,} rows < n = {n:,}, skipped", flush=True)
                continue
            data = pd.DataFrame(subsample(codes, n), columns=columns)
            domain = dict(zip(columns, sizes, strict=True))
            key = (table, n, len(columns))
            for name in args.methods:
                over_limit = None
                for epsilon in [None] if name in NOT_DP else args.epsilons:
                    for seed in args.seeds:
                        result = over_limit or run_method(
                            name, data, domain, epsilon, seed, args.time_limit
                        )
                        if result.get("error", "").startswith("over the time limit"):
                            over_limit = result
                        runs[key][name][epsilon].append(result)
                        records.append(
                            {
                                "table": table,
                                "n": n,
                                "method": name,
                                "epsilon": epsilon,
                                "seed": seed,
                                **result,
                            }  # fmt: skip
                        )
                        shown = result.get("error") or (
                            f"tvd2 {result['tvd2']:.4f}  fit+sample {result['time_s']:.1f} s"
                        )
                        print(f"{table:8s} n={n:<7d} {name:22s} eps={epsilon!s:4s} "
                              f"seed={seed}  {shown}", flush=True)  # fmt: skip
            # The baselines at the package's default δ values and at any other δ a
            # method reported (a changed default).
            reported = {r["delta"] for m in runs[key].values() for rs in m.values()
                        for r in rs if "delta" in r}  # fmt: skip
            for delta in sorted(set(BASELINE_DELTAS) | reported):
                for epsilon in args.epsilons:
                    baselines[(table, n, epsilon, delta)] = [
                        baseline(data, domain, epsilon, delta, seed) for seed in args.seeds
                    ]
    used = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(u.ru_utime + u.ru_stime for u in used)
    print()
    print(summarize(runs, baselines, args.epsilons))
    print(
        f"\nseeds {args.seeds}; {time.perf_counter() - start:.0f} s wall, "
        f"{cpu:.0f} s CPU ({math.ceil(cpu / 60)} min)"
    )
    if args.csv:
        pd.DataFrame(records).to_csv(args.csv, index=False)


if __name__ == "__main__":
    main()
