"""The generated block `fix` maintains in a patched module: when its marker lines do not pair up
(a bad merge, a hand edit), graphmend says so, leaves the block and the file as they are, and
declines the fixes that would need the block."""

from conftest import MODEL

BEGIN = "# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)\n"
END = "# graphmend: end generated code\n"


def patched_with_damaged_block(gm, project):
    """pkg/model.py patched by `fix`, then merged so that its block appears twice, with a new print
    site in forward."""
    model = project / "pkg" / "model.py"
    r = gm("fix", "pkg", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    text = model.read_text()
    begin, end = text.index(BEGIN), text.index(END) + len(END)
    text = text[:end] + "\n" + text[begin:end] + text[end:]
    text = text.replace("        return x * 2\n", '        print("again")\n        return x * 2\n')
    model.write_text(text)
    return model, text


def test_a_damaged_block_is_reported_and_the_file_left_alone(gm, project):
    model, damaged = patched_with_damaged_block(gm, project)
    line = damaged[: damaged.index(BEGIN)].count("\n") + 1
    expected = (
        f"warning: pkg/model.py:{line}: graphmend's generated block is damaged "
        "(it has 2 begin and 2 end markers, where one of each belongs)"
    )

    check = gm("check", "pkg", cwd=project)
    assert check.returncode == 1, check.stdout + check.stderr
    assert expected in check.stderr
    # The new print is still reported, and its fix is declined with the reason.
    assert "GM201" in check.stdout
    assert "generated block in this module is damaged" in check.stdout

    for _ in range(2):  # and again: a second run must not cut anything either
        fix = gm("fix", "pkg", cwd=project)
        assert expected in fix.stderr
        assert model.read_text() == damaged


def test_once_the_markers_pair_up_again_fix_resumes(gm, project):
    model, damaged = patched_with_damaged_block(gm, project)
    # The user deletes the second copy of the block.
    first_end = damaged.index(END) + len(END)
    second_begin = damaged.index(BEGIN, first_end)
    second_end = damaged.index(END, second_begin) + len(END)
    model.write_text(damaged[:first_end] + damaged[second_end:])

    r = gm("fix", "pkg", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "damaged" not in r.stderr
    text = model.read_text()
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    # The new print is fixed: called through the compile-time choice, not directly.
    assert '("again")' in text and 'print("again")' not in text
    compile(text, "model.py", "exec")


def test_markers_in_an_unpatched_file_only_warn(gm, tmp_path):
    (tmp_path / "m.py").write_text(END + MODEL)
    r = gm("check", "m.py", cwd=tmp_path)
    assert "warning: m.py:1: graphmend's generated block is damaged (it has 0 begin and 1 end markers" in r.stderr
