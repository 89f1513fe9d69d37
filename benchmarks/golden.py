"""Golden outputs: fixed-seed results of every synthesizer, the private pipeline on a
table of every column kind and the command line on a raw CSV, as digests.

A refactoring that should change no number is checked by writing the digests before it
and comparing after::

    python benchmarks/golden.py --write /tmp/golden.json     # before
    python benchmarks/golden.py --check /tmp/golden.json     # after: lists what moved

Digested: synthetic rows (CSV text), the privacy report, and the fitted attributes that
are arrays or numbers (pickles are not compared: they name the classes' modules).
"""

import argparse
import contextlib
import hashlib
import io
import json
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from skprivsynth import (
    CorrelatedGaussianMechanism,
    MarginalSynthesizer,
    MicroaggregationSynthesizer,
    NoisyMicroaggregation,
    PrivateSampler,
    ReducedSpaceLP,
    make_private_pipeline,
)
from skprivsynth.cli import main as cli_main
from skprivsynth.datasets import load_adult


def _digest(value):
    if isinstance(value, pd.DataFrame):
        text = value.to_csv() + repr([str(t) for t in value.dtypes])
    elif isinstance(value, np.ndarray):
        text = f"{value.dtype.str}{value.shape}" + value.tobytes().hex()
    else:
        text = repr(value)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _attributes(est):
    out = {}
    for name, value in sorted(vars(est).items()):
        if name.startswith("_") or not name.endswith("_") or name.endswith("time_"):
            continue
        if isinstance(value, np.ndarray | int | float | str | bool | np.generic):
            out[name] = _digest(value)
    return out


def _estimator(est, X):
    est.fit(X)
    result = {"sample": _digest(pd.DataFrame(est.sample(500, random_state=1)))}
    report = getattr(est, "privacy_report_", None)
    if report is not None:
        result["report"] = _digest(str(report))
    return {**result, **_attributes(est)}


def _mixed(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    admitted = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 365 * 24, n), "h")
    cost = np.round(rng.lognormal(4, 1, n).clip(0, 1000), 1)
    cost[rng.random(n) < 0.2] = np.nan
    return pd.DataFrame(
        {
            "admitted": admitted,
            "month": admitted.month,
            "age": rng.choice([20, 35, 50, 64, 80], n) + rng.integers(0, 3, n),
            "cost": cost,
            "severity": pd.Categorical(
                rng.choice(["low", "medium", "high"], n), ["low", "medium", "high"], ordered=True
            ),
            "group": rng.choice(["a", "b", "c"], n),
        }
    )


MIXED_DOMAIN = {
    "admitted": {
        "type": "datetime",
        "range": ["2024-01-01", "2024-12-31T23:00"],
        "resolution": "h",
    },
    "month": {"part_of": "admitted", "part": "month"},
    "age": {"type": "integer", "range": [0, 120]},
    "cost": {"type": "float", "range": [0, 1000], "decimals": 1, "missing": True},
    "severity": {"levels": ["low", "medium", "high"], "ordered": True},
    "group": ["a", "b", "c"],
}


def outputs():
    adult = load_adult()
    data = adult.data.iloc[:3000]
    codes = data.to_numpy(dtype=np.float64)  # the integer codes of the bundled table
    X = (np.random.default_rng(0).random((2000, 8)) < 0.3).astype(float)
    golden = {
        "MicroaggregationSynthesizer": _estimator(MicroaggregationSynthesizer(k=10), X),
        "NoisyMicroaggregation": _estimator(NoisyMicroaggregation(epsilon=2.0, random_state=0), X),
        "ReducedSpaceLP": _estimator(ReducedSpaceLP(epsilon=2.0, m=512, random_state=0), X),
        "PrivateSampler": _estimator(
            PrivateSampler(epsilon=None, n_samples=500, m=256, random_state=0), X
        ),
        "CorrelatedGaussianMechanism": _estimator(
            CorrelatedGaussianMechanism(epsilon=1.0, delta=1e-6, random_state=0), X
        ),
        "MarginalSynthesizer on Adult codes": _estimator(
            MarginalSynthesizer(
                epsilon=1.0, domain=[adult.domain[c] for c in data], random_state=0
            ),
            codes,
        ),
    }
    pipe = make_private_pipeline(
        MarginalSynthesizer(epsilon=1.0, random_state=0), adult.domain, random_state=0
    )
    pipe.fit(data)
    golden["pipeline on Adult"] = {
        "sample": _digest(pipe.sample(500, random_state=1)),
        "report": _digest(str(pipe.privacy_report_)),
    }
    mixed = _mixed()
    pipe = make_private_pipeline(
        MarginalSynthesizer(epsilon=1.0, random_state=0), MIXED_DOMAIN, random_state=0
    )
    pipe.fit(mixed)
    golden["pipeline on every kind"] = {
        "sample": _digest(pipe.sample(500, random_state=1)),
        "report": _digest(str(pipe.privacy_report_)),
    }
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        mixed.drop(columns="month").to_csv(tmp / "raw.csv", index=False)
        domain = {k: v for k, v in MIXED_DOMAIN.items() if k != "month"}
        (tmp / "domain.json").write_text(json.dumps(domain))
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = cli_main(
                ["synthesize", str(tmp / "raw.csv"), "-o", str(tmp / "out.csv")]
                + ["--domain", str(tmp / "domain.json"), "--seed", "0", "--quiet"]
            )
        golden["cli synthesize"] = {"code": code, "csv": _digest((tmp / "out.csv").read_text())}
    return golden


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", metavar="FILE")
    action.add_argument("--check", metavar="FILE")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        now = outputs()
    if args.write:
        Path(args.write).write_text(json.dumps(now, indent=1, sort_keys=True))
        print(f"wrote {sum(len(v) for v in now.values())} digests to {args.write}")
        return 0
    before = json.loads(Path(args.check).read_text())
    moved = [
        f"{case}: {key}"
        for case in sorted(set(before) | set(now))
        for key in sorted(set(before.get(case, {})) | set(now.get(case, {})))
        if before.get(case, {}).get(key) != now.get(case, {}).get(key)
    ]
    print("\n".join(moved) if moved else "every golden output is identical")
    return 1 if moved else 0


if __name__ == "__main__":
    sys.exit(main())
