"""The 1-way tables' share of ρ in the adaptive selection, from public quantities only.

A pair of columns is worth a round when AIM's own score for it can be positive: the
independent model's L1 error on a table of ``n`` rows whose columns are at total
variation ``τ`` from independence is ``2nτ``, and measuring its ``c`` cells with noise
σ costs an expected L1 error of ``√(2/π)·σ·c``.  For the weakest dependence worth a
measurement, ``τ = MIN_DEPENDENCE``, that is ``n/c ≥ SIGNAL·σ`` with
``SIGNAL = √(2/π)/(2τ)``: the table's mean count must stand ``SIGNAL`` noise deviations
clear.  The test is asked of the median candidate pair (``c₂`` cells; the caller
passes the pairs of columns without numeric bins where there are any) measured with
the noise of one share of ρ split evenly over the ``d`` 1-way tables and that pair,
``σ = √((d + 1)/ρ)`` (replace-one: a count table measured with noise σ costs ``1/σ²``,
L2 sensitivity √2) — the most a single round could get without starving the 1-way
tables.  Its margin is ``M = n/(c₂·SIGNAL·σ)``.

At ``M ≤ 1`` no pair of the weakest dependence worth measuring stands above its noise at
this n·√ρ: the independent model is the best the budget buys — unless the data show
pairs related strongly enough to stand clear anyway (a noisy test, :func:`rounds_gain`
against what :func:`pairs_error` says the 1-way tables would gain instead; it also
decides where the share is MST's third), or the candidates hold a pair of numeric
columns.  Such a pair's bins are grouped to what the noise can tell apart, two groups of
``n/2`` rows at the coarsest: its table can have 4 cells whatever the bins, and measured
with the same σ it stands clear when ``M₂ = n/(4·SIGNAL·σ) > 1``.  The rounds then run,
with MST's third (the median pair says nothing of these: numeric pairs are grouped,
categorical ones are not).  Above, the 1-way tables get MST's third of ρ (McKenna,
Miklau & Sheldon 2021), or ``1/M`` once the pairs stand more than three times clear:
the 1-way tables' counts then stand further above their noise too, and the rounds —
AIM's ``16 d`` with annealing (McKenna et al. 2022), which find how many marginals the
data can pay for — get what the 1-way tables no longer need, down to AIM's own split
(``floor``: the d 1-way tables together get what d rounds get).  The share reads only
n, ρ and the sizes (the caller passes the sizes of the columns compressed after a first
1-way release at ``floor``, which is post-processing; a column compressed to one code
at its declared size), never the data; the test reads the data only through its own
noisy release.
"""

import math

import numpy as np

MIN_DEPENDENCE = 1 / 15  # total variation from independence of a pair worth measuring
SIGNAL = math.sqrt(2 / math.pi) / (2 * MIN_DEPENDENCE)  # ≈ 6.0 noise deviations per cell
MST_SHARE = 1 / 3  # the 1-way tables' share of ρ in MST (McKenna, Miklau & Sheldon 2021)


def one_way_share(n, d, rho, cells, floor, numeric_pair=False):
    """The 1-way tables' share of ρ: 1 if ``M ≤ 1`` (no rounds) and no numeric pair
    stands clear, else ``1/M`` clipped to ``[floor, MST_SHARE]``.

    ``cells``: the numbers of cells of the candidate pairs, whose median the margin
    ``M`` is asked of.  ``numeric_pair``: a candidate pair of two columns of numeric
    bins (its 2 × 2 grouping stands clear when ``n/(4·SIGNAL·σ) > 1``).
    """
    sigma = math.sqrt((d + 1) / rho)
    margin = n / (float(np.median(cells)) * SIGNAL * sigma)
    if margin <= 1 and not (numeric_pair and n / (4 * SIGNAL * sigma) > 1):
        return 1.0
    return min(max(1 / margin, floor), MST_SHARE)


def one_way_split(sizes, n, rho):
    """Each 1-way table's part of the 1-way tables' share: ``c_j^{2/3} / Σ_k c_k^{2/3}``.

    Measuring table ``j`` of ``c_j`` cells at ``ρ_j`` (σ_j = 1/√ρ_j, replace-one) costs
    an expected L1 error of ``√(2/π)·c_j·σ_j``; minimising ``Σ_j c_j/√ρ_j`` under
    ``Σ_j ρ_j = ρ₁`` (Lagrange: ``c_j ρ_j^{-3/2} ∝ 1``) gives ``ρ_j ∝ c_j^{2/3}``.
    That error falls with ρ_j only on the cells that hold more rows than the noise:
    with all of ``rho`` split evenly over the ``d`` tables (σ = √(d/ρ), the least noise
    a table can expect), at most ``n/σ`` cells do, so ``c_j`` is capped there.  Only
    the declared ``sizes``, ``n`` and ``rho`` enter: the split is public.
    """
    c = np.asarray(sizes, dtype=np.float64)
    weight = np.minimum(c, n * math.sqrt(rho / c.size)) ** (2 / 3)
    return weight / weight.sum()


def rounds_gain(deviations, cells, sigma, k):
    """What ``k`` rounds can buy on the pairs: the sum of the ``k`` largest
    ``[dᵣ − √(2/π)·σ·cᵣ]₊``, ``dᵣ = ‖Yᵣ − n·Mᵣ‖₁`` the independent model's L1 error on
    pair r and ``√(2/π)·σ·cᵣ`` that of measuring its ``cᵣ`` cells with noise σ (AIM's
    score).  Replace-one moves each ``dᵣ`` by at most 2 (``Yᵣ`` by 2 in L1, the model
    is public), so the sum moves by at most ``2k``: its L2 sensitivity.
    """
    net = np.asarray(deviations) - math.sqrt(2 / math.pi) * sigma * np.asarray(cells)
    return float(np.sort(np.clip(net, 0, None))[::-1][:k].sum())


def pairs_error(frequencies, cell_sigmas, pairs):
    """The expected L1 error of the ``pairs`` modelled from noisy 1-way tables.

    A pair's outer product errs by ``δₐ ⊗ p_b + pₐ ⊗ δ_b`` (first order), a cell
    ``(i, k)`` with std ``√(σₐᵢ² p_bₖ² + pₐᵢ² σ_bₖ²)`` and expected absolute value
    ``√(2/π)`` times that.  ``frequencies``: the columns' level frequencies;
    ``cell_sigmas``: their cells' noise, in rows.
    """
    total = 0.0
    for a, b in pairs:
        pa, pb = frequencies[a][:, None], frequencies[b][None, :]
        sa, sb = cell_sigmas[a][:, None], cell_sigmas[b][None, :]
        total += np.sqrt((sa * pb) ** 2 + (pa * sb) ** 2).sum()
    return float(math.sqrt(2 / math.pi) * total)
