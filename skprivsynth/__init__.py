"""skprivsynth: private and anonymous synthetic data with a scikit-learn API."""

from .privacy import PrivacyLeakWarning

__version__ = "0.1.0"

__all__ = ["PrivacyLeakWarning", "__version__"]
