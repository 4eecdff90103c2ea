"""GRAPHMEND_PHASES, the developer's aid bench/incremental.py reads: each stage of a run, in order,
on stderr, with its wall and CPU time and peak memory so far; the report itself is unchanged, and
without the variable nothing of it shows."""

import re

PHASE = re.compile(r"^graphmend-phase (\S+) wall=([0-9.]+) cpu=([0-9.]+) peak_rss_mb=(\d+)$", re.M)


def phases(stderr):
    return [(m.group(1), float(m.group(2)), float(m.group(3)), int(m.group(4))) for m in PHASE.finditer(stderr)]


def test_each_stage_is_written_in_order_and_the_report_is_unchanged(gm, tmp_path):
    (tmp_path / "m.py").write_text(
        "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n")
    plain = gm("check", "m.py", "--no-cache", cwd=tmp_path)
    traced = gm("check", "m.py", "--no-cache", cwd=tmp_path, env={"GRAPHMEND_PHASES": "1"})
    assert not phases(plain.stderr) and "graphmend-phase" not in plain.stderr
    assert traced.returncode == plain.returncode == 1
    assert re.sub(r" in [0-9.]+ m?s", "", traced.stdout) == re.sub(r" in [0-9.]+ m?s", "", plain.stdout)
    stages = phases(traced.stderr)
    assert [s[0] for s in stages] == ["read", "regions", "evidence", "check", "copies", "report"]
    for earlier, later in zip(stages, stages[1:]):
        assert later[1] >= earlier[1] and later[2] >= earlier[2] and later[3] >= earlier[3] > 0


def test_with_the_cache_a_miss_parses_after_reading_and_a_hit_only_reads(gm, tmp_path):
    (tmp_path / "m.py").write_text("import torch\n\n\n@torch.compile\ndef f(x):\n    return x.item()\n")
    env = {"GRAPHMEND_PHASES": "1"}
    miss = gm("check", "m.py", "--cache-dir", tmp_path / "cache", cwd=tmp_path, env=env)
    hit = gm("check", "m.py", "--cache-dir", tmp_path / "cache", cwd=tmp_path, env=env)
    assert [s[0] for s in phases(miss.stderr)] == ["read", "parse", "regions", "evidence", "check", "copies", "report"]
    assert [s[0] for s in phases(hit.stderr)] == ["read", "report"]
