"""CorrelatedGaussianMechanism: speed of its steps, error against the plain Gaussian mechanism,
and accuracy on a binary encoding of Adult.  Prints markdown tables to stdout.

Run:  python benchmarks/bench_correlated_gaussian.py [--sections timing solver ratio adult]
          [--max-p 20] [--seeds 5] [--adult-bits 20]

Sections
--------
timing  decomposition time vs p (8 … max-p) and degree on the whole cube (fast Walsh path),
        and the general MVEE path on the same workload for small p.
solver  consistency step (non-negative least squares over histograms of mass n): FISTA with
        fast Walsh–Hadamard products and support polishing (the library's choice) vs OSQP
        with the split variable z = A x̂ on the same noisy answers.
ratio   mean squared error of the raw noisy answers, correlated / plain Gaussian mechanism,
        at the same (ε, δ) = (1, 1e-6), averaged over seeds: all 2-way tables of p bits and a
        skewed workload (all 1-way tables + one 3-way table).  Also against "plain + LS": the
        plain answers projected onto the range of A (free post-processing).
adult   Adult encoded in 14–20 bits (1–2 bits per column, contiguous code ranges); the
        mechanism releases all 2-way tables of the bits with 90 % of ε, coarse ranges are
        decoded in proportion to Laplace level frequencies (10 % of ε); metric tvd2 on the
        14 decoded columns (the metric of benchmarks/RESULTS.md).  Replace-one neighbours
        throughout.

Timings are wall-clock on a shared 2-core machine and noisy.
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
import scipy.sparse as sp

from skprivsynth._math.ellipsoid import base_decomposition
from skprivsynth._math.simplex import simplex_least_squares
from skprivsynth._math.solvers import SolverError, solve_qp
from skprivsynth._math.workload_operator import WorkloadOperator
from skprivsynth.synthesizers.gaussian import CorrelatedGaussianMechanism, plain_gaussian_mechanism

EPS, DELTA = 1.0, 1e-6


def _data(n, p, seed=0):
    rng = np.random.default_rng(seed)
    latent = rng.random((n, 1))
    return (rng.random((n, p)) < 0.15 + 0.6 * latent).astype(float)


def _table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def section_timing(max_p):
    rows = []
    for degree in (2, 3):
        for p in range(8, max_p + 1, 2):
            t = time.perf_counter()
            wl = WorkloadOperator(p, degree, None, None, 2**p)  # builds T (q × L)
            dec = wl.decompose(eta=0.05)
            t_fast = time.perf_counter() - t
            t_slow = "–"
            if p <= 12 and degree == 2:
                records = ((np.arange(2**p)[:, None] >> np.arange(p)) & 1).astype(np.uint8)
                A = wl.marginal.query_matrix(records)
                t = time.perf_counter()
                base_decomposition(A, center=np.asarray(A.sum(axis=1)).ravel() / 2**p)
                t_slow = f"{time.perf_counter() - t:.2f}"
            rows.append(
                [p, degree, wl.q, int(dec.ranks.sum()), dec.n_blocks, f"{t_fast:.3f}", t_slow]
            )
    print("\n### Base decomposition time (s), whole cube\n")
    print(
        _table(
            [
                "p",
                "degree",
                "queries q",
                "rank",
                "blocks k",
                "fast Walsh path (incl. T)",
                "general MVEE path",
            ],
            rows,
        )
    )


def section_solver(max_p):
    rows = []
    for n, p in itertools.product((100, 5000), range(8, min(max_p, 18) + 1, 2)):
        X = _data(n, p)
        est = CorrelatedGaussianMechanism(EPS, DELTA, random_state=0).fit(X)
        wl = est._workload
        y = est.noisy_answers_ / n
        energy = (
            sum(U.shape[1] * s**2 for U, s in zip(est.noise_bases_, est.noise_scale_, strict=True))
            / n**2
        )
        t = time.perf_counter()
        h, gap, iters = simplex_least_squares(
            wl.answers,
            wl.adjoint,
            y,
            wl.N,
            wl.lipschitz(),
            rtol=1e-3,
            atol=1e-4 * energy,
            columns=wl.columns,
        )
        t_fista = time.perf_counter() - t
        f_fista = 0.5 * np.sum((wl.answers(h) - y) ** 2)
        t_osqp, f_osqp = "–", "–"
        if p <= 12:
            records = ((np.arange(2**p)[:, None] >> np.arange(p)) & 1).astype(np.uint8)
            A = wl.marginal.query_matrix(records).tocsc()
            N, q = A.shape[1], A.shape[0]
            P = sp.block_diag([sp.csc_matrix((N, N)), sp.identity(q)], format="csc")
            cons = sp.vstack(
                [
                    sp.hstack([A, -sp.identity(q)]),
                    sp.hstack([sp.csc_matrix(np.ones((1, N))), sp.csc_matrix((1, q))]),
                    sp.hstack([sp.identity(N), sp.csc_matrix((N, q))]),
                ],
                format="csc",
            )
            lo = np.r_[np.zeros(q), 1.0, np.zeros(N)]
            hi = np.r_[np.zeros(q), 1.0, np.full(N, np.inf)]
            t = time.perf_counter()
            try:
                res = solve_qp(P, np.r_[np.zeros(N), -y], cons, lo, hi, eps=1e-6, time_limit=60.0)
                t_osqp = f"{time.perf_counter() - t:.2f}"
                f_osqp = f"{0.5 * np.sum((A @ res.x[:N] - y) ** 2):.6e}"
            except SolverError as exc:
                t_osqp = f"> {time.perf_counter() - t:.0f} (failed)"
                f_osqp = str(exc).split(":")[1].split(" after")[0].strip()
        rows.append([n, p, 2**p, wl.q, iters, f"{t_fista:.2f}", f"{f_fista:.6e}", t_osqp, f_osqp])
    print("\n### Consistency step: FISTA + fast Walsh–Hadamard vs OSQP (split variable)\n")
    print(
        _table(
            [
                "n",
                "p",
                "N = 2^p",
                "q",
                "FISTA iters",
                "FISTA s",
                "FISTA objective",
                "OSQP s",
                "OSQP objective",
            ],
            rows,
        )
    )


def _expected_mse(est):
    """Exact E[MSE] of the raw correlated answers: trace of the noise covariance / q."""
    return (
        sum(U.shape[1] * s**2 for U, s in zip(est.noise_bases_, est.noise_scale_, strict=True))
        / est.n_queries_
    )


def section_ratio(max_p, seeds):
    rows = []
    for p in range(12, min(max_p, 16) + 1, 2):
        X = _data(5000, p)
        workloads = {
            "all 2-way tables": list(itertools.combinations(range(p), 2)),
            "1-way tables + one 3-way": [(j,) for j in range(p)] + [(0, 1, 2)],
        }
        for name, wl in workloads.items():
            exact, empirical = {}, {}
            for allocation in ("optimal", "paper"):
                corr, plain = [], []
                for seed in range(seeds):
                    est = CorrelatedGaussianMechanism(
                        EPS, DELTA, workload=wl, noise_allocation=allocation, random_state=seed
                    ).fit(X)
                    truth = est.workload_answers(X)
                    corr.append(np.mean((est.noisy_answers_ - truth) ** 2))
                    noisy, scale = plain_gaussian_mechanism(
                        X, EPS, DELTA, workload=wl, random_state=100 + seed
                    )
                    plain.append(np.mean((noisy - truth) ** 2))
                empirical[allocation] = np.mean(corr) / np.mean(plain)
                rank = int(est.block_ranks_.sum())
                # plain + LS: n·ā + projection of the plain answers onto the span of the
                # centred columns (valid post-processing, n public): E[MSE] = σ²·rank/q.
                exact[allocation] = (
                    _expected_mse(est) / scale**2,
                    _expected_mse(est) / (scale**2 * rank / est.n_queries_),
                )
            rows.append(
                [
                    p,
                    name,
                    est.n_queries_,
                    rank,
                    len(est.noise_bases_),
                    f"{empirical['optimal']:.3f}",
                    f"{exact['optimal'][0]:.3f}",
                    f"{empirical['paper']:.3f}",
                    f"{exact['paper'][0]:.3f}",
                    f"{exact['optimal'][1]:.3f}",
                    f"{exact['paper'][1]:.3f}",
                ]
            )
    print(
        f"\n### MSE ratio correlated / plain Gaussian, (ε, δ) = ({EPS}, {DELTA}); empirical "
        f"over {seeds} seeds and exact (trace of the covariances)\n"
    )
    print(
        _table(
            [
                "p",
                "workload",
                "q",
                "rank",
                "k",
                "optimal/plain emp.",
                "optimal/plain exact",
                "paper/plain emp.",
                "paper/plain exact",
                "optimal/(plain+LS) exact",
                "paper/(plain+LS) exact",
            ],
            rows,
        )
    )


# Bits per Adult column for the 20-bit encoding (contiguous ranges of integer codes).
ADULT_BITS = {
    "age": 2,
    "workclass": 1,
    "fnlwgt": 1,
    "education-num": 2,
    "marital-status": 2,
    "occupation": 2,
    "relationship": 2,
    "race": 1,
    "sex": 1,
    "capital-gain": 1,
    "capital-loss": 1,
    "hours-per-week": 2,
    "native-country": 1,
    "income>50K": 1,
}


def _adult_bits(total_bits):
    bits = dict(ADULT_BITS)
    for col in [
        "occupation",
        "marital-status",
        "hours-per-week",
        "age",
        "relationship",
        "education-num",
    ][: 20 - total_bits]:
        bits[col] = 1
    return bits


def _encode_adult(data, domain, bits):
    cols = []
    for c, b in bits.items():
        group = (data[c].to_numpy() * 2**b) // domain[c]
        cols.append((group[:, None] >> np.arange(b - 1, -1, -1)) & 1)
    return np.hstack(cols).astype(float)


def _decode_adult(Z, domain, bits, weights, rng):
    import pandas as pd

    out, start = {}, 0
    for c, b in bits.items():
        group = (Z[:, start : start + b].astype(int) * (1 << np.arange(b - 1, -1, -1))).sum(axis=1)
        start += b
        K = domain[c]
        levels = np.empty(len(Z), dtype=np.int64)
        for g in range(2**b):
            lo, hi = -(-g * K // 2**b), -(-(g + 1) * K // 2**b)
            w = weights[c][lo:hi].astype(float)
            w = np.ones(hi - lo) if w.sum() <= 0 else w
            rows = np.flatnonzero(group == g)
            levels[rows] = lo + rng.choice(hi - lo, size=rows.size, p=w / w.sum())
        out[c] = levels
    return pd.DataFrame(out)


def section_adult(total_bits, seeds):
    from skprivsynth.datasets import load_adult
    from skprivsynth.metrics import categorical_marginal_tvd
    from skprivsynth.preprocessing import private_level_frequencies

    adult = load_adult()
    data, domain = adult.data, adult.domain
    bits = _adult_bits(total_bits)
    X = _encode_adult(data, domain, bits)
    n, p = X.shape
    rows = []
    for eps in (0.5, 1.0, 2.0, 4.0):
        scores = {"correlated": [], "plain + LS": []}
        times = []
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            weights = private_level_frequencies(data, domain, 0.1 * eps, random_state=rng)
            t = time.perf_counter()
            est = CorrelatedGaussianMechanism(0.9 * eps, DELTA, random_state=seed).fit(X)
            times.append(time.perf_counter() - t)
            Z = est.sample(n, random_state=seed)
            synth = _decode_adult(Z, domain, bits, weights, rng)
            scores["correlated"].append(categorical_marginal_tvd(data, synth, 2, domain=domain))
            noisy, _ = plain_gaussian_mechanism(X, 0.9 * eps, DELTA, random_state=seed)
            wl = est._workload
            h, _, _ = simplex_least_squares(
                wl.answers,
                wl.adjoint,
                noisy / n,
                wl.N,
                wl.lipschitz(),
                rtol=1e-3,
                columns=wl.columns,
            )
            idx = rng.choice(wl.N, size=n, p=h / h.sum())
            synth_plain = _decode_adult(wl.decode(idx), domain, bits, weights, rng)
            scores["plain + LS"].append(
                categorical_marginal_tvd(data, synth_plain, 2, domain=domain)
            )
        rows.append(
            [
                eps,
                f"{np.mean(scores['correlated']):.4f}",
                f"{np.mean(scores['plain + LS']):.4f}",
                f"{np.mean(times):.1f}",
            ]
        )
    # Floor of the encoding: the exact histogram of the bits, decoded the same way.
    rng = np.random.default_rng(0)
    weights = {c: np.bincount(data[c], minlength=k).astype(float) for c, k in domain.items()}
    floor = categorical_marginal_tvd(
        data, _decode_adult(X[rng.integers(0, n, n)], domain, bits, weights, rng), 2, domain=domain
    )
    print(
        f"\n### Adult, {p}-bit encoding, all 2-way tables of the bits, δ = {DELTA}, "
        f"{seeds} seed(s): tvd2 on the 14 decoded columns\n"
    )
    print(_table(["ε (total)", "correlated Gaussian", "plain Gaussian + LS", "fit s"], rows))
    print(
        f"\nEncoding floor (bootstrap of the encoded data, decoded with exact level "
        f"frequencies; non-private): tvd2 = {floor:.4f}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", nargs="+", default=["timing", "solver", "ratio", "adult"])
    parser.add_argument("--max-p", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--adult-bits", type=int, default=20)
    args = parser.parse_args()
    if "timing" in args.sections:
        section_timing(args.max_p)
    if "solver" in args.sections:
        section_solver(args.max_p)
    if "ratio" in args.sections:
        section_ratio(args.max_p, args.seeds)
    if "adult" in args.sections:
        section_adult(args.adult_bits, max(1, args.seeds // 5))


if __name__ == "__main__":
    main()
