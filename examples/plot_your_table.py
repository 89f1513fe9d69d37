"""
===============================================
Your own table: a raw CSV from file to release
===============================================

The steps of the user guide's page "Your own table", run on a generated hospital file
of 20,000 visits: an admission timestamp, the month derived from it, an age, a ward
(with a real ward called ``NA``), an ordered severity, a length of stay in tenths of a
day and a lab value missing for about 38 % of the visits, more often when the severity
is low.  The command line does everything: ``synthesize`` at ε = 1 with a declared
public domain, then ``evaluate`` against 5,000 held-out visits.

The evaluation compares the synthetic rows with the real ones: it is for the data
owner, not a differentially private release.  The seed makes the page reproducible; a
real release leaves ``--seed`` unset.  The numbers quoted by the user guide's page come
from this page's output, as the documentation build ran it.
"""

# %%
# The raw file
# ------------
# Missing lab values are empty cells; the ward ``NA`` is the text ``NA``, which a CSV
# reader would turn into a missing value unless the domain declares it as a level.
import contextlib
import json
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from skprivsynth.cli import main

rng = np.random.default_rng(0)
n = 20_000
hours = pd.to_timedelta(rng.integers(0, 366 * 24, n), unit="h")
admitted = pd.Timestamp("2024-01-01") + hours
age = np.round(rng.gamma(6.0, 9.0, n)).astype(int)
age = np.where(age > 104, rng.integers(18, 90, n), age)  # the oldest patient is 104
score = (age - 50) / 20 + rng.standard_normal(n)
grade = np.digitize(score, [0.0, 1.2])  # 0 low, 1 medium, 2 high
visits = pd.DataFrame(
    {
        "admitted": admitted,
        "month": admitted.month,
        "age": age,
        "ward": rng.choice(["cardiology", "oncology", "surgery", "NA"], n, p=[0.3, 0.2, 0.4, 0.1]),
        "severity": np.array(["low", "medium", "high"])[grade],
        "stay_days": np.minimum(np.round(rng.lognormal(0.7 + 0.5 * grade, 0.6), 1), 365),
        "lab": np.clip(np.round(rng.normal(7.0 + grade, 1.5), 2), 0.5, 19.5),
    }
)
visits.loc[rng.random(n) < np.array([0.55, 0.3, 0.15])[grade], "lab"] = np.nan
folder = Path(tempfile.mkdtemp())
visits.iloc[:15_000].to_csv(folder / "visits.csv", index=False)
visits.iloc[15_000:].to_csv(folder / "holdout.csv", index=False)
print("\n".join((folder / "visits.csv").read_text().splitlines()[:4]))

# %%
# What is public: the domain file
# -------------------------------
# Ranges from the meaning of each field (the study year, ages 0 to 120, a stay of at
# most a year, the lab's measuring range), never from the data; the ward's levels with
# ``NA`` among them; the severity's order; the month as a part of the timestamp; the
# lab's missing values as one more level.
domain = {
    "admitted": {
        "type": "datetime",
        "range": ["2024-01-01", "2024-12-31T23:00"],
        "resolution": "h",
    },
    "month": {"part_of": "admitted", "part": "month"},
    "age": {"type": "integer", "range": [0, 120]},
    "ward": ["cardiology", "oncology", "surgery", "NA"],
    "severity": {"levels": ["low", "medium", "high"], "ordered": True},
    "stay_days": {"type": "float", "range": [0, 365], "decimals": 1},
    "lab": {"type": "float", "range": [0, 20], "decimals": 2, "missing": True},
}
_ = (folder / "domain.json").write_text(json.dumps(domain, indent=1))

# %%
# The release
# -----------
# ``MarginalSynthesizer`` at ε = 1, and a quarter of ε on the private bins of the three
# ranged columns; the line ``privacy:`` is the guarantee of the whole run.  The commands
# run in the folder of the files, as they would in a shell.
with contextlib.chdir(folder):
    status = main(["synthesize", "visits.csv", "-o", "synthetic.csv",
                   "--domain", "domain.json", "--seed", "0"])  # fmt: skip

# %%
# Real against synthetic
# ----------------------
# The age and the length of stay, real and synthetic: the private bins follow the
# rows; compare the bodies and the right tails (the stay on a log axis).
synthetic = pd.read_csv(folder / "synthetic.csv")
real = visits.iloc[:15_000]
fig, axes = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
for ax, column, bins in [
    (axes[0], "age", np.arange(0, 121, 4)),
    (axes[1], "stay_days", np.geomspace(0.1, 365, 40)),
]:
    ax.hist(real[column], bins=bins, histtype="step", lw=2, label="real", density=True)
    ax.hist(synthetic[column], bins=bins, histtype="step", lw=2, label="synthetic", density=True)
    ax.set_xlabel(column)
axes[1].set_xscale("log")
axes[0].set_ylabel("density")
axes[0].legend()
plt.show()

# %%
# What came back
# --------------
# Marginal errors, every numeric column's distribution (KS, Wasserstein-1 over the IQR,
# std ratio, share outside the real [min, max], tail ratio), the missing rates, and a
# classifier of the severity trained on the synthetic rows, tested on the held-out ones.
with contextlib.chdir(folder):
    status = main(["evaluate", "visits.csv", "synthetic.csv", "--domain", "domain.json",
                   "--target", "severity", "--holdout", "holdout.csv", "--seed", "0"])  # fmt: skip
