"""Workloads: the families of statistics a synthesizer measures and fits.

One workload type serves every synthesizer that takes ``workload=``
(:class:`~skprivsynth.ReducedSpaceLP`, :class:`~skprivsynth.CorrelatedGaussianMechanism`).
The parameter accepts the same spellings in both:

- ``None`` or ``"tables"``: every marginal table of ``1..degree`` columns;
- ``"conjunctions"``: every conjunction ``Π_{j∈J} x_j`` of ``1..degree`` columns;
- a list of column sets, e.g. ``[(0, 1), (2,)]``: their full tables;
- a workload object below, used as given (never modified by ``fit``).

:class:`MarginalWorkload`
    Marginal tables or conjunctions over Boolean columns.
:class:`BlockMarginalWorkload`
    Categorical tables over one-hot blocks of columns (``feature_blocks``).
:class:`FunctionWorkload`
    Bounded user functions with declared bounds (the sensitivity is derived from them).
:func:`project_one_hot`
    The public row map of the block workloads (a block with several bits set is empty).

Each gives its query matrix over candidate records (:meth:`~MarginalWorkload.query_matrix`,
rows are queries), its statistics on a dataset (:meth:`~MarginalWorkload.answers`, as
fractions of the rows) and its replace-one L1 sensitivity
(:meth:`~MarginalWorkload.l1_sensitivity`).  A synthesizer that works in counts (the
correlated Gaussian mechanism) multiplies by the public ``n``.

Examples
--------
>>> from skprivsynth.workload import MarginalWorkload
>>> W = MarginalWorkload(4, degree=2, kind="conjunction")
>>> W.n_tables, W.l1_sensitivity(n=100)
(10, 0.1)
"""

from ._math.workload import (
    BlockMarginalWorkload,
    FunctionWorkload,
    MarginalWorkload,
    project_one_hot,
)

__all__ = [
    "BlockMarginalWorkload",
    "FunctionWorkload",
    "MarginalWorkload",
    "project_one_hot",
]
