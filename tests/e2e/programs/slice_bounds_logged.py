"""Breaks `torch._dynamo.explain` does not show at their line, so test_slice_bounds.py reads
Dynamo's graph-break log instead (as the census does):

- a slice bound that is an input of the compiled function (an argument, a buffer): Dynamo cannot
  handle the break at all and runs the whole function eagerly (no graph);
- a break inside a loop: `explain` names the loop's header (or nothing), the log names the line.

Each function has one site; `log_cases()` lists the calls."""
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
def block_mask(x: torch.Tensor, lengths):
    """Pixtral's block-diagonal mask: bounds unpacked from `zip` of two tensors."""
    mask = torch.full((x.shape[0], x.shape[0]), fill_value=-1.0)
    ends = torch.tensor(lengths).cumsum(-1)
    starts = torch.tensor([0] + lengths[:-1]).cumsum(-1)
    for start, end in zip(starts, ends):
        mask[start:end, start:end] = 0
    return x + mask


@torch.compile
def repeat_by_durations(embeddings: torch.Tensor, durations: torch.Tensor):
    """FastSpeech2-Conformer's length regulator: a loop over `enumerate(zip(...))` of two tensors,
    each step repeating rows by a data count (GM404; the targets are typed through the nested
    pattern)."""
    out = torch.zeros(embeddings.shape[0], 8, embeddings.shape[-1])
    for i, (embedding, duration) in enumerate(zip(embeddings, durations)):
        repeated = torch.repeat_interleave(embedding, duration, dim=0)
        out[i, : repeated.size(0)] = repeated
    return out


@torch.compile
def padding_choice(x: torch.Tensor, rows: list):
    """ViLT's patch sampling: a list comprehension of tensors, unpacked from `zip` in a loop, then a
    branch on an element (GM101)."""
    longest = (x > 0).sum()
    counts = [row.size(0) for row in rows]
    pads = [longest - count for count in counts]
    chosen = []
    for i, (count, pad) in enumerate(zip(counts, pads)):
        if pad <= 0:
            chosen.append(x[:count])
        else:
            chosen.append(x)
    return torch.cat(chosen)


def log_cases():
    x = torch.randn(10, 4)
    return [
        (input_bound, (x, torch.tensor(3))),
        (BufferBound(), (x,)),
        (experts_loop, (x, torch.randn(3, 4, 5))),
        (block_mask, (torch.randn(10, 10), [3, 3, 4])),
        (padding_choice, (torch.randn(10, 4), [torch.randn(3), torch.randn(12)])),
        (repeat_by_durations, (torch.randn(2, 3, 4), torch.tensor([[1, 2, 1], [2, 2, 2]]))),
    ]
