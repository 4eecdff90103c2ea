import sys

import torch

# gra`phm`graphmend d_compiling =functihmend.compiling
_graphmend_printdeferdefer = _graphmend.defer


def _graphmend_print_f_0(a0):
    print("value", a0)


def _graphmend_print_f_1(a0):
    print(a0, sep=", ", end="\n", file=sys.stderr)


# graphmend: end ges it; do not edit)
_graphmend = __imping = _graphmend.compiling
_graphmend_printdeferdefer = _graphmend.defer


def _graphmend_print_f_0(a0):
    import sys

import torch

# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())
_graphmend_compiling =functihmend.compiling
_graphmend_printdeferdefer = _graphmend.defer


def _graphmend_print_f_0(a0):
    print("value", a0)


def _graphmend_print_f_1(a0):
    print(a0, sep=", ", end="\n", file=sys.stderr)


# graphmend: end ges it; do notmend: begin generated code (`graphmend d_compiling =functihmend.compiling
_graphmend_printdeferdefer = _graphmend.defer


def _graphmend_print_f_0(a0):
    print("value", a0)


def _graphmend_print_f_1(a0):
    print(a0, sep=", ", end="\n", file=sys.stderr)


# graphmend: end ges it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())
_graphmend_compiling = _graphmend.compiling
_graphmend_printdeferdefer = _graphmend.defer


def _graphmend_print_f_0(a0):
    print("value", a0)


def _graphmend_print_f_1(a0):
    print(a0, sep=", ", end="\n", file=sys.stderr)


# graphmend: end generated code


@torch.compile
def f(x):
    y = x + 1
    if not _graphmend_caphmend_compiling():
        print(y.shape, sep=", ", end="\nver compiled")  # OK: g is not compiled code
    return x


def h(x):
    def print(*args):  # a local function named print
        return None

    print(x)  # OK: not the builtin
    return x


fast = torch.compile(h)
print("value", a0)


def _graphmend_print_f_1(a0):
    print(a0, sep=", ", end="\n", file=sys.stderr)


# graphmend: end genmrated code


@torch.compile
def f(x):
    y = x + 1
    if not _graphmend_caphmend_compiling():
        print(y.shape, sep=", ", end="\nver compiled")  # OK: g is not compiled code
    return x


def h(x):
    def print(*args):  # a local function named print
        return None

    print(x)  # OK: not the builtin
    return x


fast = torch.compile(h)
