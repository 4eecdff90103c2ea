"""SARIF `fixes`: each fixable finding's fix, spelled out whole as `graphmend fix` applies it (the
site's edits, the generated block's runtime binding and helpers, and a package's runtime file),
in regions whose lines, columns and character offsets agree."""

import json
import re

import jsonschema
from test_formats import sarif_schema

from conftest import MODEL


def offset_of(text, line, column):
    """The code-point offset of a 1-based line and column (columns in code points)."""
    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]
    return starts[line - 1] + column - 1


def apply_change(text, change):
    """`text` with an artifactChange's replacements applied, the last first; each region's
    line/column span is checked against its charOffset/charLength."""
    replacements = change["replacements"]
    spans = []
    for r in replacements:
        region = r["deletedRegion"]
        start = offset_of(text, region["startLine"], region["startColumn"])
        end = offset_of(text, region["endLine"], region["endColumn"])
        assert (start, end - start) == (region["charOffset"], region["charLength"]), region
        spans.append((start, end, r.get("insertedContent", {}).get("text", "")))
    assert spans == sorted(spans, key=lambda s: (s[0], s[1]))
    for (_, end, _), (start, _, _) in zip(spans, spans[1:]):
        assert end <= start  # regions of the original text, not overlapping
    for start, end, inserted in reversed(spans):
        text = text[:start] + inserted + text[end:]
    return text


def sarif_of(gm, cwd, *paths):
    r = gm("check", *paths, "--output-format", "sarif", cwd=cwd)
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, sarif_schema())
    assert doc["runs"][0]["columnKind"] == "unicodeCodePoints"
    return doc["runs"][0]["results"]


def only_fix(result):
    assert len(result["fixes"]) == 1
    fix = result["fixes"][0]
    assert fix["description"]["text"] == result["properties"]["fix"]["title"]
    assert fix["properties"]["applicability"] == result["properties"]["fix"]["applicability"]
    return fix


SCRIPT = (
    "import torch\n\n\n@torch.compile\ndef f(x):\n"
    "    y = 'naïve ☃'; print('état', y)\n"
    "    return x\n"
)


def test_a_script_s_fix_is_what_fix_writes_inline_runtime_included(gm, tmp_path):
    """A loose script's fix brings the runtime inline, in the generated block: the replacements,
    applied to the file, give exactly what `graphmend fix` writes. Columns count code points."""
    (tmp_path / "m.py").write_bytes(SCRIPT.encode())
    [result] = sarif_of(gm, tmp_path, "m.py")
    assert result["ruleId"] == "GM201"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (6, 20)  # after "naïve ☃": code points
    fix = only_fix(result)
    [change] = fix["artifactChanges"]  # a script needs no runtime file
    assert change["artifactLocation"]["uri"] == "m.py"
    assert len(change["replacements"]) == 2  # the generated block, then the site
    patched = apply_change(SCRIPT, change)
    assert "# graphmend: begin generated code" in patched.split("def f")[0]

    assert gm("fix", "m.py", cwd=tmp_path).returncode == 0
    assert patched.encode() == (tmp_path / "m.py").read_bytes()


def test_a_package_module_s_fix_brings_its_runtime_file(gm, tmp_path):
    """In a package, the fix binds the package's runtime and creates the runtime file that
    `fix` writes beside the package; both changes give exactly the files `fix` writes."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    model = "import torch\n\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n"
    (tmp_path / "pkg" / "model.py").write_text(model)
    [result] = sarif_of(gm, tmp_path, "pkg")
    changes = {c["artifactLocation"]["uri"]: c for c in only_fix(result)["artifactChanges"]}
    assert set(changes) == {"pkg/model.py", "pkg/_graphmend_runtime.py"}
    patched = apply_change(model, changes["pkg/model.py"])
    runtime = apply_change("", changes["pkg/_graphmend_runtime.py"])  # created: inserted whole

    assert gm("fix", "pkg", cwd=tmp_path).returncode == 0
    assert patched == (tmp_path / "pkg" / "model.py").read_text()
    assert runtime == (tmp_path / "pkg" / "_graphmend_runtime.py").read_text()
    # Once the runtime file is there, a fix no longer carries it.
    (tmp_path / "pkg" / "model.py").write_text(model)
    [result] = sarif_of(gm, tmp_path, "pkg")
    assert [c["artifactLocation"]["uri"] for c in only_fix(result)["artifactChanges"]] == ["pkg/model.py"]


def test_a_stale_runtime_file_is_replaced_whole(gm, tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    stale = '"""An older graphmend runtime."""\n\nRUNTIME_VERSION = "1"\n'
    (tmp_path / "pkg" / "_graphmend_runtime.py").write_text(stale)
    model = "import torch\n\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n"
    (tmp_path / "pkg" / "model.py").write_text(model)
    [result] = sarif_of(gm, tmp_path, "pkg")
    changes = {c["artifactLocation"]["uri"]: c for c in only_fix(result)["artifactChanges"]}
    [replacement] = changes["pkg/_graphmend_runtime.py"]["replacements"]
    assert replacement["deletedRegion"]["charLength"] == len(stale)
    runtime = apply_change(stale, changes["pkg/_graphmend_runtime.py"])
    patched = apply_change(model, changes["pkg/model.py"])
    assert gm("fix", "pkg", cwd=tmp_path).returncode == 0
    assert runtime == (tmp_path / "pkg" / "_graphmend_runtime.py").read_text()
    assert patched == (tmp_path / "pkg" / "model.py").read_text()


def test_each_fix_of_a_file_stands_alone(gm, project):
    """Two fixes in one module: each carries the block edits it needs by itself."""
    results = sarif_of(gm, project, "pkg")
    assert [r["ruleId"] for r in results] == ["GM201", "GM301"]
    text = (project / "pkg" / "model.py").read_text()
    assert text == MODEL
    for result in results:
        change = only_fix(result)["artifactChanges"][0]
        assert change["artifactLocation"]["uri"] == "pkg/model.py"
        patched = apply_change(text, change)
        assert '_graphmend = __import__("_graphmend_runtime", globals(), level=1)' in patched
    guard = apply_change(text, only_fix(results[1])["artifactChanges"][0])
    assert "def _graphmend_raise_" in guard  # the site helper, in the block


def test_an_unsafe_fix_is_spelled_out_and_marked_unsafe(gm, tmp_path):
    source = (
        "import torch\nfrom torch import nn\n\n\nclass Guard(nn.Module):\n    def forward(self, h):\n"
        "        if torch.isinf(h).any() or torch.isnan(h).any():\n"
        "            clamp_value = torch.finfo(h.dtype).max - 1000\n"
        "            h = torch.clamp(h, min=-clamp_value, max=clamp_value)\n        return h\n")
    (tmp_path / "m.py").write_text(source)
    [result] = sarif_of(gm, tmp_path, "m.py")
    fix = only_fix(result)
    assert fix["properties"]["applicability"] == "unsafe"
    assert result["properties"]["fix"]["unsafe_code"] == "kept-object-replaced"
    patched = apply_change(source, fix["artifactChanges"][0])
    assert gm("fix", "m.py", cwd=tmp_path).returncode == 1  # not without --unsafe-fixes
    assert (tmp_path / "m.py").read_text() == source
    assert gm("fix", "--unsafe-fixes", "m.py", cwd=tmp_path).returncode == 0
    assert patched == (tmp_path / "m.py").read_text()


def test_crlf_file_fix_keeps_its_line_breaks(gm, tmp_path):
    source = SCRIPT.replace("\n", "\r\n")
    (tmp_path / "m.py").write_bytes(source.encode())
    [result] = sarif_of(gm, tmp_path, "m.py")
    patched = apply_change(source, only_fix(result)["artifactChanges"][0])
    assert gm("fix", "m.py", cwd=tmp_path).returncode == 0
    assert patched.encode() == (tmp_path / "m.py").read_bytes()


def test_a_declined_finding_has_no_fixes(gm, tmp_path):
    (tmp_path / "m.py").write_text(
        "import torch\n\n\n@torch.compile\ndef f(x):\n    try:\n        if x.sum() > 0:\n"
        "            x = x * 2\n    finally:\n        pass\n    return x\n")
    [result] = sarif_of(gm, tmp_path, "m.py")
    assert result["properties"]["decline_code"] == "inside-try"
    assert "fixes" not in result and "fix" not in result["properties"]
