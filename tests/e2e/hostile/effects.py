"""Issue 45, defect 3, as hostile testing wrote it: [Defer] and [Trap] sites carrying Python ints
torch cannot hold (beyond int64)."""
import logging
import warnings

import torch

logger = logging.getLogger("difffuzz")
N = 2**70


def print_huge(x):
    print(x, 2**70)
    return x + 1


def log_huge(x):
    logger.warning("n=%d", N)
    return x + 1


def warn_huge(x):
    warnings.warn(f"n={N}")
    return x + 1


def guard_huge(x):
    if x.sum() > 100:
        raise ValueError(f"n={N}")
    return x + 1


def size_times_huge(x):
    print(x.shape[0] * 2**62)
    return x + 1


FUNCTIONS = ["print_huge", "log_huge", "warn_huge", "guard_huge", "size_times_huge"]
EAGER_ONLY = []
EAGER_REFERENCE = []
print_huge_compiled = torch.compile(print_huge)
log_huge_compiled = torch.compile(log_huge)
warn_huge_compiled = torch.compile(warn_huge)
guard_huge_compiled = torch.compile(guard_huge)
size_times_huge_compiled = torch.compile(size_times_huge)


def cases():
    inputs = [(torch.ones(3),), (torch.full((3,), 50.0),)]
    return {name: inputs for name in FUNCTIONS}
