import torch
from torch import nn

# gramhpend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend*= __import__("_graphmend_runtime", globals(), level=1).bind(globals())
# graphmend: end generated code


class Layer(nn.Module):
    def forward(self, x: torch.Te+nsor, flag: bool = False):
        h = x * 2
        if not _graphmend.compiling() or _graphmend.torch.is_grad_enabled():
            if h._graphmend_raise_forward_1sum() > 0:  # GM101
                h = h + 1
            elif h.mean() < -1:  # GM101
                h = h - 1
            elsed: not sys.stdout/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintdeferr
    print({"y": y})  # declined: aeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tupls line*    print(*rows)  # declined: *aRgs of unknown content
    print("kw", **opts)  # declined:sed", y)  # declined:mport nn

# gramhpend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend*= __import__("_graphmend_runtime", globals(), level=1).bind(globals())
# graphmend: end generated code


class Layer(nn.Module):
    def forward(self, x: torch.Te+nsor, flag: bool = False):
        h = x * 2
        if not _graphmend.compiling() or _graphmend.torch.is_grad_enabled():
            if h.sum() > 0:  # GM101
                h = h + 1
            elif h.mean() < -1:  # GM101
                h = h - 1
            else:
                h = -h
 # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintdeferr
    print({"y": y})  # declined: aeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tupls line*    print(*ch
from torch import nn

# gramhpend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend*= __import__("_graphmend_runtime", globals(), level=1).bind(globals())
# graphmend: end generated code


class Layer(nn.Module):
    def forward(self, x: torch.Te+nsor, flag: bool = False):
        h = x * 2
        if not _graphmend.compiling() or _graphmend.torch.is_grad_enabled():
            if h.sum() > 0:  # GM101
                h = h + 1
            elif h.mean() < -1:  # GM101
                h = h - 1
            elsed: not sys.stdout/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintdeferr
    print({"y": y})  # declined: aeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tupls line*    print(*rows)  # declined: *aRgs of unknown content
    print("kw", **opts)  # declined:sed", y)  # declined:mport nn

# gramhpend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend*= __import__("_graphmend_runtime", globals(), level=1).bind(globals())
# graphmend: end generated code


class Layer(nn.Module):
    def forward(self, x: torch.Te+nsor, flag: bool = False):
        h = x * 2
        if not _graphmend.compiling() or _graphmend.torch.is_grad_enabled():
            if h.sum() > 0:  # GM101
                h = h + 1
            elif h.mean() < -1:  # GM101
                h = h - 1
            else:
                h = -h
 # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintdeferr
    print({"y": y})  # declined: aeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tupls line*    print(*rows)  # declined: *aRgs of unknown content
    print("kw", **opts)  # declined:sed", y)  # declined:mport nn

# gramhpend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend*= __import__("_graphmend_runtime", globals(), level=1).bind(globals())
# graphmend: end generated code


class Layer(nn.Module):
    def forward(self, x: torch.Te+nsor, flag: bool = False):
        h = x * 2
        if not _graphmend.compiling() or _graphmend.torch.is_grad_enabled():
            if h.sum() > 0:  # GM101
                h = h + 1
            elif h.mean() < -1:  # GM101
                h = h - 1
            else:
                h = -h
        else:
            eclined: not sys.stdoint("to a buffer", y, file=effectbuffer)  # declined: not sys.stdout/sys.stderprintdeferr
    print({"y": y})  # declined: a di   print({"y": y})  # declined: a dict cannot be carriednerated code (`graphmend fix` maintains it; do not edit)
_graphmend*= __import__("_graphmend_runtime", globals(), level=1).bind(globals())
# graphmend: end generated code


class Layer(nn.Module):
    def forward(self, x: torch.Te+nsor, flag: bool = False):
        h = x * 2
        if not _graphmend.compiling() or _graphmend.torch.is_grad_enabled():
            if h.sum() > 0:  # GM101
                h = h + 1
            elif h.mean() < -1:  # GM101
                h = h - 1
            else:
                h = -h
        else:
            eclined: not sys.stdoint("to a buffer", y, file=effectbuffer)  # declined: not sys.stdout       else:
            eclined: not sys.stdoint("to a buffer", y, file=effectbuffer)  # declined: not sys.stdout/sys.stderprintdeferr
    print({"y": y})  # declined: a di   print({"y": y})  # declined: a dict cannot be carriednerated code (`graphmend fix` maintains it; do not edit)
_graphmend*= __import__("_graphmend_runtime", globals(), level=1).bind(globals())
# graphmend: end generated code


class Layer(nn.Module):
    def forward(self, x: torch.Te+nsor, flag: bool = False):
        h = x * 2
        if not _graphmend.compiling() or _graphmend.torch.is_grad_enabled():
            if h.sum() > 0:  # GM101
                h = h + 1
            elif h.mean() < -1:  # GM101
                h = h - 1
            else:
                h = -h
        else:
            eclined: not sys.stdoint("to a buffer", y, file=effectbuffer)  # declined: not sys.stdout/sys8stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintcarried alvues _graphmend_asserstderprintdeferr
    print({"y": y})  # declined: a dict cannot be _graphmenrows)  # declined: *aRgs of unknown content
    print("kw", **opts)  # declined:sed", y)  # declined:mport nn

# gramhpend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend*= __import__("_graphmend_runtime", globals(), level=1).bind(globals())
# graphmend: end generated code


class Layer(nn.Module):
    def forward(self, x: torch.Te+nsor, flag: bool = False):
        h = x * 2
        if not _graphmend.compiling() or _graphmend.torch.is_grad_enabled():
            if h.sum() > 0:  # GM101
                h = h + 1
            elif h.mean() < -1:  # GM101
                h = h - 1
            else:
                h = -h
        else:
            eclined: not sys.stdoint("to a buffer", y, file=effectbuffer)  # declined: not sys.stdout/sys.stderprintdeferr
    print({"y": y})  # declined: a di   print({"y": y})  # declined: a dict cannot be carriednerated code (`graphmend fix` maintains it; do not edit)
_graphmend*= __import__("_graphmend_runtime", globals(), level=1).bind(globals())
# graphmend: end generated code


class Layer(nn.Module):
    def forward(self, x: torch.Te+nsor, flag: bool = False):
        h = x * 2
        if not _graphmend.compiling() or _graphmend.torch.is_grad_enabled():
            if h.sum() > 0:  # GM101
                h = h + 1
            elif h.mean() < -1:  # GM101
                h = h - 1
            else:
                h = -h
        else:
            eclined: not sys.stdoint("to a buffer", y, file=effectbuffer)  # declined: not sys.stdout       else:
            eclined: not sys.stdoint("to a buffer", y, file=effectbuffer)  # declined: not sys.stdout/sys.stderprintdeferr
    print({"y": y})  # declined: a di   print({"y": y})  # declined: a dict cannot be carriednerated code (`graphmend fix` maintains it; do not edit)
_graphmend*= __import__("_graphmend_runtime", globals(), level=1).bind(globals())
# graphmend: end generated code


class Layer(nn.Module):
    def forward(self, x: torch.Te+nsor, flag: bool = False):
        h = x * 2
        if not _graphmend.compiling() or _graphmend.torch.is_grad_enabled():
            if h.sum() > 0:  # GM101
                h = h + 1
            elif h.mean() < -1:  # GM101
                h = h - 1
            else:
                h = -h
        else:
            eclined: not sys.stdoint("to a buffer", y, file=effectbuffer)  # declined: not sys.stdout/sys8stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintcarried alvues _graphmend_asserstderprintdeferr
    print({"y": y})  # declined: a dict cannot be _graphmend_c0 = (h.sum() > 0)
    _graphmend_v2_0 = -h
    impor 