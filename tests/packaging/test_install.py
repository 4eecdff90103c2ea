"""`pip install` (wheel and source tree) and `cmake --install` give a working graphmend that needs no
library beyond glibc."""

import os
import re
import sys

from conftest import ROOT, fresh_venv, run

EXAMPLE = ROOT / "examples" / "tiny_transformer"


def check_example(command, cwd):
    r = run([*command, "check", EXAMPLE, "--output-format", "concise"], cwd=cwd, check=False)
    assert r.returncode == 1, r.stdout + r.stderr
    assert re.search(r"model\.py:\d+:\d+: GM202 ", r.stdout), r.stdout


def glibc_versions_required(binary) -> list[tuple[int, ...]]:
    """The GLIBC_x.y symbol versions the binary's dynamic symbols need (objdump -T)."""
    symbols = run(["objdump", "-T", binary]).stdout
    return sorted({tuple(map(int, v.split("."))) for v in re.findall(r"\bGLIBC_(\d+(?:\.\d+)+)\b", symbols)})


def test_wheel_is_manylinux_2_28_and_installs_into_a_fresh_environment(built_wheel, tmp_path):
    tag = re.search(r"-py3-none-(.+)\.whl$", built_wheel.name).group(1)
    assert "manylinux_2_28_x86_64" in tag.split("."), built_wheel.name
    shown = run([sys.executable, "-m", "auditwheel", "show", built_wheel]).stdout
    verdict = re.search(r'consistent\s+with\s+the\s+following\s+platform\s+tag:\s+"manylinux_2_(\d+)_x86_64"', shown)
    assert verdict and int(verdict.group(1)) <= 28, shown
    # Nothing grafted: the binary links only glibc.
    assert "libstdc++" not in shown and "libc++" not in shown and ".libs" not in shown, shown

    bin_dir = fresh_venv(tmp_path / "venv")
    run([bin_dir / "pip", "install", "-q", "--no-index", built_wheel])
    assert (bin_dir / "graphmend").is_file()
    version = run([bin_dir / "graphmend", "--version"]).stdout
    assert version.strip().endswith("0.1.0")
    assert run([bin_dir / "python", "-m", "graphmend", "version"]).stdout.strip() == "graphmend 0.1.0"
    # glibc 2.28's own libraries only (before 2.34, threads and dlopen were libraries of their
    # own), and no symbol of a newer glibc: it loads on RHEL 8, Debian 10, Ubuntu 20.04.
    dynamic = run(["readelf", "-d", bin_dir / "graphmend"]).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", dynamic)
    assert set(needed) <= {"libc.so.6", "libm.so.6", "libpthread.so.0", "libdl.so.2", "librt.so.1",
                           "ld-linux-x86-64.so.2"}, needed
    required = glibc_versions_required(bin_dir / "graphmend")
    assert required and max(required) <= (2, 28), required
    # The installed tool works from any folder, on PATH.
    env_path = f"{bin_dir}{os.pathsep}{os.environ['PATH']}"
    r = run(["graphmend", "check", EXAMPLE, "--output-format", "concise"], cwd=tmp_path, check=False,
            env={"PATH": env_path})
    assert r.returncode == 1 and "GM202" in r.stdout
    check_example([bin_dir / "python", "-m", "graphmend"], tmp_path)


def test_pip_install_from_the_source_tree(hook_environment, tmp_path):
    # pre-commit installs graphmend with `pip install .` of this checkout, as on a user's machine:
    # build isolation and the system's g++ (the wheel above is zig's).
    check_example([hook_environment / "graphmend"], tmp_path)
    check_example([hook_environment / "python", "-m", "graphmend"], tmp_path)


def test_cmake_install_puts_the_binary_in_prefix_bin(tmp_path):
    # The developer build scripts/build.sh made.
    run(["cmake", "--install", ROOT / "build", "--prefix", tmp_path / "prefix"])
    check_example([tmp_path / "prefix" / "bin" / "graphmend"], tmp_path)
