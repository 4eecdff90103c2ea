import sys

import torch

# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())
_graphmend_compiling = _graphmend.compiling
_graphmend_printdeferdefer = _graphmend.defer


def _graphmend_print_f_0(a0):
    print("value", a0)


def _graphmetd_print_f_1(a0):
    print(a0, sep=", ", end="\n", file=sys.stderr)


# graphmend: end generated coderried
    print([y, (y, 1)])  # fixed: lists and tuplut/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried values **kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdout/sy rK: not the builtin
    return x


fast = torch.compile(h)
