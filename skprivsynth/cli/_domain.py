"""``skprivsynth domain``: draft a domain file from a CSV, to review."""

import json
import sys

from ..io import read_csv
from ..kinds import draft_domain
from ..kinds._draft import zero_padded_columns


def run(args):
    # Only empty cells are missing: "NA" may be a level.
    frame = read_csv(args.input, keep_default_na=False, na_values=[""])
    # Digit codes with leading zeros ("01") stay text: a number would lose the zeros.
    text = read_csv(args.input, dtype=str, keep_default_na=False, na_values=[""])
    for column in zero_padded_columns(text):
        frame[column] = text[column]
    draft, lines = draft_domain(frame)
    for line in lines:
        print(f"skprivsynth domain: {line}", file=sys.stderr)
    lines = [f"  {json.dumps(str(c))}: {json.dumps(spec)}" for c, spec in draft.items()]
    print("{\n" + ",\n".join(lines) + "\n}")
    return 0
