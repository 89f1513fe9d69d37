"""Checks of a column's values against its declared domain, and their messages.

On a DP path a message names the column and what its domain accepts, never a value
of the data nor a row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..kinds import MISSING


def _column_name(label):
    return repr(_show(label))


def _show(value):
    """A value as the user wrote it (``5`` rather than ``np.int64(5)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _is_integer_dtype(dtype):
    return pd.api.types.is_integer_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _check_no_missing(series, label):
    """Refuse missing and infinite values; the message names the column, never a value
    nor a row."""
    missing = series.isna().to_numpy()
    if pd.api.types.is_float_dtype(series.dtype):
        missing = missing | ~np.isfinite(series.to_numpy(dtype=np.float64, na_value=np.nan))
    if missing.any():
        raise ValueError(
            f"Input X contains NaN or infinity: column {_column_name(label)} has missing or "
            "infinite values. BooleanEncoder needs complete, finite data; impute or drop "
            "missing values first (or encode them as an explicit category)."
        )


def _check_declared_missing(series, label, missing):
    """Refuse missing values in a declared column without a ``missing`` level, and
    infinities; the message names the column and the key to add, never a value."""
    if not missing and series.isna().any():
        raise ValueError(
            f"Column {_column_name(label)} has missing values (NaN, None, NaT or pd.NA), but "
            'its declared domain has no missing level; add "missing": true to its spec '
            f'(e.g. categories[{_show(label)!r}] = {{..., "missing": true}}) to synthesize '
            "them as one more level, or drop or impute them first."
        )
    if pd.api.types.is_float_dtype(series.dtype):
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isinf(values).any():
            raise ValueError(
                f"Column {_column_name(label)} has infinite values, which no declared "
                "domain holds; replace them first."
            )


def _accepted(kind):
    """What a column of ``kind`` accepts, for messages: its bin edges' bounds, or its
    first levels (never a value of the data)."""
    if kind.binned:
        shown = [kind.show(e) for e in kind.spec.edges]
        return f"the bin edges [{shown[0]}, {shown[-1]}]"
    levels = [v for v in kind.spec if v is not MISSING]
    return f"the categories {[_show(v) for v in levels[:10]] + ['...'] * (len(levels) > 10)}"
