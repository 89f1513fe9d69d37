"""Compression of a marginal model's codes, read from released 1-way tables.

Post-processing of the noisy 1-way counts of :class:`~skprivsynth.MarginalSynthesizer`:
levels whose noisy count is below a threshold are merged into one code (MST, McKenna,
Miklau & Sheldon 2021, Sect. 4), consecutive numeric bins are grouped to what later
measurements can tell apart, and a code decodes back to one of its levels by shares of
the noisy counts (least squares on the dyadic tree, Hay et al. 2010).
"""

from __future__ import annotations

import math

import numpy as np

from .graphical_model import Measurement
from .private_binning import split_mass

__all__ = ["Compression", "bin_groups", "significant_shares"]


class Compression:
    """Levels of each column merged into fewer codes, decoded by noisy frequencies.

    Post-processing of the noisy 1-way counts ``y`` (standard deviation ``sigma``;
    ``sigma``, ``threshold`` and ``group_mass`` are one number or one per column).
    Levels: a level is *kept* when ``y`` reaches ``threshold``; the others form one
    extra code (when there are any), decoded back to one of them drawn proportionally
    to their clipped noisy counts.  Numeric bins (the first ``numeric[j]`` codes of
    column ``j``, in increasing order): consecutive bins are grouped so that every
    group holds about ``group_mass`` rows of the clipped noisy counts, and stands out
    of its noise (a group below it joins its neighbour); the empty tails of a
    generous public range join the outermost groups.  A group is one code, decoded to
    one of its bins by :func:`significant_shares`, so that a sparse tail that stands
    out of its noise comes back and noise in empty bins does not.  The later
    measurements see the groups: with ``group_mass = sqrt(n·σ)`` for measurements of
    noise ``σ``, the 2-way table of two independent such columns has cells of ``σ``
    rows on average, where finer bins would be cells of noise (and, in the adaptive
    selection, a table of more cells pays more bias in its score).  A column of two
    or three bins (a 0/1 column, a count of 0, 1 or 2) is compressed as levels: its
    groups could only merge a rare value into its common neighbour's code, whose
    shares keep the rare one only if it stands 1.5 to 3σ clear (three 0/1 columns of a
    3,292-row table lost all their 124–155 ones, a count of children its 114 ones and
    4 twos); as a level of its own, or among the rare levels, a rare value keeps its
    noisy count.  Wider columns keep their groups: among the rare levels, the empty
    end of a range would be drawn in proportion to its clipped noise.
    """

    def __init__(self, noisy_one_way, threshold, numeric, sigma, group_mass):
        self.members, self.encode = [], []
        d = len(numeric)
        columns = zip(
            noisy_one_way,
            np.broadcast_to(threshold, d),
            numeric,
            np.broadcast_to(sigma, d),
            np.broadcast_to(group_mass, d),
            strict=True,
        )
        for y, threshold, n_bins, sigma, group_mass in columns:
            n_bins = 0 if n_bins <= 3 else n_bins  # two or three bins: levels (above)
            members = bin_groups(y[:n_bins], threshold, sigma, group_mass)
            keep = y[n_bins:] >= threshold
            kept = n_bins + np.flatnonzero(keep)
            rare = n_bins + np.flatnonzero(~keep)
            members += [(np.array([k]), np.ones(1)) for k in kept]
            if rare.size:
                w = np.clip(y[rare], 0, None)
                w = w / w.sum() if w.sum() > 0 else np.full(rare.size, 1 / rare.size)
                members.append((rare, w))
            encode = np.empty(y.size, dtype=np.int64)
            for code, (levels, _) in enumerate(members):
                encode[levels] = code
            self.members.append(members)
            self.encode.append(encode)
        self.sizes = tuple(len(m) for m in self.members)

    def transform(self, codes):
        return np.column_stack([e[codes[:, j]] for j, e in enumerate(self.encode)])

    def one_way(self, j, noisy, sigma):
        """The compressed 1-way measurement of column ``j`` (merged cells add variance)."""
        encode, size = self.encode[j], self.sizes[j]
        if np.array_equal(encode, np.arange(noisy.size)):  # no level merged or moved
            return Measurement((j,), noisy, sigma)
        counts = np.bincount(encode, weights=noisy, minlength=size)
        sigmas = sigma * np.sqrt(np.bincount(encode, minlength=size))
        return Measurement((j,), counts, sigmas)

    def frequencies(self, j, p):
        """Frequencies of the levels of column ``j`` from those ``p`` of its codes."""
        out = np.zeros(self.encode[j].size)
        for code, (levels, weights) in enumerate(self.members[j]):
            out[levels] = p[code] * weights
        return out

    def inverse_transform(self, codes, rng):
        out = np.empty_like(codes)
        for j, members in enumerate(self.members):
            col = codes[:, j]
            single = np.array([levels[0] if levels.size == 1 else -1 for levels, _ in members])
            out[:, j] = single[col]
            for code in np.flatnonzero(single < 0):
                rows = np.flatnonzero(col == code)
                levels, p = members[code]
                out[rows, j] = rng.choice(levels, size=rows.size, p=p)
        return out


def bin_groups(y, threshold, sigma, group_mass):
    """Groups of consecutive numeric bins with noisy counts ``y``: (bins, shares) each.

    Bin ``k`` joins group ``floor((C_k − y_k/2)/group_mass)``, ``C_k`` the cumulative
    clipped noisy count up to and including it (the group of its middle row); groups
    are numbered consecutively and a group that does not stand out of its noise
    (:func:`_group_excess`) joins the one before it (the first: the one after).
    Post-processing.
    """
    if y.size == 0:
        return []
    clipped = np.clip(y, 0, None)
    middle = np.cumsum(clipped) - clipped / 2
    label = np.unique(np.floor(middle / group_mass), return_inverse=True)[1]
    starts = list(np.flatnonzero(np.diff(label, prepend=-1)))
    while len(starts) > 1:
        excess = _group_excess(y, starts, threshold)
        if excess.min() >= 0:
            break
        g = int(np.argmin(excess))
        del starts[g if g > 0 else 1]  # merged into the previous group (the first: the next)
    bounds = [*starts, y.size]
    last = len(bounds) - 2
    return [
        (np.arange(a, b), significant_shares(y[a:b], sigma, ends=(g == 0, g == last)))
        for g, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True))
    ]


def _group_excess(y, starts, threshold):
    """How far each group of bins (``starts``: first bins) stands out of its noise.

    A sum of ``k`` noisy counts has std ``σ·sqrt(k)``: the excess of a group is its
    noisy total over ``sqrt(size)``, minus ``threshold`` (``3σ``).  The outermost
    groups also hold the empty tails of a generous public range, whose noise would
    drown a sparse but real group (a zero-inflated column's non-zero values next to
    a long empty range): they are judged on the best of their dyadic stretches from
    the inner edge (``1, 2, 4, …`` bins, and the whole group).  Testing about
    ``log2(size)`` stretches instead of one raises the chance that a group of noise
    passes from 0.13 % to at most ``log2(size) + 1`` times that (union bound).
    """
    bounds = [*starts, y.size]
    sums = np.add.reduceat(y, starts)
    excess = sums / np.sqrt(np.diff(bounds)) - threshold
    for g, upwards in ((0, False), (len(starts) - 1, True)):
        a, b = bounds[g], bounds[g + 1]
        part = y[a:b] if upwards else y[a:b][::-1]  # from the group's inner edge
        k = 1 << np.arange(int(part.size - 1).bit_length())  # 1, 2, 4, ... < size
        best = (np.cumsum(part)[k - 1] / np.sqrt(k)).max(initial=-np.inf) - threshold
        excess[g] = max(excess[g], best)
    return excess


def significant_shares(y, sigma, cutoff=1.5, ends=(False, False)):
    """Shares of consecutive bins in their group from noisy counts ``y`` (std ``sigma``).

    Top-down over the halves of the group (the consistent estimate of a range of bins
    is the sum of their noisy counts, std ``sigma·sqrt(size)``, Hay et al. 2010): a
    range's mass goes to its two halves by
    :func:`~skprivsynth._math.private_binning.split_mass`, a half being kept when it
    reaches ``cutoff`` of its standard deviations (the sub-bin weights also ask the
    halves to differ by ``2·cutoff``; here that raised the tails), and the shares are
    normalised at the end.  An empty stretch of the group (the empty tail of a generous
    public range) thus gets mass only when its noisy total stands out of its noise, and
    a sparse tail that does keeps it.  A group whose total is not positive is uniform.
    Post-processing.

    ``ends`` (first, last): the group holds that end of the column's range.  There the
    half holding the end is estimated by its excess over ``cutoff`` sd (soft
    thresholding, Donoho & Johnstone 1994), and where it has none the range's mass
    goes to the inner half.  Mass given to noise beyond the data is the costly error
    (values far out, a heavy tail): noise alone gets 0.03 sd on average, where the
    projection would follow the difference of two noises.  A real end half keeps all
    but ``cutoff`` sd of its rows, where a test at 3 sd dropped every row of a half
    that fell short of it: on tables of a few thousand rows, a third of a column's
    first group, or a count's whole sparse tail.  A split of the whole range (a column
    of one group) asks both halves for ``2·cutoff`` sd.
    """
    shares = np.zeros(y.size)
    total = y.sum()
    if total <= 0:
        return np.full(y.size, 1 / y.size)
    stack = [(0, y.size, total)]
    while stack:
        lo, hi, mass = stack.pop()
        if hi - lo == 1:
            shares[lo] = mass
            continue
        mid = (lo + hi) // 2
        left, right = y[lo:mid].sum(), y[mid:hi].sum()
        n_left, n_right = mid - lo, hi - mid
        at_first, at_last = ends[0] and lo == 0, ends[1] and hi == y.size
        s_left, s_right = cutoff * sigma * math.sqrt(n_left), cutoff * sigma * math.sqrt(n_right)
        if at_first and at_last:  # the whole range: each half must reach 2·cutoff sd
            a, b = split_mass(left, right, mass, left >= 2 * s_left, right >= 2 * s_right)
        elif at_first:  # the left half holds the range's end: its excess over cutoff sd
            excess = left - s_left
            a, b = (
                split_mass(excess, right, mass, True, right >= s_right)
                if excess > 0
                else (0.0, mass)
            )
        elif at_last:
            excess = right - s_right
            a, b = (
                split_mass(left, excess, mass, left >= s_left, True) if excess > 0 else (mass, 0.0)
            )
        else:
            a, b = split_mass(left, right, mass, left >= s_left, right >= s_right)
        stack += [(lo, mid, float(a)), (mid, hi, float(b))]
    return shares / shares.sum() if shares.sum() > 0 else np.full(y.size, 1 / y.size)
