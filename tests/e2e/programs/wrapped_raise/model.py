import torch
from torch import nn

from .capturing import capture_outputs, caught, hooked, logged_calls


class Stack(nn.Module):
    """SwitchTransformers' stack: a mask made only in eager code, then indexed."""

    @capture_outputs
    def forward(self, h, mask=None):
        if mask is None and not torch.compiler.is_compiling():
            mask = torch.ones(h.shape[0], h.shape[1])
        extended = mask[:, None, :]  # expect: GM414 reported -- None[...] raises TypeError
        return h * extended.sum()


class Plain(nn.Module):
    @logged_calls
    def forward(self, h, mask=None):
        if mask is None and not torch.compiler.is_compiling():
            mask = torch.ones(h.shape[0], h.shape[1])
        extended = mask[:, None, :]  # expect: GM414 reported
        return h * extended.sum()


class Sound(nn.Module):
    """A wrapped forward that does not raise: nothing passes the `finally`."""

    @capture_outputs
    def forward(self, h, mask=None):
        if mask is None:
            mask = torch.ones(h.shape[0], h.shape[1])
        return h * mask[:, None, :].sum()


class Caught(nn.Module):
    @caught
    def forward(self, h, mask=None):
        if mask is None and not torch.compiler.is_compiling():
            mask = torch.ones(h.shape[0], h.shape[1])
        extended = mask[:, None, :]  # expect: GM414 reported
        return h * extended.sum()


class Hooked(nn.Module):
    @hooked(list)
    def forward(self, h, mask=None):
        if mask is None and not torch.compiler.is_compiling():
            mask = torch.ones(h.shape[0], h.shape[1])
        extended = mask[:, None, :]  # expect: GM414 reported
        return h * extended.sum()


def log_cases():
    h = torch.randn(2, 3, 4)
    return [(Stack(), (h,)), (Plain(), (h,)), (Sound(), (h,)), (Caught(), (h,)), (Hooked(), (h,))]
