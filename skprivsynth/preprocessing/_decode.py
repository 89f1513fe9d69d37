"""Decoding: codes drawn from (fractional) blocks, values drawn within coarsened ranges
and bins, on the grid of an integer or datetime column, and datetimes that agree with
their decoded parts.

Every draw here is post-processing of the decoded codes and of public or released
weights: no data is read.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._math.tails import decay_rate, decaying_positions
from ._checks import _is_integer_dtype


def _draw_block(block, fallback, rng, has_negative=True):
    """Index of the bit drawn in each row, with probability proportional to the weights.

    Rows that are exactly one-hot give their set bit without randomness.  Other rows
    are clipped to ``[0, 1]`` and a bit is drawn with probability proportional to the
    clipped values; an all-zero row uses the public ``fallback`` weights.
    """
    idx = block.argmax(axis=1)
    # Largest entry 1 and sum 1, with no negative entry: exactly one-hot.
    one_hot = (block[np.arange(idx.size), idx] == 1) & (block.sum(axis=1) == 1)
    if has_negative:
        one_hot &= block.min(axis=1) >= 0
    if one_hot.all():
        return idx
    rows = np.flatnonzero(~one_hot)
    W = np.clip(block[rows], 0.0, 1.0)
    empty = W.sum(axis=1) <= 0
    W[empty] = fallback
    u = 1.0 - rng.random(rows.size)  # in (0, 1]: a zero weight is never drawn
    cum = np.cumsum(W, axis=1)
    # The total is the last cumulative sum itself (not ``W.sum``, whose pairwise
    # rounding may exceed it and let ``u = 1`` land on a trailing zero weight).
    total = cum[:, -1]
    idx[rows] = np.minimum((cum < (u * total)[:, None]).sum(axis=1), W.shape[1] - 1)
    return idx


def _draw_binary_block(block, column, rng):
    """Code index of each row from its binary bits (most significant first).

    A bit is 1 with probability ``clip(x, 0, 1)`` (no randomness for entries already
    in ``{0, 1}`` or outside ``[0, 1]``).  An invalid index ``>= K`` is replaced by a
    code drawn from the column's public fallback weights, as for an all-zero one-hot
    block.
    """
    n, b = block.shape
    n_codes = column.width
    if b == 0:
        return np.zeros(n, dtype=np.int64)
    P = np.clip(block, 0.0, 1.0)
    bits = P >= 1.0
    fractional = (P > 0.0) & (P < 1.0)
    if fractional.any():
        bits[fractional] = rng.random(int(fractional.sum())) < P[fractional]
    idx = bits.astype(np.int64) @ (np.int64(1) << np.arange(b - 1, -1, -1, dtype=np.int64))
    invalid = idx >= n_codes
    if invalid.any():
        empty = np.zeros((int(invalid.sum()), n_codes))
        idx[invalid] = _draw_block(empty, column.fallback_weights(), rng)
    return idx


def _draw_within_ranges(idx, column, rng):
    """Level drawn inside each row's coarsened range ``idx``.

    Uniform within the range (public: no within-range statistic of the data is
    stored), or proportional to the declared public ``level_weights`` when given
    (uniform again in a range whose weights are all zero).
    """
    r = column.ranges
    if column.level_weights is None:
        return rng.integers(r[idx], r[idx + 1])
    levels = np.empty_like(idx)
    for k in np.unique(idx):
        rows = np.flatnonzero(idx == k)
        weights = column.level_weights[r[k] : r[k + 1]]
        if weights.sum() <= 0:
            levels[rows] = rng.integers(r[k], r[k + 1], size=rows.size)
            continue
        cumulative = np.cumsum(weights) / weights.sum()
        draws = np.searchsorted(cumulative, rng.random(rows.size), side="right")
        levels[rows] = r[k] + np.minimum(draws, weights.size - 1)
    return levels


def _position_in_bins(idx, column, rng):
    """A position ``t`` in ``[0, 1)`` drawn in each row's bin ``idx``.

    Uniform when no sub-bin weights were released (so a bin's values average to its
    midpoint); otherwise a sub-bin drawn proportionally to its released weight
    (uniformly when the bin's weights are all zero), then uniform in that sub-bin.
    """
    if column.sub_weights is None:
        t = rng.random(idx.size)  # position in the bin
    else:
        n_sub = column.sub_weights.shape[1]
        weights = column.sub_weights[idx]
        weights[weights.sum(axis=1) <= 0] = 1.0
        cumulative = np.cumsum(weights, axis=1)
        u = rng.random(idx.size) * cumulative[:, -1]
        sub = np.minimum((cumulative <= u[:, None]).sum(axis=1), n_sub - 1)
        t = (sub + rng.random(idx.size)) / n_sub
    return np.minimum(t, np.nextafter(1.0, 0.0))


def _decay_in_end_bins(idx, t, present, column):
    """Positions ``t`` of the rows in the outermost occupied bins (each side) moved to a
    density that decays away from the bin's inner neighbour
    (:mod:`~skprivsynth._math.tails`), where the bin has no sub-bin weights beyond
    uniform.  Post-processing of the decoded codes and the public edges; the uniform
    positions are transformed in place, so no draw is added.
    """
    counts = np.bincount(idx[present], minlength=column.n_values)
    occupied = np.flatnonzero(counts)
    if occupied.size < 2:
        return t
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        density = counts / np.diff(column.edges)  # inf in a bin one float wide
    for k, inner, outwards in (
        (occupied[0], occupied[0] + 1, -1),
        (occupied[-1], occupied[-1] - 1, 1),
    ):
        weights = None if column.sub_weights is None else column.sub_weights[k]
        # Uniform up to float rounding (a last bin cut at the range's end) decays too.
        if (weights is not None and np.ptp(weights) > 1e-9) or counts[inner] == 0:
            continue
        with np.errstate(invalid="ignore"):
            rate = decay_rate(density[k] / density[inner])  # 0 unless a finite ratio < 1
        if rate > 0:
            rows = present & (idx == k)
            s = decaying_positions(rate, t[rows])
            t[rows] = s if outwards > 0 else np.minimum(1.0 - s, np.nextafter(1.0, 0.0))
    return t


def _at_points(values, idx, present, column, rng):
    """``values`` with rows of a bin holding points (the range's bounds, recurring grid
    values) set to one of them, each with the released share of its bin at that point
    (one uniform draw a row of such a bin, bin by bin in order; none where the shares
    are 0).  Post-processing of the decoded codes and the released shares."""
    bins, points, shares = column.points
    by_bin = np.argsort(bins, kind="stable")
    bins, points, shares = bins[by_bin], points[by_bin], shares[by_bin]
    rows = np.flatnonzero(present)
    rows = rows[np.argsort(idx[rows], kind="stable")]  # by bin, in order within a bin
    row_bins = idx[rows]
    for k in np.unique(bins[shares > 0]):
        a, b = np.searchsorted(bins, [k, k + 1])
        lo, hi = np.searchsorted(row_bins, [k, k + 1])
        cumulative = np.cumsum(shares[a:b])
        which = np.searchsorted(cumulative, rng.random(hi - lo), side="right")
        hit = which < cumulative.size
        values[rows[lo:hi][hit]] = points[a:b][which[hit]]
    return values


def _grid_values(idx, t, column, dtype):
    """Grid point (integer, or multiple of a datetime resolution) at position ``t`` of
    each row's bin ``idx``, inside ``[e_0, e_B]`` and the range of an integer dtype.

    Bin ``k`` holds the grid points of ``[e_k, e_{k+1})`` (the last bin also
    ``e_B``), ``lo..hi``, indexed by ``t``; a bin without a grid point gives the
    first grid point after its lower edge.
    """
    e, g = column.edges / column.step, column.step
    first, last = np.ceil(e[0]), np.floor(e[-1])
    if _is_integer_dtype(dtype):
        # Declared edges may exceed the dtype's range (bins [100, 1000] on uint8): the
        # bin's integers are those of the dtype, so that the cast never wraps around.
        info = np.iinfo(getattr(dtype, "numpy_dtype", dtype))
        upper = float(info.max)  # rounds up to 2**63 (not representable) for int64
        if int(upper) > info.max:
            upper = np.nextafter(upper, -np.inf)
        first, last = max(first, float(info.min)), min(last, upper)
    last = max(first, last)
    lo = np.clip(np.ceil(e[idx]), first, last)
    hi = np.where(idx == e.size - 2, np.floor(e[idx + 1]), np.ceil(e[idx + 1]) - 1)
    hi = np.clip(np.maximum(lo, hi), first, last)
    return np.minimum(lo + np.floor(t * (hi - lo + 1.0)), hi) * g


def _values_in_bins(idx, missing, column, dtype, rng):
    """Float values of each row's bin ``idx`` of a binned ``column`` (NaN where
    ``missing``): inside the bin (rounded to the declared decimals), or on its grid,
    at the released points of the bin where it has any."""
    e = column.edges
    t = _decay_in_end_bins(idx, _position_in_bins(idx, column, rng), ~missing, column)
    if column.step is None:
        values = (1.0 - t) * e[idx] + t * e[idx + 1]  # inside the bin, never overflows
        # Below the upper edge of a half-open bin despite rounding (a bin one float
        # wide, such as a range's bound [lo, lo⁺), decodes to its lower edge).
        below = np.nextafter(e[idx + 1], -np.inf)
        last = idx == e.size - 2
        values = np.where(last, values, np.minimum(values, below))
        if e[-2] == np.nextafter(e[-1], -np.inf):  # [hi⁻, hi]: the values at the bound
            values[last] = e[-1]
        decimals = getattr(column.spec, "decimals", None)
        if decimals is not None:  # the declared precision, inside the declared edges
            values = np.clip(np.round(values, decimals), e[0], e[-1])
    else:
        values = _grid_values(idx, t, column, dtype)
    if column.points is not None:
        values = _at_points(values, idx, ~missing, column, rng)
    values[missing] = np.nan
    return values


def _level_values(idx, missing, column, dtype, rng):
    """Series of ``dtype`` of the level of each row's code ``idx`` (a level drawn inside
    a coarsened range); missing where ``missing``."""
    if column.ranges is not None:
        idx = _draw_within_ranges(idx, column, rng)
    values = column.levels[idx]
    if missing.any():
        values = values.astype(object if values.dtype == object else np.float64)
        values[missing] = np.nan
    if isinstance(dtype, pd.CategoricalDtype):
        return pd.Series(pd.Categorical(values, dtype=dtype))
    return pd.Series(values, dtype=object if values.dtype == object else None).astype(dtype)


def _datetime_part(datetimes, part, dtype):
    """Series of ``dtype`` of a part (year, month, ..., weekday with Monday = 0, or the
    date at midnight) of decoded ``datetimes``, in their time zone; missing where they
    are."""
    if part == "date":
        dates = datetimes.dt.normalize()
        if getattr(dates.dt, "tz", None) is not None and getattr(dtype, "tz", None) is None:
            dates = dates.dt.tz_localize(None)  # the local calendar date
        return dates.astype(dtype)
    name = "day_of_week" if part == "weekday" else part  # Monday = 0
    return getattr(datetimes.dt, name).astype("Int64").astype(dtype)


#: Parts of the day a modelled datetime is matched on, in order of priority: the finest
#: first (when no day matches them all, the coarsest are dropped first).
_DAY_PARTS = ("weekday", "day", "month", "year")


def _datetimes_with_parts(datetimes, column, parts, dtype, rng):
    """Decoded ``datetimes`` redrawn to agree with decoded parts.

    First a row whose decoded day does not match its ``_DAY_PARTS`` that ``parts``
    holds (part -> float values, NaN when missing) is redrawn where its bin and those
    parts meet, in another bin when its own holds no day of them
    (:func:`_into_bins_meeting_parts`).  Then a row keeps its time of day with the
    hour and minute replaced by the decoded parts, and gets a day of its bin on which
    that time lies inside the bin (a bin's first and last days may be partial): its
    own if that day matches its parts, else among those days the ones that match all
    its day parts, else the first ones in priority order, else any.  Where no day of its
    bin holds that time (a bin shorter than a day), the row keeps its decoded day and
    leaves the bin: the hour, modelled with the other columns, is worth more than
    where within a day the bin's 1-way count put the row.  The result is rounded down
    to the resolution, and a row that would leave the declared range keeps its
    decoded datetime.  Post-processing of decoded codes: no data read.
    """
    seconds = column.value_kind.numbers(datetimes)
    edges, step = column.edges, column.step
    known = ~np.isnan(seconds)
    idx = np.clip(np.searchsorted(edges, seconds, side="right") - 1, 0, edges.size - 2)
    keys = [p for p in _DAY_PARTS if p in parts]
    agrees = np.zeros(seconds.size, dtype=bool)
    if keys:
        seconds, agrees = _into_bins_meeting_parts(seconds, idx, known, column, keys, parts, rng)
        idx = np.clip(np.searchsorted(edges, seconds, side="right") - 1, 0, edges.size - 2)
    out = seconds.copy()
    for k in np.unique(idx[known]):
        rows = np.flatnonzero(known & (idx == k))
        time = seconds[rows] % 86400
        for part, unit, period in (("hour", 3600, 86400), ("minute", 60, 3600)):
            if part in parts:
                value = parts[part][rows]
                replaced = time - time % period + value * unit + time % unit
                time = np.where(np.isnan(value), time, replaced)
        days = np.arange(int(edges[k] // 86400), int(edges[k + 1] // 86400) + 1)
        # The days on which a row's time lies in the bin: all but perhaps the first
        # and the last, so the rows fall into four groups of consecutive days.
        first, final = (_in_bin(day * 86400 + time, edges, k, step) for day in (days[0], days[-1]))
        chosen = np.zeros(rows.size)
        for a in (True, False):
            for b in (True, False):
                group = np.flatnonzero((first == a) & (final == b))
                pool = days[(0 if a else 1) : days.size - (0 if b else 1)]
                if not group.size:
                    continue
                if pool.size:
                    chosen[group] = _matching_days(pool, keys, parts, rows[group], rng)
                    decoded = seconds[rows[group]] // 86400
                    keep = agrees[rows[group]] & np.isin(decoded, pool)
                    chosen[group[keep]] = decoded[keep]  # it agrees already
                else:  # a bin shorter than a day: the decoded day
                    chosen[group] = seconds[rows[group]] // 86400
        drawn = np.floor((chosen * 86400 + time) / step) * step
        kept = (drawn >= edges[0]) & (drawn <= edges[-1])
        out[rows] = np.where(kept, drawn, seconds[rows])
    return column.value_kind.from_numbers(out, dtype)


def _into_bins_meeting_parts(seconds, idx, known, column, keys, parts, rng):
    """``seconds`` with each row whose decoded day does not match its decoded day parts
    redrawn where its bin and its parts meet, in a new bin if its own holds no time
    of those parts (drawn by Bayes' rule); and whether each row's day now matches.

    A row's parts are those of ``keys`` it holds (a missing one matches any day); the
    first ones in priority order when no day of the declared range matches them all,
    as :func:`_matching_days` does.  A row whose bin meets them keeps its bin: both
    agree.  Otherwise the decoded bin and the decoded parts disagree, and the parts are
    trusted (modelled as levels of their own, they keep their 1-way frequencies and
    their relations to the other columns; the bins' 1-way frequencies are kept in the
    weights): the row gets bin ``b`` with probability proportional to ``P(b) P(parts
    | b)``, where ``P(b)`` is the share of the decoded rows in bin ``b`` and ``P(parts
    | b)`` the share of the bin's time whose calendar matches the parts, measured with
    the bin's sub-bin weights (uniform without them).  If no decoded row lies in such
    a bin, ``P(b)`` is the bin's width.  A row whose decoded day matches keeps its
    decoded value; the others get a position drawn in the intersection of their bin
    and their parts' days, with the sub-bin weights restricted to it.  Post-processing
    of the decoded codes and of the released edges and sub-bin weights: no data read.
    """
    edges = column.edges
    n_bins = edges.size - 1
    agrees = np.zeros(seconds.size, dtype=bool)
    segments = _calendar_segments(column)
    if segments is None:
        return seconds, agrees
    bin_of, day_of, mass, days, left, right = segments
    features = _day_features(days, keys)
    counts = np.bincount(idx[known], minlength=n_bins).astype(np.float64)
    prior = counts if counts.sum() > 0 else np.diff(edges)
    starts = np.searchsorted(bin_of, np.arange(n_bins))  # each bin's first segment
    rows = np.flatnonzero(known)
    wanted = np.column_stack([parts[p][rows] for p in keys])
    tuples, which = np.unique(np.nan_to_num(wanted, nan=-1.0), axis=0, return_inverse=True)
    order = np.argsort(which.ravel(), kind="stable")
    bounds = np.searchsorted(which.ravel()[order], np.arange(len(tuples) + 1))
    day = np.clip(np.nan_to_num(seconds // 86400 - days[0]), 0, days.size - 1).astype(np.int64)
    out = seconds.copy()
    for j, value in enumerate(tuples):
        members = rows[order[bounds[j] : bounds[j + 1]]]
        matches = _days_matching(features, value)
        if matches is None:
            continue
        agrees[members] = True
        if matches[day[members]].all():
            continue
        weights = mass * matches[day_of]
        meets = np.bincount(bin_of, weights=weights, minlength=n_bins)
        k = idx[members].copy()
        away = meets[k] <= 0
        if away.any():
            prior_meets = prior * meets if (prior * meets).sum() > 0 else np.diff(edges) * meets
            cumulative = np.cumsum(prior_meets)
            u = rng.random(int(away.sum())) * cumulative[-1]
            k[away] = np.minimum(np.searchsorted(cumulative, u, side="right"), n_bins - 1)
        moved = away | ~matches[day[members]]
        k = k[moved]
        # A segment of the bin drawn by its matching mass, then a time uniform in it.
        cumulative = np.cumsum(weights)
        before = np.where(starts[k] > 0, cumulative[np.maximum(starts[k] - 1, 0)], 0.0)
        u = before + (1.0 - rng.random(k.size)) * meets[k]
        seg = np.searchsorted(cumulative, u, side="left")
        seg = np.clip(seg, starts[k], np.searchsorted(bin_of, k, side="right") - 1)
        t = rng.random(k.size)
        out[members[moved]] = (1.0 - t) * left[seg] + t * right[seg]
    return out, agrees


def _day_features(days, keys):
    """The calendar parts ``keys`` of ``days`` (days since 1970-01-01), one column each."""
    calendar = pd.DatetimeIndex(days.astype("datetime64[D]"))
    return np.column_stack(
        [
            getattr(calendar, "day_of_week" if p == "weekday" else p).to_numpy(np.float64)
            for p in keys
        ]
    )


def _days_matching(features, value):
    """Which days match the parts ``value`` (-1: a missing part, matching any day): all
    of them, else the first ones in priority order; None if none matches, or the value
    holds no part."""
    asked = value >= 0
    for level in range(value.size, 0, -1):
        here = asked[:level]
        if not here.any():
            return None
        match = (features[:, :level][:, here] == value[:level][here]).all(axis=1)
        if match.any():
            return match
    return None


def _calendar_segments(column):
    """The pieces of the bins cut at day boundaries and sub-bin edges: each one's bin,
    day (an index into the returned days since 1970-01-01) and share of its bin's
    time, weighted by the bin's sub-bin weights (uniform in a bin without weights or
    whose weights are all zero), and the days; then the pieces' start and end.  None
    for a range of a single point."""
    edges = column.edges
    n_bins = edges.size - 1
    width = np.diff(edges)
    if not (width > 0).any():
        return None
    if column.sub_weights is None:
        weights = np.ones((n_bins, 1))
    else:
        weights = np.clip(column.sub_weights, 0.0, None).astype(np.float64)
        weights[weights.sum(axis=1) <= 0] = 1.0
    n_sub = weights.shape[1]
    weights = weights / weights.sum(axis=1, keepdims=True)
    sub_edges = (edges[:-1, None] + width[:, None] * np.arange(n_sub) / n_sub).ravel()
    first, last = int(edges[0] // 86400), int(edges[-1] // 86400)
    days = np.arange(first, last + 1)
    cuts = np.unique(np.concatenate([sub_edges, edges[-1:], days[1:] * 86400.0]))
    left, right = cuts[:-1], cuts[1:]
    sub = np.clip(np.searchsorted(sub_edges, left, side="right") - 1, 0, sub_edges.size - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        density = np.nan_to_num(weights.ravel() / np.repeat(width / n_sub, n_sub))
    mass = (right - left) * density[sub]
    return sub // n_sub, (left // 86400).astype(np.int64) - first, mass, days, left, right


def _in_bin(seconds, edges, k, step):
    """Whether ``seconds``, rounded down to ``step``, lie in bin ``k`` of ``edges`` (the
    last bin closed)."""
    t = np.floor(seconds / step) * step
    last = k == edges.size - 2
    return (t >= edges[k]) & ((t < edges[k + 1]) | (last & (t <= edges[-1])))


def _matching_days(days, keys, parts, rows, rng):
    """For each of ``rows``, a day of ``days`` (days since 1970-01-01) drawn uniformly
    among those that match its ``parts`` on all ``keys``, else on the first ones in
    order, else any."""
    calendar = pd.DatetimeIndex(days.astype("datetime64[D]"))
    features = [
        getattr(calendar, "day_of_week" if p == "weekday" else p).to_numpy(np.float64) for p in keys
    ]
    chosen = np.full(rows.size, -1)
    for level in range(len(keys), 0, -1):
        todo = np.flatnonzero(chosen < 0)
        candidates = pd.Series(days).groupby(features[:level]).indices
        wanted = pd.Series(todo).groupby([parts[p][rows[todo]] for p in keys[:level]])
        for key, positions in wanted.indices.items():
            if key in candidates:
                pool = candidates[key]
                chosen[todo[positions]] = pool[rng.integers(pool.size, size=positions.size)]
    rest = chosen < 0
    chosen[rest] = rng.integers(days.size, size=int(rest.sum()))
    return days[chosen]
