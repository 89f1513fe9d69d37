"""The ``skprivsynth`` command: ``demo``, ``synthesize`` and ``evaluate``.

Errors are reported as one line on standard error with exit status 2, never as a
traceback.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import tempfile
import time
import warnings

import numpy as np
import pandas as pd

from . import __version__
from .base import is_differentially_private
from .datasets import load_adult
from .domain import Bins, Domain
from .metrics import categorical_marginal_tvd
from .pipeline import make_synthesis_pipeline
from .preprocessing import BooleanEncoder, private_level_frequencies
from .privacy import PrivacyLeakWarning

__all__ = ["main"]

# Triples scored by the demo / evaluate commands (the convention of benchmarks/RESULTS.md).
_N_TRIPLES = 200


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


def _make_synthesizer(method, params, seed):
    synthesizers = _synthesizers()
    if method not in synthesizers:
        raise ValueError(f"--method must be one of {sorted(synthesizers)}; got {method!r}.")
    cls = synthesizers[method]
    if "random_state" in inspect.signature(cls).parameters:
        params = {"random_state": seed, **params}
    return cls(**params)


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
        for d in (1, 2, 3)
    }


def _print_rows(rows):
    frame = pd.DataFrame(rows).set_index("synthesizer")
    print(frame.to_string(float_format=lambda v: f"{v:.4f}"))


def _cube_bits(synthesizer):
    """Largest number of bits ``p`` whose whole cube ``{0,1}^p`` the synthesizer
    accepts (its ``max_universe``), or None when it is not limited by the cube."""
    params = synthesizer.get_params()
    if "max_universe" not in params or params.get("universe") is not None:
        return None
    return int(params["max_universe"]).bit_length() - 1


def _binary_max_bins(data, domain, budget):
    """Largest power of two ``max_bins`` whose binary encoding fits in ``budget`` bits.

    The width depends only on the declared domain (and on the learned domain of
    undeclared columns, which already warns); 2 if even that does not fit (the
    synthesizer then reports the size of the cube).  Doubling ``max_bins`` adds a
    bit to every coarsened column, so an unchanged width means nothing was
    coarsened any more.
    """
    best, max_bins, previous = 2, 2, None
    with warnings.catch_warnings():
        # Trial fits: the encoder fitted for the run warns about learned columns.
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        while True:
            width = (
                BooleanEncoder(
                    categories="auto" if domain is None else domain,
                    max_bins=max_bins,
                    encoding="binary",
                )
                .fit(data)
                .n_features_out_
            )
            if width > budget or width == previous:
                break
            best, previous = max_bins, width
            max_bins *= 2
    return best


def _encoder(args, data, domain, synthesizer):
    """The BooleanEncoder of a run, and the privacy spent on its decoding weights.

    Non-private microaggregation uses the full one-hot encoding by default.  DP
    synthesizers work on a coarser cube (``--max-bins``, default 8).  Synthesizers
    whose universe is the whole cube ``{0,1}^p`` (correlated-gaussian, ``2^p <=
    max_universe``) get the *binary* encoding (``ceil(log2 K)`` bits per column)
    and, by default, the largest power-of-two ``max_bins`` whose encoding has at
    most ``log2(max_universe)`` bits (2 on Adult: 14 bits).  Coarsened ranges
    are then decoded in proportion to level frequencies released with
    ``--decode-epsilon`` of extra budget (0 = uniform decoding, no extra budget).
    Only the declared columns of levels (not bins) with more than ``max_bins``
    levels are released, and the budget is charged only when there is
    at least one such column.
    """
    if not np.isfinite(args.decode_epsilon) or args.decode_epsilon < 0:
        raise ValueError(
            f"--decode-epsilon must be a finite number >= 0; got {args.decode_epsilon}."
        )
    private = is_differentially_private(synthesizer)
    budget = _cube_bits(synthesizer)
    codes = "domain" in synthesizer.get_params()  # synthesizers of integer codes
    encoding = "ordinal" if codes else "onehot" if budget is None else "binary"
    if args.max_bins is not None:
        max_bins = args.max_bins
    elif budget is not None:
        max_bins = _binary_max_bins(data, domain, budget)
    else:
        max_bins = 8 if private and not codes else None
    if max_bins is not None and max_bins <= 0:
        max_bins = None
    weights, decode_report = None, None
    coarsened = {}
    if domain is not None and max_bins is not None:
        coarsened = {
            c: spec
            for c, spec in Domain(domain).items()
            if not isinstance(spec, Bins) and len(spec) > max_bins  # bins are never coarsened
        }
    if coarsened and args.decode_epsilon > 0:
        # The decoding release uses the synthesizer's noise option (floating-point-safe
        # runs stay floating-point-safe).
        noise = synthesizer.get_params().get("noise", "continuous")
        weights, decode_report = private_level_frequencies(
            data, coarsened, args.decode_epsilon, args.seed, noise=noise, return_report=True
        )
    encoder = BooleanEncoder(
        categories="auto" if domain is None else domain,
        max_bins=max_bins,
        encoding=encoding,
        level_weights=weights,
        random_state=args.seed,
    )
    return encoder, decode_report


def _privacy_line(synthesizer, decode_report):
    """One line stating the guarantee of the whole run (synthesizer and decoding weights)."""
    report = getattr(synthesizer, "privacy_report_", None)
    if report is None:
        k = getattr(synthesizer, "k", None)
        text = f"privacy: k-anonymous microaggregation, k = {k} (not differential privacy)"
        if decode_report is not None:
            text += f"; decoding weights: epsilon = {decode_report.epsilon:.4g} (replace-one)"
        return text
    if decode_report is not None:
        total = report.compose(decode_report)
        parts = (
            f" ({report.epsilon:.4g} synthesizer + {decode_report.epsilon:.4g} decoding weights)"
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
    synthesizer = _make_synthesizer(args.method, params, args.seed)
    encoder, decode_report = _encoder(args, data, adult.domain, synthesizer)
    pipe = make_synthesis_pipeline(encoder, synthesizer)
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
    print(_privacy_line(synthesizer, decode_report))
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
        print(synthesizer.privacy_report_)
    return 0


def _read_domain(path):
    return None if path is None else Domain.from_json(path)


def _write_csv_atomically(frame, path):
    """Write ``frame`` to a temporary file next to ``path``, then rename it into place.

    A crash or an error never leaves a half-written output file behind.
    """
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".skprivsynth-", suffix=".csv", dir=directory)
    try:
        with os.fdopen(handle, "w", newline="") as stream:
            frame.to_csv(stream, index=False)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _synthesize(args):
    if os.path.exists(args.output) and os.path.samefile(args.input, args.output):
        raise ValueError(
            f"--output {args.output!r} is the input file; choose another path "
            "(the input is never overwritten)."
        )
    data = pd.read_csv(args.input)
    domain = _read_domain(args.domain)
    synthesizer = _make_synthesizer(args.method, _parse_params(args.param), args.seed)
    undeclared = [c for c in data.columns if domain is None or c not in domain]
    if undeclared and is_differentially_private(synthesizer) and not args.allow_learned_domain:
        raise ValueError(
            f"--method {args.method} is differentially private only over a declared domain; "
            f"declare the columns {undeclared} in --domain (levels, a number of codes or "
            "bin edges), or pass --allow-learned-domain to accept a release whose domain "
            "is learned from the data (not covered by the guarantee)."
        )
    if domain is None:
        warnings.warn(
            "no --domain given: categories are learned from the data, which the "
            "privacy guarantee of a DP method does not cover.",
            PrivacyLeakWarning,
            stacklevel=2,
        )
    if args.seed is not None and is_differentially_private(synthesizer):
        warnings.warn(
            f"--seed {args.seed} makes the privacy noise reproducible: anyone who knows "
            "the seed can regenerate and subtract it, which voids the DP guarantee. "
            "Use a seed for tests only; omit it for a release.",
            PrivacyLeakWarning,
            stacklevel=2,
        )
    encoder, decode_report = _encoder(args, data, domain, synthesizer)
    with warnings.catch_warnings():
        if domain is None:  # warned above; a partial domain warns from the encoder,
            warnings.simplefilter("ignore", PrivacyLeakWarning)  # naming the columns
        pipe = make_synthesis_pipeline(
            encoder, synthesizer, allow_learned_domain=args.allow_learned_domain
        ).fit(data)
    synthetic = pipe.sample(args.n_samples, random_state=args.seed)
    _write_csv_atomically(synthetic, args.output)
    print(
        f"wrote {len(synthetic)} synthetic rows to {args.output}; "
        f"{_privacy_line(synthesizer, decode_report)}",
        file=sys.stderr,
    )
    return 0


def _evaluate(args):
    real = pd.read_csv(args.real)
    synthetic = pd.read_csv(args.synthetic)
    if list(real.columns) != list(synthetic.columns):
        raise ValueError(
            f"the synthetic CSV must have the real CSV's columns {list(real.columns)}; "
            f"got {list(synthetic.columns)}."
        )
    _print_rows(
        [
            {
                "synthesizer": args.synthetic,
                **_tvd_table(real, synthetic, _read_domain(args.domain), args.seed),
            }
        ]
    )
    return 0


def _build_parser():
    parser = argparse.ArgumentParser(
        prog="skprivsynth", description="Private and anonymous synthetic data."
    )
    parser.add_argument("--version", action="version", version=f"skprivsynth {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    def add_method_options(sub, seed_default, seed_help, method_default):
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
            help="coarsen columns with more levels to this many bins (default: "
            "8 for DP synthesizers, no coarsening for microaggregation; 0 = none). "
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
            "--seed",
            type=int,
            default=seed_default,
            help=seed_help,
        )

    demo = commands.add_parser("demo", help="fit on the bundled Adult data and score it")
    add_method_options(demo, 0, "random seed (the demo data is public)", "marginal")
    demo.add_argument("--n-rows", type=int, default=None, help="use only the first rows")
    demo.set_defaults(handler=_demo)

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
        "-n",
        "--n-samples",
        type=int,
        default=None,
        help="number of synthetic rows (default: as many as the input)",
    )
    add_method_options(
        synth,
        None,
        "random seed, for reproducible tests only (default: fresh entropy); a seed "
        "known to others lets them regenerate the privacy noise",
        "microaggregation",
    )
    synth.set_defaults(handler=_synthesize)

    evaluate = commands.add_parser("evaluate", help="marginal TVD between two CSVs")
    evaluate.add_argument("real")
    evaluate.add_argument("synthetic")
    evaluate.add_argument(
        "--domain",
        help='JSON file: column -> number of categories, list of categories, or {"bins": [...]}; '
        "numeric columns are binned by the declared edges",
    )
    evaluate.add_argument("--seed", type=int, default=0, help="seed of the 200 random triples")
    evaluate.set_defaults(handler=_evaluate)
    return parser


def main(argv=None):
    """Entry point of the ``skprivsynth`` console script."""
    args = _build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except (ValueError, TypeError, OSError, KeyError, RuntimeError) as error:
        print(f"skprivsynth {args.command}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
