"""GM412 where `torch._dynamo.explain` does not show the break at its line, so test_slice_bounds.py
reads Dynamo's graph-break log instead (as the census does):

- a bound that is an input of the compiled function (an argument, a buffer): Dynamo cannot
  handle the break at all and runs the whole function eagerly (no graph);
- a slice inside a loop: `explain` names the loop's header, the log names the slice.

Each function has one site (Pixtral's block mask, unpacked from `zip` of tensors, too); `log_cases()` lists the calls."""
import torch
from torch import nn


@torch.compile
def input_bound(x: torch.Tensor, n: torch.Tensor):
    y = x * 2
    return y[:n] + 1


class BufferBound(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("length", torch.tensor(3))

    def forward(self, x: torch.Tensor):
        y = x * 2
        return y[: self.length] + 1


@torch.compile
def experts_loop(x: torch.Tensor, weights: torch.Tensor):
    counts = torch.tensor([3, 4, 3])
    offsets = torch.cat((torch.zeros(1, dtype=torch.long), torch.cumsum(counts, dim=0)))
    out = torch.zeros(x.shape[0], weights.shape[-1])
    for e in range(weights.shape[0]):
        start = offsets[e]
        end = offsets[e + 1]
        tokens = x[start:end]
        out[start:end] = tokens @ weights[e]
    return out


@torch.compile
def block_mask(x: torch.Tensor, lengths: list[int]):
    """Pixtral's block-diagonal mask: bounds unpacked from `zip` of two tensors."""
    mask = torch.full((x.shape[0], x.shape[0]), fill_value=-1.0)
    ends = torch.tensor(lengths).cumsum(-1)
    starts = torch.tensor([0] + lengths[:-1]).cumsum(-1)
    for start, end in zip(starts, ends):
        mask[start:end, start:end] = 0
    return x + mask


def log_cases():
    x = torch.randn(10, 4)
    return [
        (input_bound, (x, torch.tensor(3))),
        (BufferBound(), (x,)),
        (experts_loop, (x, torch.randn(3, 4, 5))),
        (block_mask, (torch.randn(10, 10), [3, 3, 4])),
    ]
