"""Compile by `module.compile()`: forward and the helpers it calls are compiled code."""
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = nn.Linear(4, 2)

    def forward(self, x):
        y = self.out(x)
        return self.finish(y)

    def finish(self, y):
        z = y.softmax(-1)
        print("finished")
        return z


head = Head()
head.compile()


def cases():
    return [(Head(), (torch.randn(3, 4),))]
