"""The wild census's models (issue 49): each a small configuration of a public library's model with
random weights (no download: weights=None, pretrained=False) and the inputs of one forward.

MODELS maps a name to (library, build): build() returns (model, args, kwargs), the model in eval
mode. Names are `<library>/<model>`. The library is the top-level package graphmend fixes.
"""
from __future__ import annotations

import torch


def _image(size=64, channels=3, batch=1):
    return torch.randn(batch, channels, size, size)


# torchvision -----------------------------------------------------------------------------------

def _tv_detection(name, **extra):
    def build():
        from torchvision.models import detection
        # 128-pixel images (min_size/max_size): the default 800 would take minutes per arm on CPU.
        model = getattr(detection, name)(weights=None, weights_backbone=None, min_size=128, max_size=128, **extra)
        return model, ([torch.rand(3, 128, 112)],), {}
    return build


def _tv_ssd(name, size):
    def build():
        from torchvision.models import detection
        return getattr(detection, name)(weights=None, weights_backbone=None), ([torch.rand(3, size, size)],), {}
    return build


def _tv(module, name, shape, **extra):
    def build():
        import torchvision.models as tvm
        builder = getattr(getattr(tvm, module) if module else tvm, name)
        kwargs = {"weights": None, **extra}
        if module == "segmentation":
            kwargs["weights_backbone"] = None
        return builder(**kwargs), (torch.randn(*shape),), {}
    return build


def _tv_raft():
    from torchvision.models.optical_flow import raft_small
    # 128 pixels: the correlation pyramid wants feature maps (an eighth of the image) of 16 or more.
    images = (torch.rand(1, 3, 128, 128), torch.rand(1, 3, 128, 128))
    return raft_small(weights=None), images, {"num_flow_updates": 3}


TORCHVISION = {
    "fasterrcnn_resnet50_fpn": _tv_detection("fasterrcnn_resnet50_fpn"),
    "fasterrcnn_mobilenet_v3_large_fpn": _tv_detection("fasterrcnn_mobilenet_v3_large_fpn"),
    "maskrcnn_resnet50_fpn": _tv_detection("maskrcnn_resnet50_fpn"),
    "keypointrcnn_resnet50_fpn": _tv_detection("keypointrcnn_resnet50_fpn"),
    "retinanet_resnet50_fpn": _tv_detection("retinanet_resnet50_fpn"),
    "fcos_resnet50_fpn": _tv_detection("fcos_resnet50_fpn"),
    "ssdlite320_mobilenet_v3_large": _tv_ssd("ssdlite320_mobilenet_v3_large", 320),
    "ssd300_vgg16": _tv_ssd("ssd300_vgg16", 300),
    "deeplabv3_resnet50": _tv("segmentation", "deeplabv3_resnet50", (1, 3, 64, 64)),
    "fcn_resnet50": _tv("segmentation", "fcn_resnet50", (1, 3, 64, 64)),
    "lraspp_mobilenet_v3_large": _tv("segmentation", "lraspp_mobilenet_v3_large", (1, 3, 64, 64)),
    "resnet18": _tv(None, "resnet18", (1, 3, 64, 64)),
    "mobilenet_v3_small": _tv(None, "mobilenet_v3_small", (1, 3, 64, 64)),
    "vit_b_16": _tv(None, "vit_b_16", (1, 3, 64, 64), image_size=64),
    "swin_t": _tv(None, "swin_t", (1, 3, 64, 64)),
    "efficientnet_b0": _tv(None, "efficientnet_b0", (1, 3, 64, 64)),
    "convnext_tiny": _tv(None, "convnext_tiny", (1, 3, 64, 64)),
    "regnet_y_400mf": _tv(None, "regnet_y_400mf", (1, 3, 64, 64)),
    "r3d_18": _tv("video", "r3d_18", (1, 3, 8, 64, 64)),
    "s3d": _tv("video", "s3d", (1, 3, 16, 224, 224)),
    "raft_small": _tv_raft,
}


# timm: one model per family -------------------------------------------------------------------

def _timm(name, size=224, **extra):
    def build():
        import timm
        return timm.create_model(name, pretrained=False, **extra), (_image(size),), {}
    return build


TIMM = {name: _timm(name, size, **extra) for name, size, extra in [
    ("resnet18", 64, {}), ("efficientnet_b0", 64, {}), ("vit_tiny_patch16_224", 64, {"img_size": 64}),
    ("deit_tiny_patch16_224", 64, {"img_size": 64}), ("swin_tiny_patch4_window7_224", 224, {}),
    ("convnext_atto", 64, {}), ("regnetx_002", 64, {}), ("mobilenetv3_small_050", 64, {}),
    ("levit_128s", 224, {}), ("beit_base_patch16_224", 64, {"img_size": 64}), ("coat_tiny", 224, {}),
    ("xcit_nano_12_p16_224", 64, {"img_size": 64}), ("cait_xxs24_224", 64, {"img_size": 64}),
    ("poolformer_s12", 64, {}), ("nfnet_l0", 64, {}), ("dla34", 64, {}), ("ghostnet_100", 64, {}),
    ("mixer_s16_224", 224, {}), ("crossvit_tiny_240", 240, {}), ("maxvit_tiny_tf_224", 224, {}),
    ("eva02_tiny_patch14_224", 224, {}),
]}


# diffusers, from small configurations -------------------------------------------------------------

def _unet2d():
    from diffusers import UNet2DModel
    model = UNet2DModel(sample_size=32, in_channels=3, out_channels=3, layers_per_block=1, block_out_channels=(32, 64),
                        down_block_types=("DownBlock2D", "AttnDownBlock2D"),
                        up_block_types=("AttnUpBlock2D", "UpBlock2D"), norm_num_groups=8)
    return model, (_image(32), torch.tensor([10])), {}


def _unet2d_condition():
    from diffusers import UNet2DConditionModel
    model = UNet2DConditionModel(sample_size=16, in_channels=4, out_channels=4, layers_per_block=1,
                                 block_out_channels=(32, 64), down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
                                 up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"), cross_attention_dim=32,
                                 attention_head_dim=8, norm_num_groups=8)
    return model, (_image(16, 4), torch.tensor([10])), {"encoder_hidden_states": torch.randn(1, 8, 32)}


def _autoencoder_kl():
    from diffusers import AutoencoderKL
    model = AutoencoderKL(block_out_channels=(32, 64), down_block_types=("DownEncoderBlock2D",) * 2,
                          up_block_types=("UpDecoderBlock2D",) * 2, latent_channels=4, norm_num_groups=8)
    return model, (_image(32),), {}


def _dit():
    from diffusers import DiTTransformer2DModel
    model = DiTTransformer2DModel(num_attention_heads=2, attention_head_dim=16, in_channels=4, num_layers=2,
                                  sample_size=8, patch_size=2, num_embeds_ada_norm=1000)
    return model, (_image(8, 4),), {"timestep": torch.tensor([10]), "class_labels": torch.tensor([1])}


def _sd3():
    from diffusers import SD3Transformer2DModel
    model = SD3Transformer2DModel(sample_size=16, patch_size=2, in_channels=4, num_layers=2, attention_head_dim=8,
                                  num_attention_heads=4, joint_attention_dim=32, caption_projection_dim=32,
                                  pooled_projection_dim=16, out_channels=4, pos_embed_max_size=32)
    return model, (_image(16, 4),), {"encoder_hidden_states": torch.randn(1, 8, 32),
                                     "pooled_projections": torch.randn(1, 16), "timestep": torch.tensor([10])}


def _flux():
    from diffusers import FluxTransformer2DModel
    model = FluxTransformer2DModel(patch_size=1, in_channels=16, num_layers=1, num_single_layers=1,
                                   attention_head_dim=16, num_attention_heads=2, joint_attention_dim=32,
                                   pooled_projection_dim=16, axes_dims_rope=(4, 4, 8))
    return model, (torch.randn(1, 16, 16),), {
        "encoder_hidden_states": torch.randn(1, 8, 32), "pooled_projections": torch.randn(1, 16),
        "timestep": torch.tensor([1.0]), "img_ids": torch.randint(0, 4, (16, 3)).float(),
        "txt_ids": torch.zeros(8, 3)}


def _transformer2d():
    from diffusers import Transformer2DModel
    model = Transformer2DModel(num_attention_heads=2, attention_head_dim=16, in_channels=32, num_layers=1,
                               norm_num_groups=8, cross_attention_dim=32)
    return model, (_image(8, 32),), {"encoder_hidden_states": torch.randn(1, 8, 32)}


DIFFUSERS = {"UNet2DModel": _unet2d, "UNet2DConditionModel": _unet2d_condition, "AutoencoderKL": _autoencoder_kl,
             "DiTTransformer2DModel": _dit, "SD3Transformer2DModel": _sd3, "FluxTransformer2DModel": _flux,
             "Transformer2DModel": _transformer2d}


# x-transformers ------------------------------------------------------------------------------------

def _xt_wrapper(layers):
    def build():
        import x_transformers
        attn = getattr(x_transformers, layers)(dim=64, depth=2, heads=4)
        model = x_transformers.TransformerWrapper(num_tokens=256, max_seq_len=64, attn_layers=attn)
        return model, (torch.randint(0, 256, (1, 16)),), {}
    return build


def _xt_continuous():
    from x_transformers import ContinuousTransformerWrapper, Encoder
    model = ContinuousTransformerWrapper(dim_in=16, dim_out=16, max_seq_len=64,
                                         attn_layers=Encoder(dim=64, depth=2, heads=4))
    return model, (torch.randn(1, 16, 16),), {}


def _xt_xtransformer():
    from x_transformers import XTransformer
    model = XTransformer(dim=64, enc_num_tokens=256, enc_depth=2, enc_heads=4, enc_max_seq_len=64,
                         dec_num_tokens=256, dec_depth=2, dec_heads=4, dec_max_seq_len=64, tie_token_emb=True)
    src = torch.randint(0, 256, (1, 16))
    return model, (src, torch.randint(0, 256, (1, 16))), {"mask": torch.ones(1, 16, dtype=torch.bool)}


X_TRANSFORMERS = {"TransformerWrapper-Decoder": _xt_wrapper("Decoder"),
                  "TransformerWrapper-Encoder": _xt_wrapper("Encoder"),
                  "ContinuousTransformerWrapper": _xt_continuous, "XTransformer": _xt_xtransformer}


# vector-quantize-pytorch -------------------------------------------------------------------------

def _vq(cls, shape, **config):
    def build():
        import vector_quantize_pytorch
        return getattr(vector_quantize_pytorch, cls)(**config), (torch.randn(*shape),), {}
    return build


VECTOR_QUANTIZE = {
    "VectorQuantize": _vq("VectorQuantize", (1, 16, 32), dim=32, codebook_size=64, decay=0.8),
    "ResidualVQ": _vq("ResidualVQ", (1, 16, 32), dim=32, num_quantizers=4, codebook_size=64),
    "FSQ": _vq("FSQ", (1, 16, 4), levels=[8, 5, 5, 5]),
    "LFQ": _vq("LFQ", (1, 16, 16), dim=16, codebook_size=16, entropy_loss_weight=0.1),
}


# In the order the census runs them: timm, the longest, last.
LIBRARIES = {"torchvision": TORCHVISION, "diffusers": DIFFUSERS, "x_transformers": X_TRANSFORMERS,
             "vector_quantize_pytorch": VECTOR_QUANTIZE, "timm": TIMM}
MODELS = {f"{library}/{name}": (library, build) for library, table in LIBRARIES.items()
          for name, build in table.items()}
