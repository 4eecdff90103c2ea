"""Runs one transformers model row in this process and prints a JSON line of facts about it.

    python run_row.py ROW [--weights FILE] [--first eager|compiled] [--timing] [--train]

Graph counts come from a counting backend (dynamic=False) and torch._dynamo.explain; outputs are
hashed bit for bit; fullgraph=True is tried with the eager and aot_eager backends; --timing adds
Inductor CPU latency: cold (the first call, compilation included; give each process its own
TORCHINDUCTOR_CACHE_DIR) and warm (median of repeated calls). Which transformers is imported is
decided by PYTHONPATH (original or patched). Rows: registry.py.
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import linecache
import logging
import os
import re
import sys
import time
import warnings

import torch
import torch._dynamo
from torch._dynamo.utils import counters


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from registry import build, sequence  # noqa: E402


def _tensors(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, dict) or hasattr(out, "to_tuple"):
        out = out.to_tuple() if hasattr(out, "to_tuple") else tuple(out.values())
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _tensors(o)]
    return []


def _break_site(reason) -> str:
    """`reason — file:line` with the innermost frame inside transformers."""
    where = "?"
    for frame in reversed(reason.user_stack or []):
        if "transformers" in frame.filename:
            parts = frame.filename.split("transformers/", 1)
            where = f"{parts[-1]}:{frame.lineno}"
            break
    return f"{str(reason.reason).splitlines()[0]} — {where}"


def digest(out) -> str:
    h = hashlib.sha256()
    for t in _tensors(out):
        h.update(str((tuple(t.shape), str(t.dtype))).encode())
        h.update(t.detach().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
    return h.hexdigest()


def inductor_timing(model, inputs, repeats):
    """Cold: the first compiled call, compilation included. Warm: median of `repeats` calls."""
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="inductor", dynamic=False)
    start = time.perf_counter()
    out = compiled(**inputs)
    cold = time.perf_counter() - start
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        compiled(**inputs)
        samples.append(time.perf_counter() - start)
    samples.sort()
    torch._dynamo.reset()
    return {"inductor_cold_s": cold, "inductor_warm_s": samples[len(samples) // 2],
            "inductor_sha256": digest(out)}


class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.items = []

    def emit(self, record):
        if record.name.startswith("transformers"):
            self.items.append(["log", record.name, record.levelname, record.getMessage()])


def record_emissions(run):
    """Log records of transformers' loggers and warnings raised while `run()` runs, in order."""
    handler = _Records()
    root = logging.getLogger("transformers")  # transformers' loggers do not propagate to the root
    root.addHandler(handler)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, category, *rest, **kw: handler.items.append(
            ["warning", category.__name__, str(message)])
        try:
            out = run()
        finally:
            root.removeHandler(handler)
    items = [i for i in handler.items if i[0] == "log" or "torch" not in i[2]]
    return items, out


def fresh(row, weights):
    """The row's model (random weights pinned by `weights`: loaded strictly, or saved when absent)."""
    torch.manual_seed(0)
    model, inputs = build(row)
    model = model.eval()
    if weights and os.path.exists(weights):
        model.load_state_dict(torch.load(weights), strict=True)
    elif weights:
        torch.save(model.state_dict(), weights)
    return model, inputs


def run_sequence(row, weights):
    """The row's calls in order, on a fresh model per mode (state such as caches carries over
    between calls): per-call output digests eagerly, under a counting backend (graphs compiled over
    the whole sequence) and with fullgraph=True (aot_eager)."""
    calls = sequence(row)
    facts = {"row": row, "shapes": len({tuple(tuple(v.shape) for v in c.values()) for c in calls})}
    with torch.no_grad():
        model, _ = fresh(row, weights)
        facts["eager"] = [digest(model(**c)) for c in calls]
        counted = []

        def counting(gm, example_inputs):
            counted.append(gm)
            return gm.forward

        torch._dynamo.reset()
        model, _ = fresh(row, weights)
        compiled = torch.compile(model, backend=counting, dynamic=False)
        facts["counted"] = [digest(compiled(**c)) for c in calls]
        facts["graphs"] = len(counted)
        torch._dynamo.reset()
        model, _ = fresh(row, weights)
        compiled = torch.compile(model, backend="aot_eager", fullgraph=True, dynamic=False)
        try:
            facts["fullgraph_aot_eager"] = [digest(compiled(**c)) for c in calls]
        except Exception as exc:  # a graph break under fullgraph=True
            facts["fullgraph_aot_eager"] = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    return facts


def _no_dropout(model):
    """Training mode with every dropout probability at zero (modules and the float attributes
    functional dropout reads), so that a step is deterministic and comparable across arms."""
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
        for name, value in list(vars(module).items()):
            if isinstance(value, float) and ("dropout" in name or name == "layerdrop"):
                setattr(module, name, 0.0)
    return model.train()


class _Sites(list):
    def __init__(self):
        super().__init__()
        self.lines = []


@contextlib.contextmanager
def _graph_break_sites():
    """Dynamo's graph-break log while the block runs, as `file: source line` for each break in
    transformers (the source text, not the line number, so that arms with patched files compare;
    torch._dynamo.explain misses breaks that make Dynamo skip a whole frame, such as LayerDrop's).
    `sites.lines` holds the same breaks as `file:line`, in the same order."""
    sites = _Sites()

    class Collect(logging.Handler):
        def emit(self, record):
            found = record.name.endswith("__graph_breaks") and re.search(r"in user code at (\S+):(\d+)",
                                                                          record.getMessage())
            if found and "transformers/" in found[1]:
                code = linecache.getline(found[1], int(found[2])).strip()
                sites.append(f"{found[1].split('transformers/', 1)[1]}: {code}")
                sites.lines.append(f"{found[1].split('transformers/', 1)[1]}:{found[2]}")

    log = logging.getLogger("torch._dynamo")  # where `<module>.__graph_breaks` artifacts stop propagating
    handler = Collect()
    torch._logging.set_logs(graph_breaks=True)
    log.addHandler(handler)
    try:
        yield sites
    finally:
        log.removeHandler(handler)
        torch._logging.set_logs()


def train_step(row, weights):
    """One training step, forward, loss and backward, with grad enabled and the model in training
    mode (dropout at zero): the loss and every parameter's gradient hashed, eagerly and compiled
    (aot_eager, and a counting backend for graphs), and the graph breaks with grad enabled."""
    model, inputs = fresh(row, weights)
    _no_dropout(model)

    names = [name for name, _ in model.named_parameters()]

    def step(forward, mode):
        model.zero_grad(set_to_none=True)
        out = forward(**inputs)
        loss = sum(t.float().sum() for t in _tensors(out) if t.is_floating_point())
        loss.backward()
        grads = [p.grad if p.grad is not None else torch.zeros(0) for p in model.parameters()]
        # One digest per parameter too, so that a difference names the parameters it is in.
        facts[f"{mode}_grad_each"] = dict(zip(names, (digest(g)[:16] for g in grads)))
        return digest(loss), digest(grads)

    import transformers

    facts = {"row": row, "train": True, "transformers": os.path.dirname(transformers.__file__)}
    facts["eager_loss"], facts["eager_grads"] = step(model, "eager")
    counted = []

    def counting(gm, example_inputs):
        counted.append(gm)
        return gm.forward

    torch._dynamo.reset()
    with _graph_break_sites() as sites:
        facts["counting_loss"], facts["counting_grads"] = step(torch.compile(model, backend=counting, dynamic=False),
                                                               "counting")
    facts["graphs"] = len(counted)
    facts["breaks"] = len(counted) - 1
    facts["breaks_detail"] = list(sites)
    facts["breaks_lines"] = sites.lines
    torch._dynamo.reset()
    facts["aot_eager_loss"], facts["aot_eager_grads"] = step(torch.compile(model, backend="aot_eager", dynamic=False),
                                                             "aot_eager")
    return facts


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("row")
    parser.add_argument("--weights", help="state_dict to load (strict), or to save when absent")
    parser.add_argument("--first", choices=["eager", "compiled"], default="eager",
                        help="how the process's first call runs; its log records and warnings are reported")
    parser.add_argument("--timing", action="store_true", help="measure Inductor cold and warm latency first")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--sequence", action="store_true",
                        help="only run the row's call sequence (registry.SEQUENCES): eager, counted and fullgraph")
    parser.add_argument("--train", action="store_true",
                        help="only run one training step (grad enabled, dropout at zero): loss and gradients")
    args = parser.parse_args()
    if args.train:
        print(json.dumps(train_step(args.row, args.weights)))
        return
    if args.sequence:  # builds its own models, one per mode
        print(json.dumps(run_sequence(args.row, args.weights)))
        return
    model, inputs = fresh(args.row, args.weights)

    import transformers
    facts = {"row": args.row, "transformers": os.path.dirname(transformers.__file__)}
    with torch.no_grad():
        if args.timing:  # first, so that compilation is cold in this process
            facts.update(inductor_timing(model, inputs, args.repeats))
        # The first call of the process: once-only messages (warning_once) are emitted here.
        first = model if args.first == "eager" else torch.compile(model, backend="aot_eager", dynamic=False)
        facts["first_call"] = args.first
        facts["first_call_records"], out = record_emissions(lambda: first(**inputs))
        facts["first_call_sha256"] = digest(out)
        facts["eager_sha256"] = digest(model(**inputs))

        counted = []

        def counting(gm, example_inputs):
            counted.append(gm)
            return gm.forward

        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(model, backend=counting, dynamic=False)
        out = compiled(**inputs)
        first = len(counted)
        compiled(**inputs)
        facts["graphs"] = first
        facts["breaks"] = first - 1
        facts["recompiled"] = len(counted) != first
        explained = torch._dynamo.explain(model)(**inputs)
        facts["break_reasons"] = sorted({str(r.reason).splitlines()[0] for r in explained.break_reasons})
        facts["breaks_detail"] = [_break_site(r) for r in explained.break_reasons]
        facts["counting_sha256"] = digest(out)

        for backend in ("eager", "aot_eager"):
            torch._dynamo.reset()
            try:
                out = torch.compile(model, backend=backend, fullgraph=True, dynamic=False)(**inputs)
                facts[f"fullgraph_{backend}"] = True
                facts[f"fullgraph_{backend}_sha256"] = digest(out)
            except Exception as exc:  # a graph break under fullgraph=True
                facts[f"fullgraph_{backend}"] = False
                facts[f"fullgraph_{backend}_error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
