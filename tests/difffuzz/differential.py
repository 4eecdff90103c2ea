"""The differential fuzzer: generated programs run before and after `graphmend fix`, compared.

For each seed, generate.py writes a small compiled program. A copy is fixed with plain
`graphmend fix` (all copies of a batch in one run), then:

- the fixed file must compile with CPython, and a second `fix --diff` must change nothing;
- when the fix changed the file, both modules are imported in a worker process and every
  function runs on every case of its own, in six modes: eager, compiled with the `eager`
  backend and compiled with `aot_eager`, each with grad disabled and with grad enabled on the
  floating-point inputs. The original and the fixed program must agree in each mode: results
  bit for bit (dtype, shape, requires_grad, which outputs are the same object or an input),
  exceptions by class and message (Dynamo's own errors by class: their text names files and
  lines), printed text, log records (logger, level, message), warnings (category, message),
  in order, and with grad enabled the gradients of every input (-0.0 counted as +0.0).

Run as a script for long runs (figures in docs/fuzzing.md):

    .venv/bin/python tests/difffuzz/differential.py --programs 20000 --jobs 2

and in the test command through test_difffuzz.py (a fixed range of seeds). A divergence keeps
both files under the work folder and names the seed: `python tests/difffuzz/generate.py SEED`
prints the program again.
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import logging
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import generate  # noqa: E402

MODES = [(backend, grad) for backend in (None, "eager", "aot_eager") for grad in (False, True)]
# Warnings the programs make (generate.py's messages); torch's own are not compared.
PROGRAM_WARNING = re.compile(r"^(careful \d+|n=|shape |w[-\d(])")


@dataclasses.dataclass
class Divergence:
    seed: int
    what: str  # "fix failed", "not Python", "not idempotent", "behaviour"
    detail: str

    def line(self) -> str:
        return f"seed {self.seed}: {self.what}: {self.detail}"


# ------------------------------------------------------------------------------ one process
def _tensor_bits(t):
    import torch

    t = t.detach()
    if t.is_floating_point():
        return (str(t.dtype), tuple(t.shape), t.reshape(-1).contiguous().view(torch.uint8).tolist())
    return (str(t.dtype), tuple(t.shape), t.reshape(-1).tolist())


def _grad_bits(t):
    """A gradient as comparable data: -0.0 as +0.0, every NaN alike."""
    import torch

    if t is None:
        return None
    t = t.detach()
    if t.is_floating_point():
        nan = torch.isnan(t)
        t = torch.where(nan, torch.zeros_like(t), t) + 0.0
        return (str(t.dtype), tuple(t.shape), nan.reshape(-1).tolist(),
                t.reshape(-1).contiguous().view(torch.uint8).tolist())
    return (str(t.dtype), tuple(t.shape), t.reshape(-1).tolist())


def _describe(value, inputs, seen):
    """Comparable data for a function's result: tensors by their bits and metadata, and which
    objects are inputs or repeat an earlier output."""
    import torch

    if isinstance(value, BaseException):
        cls = type(value)
        if cls.__module__.startswith("torch"):
            return ("raised", cls.__module__ + "." + cls.__qualname__)
        # Dynamo appends where it was tracing ("from user code: File ..., line N"): the program's
        # own message is what comes before.
        return ("raised", cls.__qualname__, _text(str(value).split("\n\nfrom user code:")[0]))
    if isinstance(value, torch.Tensor):
        for i, a in enumerate(inputs):
            if value is a:
                return ("input", i)
        for i, s in enumerate(seen):
            if value is s:
                return ("same as output", i)
        seen.append(value)
        return ("tensor", type(value).__name__, value.requires_grad, _tensor_bits(value))
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [_describe(v, inputs, seen) for v in value])
    if isinstance(value, dict):
        return ("dict", sorted((k, _describe(v, inputs, seen)) for k, v in value.items()))
    return ("value", type(value).__name__, repr(value))


# A tensor's repr names the autograd node that made it (`grad_fn=<NegBackward0>`). A [Where]
# selection is made by torch.where, so with grad enabled its repr names WhereBackward0: a documented
# difference (rules/GM101.md), not one of value, and left out of the comparison.
GRAD_FN = re.compile(r"\s*grad_fn=<\w+>")


def _text(value: str) -> str:
    return GRAD_FN.sub(" grad_fn=<...>", value)


class _Events(io.TextIOBase):
    def __init__(self):
        self.items = []

    def write(self, text):
        text = _text(text)
        if self.items and self.items[-1][0] == "stdout":
            self.items[-1] = ("stdout", self.items[-1][1] + text)
        else:
            self.items.append(("stdout", text))
        return len(text)

    def add(self, *item):
        self.items.append(item)


class _Records(logging.Handler):
    def __init__(self, events):
        super().__init__(logging.DEBUG)
        self.events = events

    def emit(self, record):
        self.events.add("log", record.name, record.levelname, _text(record.getMessage()))


def _run_mode(fn, cases, backend, grad, warnings_action):
    """Every case of `fn` in one mode: [(events, result description, gradients)]."""
    import torch
    import torch._dynamo

    torch._dynamo.reset()
    target = fn if backend is None else torch.compile(fn, backend=backend, dynamic=False)
    logger = logging.getLogger("difffuzz")
    logger.setLevel(logging.DEBUG)
    logger.propagate = False
    out = []
    for case in cases:
        args = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in case)
        if grad:
            args = tuple(a.requires_grad_(True) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
                         for a in args)
        events = _Events()
        handler = _Records(events)
        logger.handlers = [handler]
        with warnings.catch_warnings(), contextlib.redirect_stdout(events):
            warnings.simplefilter(warnings_action)

            def show(message, category, filename, lineno, file=None, line=None):
                if PROGRAM_WARNING.match(str(message)):
                    events.add("warning", category.__name__, _text(str(message)))

            warnings.showwarning = show
            try:
                with torch.set_grad_enabled(grad):
                    result = target(*args)
            except Exception as exc:  # compared by class and message
                result = exc
        logger.handlers = []
        grads = None
        if grad and not isinstance(result, BaseException):
            grads = _gradients(result, args)
        message = _text(str(result)) if isinstance(result, BaseException) else None
        out.append(((events.items, _describe(result, args, []), grads), message))
    return out


def _same(want, got, eager, eager_reference=False):
    """Whether the fixed program's run (`got`) is the original's (`want`), or what the original
    does eagerly (`eager`, the reference semantics: compiled, the original's own graph breaks can
    change gradients, None where eager has zeros). One more equivalence: where the original raises
    an error that Dynamo, tracing further in the fixed program, raises while it traces, Dynamo
    wraps it (TorchRuntimeError, a RuntimeError) with the same message."""
    (want_run, want_message), (got_run, got_message) = want, got
    if got_run == want_run or (eager is not None and got_run == eager[0]):
        return True
    events, result, grads = got_run
    # Against an eager reference, a gradient the eager run could not take (an output computed
    # under no_grad in the graph, which autograd sees differently compiled) is not compared.
    want_grads = want_run[2]
    if eager_reference and isinstance(want_grads, tuple) and want_grads[:1] == ("raised",):
        if (events, result) == want_run[:2]:
            return True
    wrapped = {"RuntimeError", "TorchRuntimeError"}
    if (events == want_run[0] and result == ("raised", "torch._dynamo.exc.TorchRuntimeError") and want_message
            and want_run[1][0] == "raised" and (eager_reference or want_run[1][1] in wrapped)
            and want_message.split("\n")[0] in (got_message or "")):
        return True
    return False


def _gradients(result, args):
    import torch

    outputs = []

    def collect(v):
        if isinstance(v, torch.Tensor) and v.requires_grad and v.is_floating_point():
            outputs.append(v)
        elif isinstance(v, (tuple, list)):
            for item in v:
                collect(item)

    collect(result)
    inputs = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    if not outputs or not inputs:
        return None
    try:
        grads = torch.autograd.grad(outputs, inputs, [torch.ones_like(o) for o in outputs], allow_unused=True)
    except Exception as exc:  # compared by class and message
        return ("raised", type(exc).__qualname__, str(exc))
    return [_grad_bits(g) for g in grads]


def _import(path, name):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def compare_program(seed: int, original: str, fixed: str) -> list[str]:
    """Runs both programs in every mode; what differs, one line each (empty: nothing)."""
    import torch

    torch.manual_seed(seed)
    try:
        a = _import(original, f"difffuzz_original_{seed}")
        b = _import(fixed, f"difffuzz_fixed_{seed}")
    except Exception as exc:  # the fixed program must import as the original does
        return [f"import: {type(exc).__name__}: {exc}"]
    differences = []
    warnings_action = "default" if seed % 3 == 0 else "always"
    try:
        changed = _changed_functions(a, b)
        for name in a.FUNCTIONS:
            if not changed:
                break
            cases = a.cases()[name]
            for backend, grad in MODES:
                if backend is not None and name in a.EAGER_ONLY:
                    continue
                reference = None if name in getattr(a, "EAGER_REFERENCE", ()) else backend
                want = _run_mode(getattr(a, name), cases, reference, grad, warnings_action)
                got = _run_mode(getattr(b, name), cases, backend, grad, warnings_action)
                eager = want if reference is None else None
                if eager is None:
                    eager = _run_mode(getattr(a, name), cases, None, grad, warnings_action)
                for i, (w, g) in enumerate(zip(want, got)):
                    if not _same(w, g, eager[i], reference is None and backend is not None):
                        mode = f"{backend or 'no compile'}, grad {'on' if grad else 'off'}"
                        differences.append(f"{name} case {i} ({mode}): original {_short(w)} / fixed {_short(g)}")
                        break
    finally:
        sys.modules.pop(f"difffuzz_original_{seed}", None)
        sys.modules.pop(f"difffuzz_fixed_{seed}", None)
    return differences


def _changed_functions(a, b):
    """The module-level functions whose source the fix changed (any change to a program's
    functions makes every compiled function of it worth comparing: they may call each other)."""
    import inspect
    import types

    changed = []
    for name, value in vars(a).items():
        if isinstance(value, types.FunctionType) and value.__module__ == a.__name__:
            other = getattr(b, name, None)
            if other is None or inspect.getsource(value) != inspect.getsource(other):
                changed.append(name)
    return changed


def _short(value, limit=600):
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def _worker(task_file: str, result_file: str):
    """A worker process: compares the programs listed in `task_file`, writes what differs."""
    logging.getLogger("torch").setLevel(logging.CRITICAL)
    warnings.filterwarnings("ignore", module="torch")
    out = []
    for seed, original, fixed in json.loads(pathlib.Path(task_file).read_text()):
        try:
            out.append((seed, compare_program(seed, original, fixed)))
        except Exception as exc:  # a crash of the harness itself is reported, not hidden
            out.append((seed, [f"harness: {type(exc).__name__}: {exc}"]))
    pathlib.Path(result_file).write_text(json.dumps(out))


def _compare_all(work, workdir: pathlib.Path, jobs: int, per_process=20, progress=None):
    """Runs the comparisons in worker processes, `jobs` at a time, each taking up to
    `per_process` programs (a fresh process bounds what imported programs and Dynamo keep)."""
    chunks = [work[i:i + per_process] for i in range(0, len(work), per_process)]
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(workdir / "inductor"), PYTHONUNBUFFERED="1")
    running: list[tuple[subprocess.Popen, pathlib.Path, list]] = []
    results = []

    def reap(block):
        for entry in list(running):
            proc, result_file, chunk = entry
            if block or proc.poll() is not None:
                code = proc.wait()
                running.remove(entry)
                if result_file.exists():
                    found = json.loads(result_file.read_text())
                else:
                    found = [(seed, [f"worker exited with {code}"]) for seed, _, _ in chunk]
                results.extend(found)
                if progress:
                    for seed, differences in found:
                        progress(seed, differences)
                return True
        return False

    for n, chunk in enumerate(chunks):
        while len(running) >= jobs:
            if not reap(False):
                time.sleep(0.05)
        task_file = workdir / f"task_{n}.json"
        result_file = workdir / f"result_{n}.json"
        task_file.write_text(json.dumps(chunk))
        result_file.unlink(missing_ok=True)
        proc = subprocess.Popen([sys.executable, __file__, "--worker", str(task_file), str(result_file)], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        running.append((proc, result_file, chunk))
    while running:
        reap(True)
    return results


# ------------------------------------------------------------------------------------ driver
def run(seeds, graphmend_bin: str, workdir: pathlib.Path, jobs: int = 2, fix_args=(), progress=None):
    """Generates, fixes and compares the programs of `seeds`; returns (divergences, stats)."""
    return run_programs({seed: generate.program(seed) for seed in seeds}, graphmend_bin, workdir, jobs, fix_args,
                        progress)


def run_programs(programs: dict, graphmend_bin: str, workdir: pathlib.Path, jobs: int = 2, fix_args=(), progress=None):
    """Fixes and compares the programs given as {number: text} (generate.py's shape: FUNCTIONS,
    EAGER_ONLY, EAGER_REFERENCE, cases()); returns (divergences, stats)."""
    workdir.mkdir(parents=True, exist_ok=True)
    original_dir, fixed_dir = workdir / "original", workdir / "fixed"
    for d in (original_dir, fixed_dir):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir()
    paths = {}
    for seed, text in programs.items():
        name = f"prog_{seed}.py"
        (original_dir / name).write_text(text)
        (fixed_dir / name).write_text(text)
        paths[seed] = (original_dir / name, fixed_dir / name)
    divergences: list[Divergence] = []
    stats = {"programs": len(paths), "changed": 0, "compared": 0}
    started = time.monotonic()
    fixed = subprocess.run([graphmend_bin, "fix", *fix_args, "--output-format", "concise", str(fixed_dir)], capture_output=True,
                           text=True)
    if fixed.returncode not in (0, 1):
        divergences.append(Divergence(-1, "fix failed", (fixed.stdout + fixed.stderr)[-2000:]))
    again = subprocess.run([graphmend_bin, "fix", *fix_args, "--diff", "--no-summary", str(fixed_dir)],
                           capture_output=True, text=True)
    for m in re.finditer(r"^\+\+\+ b/?(.*prog_(\d+)\.py)$", again.stdout, re.M):
        divergences.append(Divergence(int(m.group(2)), "not idempotent", "a second fix changes the file"))
    work = []
    for seed, (original, fixed_path) in paths.items():
        text = fixed_path.read_text()
        if text == original.read_text():
            continue
        stats["changed"] += 1
        try:
            compile(text, str(fixed_path), "exec")
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            divergences.append(Divergence(seed, "not Python", f"{type(exc).__name__}: {exc}"))
            continue
        work.append((seed, str(original), str(fixed_path)))
    stats["compared"] = len(work)
    for seed, differences in _compare_all(work, workdir, jobs, progress=progress):
        for d in differences:
            divergences.append(Divergence(seed, "behaviour", d))
    stats["seconds"] = round(time.monotonic() - started, 1)
    keep = workdir / "divergent"
    for d in divergences:
        if d.seed in paths:
            keep.mkdir(exist_ok=True)
            for p in paths[d.seed]:
                shutil.copy(p, keep / f"{p.parent.name}_{p.name}")
    return divergences, stats


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        _worker(sys.argv[2], sys.argv[3])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--batch", type=int, default=500, help="programs fixed in one graphmend run")
    parser.add_argument("--graphmend", default=str(HERE.parents[1] / "build" / "graphmend"))
    parser.add_argument("--workdir", default=None)
    parser.add_argument("--json", default=None, help="write the figures here")
    args = parser.parse_args()
    workdir = pathlib.Path(args.workdir or tempfile.mkdtemp(prefix="difffuzz-"))
    total: list[Divergence] = []
    stats = {"programs": 0, "changed": 0, "compared": 0, "seconds": 0.0}
    for start in range(args.first_seed, args.first_seed + args.programs, args.batch):
        seeds = range(start, min(start + args.batch, args.first_seed + args.programs))
        divergences, s = run(seeds, args.graphmend, workdir / f"batch_{start}", args.jobs)
        total += divergences
        for k in stats:
            stats[k] += s[k]
        print(f"seeds {seeds.start}-{seeds.stop - 1}: {s['changed']} fixed, {len(divergences)} divergences, "
              f"{s['seconds']} s", flush=True)
        for d in divergences:
            print("  " + d.line()[:2000], flush=True)
    stats["divergences"] = len(total)
    print(json.dumps(stats))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({**stats, "first_seed": args.first_seed,
                                                       "lines": [d.line() for d in total]}, indent=1))
    sys.exit(1 if total else 0)


if __name__ == "__main__":
    main()
