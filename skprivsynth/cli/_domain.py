"""``skprivsynth domain``: draft a domain file from a CSV, to review."""

import json
import sys

from ..io import read_raw_csv
from ..kinds import draft_domain


def run(args):
    draft, lines = draft_domain(read_raw_csv(args.input))
    for line in lines:
        print(f"skprivsynth domain: {line}", file=sys.stderr)
    lines = [f"  {json.dumps(str(c))}: {json.dumps(spec)}" for c, spec in draft.items()]
    print("{\n" + ",\n".join(lines) + "\n}")
    return 0
