"""How the adaptive selection of marginals splits ρ, from public quantities only.

The 1-way tables take ``ρ₁`` of the budget and ``T`` rounds share the rest: each
round measures one marginal with noise ``σ_T = √(T / (α (ρ − ρ₁)))`` (under
replace-one neighbours a count table measured with noise σ costs ``1/σ²``, L2
sensitivity √2) and spends a share ``1 − α`` of its budget on the selection.

A table of ``c`` cells holds ``n/c`` rows per cell on average; measuring it is worth
its noise when that average stands ``SIGNAL`` noise deviations clear of zero,
``n/c ≥ SIGNAL·σ`` — the test MST applies to a level before keeping it (a noisy count
below 3σ is mostly noise; McKenna, Miklau & Sheldon 2021, Sect. 4).  The plan takes
the most rounds, up to AIM's ``16 d`` (McKenna et al. 2022), whose ``σ_T`` passes
the test on the median candidate pair (``c₂`` cells), with

    ρ₁ = ρ · max(1/3, d / (d + T/α)):

at least MST's third, as the 1-way tables fix the compression of rare levels for
the whole fit, and more with few rounds, so that no 1-way table is measured more
coarsely than a round's marginal.  When no round passes, ``T = 0`` leaves all of ρ to
the 1-way tables: at that n·√ρ no pair can be measured above its noise, and the
independent model is the best the budget buys.  Only n, ρ and the sizes enter (the
caller passes the sizes of the columns compressed after a first 1-way release, which is
post-processing), never the data.
"""

import math

import numpy as np

SIGNAL = 3.0  # rows per cell, in noise deviations, for a table worth measuring
ONE_WAY_FLOOR = 1 / 3  # the 1-way tables' least share of ρ (MST's)


def plan_rounds(n, d, rho, alpha, max_rounds, cells):
    """``(rho_one_way, rounds)``: the ``d`` 1-way tables' total ρ and the number of rounds.

    ``cells``: the numbers of cells of the candidate pairs, whose median the test is
    asked of.
    """
    rows_per_cell = n / (SIGNAL * float(np.median(cells)))
    for rounds in range(max_rounds, 0, -1):
        one_way = rho * max(ONE_WAY_FLOOR, d / (d + rounds / alpha))
        if math.sqrt(rounds / (alpha * (rho - one_way))) <= rows_per_cell:
            return one_way, rounds
    return rho, 0
