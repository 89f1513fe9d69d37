"""Record and replay: a run on ``D`` and a run on a neighbour ``D'`` whose releases
return what they returned on ``D`` must agree on everything (:mod:`skprivsynth.releases`).

``assert_replays(run, D, D_prime)`` runs ``run(D)`` recording every release, then
``run(D_prime)`` replaying them, and compares the two runs: the releases' sequence and
public arguments (checked by the replay itself), what ``run`` returns (fitted state,
synthetic rows for a fixed sampling seed, dtypes, CSV text), the printed lines (phase
timings blanked), the warnings, the log records and the error.  It also requires what
no release may do: raise after a release was made (a refusal must come before anything
is spent), or draw from a generator state another release of the run drew from (two
roles sharing one stream).
"""

import contextlib
import io
import logging
import pickle
import re
import warnings

import numpy as np
import pandas as pd

from skprivsynth.exceptions import PrivacyLeakWarning
from skprivsynth.releases import record_releases, replay_releases

#: Elapsed times: a synthesizer's phase lines "(0.1 s)", the command's progress lines
#: "..., 0.1 s" (clock readings, not outputs of the data).
_TIMING = re.compile(r"(?<=[(, ])\d+(\.\d+)? s\b")


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.lines = []

    def emit(self, record):
        self.lines.append(f"{record.name} {record.levelname} {record.getMessage()}")


def comparable(value):
    """``value`` as something ``==`` compares exactly (frames by dtypes and text)."""
    if isinstance(value, pd.DataFrame):
        categories = {
            c: list(value[c].cat.categories) + [value[c].cat.ordered]
            for c in value.columns
            if isinstance(value[c].dtype, pd.CategoricalDtype)
        }
        return ("frame", [str(t) for t in value.dtypes], categories, value.to_csv())
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [comparable(v) for v in value]
    if isinstance(value, str | bytes | int | float | bool | type(None)):
        return value
    return pickle.dumps(value)


def observe(run, data, recording=None):
    """``run(data)`` recording (or replaying ``recording``); ``(outcome, recording)``.

    ``outcome`` holds what ``run`` returned, its error, warnings, printed lines and log
    records, and how many releases were made before an error.
    """
    out, err, log = io.StringIO(), io.StringIO(), _Records()
    root = logging.getLogger()
    root.addHandler(log)
    level, root.level = root.level, logging.DEBUG
    context = record_releases() if recording is None else replay_releases(recording)
    result = error = None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    with context as observer:
                        result = comparable(run(data))
                except Exception as exc:  # an outcome like any other
                    error = f"{type(exc).__name__}: {exc}"
    finally:
        root.removeHandler(log)
        root.level = level
    made = len(observer) if recording is None else observer.position
    outcome = {
        "result": result,
        "error": error,
        "warnings": [(w.category.__name__, str(w.message)) for w in caught],
        "stdout": _TIMING.sub("… s", out.getvalue()),
        "stderr": _TIMING.sub("… s", err.getvalue()),
        "log": log.lines,
        "releases before the error": made if error else 0,
    }
    return outcome, (observer if recording is None else recording)


def _distinct_states(recording):
    seen = {}
    for i, (call, before, _, _) in enumerate(recording.releases):
        if before is None:
            continue
        key = pickle.dumps(before)
        assert key not in seen, (
            f"release {i} ({call['release']}) draws from the generator state release "
            f"{seen[key]} drew from: two roles share one stream"
        )
        seen[key] = i


def assert_replays(run, D, D_prime, *, seeded=False, min_releases=1):
    """Require that ``run(D_prime)``, replaying the releases of ``run(D)``, says and
    returns exactly what ``run(D)`` did; return the outcome on ``D``.

    ``seeded``: ``run`` seeds a DP release, which must warn :class:`PrivacyLeakWarning`.
    ``min_releases``: a run that releases less is not tested (the data never reached a
    mechanism); 0 for a run that must refuse before any release.
    """
    first, recording = observe(run, D)
    assert first["releases before the error"] == 0, (
        f"refused after {first['releases before the error']} releases: {first['error']}"
    )
    assert len(recording) >= min_releases, (first["error"], first["stderr"][-300:])
    _distinct_states(recording)
    if seeded:
        assert any(c == PrivacyLeakWarning.__name__ for c, _ in first["warnings"]), first[
            "warnings"
        ]
    second, _ = observe(run, D_prime, recording)
    for key in first:
        assert first[key] == second[key], f"{key} differs between neighbours"
    return first
