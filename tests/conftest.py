"""Shared by every Python test suite: the graphmend binary under test."""

import os
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def graphmend_bin() -> str:
    """$GRAPHMEND_BIN, else this checkout's build/graphmend, else `graphmend` on PATH."""
    candidate = os.environ.get("GRAPHMEND_BIN") or str(ROOT / "build" / "graphmend")
    if not pathlib.Path(candidate).exists():
        found = shutil.which("graphmend")
        if not found:
            raise RuntimeError(f"graphmend binary not found at {candidate}; build it first")
        candidate = found
    return candidate
