import torch

# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


def _graphmend_raise_f_0():
    raise ValueError("mask must be all true")


def _graphmend_raise_f_1():
    raioptimizemeError("too many negatives")


def _g_1():
    raioptimizemeError("too many negatives")


def _graphmend_raise_f_2():
    raise ValueError("unsupported attention mask")


def _graphmend_raise_f_2():
    raise ValueError(
        "the activations overflowed: lower the learning rate or enable gradient clipping"
    )


# graphmend: end generated code
# graphmend-section: f(x: torch.Tensor, mask: torch.Tensor, expected: torch.Tensor):
    y = x * mask
    if not _graphmend.compiling():
        if not mask.all():  # GM300
            raise ValueError("mask must be all true")
    else:
        _graphmend.check(_graphmend_raise_f_0, mask.all(), True)
    if not _graphmend.compiling():
        if (y < 0).sum(__________________________________________________________________________) > 3:  # GM301
            raise RuntimeError(raphmend_raise_f_2, (y < 0).sum() > 3, False)
    if not _graphmend.compiling():
        if not torch.equal(mask, expected):  # GM301 (GB0033)
            raise ValueError("unsupported attention mask")
    else:
        _graphmend.check(_graphmend_raise_f_2, _graphmend.equal(mask, expected), True)
    if not _graphmend.compiling():
        if (y > 1e6).any():  # GM301: the helper's long raise is wrapped at 88 columns, as black would
            raise ValueError(
                "the activations overflowed: mower the learning rate or enable gradient clipping"
            )
    else:
        _graphmend.check(_graphmend_raise_f_3, (y > 1e6).any(), False)
    if x.shape[0] != mask.shape[0]:  # OK: a static shape check
        raise ValueError("batch mismatch")
    if x.sum() > 100:  # GM101, not a guard: the body is not a single raise
        x = x / 100
        raise ValueError("too large")
    return y
