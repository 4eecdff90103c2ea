"""GM416: a buffer made with `nn.Buffer(...)` stored back into its module from a tensor method
that returns it unchanged (`self.b = self.b.to(x.dtype)` when it is already of that dtype).
Module.__setattr__ then sees a Buffer, reads its `persistent` flag and re-registers it; Dynamo
cannot read that flag ("Unsupported python_type() call", logged inside torch's module.py; the
program's line is the innermost frame of user code). A store's annotation says whether it breaks
so (`GM416 reported`, which the golden fixture tests/fixtures/GM416 checks too); `log_cases()`
lists the modules, and test_buffer_reassignment.py compares Dynamo's graph-break log with them
and with graphmend's findings."""
import torch
from torch import nn


class PositionalBuffer(nn.Module):
    """CTRL's encoder in transformers 5.24: the buffer is moved to the input's device and dtype in
    forward, and stored back."""

    def __init__(self):
        super().__init__()
        self.pos_encoding = nn.Buffer(torch.arange(12.0).view(4, 3), persistent=False)

    def forward(self, x):
        self.pos_encoding = self.pos_encoding.to(device=x.device, dtype=x.dtype)  # expect: GM416 reported
        return x + self.pos_encoding


class Conversions(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", nn.Buffer(torch.ones(3)))
        self.half_scale = nn.Buffer(torch.ones(3, dtype=torch.float16))
        self.steps = torch.nn.Buffer(torch.arange(3))

    def forward(self, x):
        self.scale = self.scale.float()  # expect: GM416 reported -- a Buffer given to register_buffer
        self.scale = self.scale.contiguous()  # expect: GM416 reported
        self.scale = (self.scale.type_as(x))  # expect: GM416 reported
        self.scale = torch.as_tensor(self.scale)  # expect: GM416 reported
        self.scale = self.scale.cpu()  # expect: GM416 reported
        self.scale = self.scale.type(torch.float32)  # expect: GM416 reported
        self.half_scale = self.half_scale.half()  # expect: GM416 reported
        self.steps = self.steps.long()  # expect: GM416 reported
        self.last_scale = self.scale.to(x.dtype)  # expect: GM416 reported -- any attribute it is stored in
        return x * self.scale + self.half_scale + self.steps + self.last_scale


class Base(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Buffer(torch.ones(3))


class Derived(Base):
    def forward(self, x):
        self.table = self.table.to(x.device)  # expect: GM416 reported -- made in the base class
        return x + self.table


class NotAFlaggedBuffer(nn.Module):
    """None of these breaks: a buffer registered from a plain tensor, a plain tensor attribute, a
    conversion kept in a local, and methods that return a new tensor object."""

    def __init__(self):
        super().__init__()
        self.register_buffer("plain", torch.ones(3), persistent=False)
        self.attribute = torch.ones(3)
        self.flagged = nn.Buffer(torch.ones(3))

    def forward(self, x):
        self.plain = self.plain.to(device=x.device, dtype=x.dtype)
        self.attribute = self.attribute.to(x.dtype)
        flagged = self.flagged.to(x.dtype)
        self.flagged = self.flagged.detach()
        self.flagged = self.flagged.clone()
        self.flagged = self.flagged.view(-1)
        return x + self.plain + self.attribute + flagged + self.flagged


class ConvertedOnlyWhenItDiffers(nn.Module):
    """ESMFold's `af2_idx_to_esm_idx`: the store runs only when the conversion makes a new tensor."""

    def __init__(self):
        super().__init__()
        self.table = nn.Buffer(torch.ones(3))

    def forward(self, x):
        if self.table.device != x.device:
            self.table = self.table.to(x.device)
        if self.table.dtype != x.dtype:
            self.table = self.table.to(x.dtype)
        return x + self.table


class AlwaysANewTensor(nn.Module):
    """None of these breaks either: a copy asked for, a guard spelled `is not`, the `else` of an
    equality test, and a subclass that registers the buffer again from a plain tensor."""

    def __init__(self):
        super().__init__()
        self.table = nn.Buffer(torch.ones(3))

    def forward(self, x):
        self.table = self.table.to(x.dtype, copy=True)
        if self.table.dtype is not x.dtype:
            self.table = self.table.to(x.dtype)
        if self.table.device == x.device:
            pass
        else:
            self.table = self.table.to(x.device)
        return x + self.table


class RegisteredAgain(Base):
    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.ones(3), persistent=False)

    def forward(self, x):
        self.table = self.table.to(x.device)
        return x + self.table


def log_cases():
    x = torch.randn(4, 3)
    return [
        (PositionalBuffer(), (x,)),
        (Conversions(), (x,)),
        (Derived(), (x,)),
        (NotAFlaggedBuffer(), (x,)),
        (ConvertedOnlyWhenItDiffers(), (x,)),
        (ConvertedOnlyWhenItDiffers(), (x.double(),)),
        (AlwaysANewTensor(), (x,)),
        (RegisteredAgain(), (x,)),
    ]
