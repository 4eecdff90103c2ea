import os
import pathlib
import shutil
import tempfile

import pytest

# A private Inductor cache per test session: compiled code cached by an earlier build of the
# fixtures (or another checkout) must never stand in for what this run compiles.
os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="graphmend-inductor-")

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def graphmend_bin() -> str:
    candidate = os.environ.get("GRAPHMEND_BIN") or str(ROOT / "build" / "graphmend")
    if not pathlib.Path(candidate).exists():
        found = shutil.which("graphmend")
        if not found:
            raise RuntimeError(f"graphmend binary not found at {candidate}; build it first")
        candidate = found
    return candidate
