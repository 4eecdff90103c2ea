"""[Defer] print in a helper reached from compiled code; an unreached helper is not compiled."""
import torch


def report(t):
    s = t * 3
    print("report")
    return s - 1


def never_compiled(t):
    print("eager only")
    if t.sum() > 0:
        return t
    return -t


def run(x):
    y = x.sin() + 1
    return report(y)


fast = torch.compile(run)


def cases():
    return [(run, (torch.randn(4),))]
