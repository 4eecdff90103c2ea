"""GM414 across files against Dynamo: programs/wrapped_raise/model.py's forwards meet the None an
`is_compiling()` test leaves and raise under torch.compile ("Observed exception" at the use); the
one wrapped by capturing.py's `capture_outputs`, which calls it inside `try: ... finally:`, is also
logged at the finally's last line. In each file the lines Dynamo logs, the lines marked
`# expect: GM414 reported` and graphmend's GM414 findings are the same set; a wrapper without a
`finally`, one whose handler catches the exception, a factory whose `try` calls another of its
parameters, and a wrapped forward that does not raise, add nothing. Outputs equal eager's."""
from __future__ import annotations

import json
import pathlib
import re
import subprocess

from dynamo_sites import logged_break_lines

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
PACKAGE = PROGRAMS / "wrapped_raise"


def marked(path: pathlib.Path) -> set[int]:
    return {i for i, line in enumerate(path.read_text().splitlines(), 1) if re.search(r"# expect: .*GM414 reported", line)}


def test_a_raise_through_a_wrappers_finally_matches_dynamo(graphmend_bin):
    out = subprocess.run([graphmend_bin, "check", "--output-format", "json", "--select", "GM414", str(PACKAGE)],
                         capture_output=True, text=True, check=False)
    assert out.returncode == 1, out.stderr
    diagnostics = json.loads(out.stdout)["diagnostics"]
    for name, count in (("model.py", 4), ("capturing.py", 1)):
        path = PACKAGE / name
        logged = logged_break_lines(PROGRAMS, PACKAGE / "model.py", "Observed exception", logged_in=path)
        assert len(marked(path)) == count
        assert logged == marked(path), name
        reported = {d["location"]["row"] for d in diagnostics if pathlib.Path(d["filename"]).name == name}
        assert reported == logged, name
    wrapper = next(d for d in diagnostics if d["filename"].endswith("capturing.py"))
    assert "`Stack.forward`, which this wrapper calls inside the `try`, raises under torch.compile" in wrapper["message"]
    assert "(wrapped_raise.model:14: `mask` is left None" in wrapper["message"], wrapper["message"]
