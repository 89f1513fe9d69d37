"""The checks a pipeline runs on a table before any work: identifier-like columns and
the width of a one-hot encoding, read from the declared domain and the public number of
rows (or of people, for a person-level fit)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .chunks import _close, _OneShot
from .domain import Domain, coded_domain
from .kinds import kind_of
from .privacy import warn_privacy_leak

__all__ = ["MAX_ONEHOT_FEATURES", "check_table"]

#: Largest one-hot width a fit encodes: a fit on one-hot rows holds the n x p table
#: (8 bytes an entry) and microaggregation a p x p second moment that it diagonalises
#: (p^3); a 10,000-level column ran 600 s and 8 GB before this bound.
MAX_ONEHOT_FEATURES = 2048


def check_table(encoder, X, chunks, private, n_people=None):
    """The identifier and width checks of :meth:`SynthesisPipeline.fit` (see there).

    Only declared specs and the public ``n`` are read for a declared column; a source
    of chunks has every column declared (the encoder refuses it otherwise), and its
    rows are counted only as far as a declared column could be identifier-like.  In a
    person-level fit the public ``n`` is ``n_people``: the number of rows is private.
    """
    first = X if chunks is None else chunks._peek()
    frame = first if isinstance(first, pd.DataFrame) else None
    if first is None or np.ndim(first) != 2 or len(first) == 0:
        return  # the encoder's fit names what is wrong with X
    if frame is not None and not frame.columns.is_unique:
        return  # likewise duplicated columns
    labels = list(frame.columns) if frame is not None else list(range(np.shape(first)[1]))
    specs = _declared_specs(encoder.categories, labels)
    if specs is None:
        return  # a malformed domain: the encoder's fit names it
    data = frame if chunks is None else None  # columns counted in the data
    # A range's bins are chosen at fit: never identifier-like.
    sizes = {c: kind_of(s).size for c, s in specs.items() if not kind_of(s).bins_at_fit}
    limit = 2 * max(sizes.values(), default=0)
    if n_people is not None:
        n = n_people
    else:
        n = len(first) if chunks is None else _count_rows(chunks, limit)
    if n is not None:
        _check_identifiers(labels, specs, sizes, data, n, private)
    if encoder.encoding == "onehot":
        _check_onehot_width(labels, specs, data, encoder)


def _declared_specs(categories, labels):
    """Label -> parsed spec the columns ``categories`` declares are coded by (None if
    malformed): a bounded column's gap, no sum (:func:`~skprivsynth.domain.coded_domain`)."""
    if isinstance(categories, str):
        return {}
    if isinstance(categories, list):
        if len(categories) != len(labels):
            return None
        categories = dict(zip(labels, categories, strict=True))
    declared = {c: s for c, s in categories.items() if s is not None and not isinstance(s, str)}
    try:
        domain = coded_domain(Domain(declared))
    except (TypeError, ValueError):
        return None
    return {c: domain[c] for c in labels if c in domain}


def _count_rows(chunks, limit):
    """The rows of ``chunks`` counted up to ``limit + 1``; None for a one-shot source
    whose first chunk has no more than ``limit`` rows (it cannot be read ahead)."""
    rows, iterator = 0, iter([chunks._peek()] if isinstance(chunks, _OneShot) else chunks)
    try:
        for chunk in iterator:
            rows += len(chunk)
            if rows > limit:
                return rows
    finally:
        _close(iterator)
    return None if isinstance(chunks, _OneShot) else rows


def _check_identifiers(labels, declared, sizes, data, n, private):
    """Refuse (DP) or warn about (otherwise) columns of more levels than ``n / 2``:
    ``declared`` columns by their declared ``sizes`` (ranges not), undeclared ones (bool and float
    columns aside) counted in ``data`` when it is given."""
    found = []
    for column in labels:
        if column in sizes:
            levels = sizes[column]
        elif data is not None and column not in declared and not _float_or_bool(data[column]):
            levels = data[column].nunique()
        else:
            continue
        if levels > n / 2:
            found.append(f"{column!r} ({levels} levels)")
    if not found:
        return
    text = (
        f"columns {', '.join(found)} have more than half as many levels as the {n} rows: "
        "they look like identifiers, which synthetic data cannot reproduce without "
        "copying them. Leave them out of X (on the command line, --drop), or declare "
        'coarser levels or {"bins": [...]} in the domain.'
    )
    if private:
        raise ValueError(text)
    warn_privacy_leak(text + " Microaggregation proceeds.", stacklevel=5)


def _float_or_bool(series):
    return pd.api.types.is_bool_dtype(series.dtype) or pd.api.types.is_float_dtype(series.dtype)


def _check_onehot_width(labels, specs, data, encoder):
    """Refuse a one-hot encoding wider than ``MAX_ONEHOT_FEATURES``: a declared column
    counts its levels or bins (coarsened to ``max_bins``), a range its bins chosen at
    fit (not known here: not counted); an undeclared one its levels in ``data`` (floats
    ``n_bins`` quantile bins)."""
    widths = {}
    for column in labels:
        spec = specs.get(column)
        if spec is not None:
            if kind_of(spec).bins_at_fit:
                continue
            width = kind_of(spec).width(encoder.max_bins)
        elif data is None:
            continue
        elif pd.api.types.is_float_dtype(data[column].dtype):
            width = encoder.n_bins
        else:
            width = data[column].nunique(dropna=False)
            if encoder.max_bins is not None:
                width = min(width, encoder.max_bins)
        widths[column] = int(width)
    total = sum(widths.values())
    if total <= MAX_ONEHOT_FEATURES:
        return
    widest = sorted(widths, key=widths.get, reverse=True)[:3]
    named = ", ".join(f"{c!r} ({widths[c]} levels)" for c in widest if widths[c] > 64)
    raise ValueError(
        f"the one-hot encoding of this fit would have {total} features, more than "
        f"{MAX_ONEHOT_FEATURES} (memory n x {total} x 8 bytes, and a fit in "
        f"{total}^2 memory): widest columns {named}. Declare coarser levels or "
        '{"bins": [...]} for them in the domain, group their levels into N ranges with '
        "the encoder's max_bins=N (--max-bins N), or encode levels as integer codes "
        "for MarginalSynthesizer (--method marginal)."
    )
