"""Reading a CSV by its domain, and writing synthetic tables.

:func:`read_csv` reads each declared column as its kind (integers, dates, levels,
missing cells and codes), in memory, in chunks or on Dask; :func:`write_csv` and
:func:`write_text` replace a file only once it is complete.  Read more in the
:ref:`User Guide <your_table>`.
"""

from __future__ import annotations

import os
import tempfile

import pandas as pd

from .domain import Domain
from .kinds import NA_MARKERS, kind_of, zero_padded_columns

__all__ = ["check_output_path", "read_csv", "read_raw_csv", "write_csv", "write_text"]


def check_output_path(output, inputs=(), option="--output"):
    """Refuse an output path that cannot be written, before any work is done.

    The directory must exist and be writable, the path must not be a directory and
    must not be one of the ``inputs`` (which are never overwritten).  Errors name the
    path by ``option`` (the command line's option, or a parameter's name).

    Parameters
    ----------
    output : str or path-like
        The file to be written.
    inputs : sequence of str or path-like, default=()
        The files read by the same run.
    option : str, default="--output"
        How errors name ``output``.
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


def read_csv(path, domain=None, *, blocksize=None, undeclared_missing="error", **options):
    """Read a CSV file, each column declared in ``domain`` parsed by its kind.

    A declared column of string levels is read as text, so that a level such as
    ``"NA"`` or ``"01"`` stays that level; a cell is missing when it is empty, one of
    pandas' missing spellings (``"NA"``, ``"null"`` ...) that is not a declared level
    of its column, ``"?"`` among numbers and dates, or a code its spec declares
    (``"missing": [98, 99]``).  A level declared as the number 3 matches the text
    ``"3"`` or ``"3.0"``; integer columns become integers (a fractional cell rounded
    down, as the encoder reads it; ``Int64`` in a column declaring missing), float
    columns floats, datetime columns timestamps (ISO 8601), boolean columns booleans.
    Columns not declared are read with pandas' defaults.  A file larger than memory is
    read in chunks the same way by :meth:`Chunks.from_csv(path, chunksize, domain)
    <skprivsynth.Chunks.from_csv>`.

    Parameters
    ----------
    path : str or path-like
        The CSV file, with a header row.
    domain : Domain, dict or None, default=None
        The public domain of some or all of the columns (:class:`~skprivsynth.Domain`
        forms); None reads every column with pandas' defaults.  Every declared column
        must be in the file (or, with ``usecols``, among those columns).
    blocksize : int or "default", optional
        Read the file with :func:`dask.dataframe.read_csv` in partitions of about
        this many bytes: a Dask DataFrame whose partitions are parsed alike (Dask is
        an optional extra, ``pip install skprivsynth[dask]``).
    undeclared_missing : {"error", "keep"}, default="error"
        A missing cell in a declared column whose spec does not declare missing:
        ``"error"`` raises ``ValueError`` (a synthesis), ``"keep"`` reads it as missing
        (an evaluation counts it as a level).
    **options
        Further keyword arguments of :func:`pandas.read_csv` (``usecols``, ``nrows``,
        ...); for the declared columns, ``dtype`` and the missing markers are the
        domain's.

    Returns
    -------
    DataFrame or dask.dataframe.DataFrame
    """
    schema = _CsvSchema(path, domain, undeclared_missing, options)
    if blocksize is not None:
        import dask.dataframe as dd

        head = schema(_pandas_read_csv(path, nrows=100, **schema.options))
        frame = dd.read_csv(path, blocksize=blocksize, **schema.options)
        return frame if schema.domain is None else frame.map_partitions(schema, meta=head[:0])
    return schema(_pandas_read_csv(path, **schema.options))


def read_raw_csv(path):
    """The CSV at ``path`` as :func:`~skprivsynth.draft_domain` reads it: only empty
    cells are missing (a level ``"NA"`` stays a level), and columns of digit codes with
    leading zeros (``"01"``) stay text, which a number would lose.

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    pandas.DataFrame
    """
    frame = _pandas_read_csv(path, keep_default_na=False, na_values=[""])
    text = _pandas_read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    for column in zero_padded_columns(text):
        frame[column] = text[column]
    return frame


def _pandas_read_csv(path, **options):
    """``pandas.read_csv(path, **options)``; an unreadable or malformed file is an error
    naming it."""
    try:
        return pd.read_csv(path, **options)
    except (OSError, ValueError) as exc:  # pandas' parser errors are ValueErrors
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ValueError(f"{_name(path)} cannot be read as CSV: {reason}") from exc


def _name(path):
    return repr(str(path)) if isinstance(path, str | os.PathLike) else "the CSV"


def write_csv(frames, path, domain=None):
    """Write a table to the CSV file ``path`` atomically.

    A column declared in ``domain`` is written as :func:`read_csv` reads it back:
    datetimes in the spec's ``"format"`` (``"%d/%m/%Y %H:%M"``), else as ISO 8601 down
    to the column's resolution (``2023-12-03`` for days, ``2023-12-03 12:57`` for
    minutes); other columns as pandas writes them.

    The rows go to a temporary file next to ``path``, which is renamed into place once
    complete: an error or a crash never leaves a half-written file behind.  The file
    gets the permissions of a newly created one (0666 less the umask).

    Parameters
    ----------
    frames : DataFrame or iterable of DataFrames
        The table, or its batches (such as samples drawn one after the other), written
        under one header row without the index.
    path : str or path-like
    domain : Domain, dict or None, default=None
        The domain of some or all of the columns (:class:`~skprivsynth.Domain` forms);
        None: every column as pandas writes it.

    Returns
    -------
    int
        The number of rows written.
    """
    if isinstance(frames, pd.DataFrame):
        frames = [frames]
    kinds = {} if domain is None else {c: kind_of(s) for c, s in Domain(domain).items()}

    def as_text(frame):
        declared = [c for c in frame.columns if c in kinds]
        if not declared:
            return frame
        frame = frame.copy(deep=False)
        for column in declared:
            frame[column] = kinds[column].csv_text(frame[column])
        return frame

    def write(stream):
        rows = 0
        for frame in frames:
            as_text(frame).to_csv(stream, index=False, header=rows == 0)
            rows += len(frame)
        return rows

    return _write_atomically(path, write, newline="")


def write_text(text, path):
    """Write ``text`` (UTF-8) to the file ``path`` atomically, as :func:`write_csv` does."""
    _write_atomically(path, lambda stream: stream.write(text), encoding="utf-8")


def _write_atomically(path, write, **open_kwargs):
    """``write(stream)`` on a temporary file next to ``path``, then renamed into place;
    returns what ``write`` returns."""
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".skprivsynth-", dir=directory)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # shared output, not a 0600 temporary file
        with os.fdopen(handle, "w", **open_kwargs) as stream:
            result = write(stream)
        os.replace(temporary, path)
        return result
    except BaseException:
        os.unlink(temporary)
        raise


#: The text pandas reads as missing by default (``pandas.read_csv``'s ``na_values``).
_NA_TEXT = frozenset(NA_MARKERS)


class _CsvSchema:
    """How the cells of a CSV become values: declared columns by their kind (see
    :func:`read_csv`).

    Parameters
    ----------
    path : str or path-like
        The CSV file.
    domain : Domain, dict or None
        The declared columns; None: pandas' defaults.
    undeclared_missing : {"error", "keep"}
        As in :func:`read_csv`.
    options : dict
        Further keyword arguments of ``pandas.read_csv``.
    """

    def __init__(self, path, domain, undeclared_missing, options):
        if undeclared_missing not in ("error", "keep"):
            raise ValueError(
                f'undeclared_missing must be "error" or "keep"; got {undeclared_missing!r}.'
            )
        header = list(_pandas_read_csv(path, nrows=0).columns)
        columns = [c for c in header if c in (options.get("usecols") or header)]
        domain = None if domain is None else Domain(domain)
        unknown = [] if domain is None else [c for c in domain if c not in header]
        if unknown:
            raise ValueError(
                f"the domain declares columns {unknown} that are not in {_name(path)}, "
                f"whose columns are {header}."
            )
        declared = [c for c in columns if domain is not None and c in domain]
        self.domain = None if not declared else domain.project(declared)
        self.what, self.refuse_missing = _name(path), undeclared_missing == "error"
        self.options = dict(options)
        if self.domain is not None:
            read = self.domain.read_csv_options()
            read["na_values"].update({c: sorted(_NA_TEXT) for c in columns if c not in declared})
            read["dtype"].update(
                {c: str for c, spec in self.domain.items() if kind_of(spec).csv_as_text}
            )
            self.options.update(read)

    def __call__(self, frame):
        """The declared columns of ``frame`` (read with ``options``) parsed."""
        if self.domain is None:
            return frame
        frame = frame.copy()
        for column, spec in self.domain.items():
            kind = kind_of(spec)
            text = frame[column].astype(object)
            absent = (text.isna() | text.isin(kind.missing_text())).to_numpy()
            # "missing": [98, 99] or ["?"]: those cells are missing too
            absent = absent | kind.is_missing_code(text)
            if absent.any() and not kind.missing and self.refuse_missing:
                raise ValueError(
                    f"column {column!r} of {self.what} has missing cells (empty, or text "
                    "such as NA that is not a declared level), which its domain spec does "
                    'not declare: add "missing": true to it in the domain file (missing '
                    'becomes one more level of the column, e.g. {"levels": [...], '
                    '"missing": true}), or fill the cells before the run.'
                )
            # a column declaring missing gets a dtype with a missing value (Int64,
            # boolean) in every chunk, missing cells or not
            nullable = kind.missing or absent.any()
            frame[column] = kind.parse_csv(text, absent, nullable, column, self.what)
        return frame
