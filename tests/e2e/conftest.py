import os
import tempfile

# A private Inductor cache per test session: compiled code cached by an earlier build of the
# fixtures (or another checkout) must never stand in for what this run compiles.
os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="graphmend-inductor-")
