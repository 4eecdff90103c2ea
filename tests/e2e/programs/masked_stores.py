"""Report-only: a boolean-mask store keeps the shape, a boolean-mask read does not (GB0036).

Dynamo traces `x[mask] = value` as one index_put_ with the mask, whatever value broadcasts to
the selected elements: no break. Reading `x[mask]`, alone or through `x[mask] += v`, calls
nonzero and splits the graph.
"""
import torch


@torch.compile
def stores(x: torch.Tensor, row: torch.Tensor, flags: torch.Tensor):
    mask = flags > 0
    out = x.clone()
    out[mask] = 0.0
    out[mask] = row.to(out.dtype)
    other = x.clone()
    out[mask], other[mask] = 1.5, row.sum()
    [out[mask], other[mask]] = 2.5, 3.5
    out[mask] = other[mask] = -1.0
    out[1:][mask[1:]] = float("-inf")
    out = out * 2
    return out, other


@torch.compile
def reads(x: torch.Tensor, flags: torch.Tensor):
    mask = flags > 0
    out = x.clone()
    out[mask] += 1
    out = out * 2
    out[mask] = x[mask] * 3
    out = out - 1
    kept = out[mask][0]
    return out, kept


def cases():
    x = torch.randn(4, 3)
    flags = torch.tensor([1, 0, 1, 1])
    return [(stores, (x, torch.randn(3), flags)), (reads, (x, flags))]
