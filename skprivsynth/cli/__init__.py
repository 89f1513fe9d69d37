"""The ``skprivsynth`` command: ``demo``, ``synthesize``, ``evaluate`` and ``domain``.

Each command is a module of this package over the library (:func:`~skprivsynth.read_csv`,
:func:`~skprivsynth.draft_domain`, :func:`~skprivsynth.make_private_pipeline`,
:func:`~skprivsynth.write_csv`), imported when it runs.  Errors are reported as one line
on standard error with exit status 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import sys
import warnings

import pandas as pd

from .. import __version__
from ..chunks import Chunks
from ..domain import Domain
from ..io import read_csv
from ..metrics import categorical_marginal_tvd
from ..pipeline import make_private_pipeline
from ..synthesizers import all_synthesizers

__all__ = ["main"]

# Triples scored by the demo / evaluate commands (the benchmarks' tvd3).
_N_TRIPLES = 200


def _synthesizers():
    """Method name -> synthesizer class, for every synthesizer of the package."""
    return {cls._cli_name: cls for _, cls in all_synthesizers() if cls._cli_name is not None}


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


def _plan_release(synthesizer, n_samples):
    """Tell a synthesizer whose budget caps its released records (an ``n_samples``
    parameter, :class:`~skprivsynth.PrivateSampler`) how many the run will release,
    so that a cap below it is refused before the fit does any work (the cap follows
    from public quantities)."""
    params = synthesizer.get_params(deep=False)
    if "n_samples" in params and params["n_samples"] is None:
        synthesizer.set_params(n_samples=int(n_samples))
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
    with the command-line options (``--max-bins 0``: no coarsening)."""
    max_bins = "auto" if args.max_bins is None else (args.max_bins if args.max_bins > 0 else None)
    for option, share, positive in (
        ("--binning-share", args.binning_share, True),
        ("--decode-share", args.decode_share, False),
    ):
        if not (0 < share if positive else 0 <= share) or not share < 1:
            interval = "(0, 1)" if positive else "[0, 1)"
            raise ValueError(f"{option} must be a number in {interval}; got {share}.")
    return make_private_pipeline(
        synthesizer,
        domain,
        max_bins=max_bins,
        binning_share=args.binning_share,
        decode_share=args.decode_share,
        allow_learned_domain=allow_learned_domain,
        random_state=args.seed,
    )


def _load_domain(path):
    """The :class:`Domain` of the domain file at ``path`` (None without a file)."""
    if path is None:
        return None
    try:
        return Domain.from_json(path)
    except OSError as exc:
        raise ValueError(f"domain file {str(path)!r} cannot be read: {exc.strerror}") from exc


def _kept_columns(header, drop, path):
    """The columns of the CSV at ``path`` (``header``) less those of ``--drop``."""
    unknown = [c for c in drop if c not in header]
    if unknown:
        raise ValueError(
            f"--drop names columns {unknown} that are not in {str(path)!r}, whose columns "
            f"are {list(header)}."
        )
    return [c for c in header if c not in drop]


def _read_table(path, domain, drop=(), **options):
    """The CSV at ``path`` read by ``domain`` (:func:`~skprivsynth.read_csv`) without the
    columns ``drop``, and the domain less them (a drafted domain keeps a key column it
    advises to drop): ``(data, domain)``; ``data`` is a :class:`~skprivsynth.Chunks` with
    ``chunksize`` in ``options``, a Dask DataFrame with ``blocksize``."""
    columns = _kept_columns(read_csv(path, nrows=0).columns, drop, path)
    if domain is not None and drop:
        domain = domain.project([c for c in domain if c not in drop])
    usecols = columns if drop else None
    if options.get("chunksize") is not None:
        return Chunks.from_csv(path, options.pop("chunksize"), domain, usecols=usecols), domain
    return read_csv(path, domain, usecols=usecols, **options), domain


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
        "--param", action="append", metavar="KEY=VALUE", help="synthesizer parameter, repeatable"
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
        "--decode-share",
        type=float,
        default=0.1,
        help="share of the epsilon spent on noisy level frequencies used to decode "
        "coarsened and binned columns (default 0.1; 0: uniform decoding)",
    )
    sub.add_argument(
        "--binning-share",
        type=float,
        default=0.25,
        help="share of the epsilon spent on the bins chosen with differential privacy "
        'for the columns declared with a range only ({"type": "float", "range": [lo, '
        "hi]}) and their within-bin decoding weights (default 0.25; spent only when "
        "such columns are declared); the epsilon is the whole run's",
    )
    sub.add_argument("--seed", type=int, default=seed_default, help=seed_help)
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
        "--verbose", action="store_true", help="print each release of the report and its derivation"
    )
    demo.set_defaults(module="_demo")


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
        action="extend",
        default=[],
        metavar="COLUMN",
        help="leave these columns of the input out: not read, not synthesized, not in "
        "the output (identifiers, free text: the columns the domain draft leaves out)",
    )
    synth.add_argument(
        "-n", "--n-samples", type=int, help="number of synthetic rows (default: as in the input)"
    )
    synth.add_argument("--person", metavar="COLUMN", help="the column of each row's person")
    synth.add_argument("--events", metavar="CSV", help="the events of the input's people")
    synth.add_argument("--events-output", metavar="CSV", help="the synthetic events (--events)")
    synth.add_argument("--max-rows-per-person", type=int, metavar="K", help="person-level DP")
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
        metavar="N",
        help="read the input N rows at a time and write the output in batches of N rows "
        "(--person: of 100,000 people): memory bounded by N (and the people); needs every "
        "column declared in --domain; a progress line per chunk (none with --person); "
        "with --events, the events file is read N rows at a time (the people file in memory)",
    )
    synth.add_argument(
        "--dask",
        metavar="SCHEDULER",
        help="fit on a Dask cluster: a scheduler address (e.g. tcp://host:8786; the "
        "workers must see the input path) or 'local' for a cluster of this machine's "
        "cores; needs pip install skprivsynth[dask] and every column declared in --domain; "
        "with --chunksize N, partitions of about N rows",
    )
    synth.set_defaults(module="_synthesize")


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
    evaluate.set_defaults(module="_evaluate")


def _add_domain_command(commands):
    """The ``domain`` command."""
    domain = commands.add_parser(
        "domain",
        help="draft a domain file from a CSV (to review and replace by public knowledge)",
    )
    domain.add_argument("input", help="input CSV file (header row)")
    domain.set_defaults(module="_domain")


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
    try:  # a seeded run is warned of once, by its pipeline's fit
        return importlib.import_module(f"{__name__}.{args.module}").run(args)
    except (ValueError, TypeError, OSError, KeyError, RuntimeError) as error:
        print(f"skprivsynth {args.command}: error: {error}", file=sys.stderr)
        return 2
    finally:
        warnings.formatwarning = format_warning


if __name__ == "__main__":
    sys.exit(main())
