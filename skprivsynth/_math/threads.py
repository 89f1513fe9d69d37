"""One BLAS thread for loops of small vector operations."""

import contextlib
import functools

import scipy.linalg  # noqa: F401  (loads SciPy's BLAS before the controller looks)
from threadpoolctl import ThreadpoolController  # a dependency of scikit-learn

__all__ = ["one_blas_thread"]


@functools.cache
def _controller():
    # Finding the loaded libraries reads /proc/self/maps (about 4 ms): done once, not on
    # every call of a kernel that a fit, or an audit of thousands of fits, runs.
    return ThreadpoolController()


class one_blas_thread(contextlib.ContextDecorator):  # noqa: N801  (used like a function)
    """Context manager (and decorator) running its body with one BLAS thread.

    Loops of vector operations (FISTA iterations, per-group moments) are slowed down by
    the synchronisation of several BLAS threads more than they gain from them.
    """

    def __init__(self):
        self._limiters = []

    def __enter__(self):
        self._limiters.append(_controller().limit(limits=1, user_api="blas"))
        return self

    def __exit__(self, *exc):
        self._limiters.pop().restore_original_limits()
        return False
