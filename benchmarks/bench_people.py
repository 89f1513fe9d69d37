"""One person, many rows: person-level MarginalSynthesizer against its alternatives.

A generated visits table (no real person behind it; the model below): 3,000 people with
a sex and an age group (constant within a person), 1 to 40 visits each (geometric, more
for the old: mean about 4.6, about 15 % of the people above the bound k = 10), and per
visit a diagnosis that depends on the age group, a severity that depends on the
diagnosis and a ward that depends on the severity.  Each method is person-level
(ε, δ = 1e-9)-DP with every person bounded to their first k rows:

* ``person``: ``MarginalSynthesizer(max_rows_per_person=k, person_columns=[0, 1])``
  (rows weighted 1/c, the number of rows a person keeps as a column);
* ``first row``: the row-level synthesizer on each person's first row (one row a
  person, so replace-one rows of that table is replace-one person);
* ``group``: the row-level synthesizer on the bounded rows (with c as a column) at
  ρ/k², which group privacy makes k²·(ρ/k²) = ρ-zCDP per person (Bun & Steinke 2016,
  Prop. 1.9); its rows-per-person estimate is the row distribution of c divided by c.

Measured: the mean 2-way TVD of the rows' five columns against the whole table's rows,
and the TVD of the distribution of rows per person against the bounded one
(``min(n_i, k)``, what a bound of k can learn).  Seeds 0-2; ``OMP_NUM_THREADS=1 python
benchmarks/bench_people.py``.
"""

import itertools
import sys
import time
import warnings

import numpy as np

from skprivsynth import MarginalSynthesizer
from skprivsynth._math.people import bound_contributions
from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.privacy import zcdp_epsilon, zcdp_rho

K, DELTA = 10, 1e-9
DOMAIN = [2, 6, 8, 3, 4]  # sex, age group | diagnosis, severity, ward
PERSON_COLUMNS = [0, 1]


def make_visits(n_people=3000, seed=0):
    """Codes of the visits and the person of each (the model of the module)."""
    rng = np.random.default_rng(1000 + seed)
    sex = rng.integers(0, 2, n_people)
    age = rng.choice(6, n_people, p=[0.1, 0.15, 0.2, 0.2, 0.2, 0.15])
    rows = np.minimum(rng.geometric(1 / (2.5 + 0.8 * age)), 40)
    person = np.repeat(np.arange(n_people), rows)
    a = age[person]
    diagnosis = np.where(rng.random(person.size) < 0.6, (a + rng.integers(0, 3, a.size)) % 8,
                         rng.integers(0, 8, a.size))  # fmt: skip
    severity = np.minimum(2, (diagnosis >= 4) + (rng.random(a.size) < 0.2 + 0.1 * (a >= 4)))
    ward = np.where(rng.random(a.size) < 0.7, severity + (sex[person] & (severity == 0)),
                    rng.integers(0, 4, a.size))  # fmt: skip
    X = np.column_stack([sex[person], age[person], diagnosis, severity, ward]).astype(float)
    return X, person


def mean_two_way_tvd(real, synth):
    tvds = []
    for a, b in itertools.combinations(range(len(DOMAIN)), 2):
        shape = (DOMAIN[a], DOMAIN[b])
        t = [np.bincount(np.ravel_multi_index((x[:, a].astype(int), x[:, b].astype(int)), shape),
                         minlength=shape[0] * shape[1]) for x in (real, synth)]  # fmt: skip
        tvds.append(0.5 * np.abs(t[0] / t[0].sum() - t[1] / t[1].sum()).sum())
    return float(np.mean(tvds))


def tvd(p, q):
    return float(0.5 * np.abs(p / p.sum() - q / q.sum()).sum())


def run_methods(X, persons, epsilon, seed):
    keep, person, first, counts = bound_contributions(persons, K)
    target = np.bincount(counts, minlength=K + 1)[1:].astype(float)
    n_people = len(counts)
    out = {}

    est = MarginalSynthesizer(epsilon, delta=DELTA, domain=DOMAIN, max_rows_per_person=K,
                              person_columns=PERSON_COLUMNS, random_state=seed)  # fmt: skip
    rows, keys = est.fit(X, persons=persons).sample_people()
    out["person"] = (mean_two_way_tvd(X, rows),
                     tvd(target, np.bincount(np.bincount(keys), minlength=K + 1)[1:]))  # fmt: skip

    est = MarginalSynthesizer(epsilon, delta=DELTA, domain=DOMAIN, random_state=seed)
    rows = est.fit(X[first]).sample(n_people)
    out["first row"] = (mean_two_way_tvd(X, rows), tvd(target, np.eye(K)[0]))

    # Group privacy: rho/k^2 row-level on the bounded rows, c − 1 as a last column.
    group_epsilon = zcdp_epsilon(zcdp_rho(epsilon, DELTA) / K**2, DELTA)
    bounded = np.column_stack([X[keep], counts[person[keep]] - 1])
    est = MarginalSynthesizer(group_epsilon, delta=DELTA, domain=DOMAIN + [K], random_state=seed)
    rows = est.fit(bounded).sample(int(keep.sum()))
    c_rows = np.bincount(rows[:, -1].astype(int), minlength=K).astype(float)
    out["group"] = (mean_two_way_tvd(X, rows[:, :-1]), tvd(target, c_rows / np.arange(1, K + 1)))
    return out


def main(epsilons=(0.5, 1.0, 2.0), seeds=(0, 1, 2)):
    warnings.simplefilter("ignore", PrivacyLeakWarning)
    X, persons = make_visits()
    counts = np.bincount(persons)
    print(f"{len(counts)} people, {len(X)} rows, mean {counts.mean():.2f} rows a person, "
          f"{np.mean(counts > K):.1%} above k = {K}")  # fmt: skip
    print("| ε | method | 2-way TVD of rows | TVD of rows per person | s |")
    print("|---|---|---|---|---|")
    for epsilon in epsilons:
        results, start = {}, time.perf_counter()
        for seed in seeds:
            for method, values in run_methods(X, persons, epsilon, seed).items():
                results.setdefault(method, []).append(values)
        elapsed = time.perf_counter() - start
        for method, values in results.items():
            mean, sd = np.mean(values, axis=0), np.std(values, axis=0)
            print(f"| {epsilon:g} | {method} | {mean[0]:.4f} ± {sd[0]:.4f} | "
                  f"{mean[1]:.4f} ± {sd[1]:.4f} | {elapsed:.0f} |")  # fmt: skip
        sys.stdout.flush()


if __name__ == "__main__":
    main()
