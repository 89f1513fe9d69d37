"""The ``skprivsynth`` command: ``demo``, ``synthesize``, ``evaluate`` and ``domain``.

Errors are reported as one line on standard error with exit status 2, never as a
traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import itertools
import json
import logging
import math
import os
import sys
import tempfile
import time
import warnings

import numpy as np
import pandas as pd

from . import __version__
from .base import _seed_warned
from .chunks import Chunks
from .datasets import load_adult
from .domain import (
    _NA_MARKERS,
    MAX_INTEGER_LEVELS,
    MISSING,
    Bins,
    Domain,
    Range,
    _is_missing_code,
    observed_levels,
)
from .exceptions import PrivacyLeakWarning
from .metrics import categorical_marginal_tvd
from .pipeline import _seeded_releases, make_private_pipeline
from .validation import is_differentially_private, is_seeded

__all__ = ["main"]

# Triples scored by the demo / evaluate commands (the convention of benchmarks/RESULTS.md).
_N_TRIPLES = 200
# Rows per batch of the sample written by ``synthesize --dask`` without --chunksize.
_SAMPLE_BATCH = 100_000


def _synthesizers():
    """Method name -> synthesizer class, for every synthesizer of the package."""
    import skprivsynth

    names = {
        "microaggregation": "MicroaggregationSynthesizer",
        "noisy-microaggregation": "NoisyMicroaggregation",
        "reduced-space-lp": "ReducedSpaceLP",
        "private-sampler": "PrivateSampler",
        "correlated-gaussian": "CorrelatedGaussianMechanism",
        "marginal": "MarginalSynthesizer",
    }
    return {
        key: getattr(skprivsynth, cls) for key, cls in names.items() if hasattr(skprivsynth, cls)
    }


def _parse_value(text):
    for convert in (int, float):
        try:
            return convert(text)
        except ValueError:
            pass
    return {"true": True, "false": False, "none": None}.get(text.lower(), text)


def _parse_params(pairs):
    params = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ValueError(f"--param expects KEY=VALUE; got {pair!r}.")
        params[key.replace("-", "_")] = _parse_value(value)
    return params


def _make_synthesizer(method, params, seed, quiet=False):
    """The synthesizer of ``--method`` with ``--param``s, seeded by ``--seed``; its phase
    lines on standard error (``verbose=1``) unless ``--quiet``."""
    synthesizers = _synthesizers()
    if method not in synthesizers:
        raise ValueError(f"--method must be one of {sorted(synthesizers)}; got {method!r}.")
    cls = synthesizers[method]
    accepted = inspect.signature(cls).parameters
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise ValueError(
            f"--param {unknown[0]}: {cls.__name__} has no parameter {unknown[0]!r}; its "
            f"parameters are {', '.join(sorted(accepted))}."
        )
    if "random_state" in accepted:
        params = {"random_state": seed, **params}
    if "verbose" in accepted:
        params = {"verbose": 0 if quiet else 1, **params}
    synthesizer = cls(**params)
    synthesizer._validate_params()  # a bad --param fails before the data is read
    return synthesizer


def _tvd_table(real, synthetic, domain, seed):
    return {
        f"tvd{d}": categorical_marginal_tvd(
            real,
            synthetic,
            degree=d,
            domain=domain,
            max_marginals=_N_TRIPLES if d == 3 else None,
            random_state=seed,
        )
        for d in range(1, min(3, real.shape[1]) + 1)  # a table of 1 or 2 columns too
    }


def _print_rows(rows):
    frame = pd.DataFrame(rows).set_index("synthesizer")
    print(frame.to_string(float_format=lambda v: f"{v:.4f}"))


def _pipeline(args, domain, synthesizer, allow_learned_domain=False):
    """The pipeline of a run: :func:`~skprivsynth.make_private_pipeline`'s encoding policy
    with the command-line options (``--max-bins 0``: no coarsening).

    The library's warning about seeded releases is left out: the commands warn in their
    own words (``--seed``), and the demo's data is public.
    """
    if not np.isfinite(args.decode_epsilon) or args.decode_epsilon < 0:
        raise ValueError(
            f"--decode-epsilon must be a finite number >= 0; got {args.decode_epsilon}."
        )
    max_bins = args.max_bins
    if max_bins is None:
        max_bins = "auto"
    elif max_bins <= 0:
        max_bins = None
    if not np.isfinite(args.binning_epsilon) or args.binning_epsilon <= 0:
        raise ValueError(
            f"--binning-epsilon must be a finite number > 0; got {args.binning_epsilon}."
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return make_private_pipeline(
            synthesizer,
            domain,
            max_bins=max_bins,
            decode_epsilon=args.decode_epsilon,
            binning_epsilon=args.binning_epsilon,
            allow_learned_domain=allow_learned_domain,
            random_state=args.seed,
        )


def _privacy_line(pipe):
    """One line stating the guarantee of the whole run (the synthesizer and the encoder's
    releases: private bins of declared ranges, decoding weights)."""
    synthesizer, decode_report = pipe[-1], pipe[0].privacy_report_
    report = getattr(synthesizer, "privacy_report_", None)
    if decode_report is not None:
        names = {"private bins": "private bins", "level frequencies": "decoding weights"}
        encoder = " and ".join(names.get(m, m) for m in decode_report.mechanism.split(" + "))
    if report is None:
        k = getattr(synthesizer, "k", None)
        text = f"privacy: k-anonymous microaggregation, k = {k} (not differential privacy)"
        if decode_report is not None:
            text += f"; {encoder}: epsilon = {decode_report.epsilon:.4g} (replace-one)"
        return text
    if decode_report is not None:
        total = report.compose(decode_report)
        if math.isclose(total.epsilon, report.epsilon + decode_report.epsilon):
            parts = f" ({report.epsilon:.4g} synthesizer + {decode_report.epsilon:.4g} {encoder})"
        else:  # their zCDP parts compose before the conversion: less than the sum
            parts = (
                f" (synthesizer {report.epsilon:.4g} and {encoder} {decode_report.epsilon:.4g}"
                " alone, composed in zCDP)"
            )
    else:
        total, parts = report, ""
    text = f"privacy: epsilon = {total.epsilon:.4g}{parts}"
    return (
        text + (f", delta = {total.delta:.3g}" if total.delta else "") + ", replace-one neighbours"
    )


def _demo(args):
    adult = load_adult()
    data = adult.data if args.n_rows is None else adult.data.iloc[: args.n_rows]
    params = _parse_params(args.param)
    synthesizer = _make_synthesizer(args.method, params, args.seed, args.quiet)
    pipe = _pipeline(args, adult.domain, synthesizer)
    start = time.perf_counter()
    pipe.fit(data)
    fit_time = time.perf_counter() - start
    start = time.perf_counter()
    synthetic = pipe.sample(len(data), random_state=args.seed)
    sample_time = time.perf_counter() - start
    rng = np.random.default_rng(args.seed)
    bootstrap = data.iloc[rng.integers(0, len(data), len(data))].reset_index(drop=True)
    features = {
        "onehot": f"{pipe[0].n_features_out_} Boolean features",
        "binary": f"{pipe[0].n_features_out_} Boolean features, binary codes",
        "ordinal": f"{sum(pipe[0].n_codes_)} levels as integer codes",
    }[pipe[0].encoding]
    print(
        f"Adult: {len(data)} rows, {data.shape[1]} columns, "
        f"{features} (max_bins={pipe[0].max_bins})"
    )
    print(f"{type(synthesizer).__name__}({', '.join(f'{k}={v!r}' for k, v in params.items())})")
    print(_privacy_line(pipe))
    _print_rows(
        [
            {
                "synthesizer": type(synthesizer).__name__,
                **_tvd_table(data, synthetic, adult.domain, args.seed),
                "fit_s": fit_time,
                "sample_s": sample_time,
            },
            {
                "synthesizer": "bootstrap of real data (floor)",
                **_tvd_table(data, bootstrap, adult.domain, args.seed),
                "fit_s": 0.0,
                "sample_s": 0.0,
            },
        ]
    )
    if hasattr(synthesizer, "privacy_report_"):
        report = synthesizer.privacy_report_
        print(report if args.verbose else report.summary())
    return 0


def _read_csv(path, what, **read_csv_kwargs):
    """``pd.read_csv(path)``; an unreadable or malformed file is an error naming it."""
    try:
        return pd.read_csv(path, **read_csv_kwargs)
    except (OSError, ValueError) as exc:  # pandas' parser errors are ValueErrors
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ValueError(f"{what} {str(path)!r} cannot be read as CSV: {reason}") from exc


#: The text pandas reads as missing by default (``pandas.read_csv``'s ``na_values``).
_NA_TEXT = frozenset(_NA_MARKERS)
#: Among numbers and dates, also the "?" of UCI files and questionnaires (never a value).
_NA_VALUE_TEXT = _NA_TEXT | {"?"}
_TRUE_TEXT, _FALSE_TEXT = (
    frozenset({"True", "true", "TRUE", "1"}),
    frozenset({"False", "false", "FALSE", "0"}),
)


class _CsvSchema:
    """How the cells of a CSV become values: declared columns by their declared kind.

    The file is read with :meth:`Domain.read_csv_options
    <skprivsynth.Domain.read_csv_options>` (a column of string levels as text, so a
    declared level such as ``"NA"`` stays that level), then each declared column is
    parsed by its kind: a cell is missing when it is empty or one of pandas' missing
    spellings (``"NA"``, ``"null"`` ...) that is not a declared level of its column;
    a level declared as the number 3 is the text ``"3"`` (or ``"3.0"``); integer
    columns become integers, a fractional cell rounded down as the encoder reads it
    (``Int64`` in a column declaring missing, in every chunk),
    float columns floats, datetime columns timestamps (ISO 8601), boolean columns
    booleans.  Undeclared columns are read with pandas' defaults.

    Parameters
    ----------
    domain : Domain or None
        The domain file; None: pandas' defaults.
    columns : list
        The CSV's columns.
    what : str
        The file, for messages.
    refuse_missing : bool
        Refuse a missing cell in a declared column whose spec does not declare
        ``"missing": true`` (a synthesis; an evaluation counts it as a level).
    """

    def __init__(self, domain, columns, what, refuse_missing, usecols=None):
        declared = [c for c in columns if domain is not None and c in domain]
        self.domain = None if not declared else domain.project(declared)
        self.undeclared = [c for c in columns if c not in declared]
        self.what, self.refuse_missing = what, refuse_missing
        self.usecols = {} if usecols is None else {"usecols": list(usecols)}

    def read_kwargs(self):
        """Keyword arguments of ``pandas.read_csv``."""
        if self.domain is None:
            return dict(self.usecols)
        options = {**self.usecols, **self.domain.read_csv_options()}
        options["na_values"].update({c: sorted(_NA_TEXT) for c in self.undeclared})
        # Boolean cells as text, parsed here: pandas' own guess is bool, int or float
        # depending on the spellings and missing cells of each chunk.
        options["dtype"].update(
            {c: str for c in self.domain.columns if self.domain.kind(c) == "boolean"}
        )
        return options

    def __call__(self, frame):
        """The declared columns of ``frame`` (read with :meth:`read_kwargs`) parsed."""
        if self.domain is None:
            return frame
        frame = frame.copy()
        for column, spec in self.domain.items():
            kind, missing = self.domain.kind(column), self.domain.missing(column)
            levels = [v for v in spec if v is not MISSING] if kind == "categorical" else None
            text = frame[column].astype(object)
            declared = set() if levels is None else {str(v) for v in levels}
            na_text = _NA_TEXT - declared if kind == "categorical" else _NA_VALUE_TEXT
            absent = (text.isna() | text.isin(na_text)).to_numpy()
            # "missing": [98, 99] or ["?"]: those cells are missing too
            absent = absent | _is_missing_code(text, spec)
            if absent.any() and not missing and self.refuse_missing:
                raise ValueError(
                    f"column {column!r} of {self.what} has missing cells (empty, or text "
                    "such as NA that is not a declared level), which its domain spec does "
                    'not declare: add "missing": true to it in the domain file (missing '
                    'becomes one more level of the column, e.g. {"levels": [...], '
                    '"missing": true}), or fill the cells before the run.'
                )
            frame[column] = self._parse(text, absent, kind, levels, column, missing)
        return frame

    def _parse(self, text, absent, kind, levels, column, missing):
        """The values of one column; a column declaring missing gets a dtype with a
        missing value (``Int64``, ``boolean``) in every chunk, missing cells or not."""
        nullable = missing or absent.any()
        present = text[~absent]
        if kind == "categorical":
            return _parse_levels(text, absent, levels, nullable)
        if kind == "datetime":
            try:
                values = pd.to_datetime(present, format="ISO8601")
            except (ValueError, TypeError) as exc:
                raise ValueError(
                    f"column {column!r} of {self.what} is declared a datetime, but some "
                    "cells are not ISO 8601 dates or timestamps."
                ) from exc
            return values.reindex(text.index)
        if kind == "boolean":
            known = present.isin(_TRUE_TEXT | _FALSE_TEXT)
            if not known.all():
                raise ValueError(
                    f"column {column!r} of {self.what} is declared boolean, but some cells "
                    f"are not one of {sorted(_TRUE_TEXT | _FALSE_TEXT)}."
                )
            values = present.isin(_TRUE_TEXT)
            if nullable:
                return values.astype("boolean").reindex(text.index)
            return values.astype(bool)
        numbers = pd.to_numeric(present, errors="coerce")
        if numbers.isna().any():
            raise ValueError(
                f"column {column!r} of {self.what} is declared numeric ({kind}), but some "
                "cells are not numbers."
            )
        numbers = numbers.astype(np.float64).reindex(text.index)
        if kind == "float":
            return numbers
        numbers = np.floor(numbers)  # as the encoder reads an integer column: 2.5 is 2
        return numbers.astype("Int64") if nullable else numbers.astype(np.int64)


def _parse_levels(text, absent, levels, nullable):
    """The declared level of each cell (by its text, or by its number for numeric
    levels); missing cells NaN; other cells kept as text (outside the domain)."""
    by_text = {str(level): level for level in levels}
    values = text.map(by_text)
    numeric = {
        float(v): v
        for v in levels
        if isinstance(v, int | float | np.number) and not isinstance(v, bool | np.bool_)
    }
    unmatched = values.isna() & ~absent
    if numeric and unmatched.any():
        numbers = pd.to_numeric(text[unmatched], errors="coerce")
        values[unmatched] = numbers.map(numeric)
    unmatched = values.isna() & ~absent
    values[unmatched] = text[unmatched]
    values[absent] = np.nan
    if not unmatched.any():
        types = {type(v) for v in levels}
        if types <= {int}:
            return values.astype("Int64") if nullable else values.astype(np.int64)
        if types <= {bool}:
            return values.astype("boolean") if nullable else values.astype(bool)
        if types <= {float, int}:
            return values.astype(np.float64)
    return values


def _load_domain(path):
    """The :class:`Domain` of the domain file at ``path`` (None without a file)."""
    if path is None:
        return None
    try:
        return Domain.from_json(path)
    except OSError as exc:
        raise ValueError(f"domain file {str(path)!r} cannot be read: {exc.strerror}") from exc


def _check_declared_columns(domain, path, columns, data_path):
    """Every column of ``domain`` (from the file ``path``) must be a column of the CSV."""
    unknown = [] if domain is None else [c for c in domain if c not in columns]
    if unknown:
        raise ValueError(
            f"domain file {str(path)!r} declares columns {unknown} that are not in "
            f"{str(data_path)!r}, whose columns are {list(columns)}."
        )


def _kept_columns(header, drop, path):
    """The columns of the CSV at ``path`` (``header``) less those of ``--drop``."""
    unknown = [c for c in drop if c not in header]
    if unknown:
        raise ValueError(
            f"--drop names columns {unknown} that are not in {str(path)!r}, whose columns "
            f"are {list(header)}."
        )
    return [c for c in header if c not in drop]


def _schema(path, what, domain_path, refuse_missing, drop):
    """The domain file at ``domain_path`` and the :class:`_CsvSchema` of the CSV at
    ``path`` without the columns ``drop`` (in the CSV and in the domain file, which may
    declare them: a drafted domain keeps a key column it advises to drop):
    ``(domain, columns, schema)``."""
    domain = _load_domain(domain_path)
    columns = _kept_columns(_read_csv(path, what, nrows=0).columns, drop, path)
    if domain is not None and drop:
        domain = domain.project([c for c in domain if c not in drop])
    _check_declared_columns(domain, domain_path, columns, path)
    usecols = columns if drop else None
    schema = _CsvSchema(domain, columns, f"{what} {str(path)!r}", refuse_missing, usecols)
    return domain, columns, schema


def _read_table(path, what, domain_path, refuse_missing=True, drop=()):
    """The CSV at ``path`` read by the domain file at ``domain_path`` (see
    :class:`_CsvSchema`), without the columns ``drop``; returns ``(data, domain,
    schema)``."""
    domain, _, schema = _schema(path, what, domain_path, refuse_missing, drop)
    return schema(_read_csv(path, what, **schema.read_kwargs())), domain, schema


def _check_output(output, inputs, option="--output"):
    """Refuse an output path (of the command-line ``option``) that cannot be written,
    before any work is done.

    The directory must exist and be writable, the path must not be a directory and
    must not be one of the ``inputs`` (which are never overwritten).
    """
    directory = os.path.dirname(os.path.abspath(output))
    if os.path.isdir(output):
        raise ValueError(f"{option} {output!r} is a directory; give a file path.")
    if not os.path.isdir(directory):
        raise ValueError(f"{option} {output!r}: the directory {directory!r} does not exist.")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ValueError(f"{option} {output!r}: the directory {directory!r} is not writable.")
    for path in inputs:
        if os.path.exists(output) and os.path.exists(path) and os.path.samefile(path, output):
            raise ValueError(
                f"{option} {output!r} is the input file; choose another path "
                "(the input is never overwritten)."
            )


def _write_atomically(path, write, **open_kwargs):
    """Call ``write(stream)`` on a temporary file next to ``path``, then rename the file
    into place; return what ``write`` returns.

    A crash or an error never leaves a half-written output file behind.  The file gets
    the permissions of a newly created one (0666 less the umask), not the owner-only
    0600 of a temporary file: the output is meant to be shared.
    """
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".skprivsynth-", dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        with os.fdopen(handle, "w", **open_kwargs) as stream:
            result = write(stream)
        os.replace(temporary, path)
        return result
    except BaseException:
        os.unlink(temporary)
        raise


def _write_csv_atomically(frames, path):
    """Write ``frames`` (a DataFrame, or an iterable of DataFrames written one after
    the other under one header) to ``path`` atomically; return the number of rows."""
    if isinstance(frames, pd.DataFrame):
        frames = [frames]

    def write(stream):
        rows = 0
        for frame in frames:
            frame.to_csv(stream, index=False, header=rows == 0)
            rows += len(frame)
        return rows

    return _write_atomically(path, write, newline="")


def _check_identifiers(data, domain, private):
    """Refuse (DP) or warn about (microaggregation) identifier-like columns.

    A column is identifier-like when it has more than ``n/2`` levels for ``n`` rows:
    most levels then hold a single row, so its tables carry no statistical signal, the
    encoding grows with ``n`` and decoded levels copy real values.  For a declared
    column the count is that of the declared domain (public, as ``n`` is under
    replace-one neighbours), so the refusal of a DP run depends on no private value;
    an undeclared column's levels are counted in the data (its domain is learned from
    the data anyway: no guarantee covers it).  Float columns without a declaration
    are binned by quantiles, so they are not counted.
    """
    n = len(data)
    found = []
    for column in data.columns:
        if domain is not None and column in domain:
            if isinstance(domain[column], Range):  # a numeric range: bins chosen at fit
                continue
            levels = len(domain[column])
        else:
            dtype = data[column].dtype
            if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_float_dtype(dtype):
                continue
            levels = data[column].nunique()
        if levels > n / 2:
            found.append(f"{column!r} ({levels} levels)")
    if not found:
        return
    text = (
        f"columns {', '.join(found)} have more than half as many levels as the {n} rows: "
        "they look like identifiers, which synthetic data cannot reproduce without "
        "copying them. Leave them out with --drop, or declare coarser levels or "
        '{"bins": [...]} in --domain.'
    )
    if private:
        raise ValueError(text)
    warnings.warn(text + " Microaggregation proceeds.", PrivacyLeakWarning, stacklevel=2)


#: Largest one-hot width a run encodes: a fit on one-hot rows holds the n x p table
#: (8 bytes an entry) and microaggregation a p x p second moment that it diagonalises
#: (p^3); a 10,000-level column ran 600 s and 8 GB before this bound.
_MAX_ONEHOT_FEATURES = 2048


def _check_onehot_width(data, domain, encoder):
    """Refuse, before any work, a one-hot encoding wider than ``_MAX_ONEHOT_FEATURES``.

    The width of a declared column is its number of levels or bins (coarsened to
    ``max_bins``), public; an undeclared column's is counted in the data (its
    domain is learned from the data anyway), floats in ``n_bins`` quantile bins.
    """
    if encoder.encoding != "onehot":
        return
    widths = {}
    for column in data.columns:
        if domain is not None and column in domain:
            spec = domain[column]
            if isinstance(spec, Range):  # bins chosen at fit: not known here
                continue
            width = len(spec)
            if not isinstance(spec, Bins) and encoder.max_bins is not None:
                width = min(width, encoder.max_bins)
        elif pd.api.types.is_float_dtype(data[column].dtype):
            width = encoder.n_bins
        else:
            width = data[column].nunique(dropna=False)
            if encoder.max_bins is not None:
                width = min(width, encoder.max_bins)
        widths[column] = int(width)
    total = sum(widths.values())
    if total <= _MAX_ONEHOT_FEATURES:
        return
    widest = sorted(widths, key=widths.get, reverse=True)[:3]
    named = ", ".join(f"{c!r} ({widths[c]} levels)" for c in widest if widths[c] > 64)
    raise ValueError(
        f"the one-hot encoding of this run would have {total} features, more than "
        f"{_MAX_ONEHOT_FEATURES} (memory n x {total} x 8 bytes, and a fit in "
        f"{total}^2 memory): widest columns {named}. Declare coarser levels or "
        '{"bins": [...]} for them in --domain, pass --max-bins N to group their '
        "levels into N ranges, or use --method marginal (levels as integer codes)."
    )


class _Progress:
    """Progress lines of a streamed run on standard error (none with ``--quiet``)."""

    def __init__(self, quiet):
        self.quiet, self.start = quiet, time.perf_counter()

    def __call__(self, text):
        if not self.quiet:
            elapsed = time.perf_counter() - self.start
            print(f"skprivsynth synthesize: {text}, {elapsed:.1f} s", file=sys.stderr)


class _ProgressReader:
    """Chunk factory of ``--chunksize``: reads the CSV in chunks and reports each chunk
    (the pass, the rows read so far)."""

    def __init__(self, path, chunksize, progress, schema):
        self.path, self.chunksize, self.progress = path, chunksize, progress
        self.schema, self.passes = schema, 0

    def __call__(self):
        number, rows = None, 0
        kwargs = {"chunksize": self.chunksize, **self.schema.read_kwargs()}
        for chunk in _read_csv(self.path, "input CSV", **kwargs):
            yield self.schema(chunk)
            if number is None:  # a pass counts once a chunk has been used
                self.passes += 1
                number = self.passes
            rows += len(chunk)
            self.progress(f"pass {number}: {rows} rows read")


def _blocksize(args, rows=1000):
    """Bytes of about ``--chunksize`` rows of the input, from its first ``rows`` lines
    (Dask partitions are cut by bytes); "default" when the file cannot be opened here
    (a path that only the workers see)."""
    try:
        with open(args.input, "rb") as stream:
            stream.readline()  # the header
            lengths = [len(line) for line in itertools.islice(stream, rows)]
    except OSError:
        return "default"
    return max(1, args.chunksize * sum(lengths) // max(1, len(lengths)))


def _fit_on_dask(pipe, args, progress, schema, head):
    """Fit ``pipe`` on the input CSV read by ``dask.dataframe`` on the ``--dask`` cluster;
    its partitions parsed by ``schema`` (the dtypes of ``head``, the parsed first rows)."""
    try:
        import dask.dataframe as dd
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:
        raise RuntimeError(
            f"--dask {args.dask} needs Dask, an optional extra: pip install skprivsynth[dask]"
        ) from exc
    with contextlib.ExitStack() as stack:
        if args.dask == "local":
            cluster = stack.enter_context(LocalCluster(silence_logs=logging.ERROR))
            client = stack.enter_context(Client(cluster))
        else:
            client = stack.enter_context(Client(args.dask))
        progress(f"fitting on the Dask cluster at {client.scheduler.address}")
        blocksize = "default" if args.chunksize is None else _blocksize(args)
        frame = dd.read_csv(args.input, blocksize=blocksize, **schema.read_kwargs())
        if schema.domain is not None:
            frame = frame.map_partitions(schema, meta=head.iloc[:0])
        pipe.fit(frame)
    progress(f"fitted on {pipe[-1].n_samples_fit_} rows")


def _warn_if_seeded(seed, pipe):
    """Warn when ``--seed`` seeds any DP release of the run (the synthesizer's or the
    encoder's decoding weights)."""
    if is_seeded(seed) and _seeded_releases(pipe):
        warnings.warn(
            f"--seed {seed} makes the privacy noise reproducible: anyone who knows "
            "the seed can regenerate and subtract it, which voids the DP guarantee. "
            "Use a seed for tests only; omit it for a release.",
            PrivacyLeakWarning,
            stacklevel=3,
        )


def _synthesize_streaming(args):
    """``synthesize --chunksize N`` or ``--dask``: the fit reads the input in chunks (or
    on a Dask cluster) and the sample is drawn and written in batches, so memory holds
    one chunk, the statistics and the model, whatever the number of rows."""
    option = "--dask" if args.dask is not None else "--chunksize"
    if args.chunksize is not None and args.chunksize < 1:
        raise ValueError(f"--chunksize must be a positive integer; got {args.chunksize}.")
    if args.n_samples is not None and args.n_samples < 1:
        raise ValueError(f"--n-samples must be a positive integer; got {args.n_samples}.")
    domain, columns, schema = _schema(args.input, "input CSV", args.domain, True, args.drop)
    undeclared = [c for c in columns if domain is None or c not in domain]
    if undeclared:
        raise ValueError(
            f"{option} reads the input in pieces, so the encoder must learn nothing from "
            f"the data: declare every column in --domain, or leave it out with --drop; "
            f"undeclared: {undeclared} (`skprivsynth domain sample.csv > domain.json` "
            "drafts a file to review)."
        )
    synthesizer = _make_synthesizer(args.method, _parse_params(args.param), args.seed, args.quiet)
    private = is_differentially_private(synthesizer)
    # Identifier-like columns have more declared levels than n/2: only possible when
    # the file has at most twice the largest declared number of levels, then read whole
    # (a range's bins are chosen at fit: it is never identifier-like).
    sizes = [len(domain[c]) for c in columns if not isinstance(domain[c], Range)]
    limit = 2 * max(sizes, default=0)
    head = schema(_read_csv(args.input, "input CSV", nrows=limit + 1, **schema.read_kwargs()))
    if len(head) <= limit:
        _check_identifiers(head, domain, private)
    pipe = _pipeline(args, domain, synthesizer)
    _check_onehot_width(head, domain, pipe[0])
    _warn_if_seeded(args.seed, pipe)
    progress = _Progress(args.quiet)
    if args.dask is None:
        pipe.fit(Chunks(_ProgressReader(args.input, args.chunksize, progress, schema)))
    else:
        _fit_on_dask(pipe, args, progress, schema, head)
    n_samples = pipe[-1].n_samples_fit_ if args.n_samples is None else args.n_samples
    batch = args.chunksize or _SAMPLE_BATCH
    rng = np.random.default_rng(args.seed)  # one stream through the batches

    def batches():
        done = 0
        while done < n_samples:
            size = min(batch, n_samples - done)
            yield pipe.sample(size, random_state=rng)
            done += size
            progress(f"{done} synthetic rows written")

    written = _write_csv_atomically(batches(), args.output)
    print(
        f"wrote {written} synthetic rows to {args.output}; {_privacy_line(pipe)}",
        file=sys.stderr,
    )
    return 0


def _synthesize(args):
    _check_output(args.output, [args.input])
    if args.chunksize is not None or args.dask is not None:
        return _synthesize_streaming(args)
    data, domain, _ = _read_table(args.input, "input CSV", args.domain, drop=args.drop)
    synthesizer = _make_synthesizer(args.method, _parse_params(args.param), args.seed, args.quiet)
    private = is_differentially_private(synthesizer)
    undeclared = [c for c in data.columns if domain is None or c not in domain]
    if undeclared and private and not args.allow_learned_domain:
        raise ValueError(
            f"--method {args.method} is differentially private only over a declared domain; "
            f"declare the columns {undeclared} in --domain (levels, a number of codes or "
            "bin edges; `skprivsynth domain data.csv > domain.json` drafts a file to "
            "review), leave them out with --drop, or pass --allow-learned-domain to accept "
            "a release whose domain is learned from the data (not covered by the guarantee)."
        )
    _check_identifiers(data, domain, private)
    pipe = _pipeline(args, domain, synthesizer, args.allow_learned_domain)
    _check_onehot_width(data, domain, pipe[0])
    if domain is None:
        warnings.warn(
            "no --domain given: categories are learned from the data, which the "
            "privacy guarantee of a DP method does not cover.",
            PrivacyLeakWarning,
            stacklevel=2,
        )
    _warn_if_seeded(args.seed, pipe)
    with warnings.catch_warnings():
        if domain is None:  # warned above; a partial domain warns from the encoder,
            warnings.simplefilter("ignore", PrivacyLeakWarning)  # naming the columns
        pipe.fit(data)
    # The stream of the streamed run's batches: one batch of it is this sample.
    synthetic = pipe.sample(args.n_samples, random_state=np.random.default_rng(args.seed))
    _write_csv_atomically(synthetic, args.output)
    print(
        f"wrote {len(synthetic)} synthetic rows to {args.output}; {_privacy_line(pipe)}",
        file=sys.stderr,
    )
    return 0


def _check_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ValueError(
            '--report draws figures with matplotlib: pip install "skprivsynth[plot]".'
        ) from None


def _write_text_atomically(text, path):
    """Write ``text`` to ``path`` atomically."""
    _write_atomically(path, lambda stream: stream.write(text), encoding="utf-8")


def _evaluate(args):
    from .metrics import (
        distribution_columns,
        evaluation_domain,
        missing_rates,
        numeric_column_errors,
        train_synthetic_test_real,
    )

    inputs = [args.real, args.synthetic] + ([args.holdout] if args.holdout else [])
    if args.report is not None:
        _check_output(args.report, inputs, option="--report")
        _check_matplotlib()
    # Columns left out of the synthesis (synthesize --drop) are left out here too.
    produced = set(_read_csv(args.synthetic, "synthetic CSV", nrows=0).columns)
    drop = [c for c in _read_csv(args.real, "real CSV", nrows=0).columns if c not in produced]
    real, domain, _ = _read_table(args.real, "real CSV", args.domain, False, drop)
    synthetic, _, _ = _read_table(
        args.synthetic, "synthetic CSV", args.domain, refuse_missing=False
    )
    if drop:
        print(f"columns of the real CSV not synthesized, left out: {drop}", file=sys.stderr)
    if list(real.columns) != list(synthetic.columns):
        raise ValueError(
            f"the synthetic CSV must have the real CSV's columns {list(real.columns)}; "
            f"got {list(synthetic.columns)}."
        )
    if args.target is not None and args.target not in real.columns:
        raise ValueError(
            f"--target must be a column of {args.real!r}; got {args.target!r}; its columns "
            f"are {list(real.columns)}."
        )
    holdout = None
    if args.holdout is not None:
        holdout, _, _ = _read_table(args.holdout, "holdout CSV", args.domain, False, drop)
    if args.report is not None:
        from .report import MarginalErrorDisplay

        display = MarginalErrorDisplay.from_data(
            real,
            synthetic,
            domain=domain,
            target=args.target,
            holdout=holdout,
            random_state=args.seed,
        )
        scores = {f"tvd{d}": value for d, value in display.summary["mean_tvd"].items()}
        utility, numeric, missing = display.utility, display.numeric_errors, display.missing
    else:
        evaluated = evaluation_domain(real, synthetic, domain)
        scores = _tvd_table(real, synthetic, evaluated, args.seed)
        columns = distribution_columns(real, evaluated, 20)
        numeric = numeric_column_errors(real[columns], synthetic[columns]) if columns else None
        missing = missing_rates(real, synthetic)
        utility = None
        if args.target is not None:
            utility = train_synthetic_test_real(
                real,
                synthetic,
                args.target,
                holdout=holdout,
                domain=domain,
                random_state=args.seed,
            )
    _print_rows([{"synthesizer": args.synthetic, **scores}])
    if numeric is not None:
        print()
        print("numeric columns: distributions of the values, real vs synthetic")
        print(numeric.to_string(float_format=lambda v: f"{v:.4f}"))
    if (missing[["real", "synthetic"]] > 0).any(axis=None):
        print()
        print("missing rates (columns with missing cells), real vs synthetic")
        shown = missing[(missing[["real", "synthetic"]] > 0).any(axis=1)]
        print(shown.to_string(float_format=lambda v: f"{v:.4f}"))
    if utility is not None:
        print()
        print(f"utility for {args.target!r}: train on each, test on held-out real rows")
        if args.holdout is None:
            print(
                "  held-out rows: a random quarter of the real CSV, rows the synthesizer saw "
                "in its fit (optimistic for it); pass --holdout with rows it did not see"
            )
        print(utility.to_string(float_format=lambda v: f"{v:.4f}"))
    if args.report is not None:
        _write_text_atomically(
            display.to_html(
                description=[f"real: {args.real}", f"synthetic: {args.synthetic}"]
                + ([f"held-out real rows: {args.holdout}"] if args.holdout else [])
            ),
            args.report,
        )
        print(f"wrote the report to {args.report}", file=sys.stderr)
    return 0


#: Datetime resolutions, coarsest first (the ``"resolution"`` of a datetime spec).
_RESOLUTIONS = ("D", "h", "min", "s")

#: ISO 8601 dates and timestamps without a time zone (a datetime domain has none):
#: what the draft reads as a datetime column.
_ISO_DATETIME = r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}(?::\d{2}(?::\d{2}(?:\.\d+)?)?)?)?"
#: Dates as spreadsheets write them ("01/31/2020", "1/31/20", "31.01.2020 08:30",
#: "2020/01/31"); a dotted or dashed one with a 4-digit year (not a version, 1.10.12).
_OTHER_DATE = (
    r"(?:\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})|\d{1,2}([.-])\d{1,2}\1\d{4}|\d{4}/\d{1,2}/\d{1,2})"
    r"(?:[ T]\d{1,2}:\d{2}(?::\d{2})?(?:\s*[AaPp][Mm])?)?"
)


def _round_range(low, high):
    """``[low, high]`` rounded outwards to multiples of the power of ten below the span
    (age 17..90: [10, 90]; income 1234..98765: [0, 100000])."""
    unit = 10.0 ** np.floor(np.log10(high - low))
    low, high = np.floor(low / unit) * unit, np.ceil(high / unit) * unit
    return [float(f"{low:.12g}"), float(f"{high:.12g}")]


def _is_integral(values):
    return bool(np.all(values == np.round(values)))


def _looks_like_code(value):
    """Whether an integer reads as a survey's code for a missing answer: 9, 99, 999
    ... or, from two digits on, one or two below (98 "don't know", 97 "refused"),
    or the negative of one of these."""
    digits = len(str(int(abs(value))))
    top = 10**digits - 1
    return abs(value) == top or (digits >= 2 and top - abs(value) in (1, 2))


def _drafted_missing_codes(series):
    """The integers of a numeric column that read as codes for a missing answer (see
    :func:`_looks_like_code`) and stand apart from the other values: codes above them
    at least twice the largest of them, codes below zero where they are not; ``[]``
    when none."""
    if not pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series):
        return []
    distinct = np.unique(series.dropna().to_numpy(dtype=np.float64))
    if distinct.size < 3:
        return []
    codes = [v for v in distinct if v == round(v) and _looks_like_code(v)]
    rest = distinct[~np.isin(distinct, codes)]
    if rest.size < 2:
        return []
    high = [v for v in codes if v > 0 and v >= 2 * max(abs(rest.max()), abs(rest.min())) + 1]
    low = [v for v in codes if v < 0 and rest.min() >= 0]
    return [int(v) for v in low + high]


def _iso_datetimes(series):
    """``series`` (non-missing text) as timestamps when every value is ISO 8601, else None."""
    if series.empty or not series.astype(str).str.fullmatch(_ISO_DATETIME).all():
        return None
    try:
        return pd.to_datetime(series, format="ISO8601")
    except (ValueError, TypeError):
        return None


def _draft_datetime(values):
    """The datetime spec of timestamps: the coarsest resolution every value sits on,
    and the range from the first day to the last one (at that resolution)."""
    # Sub-second timestamps get "s", the finest resolution a domain declares.
    resolution = next((u for u in _RESOLUTIONS if (values == values.dt.floor(u)).all()), "s")
    low, high = values.min().floor("D"), values.max()
    if resolution == "D":
        bounds = [low.strftime("%Y-%m-%d"), high.strftime("%Y-%m-%d")]
    else:
        high = (
            high.ceil("D") - pd.Timedelta(1, unit=resolution) if high != high.floor("D") else high
        )
        bounds = [low.isoformat(), high.isoformat()]
    return {"type": "datetime", "range": bounds, "resolution": resolution}


def _missing_text(series):
    """A text column read with only empty cells missing: its NA-like text (``"NA"``,
    ``"null"``, ``"?"`` ...) made missing too when every other value is a number or a
    timestamp, else kept as a level; and the note saying what was read as missing."""
    if series.dtype != object and not pd.api.types.is_string_dtype(series.dtype):
        return series, ""
    text = series.dropna().astype(str)
    na_like = text.isin(_NA_VALUE_TEXT)
    if not na_like.any() or na_like.all():
        return series, ""
    spellings = sorted(set(text[na_like]))
    rest = text[~na_like]
    numbers = pd.to_numeric(rest, errors="coerce")
    if numbers.notna().all():
        converted = pd.to_numeric(series.where(~series.isin(_NA_VALUE_TEXT)), errors="coerce")
        return converted, f" (empty, or {spellings} among numbers)"
    if _iso_datetimes(rest) is not None:
        absent = series.isin(_NA_VALUE_TEXT)
        return series.where(~absent), f" (empty, or {spellings} among dates)"
    return series, ""


#: Share of a float column's values that its drafted ``decimals`` must write exactly.
#: A few computed values (an imputed mean, a ratio) among values recorded in hundredths
#: would otherwise leave every synthetic value at full float precision.
_DECIMALS_SHARE = 0.99


def _decimals(values, most=6):
    """``(k, m)``: the fewest decimals ``k`` (at most ``most``) that write at least
    ``_DECIMALS_SHARE`` of the values exactly, ``m`` the values that need more; or None."""
    for k in range(most + 1):
        scaled = values * 10.0**k
        more = int(np.count_nonzero(np.abs(scaled - np.round(scaled)) > 1e-6))
        if more <= (1 - _DECIMALS_SHARE) * values.size:
            return k, more
    return None


#: A fractional column with at most ``MAX_INTEGER_LEVELS`` distinct values, each on this
#: many rows on average, is drafted as levels: its values are codes (log-rates of a
#: few tariffs, years of schooling with a half year), whose point masses a float
#: range would spread over its bins.
_ROWS_PER_VALUE = 20


#: Fewest distinct values of a column drafted as the key of units of several rows.
_MIN_UNITS = 20


def _balanced(series):
    """``(m, k)`` where each of the ``m >= _MIN_UNITS`` values of ``series`` is on exactly
    ``k >= 2`` rows (the key of a balanced panel: persons, firms or countries observed
    ``k`` times), else None."""
    counts = series.value_counts()
    k = int(counts.iloc[0]) if counts.size else 0
    if counts.size < _MIN_UNITS or k < 2 or counts.iloc[-1] != k:
        return None
    return counts.size, k


def _unit_notes(data):
    """Column -> a note on the unit of privacy, for the columns that look like the key
    of a balanced panel.  Of two such columns that cross into every row (316 persons
    answering 24 items: 316 × 24 rows), the one with fewer values is the occasion,
    not the unit, and gets no note."""
    balanced = {c: b for c in data.columns if (b := _balanced(data[c].dropna())) is not None}
    occasions = {
        c
        for c, (m, _) in balanced.items()
        for d, (m_d, _) in balanced.items()
        if m < m_d and m * m_d == len(data)
    }
    return {
        c: (
            f"; each of its {m} values is on exactly {k} rows: the key of units observed "
            f"{k} times (a panel)?  The guarantee is per row; a unit's {k} rows are "
            f"covered by group privacy only (zCDP: ρ times {k * k}, Bun & Steinke 2016): "
            f"keep one row per unit, or lower ε; if it is an identifier, synthesize with "
            f"--drop {c}"
        )
        for c, (m, k) in balanced.items()
        if c not in occasions
    }


def _draft_column(series, n):
    """``(spec, why)`` of one column, or ``(None, why)`` for a column left out."""
    present = series.dropna()
    dtype = series.dtype
    if present.empty:
        return None, "every cell is missing: nothing to declare"
    if isinstance(dtype, pd.CategoricalDtype):
        levels = [_plain(v) for v in dtype.categories]
        if dtype.ordered:
            return {"levels": levels, "ordered": True}, "ordered categorical, in its order"
        return levels, "categorical, its categories"
    if pd.api.types.infer_dtype(present) == "boolean":
        return {"type": "boolean"}, "True/False values"
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return _draft_datetime(present), "timestamps"
    if pd.api.types.is_numeric_dtype(dtype):
        values = present.to_numpy(dtype=np.float64)
        low, high = float(values.min()), float(values.max())
        if low == high:
            value = int(low) if _is_integral(values) else low
            return [value], "constant: one level"
        if not _is_integral(values):
            distinct = np.unique(values)
            if distinct.size <= min(MAX_INTEGER_LEVELS, values.size / _ROWS_PER_VALUE):
                levels = [_plain(v) for v in distinct]
                return {"levels": levels, "ordered": True}, (
                    f"{distinct.size} fractional values, each on {values.size / distinct.size:.0f} "
                    "rows on average: a coded or rounded variable, one level each (declare a "
                    "float range instead if it can take other values)"
                )
            spec = {"type": "float", "range": _round_range(low, high)}
            why = "fractional numbers: a range rounded outwards (bins chosen privately at fit)"
            precision = _decimals(values)
            if precision is not None:
                spec["decimals"], more = precision
                why += f"; {spec['decimals']} decimal(s), as " + (
                    f"all but {more} value(s) (those come back rounded)" if more else "every value"
                )
            return spec, why
        low, high = int(low), int(high)
        if present.nunique() == n and n > 1:
            return None, "integers all distinct: identifier-like (a row number?)"
        if high - low < MAX_INTEGER_LEVELS:
            return {"type": "integer", "range": [low, high]}, (
                f"integers {low}..{high}: one level per integer"
            )
        return {"type": "integer", "range": [int(v) for v in _round_range(low, high)]}, (
            f"integers spanning {high - low + 1} values: a range rounded outwards"
        )
    timestamps = _iso_datetimes(present)
    if timestamps is not None:
        return _draft_datetime(timestamps), "ISO 8601 dates or timestamps"
    if present.astype(str).str.fullmatch(_OTHER_DATE).all():
        return None, (
            "dates not in ISO 8601 ('01/31/2020'): write them as 2020-01-31 (or "
            "2020-01-31T08:30) and draft again"
        )
    if _numbers_as_text(present):
        return None, (
            "numbers written with thousands separators, currency or % signs ('$52,000', "
            "'45%'): neither levels nor numbers as they stand; write them as plain "
            "numbers and draft again"
        )
    levels = observed_levels(present.to_numpy())
    if len(levels) > n / 2:
        return None, f"{len(levels)} distinct values in {n} rows: identifier-like"
    why = (
        f"{len(levels)} text levels, sorted (if they are ordered, list them in their order "
        'with "ordered": true)'
    )
    na_like = sorted(set(map(str, levels)) & _NA_VALUE_TEXT)
    if na_like:
        codes = json.dumps(na_like)
        why += (
            f"; {na_like} kept as a level: if it means missing, remove it from the levels "
            f'and declare "missing": {codes}'
        )
    return [_plain(v) for v in levels], why


#: A number written for people: a currency sign, thousands separators, a % sign.
_FORMATTED_NUMBER = r"\s*[-+]?[$€£]?\s*[-+]?\d{1,3}(,\d{3})*(\.\d+)?\s*%?\s*|\s*[-+]?\d+(\.\d+)?"


def _numbers_as_text(present):
    """Whether text cells are all numbers written for people (``_FORMATTED_NUMBER``),
    some of them with a sign or separator that keeps them from reading as numbers
    (``"1,3"``, a multiple-choice answer, is no such number)."""
    text = present.astype(str)
    if not text.str.contains(r"[,$€£%]", regex=True).any():
        return False
    return bool(text.str.fullmatch(_FORMATTED_NUMBER).all())


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


#: The parts of a datetime drafted for each resolution: those its values can vary in.
_DRAFT_PARTS = {
    "D": ("year", "month", "day", "weekday"),
    "h": ("year", "month", "day", "weekday", "hour"),
    "min": ("year", "month", "day", "weekday", "hour", "minute"),
    "s": ("year", "month", "day", "weekday", "hour", "minute"),
}


def _datetime_part_of(values, datetimes, draft):
    """``(column, part)`` of the first datetime column of ``datetimes`` (column ->
    timestamps) that ``values`` equals a part of on every row, missing exactly where
    it is missing; or None.  ``values`` are integers, or dates (then the part is the
    ``"date"`` of a finer datetime)."""
    absent = values.isna().to_numpy()
    is_date = pd.api.types.is_datetime64_any_dtype(values.dtype)
    for of, stamps in datetimes.items():
        if not np.array_equal(absent, stamps.isna().to_numpy()):
            continue
        present, known = values[~absent].to_numpy(), stamps[~absent]
        if is_date:
            parts = () if draft[of]["resolution"] == "D" else ("date",)
        else:
            parts = _DRAFT_PARTS[draft[of]["resolution"]]
        for part in parts:
            name = {"date": "normalize", "weekday": "day_of_week"}.get(part, part)
            computed = getattr(known.dt, name)
            if (present == (computed() if part == "date" else computed).to_numpy()).all():
                return of, part
    return None


def _draft_parts(draft, columns, lines):
    """Declare as a part of a datetime column, in place, every integer column (and
    every date column) equal to that part of it on every row."""
    datetimes = {
        column: pd.to_datetime(columns[column], format="ISO8601")
        for column, spec in draft.items()
        if isinstance(spec, dict) and spec.get("type") == "datetime"
    }
    dates = [c for c in datetimes if draft[c]["resolution"] == "D"]
    integers = [
        c
        for c, values in columns.items()
        if c not in datetimes
        and pd.api.types.is_numeric_dtype(values.dtype)
        and not pd.api.types.is_bool_dtype(values.dtype)
        and _is_integral(values.dropna().to_numpy(dtype=np.float64))
    ]
    for column in dates + integers:  # a date that becomes a part is no datetime to others
        targets = {c: v for c, v in datetimes.items() if c != column and "part_of" not in draft[c]}
        values = datetimes.get(column, columns[column])
        found = _datetime_part_of(values, targets, draft)
        if found is None:
            continue
        of, part = found
        missing = {"missing": True} if draft[of].get("missing") else {}
        draft[column] = {"part_of": of, "part": part, **missing}
        lines[column] = (
            f"{column!r}: part_of: equals the {part} of {of!r} on every row: computed from "
            "it (no codes, no budget; the synthetic column always agrees with it)"
        )


def _draft_domain(data):
    """A domain drafted from ``data`` (not public: to be reviewed).

    Returns
    -------
    draft : dict
        Column -> spec, in the forms of the domain file: constant columns as their one
        level, integer columns as ``{"type": "integer", "range": [lo, hi]}`` (one level
        per integer up to ``MAX_INTEGER_LEVELS`` values; a wider range, and fractional
        numbers as ``{"type": "float", ...}``, rounded outwards; a fractional column of
        at most that many values, each on ``_ROWS_PER_VALUE`` rows or more on average,
        as its values in order), ISO
        dates and timestamps as datetime ranges with the coarsest resolution every
        value sits on, booleans, categoricals in their order, other text as sorted
        levels; ``"missing": true`` where cells are missing; an integer (or date)
        column equal to a part of an ISO datetime column on every row (missing where
        it is missing) as ``{"part_of": column, "part": ...}``.
    lines : list of str
        One line per column: what was inferred and why (left-out columns included).
    """
    n, draft, lines, columns = len(data), {}, {}, {}
    notes = _unit_notes(data)
    for column in data.columns:
        series, read_as_missing = _missing_text(data[column])
        codes = _drafted_missing_codes(series)
        coded = int(series.isin(codes).sum())
        spec, why = _draft_column(series.mask(series.isin(codes)), n)
        if not (isinstance(spec, dict) and spec.get("type") in ("integer", "float")):
            codes, coded = [], 0
            spec, why = _draft_column(series, n)
        why += notes.get(column, "")
        if spec is None:
            lines[column] = f"{column!r}: left out: {why}; synthesize with --drop {column}"
            continue
        missing = int(series.isna().sum())
        if coded:
            spec = {**spec, "missing": codes}
            why += (
                f"; {coded} cells hold {codes}, far from the other values: read as codes for "
                f"a missing answer{f' (and {missing} missing cells)' if missing else ''}, "
                "missing is a level and they come back as empty cells (if they are real "
                'values, remove "missing" and widen the range)'
            )
        elif missing:
            spec = {"levels": spec} if isinstance(spec, list) else spec
            spec = {**spec, "missing": True}
            why += f"; {missing} missing cells{read_as_missing}: missing is a level"
        draft[column], columns[column] = spec, series
        kind = spec.get("type", "levels") if isinstance(spec, dict) else "levels"
        lines[column] = f"{column!r}: {kind}: {why}"
    _draft_parts(draft, columns, lines)
    return draft, list(lines.values())


def _domain(args):
    # Only empty cells are missing: "NA" may be a level (see _missing_text).
    data = _read_csv(args.input, "input CSV", keep_default_na=False, na_values=[""])
    draft, lines = _draft_domain(data)
    for line in lines:
        print(f"skprivsynth domain: {line}", file=sys.stderr)
    warnings.warn(
        f"this domain is drafted from the private values of {args.input!r} (levels, "
        "ranges, dates): a differentially private run over it is not covered by the "
        "guarantee. Review every entry and replace it by public knowledge (the possible "
        "levels and their order, the range a column can take, from a codebook or the "
        "field's meaning) before a release.",
        PrivacyLeakWarning,
        stacklevel=2,
    )
    lines = [f"  {json.dumps(str(c))}: {json.dumps(spec)}" for c, spec in draft.items()]
    print("{\n" + ",\n".join(lines) + "\n}")
    return 0


def _add_method_options(sub, seed_default, seed_help, method_default):
    """The options shared by demo and synthesize: the synthesizer, its parameters,
    the seed and the encoder's budgets."""
    sub.add_argument(
        "--method",
        default=method_default,
        help=f"synthesizer (default: {method_default}): marginal (the accurate "
        "DP synthesizer: select-measure-generate over marginals; needs a declared "
        "domain of every column), microaggregation, noisy-microaggregation, "
        "reduced-space-lp, private-sampler, correlated-gaussian",
    )
    sub.add_argument(
        "--param",
        action="append",
        metavar="KEY=VALUE",
        help="synthesizer parameter, repeatable (e.g. --param k=10)",
    )
    sub.add_argument(
        "--max-bins",
        type=int,
        default=None,
        help="coarsen columns with more levels to this many bins (default: none for "
        "marginal, which merges rare levels itself, and for microaggregation; 8 for "
        "the other DP synthesizers; 0 = none). "
        "correlated-gaussian works on the whole cube {0,1}^p (2^p <= its "
        "max_universe, default 2^20), so it always uses the binary encoding "
        "(ceil(log2 K) bits per column) and by default the largest power-of-two "
        "max-bins that fits: 2 on Adult, i.e. 14 bits",
    )
    sub.add_argument(
        "--decode-epsilon",
        type=float,
        default=0.1,
        help="extra budget for noisy level frequencies used to decode "
        "coarsened columns (0: uniform decoding)",
    )
    sub.add_argument(
        "--binning-epsilon",
        type=float,
        default=0.25,
        help="budget of the bins chosen with differential privacy for the columns "
        'declared with a range only ({"type": "float", "range": [lo, hi]}), and of '
        "their within-bin decoding weights (default 0.25, added to the synthesizer's "
        "epsilon; spent only when such columns are declared)",
    )
    sub.add_argument(
        "--seed",
        type=int,
        default=seed_default,
        help=seed_help,
    )
    sub.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress lines on standard error (by default, the synthesizers "
        "with long fits print one line per phase with its time)",
    )


def _add_demo_command(commands):
    """The ``demo`` command."""
    demo = commands.add_parser("demo", help="fit on the bundled Adult data and score it")
    _add_method_options(demo, 0, "random seed (the demo data is public)", "marginal")
    demo.add_argument("--n-rows", type=int, default=None, help="use only the first rows")
    demo.add_argument(
        "--verbose",
        action="store_true",
        help="print every release of the privacy report with its derivation",
    )
    demo.set_defaults(handler=_demo)


def _add_synthesize_command(commands):
    """The ``synthesize`` command."""
    synth = commands.add_parser("synthesize", help="CSV in, synthetic CSV out")
    synth.add_argument("input", help="input CSV file (header row)")
    synth.add_argument("-o", "--output", required=True, help="output CSV file")
    synth.add_argument(
        "--domain",
        help='JSON file: column -> number of categories, list of categories, or {"bins": [...]}',
    )
    synth.add_argument(
        "--allow-learned-domain",
        action="store_true",
        help="let a DP method run with columns missing from --domain (their levels are "
        "then learned from the data, which the privacy guarantee does not cover)",
    )
    synth.add_argument(
        "--drop",
        nargs="+",
        default=[],
        metavar="COLUMN",
        help="leave these columns of the input out: not read, not synthesized, not in "
        "the output (identifiers, free text: the columns the domain draft leaves out)",
    )
    synth.add_argument(
        "-n",
        "--n-samples",
        type=int,
        default=None,
        help="number of synthetic rows (default: as many as the input)",
    )
    _add_method_options(
        synth,
        None,
        "random seed, for reproducible tests only (default: fresh entropy); a seed "
        "known to others lets them regenerate the privacy noise",
        "marginal",
    )
    synth.add_argument(
        "--chunksize",
        type=int,
        default=None,
        metavar="N",
        help="read the input N rows at a time and write the output in batches of N rows: "
        "memory bounded by N, whatever the number of rows; needs every column declared "
        "in --domain; a progress line per chunk on standard error",
    )
    synth.add_argument(
        "--dask",
        metavar="SCHEDULER",
        default=None,
        help="fit on a Dask cluster: a scheduler address (e.g. tcp://host:8786; the "
        "workers must see the input path) or 'local' for a cluster of this machine's "
        "cores; needs pip install skprivsynth[dask] and every column declared in --domain; "
        "with --chunksize N, partitions of about N rows",
    )
    synth.set_defaults(handler=_synthesize)


def _add_evaluate_command(commands):
    """The ``evaluate`` command."""
    evaluate = commands.add_parser(
        "evaluate", help="marginal TVD between two CSVs, utility, and an HTML report"
    )
    evaluate.add_argument("real")
    evaluate.add_argument("synthetic")
    evaluate.add_argument(
        "--domain",
        help='JSON file: column -> number of categories, list of categories, or {"bins": [...]}; '
        "numeric columns are binned by the declared edges",
    )
    evaluate.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the 200 random triples, the sampling floor and the utility split",
    )
    evaluate.add_argument(
        "--report",
        metavar="HTML",
        help="write a self-contained HTML quality report (figures embedded; needs "
        'matplotlib: pip install "skprivsynth[plot]")',
    )
    evaluate.add_argument(
        "--target",
        metavar="COLUMN",
        help="also measure utility: a classifier of this column trained on the synthetic "
        "rows and tested on held-out real rows, next to one trained on real rows",
    )
    evaluate.add_argument(
        "--holdout",
        metavar="CSV",
        help="real rows the synthesizer did not see, to test the --target classifiers on "
        "(default: a random quarter of the real CSV)",
    )
    evaluate.set_defaults(handler=_evaluate)


def _add_domain_command(commands):
    """The ``domain`` command."""
    domain = commands.add_parser(
        "domain",
        help="draft a domain file from a CSV (to review and replace by public knowledge)",
    )
    domain.add_argument("input", help="input CSV file (header row)")
    domain.set_defaults(handler=_domain)


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="skprivsynth", description="Private and anonymous synthetic data."
    )
    parser.add_argument("--version", action="version", version=f"skprivsynth {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    for add_command in (
        _add_demo_command,
        _add_synthesize_command,
        _add_evaluate_command,
        _add_domain_command,
    ):
        add_command(commands)
    return parser


def _format_warning(message, category, filename, lineno, line=None):
    """A warning as one line, ``skprivsynth: warning: Category: message`` (no source)."""
    return f"skprivsynth: warning: {category.__name__}: {message}\n"


def main(argv=None):
    """Entry point of the ``skprivsynth`` console script."""
    args = _build_parser().parse_args(argv)
    format_warning, warnings.formatwarning = warnings.formatwarning, _format_warning
    # ``--seed`` is warned of in the commands' own words (_warn_if_seeded), once per run.
    seeded = _seed_warned() if is_seeded(getattr(args, "seed", None)) else contextlib.nullcontext()
    try:
        with seeded:
            return args.handler(args)
    except (ValueError, TypeError, OSError, KeyError, RuntimeError) as error:
        print(f"skprivsynth {args.command}: error: {error}", file=sys.stderr)
        return 2
    finally:
        warnings.formatwarning = format_warning


if __name__ == "__main__":
    sys.exit(main())
