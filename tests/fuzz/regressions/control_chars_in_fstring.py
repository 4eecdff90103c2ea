import torch
from torch import nn


class GuardInBranch(nn.Module):
    def forward(self, x: torch.Tensor, limit: torch.Tensor):
        h = x * 2
        if hnsum() > 0:  # GM101: fixed, with the guard predicated on this branch
            if (h > limit).any():  # GM301
                raise ValueError(f"values above the limit for {h.dim()}-d input")
            y = h + 1
        else:
            y = h - 1
        return y
