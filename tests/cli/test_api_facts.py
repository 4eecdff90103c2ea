"""The rule documents list the APIs their rule acts on from the one table of API facts
(src/analysis/api_facts.cpp): scripts/api_facts_docs.py writes those lists, so a row added,
removed or given another fact fails here until the documents are regenerated."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "api_facts_docs.py"
sys.path.insert(0, str(SCRIPT.parent))

import api_facts_docs  # noqa: E402


def test_rule_documents_list_what_the_table_says():
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_table_is_read_whole_and_each_row_carries_what_its_facts_need():
    rows = api_facts_docs.rows()
    names = [(row.space, row.name) for row in rows]
    assert len(names) == len(set(names)), "one row per name and space"
    assert ("Global", "math.sqrt") in names and ("TensorMethod", "sum") in names
    assert all(row.facts for row in rows), "every row has a fact"
    for row in rows:
        breaks = bool(row.facts & {"Breaks", "BreaksOnTensor"})
        assert breaks == (row.graph_break is not None), f"{row.name}: a call that breaks names its break, no other"
        if "TakesSize" in row.facts:
            assert row.size_argument, f"{row.name}: a size taker names its size argument"
        elif row.size_argument:
            assert "Breaks" in row.facts and row.name.startswith("numpy.random."), row.name


def test_a_changed_table_makes_a_document_stale():
    document = "x\n<!-- api-facts: NeedsPythonNumber -->\n`math.sqrt`\n<!-- /api-facts -->\n"
    assert api_facts_docs.rendered(document) != document  # the table lists more than sqrt
    current = api_facts_docs.rendered(document)
    assert api_facts_docs.rendered(current) == current
