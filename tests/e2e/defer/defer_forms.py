"""[Defer] forms: print, logger methods, logging functions and warnings.warn in compiled code.

Each case names how it is compiled; test_defer.py runs the original and the graphmend-patched
copy side by side and compares every emitted byte, record and warning.
"""
import functools
import logging
import sys
import warnings
from warnings import warn

import torch
from torch import nn

logger = logging.getLogger("defer_forms")


def _warning_once(self, *args, **kwargs):
    """transformers' Logger.warning_once: the same message is logged once per process."""
    self.warning(*args, **kwargs)


logging.Logger.warning_once = functools.lru_cache(None)(_warning_once)


class Printer(nn.Module):
    def forward(self, x, n: int):
        y = x * 2
        print("y:", y, n)
        print("sep/end", y.sum(), sep=" | ", end="!\n")
        print(f"mean={y.mean():.4f} shape={y.shape} dtype={y.dtype} {n!r:>4}", file=sys.stderr)
        print("consts", 1.5, None, True, -3, "a{b}c", flush=True)
        z = y + 1
        print("before mutation", y)
        y.add_(10)
        print("after mutation", y)
        print()
        print(y.shape, y.dtype, y[0], y.int(), y > 11, file=sys.stdout)
        return z + y


class Logs(nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        logger.debug("debug %s", y)
        logger.info("info %d", 3)
        logger.warning("warn %s %s", y.sum(), "txt")
        logger.error("err")
        logger.critical("crit %.2f", 1.25)
        logger.log(logging.WARNING, "log %s", y.shape)
        logger.warning_once("once only")
        logger.info("stacklevel", stacklevel=2)
        logging.warning("module-level %s", 7)
        logging.info("module info")
        return y * 3


class Warns(nn.Module):
    def forward(self, x):
        y = x.sin()
        warnings.warn("plain")
        warnings.warn(f"shape {y.shape} first {y[0]}", FutureWarning)
        warnings.warn("keywords", category=DeprecationWarning, stacklevel=2)
        warnings.warn("positional stacklevel", RuntimeWarning, 2)
        return y + 1


class WarnsInner(nn.Module):
    def forward(self, x):
        warnings.warn(
            "inner, written over lines",
            FutureWarning,
        )
        return x - 1


class WarnsAtSite(nn.Module):
    """Warnings with a constant message and a named category: issued from the site's own line,
    compiled as eagerly, so the registry, the filters and the text shown are eager's. `warn` is
    warnings.warn imported by name."""

    def __init__(self):
        super().__init__()
        self.inner = WarnsInner()

    def forward(self, x):
        y = x.sin()
        warnings.warn("plain")
        warnings.warn(f"{type(self).__name__} works in {y.dtype}", DeprecationWarning)
        warnings.warn("same text", RuntimeWarning)
        warnings.warn("same text", RuntimeWarning)
        warn("imported by name", UserWarning)
        return self.inner(y)


class Config:
    attn_implementation = "sdpa"
    max_positions = 64
    torch_dtype = torch.float32
    pre_quantization_dtype = torch.float16


class ConstantValues(nn.Module):
    """f-strings whose values Dynamo holds as constants (dtypes, the configuration, a class's name):
    deferred as written, formatted while tracing, without a helper."""

    def __init__(self, mode):
        super().__init__()
        self.config = Config()
        self.mode = mode
        self.register_buffer("scale", torch.full((4,), 0.5))

    def forward(self, x):
        if self.mode == 0:
            target_dtype = self.scale.dtype
        elif self.mode == 1:
            target_dtype = self.config.pre_quantization_dtype
        else:
            target_dtype = torch.get_default_dtype()
        logger.warning_once(f"{self.__class__.__name__} casts back to {target_dtype}")
        logger.warning(f"{self.config.attn_implementation!r} attention in {self.config.torch_dtype}")
        logger.warning(f"{self.config.max_positions} positions")  # a number: formatted by a helper
        print(f"{x.dtype}", target_dtype)
        return (x * self.scale).to(target_dtype)


class InLoop(nn.Module):
    def forward(self, x):
        total = x
        for step in range(3):
            total = total + step
            print("step", step, total)
            logger.warning("step %d", step)
        return total


def plain_function(x):
    y = x.cos()
    print("fn", y)
    logger.warning("fn %s", y.sum())
    return y * y


compiled_function = torch.compile(plain_function, fullgraph=True)  # torch.compile(fn) marks it compiled


@torch.compile(backend="aot_eager", fullgraph=True)
def decorated(x):
    y = x.exp()
    print("decorated", y)
    return y - 1


def cases():
    """(name, how it is compiled, the uncompiled callable or module, inputs)."""
    x = torch.arange(4, dtype=torch.float32) - 1.5
    return [
        ("print/torch.compile(module)", "compile(module)", Printer(), (x, 3)),
        ("print/module.compile()", "module.compile()", Printer(), (x, 5)),
        ("logging", "compile(module)", Logs(), (x,)),
        ("warnings", "compile(module)", Warns(), (x,)),
        ("warnings at their site", "compile(module)", WarnsAtSite(), (x,)),
        ("loop", "compile(module)", InLoop(), (x,)),
        *[(f"constant values/{mode}", "compile(module)", ConstantValues(mode), (x,)) for mode in range(3)],
        ("function", "compile(fn)", plain_function, (x,)),
        ("decorated", "decorator", decorated, (x,)),
    ]
