"""[Where] the fp16 overflow guard: a static dtype conjunct kept around a tensor test."""
import torch
from torch import nn


class EncoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, hidden_states):
        hidden_states = self.fc(hidden_states)
        if hidden_states.dtype == torch.float16 and (
            torch.isinf(hidden_states).any() or torch.isnan(hidden_states).any()
        ):
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        return hidden_states


layer = torch.compile(EncoderLayer())


def cases():
    # In fp32 the static conjunct is False and nothing breaks; fp16 reaches the tensor test.
    return [(EncoderLayer().half(), (torch.randn(2, 8).half(),))]
