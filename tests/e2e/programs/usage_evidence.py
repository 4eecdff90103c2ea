"""Unannotated parameters typed by their uses (issue 16, item 4): a parameter that a statement
of the body calls a Tensor-only method on, on every call that gets that far (directly in the
body, before any return, outside any condition), is a tensor wherever else it is read. A use that
may not run (under an `if`, after an early return) is no evidence."""
import torch
import torch.nn as nn


class UsedAsTensor(nn.Module):
    def forward(self, x):
        y = x.abs()  # no Python number has .abs(): x is a tensor
        if x.sum() > 0:  # breaks (a tensor method: typed before this change too)
            y = y + 1
        if x > 0:  # breaks: x is a tensor by its use above
            y = y * 2
        return y


class UsedAfterTheCondition(nn.Module):
    def forward(self, x, bias):
        scaled = x * 2
        bias.clamp(min=0)  # bias's only use, on every call: a tensor
        if bias > 1:  # breaks
            scaled = scaled - 1
        return scaled


class UsedOnlyUnderACheck(nn.Module):
    def forward(self, x, k):
        if isinstance(k, torch.Tensor):
            x = x * k.abs()  # a use under a condition: no evidence
        if k > 1:  # k is a Python float in these cases: no break
            x = x + 1
        return x


class UsedAfterAnEarlyReturn(nn.Module):
    def forward(self, x, s):
        if s > 3:  # s is an int that returns early: no break
            return x
        return x * s.abs()


class RebindsBeforeTheUse(nn.Module):
    def forward(self, x, n):
        if n > 2:  # n is an int: no break
            x = x + 1
        n = torch.as_tensor(n)
        n.abs()  # reads the binding above, not the parameter: no evidence for `n > 2`
        return x * n


def cases():
    # Each module compiled on its own: no compiled caller passes these parameters anything, so
    # only their uses type them.
    one, minus = torch.tensor(1.5), torch.tensor(-1.5)
    return [
        (UsedAsTensor(), (one,)), (UsedAsTensor(), (minus,)),
        (UsedAfterTheCondition(), (torch.ones(3), torch.tensor(2.0))),
        (UsedAfterTheCondition(), (torch.ones(3), torch.tensor(0.5))),
        (UsedOnlyUnderACheck(), (torch.ones(3), 2.0)), (UsedOnlyUnderACheck(), (torch.ones(3), 0.5)),
        (UsedAfterAnEarlyReturn(), (torch.ones(3), 5)),
        (RebindsBeforeTheUse(), (torch.ones(3), 3)), (RebindsBeforeTheUse(), (torch.ones(3), 1)),
    ]
