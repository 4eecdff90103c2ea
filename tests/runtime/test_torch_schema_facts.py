"""The table of what torch's operator schemas say (src/analysis/torch_schema_facts.inc), which
graphmend's API facts defer to, regenerated from the installed torch: it must not drift; and what
it says holds on real tensors."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "torch_schema_facts.py"
TABLE = ROOT / "src" / "analysis" / "torch_schema_facts.inc"


def _table() -> dict[str, int]:
    out = {}
    for line in TABLE.read_text().splitlines():
        if line.startswith('{"'):
            name, flags = line[2:].rstrip("},").split('", ')
            out[name] = int(flags)
    return out


def test_the_checked_in_table_is_what_torch_says():
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr + f"\nregenerate: .venv/bin/python {SCRIPT.relative_to(ROOT)}"
    assert torch.__version__.split("+")[0] in TABLE.read_text().splitlines()[0]


def test_the_table_is_sorted_for_binary_search():
    names = list(_table())
    assert names == sorted(names) and len(names) == len(set(names)) > 1000


def test_what_the_table_says_holds_on_tensors():
    table = _table()
    x = torch.randn(4, 4)
    # No flag: a new tensor every call.
    for name, call in {"clamp": lambda: torch.clamp(x, -1, 1), "cat": lambda: torch.cat([x]),
                       "layer_norm": lambda: torch.nn.functional.layer_norm(x, (4,))}.items():
        assert table[name] == 0, name
        assert call().untyped_storage().data_ptr() != x.untyped_storage().data_ptr(), name
    # Aliases: the result may be the argument's storage.
    for name, call in {"view": lambda: x.view(16), "contiguous": lambda: x.contiguous(),
                       "as_tensor": lambda: torch.as_tensor(x), "to": lambda: x.to(torch.float32)}.items():
        assert table[name] & 2, name
        assert call().untyped_storage().data_ptr() == x.untyped_storage().data_ptr(), name
    # Mutates: the argument changes.
    y = x.clone()
    y.add_(1)
    assert table["add_"] & 1 and not torch.equal(y, x)
    # Random: two calls from one seed state differ from each other.
    assert table["dropout"] & 4 and table["bernoulli"] & 4
    a = torch.nn.functional.dropout(torch.ones(1000), 0.5, training=True)
    b = torch.nn.functional.dropout(torch.ones(1000), 0.5, training=True)
    assert not torch.equal(a, b)
