"""What the scripts that generate a checked-in table from the installed torch share: write it,
or with --check say whether the checked-in copy is what they would write."""
from __future__ import annotations

import argparse
import pathlib
import sys


def wants_check() -> bool:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true", help="exit 1 when the checked-in table differs")
    return parser.parse_args().check


def write_or_check(table: pathlib.Path, text: str, check: bool, script: str) -> int:
    """Writes `text` to `table`, or with `check` returns 1 (and says so) when they differ."""
    if check:
        current = table.read_text() if table.exists() else ""
        if current != text:
            print(f"{table} is out of date: run {pathlib.Path(script).name}", file=sys.stderr)
            return 1
        return 0
    table.write_text(text)
    return 0
