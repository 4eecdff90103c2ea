"""graphmend check reports exactly the lines where real TorchDynamo breaks the graph.

For every fixture program under programs/, the set of (file, line) break sites reported by
`torch._dynamo.explain` must equal the set graphmend reports. Precision and recall over the
whole set are printed and must both be 100%.
"""
from __future__ import annotations

import json
import logging
import pathlib
import subprocess

import pytest

from dynamo_sites import load_program, measure

PROGRAMS = pathlib.Path(__file__).resolve().parent / "programs"
PROGRAM_FILES = sorted(p for p in PROGRAMS.rglob("*.py") if "def cases" in p.read_text())


@pytest.fixture(scope="module")
def graphmend_sites(graphmend_bin):
    out = subprocess.run(
        [graphmend_bin, "check", "--output-format", "json", str(PROGRAMS)],
        capture_output=True, text=True, check=False,
    )
    assert out.returncode in (0, 1), out.stderr
    report = json.loads(out.stdout)
    assert report["errors"] == []
    sites = set()
    for d in report["diagnostics"]:
        assert d["code"] != "GM901", d
        sites.add((str(pathlib.Path(d["filename"]).resolve()), d["location"]["row"]))
    return sites


@pytest.fixture(scope="module")
def dynamo_results():
    logging.disable(logging.CRITICAL)  # fixture programs log on purpose
    try:
        results = {}
        for path in PROGRAM_FILES:
            results[path] = measure(load_program(PROGRAMS, path), PROGRAMS.resolve())
    finally:
        # Also when a program raises: later tests on this worker read log records.
        logging.disable(logging.NOTSET)
    return results


def _files_of(path: pathlib.Path) -> set[str]:
    """The files a program's sites may land in: itself, or its whole package."""
    if (path.parent / "__init__.py").exists():
        return {str(p.resolve()) for p in path.parent.glob("*.py")}
    return {str(path.resolve())}


@pytest.mark.parametrize("path", PROGRAM_FILES, ids=lambda p: str(p.relative_to(PROGRAMS)))
def test_sites_match_dynamo(path, dynamo_results, graphmend_sites):
    dynamo = set().union(*(r.sites for r in dynamo_results[path]))
    files = _files_of(path)
    ours = {s for s in graphmend_sites if s[0] in files}
    assert ours == dynamo, (
        f"missed (Dynamo breaks, graphmend silent): {sorted(dynamo - ours)}\n"
        f"spurious (graphmend reports, Dynamo does not break): {sorted(ours - dynamo)}"
    )


def test_precision_and_recall(dynamo_results, graphmend_sites, capsys):
    dynamo = set()
    for results in dynamo_results.values():
        for r in results:
            dynamo |= r.sites
    covered = set()
    for path in PROGRAM_FILES:
        covered |= _files_of(path)
    ours = {s for s in graphmend_sites if s[0] in covered}
    tp = len(ours & dynamo)
    precision = tp / len(ours) if ours else 1.0
    recall = tp / len(dynamo) if dynamo else 1.0
    with capsys.disabled():
        print(f"\nbreak-site detection over {len(PROGRAM_FILES)} programs: "
              f"{len(dynamo)} Dynamo sites, {len(ours)} graphmend sites, "
              f"precision {precision:.1%}, recall {recall:.1%}")
        for path, results in sorted(dynamo_results.items()):
            for r in results:
                print(f"  {r.name:45s} graphs={r.graphs} explain: graphs={r.explain_graphs} "
                      f"breaks={r.explain_breaks} sites={len(r.sites)}")
    assert len(dynamo) >= 25, "the fixture set should exercise at least 25 break sites"
    assert precision == 1.0 and recall == 1.0
