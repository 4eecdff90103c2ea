"""GM414: defaults that only eager code makes (`if x is None and not torch.compiler.is_compiling():`),
and the uses that then meet None under torch.compile. Dynamo traces the exception, finds no handler
and gives up the frame ("Observed exception", logged at the line that raises). A use's annotation
says whether it breaks (`GM414 reported`, which the golden fixture tests/fixtures/GM414 checks too);
`log_cases()` lists the calls, and test_none_while_compiling.py compares Dynamo's graph-break log
with them and with graphmend's findings."""
import torch


@torch.compile
def subscript_mask(h, mask=None):
    """SwitchTransformers' stack: the mask made only in eager code, then indexed."""
    if mask is None and not torch.compiler.is_compiling():
        mask = torch.ones(h.shape[0], h.shape[1])
    extended = mask[:, None, :]  # expect: GM414 reported -- None[...] raises TypeError
    return h * extended.sum()


def _split_into_blocks(x, block_len):
    if x.shape[1] % block_len != 0:  # expect: GM414 reported -- None.shape, two calls deep
        x = x[:, : x.shape[1] // block_len * block_len]
    return x.reshape(x.shape[0], -1, block_len)


def _local_mask(mask, block_len):
    blocked = _split_into_blocks(mask, block_len)
    return blocked.flatten(1)


@torch.compile
def mask_passed_down(h, mask=None):
    """LongT5's stack: the mask passed on to a helper that passes it on again."""
    if mask is None and not torch.compiler.is_compiling():
        mask = torch.ones(h.shape[0], h.shape[1])
    local = _local_mask(mask, 2)
    return h.sum(-1) * local


@torch.compile
def method_call(h, scale=None):
    if not torch.compiler.is_compiling() and scale is None:
        scale = torch.tensor(2.0)
    return h * scale.to(h.dtype)  # expect: GM414 reported -- None.to raises AttributeError


@torch.compile
def first_use_only(h, mask=None):
    if mask is None and not torch.compiler.is_compiling():
        mask = torch.ones(h.shape[0], h.shape[1])
    rows = mask.shape[0]  # expect: GM414 reported -- the first use raises
    return h[:rows] * mask[0][:, None]


@torch.compile
def guarded_use(h, mask=None):
    if mask is None and not torch.compiler.is_compiling():
        mask = torch.ones(h.shape[0], h.shape[1])
    if mask is not None:
        h = h * mask[:, :, None]
    return h + 1


@torch.compile
def returns_early(h, mask=None):
    if mask is None and not torch.compiler.is_compiling():
        mask = torch.ones(h.shape[0], h.shape[1])
    if mask is None:
        return h
    return h * mask[:, :, None]


@torch.compile
def caught(h, mask=None):
    if mask is None and not torch.compiler.is_compiling():
        mask = torch.ones(h.shape[0], h.shape[1])
    try:
        extended = mask[:, :, None]
    except TypeError:
        extended = torch.ones_like(h)
    return h * extended


@torch.compile
def default_made_everywhere(h, mask=None):
    if mask is None:
        mask = torch.ones(h.shape[0], h.shape[1])
    return h * mask[:, :, None]


@torch.compile
def no_none_default(h, mask):
    if mask is None and not torch.compiler.is_compiling():
        mask = torch.ones(h.shape[0], h.shape[1])
    return h * mask[:, :, None]


@torch.compile
def rebound_first(h, mask=None):
    if mask is None and not torch.compiler.is_compiling():
        mask = torch.ones(h.shape[0], h.shape[1])
    mask = torch.ones(h.shape[0], h.shape[1]) if mask is None else mask
    return h * mask[:, :, None]


def log_cases():
    h = torch.randn(2, 4, 3)
    mask = torch.ones(2, 4)
    return [
        (subscript_mask, (h,)),
        (mask_passed_down, (h,)),
        (method_call, (h,)),
        (first_use_only, (h,)),
        (guarded_use, (h,)),
        (returns_early, (h,)),
        (caught, (h,)),
        (default_made_everywhere, (h,)),
        (no_none_default, (h, mask)),
        (rebound_first, (h,)),
    ]
