"""`pip install` (wheel and source tree) and `cmake --install` give a working graphmend that needs no
library beyond glibc."""

import os
import re
import sys

from conftest import ROOT, build_without_isolation, fresh_venv, run

EXAMPLE = ROOT / "examples" / "tiny_transformer"


def check_example(command, cwd):
    r = run([*command, "check", EXAMPLE, "--output-format", "concise"], cwd=cwd, check=False)
    assert r.returncode == 1, r.stdout + r.stderr
    assert re.search(r"model\.py:\d+:\d+: GM202 ", r.stdout), r.stdout


def test_wheel_is_manylinux_and_installs_into_a_fresh_environment(built_wheel, tmp_path):
    repaired = tmp_path / "repaired"
    run([sys.executable, "-m", "auditwheel", "repair", built_wheel, "-w", repaired])
    wheels = list(repaired.glob("graphmend-*-py3-none-manylinux_*.whl"))
    assert len(wheels) == 1, list(repaired.iterdir())
    shown = run([sys.executable, "-m", "auditwheel", "show", wheels[0]]).stdout
    assert re.search(r'consistent\s+with\s+the\s+following\s+platform\s+tag:\s+"manylinux_2_\d+_x86_64"', shown), shown
    # Nothing grafted: the binary links only glibc.
    assert "libstdc++" not in shown and "libfmt" not in shown and ".libs" not in shown, shown

    bin_dir = fresh_venv(tmp_path / "venv")
    run([bin_dir / "pip", "install", "-q", "--no-index", wheels[0]])
    assert (bin_dir / "graphmend").is_file()
    version = run([bin_dir / "graphmend", "--version"]).stdout
    assert version.strip().endswith("0.1.0")
    assert run([bin_dir / "python", "-m", "graphmend", "version"]).stdout.strip() == "graphmend 0.1.0"
    ldd = run(["ldd", bin_dir / "graphmend"]).stdout
    libraries = {line.split()[0] for line in ldd.splitlines() if "=>" in line}
    assert libraries <= {"libc.so.6", "libm.so.6", "linux-vdso.so.1"}, ldd
    # The installed tool works from any folder, on PATH.
    env_path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    r = run(["graphmend", "check", EXAMPLE, "--output-format", "concise"], cwd=tmp_path, check=False,
            env={"PATH": env_path})
    assert r.returncode == 1 and "GM202" in r.stdout
    check_example([bin_dir / "python", "-m", "graphmend"], tmp_path)


def test_pip_install_from_the_source_tree(builder, built_wheel, tmp_path):
    # After the wheel (built_wheel), in the same build folder: only the install is new work.
    build_without_isolation(builder, "install")
    check_example([builder / "graphmend"], tmp_path)
    check_example([builder / "python", "-m", "graphmend"], tmp_path)


def test_cmake_install_puts_the_binary_in_prefix_bin(tmp_path):
    # The developer build scripts/build.sh made.
    run(["cmake", "--install", ROOT / "build", "--prefix", tmp_path / "prefix"])
    check_example([tmp_path / "prefix" / "bin" / "graphmend"], tmp_path)
