"""One arm of the wild census (issue 49): one model of bench/wild/models.py, in this process.

    python wild_arm.py LIBRARY/MODEL --weights FILE [--save-compiled FILE] [--capture]

Which copy of the library is imported (original or patched) is decided by PYTHONPATH. The first arm
saves the weights; the others load them strictly. Prints one JSON line: how far it got (`stage`),
the digest of one eager forward, the graphs of one compiled forward (backend "eager",
dynamic=False), each distinct graph-break site (path from the library's package folder, e.g.
torchvision/ops/boxes.py:54) with Dynamo's cause, and the digest of the compiled output.

--capture turns on torch._dynamo.config.capture_scalar_outputs and
capture_dynamic_output_shape_ops (what keeps `.item()` and data-dependent output shapes in the
graph), counts the graphs the same way, and then tries fullgraph=True: one graph, or the error that
stops it (its class, its message's first line, the innermost site it names, and whether the message
asks for a torch._check hint).
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import time
import warnings

import torch
import torch._dynamo

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "census"))
sys.path.insert(0, HERE)
from arm import BreakLog, _tensors, digest
from models import LIBRARIES, MODELS

PACKAGES = (*LIBRARIES, "torch")  # a library's own folder first: torchvision/ is not torch/


def library_site(path: str) -> str:
    """A break's file named from its package folder on (torchvision/ops/boxes.py), whichever copy it is in."""
    for package in PACKAGES:
        marker = f"/{package}/"
        if marker in path:
            return package + "/" + path.rsplit(marker, 1)[-1]
    return os.path.basename(path)


def distribution_version(package: str) -> str:
    import importlib.metadata

    names = importlib.metadata.packages_distributions().get(package, [])
    return importlib.metadata.version(names[0]) if names else "?"


def compile_and_run(model, args, kwargs, fullgraph=False):
    """One compiled forward (backend "eager": Dynamo only): the output, the graphs, the breaks."""
    graphs = []
    log = BreakLog(library_site)
    dynamo_log = logging.getLogger("torch._dynamo")
    dynamo_log.addHandler(log)
    torch._logging.set_logs(graph_breaks=True)
    torch_log = logging.getLogger("torch")
    saved, torch_log.handlers = torch_log.handlers, []  # the breaks go to BreakLog, not stderr
    try:
        torch._dynamo.reset()
        compiled = torch.compile(model, backend=lambda gm, ex: graphs.append(gm) or gm.forward, dynamic=False,
                                 fullgraph=fullgraph)
        torch.manual_seed(2)
        out = compiled(*args, **kwargs)
    finally:
        torch_log.handlers = saved
        dynamo_log.removeHandler(log)
    return out, graphs, log.breaks


def fullgraph_error(exc: Exception) -> dict:
    """What stopped fullgraph=True: class, first line, innermost site, whether a torch._check hint is asked."""
    text = str(exc)
    files = re.findall(r'File "([^"]+)", line (\d+)', text)
    ours = [(f, n) for f, n in files if library_site(f) != os.path.basename(f)]
    if not ours:  # an error raised when the graph runs names no frame: its traceback does
        import traceback

        ours = [(f.filename, f.lineno) for f in traceback.extract_tb(exc.__traceback__)
                if library_site(f.filename) != os.path.basename(f.filename) and "/torch/" not in f.filename]
    site = f"{library_site(ours[-1][0])}:{ours[-1][1]}" if ours else None
    lines = text.strip().splitlines() or [""]
    expression = next((line.strip() for line in lines if "data-dependent expression" in line), None)
    return {"error_class": type(exc).__name__, "error": lines[0][:200], "site": site,
            "called_from": f"{library_site(ours[-2][0])}:{ours[-2][1]}" if len(ours) > 1 else None,
            "data_dependent_expression": expression and expression[:200],
            "asks_torch_check": "torch._check" in text}


def capture(facts: dict, model, inputs, kw) -> None:
    """With the capture flags on: the graphs of one compiled forward, then fullgraph=True; either may
    fail (a guard on a data-dependent value, a runtime assertion of the graph), recorded as it is."""
    torch._dynamo.config.capture_scalar_outputs = True
    torch._dynamo.config.capture_dynamic_output_shape_ops = True
    try:
        out, graphs, breaks = compile_and_run(model, inputs, kw)
        facts.update(compiled_sha256=digest(out), graphs=len(graphs), breaks=max(len(graphs) - 1, 0),
                     break_sites=breaks)
    except Exception as exc:  # noqa: BLE001 - the census records what the flags cannot do
        facts["capture_error"] = fullgraph_error(exc)
    facts["stage"] = "fullgraph"
    try:
        out, _, _ = compile_and_run(model, inputs, kw, fullgraph=True)
        facts["fullgraph"] = {"ok": True, "compiled_sha256": digest(out)}
    except Exception as exc:  # noqa: BLE001 - the census records what stops one graph
        facts["fullgraph"] = {"ok": False, **fullgraph_error(exc)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model", choices=sorted(MODELS))
    parser.add_argument("--weights", required=True)
    parser.add_argument("--save-compiled", help="also save the compiled output's tensors here")
    parser.add_argument("--capture", action="store_true",
                        help="capture_scalar_outputs and capture_dynamic_output_shape_ops on; then fullgraph=True")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    library, build = MODELS[args.model]
    facts = {"model_type": args.model, "library": library, "stage": "import"}
    started = time.perf_counter()
    try:
        module = __import__(library)
        facts["version"] = getattr(module, "__version__", None) or distribution_version(library)
        facts["torch"] = torch.__version__
        facts["library_path"] = os.path.dirname(module.__file__)
        facts["stage"] = "build"
        torch.manual_seed(0)
        model, inputs, kw = build()
        model = model.eval()
        if os.path.exists(args.weights):
            model.load_state_dict(torch.load(args.weights), strict=True)
        else:
            torch.save(model.state_dict(), args.weights)
        facts["class"] = type(model).__name__
        facts["stage"] = "eager"
        with torch.no_grad():
            torch.manual_seed(2)
            facts["eager_sha256"] = digest(model(*inputs, **kw))
            facts["stage"] = "compile"
            if args.capture:
                capture(facts, model, inputs, kw)
            else:
                out, graphs, breaks = compile_and_run(model, inputs, kw)
                facts["compiled_sha256"] = digest(out)
                if args.save_compiled:  # for the driver to say how far a differing output is
                    torch.save([t.detach().cpu() for t in _tensors(out)], args.save_compiled)
                facts["graphs"] = len(graphs)
                facts["breaks"] = max(len(graphs) - 1, 0)
                facts["break_sites"] = breaks
        facts["stage"] = "done"
    except Exception as exc:  # noqa: BLE001 - the census records why a model did not run
        facts["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
    facts["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
