"""Report-only: data-dependent output shapes (GB0036). `repeat_interleave` with an int repeat count
has a static shape and breaks nothing. A mask stays a mask through `torch.BoolTensor | None`
annotations, `Optional[torch.BoolTensor]`, a comparison's `.to(<device>)` and layout methods."""
import torch


@torch.compile
def select(x: torch.Tensor):
    y = x + 1
    idx = torch.nonzero(y)
    y = y * 2
    kept = y[y > 1]
    y = y - 1
    uniq = torch.unique(y)
    y = y.abs()
    picked = torch.masked_select(y, y > 0.5)
    y = y + 2
    nz = y.nonzero()
    return idx, kept, uniq, picked, nz


@torch.compile
def counted(x: torch.Tensor):
    y = x.abs() * 3
    bins = torch.bincount(y.long())
    y = y + 1
    method_bins = y.long().bincount()
    y = y * 2
    where = torch.argwhere(y > 4)
    y = y - 1
    runs = torch.unique_consecutive(y.long())
    y = y + 2
    spread = y.repeat_interleave(y.long() % 3)
    y = y * 3
    doubled = y.repeat_interleave(2)
    y = y - 2
    return y, (bins, method_bins, where, runs, spread, doubled)


@torch.compile
def optional_masks(x: torch.Tensor, mask: torch.BoolTensor | None = None):
    y = x * 2
    if mask is None:
        picked = y
    else:
        mask = mask.to(y.device)
        picked = y[mask]
    y = y + 1
    eos = y.gt(2.5).to(y.device).unsqueeze(0)
    y = y * 3
    ends = y[None][eos]
    return y, picked, ends


def cases():
    return [
        (select, (torch.randn(6),)),
        (counted, (torch.randn(6),)),
        (optional_masks, (torch.randn(6), torch.tensor([True, False, True, True, False, True]))),
    ]
