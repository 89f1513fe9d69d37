"""skprivsynth: private and anonymous synthetic data with a scikit-learn API.

Synthesizers (``fit`` then ``sample``):

- :class:`MarginalSynthesizer` — (epsilon, delta)-DP select-measure-generate over noisy
  marginals (McKenna, Sheldon & Miklau; MST and AIM): start here for a DP release.
- :class:`MicroaggregationSynthesizer` — k-anonymous microaggregation (Boedihardjo,
  Strohmer & Vershynin, *Covariance's loss is privacy's gain*).
- :class:`NoisyMicroaggregation` — epsilon-DP microaggregation (same paper, Sect. 5).
- :class:`ReducedSpaceLP` — epsilon-DP noisy LP over a data-independent reduced space
  (Boedihardjo, Strohmer & Vershynin, *Privacy of synthetic data*).
- :class:`CorrelatedGaussianMechanism` — (epsilon, delta)-DP marginals with correlated
  Gaussian noise, and synthetic data from them (Nikolov, Talwar & Zhang, STOC 2013).
- :class:`PrivateSampler` — noise-free epsilon-DP sampling, budget-limited (Boedihardjo,
  Strohmer & Vershynin, *Private sampling*).

Data larger than memory: :class:`Chunks` (and Dask collections) in any ``fit``; see
:mod:`skprivsynth.chunks`.
Pipelines: :class:`SynthesisPipeline`, :func:`make_synthesis_pipeline`,
:func:`make_private_pipeline`.
Public domains (column kinds, missing values) in :mod:`skprivsynth.domain`, drafted by
:func:`draft_domain`; CSV files read by a domain and written in :mod:`skprivsynth.io`; encoders in
:mod:`skprivsynth.preprocessing`, metrics and scorers in
:mod:`skprivsynth.metrics`, the quality report in :mod:`skprivsynth.report`, noise and
accounting in :mod:`skprivsynth.privacy`.
"""

from .accountant import PrivacyAccountant
from .chunks import Chunks
from .domain import Domain
from .events import PeopleEventsSynthesizer
from .exceptions import BudgetExceededError, PrivacyLeakWarning, SolverError
from .io import read_csv, write_csv
from .kinds import draft_domain
from .metrics import categorical_marginal_tvd, covariance_loss, make_marginal_scorer
from .pipeline import SynthesisPipeline, make_private_pipeline, make_synthesis_pipeline
from .privacy import PrivacyReport
from .report import MarginalErrorDisplay
from .synthesizers import all_synthesizers
from .synthesizers.gaussian import plain_gaussian_mechanism
from .validation import is_differentially_private

__version__ = "0.4.0.dev0"

# Every synthesizer of the package, by name (one module each in synthesizers/).
_SYNTHESIZERS = dict(all_synthesizers())
globals().update(_SYNTHESIZERS)

__all__ = [
    # synthesizers (fit, then sample)
    *_SYNTHESIZERS,
    # domain, pipelines, data in chunks
    "Chunks",
    "Domain",
    "draft_domain",
    "read_csv",
    "write_csv",
    "SynthesisPipeline",
    "make_private_pipeline",
    "make_synthesis_pipeline",
    # people and their events
    "PeopleEventsSynthesizer",
    # privacy accounting
    "PrivacyAccountant",
    "PrivacyReport",
    "is_differentially_private",
    "plain_gaussian_mechanism",
    # metrics
    "categorical_marginal_tvd",
    "covariance_loss",
    "make_marginal_scorer",
    "MarginalErrorDisplay",
    # exceptions and warnings
    "BudgetExceededError",
    "PrivacyLeakWarning",
    "SolverError",
    "__version__",
]
