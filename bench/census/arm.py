"""One arm of the census: one transformers architecture, built from a small config, in this process.

    python arm.py MODEL_TYPE --weights FILE

Which transformers is imported (original or patched) is decided by PYTHONPATH. The first arm saves
the weights; the other loads them strictly. Prints one JSON line: how far it got (`stage`), the
digest of one eager forward, the graphs of one compiled forward (backend "eager", dynamic=False),
each distinct graph-break site (Dynamo logs a site once, however often it breaks there; the path
is relative to transformers/; a break Dynamo logs inside another library, torch's module.py, is
sited at the innermost transformers frame of its traceback, the other kept as `logged_at`) with its
cause, and the digest of the compiled output.

--capture compiles once as above (its result under "plain"), then turns on
torch._dynamo.config.capture_scalar_outputs and
capture_dynamic_output_shape_ops (what keeps `.item()` and data-dependent output shapes in the
graph), counts the graphs the same way, and then tries fullgraph=True: one graph, or the error that
stops it (its class, its message's first line, the innermost site it names, and whether the message
asks for a torch._check hint). bench/wild/wild_arm.py uses the same functions.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import warnings

import torch
import torch._dynamo

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models"))
from run_row import _tensors, digest  # noqa: E402  (the model table's: same bytes, same hash)

# Small sizes, applied to every attribute of that name a config (or a sub-config) already has.
SMALL = {
    "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    "intermediate_size": 128, "max_position_embeddings": 128, "d_model": 64, "encoder_layers": 2,
    "decoder_layers": 2, "encoder_attention_heads": 4, "decoder_attention_heads": 4,
    "encoder_ffn_dim": 128, "decoder_ffn_dim": 128, "d_ff": 128, "num_layers": 2, "num_heads": 4,
    "d_kv": 16, "num_decoder_layers": 2, "head_dim": 16, "vocab_size": 1024, "image_size": 32,
    "patch_size": 8, "num_mel_bins": 16, "max_source_positions": 64, "max_target_positions": 64,
    "embed_dim": 64, "num_experts": 4, "num_local_experts": 4, "num_experts_per_tok": 2,
    "moe_intermediate_size": 64, "shared_expert_intermediate_size": 64, "conv_dim": [32, 32],
    "conv_stride": [5, 2], "conv_kernel": [10, 3], "num_conv_pos_embeddings": 16,
    "num_conv_pos_embedding_groups": 4, "projection_dim": 32, "text_embed_dim": 64,
}
TOKEN_IDS = ("pad_token_id", "bos_token_id", "eos_token_id", "decoder_start_token_id", "sep_token_id",
             "cls_token_id", "unk_token_id", "mask_token_id")
SEQUENCE = 8


def small_config(config, depth=0):
    """`config` with SMALL applied, to its sub-configs too (text, vision, audio, encoder, ...)."""
    from transformers import PretrainedConfig

    for key, value in SMALL.items():
        current = getattr(config, key, None)
        if current is None or isinstance(current, bool):
            continue
        if isinstance(current, (list, tuple)) != isinstance(value, list):
            continue
        if isinstance(value, list) and len(current) != len(value):
            continue
        setattr(config, key, value)
    vocab = getattr(config, "vocab_size", None)
    for key in TOKEN_IDS:  # special ids must index the smaller vocabulary
        token = getattr(config, key, None)
        if isinstance(token, int) and isinstance(vocab, int) and token >= vocab:
            setattr(config, key, 2)
    if depth < 3:
        for key, value in list(vars(config).items()):
            if isinstance(value, PretrainedConfig):
                small_config(value, depth + 1)
    return config


def inputs_for(model, config) -> dict:
    name = getattr(model, "main_input_name", "input_ids")
    vision = getattr(config, "vision_config", None) or config
    vocab = getattr(config, "vocab_size", None) or getattr(getattr(config, "text_config", None), "vocab_size", 128)
    ids = min(int(vocab), 128)
    # An encoder-decoder model runs its decoder too, on token ids, whatever the encoder reads.
    decoder = {"decoder_input_ids": torch.randint(3, ids, (1, SEQUENCE))} if config.is_encoder_decoder else {}
    if name == "input_ids":
        return {"input_ids": torch.randint(3, ids, (1, SEQUENCE)), **decoder}
    return {**main_input(name, config, vision), **decoder}


MODALITIES = ("input_ids", "pixel_values", "input_features", "input_values")


def all_modalities(model, config) -> dict:
    """The inputs for a model that needs more than its main input: every modality its forward
    takes (CLIP-like models want text and images together), video as (batch, frames, channels,
    height, width). Used only when the main input alone fails, so what ran before keeps its inputs."""
    import inspect

    accepted = inspect.signature(model.forward).parameters
    vision = getattr(config, "vision_config", None) or config
    text = getattr(config, "text_config", None) or config
    ids = min(int(getattr(text, "vocab_size", None) or getattr(config, "vocab_size", None) or 128), 128)
    out = inputs_for(model, config)
    for name in MODALITIES:
        if name in out or name not in accepted:
            continue
        if name == "input_ids":
            out["input_ids"] = torch.randint(3, ids, (1, SEQUENCE))
        else:
            out.update(main_input(name, config, vision))
    frames = getattr(vision, "num_frames", None) or getattr(config, "num_frames", None)
    if isinstance(frames, int) and "pixel_values" in out and out["pixel_values"].dim() == 4:
        out["pixel_values"] = out["pixel_values"].unsqueeze(1).expand(-1, frames, -1, -1, -1).contiguous()
    return out


def main_input(name, config, vision) -> dict:
    if name == "pixel_values":
        size = getattr(vision, "image_size", 32)
        height, width = (size, size) if isinstance(size, int) else tuple(size)[:2]
        return {"pixel_values": torch.randn(1, getattr(vision, "num_channels", 3), height, width)}
    if name == "input_features":
        mels = getattr(config, "num_mel_bins", None) or getattr(config, "feature_size", 16)
        return {"input_features": torch.randn(1, mels, 2 * getattr(config, "max_source_positions", 64))}
    if name == "input_values":
        return {"input_values": torch.randn(1, 4000)}
    raise ValueError(f"no inputs for main_input_name {name!r}")


class BreakLog(logging.Handler):
    """Dynamo's graph-break log ("Graph break in user code at FILE:LINE", then the reason)."""

    def __init__(self, site_of=None):
        super().__init__(logging.DEBUG)
        self.breaks = []
        self.site_of = site_of or transformers_site


    def emit(self, record):
        text = record.getMessage()
        where = re.search(r"Graph break in user code at (\S+):(\d+)", text)
        if not where:
            return
        reason = re.search(r"Graph Break Reason: (.*)", text)
        cause = reason.group(1) if reason else "?"
        detail = re.search(r"\n\s*\n(.+)\n\s+Explanation", text)
        if detail:
            cause = detail.group(1).strip()
        path, line = where.group(1), where.group(2)
        found = {"cause": cause[:160]}
        if self.site_of(path) == os.path.basename(path):
            # Logged inside another library (torch's module.py): the site is the innermost frame of
            # the census's library in the traceback, the line its maintainers can change.
            frames = re.findall(r'File "([^"]+)", line (\d+)', text.partition("User code traceback:")[2])
            ours = [(f, n) for f, n in frames if self.site_of(f) != os.path.basename(f)]
            if ours:
                found["logged_at"] = f"{os.path.basename(path)}:{line}"
                path, line = ours[-1]
        self.breaks.append({"site": f"{self.site_of(path)}:{line}", **found})


def transformers_site(path: str) -> str:
    """A break's file as the census names it: relative to transformers/ (its basename elsewhere)."""
    return path.split("transformers/", 1)[-1] if "transformers/" in path else os.path.basename(path)


def compile_and_run(model, args, kwargs, fullgraph=False, site_of=transformers_site):
    """One compiled forward (backend "eager": Dynamo only): the output, the graphs, the breaks."""
    graphs = []
    log = BreakLog(site_of)
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


def fullgraph_error(exc: Exception, site_of=transformers_site) -> dict:
    """What stopped fullgraph=True: class, first line, innermost site, whether a torch._check hint is asked."""
    text = str(exc)
    files = re.findall(r'File "([^"]+)", line (\d+)', text)
    ours = [(f, n) for f, n in files if site_of(f) != os.path.basename(f)]
    if not ours:  # an error raised when the graph runs names no frame: its traceback does
        import traceback

        ours = [(f.filename, f.lineno) for f in traceback.extract_tb(exc.__traceback__)
                if site_of(f.filename) != os.path.basename(f.filename) and "/torch/" not in f.filename]
    site = f"{site_of(ours[-1][0])}:{ours[-1][1]}" if ours else None
    lines = text.strip().splitlines() or [""]
    expression = next((line.strip() for line in lines if "data-dependent expression" in line), None)
    return {"error_class": type(exc).__name__, "error": lines[0][:200], "site": site,
            "called_from": f"{site_of(ours[-2][0])}:{ours[-2][1]}" if len(ours) > 1 else None,
            "data_dependent_expression": expression and expression[:200],
            "asks_torch_check": "torch._check" in text}


def record_compiled(facts: dict, model, args, kwargs, save_compiled=None, site_of=transformers_site) -> None:
    """One compiled forward into `facts`: its output's digest, its graphs, breaks and their sites;
    with `save_compiled`, its output tensors too (for the driver to say how far a differing output
    is)."""
    out, graphs, breaks = compile_and_run(model, args, kwargs, site_of=site_of)
    facts["compiled_sha256"] = digest(out)
    if save_compiled:
        torch.save([t.detach().cpu() for t in _tensors(out)], save_compiled)
    facts["graphs"] = len(graphs)
    facts["breaks"] = max(len(graphs) - 1, 0)
    facts["break_sites"] = breaks


def capture(facts: dict, model, args, kwargs, site_of=transformers_site) -> None:
    """With the capture flags on: the graphs of one compiled forward, then fullgraph=True; either may
    fail (a guard on a data-dependent value, a runtime assertion of the graph), recorded as it is."""
    torch._dynamo.config.capture_scalar_outputs = True
    torch._dynamo.config.capture_dynamic_output_shape_ops = True
    try:
        out, graphs, breaks = compile_and_run(model, args, kwargs, site_of=site_of)
        facts.update(compiled_sha256=digest(out), graphs=len(graphs), breaks=max(len(graphs) - 1, 0),
                     break_sites=breaks)
    except Exception as exc:  # noqa: BLE001 - the census records what the flags cannot do
        facts["capture_error"] = fullgraph_error(exc, site_of)
    facts["stage"] = "fullgraph"
    try:
        out, _, _ = compile_and_run(model, args, kwargs, fullgraph=True, site_of=site_of)
        facts["fullgraph"] = {"ok": True, "compiled_sha256": digest(out)}
    except Exception as exc:  # noqa: BLE001 - the census records what stops one graph
        facts["fullgraph"] = {"ok": False, **fullgraph_error(exc, site_of)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model_type")
    parser.add_argument("--weights", required=True)
    parser.add_argument("--save-compiled", help="also save the compiled output's tensors here")
    parser.add_argument("--capture", action="store_true",
                        help="capture_scalar_outputs and capture_dynamic_output_shape_ops on; then fullgraph=True")
    parser.add_argument("--eager-only", action="store_true", help="stop after the eager forward (and saving the weights)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    facts = {"model_type": args.model_type, "stage": "import"}
    try:
        import transformers
        from transformers import AutoConfig, AutoModel

        facts["transformers"] = transformers.__version__
        facts["stage"] = "config"
        config = small_config(AutoConfig.for_model(args.model_type))
        facts["stage"] = "build"
        torch.manual_seed(0)
        model = AutoModel.from_config(config).eval()
        if os.path.exists(args.weights):
            model.load_state_dict(torch.load(args.weights), strict=True)
        else:
            torch.save(model.state_dict(), args.weights)
        facts["class"] = type(model).__name__
        facts["stage"] = "inputs"
        torch.manual_seed(1)
        inputs = inputs_for(model, config)
        facts["stage"] = "eager"
        with torch.no_grad():
            # Each call starts from the same RNG state, so a forward that samples (vit_mae's masking,
            # vits' durations) draws the same numbers eagerly and compiled.
            torch.manual_seed(2)
            try:
                facts["eager_sha256"] = digest(model(**inputs))
            except Exception:  # the main input alone is not enough: every modality it takes
                torch.manual_seed(1)
                wider = all_modalities(model, config)
                if wider.keys() == inputs.keys() and all(wider[k].shape == inputs[k].shape for k in wider):
                    raise
                inputs = wider
                facts["inputs"] = sorted(inputs)
                torch.manual_seed(2)
                facts["eager_sha256"] = digest(model(**inputs))
            facts["stage"] = "compile"
            if args.eager_only:
                facts["stage"] = "done"
            elif args.capture:
                # First without the flags: the break sites at this copy's lines, then with them.
                out, graphs, breaks = compile_and_run(model, (), inputs)
                facts["plain"] = {"compiled_sha256": digest(out), "graphs": len(graphs),
                                  "breaks": max(len(graphs) - 1, 0), "break_sites": breaks}
                capture(facts, model, (), inputs)
            else:
                record_compiled(facts, model, (), inputs, args.save_compiled)
        facts["stage"] = "done"
    except Exception as exc:  # noqa: BLE001 - the census records why an architecture did not run
        facts["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
    print(json.dumps(facts))


if __name__ == "__main__":
    main()
