"""A model that shares a submodule between two paths (as encoder-decoder models share their
embedding), with a BART-style fp16 overflow guard after a LayerNorm (test_export.py). Sharing
makes non-strict torch.export reach submodules through proxy objects, whose class is not the
module's own; the patched guard must still export."""
import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.final_layer_norm = nn.LayerNorm(4)

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        hidden_states = self.final_layer_norm(self.proj(hidden_states))
        if hidden_states.dtype == torch.float16 and (
            torch.isinf(hidden_states).any() or torch.isnan(hidden_states).any()
        ):
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        return hidden_states


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.shared = nn.Embedding(10, 4)
        self.encoder_embed = self.shared
        self.layer = Layer()

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.layer(self.encoder_embed(ids) + self.shared(ids))


def overflowing(model: Model) -> Model:
    """With torch.manual_seed(2) weights and a large LayerNorm scale on one channel, inputs()[0]
    overflows float16 (the guard's branch runs) and inputs()[1] does not."""
    with torch.no_grad():
        model.layer.final_layer_norm.weight[3] = 60000
    return model


def inputs():
    return [torch.tensor([[0, 1, 2]]), torch.tensor([[5, 6, 7]])]
