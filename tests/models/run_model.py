"""Runs one transformers model row in this process and prints a JSON line of facts about it.

    python run_model.py ROW [--weights FILE]

Graph counts come from a counting backend (dynamic=False); outputs are hashed bit for bit; the
compiled outputs (backend "eager" and "aot_eager") are compared with eager ones; fullgraph=True
is tried on its own. Which transformers is imported is decided by PYTHONPATH (original or patched).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import sys
import warnings

import torch
import torch._dynamo
from torch._dynamo.utils import counters


def _ids(shape, low, high, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(low, high, shape, generator=g)


def build(row: str):
    """The model and its inputs, from the small configs of the paper's harness."""
    import transformers as tf

    if row == "t5-small":
        cfg = tf.T5Config(vocab_size=128, d_model=64, d_ff=128, num_layers=2, num_heads=2, d_kv=32)
        model = tf.T5ForConditionalGeneration(cfg)
        inputs = {"input_ids": _ids((1, 8), 0, 128, 1), "decoder_input_ids": _ids((1, 8), 0, 128, 2)}
    elif row == "biogpt":
        cfg = tf.BioGptConfig(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                              intermediate_size=128, max_position_embeddings=64)
        model = tf.BioGptForCausalLM(cfg)
        inputs = {"input_ids": _ids((1, 8), 0, 128, 1)}
    elif row in ("bart-fp16", "marian-fp16"):
        common = dict(vocab_size=128, d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                      decoder_attention_heads=2, encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=64)
        if row == "bart-fp16":
            model = tf.BartForConditionalGeneration(tf.BartConfig(**common))
        else:
            model = tf.MarianMTModel(tf.MarianConfig(**common, decoder_start_token_id=2, pad_token_id=1))
        model = model.half()  # fp16: the encoder layer's overflow guard is data-dependent
        inputs = {"input_ids": _ids((1, 8), 3, 128, 1), "decoder_input_ids": _ids((1, 8), 3, 128, 2)}
    elif row.startswith("phi3-longrope"):
        cfg = tf.Phi3Config(vocab_size=128, hidden_size=64, intermediate_size=128, pad_token_id=0, num_hidden_layers=2,
                            num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
                            original_max_position_embeddings=16,
                            rope_scaling={"type": "longrope", "short_factor": [1.0] * 16, "long_factor": [2.0] * 16})
        model = tf.Phi3ForCausalLM(cfg)
        length = 24 if row.endswith("-long") else 8  # above / below original_max_position_embeddings
        inputs = {"input_ids": _ids((1, length), 0, 128, 1)}
    elif row == "grounding-dino":
        backbone = tf.SwinConfig(image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[1, 1],
                                 window_size=2, out_features=["stage1", "stage2"])
        text = tf.BertConfig(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                             intermediate_size=128, max_position_embeddings=64)
        cfg = tf.GroundingDinoConfig(backbone_config=backbone, text_config=text, d_model=64, encoder_layers=1,
                                     decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
                                     encoder_ffn_dim=128, decoder_ffn_dim=128, num_queries=4,
                                     num_feature_levels=2, use_timm_backbone=False)
        model = tf.GroundingDinoModel(cfg)
        g = torch.Generator().manual_seed(3)
        inputs = {"pixel_values": torch.randn(1, 3, 32, 32, generator=g), "input_ids": _ids((1, 8), 0, 128, 1)}
    else:
        raise SystemExit(f"unknown row {row}")
    return model.eval(), inputs


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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("row")
    parser.add_argument("--weights", help="state_dict to load (strict), or to save when absent")
    parser.add_argument("--first", choices=["eager", "compiled"], default="eager",
                        help="how the process's first call runs; its log records and warnings are reported")
    args = parser.parse_args()
    torch.manual_seed(0)
    model, inputs = build(args.row)
    if args.weights and os.path.exists(args.weights):
        model.load_state_dict(torch.load(args.weights), strict=True)
    elif args.weights:
        torch.save(model.state_dict(), args.weights)

    import transformers
    facts = {"row": args.row, "transformers": os.path.dirname(transformers.__file__)}
    with torch.no_grad():
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
