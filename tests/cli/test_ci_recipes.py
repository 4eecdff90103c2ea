"""The CI recipes in docs/ci.md, run as written on a small project. The install step is the one
command replaced: graphmend comes from this build (it is not on the package index)."""

import json
import os
import pathlib
import re
import subprocess
import xml.etree.ElementTree as ET

import jsonschema
import yaml

from test_formats import sarif_schema

ROOT = pathlib.Path(__file__).resolve().parents[2]


def yaml_blocks():
    text = (ROOT / "docs" / "ci.md").read_text()
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.S)]


def run_step(command, cwd, bin_dir):
    if command.startswith("pip install graphmend"):
        return None
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["bash", "-e", "-c", command], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)


def test_github_actions_workflow(graphmend_bin, project):
    workflow = yaml_blocks()[0]
    steps = workflow["jobs"]["graphmend"]["steps"]
    commands = [s["run"] for s in steps if "run" in s]
    assert commands[0] == "pip install graphmend"
    assert any(s.get("uses", "").startswith("github/codeql-action/upload-sarif") for s in steps)
    bin_dir = pathlib.Path(graphmend_bin).parent
    results = [run_step(c, project, bin_dir) for c in commands]
    sarif_step, annotate_step = results[1], results[2]
    assert sarif_step.returncode == 0, sarif_step.stderr
    doc = json.loads((project / "graphmend.sarif").read_text())
    jsonschema.validate(doc, sarif_schema())
    assert len(doc["runs"][0]["results"]) == 2
    assert annotate_step.returncode == 1  # the gate
    assert annotate_step.stdout.startswith("::error title=graphmend (GM201),file=pkg/model.py,line=6")


def test_gitlab_job(graphmend_bin, project):
    job = yaml_blocks()[1]["graphmend"]
    bin_dir = pathlib.Path(graphmend_bin).parent
    results = [run_step(c, project, bin_dir) for c in job["script"]]
    assert results[0] is None
    assert results[1].returncode == 0, results[1].stderr
    quality = json.loads((project / job["artifacts"]["reports"]["codequality"]).read_text())
    assert {i["check_name"] for i in quality} == {"GM201", "GM301"}
    assert results[2].returncode == 1  # the gate
    junit = ET.parse(project / job["artifacts"]["reports"]["junit"]).getroot()
    assert junit.get("failures") == "2"
