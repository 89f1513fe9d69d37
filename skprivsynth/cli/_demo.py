"""``skprivsynth demo``: fit on the bundled Adult data and score it."""

import time

import numpy as np

from ..datasets import load_adult
from . import _make_synthesizer, _parse_params, _pipeline, _plan_release, _print_rows, _tvd_table


def run(args):
    adult = load_adult()
    data = adult.data if args.n_rows is None else adult.data.iloc[: args.n_rows]
    params = _parse_params(args.param)
    synthesizer = _make_synthesizer(args.method, params, args.seed, args.quiet)
    _plan_release(synthesizer, len(data))  # the demo samples as many rows as it fits
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
    print(pipe.privacy_statement())
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
