"""How the adaptive selection of marginals spends ρ, from public quantities only.

Every measurement of the plan — each column's 1-way table and the marginal of each
round — gets the same noise σ.  Under replace-one neighbours a count table measured
with noise σ costs ``1/σ²`` (L2 sensitivity √2), and a round also spends a share
``1 − α`` of its budget on the selection, so ``d`` one-way tables and ``T`` rounds cost

    ρ = (d + T/α) / σ².

A table of ``c`` cells holds ``n/c`` rows per cell on average; measuring it is worth
its noise when that average stands ``SIGNAL`` noise deviations clear of zero,
``n/c ≥ SIGNAL·σ`` — the test MST applies to a level before keeping it (a noisy count
below 3σ is mostly noise; McKenna, Miklau & Sheldon 2021, Sect. 4).  Asking it of the
median candidate pair (``c₂`` cells) bounds the number of rounds:

    T ≤ α (ρ (n / (SIGNAL·c₂))² − d),

capped at AIM's ``16 d`` (McKenna et al. 2022).  ``T = 0`` leaves the whole budget to
the 1-way tables: at that n·√ρ no pair can be measured above its noise, and the
independent model is the best the budget buys.  With many rounds the 1-way share is
``d / (d + T/α)``, about AIM's 1/17; with few it grows to all of ρ.  3-way candidates
are allowed when their median table passes the same test at σ.
Everything here reads n, ρ and the declared sizes, never the data.
"""

import math

import numpy as np

SIGNAL = 3.0  # rows per cell, in noise deviations, for a table worth measuring
ONE_WAY_FLOOR = 1 / 3  # the 1-way tables' least share (MST's): they fix the compression


def plan_rounds(n, d, rho, alpha, max_rounds, cells):
    """``(rho_one_way, rounds)``: the ``d`` 1-way tables' total ρ and the number of rounds.

    ``cells``: the numbers of cells of the tables a round may measure that the test is
    asked of (the candidate pairs).
    """
    rows_per_cell = n / (SIGNAL * float(np.median(cells)))
    for rounds in range(max_rounds, 0, -1):
        one_way = rho * max(ONE_WAY_FLOOR, d / (d + rounds / alpha))
        if math.sqrt(rounds / (alpha * (rho - one_way))) <= rows_per_cell:
            return one_way, rounds
    return rho, 0


def measurable(n, cells, sigma):
    """Whether the median of tables of ``cells`` cells stands ``SIGNAL·sigma`` clear."""
    return n / float(np.median(cells)) >= SIGNAL * sigma
