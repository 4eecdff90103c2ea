"""Cross-file: a helper in another module of the package."""
import torch


def announce(t: torch.Tensor):
    u = t * 5
    print("announce")
    return u - 1


def check_positive(t: torch.Tensor):
    v = t + 0.5
    if (v < 0).any():
        raise ValueError("negative")
    return v
