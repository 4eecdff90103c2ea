"""The model rows of the paper's Table 2 (offline rows), built from small configs with random
weights, as the paper's harness builds them (shared/reference/artifact.md §3.2), plus fp16 rows
for the BART family and Marian, whose encoder overflow guard breaks the graph only in fp16.

Each builder returns (model, inputs). Inputs are seeded; weights are pinned across the original
and patched arms by a strict state_dict (see run_row.py).
"""
from __future__ import annotations

import torch


def _ids(shape, low, high, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(low, high, shape, generator=g)


def _randn(shape, seed):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def t5():
    import transformers as tf

    cfg = tf.T5Config(vocab_size=128, d_model=64, d_ff=128, num_layers=2, num_heads=2, d_kv=32)
    return tf.T5ForConditionalGeneration(cfg), {"input_ids": _ids((1, 8), 0, 128, 1),
                                                "decoder_input_ids": _ids((1, 8), 0, 128, 2)}


def whisper():
    import transformers as tf

    cfg = tf.WhisperConfig(vocab_size=128, d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                           decoder_attention_heads=2, encoder_ffn_dim=128, decoder_ffn_dim=128, num_mel_bins=80,
                           max_source_positions=64, max_target_positions=64, decoder_start_token_id=2,
                           pad_token_id=0, bos_token_id=1, eos_token_id=2)
    return tf.WhisperForConditionalGeneration(cfg), {"input_features": _randn((1, 80, 128), 3),
                                                     "decoder_input_ids": _ids((1, 8), 0, 128, 2)}


_SEQ2SEQ = dict(vocab_size=128, d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                decoder_attention_heads=2, encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=64)


def _seq2seq_inputs():
    return {"input_ids": _ids((1, 8), 3, 128, 1), "decoder_input_ids": _ids((1, 8), 3, 128, 2)}


def bart(fp16=False):
    import transformers as tf

    model = tf.BartForConditionalGeneration(tf.BartConfig(**_SEQ2SEQ))
    return (model.half() if fp16 else model), _seq2seq_inputs()


def marian(fp16=False):
    import transformers as tf

    model = tf.MarianMTModel(tf.MarianConfig(**_SEQ2SEQ, decoder_start_token_id=2, pad_token_id=1))
    return (model.half() if fp16 else model), _seq2seq_inputs()


def blenderbot():
    import transformers as tf

    return tf.BlenderbotForConditionalGeneration(tf.BlenderbotConfig(**_SEQ2SEQ)), _seq2seq_inputs()


def biogpt():
    import transformers as tf

    cfg = tf.BioGptConfig(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                          intermediate_size=128, max_position_embeddings=64)
    return tf.BioGptForCausalLM(cfg), {"input_ids": _ids((1, 8), 0, 128, 1)}


def pegasus():
    import transformers as tf

    cfg = tf.PegasusConfig(vocab_size=128, d_model=64, decoder_layers=2, decoder_attention_heads=2,
                           decoder_ffn_dim=128, max_position_embeddings=64)
    return tf.PegasusForCausalLM(cfg), {"input_ids": _ids((1, 8), 0, 128, 1)}


def layoutlmv3():
    import transformers as tf

    cfg = tf.LayoutLMv3Config(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                              intermediate_size=128, max_position_embeddings=64, max_2d_position_embeddings=1024,
                              coordinate_size=8, shape_size=16, input_size=32, patch_size=16, visual_embed=False)
    return tf.LayoutLMv3Model(cfg), {"input_ids": _ids((1, 8), 0, 128, 1),
                                     "bbox": torch.zeros(1, 8, 4, dtype=torch.long)}


def phi3_longrope(length=8, bf16=False):
    import transformers as tf

    cfg = tf.Phi3Config(vocab_size=128, hidden_size=64, intermediate_size=128, pad_token_id=0, num_hidden_layers=2,
                        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
                        original_max_position_embeddings=16,
                        rope_scaling={"type": "longrope", "short_factor": [1.0] * 16, "long_factor": [2.0] * 16})
    model = tf.Phi3ForCausalLM(cfg)
    return (model.bfloat16() if bf16 else model), {"input_ids": _ids((1, length), 0, 128, 1)}


def grounding_dino():
    import transformers as tf

    backbone = tf.SwinConfig(image_size=32, patch_size=4, embed_dim=16, depths=[1, 1], num_heads=[1, 1],
                             window_size=2, out_features=["stage1", "stage2"])
    text = tf.BertConfig(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=128, max_position_embeddings=64)
    cfg = tf.GroundingDinoConfig(backbone_config=backbone, text_config=text, d_model=64, encoder_layers=1,
                                 decoder_layers=1, encoder_attention_heads=2, decoder_attention_heads=2,
                                 encoder_ffn_dim=128, decoder_ffn_dim=128, num_queries=4, num_feature_levels=2,
                                 use_timm_backbone=False)
    return tf.GroundingDinoModel(cfg), {"pixel_values": _randn((1, 3, 32, 32), 3), "input_ids": _ids((1, 8), 0, 128, 1)}


def longformer():
    import transformers as tf

    cfg = tf.LongformerConfig(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                              intermediate_size=128, max_position_embeddings=512, attention_window=8)
    # 20 is not a multiple of the window: the padding path (and its logger call) runs.
    return tf.LongformerModel(cfg), {"input_ids": _ids((1, 20), 0, 128, 1)}


def clap():
    import transformers as tf

    cfg = tf.ClapConfig()
    cfg.text_config.update(dict(vocab_size=128, hidden_size=64, num_hidden_layers=1, num_attention_heads=2,
                                intermediate_size=128))
    cfg.projection_dim = 32
    cfg.text_config.projection_dim = 32
    cfg.audio_config.projection_dim = 32
    cfg.audio_config.enable_fusion = True
    n_mel = cfg.audio_config.num_mel_bins
    return tf.ClapModel(cfg), {"input_ids": _ids((1, 8), 0, 128, 1), "attention_mask": torch.ones(1, 8, dtype=torch.long),
                               "input_features": _randn((1, 4, 1001, n_mel), 4),
                               "is_longer": torch.ones(1, 1, dtype=torch.bool)}


# name -> (builder, the paper implementation's measured breaks before -> after, rule / note)
ROWS = {
    "t5-small": (t5, "3 -> 0", "Defer"),
    "t5-base": (t5, "3 -> 0", "Defer (same code as t5-small)"),
    "t5-3b": (t5, "3 -> 0", "Defer (same code as t5-small)"),
    "flan-t5-large": (t5, "3 -> 0", "Defer (same code as t5-small)"),
    "inclusively-reformulation-it5": (t5, "3 -> 0", "Defer (same code as t5-small)"),
    "whisper": (whisper, "3 -> 0", "Defer"),
    "whisper-small": (whisper, "3 -> 0", "Defer (same code)"),
    "whisper-base": (whisper, "3 -> 0", "Defer (same code)"),
    "bart": (bart, "3 -> 0", "Defer (fp32; the guard breaks only in fp16)"),
    "bart-base": (bart, "3 -> 0", "Defer (same code)"),
    "rebel-large": (bart, "3 -> 0", "Defer (same code)"),
    "biogpt": (biogpt, "2 -> 0", "Defer"),
    "blenderbot-400M-distill": (blenderbot, "3 -> 0", "Defer"),
    "opus-mt-fr-en": (marian, "3 -> 0", "Defer (fp32)"),
    "PegasusForCausalLM": (pegasus, "2 -> 0", "Defer"),
    "layoutlmv3-base": (layoutlmv3, "2 -> 0", "Defer (warnings.warn in modeling_utils)"),
    "Phi-4-mini-instruct": (phi3_longrope, "5 -> 0", "Where (LongRoPE) + Defer"),
    "grounding-dino": (grounding_dino, "16 -> 7", "Trap; rest DS/DO/TI"),
    "grounding-dino-base": (grounding_dino, "16 -> 7", "Trap (same code)"),
    "longformer-base-4096": (longformer, "5 -> 3", "Defer; 2 .item() out of scope"),
    "clap-htsat-fused": (clap, "2 -> 2", "dynamic shapes, out of scope"),
}
FP16_ROWS = {
    "bart fp16": (lambda: bart(fp16=True), "n/a", "Where (fp16 overflow guard) + Defer"),
    "bart-base fp16": (lambda: bart(fp16=True), "n/a", "Where + Defer (same code)"),
    "rebel-large fp16": (lambda: bart(fp16=True), "n/a", "Where + Defer (same code)"),
    "opus-mt-fr-en fp16": (lambda: marian(fp16=True), "n/a", "Where + Defer"),
}
# Rows whose patched arms hold a [Where] fix that the row runs, with the site (issue #46's
# training-step goal: run_table.py --train). The fp32 BART-family rows are not here: their guard's
# first atom, `hidden_states.dtype == torch.float16`, is false, so its tensor part never runs.
WHERE_ROWS = {
    "bart fp16": "models/bart/modeling_bart.py BartEncoderLayer.forward: the fp16 overflow guard",
    "bart-base fp16": "models/bart/modeling_bart.py BartEncoderLayer.forward: the fp16 overflow guard",
    "rebel-large fp16": "models/bart/modeling_bart.py BartEncoderLayer.forward: the fp16 overflow guard",
    "opus-mt-fr-en fp16": "models/marian/modeling_marian.py MarianEncoderLayer.forward: the fp16 overflow guard",
    "Phi-4-mini-instruct": "modeling_rope_utils.py longrope_frequency_update: the LongRoPE buffer (--unsafe-fixes only)",
    "grounding-dino": "models/grounding_dino/modeling_grounding_dino.py GroundingDinoDeformableLayer.forward: "
                      "the overflow guard under `if self.training:`",
    "grounding-dino-base": "models/grounding_dino/modeling_grounding_dino.py GroundingDinoDeformableLayer.forward: "
                           "the overflow guard under `if self.training:`",
}
# Rows used by tests and checks beyond the table.
EXTRA_ROWS = {
    "phi3-longrope-long": (lambda: phi3_longrope(length=24), "", "Phi-3 above original_max_position_embeddings"),
}
ALL_ROWS = {**ROWS, **FP16_ROWS, **EXTRA_ROWS}
# Names the tests use.
ALIASES = {"biogpt": "biogpt", "bart-fp16": "bart fp16", "marian-fp16": "opus-mt-fr-en fp16",
           "phi3-longrope": "Phi-4-mini-instruct"}


def build(row: str):
    row = ALIASES.get(row, row)
    return ALL_ROWS[row][0]()


def phi3_sequence():
    """Phi-3 calls whose LongRoPE condition flips at one shape (positions below, then above
    original_max_position_embeddings=16), goes back from long to short, and a longer input."""
    ids = _ids((1, 8), 0, 128, 1)
    short = torch.arange(8).reshape(1, 8)
    return [{"input_ids": ids, "position_ids": short}, {"input_ids": ids, "position_ids": short + 16},
            {"input_ids": ids, "position_ids": short}, {"input_ids": _ids((1, 24), 0, 128, 1)},
            {"input_ids": ids, "position_ids": short}, {"input_ids": ids, "position_ids": short + 16}]


# Rows with a sequence of calls whose state carries over (run_row.py --sequence).
SEQUENCES = {"Phi-4-mini-instruct": phi3_sequence}


def sequence(row: str):
    return SEQUENCES[ALIASES.get(row, row)]()
