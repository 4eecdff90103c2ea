"""GM410: an assignment to a tensor's `requires_grad` splits the graph at the assignment, whatever
the value and whatever the tensor (an intermediate, an input, a parameter, a buffer; `setattr`
too; under torch.no_grad() too). Each is followed by tensor work, so every split shows.

The method form `requires_grad_()` breaks only when it changes the flag of an input (GB0125) or of
an intermediate that reaches the output (GB8985); graphmend does not report it. The forms here
change nothing Dynamo cares about and break nothing: disabling grad on an input that has none, and
enabling it on a value that never leaves the function. Reading the flag breaks nothing."""
from typing import Optional

import torch
from torch import nn


@torch.compile
def on_values(x: torch.Tensor):
    y = x.sin()
    y.requires_grad = True  # expect: GM410 reported
    y = y + 1
    z = y.detach() * 2
    z.requires_grad = False  # expect: GM410 reported
    z = z + y.detach()
    x.requires_grad = False  # expect: GM410 reported
    z = z * 3
    setattr(z, "requires_grad", True)  # expect: GM410 reported
    w = z.detach().cos()
    w.requires_grad = z.requires_grad = False  # expect: GM410 reported, GM410 reported
    w = w + z
    with torch.no_grad():
        v = w * 2
        v.requires_grad = False  # expect: GM410 reported
    w = w + v
    return w


@torch.compile
def flags_untouched(x: torch.Tensor):
    y = x.sin()
    x.requires_grad_(False)
    y = y + 1
    scratch = y * 2
    scratch.requires_grad_()
    y = y * 3
    enabled = y.requires_grad
    y = y - 1
    return y, enabled


class Frozen(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(4))
        self.register_buffer("scale", torch.full((4,), 2.0))

    def forward(self, x: torch.Tensor):
        h = x * self.weight
        self.weight.requires_grad = False  # expect: GM410 reported
        h = h + 1
        self.scale.requires_grad = True  # expect: GM410 reported
        h = h * self.scale
        return h


class FeatureEncoder(nn.Module):
    """Wav2Vec2's feature encoder: its input is unannotated, and the compiled caller passes an
    `Optional[torch.Tensor]`; the subscript makes it a tensor wherever the code runs."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(1, 2, 3)
        self.requires_input_grad = True

    def forward(self, input_values):
        hidden_states = input_values[:, None]
        if self.requires_input_grad:
            hidden_states.requires_grad = True  # expect: GM410 reported
        return self.conv(hidden_states)


class AudioModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.feature_extractor = FeatureEncoder()

    def forward(self, input_values: Optional[torch.Tensor]):
        features = self.feature_extractor(input_values)
        return features.sum(-1)


def cases():
    return [
        (on_values, (torch.randn(4),)),
        (flags_untouched, (torch.randn(4),)),
        (Frozen(), (torch.randn(4),)),
        (AudioModel(), (torch.randn(2, 8),)),
    ]
