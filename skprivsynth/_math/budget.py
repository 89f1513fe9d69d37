"""Whether the adaptive selection of marginals runs rounds, from public quantities only.

A pair of columns is worth a round when AIM's own score for it can be positive: the
independent model's L1 error on a table of ``n`` rows whose columns are at total
variation ``τ`` from independence is ``2nτ``, and measuring its ``c`` cells with noise
σ costs an expected L1 error of ``√(2/π)·σ·c``.  For the weakest dependence worth a
measurement, ``τ = MIN_DEPENDENCE``, that is ``n/c ≥ SIGNAL·σ`` with
``SIGNAL = √(2/π)/(2τ)``: the table's mean count must stand ``SIGNAL`` noise deviations
clear.  The test is asked of the median candidate pair (``c₂`` cells) measured with
the noise of one share of ρ split evenly over the ``d`` 1-way tables and that pair,
``σ = √((d + 1)/ρ)`` (replace-one: a count table measured with noise σ costs ``1/σ²``,
L2 sensitivity √2) — the most a single round could get without starving the 1-way
tables.

If it passes, the fit runs AIM's ``16 d`` rounds with annealing (McKenna et al. 2022)
after a third of ρ on the 1-way tables (MST's share; McKenna, Miklau & Sheldon 2021):
annealing then finds how many marginals the data can pay for.  If it fails, no pair
can be measured above its noise at this n·√ρ: all of ρ goes to the 1-way tables, and
the independent model is the best the budget buys.  Only n, ρ and the sizes enter (the
caller passes the sizes of the columns compressed after a first 1-way release, which is
post-processing), never the data.
"""

import math

import numpy as np

MIN_DEPENDENCE = 1 / 15  # total variation from independence of a pair worth measuring
SIGNAL = math.sqrt(2 / math.pi) / (2 * MIN_DEPENDENCE)  # ≈ 6.0 noise deviations per cell
ONE_WAY_SHARE = 1 / 3  # the 1-way tables' share of ρ when there are rounds (MST's)


def plan_rounds(n, d, rho, max_rounds, cells):
    """The number of rounds: ``max_rounds`` if the test passes, else 0.

    ``cells``: the numbers of cells of the candidate pairs, whose median the test is
    asked of.  With rounds, the 1-way tables get ``ONE_WAY_SHARE`` of ρ; without, all.
    """
    sigma = math.sqrt((d + 1) / rho)
    return max_rounds if n / float(np.median(cells)) >= SIGNAL * sigma else 0
