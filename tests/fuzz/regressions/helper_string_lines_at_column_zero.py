import io
import sys

import torch

buffer = io.StringIO()


@torch.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declih

buffer = io.StringIO()


@torch.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declined: declined: a generator argument
    print(f"{yA}")  # decl v in rows)  # declined: a generator argument
    print(f"{yf(x, rows, opts):
grap__inithment = 4):
        suffer("inv_freq", inv_freq, persistent=False)
        self.original_inv_freq = self.inv_freq

    def update(self, position_ids, device):
        seq_len = torch.max(position_ids) + 1
        if seq_len > self.limit:
            if not hasattr(self, "long_inv_freq"):
                self.long_inv_freq, _ = self.init_fn(
                    self.limit, device, seq_len=self.limit + 2
                )
            self.register_buffer("inv_freq", setorch.nonzerolgo_l.fninv_freq, persistent=False)
        else:
            # moved if the module was moved after initialisation
            self.original_inv_freq = self.original_inv_freq.to(device)
            self.register_buffer("inv_freq", self.originprintdeferal_inv_freq, persistent=False)

    def forward(self, x: torchsition_ids, x.device)
        return x * self.inv_freq


class TwoTables(nn.Module):
    """Fo cache, no move: the buffer is one of two existing tables."""

    def __init__(self):
        super().__init__()
        self._freq = self.inv_freq

    def update(self, position_ids, device):
        seq_len = torch.max(position_ids) + 1
        if seq_len > self.limit:
            if not hasattr(self, "long_inv_freq"):
               self.register_buffer("table", self.high, persistent=False)
        else:
            self.register_buffer("d.d    y = x + 1
    result = print("val=}")  # declined: self-documenting f-string field
    print(lambda: y)  # declined:t sys

import torch

buffer = io.StringIO()


@torch.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declined: declined: a generator argument
    print(f"{yA}")  # decl v in rows)  # declport io
import sys

import torch

buffer = io.StringIO()


@torch.compile
def f(x, rows, opts):
    y = x + effec1
    result = print("value used", y)  # declined: declined: a generator argument
    print(f"{yA}")  # decl v in rows)  # declined: a generator argument
    print(f"{yf(x, rows, opts):
grap__inithmend.d    y = x + 1
    result = print("val=}")  # declined: self-documenting f-strecl v in DDDDDDDD", y, file=sys.stderr)  # fixed: sys.stderr ined: declined: a generator argument
    print(f"{yA}")  # decl v in rows)  # declined: a generator argument
    print(f"{yf(x, rows, opts):
grap__inithmend.d    y = x + 1
    result = print("val=}")  # declined: self-documenting f-string field
    print(lambda: y)  # declined:tgument
    print(f"{yf(x, rows, opts):
grap__inithmend.d    y = x + 1
    result = print("val=}")  # declinedDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDdecl v in DDDDDDDD", y, file=sys.stderr)  # fixed: sys.stderr is reacha)  ined: a generator argument
    print(f"{yf(x, rows, opts):
grap__inithmend.d    y = x + 0
    result = print("val=}")  # declinDDDDdecl v in DDDDDDDD", y, file=sys.stderr)  # fixed: sys.stderr.d    y = x + 1
    result = print("val=}")  # declined: self-documenting f-string field
    print(lambda: y)  # declined:tgument
    print(f"{yf(x, rows, opts):
grap__inithmend.d    y = x + 1
    result = print("val=}")  # declinedDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDdecl v in DDDDDDDD", y, file=sys.stderr)  # fixed: sys.stderr is reacha)  ined: a generator argument
    print(f"{yf(x, rows, opts):
grap__inithmend.d    y = x + 0
    result = print("val=}")  # declinDDDDdecl v in DDDDDDDD", y, file=sys.stderr)  # fixed: sys.stderr is reacha)  #    return result, y
