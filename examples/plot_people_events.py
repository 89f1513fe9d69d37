"""
==========================================================
Patients and their visits: two tables, one person-level ε
==========================================================

A hospital holds a table of patients (one row each: sex, age group, region) and a table
of their visits (one row each, with the patient's key: ward, cost, date).  A patient
with many visits is one person: :class:`~skprivsynth.PeopleEventsSynthesizer` releases
a synthetic patients table and a synthetic visits table whose keys point into it, under
one person-level (ε, δ) guarantee that covers a patient's row and all of their visits.
The tables here are simulated (no real person behind them).
"""

# %%
# Two tables
# ----------
# 4,000 patients; about 15 % have no visit, the old have more visits and go to ward C
# more often, a visit's cost depends on the ward and on the cost of the patient's
# previous visit.
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from skprivsynth import MarginalSynthesizer, PeopleEventsSynthesizer

rng = np.random.default_rng(0)
n = 4000
age = rng.choice(3, n, p=[0.4, 0.35, 0.25])
patients = pd.DataFrame({
    "patient_id": [f"P{i:05d}" for i in range(n)],
    "sex": rng.choice(["F", "M"], n),
    "age": pd.Categorical.from_codes(age, ["young", "middle", "old"], ordered=True),
    "region": rng.choice(["north", "south", "east", "west"], n),
})  # fmt: skip
visits_per_patient = np.where(rng.random(n) < 0.15, 0, 1 + rng.poisson(0.5 + 1.5 * age))
rows = []
for i in np.flatnonzero(visits_per_patient):
    cost = rng.uniform(50, 400)
    for day in np.sort(rng.integers(0, 365, visits_per_patient[i])):
        ward = "C" if age[i] == 2 and rng.random() < 0.6 else rng.choice(["A", "B", "D"])
        cost = float(np.clip(0.7 * cost + 0.3 * rng.uniform(50, 400) + 600 * (ward == "C"),
                             0, 1999))  # fmt: skip
        date = pd.Timestamp("2024-01-01") + pd.Timedelta(days=int(day))
        rows.append((patients["patient_id"][i], ward, round(cost, 2), date))
visits = pd.DataFrame(rows, columns=["patient_id", "ward", "cost", "date"])
print(f"{len(patients)} patients, {len(visits)} visits")

# %%
# The public domain and the bound
# -------------------------------
# One domain declares every column of both tables but the key.  The cost and the date
# are declared by their public ranges: their bins are chosen with differential privacy
# from one visit of each patient (a share of the same ε).  Each patient contributes at
# most 6 visits (their first 6: the visits table is in date order), a bound from the
# process, not read from the data.  ``lag_columns`` models a visit's cost with the cost
# of the patient's previous visit.
domain = {
    "sex": ["F", "M"],
    "age": {"levels": ["young", "middle", "old"], "ordered": True},
    "region": ["north", "south", "east", "west"],
    "ward": ["A", "B", "C", "D"],
    "cost": {"type": "float", "range": [0, 2000], "decimals": 2},
    "date": {"type": "datetime", "range": ["2024-01-01", "2024-12-31"], "resolution": "D"},
}
est = PeopleEventsSynthesizer(
    MarginalSynthesizer(epsilon=1.0, random_state=0),
    domain=domain,
    max_events_per_person=6,
    lag_columns=["cost"],
    random_state=0,  # the private bins of cost and date: seeded for this page only
)
est.fit(patients, visits, key="patient_id")
synthetic_patients, synthetic_visits = est.sample(random_state=0)
print(est.pipeline_.privacy_statement())
print(synthetic_patients.head())
print(synthetic_visits.head())
print("every visit's key is a patient:",
      bool(synthetic_visits["patient_id"].isin(synthetic_patients["patient_id"]).all()))  # fmt: skip

# %%
# What comes back
# ---------------
# The number of visits per patient (zero included) and its relation to age, the ward
# of the old over the join, and the relation between a patient's consecutive costs.


def visits_per(people, events):
    counts = people["patient_id"].map(events.groupby("patient_id").size()).fillna(0)
    return counts.clip(upper=6).astype(int)


def lag_one(events):
    cost = events["cost"].to_numpy()
    same = events["patient_id"].to_numpy()[1:] == events["patient_id"].to_numpy()[:-1]
    return np.corrcoef(cost[:-1][same], cost[1:][same])[0, 1]


def share_of_c_among_the_old(people, events):
    joined = events.merge(people, on="patient_id")
    return (joined.loc[joined["age"] == "old", "ward"] == "C").mean()


bounded = visits[visits.groupby("patient_id").cumcount() < 6]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.5))
for label, (people, events), offset in [
    ("real", (patients, bounded), -0.2),
    ("synthetic", (synthetic_patients, synthetic_visits), 0.2),
]:
    share = np.bincount(visits_per(people, events), minlength=7) / len(people)
    axes[0].bar(np.arange(7) + offset, share, width=0.4, label=label)
    by_age = visits_per(people, events).groupby(people["age"].to_numpy()).mean()
    axes[1].plot(["young", "middle", "old"], by_age[["young", "middle", "old"]], "o-",
                 label=label)  # fmt: skip
axes[0].set(xlabel="visits per patient (at most 6)", ylabel="share of patients")
axes[1].set(xlabel="age group", ylabel="mean visits per patient")
axes[0].legend()
fig.tight_layout()

print(f"ward C among the old's visits: real {share_of_c_among_the_old(patients, bounded):.2f}, "
      f"synthetic {share_of_c_among_the_old(synthetic_patients, synthetic_visits):.2f}")
print(f"lag-1 correlation of the cost: real {lag_one(bounded):.2f}, "
      f"synthetic {lag_one(synthetic_visits):.2f}")  # fmt: skip

# %%
# Without ``lag_columns`` a patient's visits are independent given the patient: the
# relation between consecutive costs is then only what the patient's attributes carry.
plain = PeopleEventsSynthesizer(
    MarginalSynthesizer(epsilon=1.0, random_state=0),
    domain=domain,
    max_events_per_person=6,
    random_state=0,
).fit(patients, visits, key="patient_id")
print(f"lag-1 correlation without lag_columns: {lag_one(plain.sample(random_state=0)[1]):.2f}")
