"""``skprivsynth domain``: draft a domain file from a CSV, to review."""

import json
import sys

from ..draft import draft_domain
from ..io import read_csv


def run(args):
    # Only empty cells are missing: "NA" may be a level.
    draft, lines = draft_domain(read_csv(args.input, keep_default_na=False, na_values=[""]))
    for line in lines:
        print(f"skprivsynth domain: {line}", file=sys.stderr)
    lines = [f"  {json.dumps(str(c))}: {json.dumps(spec)}" for c, spec in draft.items()]
    print("{\n" + ",\n".join(lines) + "\n}")
    return 0
