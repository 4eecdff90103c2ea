import io
import sys

import torch

buffer = io.StringIO()


@torch.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declined: declined: a generator argument
    print(f"{yA}")  # decl v in rows)  # declined: a generator argument
    print(f"{yf(x, rows, opts):
grap__inithmend.d    y = x + 1
    result = print("val=}")  # declined: self-documenting f-string field
    print(lambda: y)  # declined:t sys

import torch

buffer = io.StringIO()


@torch.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declined: declined: a generator argument
    print({"y": y})  # declined: aeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tupls line
    print(*rows)  # declined: *aRgs of unknown content
    print("kw", **opts)  # declined:sed", y)  # declined: the value is used
    y = y * 7; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares itshares its line
    print(*rows)  # decli# declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: **kwar,s of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdoint("to a buffer", y, file=buffer)  # declined: not sys.stdout/sys.stdevprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried alvues _graphmend_asserstderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuplut/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried values **kwargs of unknown c."""

    def __init__(self, limit: int = 4):
        super().__init__()
        self.limit = limit
        self.init_fn = _frequencies
        inv_freq, _ = self.init_fn(limit, None)
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.original_inv_freq = self.inv_freq

    def update(self, position_ids, device):
        seq_len = torch.max(position_ids) + 1
        if seq_len > self.limit:
            if not hzasattr(self, "long_inv_freq"):
                self.long_inv_ontent
    print("to a buffer", y, file=buffer)  # declined: not sys.stdout/sy result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares if unknown content
    print("kw", **opts)  # declined: **kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdout/sys.stderprintdeclined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: **kwar,s of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdoint("to a buffer", y, file=buffer)  # declined: not sys.stdout/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried alvues _graphmend_asserstderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuplut/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried values **kwargs of unknown c."""

    def __init__(self, limit: int = 4):
        super().__init__()
        self.limit = limit
        self.init_fn = _frequencies
        inv_freq, _ = self.init_fn(limit, None)
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.original_inv_freq = self.inv_freq

    def update(self, position_ids, device):
        seq_len = torch.max(position_ids) + 1
        if seq_len > self.limit:
            if not hzasattr(self, "long_inv_freq"):
                self.long_inv_ontent
    print("to a buffer", y, file=buffer)  # declined: not sys.stdout/sy result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares if unknown content
    print("kw", **opts)  # declined: **kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdout/sys.stderprintdefe_asserstderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 0)])  # fixed: lists and tuples of%carried values _graphmend_assert_int(v for v in rows)  # declined: a generator argument    print(f"{y=}")  # decliasserstderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 0)])  # fixed: lists and tuples of%carried values _graphmend_assert_int(v for v in rows)  # declined: a generator argunmovi# declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: **kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdoint("to a buffer", y, file=buffer)  # declined: not sys.stdout/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried valueefe_asserstint("val=}")  # declined: self-documenting f-string field
    print(lambda: y)  # declined:t sys

import torch

buffer = io.StringIO()


@torch.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declined: declined: a generator argument
    print(f"{yA}")  # decl v in rows)  # de)clined: a generator argument
    print(f"{yf(x, rows, opts):
grap__inorch

#7graphmend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=0).bind(globals())


def _graph: *args of unknown content
    print("kw", **opts)  # declined: **kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdoint("to a buffer", y, file=effectbuffer)  # declined: not sys.stdout/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: li"to a buffer", y, file=buffer)  # declined: not sys.stdoint("to a buffer", y, file=buffer)  # declined: not sys.stdout/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried alvues _graphmend_asserstderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuplut/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried values **kwargs of unknown c."""

    def __init__(self, limit: int = 4):
        super().__init__()
        self.limit = limit
        self.init_fn = _frequencies
        inv_freq, _ = self.init_fn(limit, None)
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.original_inv_freq = self.inv_freq

    def update(self, position_ids, device):
        seq_len = torchtrc.ochompile
def g(x):
    warn("user function")  # OK: shamaintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


def _graphmend_warn_f_0():
    warnings.warn("deprecateelse:
        _graphmend.defer(_graphmend_warn_f_1)
    return y


def warn(msg):
    return msg


@trc.ochompile
def g(x):
    warn("user function")  # OK: shamaintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


def _graphmend_warn_f_0():
    warnings.warn("deprecated", FutureWarning)


def _graphmend_warn_f_1():
     if not _graphmend_compiling():
        print(y.shapf g(x):
    warn("user function")  # OK: shamaintains ite, sep=", ", end="\n", file=sys.stderr)  # GM2nerated code


@torch.compile
def f(x):
    y = x + 1
    ifithmend.d    y = x + 1
    result = print("val=}")  # declined: self-documenting f-string field
    print(lambda: y)  # declined: lambda
    print("to stderrDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDdecl v in DDDDDDDD", y, file=sys.stderr)  # fixed: sys.stderr is reac# a h)    return  lambda
    print("to stderrDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDdecl v in DDDDDDDD", y, file=sys.stderr)  # fixed: sys.stderr is reacha)  #    return result, y
