"""A notebook fixed by graphmend runs as before on real PyTorch, in one graph.

examples/notebook/model.ipynb defines a small nn.Module whose forward prints, compiles it and calls
it. graphmend fixes a copy; the fixed notebook is a valid nbformat 4 notebook, and its code cells,
run in order in a fresh interpreter as Jupyter would (IPython magic and shell lines skipped), print
the same text and values as the original's, in one graph where the original needed two, and
compile with fullgraph=True.
"""
from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys

import nbformat

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "notebook" / "model.ipynb"

# Runs a notebook's code cells in order, as one kernel would, with every torch.compile counting
# its graphs (argv: notebook, "fullgraph" or "", the file the graph count is written to).
RUNNER = r"""
import json, sys
import torch
from torch._dynamo.testing import CompileCounter

counter = CompileCounter()
real_compile = torch.compile
torch.compile = lambda model, **kwargs: real_compile(model, backend=counter, fullgraph=sys.argv[2] == "fullgraph")
namespace = {"__name__": "__main__"}
for cell in json.load(open(sys.argv[1]))["cells"]:
    source = "".join(cell["source"])
    if cell["cell_type"] != "code" or source.startswith("%%"):
        continue
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    exec(compile("\n".join(lines), "<cell>", "exec"), namespace)
open(sys.argv[3], "w").write(str(counter.frame_count))
"""


def run_notebook(path: pathlib.Path, fullgraph: bool) -> tuple[str, int]:
    graphs = path.with_suffix(".graphs")
    r = subprocess.run(
        [sys.executable, "-c", RUNNER, str(path), "fullgraph" if fullgraph else "", str(graphs)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout, int(graphs.read_text())


def test_fixed_notebook_runs_the_same_in_one_graph(graphmend_bin, tmp_path):
    original = tmp_path / "original.ipynb"
    fixed = tmp_path / "fixed.ipynb"
    shutil.copy(EXAMPLE, original)
    shutil.copy(EXAMPLE, fixed)
    r = subprocess.run([graphmend_bin, "fix", str(fixed)], capture_output=True, text=True, timeout=120, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    nbformat.validate(nbformat.read(str(fixed), as_version=nbformat.NO_CONVERT))
    cells = json.loads(fixed.read_text())["cells"]
    assert cells[:2] == json.loads(original.read_text())["cells"][:2]  # the magics' cell as it was

    before, before_graphs = run_notebook(original, fullgraph=False)
    after, after_graphs = run_notebook(fixed, fullgraph=True)
    assert before.startswith("hidden torch.Size([2, 4])\ntensor(")
    assert after == before
    assert before_graphs == 2 and after_graphs == 1
