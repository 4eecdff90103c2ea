"""A small transformer block with the graph breaks real models have."""
import logging
import warnings

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        if not mask.any():
            raise ValueError("attention mask masks every position")
        scores = q @ k.transpose(-1, -2) / (d ** 0.5)
        scores = scores.masked_fill(~mask[:, None, :], float("-inf"))
        return self.out(scores.softmax(-1) @ v)


class Block(nn.Module):
    def __init__(self, dim: int = 32, heads: int = 4):
        super().__init__()
        self.attn = Attention(dim, heads)
        self.norm = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        if x.shape[1] > 512:
            logger.warning("sequence of length %d is longer than the trained context", x.shape[1])
        h = x + self.attn(self.norm(x), mask)
        if h.dtype == torch.float16 and (torch.isinf(h).any() or torch.isnan(h).any()):
            clamp = torch.finfo(h.dtype).max - 1000
            h = torch.clamp(h, min=-clamp, max=clamp)
        out = h + self.mlp(self.norm(h))
        scale = out.abs().max().item()
        if scale > 1e4:
            warnings.warn("activations are large", RuntimeWarning)
        return out


if __name__ == "__main__":
    model = torch.compile(Block())
    x = torch.randn(2, 16, 32)
    print(model(x, torch.ones(2, 16, dtype=torch.bool)).shape)
