"""The registry of release primitives, and record & replay.

Every function of the package that turns private data into a differentially private
output -- a noisy statistic, a choice, a split, a sample -- is a *release primitive*:
it is decorated with :func:`release_primitive`, which names it, says which of its
arguments are public and finds its generator (the argument ``rng``).  Nothing else of a
fit may read the data except to compute the exact statistic a primitive releases.

That makes privacy testable end to end.  If the output of everything that is not a
primitive is post-processing of the primitives' outputs and of public values, then a
fit on a dataset ``D`` and a fit on a neighbour ``D'`` whose primitives return what
they returned on ``D`` must agree on everything: the sequence of releases and their
public arguments, the fitted state, the synthetic rows for a fixed sampling seed, the
output dtypes, the printed lines, the warnings and the errors.
:func:`record_releases` records the primitives' outputs of a run on ``D``;
:func:`replay_releases` makes them return those outputs in a run on ``D'``.  Any
difference between the two runs is a dependence on private data outside the
mechanisms.

Examples
--------
>>> import numpy as np
>>> from skprivsynth.privacy import laplace_mechanism
>>> from skprivsynth.releases import record_releases, replay_releases
>>> def run(x):
...     noisy, _ = laplace_mechanism([sum(x)], 1.0, 1.0, np.random.default_rng(0))
...     return round(float(noisy[0]), 6)
>>> with record_releases() as recording:
...     first = run([1, 0, 1])
>>> with replay_releases(recording):
...     second = run([1, 1, 1])
>>> first == second, len(recording)
(True, 1)
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import functools
import inspect

import numpy as np

__all__ = [
    "RELEASE_PRIMITIVES",
    "ReplayMismatch",
    "record_releases",
    "release_primitive",
    "replay_releases",
]

#: Every release primitive of the package: name -> the decorated function.
RELEASE_PRIMITIVES = {}

_OBSERVER = contextvars.ContextVar("skprivsynth release observer", default=None)


class ReplayMismatch(BaseException):
    """A replayed run made a release the recorded run did not make (another primitive,
    other public arguments, another generator state, or one release too many).

    A :class:`BaseException`, like :class:`KeyboardInterrupt`: a fit that turns the
    exceptions of a run into an outcome (private selection) must not hide it."""


def release_primitive(name, public=(), shapes=()):
    """Register the decorated function as the release primitive ``name``.

    Parameters
    ----------
    name : str
        The primitive's name in :data:`RELEASE_PRIMITIVES` and in recordings.
    public : tuple of str
        Its arguments that are public (the budget, the sensitivity, the noise kind, a
        public domain): a replay requires them equal.
    shapes : tuple of str
        Its private arguments whose shape is public (the statistic's).

    The argument named ``rng`` is the primitive's generator.  Calls made inside a
    primitive (its own noise draws through other primitives) are part of it.
    """

    def register(function):
        signature = inspect.signature(function)

        @functools.wraps(function)
        def release(*args, **kwargs):
            observer = _OBSERVER.get()
            if observer is None or observer.inside:
                return function(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            call = {"release": name}
            call.update((k, bound.arguments[k]) for k in public)
            call.update((f"shape of {k}", np.shape(bound.arguments[k])) for k in shapes)
            return observer.observe(call, bound.arguments.get("rng"), args, kwargs, function)

        RELEASE_PRIMITIVES[name] = release
        return release

    return register


def _canonical(value):
    """A comparable, exact form of a public argument or a generator state."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, dict):
        return tuple(sorted((str(k), _canonical(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_canonical(v) for v in value)
    if isinstance(value, float | np.floating):
        return ("float", float(value).hex())
    return repr(value)


def _state(rng):
    bit_generator = getattr(rng, "bit_generator", None)
    return None if bit_generator is None else copy.deepcopy(bit_generator.state)


class _Recording:
    """The releases of a run, in order: ``(call, state before, output, state after)``."""

    def __init__(self):
        self.releases = []
        self.inside = False

    def __len__(self):
        return len(self.releases)

    @property
    def calls(self):
        """The public part of every release, in order."""
        return [call for call, *_ in self.releases]

    def observe(self, call, rng, args, kwargs, function):
        before = _state(rng)
        self.inside = True
        try:
            output = function(*args, **kwargs)
        finally:
            self.inside = False
        self.releases.append((call, before, copy.deepcopy(output), _state(rng)))
        return output


class _Replay:
    def __init__(self, recording):
        self.recording = recording
        self.position = 0
        self.inside = False

    def observe(self, call, rng, args, kwargs, function):
        i = self.position
        if i >= len(self.recording):
            raise ReplayMismatch(f"release {i} ({call['release']}) was not made on D.")
        recorded, before, output, after = self.recording.releases[i]
        if _canonical(call) != _canonical(recorded):
            raise ReplayMismatch(
                f"release {i}: {_describe(call)} on D' but {_describe(recorded)} on D."
            )
        if _canonical(_state(rng)) != _canonical(before):
            raise ReplayMismatch(f"release {i} ({call['release']}) drew from another state.")
        self.inside = True
        try:  # the primitive runs on D' too: a raise that depends on the data shows
            function(*args, **kwargs)
        finally:
            self.inside = False
        self.position += 1
        if after is not None:
            rng.bit_generator.state = copy.deepcopy(after)
        return copy.deepcopy(output)


def _describe(call):
    return ", ".join(f"{k}={v!r}" for k, v in call.items())


@contextlib.contextmanager
def record_releases():
    """Record every release made inside the block; yields the recording.

    ``len(recording)`` is the number of releases, ``recording.calls`` their public
    arguments in order.
    """
    recording = _Recording()
    token = _OBSERVER.set(recording)
    try:
        yield recording
    finally:
        _OBSERVER.reset(token)


@contextlib.contextmanager
def replay_releases(recording):
    """Inside the block, the ``i``-th release returns the ``recording``'s ``i``-th output.

    Each release must be the recorded one: the same primitive with the same public
    arguments, drawing from the same generator state (run with the same seed), else
    :class:`ReplayMismatch`; its generator is left where the recorded release left it.
    On exit without an error, every recorded release must have been made.
    """
    replay = _Replay(recording)
    token = _OBSERVER.set(replay)
    try:
        yield replay
    finally:
        _OBSERVER.reset(token)
    if replay.position != len(recording):
        raise ReplayMismatch(
            f"{len(recording)} releases on D, {replay.position} on D' "
            f"(first missing: {recording.calls[replay.position]['release']})."
        )
