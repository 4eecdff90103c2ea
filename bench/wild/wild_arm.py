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
import os
import sys
import time
import warnings

import torch
import torch._dynamo

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "census"))
sys.path.insert(0, HERE)
from arm import capture, digest, record_compiled
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
                capture(facts, model, inputs, kw, library_site)
            else:
                record_compiled(facts, model, inputs, kw, args.save_compiled, site_of=library_site)
        facts["stage"] = "done"
    except Exception as exc:  # noqa: BLE001 - the census records why a model did not run
        facts["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
    facts["seconds"] = round(time.perf_counter() - started, 1)
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
