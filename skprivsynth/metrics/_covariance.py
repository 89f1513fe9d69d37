"""Covariance loss: the Frobenius distance of two covariance matrices
(:func:`covariance_loss`)."""

import numpy as np
from sklearn.utils import check_array

from ._boolean import _ROW_CHUNK
from ._validation import _check_weights, _check_widths


def _weighted_covariance(A, w, p):
    mean = np.zeros(p)
    for start in range(0, A.shape[0], _ROW_CHUNK):
        mean += w[start : start + _ROW_CHUNK] @ A[start : start + _ROW_CHUNK]
    cov = np.zeros((p, p))
    for start in range(0, A.shape[0], _ROW_CHUNK):
        centred = A[start : start + _ROW_CHUNK] - mean
        cov += centred.T @ (centred * w[start : start + _ROW_CHUNK, None])
    return cov


def covariance_loss(X, Y, sample_weight_X=None, sample_weight_Y=None):
    """Frobenius distance ``‖Σ_X − Σ_Y‖_F`` of the two covariance matrices.

    ``Σ`` is the *population* covariance (divisor ``n``, i.e. ``numpy.cov(X.T,
    bias=True)``), or with weights ``Σ_i w_i (x_i − μ)(x_i − μ)ᵀ / Σ_i w_i``.  With
    ``Y`` = the group means of a microaggregation and ``sample_weight_Y`` = the group
    sizes, this is the covariance loss ``‖Σ_X − Σ_{E[X|F]}‖_F`` of conditional
    expectation (BSV 2022, Sect. 3; law of total variance: it is the Frobenius norm of
    the expected within-group covariance).

    Parameters
    ----------
    X : array-like of shape (n_x, p)
        Real data (any finite values).
    Y : array-like of shape (n_y, p)
        Synthetic data or candidate records.
    sample_weight_X, sample_weight_Y : array-like, optional
        Non-negative row weights.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from skprivsynth.metrics import covariance_loss
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    >>> covariance_loss(X, X[::-1])
    0.0
    >>> covariance_loss(X, [[0.5, 0.5]], sample_weight_Y=[4])  # one group: all is lost
    0.3535533905932738
    """
    X = check_array(X, dtype=np.float64, ensure_all_finite=True, input_name="X")
    Y = check_array(Y, dtype=np.float64, ensure_all_finite=True, input_name="Y")
    _check_widths(X, Y)
    p = X.shape[1]
    with np.errstate(over="ignore", invalid="ignore"):
        cov_x = _weighted_covariance(
            X, _check_weights(sample_weight_X, X.shape[0], "sample_weight_X"), p
        )
        cov_y = _weighted_covariance(
            Y, _check_weights(sample_weight_Y, Y.shape[0], "sample_weight_Y"), p
        )
        loss = float(np.linalg.norm(cov_x - cov_y, ord="fro"))
    if not np.isfinite(loss):
        raise ValueError(
            "covariance_loss overflows float64: X or Y has entries too large for their "
            "squares to be represented (about 1e154 or more); rescale X and Y."
        )
    return loss
