"""`.item()` values used only as the number in arithmetic with the tensor they were taken from
(GM401 keeps them tensors: `.detach().nan_to_num(...)` in place of `.item()`).
tests/e2e/test_item_tensor.py runs it original against fixed."""
import torch
from torch import nn


class Normalize(nn.Module):
    def forward(self, x: torch.Tensor):
        scale = x.abs().amax().item()
        return x / scale


class Shift(nn.Module):
    def forward(self, x: torch.Tensor):
        peak = x.amax().item()
        return x + peak, x / peak


class Scale(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        low = x.amin().item()
        if flag:
            return x * low
        return low * x
