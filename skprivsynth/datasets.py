"""Bundled demo data: the discretised UCI Adult census data."""

from __future__ import annotations

import gzip
import json
from importlib import resources

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

__all__ = ["load_adult"]

_DESCR = """Adult census data (discretised, integer-coded)
==============================================

48,842 rows and 14 columns, every column integer-coded as 0..K-1 with K given by
``domain`` (the public domain: declare it to encoders so that no category is learned
from the data).  ``income>50K`` is the usual prediction target.

Source: UCI Machine Learning Repository, "Adult" (Becker & Kohavi, 1996), CC BY 4.0.
Discretisation and integer coding by the private-pgm project (McKenna et al.),
Apache-2.0.  This is the standard benchmark of the differentially private
synthetic-data literature (MST, AIM, PrivBayes).
"""


def load_adult(as_frame=True):
    """Load the discretised Adult data bundled with the package.

    Parameters
    ----------
    as_frame : bool, default=True
        If True, ``data`` is a :class:`pandas.DataFrame` of int64 columns; otherwise
        an int64 ndarray.

    Returns
    -------
    sklearn.utils.Bunch
        ``data`` (DataFrame or ndarray, shape (48842, 14)), ``frame`` (the DataFrame,
        or None when ``as_frame=False``), ``domain`` (dict column -> number of
        categories; ``skprivsynth.Domain(adult.domain)`` makes it a
        :class:`~skprivsynth.Domain`), ``feature_names`` (list of str) and ``DESCR``.

    Examples
    --------
    >>> from skprivsynth.datasets import load_adult
    >>> adult = load_adult()
    >>> adult.data.shape, adult.domain["sex"]
    ((48842, 14), 2)
    """
    package = resources.files("skprivsynth") / "data"
    with (package / "adult.csv.gz").open("rb") as raw, gzip.open(raw, "rt") as text:
        frame = pd.read_csv(text, dtype=np.int64)
    domain = json.loads((package / "adult-domain.json").read_text())
    frame = frame[list(domain)]
    return Bunch(
        data=frame if as_frame else frame.to_numpy(),
        frame=frame if as_frame else None,
        domain=dict(domain),
        feature_names=list(domain),
        DESCR=_DESCR,
    )
