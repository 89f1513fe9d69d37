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
median pair of columns (``c₂`` cells) bounds the number of rounds:

    T ≤ α (ρ (n / (SIGNAL·c₂))² − d),

capped at AIM's ``16 d`` (McKenna et al. 2022).  ``T = 0`` leaves the whole budget to
the 1-way tables: at that n·√ρ no pair can be measured above its noise, and the
independent model is the best the budget buys.  With many rounds the 1-way share is
``d / (d + T/α)``, about AIM's 1/17; with few it grows to all of ρ.  A 3-way candidate
is allowed when the median triple (``c₃`` cells) passes the same test at σ.
Everything here reads n, ρ and the declared sizes, never the data.
"""

import itertools
import math

import numpy as np

SIGNAL = 3.0  # rows per cell, in noise deviations, for a table worth measuring
ONE_WAY_FLOOR = 1 / 3  # the 1-way tables' least share (MST's): they fix the compression


def _median_cells(sizes, degree):
    return float(np.median([math.prod(c) for c in itertools.combinations(sizes, degree)]))


def plan_rounds(n, sizes, rho, alpha, max_rounds):
    """``(rho_one_way, rounds)``: the 1-way tables' total ρ and the number of rounds."""
    d = len(sizes)
    rows_per_cell = n / (SIGNAL * _median_cells(sizes, 2)) if d > 1 else 0.0
    for rounds in range(max_rounds, 0, -1):
        one_way = rho * max(ONE_WAY_FLOOR, d / (d + rounds / alpha))
        sigma = math.sqrt(rounds / (alpha * (rho - one_way)))
        if sigma <= rows_per_cell:
            return one_way, rounds
    return rho, 0


def measurable_degree(n, sizes, sigma, max_degree):
    """The largest degree up to ``max_degree`` whose median table clears ``SIGNAL·sigma``."""
    degree = min(2, max_degree, len(sizes))
    while degree < min(max_degree, len(sizes)):
        if n / _median_cells(sizes, degree + 1) < SIGNAL * sigma:
            break
        degree += 1
    return degree
