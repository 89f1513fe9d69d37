"""How the adaptive selection of marginals splits ρ, from public quantities only.

The 1-way tables take ``ρ₁`` of the budget and ``T`` rounds share the rest: each
round measures one marginal with noise ``σ_T = √(T / (α (ρ − ρ₁)))`` (under
replace-one neighbours a count table measured with noise σ costs ``1/σ²``, L2
sensitivity √2) and spends a share ``1 − α`` of its budget on the selection.

A pair is worth a round when AIM's own score for it can be positive: the independent
model's L1 error on a table of ``n`` rows whose columns are at total variation ``τ``
from independence is ``2nτ``, and measuring its ``c`` cells with noise σ costs an
expected L1 error of ``√(2/π)·σ·c``.  For the weakest dependence worth a measurement,
``τ = MIN_DEPENDENCE``, that is ``n/c ≥ SIGNAL·σ`` with ``SIGNAL = √(2/π)/(2τ)``: the
table's mean count must stand ``SIGNAL`` noise deviations clear.  The plan takes the
most rounds, up to AIM's ``16 d`` (McKenna et al. 2022), whose ``σ_T`` passes the test
on the median candidate pair (``c₂`` cells), with

    ρ₁ = ρ · max(1/3, d / (d + T/α)):

at least MST's third (the first 1-way release, whose compression of rare levels
stays for the whole fit when rounds are many), and more with few rounds, so that no
1-way table is measured more coarsely than a round's marginal.  When no round passes,
``T = 0`` leaves all of ρ to the 1-way tables: at that n·√ρ no pair can be measured
above its noise, and the independent model is the best the budget buys.  Only n, ρ
and the sizes enter (the caller passes the sizes of the columns compressed after a
first 1-way release, which is post-processing), never the data.
"""

import math

import numpy as np

MIN_DEPENDENCE = 1 / 15  # total variation from independence of a pair worth measuring
SIGNAL = math.sqrt(2 / math.pi) / (2 * MIN_DEPENDENCE)  # ≈ 6.0 noise deviations per cell
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
