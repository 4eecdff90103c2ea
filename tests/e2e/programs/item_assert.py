"""Asserts on a `.item()` value (GM401's [Trap] form): compared with a parameter, a local and a
literal, the value's own truth, float and integer tensors. test_item_assert.py runs each
original and patched, eager and compiled, on inputs that pass and that fail every assert.
"""
import torch
from torch import nn


class Lengths(nn.Module):
    """xlm's `get_masks`: integer lengths against the sequence length (a parameter)."""

    def forward(self, x, lengths, slen: int):
        assert lengths.max().item() <= slen
        return x[:, :slen] * 2


class Floats(nn.Module):
    """A float32 value against a local, a literal with a message, and a truth test."""

    def forward(self, x):
        bound = x.shape[0] * 10
        assert x.abs().max().item() < bound, "activations out of range"
        assert x.sum().item() != -1.5
        assert (x > -100).all().item(), "values must exceed -100"
        return x + 1


class Half(nn.Module):
    """float16 against 65504.5: exact in float64, rounds in float16 (to 65504)."""

    def forward(self, x):
        assert x.max().item() < 65504.5, "too large"
        return x * 2
