"""``skprivsynth synthesize``: a CSV in, a synthetic CSV out."""

import contextlib
import itertools
import logging
import sys
import time

import numpy as np

from ..base import get_synthesizer_tags
from ..chunks import Chunks
from ..events import PeopleEventsSynthesizer, write_tables
from ..io import check_output_path, read_csv, write_csv
from ..people import read_persons, synthesize_people, with_text_keys
from ..validation import is_differentially_private
from . import _load_domain, _make_synthesizer, _parse_params, _pipeline, _plan_release, _read_table

# Rows per batch of the sample written by ``synthesize --dask`` without --chunksize.
_SAMPLE_BATCH = 100_000


def run(args):
    check_output_path(args.output, [args.input])
    if args.events is not None:
        return _synthesize_events(args)
    if args.dask is not None and (args.person or args.max_rows_per_person) is not None:
        raise ValueError("--person carries each person's rank and previous row across chunks, in "
                         "order; Dask reduces partitions apart: use --chunksize.")  # fmt: skip
    if args.chunksize is not None or args.dask is not None:
        return _synthesize_streaming(args)
    data, domain = _read_table(args.input, _load_domain(args.domain), args.drop)
    synthesizer = _make_synthesizer(args.method, _parse_params(args.param), args.seed, args.quiet)
    _plan_release(synthesizer, len(data) if args.n_samples is None else args.n_samples)
    private = is_differentially_private(synthesizer)
    undeclared = [c for c in data.columns if c not in (domain or {}) and c != args.person]
    codes = get_synthesizer_tags(synthesizer).code_domain  # the declared codes, always
    if undeclared and (codes or (private and not args.allow_learned_domain)):
        if codes:
            what = f"--method {args.method} models the declared levels of every column"
            allow = f" (--allow-learned-domain does not apply to --method {args.method})"
        else:
            what = f"--method {args.method} is differentially private only over a declared domain"
            allow = (
                ", or pass --allow-learned-domain to accept a release whose domain is "
                "learned from the data (not covered by the guarantee)"
            )
        raise ValueError(
            f"{what}; declare the columns {undeclared} in --domain (levels, a number of "
            "codes, bin edges or a range; `skprivsynth domain data.csv > domain.json` "
            f"drafts a file to review) or leave them out with --drop{allow}."
        )
    pipe = _pipeline(args, domain, synthesizer, args.allow_learned_domain)
    rng = np.random.default_rng(args.seed)  # the stream of the streamed run's batches
    if args.person is None and args.max_rows_per_person is None:
        synthetic = pipe.fit(data).sample(args.n_samples, random_state=rng)
    else:  # person-level: the key column (read as text) out of the fit, synthetic keys back
        keys, k = args.person and read_persons(args.input, args.person), args.max_rows_per_person
        synthetic = synthesize_people(pipe, data, args.person, k, rng, persons=keys)
    write_csv(synthetic, args.output, domain)
    print(f"wrote {len(synthetic)} synthetic rows to {args.output}; {pipe.privacy_statement()}",
          file=sys.stderr)  # fmt: skip
    return 0


def _synthesize_events(args):
    """A people file and its events file in, their synthetic pair out (person-level)."""
    if None in (args.person, args.max_rows_per_person, args.events_output, args.domain):
        raise ValueError(
            "--events needs --person (the key column of both files), --max-rows-per-person, "
            "--events-output and --domain (every column of both files but the key)."
        )
    if args.dask is not None:
        raise ValueError("--events reads the events in order: use --chunksize, not --dask.")
    check_output_path(args.events_output, [args.input, args.events, args.output], "--events-output")
    domain, tables = _load_domain(args.domain), []
    for path, size in ((args.input, None), (args.events, args.chunksize)):  # events streamed
        header = set(read_csv(path, nrows=0).columns)  # read by its columns' domain, keys as text
        part = domain.project([c for c in domain if c in header])
        table = _read_table(path, part, args.drop, chunksize=size)[0]
        tables.append(with_text_keys(table, path, args.person, size))
    synthesizer = _make_synthesizer(args.method, _parse_params(args.param), args.seed, args.quiet)
    est = PeopleEventsSynthesizer(
        synthesizer, domain=domain, max_events_per_person=args.max_rows_per_person,
        binning_share=args.binning_share, decode_share=args.decode_share, random_state=args.seed,
    ).fit(*tables, key=args.person)  # fmt: skip
    batch = _SAMPLE_BATCH if args.chunksize is not None else args.n_samples or est.n_people_
    pairs = est.sample(args.n_samples, np.random.default_rng(args.seed), batch)
    n_people, n_events = write_tables(pairs, args.output, args.events_output, domain)
    print(f"wrote {n_people} synthetic people to {args.output} and their {n_events} "
          f"events to {args.events_output}; {est.pipeline_.privacy_statement()}",
          file=sys.stderr)  # fmt: skip
    return 0


class _Progress:
    """Progress lines of a streamed run on standard error (none with ``--quiet``)."""

    def __init__(self, quiet):
        self.quiet, self.start = quiet, time.perf_counter()

    def __call__(self, text):
        if not self.quiet:
            elapsed = time.perf_counter() - self.start
            print(f"skprivsynth synthesize: {text}, {elapsed:.1f} s", file=sys.stderr)


def _reported(chunks, progress):
    """``chunks`` with a progress line after each chunk (the pass, the rows so far)."""
    passes = itertools.count(1)

    def factory():
        number, rows = None, 0
        for chunk in chunks:
            yield chunk
            if number is None:  # a pass counts once a chunk has been used
                number = next(passes)
            rows += len(chunk)
            progress(f"pass {number}: {rows} rows read")

    return Chunks(factory)


def _blocksize(args, rows=1000):
    """Bytes of about ``--chunksize`` rows of the input, from its first ``rows`` lines
    (Dask partitions are cut by bytes); "default" without --chunksize, or when the file
    cannot be opened here (a path that only the workers see)."""
    if args.chunksize is None:
        return "default"
    try:
        with open(args.input, "rb") as stream:
            stream.readline()  # the header
            lengths = [len(line) for line in itertools.islice(stream, rows)]
    except OSError:
        return "default"
    return max(1, args.chunksize * sum(lengths) // max(1, len(lengths)))


def _fit_on_dask(pipe, args, domain, progress):
    """Fit ``pipe`` on the input CSV read by Dask on the ``--dask`` cluster."""
    try:
        import dask.dataframe  # noqa: F401  (read_csv's blocksize reads with it)
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
        frame, _ = _read_table(args.input, domain, args.drop, blocksize=_blocksize(args))
        pipe.fit(frame)
    progress(f"fitted on {pipe[-1].n_samples_fit_} rows")


def _synthesize_streaming(args):
    """``synthesize --chunksize N`` or ``--dask``: the fit reads the input in chunks (or
    on a Dask cluster) and the sample is drawn and written in batches, so memory holds
    one chunk, the statistics and the model, whatever the number of rows."""
    option = "--dask" if args.dask is not None else "--chunksize"
    if args.chunksize is not None and args.chunksize < 1:
        raise ValueError(f"--chunksize must be a positive integer; got {args.chunksize}.")
    if args.n_samples is not None and args.n_samples < 1:
        raise ValueError(f"--n-samples must be a positive integer; got {args.n_samples}.")
    domain = _load_domain(args.domain)
    head, domain = _read_table(args.input, domain, args.drop, nrows=0)
    undeclared = [c for c in head.columns if c not in (domain or {}) and c != args.person]
    if undeclared:
        raise ValueError(
            f"{option} reads the input in pieces, so the encoder must learn nothing from "
            f"the data: declare every column in --domain, or leave it out with --drop; "
            f"undeclared: {undeclared} (`skprivsynth domain sample.csv > domain.json` "
            "drafts a file to review)."
        )
    synthesizer = _make_synthesizer(args.method, _parse_params(args.param), args.seed, args.quiet)
    pipe = _pipeline(args, domain, synthesizer)
    progress = _Progress(args.quiet)
    rng = np.random.default_rng(args.seed)  # one stream through the batches
    if args.dask is None:
        chunks, _ = _read_table(args.input, domain, args.drop, chunksize=args.chunksize)
    if args.person is not None or args.max_rows_per_person is not None:
        # Person-level: no progress lines (the number of rows is private).
        keys = args.person and read_persons(args.input, args.person, args.chunksize)
        batches = synthesize_people(pipe, chunks, args.person, args.max_rows_per_person, rng,
                                    persons=keys, batch_size=_SAMPLE_BATCH)  # fmt: skip
    else:
        if args.dask is None:
            pipe.fit(_reported(chunks, progress))
        else:
            _fit_on_dask(pipe, args, domain, progress)
        n_samples = pipe[-1].n_samples_fit_ if args.n_samples is None else args.n_samples
        batches = _batches(pipe, n_samples, args.chunksize or _SAMPLE_BATCH, rng, progress)
    written = write_csv(batches, args.output, domain)
    print(f"wrote {written} synthetic rows to {args.output}; {pipe.privacy_statement()}",
          file=sys.stderr)  # fmt: skip
    return 0


def _batches(pipe, n_samples, batch, rng, progress):
    """The sample of a streamed run, ``batch`` rows at a time."""
    done = 0
    while done < n_samples:
        size = min(batch, n_samples - done)
        yield pipe.sample(size, random_state=rng)
        done += size
        progress(f"{done} synthetic rows written")
