"""A modelled part of a datetime against a categorical column with as many levels.

A generated 20,000-row table (issue 45, item 2): a minute-resolution admission
timestamp over one year, its ``month`` declared ``{"part_of": "admitted", "part":
"month"}``, a 12-level categorical ``ward``, an integer age, a log-normal cost, an
ordered severity and sex; ``make_private_pipeline(MarginalSynthesizer(epsilon=1))``
with its defaults (``datetime_parts="modelled"``), seeds 0-2.

Printed per seed: the 1-way TVD of ``month`` and of ``ward``, the timestamp's KS
distance, the share of rows whose month agrees with their timestamp, and two
diagnostics read from the synthesizer's codes before decoding: the month's 1-way TVD
taken straight from its codes, and the share of rows whose modelled month meets the
timestamp's decoded bin.

Run:  PYTHONPATH=. python benchmarks/bench_parts.py
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pandas as pd
from scipy.stats import ks_2samp

from skprivsynth import MarginalSynthesizer, make_private_pipeline
from skprivsynth.validation import role_generator

N = 20_000
SEEDS = (0, 1, 2)
WARDS = [f"w{k:02d}" for k in range(12)]
DOMAIN = {
    "admitted": {
        "type": "datetime",
        "range": ["2023-01-01", "2023-12-31T23:59"],
        "resolution": "min",
    },
    "month": {"part_of": "admitted", "part": "month"},
    "ward": WARDS,
    "age": {"type": "integer", "range": [0, 99]},
    "cost": {"type": "float", "range": [0, 5000], "decimals": 2},
    "severity": {"levels": ["low", "medium", "high"], "ordered": True},
    "sex": ["F", "M"],
}


def table(n=N, seed=12345):
    """The generated table: admissions spread over the year (busier in daytime and on
    weekdays), cost depending on age and severity, ward on severity."""
    rng = np.random.default_rng(seed)
    days = rng.integers(0, 365, n)
    start = pd.Timestamp("2023-01-01") + pd.to_timedelta(days, "D")
    weekend = start.day_of_week.to_numpy() >= 5
    days = np.where(weekend & (rng.random(n) < 0.3), rng.integers(0, 365, n), days)
    minute = np.clip(rng.normal(13 * 60, 4 * 60, n), 0, 1439).astype(int)
    admitted = pd.Timestamp("2023-01-01") + pd.to_timedelta(days * 1440 + minute, "min")
    age = np.clip(rng.normal(50, 20, n), 0, 99).astype(int)
    severity = rng.choice(3, n, p=[0.5, 0.35, 0.15])
    cost = np.round(np.clip(rng.lognormal(5 + 0.01 * age + 0.5 * severity, 0.8), 0, 5000), 2)
    ward = (rng.integers(0, 12, n) + (severity == 2) * rng.integers(0, 3, n)) % 12
    return pd.DataFrame(
        {
            "admitted": admitted,
            "month": admitted.month,
            "ward": np.array(WARDS)[ward],
            "age": age,
            "cost": cost,
            "severity": pd.Categorical(
                np.array(["low", "medium", "high"])[severity],
                ["low", "medium", "high"],
                ordered=True,
            ),
            "sex": rng.choice(["F", "M"], n),
        }
    )


def tvd(a, b):
    """1-way total variation distance of two columns."""
    p, q = (pd.Series(x).value_counts(normalize=True) for x in (a, b))
    index = p.index.union(q.index)
    return 0.5 * (p.reindex(index, fill_value=0) - q.reindex(index, fill_value=0)).abs().sum()


def diagnostics(pipe, real, seed):
    """The month's 1-way TVD from the synthesizer's codes, and the share of rows whose
    modelled month meets the timestamp's decoded bin (the sample ``pipe.sample`` draws
    with ``random_state=seed``)."""
    encoder = pipe.steps[0][1]
    codes = pipe._draw(None, role_generator(seed, "pipeline sampling"))
    names = list(encoder.get_feature_names_out())
    month = np.rint(codes[:, names.index("month")]).astype(int) + 1
    edges = encoder._encoding[0].edges
    k = np.clip(np.rint(codes[:, names.index("admitted")]).astype(int), 0, edges.size - 2)
    first = pd.to_datetime(edges[k], unit="s")
    last = pd.to_datetime(np.maximum(edges[k], edges[k + 1] - 60), unit="s")
    # The months a bin meets: those from its first minute's to its last one's.
    index = (first.year - 2023) * 12 + first.month
    meets = (month >= index) & (month <= (last.year - 2023) * 12 + last.month)
    return tvd(real["month"], month), float(np.mean(meets)), int(edges.size - 1)


def main():
    real = table()
    rows = []
    for seed in SEEDS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pipe = make_private_pipeline(
                MarginalSynthesizer(epsilon=1.0, random_state=seed), DOMAIN, random_state=seed
            ).fit(real)
            out = pipe.sample(random_state=seed)
            codes_tvd, meets, n_bins = diagnostics(pipe, real, seed)
        seconds = [
            x.astype("datetime64[s]").astype(np.int64) for x in (real["admitted"], out["admitted"])
        ]
        rows.append(
            {
                "seed": seed,
                "month TVD": tvd(real["month"], out["month"]),
                "ward TVD": tvd(real["ward"], out["ward"]),
                "admitted KS": ks_2samp(*seconds).statistic,
                "agreement": float((out["month"] == out["admitted"].dt.month).mean()),
                "month TVD (codes)": codes_tvd,
                "month meets bin": meets,
                "bins": n_bins,
            }
        )
    frame = pd.DataFrame(rows).set_index("seed")
    print(frame.to_string(float_format=lambda x: f"{x:.4f}"))
    worst = frame["month TVD"].max()
    bound = max(1.5 * frame["ward TVD"].max(), 0.01)
    print(f"worst month TVD {worst:.4f} against max(1.5 x worst ward TVD, 0.01) = {bound:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
