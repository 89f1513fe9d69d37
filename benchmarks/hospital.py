"""A generated hospital admissions table with its declared domain, for the report and
the command line (issue 45): ``make_hospital(n, seed)``.

The table is synthetic from the start (no real patient is behind it) and has the shapes
a hospital extract brings, each from a stated generative model rather than from a
target metric:

``id``
    a record number, ``"A000001"`` ... in admission order (an identifier: the domain
    draft leaves it out; ``synthesize --drop id``).
``admitted``
    the admission time in 2024 at minute resolution.  Days follow a seasonal cycle
    (10 % more admissions in January than in July) and a weekly one (weekend days at
    75 % of a weekday); the hour of day mixes emergency admissions (70 %, spread over
    the day with a late-afternoon peak) and elective ones (30 %, 07:00 to 11:00).
``month``
    the month of ``admitted`` (a part of it in the domain).
``age``
    an integer age: 8 % children (uniform 0 to 17), the others adults of age
    18 + 87 B with B ~ Beta(2.6, 2.2) (mean 65, standard deviation 18, a density that
    falls to 0 at both ends, so no age piles up at a bound), rounded down.
``severity``
    ordered ``low`` < ``medium`` < ``high``, from an ordered-logit model on age
    (the latent score rises 0.35 standard deviations per 10 years; cut points give
    about 50 / 35 / 15 % of the rows).
``sex``
    ``F`` (52 %) or ``M``.
``cost``
    the cost of the stay in currency units, log-normal given severity (medians 3,500,
    6,500 and 15,000, log standard deviation 1.0) and 8 % higher for ages 75 and
    over, rounded to cents.  Health care costs are right-skewed with a long upper tail
    and close to log-normal (Diehr, Yanez, Ash, Hornbrook & Lin, *Methods for analyzing
    health care utilization and costs*, Annual Review of Public Health 20, 1999): the
    mean is well above the median and the top percent of stays holds a large share of
    the total.
``lab``
    a serum lactate in mmol/L, one decimal, log-normal given severity (medians 1.1,
    1.5 and 2.4, log standard deviation 0.45), **missing** when not ordered: a test is
    ordered more often for sicker patients (missing with probability 0.45, 0.25 and
    0.10 at low, medium and high severity, about 32 % overall), so it is missing at
    random given severity, not completely at random.
``notes``
    free text assembled from short clinical phrases and a reference number (almost
    every value unique: ``synthesize --drop notes``).

With ``relations=True`` (``--relations``) the table has four more columns, related to
others as a hospital extract's are, and its domain declares those relations:

``discharged``
    the discharge time, ``admitted`` plus a length of stay, log-normal given severity
    (medians 2, 4 and 7 days, log standard deviation 0.8, at most 90 days), at the
    minute: never before the admission (``"at_least": "admitted"``).
``care``, ``drugs``
    the parts of ``cost``: ``drugs`` a Beta(2, 5) share of it (mean 29 %), ``care``
    the rest, both at cents and at most 500,000, so that ``cost = care + drugs``
    (``"sum_of": ["care", "drugs"]``).
``paid``
    what the insurer paid: the whole cost for 40 % of the stays, else a Beta(6, 2)
    share of it (mean 75 %), at cents, never more than ``cost`` (``"at_most":
    "cost"``).

The declared domain (:data:`DOMAIN`, returned with the table) is what a data holder
could write without reading the rows: the calendar year, ages 0 to 110, a cost range up
to 1,000,000 at cents, lactate from 0 to 30 mmol/L at one decimal with missing values,
the levels.  It declares neither ``id`` nor ``notes``.  Values outside a declared range
would be clipped to it (none are at the defaults).

Run:  python benchmarks/hospital.py [--n 20000] [--seed 0] [--relations] [--out-dir DIR]
writes ``real.csv`` and ``domain.json`` there, for instance for

    skprivsynth synthesize real.csv -o synthetic.csv --domain domain.json --drop id notes
    skprivsynth evaluate real.csv synthetic.csv --domain domain.json --report report.html
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pandas as pd

YEAR = 2024
SEVERITY = ["low", "medium", "high"]

DOMAIN = {
    # the calendar year of the extract, at the minute the admission system records
    "admitted": {
        "type": "datetime",
        "range": [f"{YEAR}-01-01T00:00", f"{YEAR}-12-31T23:59"],
        "resolution": "min",
    },
    "month": {"part_of": "admitted", "part": "month"},
    "age": {"type": "integer", "range": [0, 110]},  # years; above any recorded age
    "severity": {"levels": SEVERITY, "ordered": True},  # the triage scale
    "sex": ["F", "M"],
    # currency units at cents; an upper bound above any single stay (a public cap,
    # not the data's maximum)
    "cost": {"type": "float", "range": [0, 1_000_000], "decimals": 2},
    # mmol/L at the analyser's one decimal; 30 is above the reportable range
    "lab": {"type": "float", "range": [0, 30], "decimals": 1, "missing": True},
}

#: The relations of ``make_hospital(relations=True)``: column -> what it adds to its
#: spec (see the module docstring).
RELATIONS = {
    "discharged": {"at_least": "admitted"},
    "cost": {"sum_of": ["care", "drugs"]},
    "paid": {"at_most": "cost"},
}

#: The specs of the columns ``make_hospital(relations=True)`` adds (the discharge a
#: quarter after the year at most; each part of a cost at most half its range).
RELATED_COLUMNS = {
    "discharged": {
        "type": "datetime",
        "range": [f"{YEAR}-01-01T00:00", f"{YEAR + 1}-03-31T23:59"],
        "resolution": "min",
    },
    "care": {"type": "float", "range": [0, 500_000], "decimals": 2},
    "drugs": {"type": "float", "range": [0, 500_000], "decimals": 2},
    "paid": {"type": "float", "range": [0, 1_000_000], "decimals": 2},
}

_COMPLAINTS = [
    "chest pain", "shortness of breath", "abdominal pain", "fall at home", "fever",
    "syncope", "hip fracture", "pneumonia", "urinary tract infection", "stroke symptoms",
    "elective knee replacement", "elective cholecystectomy", "sepsis", "heart failure",
    "COPD exacerbation", "diabetic ketoacidosis",
]  # fmt: skip
_HISTORY = [
    "No relevant history.", "History of hypertension.", "Type 2 diabetes.",
    "Atrial fibrillation on anticoagulation.", "Previous admission last year.",
    "Lives alone.", "Smoker.", "Chronic kidney disease stage 3.",
]  # fmt: skip
_PLANS = [
    "observe overnight", "IV antibiotics", "surgical review", "discharge with follow-up",
    "admit to ward", "ICU review", "physiotherapy", "repeat bloods in the morning",
]  # fmt: skip


def _admission_times(n, rng):
    """Minute timestamps in ``YEAR``: seasonal and weekly day weights, and an hour of
    day mixing emergency and elective admissions."""
    days = pd.date_range(f"{YEAR}-01-01", f"{YEAR}-12-31", freq="D")
    day_of_year = np.arange(days.size)
    weight = 1.0 + 0.05 * np.cos(2 * np.pi * day_of_year / days.size)  # Jan / Jul: 1.1
    weight *= np.where(days.day_of_week >= 5, 0.75, 1.0)
    day = rng.choice(days.size, size=n, p=weight / weight.sum())
    emergency = rng.random(n) < 0.7
    # Emergency: a peak around 17:00 on a floor over the whole day; elective: 07-11.
    hour_weight = 0.5 + np.exp(-0.5 * ((np.arange(24) - 17) / 4.0) ** 2)
    hour = np.where(
        emergency,
        rng.choice(24, size=n, p=hour_weight / hour_weight.sum()),
        rng.integers(7, 11, size=n),
    )
    minute = rng.integers(0, 60, size=n)
    stamps = days.values[day] + (hour * 60 + minute) * np.timedelta64(1, "m")
    return np.sort(stamps.astype("datetime64[m]").astype("datetime64[ns]"))


def _clip(values, spec):
    low, high = spec["range"]
    return np.clip(values, low, high)


def hospital_domain(relations=False, declared=True):
    """The declared domain of :func:`make_hospital` (a dict): with ``relations``, that
    of its related columns too, with their relations when ``declared``."""
    domain = json.loads(json.dumps(DOMAIN))
    if relations:
        domain.update(json.loads(json.dumps(RELATED_COLUMNS)))
        if declared:
            for column, relation in RELATIONS.items():
                domain[column] = {**domain[column], **relation}
    return domain


def make_hospital(n=20_000, seed=0, relations=False):
    """A generated hospital admissions table of ``n`` rows and its declared domain.

    Parameters
    ----------
    n : int, default=20000
        Number of rows.
    seed : int, default=0
        Seed of :func:`numpy.random.default_rng`; the same ``(n, seed)`` gives the
        same table.
    relations : bool, default=False
        Whether to add the related columns ``discharged``, ``care``, ``drugs`` and
        ``paid`` (drawn after the others, from a stream of their own: the other
        columns are those of ``relations=False``) and declare their relations.

    Returns
    -------
    frame : pandas.DataFrame
        Columns ``id``, ``admitted`` (``datetime64[ns]``), ``month``, ``age``,
        ``severity``, ``sex``, ``cost``, ``lab`` (NaN where missing) and ``notes``;
        see the module docstring for the model of each.
    domain : dict
        The declared domain (:func:`hospital_domain`): every column but ``id`` and
        ``notes``.
    """
    rng = np.random.default_rng(seed)
    admitted = _admission_times(n, rng)
    child = rng.random(n) < 0.08
    age = np.where(
        child,
        rng.integers(0, 18, size=n),
        np.floor(18 + 87 * rng.beta(2.6, 2.2, size=n)),
    ).astype(np.int64)
    age = _clip(age, DOMAIN["age"])
    # Ordered logit on age: latent = 0.35 * (age - 62) / 10 + logistic noise.
    latent = 0.35 * (age - 62) / 10 + rng.logistic(size=n)
    severity_code = np.digitize(latent, [0.0, 1.75])
    severity = np.asarray(SEVERITY, dtype=object)[severity_code]
    sex = np.where(rng.random(n) < 0.52, "F", "M").astype(object)
    median_cost = np.array([3_500.0, 6_500.0, 15_000.0])[severity_code]
    median_cost *= np.where(age >= 75, 1.08, 1.0)
    cost = median_cost * np.exp(rng.normal(0.0, 1.0, size=n))
    cost = np.round(_clip(cost, DOMAIN["cost"]), 2)
    median_lab = np.array([1.1, 1.5, 2.4])[severity_code]
    lab = np.round(_clip(median_lab * np.exp(rng.normal(0.0, 0.45, size=n)), DOMAIN["lab"]), 1)
    missing = rng.random(n) < np.array([0.45, 0.25, 0.10])[severity_code]
    lab[missing] = np.nan
    notes = [
        f"{rng.choice(_COMPLAINTS).capitalize()}. {rng.choice(_HISTORY)} "
        f"Plan: {rng.choice(_PLANS)}. Ref {rng.integers(10**5, 10**6)}."
        for _ in range(n)
    ]
    frame = pd.DataFrame(
        {
            "id": [f"A{k:06d}" for k in range(1, n + 1)],
            "admitted": admitted,
            "month": pd.DatetimeIndex(admitted).month.astype(np.int64),
            "age": age,
            "severity": severity,
            "sex": sex,
            "cost": cost,
            "lab": lab,
            "notes": notes,
        }
    )
    if relations:
        frame = _with_related_columns(frame, severity_code, np.random.default_rng([seed, 1]))
    return frame, hospital_domain(relations)


def _with_related_columns(frame, severity_code, rng):
    """``frame`` with ``discharged``, ``care``, ``drugs`` and ``paid`` (module
    docstring); ``cost`` becomes ``care + drugs`` where a part is clipped to its range."""
    n = len(frame)
    median_days = np.array([2.0, 4.0, 7.0])[severity_code]
    stay_minutes = np.floor(np.minimum(median_days * np.exp(rng.normal(0.0, 0.8, n)), 90) * 1440)
    discharged = frame["admitted"] + pd.to_timedelta(stay_minutes, unit="min")
    cost = frame["cost"].to_numpy()
    drugs = np.round(_clip(cost * rng.beta(2.0, 5.0, n), RELATED_COLUMNS["drugs"]), 2)
    care = np.round(_clip(cost - drugs, RELATED_COLUMNS["care"]), 2)
    cost = np.round(care + drugs, 2)
    share = np.where(rng.random(n) < 0.4, 1.0, rng.beta(6.0, 2.0, n))
    paid = np.minimum(np.round(cost * share, 2), cost)
    at = list(frame.columns).index("cost")
    frame = frame.assign(cost=cost)
    for k, (name, values) in enumerate(
        [("discharged", discharged), ("care", care), ("drugs", drugs), ("paid", paid)]
    ):
        frame.insert(at + 1 + k if name != "discharged" else 2, name, values)
    return frame


def run():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--relations", action="store_true", help="add the related columns")
    parser.add_argument("--out-dir", type=Path, default=Path("."))
    args = parser.parse_args()
    frame, domain = make_hospital(args.n, args.seed, args.relations)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out_dir / "real.csv", index=False, date_format="%Y-%m-%dT%H:%M")
    (args.out_dir / "domain.json").write_text(json.dumps(domain, indent=1) + "\n")
    print(f"wrote {args.out_dir / 'real.csv'} ({len(frame)} rows) and domain.json")


if __name__ == "__main__":
    run()
