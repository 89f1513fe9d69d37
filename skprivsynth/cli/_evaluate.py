"""``skprivsynth evaluate``: marginal errors, utility and an HTML report of a synthetic CSV."""

import sys
import warnings

from ..domain import infer_domain
from ..exceptions import PrivacyLeakWarning
from ..io import check_output_path, read_csv, read_raw_csv, write_text
from ..kinds import kind_of
from . import _load_domain, _print_rows, _read_table, _tvd_table


def _check_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ValueError(
            '--report draws figures with matplotlib: pip install "skprivsynth[plot]".'
        ) from None


def _drafted(path, drop):
    """The domain :func:`~skprivsynth.draft_domain` drafts from the CSV at ``path``
    (less ``drop``), its kinds and its orders of levels only: to type the cells and
    order the levels, not to bound them."""
    frame = read_raw_csv(path)
    with warnings.catch_warnings():  # an evaluation reads the real rows anyway
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        drafted = infer_domain(frame.drop(columns=list(drop)), rule="draft")
    typed = [c for c in drafted if drafted.ordered(c)]  # unordered levels stay text
    print(f"no --domain: columns {typed} read as `skprivsynth domain` drafts them", file=sys.stderr)
    return drafted.project(typed)


def run(args):
    from ..metrics import (
        distribution_columns,
        evaluation_domain,
        missing_rates,
        numeric_column_errors,
        numeric_verdicts,
        table_verdict,
        train_synthetic_test_real,
    )

    inputs = [args.real, args.synthetic] + ([args.holdout] if args.holdout else [])
    if args.report is not None:
        check_output_path(args.report, inputs, option="--report")
        _check_matplotlib()
    # Columns left out of the synthesis (synthesize --drop) are left out here too.
    produced = set(read_csv(args.synthetic, nrows=0).columns)
    drop = [c for c in read_csv(args.real, nrows=0).columns if c not in produced]
    domain = _load_domain(args.domain)
    # Without a domain file the cells are typed by the draft's rule, as the release's
    # domain would be drafted (dates as dates, numbers as numbers), and compared by
    # the evaluation's own rule for columns without a declaration.
    reading = domain if domain is not None else _drafted(args.real, drop)
    real, reading = _read_table(args.real, reading, drop, undeclared_missing="keep")
    synthetic, _ = _read_table(args.synthetic, reading, undeclared_missing="keep")
    if domain is not None:
        domain = reading
    else:  # drafted levels holding the synthetic values keep their order; the rest as observed
        levelled = [
            c for c in reading if (levels := kind_of(reading[c]).levels) is not None
            and set(synthetic[c].dropna()) <= set(levels)
        ]  # fmt: skip
        domain = reading.project(levelled) if levelled else None
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
        holdout, _ = _read_table(args.holdout, domain, drop, undeclared_missing="keep")
    if args.report is not None:
        from ..report import MarginalErrorDisplay

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
        verdicts = numeric_verdicts(numeric)
        print("verdicts (flagged: std ratio outside [0.8, 1.25], tail ratio below 0.3 and floor)")
        for _, row in verdicts.iterrows():
            print(f"  {'FLAGGED' if row['flagged'] else 'ok':7}  {row['verdict']}")
        print(table_verdict(verdicts))
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
        write_text(
            display.to_html(
                description=[f"real: {args.real}", f"synthetic: {args.synthetic}"]
                + ([f"held-out real rows: {args.holdout}"] if args.holdout else [])
            ),
            args.report,
        )
        print(f"wrote the report to {args.report}", file=sys.stderr)
    return 0
