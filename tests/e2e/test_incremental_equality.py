"""Issue #51's check of incremental analysis: a check that keeps what it can between runs reports
exactly what a check that keeps nothing reports.

A copy of transformers 4.52.4 under a pyproject.toml is checked once whole, with the cache on
(as a developer's first run). Then edits are made one after another, as commits would, each of
a kind that changes what other files read of the edited one:
  - a module-level function's definition removed;
  - a `print` added to a helper that a compiled `forward` of its module calls;
  - a class's first base changed.
The edits are picked at random with fixed seeds. After each, the edited file and two other
modeling files are checked as pre-commit runs it (those files named, the project found from
them), once with the cache kept from the runs before and once with `--no-cache`. The reports,
JSON with every fix (`--unsafe-fixes`), must be byte-identical but for the run's duration, and
the cached run must have read the other files' summaries back from the cache, and the typings of
the compiled calls that the edit left as they were (the call evidence the run before stored),
and have parsed fewer than half of the files it was not asked about (the others stood in with
their summaries: their code was never read).
"""

from __future__ import annotations

import ast
import json
import os
import pathlib
import random
import re
import shutil
import subprocess

import pytest

EDITS_PER_KIND = 2
SEEDS = [0]


def report(graphmend_bin, project, files, *flags):
    env = {**os.environ, "GRAPHMEND_PHASES": "1"}
    out = subprocess.run([graphmend_bin, "check", "--unsafe-fixes", "--fix-generated", "--output-format", "json",
                          *flags, *files], cwd=project, capture_output=True, text=True, env=env, check=False)
    assert out.returncode in (0, 1), out.stderr[-2000:]
    counts = re.findall(r"^graphmend-summaries read=(\d+) stored=(\d+)$", out.stderr, re.MULTILINE)
    counts += re.findall(r"^graphmend-evidence typed=(\d+) reused=(\d+)$", out.stderr, re.MULTILINE)
    counts += re.findall(r"^graphmend-deferred modules=(\d+) built=(\d+)$", out.stderr, re.MULTILINE)
    return re.sub(r'"elapsed_ms": [0-9.e+-]+', '"elapsed_ms": 0', out.stdout), counts


def lines_of(node):
    """The 0-based line span of a statement with its decorators."""
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
    return first, node.end_lineno


def remove_a_definition(path: pathlib.Path, rng: random.Random) -> str | None:
    text = path.read_text()
    tree = ast.parse(text)
    defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not defs:
        return None
    node = rng.choice(defs)
    lines = text.splitlines(keepends=True)
    first, last = lines_of(node)
    path.write_text("".join(lines[:first] + lines[last:]))
    return f"removed def {node.name} from {path.name}"


def print_in_a_helper(path: pathlib.Path, rng: random.Random) -> str | None:
    text = path.read_text()
    tree = ast.parse(text)
    helpers = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    called = set()
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for fn in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == "forward"):
            for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
                if isinstance(call.func, ast.Name) and call.func.id in helpers:
                    called.add(call.func.id)
    if not called:
        return None
    helper = helpers[rng.choice(sorted(called))]
    body = helper.body
    first = body[1] if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
        else body[0]
    if first.lineno == helper.lineno:
        return None  # a one-line definition
    lines = text.splitlines(keepends=True)
    indent = " " * first.col_offset
    lines.insert(first.lineno - 1, f'{indent}print("graphmend incremental edit")\n')
    path.write_text("".join(lines))
    return f"print added to {helper.name} in {path.name}"


def change_a_base(path: pathlib.Path, rng: random.Random) -> str | None:
    text = path.read_text()
    tree = ast.parse(text)
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.bases]
    if len(classes) < 2:
        return None
    node = rng.choice(classes[1:])
    earlier = [c.name for c in classes if c.lineno < node.lineno]
    new_base = rng.choice(earlier + ["object"])
    base = node.bases[0]
    lines = text.splitlines(keepends=True)
    if base.lineno != base.end_lineno:
        return None
    line = lines[base.lineno - 1]
    lines[base.lineno - 1] = line[:base.col_offset] + new_base + line[base.end_col_offset:]
    path.write_text("".join(lines))
    return f"base of {node.name} in {path.name} changed to {new_base}"


EDITS = [remove_a_definition, print_in_a_helper, change_a_base]


def transformers_project(tmp_path):
    """A copy of transformers under a pyproject.toml; its PyTorch modeling files; modules many of
    them import."""
    import transformers

    assert transformers.__version__ == "4.52.4"
    project = tmp_path / "project"
    shutil.copytree(pathlib.Path(transformers.__file__).parent, project / "transformers")
    (project / "pyproject.toml").write_text('[project]\nname = "transformers"\n')
    modeling = sorted(p.relative_to(project).as_posix() for p in (project / "transformers" / "models").rglob("modeling_*.py")
                      if not p.name.startswith(("modeling_tf_", "modeling_flax_")))
    shared = ["transformers/modeling_utils.py", "transformers/pytorch_utils.py", "transformers/activations.py"]
    return project, modeling, shared


@pytest.mark.parametrize("seed", SEEDS)
def test_checks_after_random_edits_report_what_a_check_keeping_nothing_reports(graphmend_bin, tmp_path, seed):
    project, modeling, shared = transformers_project(tmp_path)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    rng = random.Random(seed)

    _, counts = report(graphmend_bin, project, ["transformers"], *cache)
    assert counts and counts[0][1] != "0", "the first run stores every file's summary"

    done, findings, evidence, parsed = [], 0, [], []
    for kind in EDITS * EDITS_PER_KIND:
        for _ in range(50):  # a file the edit applies to
            edited = rng.choice(modeling + shared)
            what = kind(project / edited, rng)
            if what:
                break
        assert what, f"no file for {kind.__name__}"
        done.append(what)
        files = [edited, *rng.sample([m for m in modeling if m != edited], 2)]
        kept, kept_counts = report(graphmend_bin, project, files, *cache)
        fresh, _ = report(graphmend_bin, project, files, "--no-cache")
        assert kept == fresh, f"after: {done}"
        (read, stored), (typed, reused), (deferred, built) = (map(int, c) for c in kept_counts)
        assert read > 1000 and stored >= 1, (done, kept_counts)  # the others' summaries came back
        assert reused > 1000, (done, kept_counts)  # and the typings the edit left
        # The files not named waited for a reader; most were never parsed.
        assert deferred > 1000 and built < deferred / 2, (done, kept_counts)
        evidence.append((typed, reused))
        parsed.append(built)
        findings += len(json.loads(kept)["diagnostics"])
    assert findings > 0, "reports with findings were compared"
    print(f"\nseed {seed}: {done}; {findings} findings compared; evidence (typed, reused): {evidence}; "
          f"files parsed of those not named: {parsed}")


class Server:
    """`graphmend server` driven by raw LSP frames."""

    def __init__(self, graphmend_bin, root, stderr):
        self.process = subprocess.Popen([graphmend_bin, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=stderr, env={**os.environ, "GRAPHMEND_PHASES": "1"})
        self.versions = {}
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"capabilities": {}, "rootUri": root.as_uri()}})
        self.read()
        self.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def send(self, message):
        body = json.dumps(message).encode()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def read(self):
        length = None
        while True:
            line = self.process.stdout.readline()
            assert line, "the server closed its output"
            if not line.strip():
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return json.loads(self.process.stdout.read(length))

    def show(self, path, text):
        """Opens or changes the document at `path` to `text`; returns its findings as
        (code, line, column, message), 1-based like the CLI's."""
        uri = path.as_uri()
        if uri in self.versions:
            self.versions[uri] += 1
            self.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                       "params": {"textDocument": {"uri": uri, "version": self.versions[uri]},
                                  "contentChanges": [{"text": text}]}})
        else:
            self.versions[uri] = 1
            self.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                       "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})
        while True:
            m = self.read()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                # Those with a code: the findings (the CLI's warnings have none).
                return sorted((d["code"], d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1,
                               d["message"]) for d in m["params"]["diagnostics"] if "code" in d)

    def close(self):
        self.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        self.read()
        self.send({"jsonrpc": "2.0", "method": "exit"})
        assert self.process.wait(timeout=60) == 0


def cli_findings(graphmend_bin, project, file):
    out = subprocess.run([graphmend_bin, "check", "--no-cache", "--output-format", "json", file], cwd=project,
                         capture_output=True, text=True, check=False)
    assert out.returncode in (0, 1), out.stderr[-2000:]
    return sorted((d["code"], d["location"]["row"], d["location"]["column"], d["message"])
                  for d in json.loads(out.stdout)["diagnostics"])


@pytest.mark.parametrize("seed", SEEDS)
def test_the_editor_server_after_random_edits_reports_what_a_fresh_check_reports(graphmend_bin, tmp_path, seed):
    """The server keeps the project's parses and its call evidence between changes. One
    modeling file is open; the same kinds of edits as above are made, each to an open buffer and
    its file alike (the open file itself, a module many models import, or another model), and
    after each the open file and the edited one are analysed again. Each analysis must report
    what `graphmend check --no-cache` reports of that file on disk, and the evidence must have
    been taken from what the server kept."""
    project, modeling, shared = transformers_project(tmp_path)
    rng = random.Random(seed)
    watched = project / rng.choice(modeling)
    stderr = open(tmp_path / "server.log", "wb")
    server = Server(graphmend_bin, project, stderr)
    text = watched.read_text()
    assert server.show(watched, text) == cli_findings(graphmend_bin, project, watched)

    done, findings = [], 0
    for n, kind in enumerate(EDITS * EDITS_PER_KIND):
        # In turn: the open file, a shared module, another model (any model, where the edit
        # finds nothing to change in the first).
        targets = [[watched.relative_to(project).as_posix()], shared, modeling][n % 3]
        for attempt in range(60):
            edited = project / rng.choice(targets if attempt < 10 else modeling)
            what = kind(edited, rng)
            if what:
                break
        assert what, f"no file for {kind.__name__}"
        done.append(what)
        found = server.show(edited, edited.read_text())
        assert found == cli_findings(graphmend_bin, project, edited), f"after: {done}"
        text = watched.read_text() + "\n"  # a keystroke in the open file: analysed again
        watched.write_text(text)
        found = server.show(watched, text)
        assert found == cli_findings(graphmend_bin, project, watched), f"after: {done}"
        findings += len(found)
    server.close()
    stderr.close()
    counts = [tuple(map(int, c)) for c in re.findall(r"^graphmend-evidence typed=(\d+) reused=(\d+)$",
                                                     (tmp_path / "server.log").read_text(), re.MULTILINE)]
    assert len(counts) == 1 + 2 * len(done)
    assert counts[0][1] == 0 and all(reused > 1000 for _, reused in counts[1:]), counts
    assert findings > 0, "analyses with findings were compared"
    print(f"\nseed {seed}: {watched.name}; {done}; {findings} findings compared; evidence (typed, reused): {counts}")
