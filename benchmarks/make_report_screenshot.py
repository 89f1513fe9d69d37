"""Regenerate the quality-report screenshot of the user guide (not run in CI).

Fits ``MarginalSynthesizer`` (ε = 1, the library's encoding through
``make_private_pipeline``) on three quarters of the bundled Adult data, writes the report
of ``skprivsynth evaluate real.csv synthetic.csv --domain domain.json --target 'income>50K'
--holdout holdout.csv --report report.html`` (utility tested on the held-out quarter,
which the synthesizer never saw), opens it in headless Chromium and saves a screenshot,
trimmed and reduced to 256 colours, as ``doc/_static/quality_report.png``.

Needs matplotlib and Chromium (Debian: ``apt-get install chromium``); Pillow comes with
matplotlib.

Run:  python benchmarks/make_report_screenshot.py [--out-dir DIR] [--chromium PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

from skprivsynth import MarginalSynthesizer, make_private_pipeline
from skprivsynth.cli import main
from skprivsynth.datasets import load_adult

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOT = ROOT / "doc" / "_static" / "quality_report.png"
WIDTH, HEIGHT = 1280, 3600


def write_inputs(directory, seed=0):
    adult = load_adult()
    rng = np.random.default_rng(seed)
    held_out = rng.random(len(adult.data)) < 0.25
    real, holdout = adult.data[~held_out], adult.data[held_out]
    pipe = make_private_pipeline(MarginalSynthesizer(epsilon=1.0, random_state=seed), adult.domain)
    synthetic = pipe.fit(real).sample(random_state=seed)
    print(f"fitted on {len(real)} rows; {pipe.privacy_report_.epsilon:g}-DP release")
    real.to_csv(directory / "real.csv", index=False)
    holdout.to_csv(directory / "holdout.csv", index=False)
    synthetic.to_csv(directory / "synthetic.csv", index=False)
    (directory / "domain.json").write_text(json.dumps(adult.domain))


def screenshot(chromium, page, png):
    """Headless Chromium screenshot of ``page``: no network services, a fresh profile."""
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                f"--window-size={WIDTH},{HEIGHT}",
                f"--screenshot={png}",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
        )


def trim_and_reduce(png, out):
    """Cut the empty page below the footer, keep 256 colours (the figures are flat)."""
    image = Image.open(png).convert("RGB")
    pixels = np.asarray(image)
    background = pixels[-1, WIDTH // 2]  # the page colour at the bottom of the window
    rows = np.flatnonzero(np.any(pixels[:, 40:-40] != background, axis=(1, 2)))
    image = image.crop((0, 0, WIDTH, min(HEIGHT, int(rows.max()) + 40)))
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)
    print(f"wrote {out} ({out.stat().st_size / 1e3:.0f} kB, {image.size[0]}x{image.size[1]})")


def run():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=None, help="keep the CSVs and report")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = (args.out_dir or Path(scratch)).resolve()
        directory.mkdir(parents=True, exist_ok=True)
        write_inputs(directory)
        os.chdir(directory)  # the report names the files as given: short relative names
        argv = ["evaluate", "real.csv", "synthetic.csv", "--domain", "domain.json"]
        argv += ["--target", "income>50K", "--holdout", "holdout.csv", "--report", "report.html"]
        status = main(argv)
        if status != 0:
            raise SystemExit(status)
        raw = directory / "screenshot.png"
        screenshot(args.chromium, (directory / "report.html").resolve(), raw)
        trim_and_reduce(raw, SCREENSHOT)


if __name__ == "__main__":
    run()
