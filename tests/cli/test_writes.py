"""What `fix` may write: never outside the tree through a symlink, never a hard-linked file; its own
stale temporary files go."""

import os

from conftest import MODEL


def test_symlink_out_of_the_tree_is_reported_but_not_written(gm, tmp_path):
    (tmp_path / "outside").mkdir()
    target = tmp_path / "outside" / "real.py"
    target.write_text(MODEL)
    (tmp_path / "tree").mkdir()
    os.symlink(target, tmp_path / "tree" / "link.py")
    r = gm("fix", "tree", cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "a symbolic link to" in r.stderr and "outside" in r.stderr
    assert target.read_text() == MODEL
    # Named on the command line, the link is the user's choice: written through.
    r = gm("fix", "tree/link.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "_graphmend" in target.read_text()
    assert os.path.islink(tmp_path / "tree" / "link.py")


def test_hard_linked_file_is_refused(gm, tmp_path):
    (tmp_path / "m.py").write_text(MODEL)
    os.link(tmp_path / "m.py", tmp_path / "copy.py")
    r = gm("fix", "m.py", cwd=tmp_path)
    assert r.returncode == 2
    assert "hard links" in r.stderr
    assert (tmp_path / "copy.py").read_text() == MODEL


def test_stale_temporary_of_a_killed_run_is_removed(gm, tmp_path):
    (tmp_path / "m.py").write_text(MODEL)
    stale = tmp_path / ".m.py.graphmend-999999999-a1B2c3"
    stale.write_text("half a file")
    r = gm("fix", "m.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not stale.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.py"]
