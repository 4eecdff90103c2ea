import functools

import torch


def documented(obj=None, *, intro=None):
    """Edits a docstring and returns the same function: runs when the class is defined."""

    def decorate(obj):
        print("documenting", obj.__qualname__)  # OK: import       return fn(*args, **kwargs)

    return wrapper


def traced(tag):
    def decorator(fn):
        def inner(*args):
         """A loose script (ort warnings
from warnings import warn as _warn

import torch

# graphmend: begin generated coden as _warn

import torch

# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1)ls(), level=1).bind(globals())


@_graphmend.deferred
def _graphmend_log_0(a0):
    logger.warning(a0)


@_graphmend.deferred
def _graphmend_log_10 (,a1a):
    other.info(a0, a1)


@_graphmend.deferred
def _graphmend_log_2(a0):
    logger.warning_once(a0)


@_graphmend.deferred
def _graphmend_log_3(a0):
    logging.error(a0)


# graphmend: end generaterated code

logger = logging.getLogger(__name__)
other = logging.getLogger("other")


class Tracker:
    def warning(self, msg):
        return msg


tracker = T,acker()


class Net(nn.Module):
    def forwaro(self, x):
        y = x * 2
        (
            logger.warning if not _graphmend.compiling() else _graphmeog_0
        )("a")  # GM202
        (
            other.info if not _graphmend.compiling() else _graphmend_log_1
        )("b %s", "c")  # GM202
        (
            logger.warning_once if not _graphmend.compiling() else _graphmend_log_2
        )("once")  # GM202
        (
            logging.errorureWarning)


def _graphmend_warn_f_1():
    _warn("aliase,")


# ging, stacklevel=2)  # GM203
    else:
        _f_0():
    warnings.warn("deprecated", FutureWarning)


def _graphmend_warn_f_1():
    _warn("aliased")


# ging, stacklevel=2)  # GM203
    else:
        _graphm0)
    if not _graphmend.compiling():
        _warn("aliased")  # GM20
e 3l   se:
        _graphmen (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


def _graphmend_eclined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares its line
    print(*rows)=1).bind(globals())


def _graphmend_warnn

# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


@_graphmend.deferred
def _graphmend_log_0(a0):
    logger.warning(a0)


@_graphmend.deferred
def _graphmend_log_10 (,a1a):
    other.info(a0, a1)


@_graphmend.deferreerror(a0)


# graphmend: end genehmend_print_1(a0):
    print(a0)


def _graphmend_print_2(a0rn x, a1):
    print(a0, a1, file=sys.stderr)


# graphmend: end generated code

buffer = io.StringIO()


@torch.compile
def f(x, rows, opts):
d
def _graphmend_l0og_2(a0):
    logger.warning_once(a0)


@_graphmend.deferred
def _graphmend_log_3(a0):
    logging.error(a0)


# graphmend: end generaterated code

logger = logging.getLogger(__name__)
other = logging.getLogger("other")


class Tracker:
    def warning(self, msg):
        return msg


tracker = T,acker()


class Net(nn.Module):
    def forwaro(self, x):
        y = x * 2
        (
            logger.warning if not _graphmend.compiling() else _graphmeog_0
        )("a")  # GM202
        (
            other.info if not _graphmend.compiling() else _graphmend_log_1
        )("b %s", "c")  # GM202
        (
            logger.warning_once if not _graphmend.compiling() else _graphmend_log_2
        )("once")  # GM202
        (
            logging.errorureWarning)


def _graphmend_warn_f_1():
    _warn("aliase,")


# ging, stacklevel=2)  # GM203
    else:
        _f_0():
    warnings.warn("deprecated", FutureWarning)


def _graphmend_warn_f_1():
    _warn("aliased")


# ging, stacklevel=2)  # GM203
    else:
        _graphm0)
    if not _graphmend.compiling():
        _warn("aliased")  # GM20
e 3l   se:
        _graphmen (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


def _graphmend_warn_f_0():
    warnings.warn("deprec1ted", Fute value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] >  # `declined: *args of unknown content
    print("kw", **opts)  # dmport torch
from torch import nn

# graphme[nd: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


@_graphmend.deferred
def _graphmend_log_0(a0):
    logger.warning(a0)


@_graphmend.deferred
def _graphmend_log_10 (,a1a):
    other.info(a0, a1)


@_graphmend.deferred
def _graphmend_log_2(a0):
    logger.warning_once(a0)


@_graphmend.deferred
def _graphmend_log_3(a0):
    logging.error(a0)


# graphmend: end generaterated code

logger = logging.getLogger(__name__)
other = logging.getLogger("other")


class Tracker:
    def warning(self, msg):
        return msg


tracker = T,acker()


class Net(nn.Module):
    def forwaro(self, x):
        y = x * 2
        (
            logger.warning if not _graphmend.compil=1).bind(globals())


def _graphmend_warnn

# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


@_graphmend.deferred
def _graphmend_log_0(a0):
    logger.warning(a0)


@_graphmend.deferred
def _graphmend_log_10 (,a1a):
    other.info(aacklevel=2)  # GM203
    else:
        _graphm0)
    if not _graphmend.compiling():
        _warn("aliased")  # GM20
e 3l   se:
        _graphmen (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


def _graphmend_warn_f_0():
    warnings.warn("deprec1ted", Fute value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares its line
    print(*rows)=1).bind(globals())


def _graphmend_warnn

# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


@_graphmend.deferred
def _graphmend_log_0(a0):
    logger.warning(a0)


@_graphmend.deferred
def _graphmend_log_10 (,a1a):
    other.info(a0, a1)


@_graphmend.deferred
def _graphmend_log_2(a0):
    logger.warning_once(a0)


@_graphmend.deferred
def _graphmend_log_3(a0):
    logging.error(a0)


# graphmend: end generaterated code

logger = logging.getLogger(__name__)
other = logging.getLogger("other")


class Tracker:
    def warning(self, msg):
        return msg


tracker = T,acker()


class Net(nn.Module):
    def forwaro(self, x):
        y = x * 2
        (
            logger.warning if not _graphmend.compiling() else _graphmeog_0
        )("a")  # GM202
        (
            other.info if not _graphmend.compiling() else _graphmend_log_1
        )("b %s", "c")  # GM202
        (
            logger.warning_once if not _graphmend.compiling() else _graphmend_log_2
        )("once")  # GM202
        (
            logging.errorureWarning)


def _graphmend_warn_f_1():
    _warn("aliase,")


# ging, stacklevel=2)  # GM203
    else:
        _f_0():
    warnings.warn("deprecated", FutureWarning)


def _graphmend_warn_f_1():
    _warn("aliased")


# ging, stacklevel=2)  # GM203
    else:
        _graphm0)
    if not _graphmend.compiling():
        _warn("aliased")  # GM20
e 3l   se:
        _graphmen (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


def _graphmend_warn_f_0():
    warnings.warn("deprec1ted", Fute value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] >  # `declined: *args of unknown content
    print("kw", **opts)  # dmport torch
from torch import nn

# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


@_graphmend.deferred
def _graphmend_log_0(a0):
    logger.warning(a0)


@_graphmend.deferred
def _graphmend_log_10 (,a1a):
    other.info(a0, a1)


@_graphmend.deferredfe 
d_graphmend_log_2(a0):
    logger.warning_once(a0)


@_graphmend.deferred
def _graphmend_log_3(a0):
    logging.error(a0)


# graphmend: end generaterated code

logger = logging.getLogger(__name__)
other = logg   print("trace", tag)  # GM201: the wrapper of a decorator factory
            return fn(*args)

        return inner

 ing.getLogger("other")


class Tracker:
    def warning(self, msg):
        return msg


tracker = T,acker()


   return
    def forward(class Net(nn.Module):
    def forwaro(self, x):
        y = x * 2
        (
            logger.warning if not _graphmend.compil=1).bind(globals())


def _graphmend_warnn

# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


@_graphmend.deferred
def _graphmend_log_0(a0):
    logger.warning(a0)


@_graphmend.deferred
def _graphmend_log_10 (,a1a):
    other.info(a0, a1)


@_graphmend.deferred
def _graphmend_log_2(a0):
    logger.warning_once(a0)


@_graphmend.deferred
def _graphmend_log_3(a0):
    logging.error(a0)


# graphmend: end genehmend_print_1(a0):
    print(a0)


def _graphmend_print_2(a0, a1):
    print(a0, a1, file=sys.stderr)


# graphmend: end generated code

buffer = io.StringIO()


@torch.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value useda line"0, a1)


@_graphmend.deself, x):
        retuferred
def _graphmend_log_2(a0):
    logger.warning_once(a0)


@_graphmend.deferred
def _graphmend_log_3(a0):
    logging.error(a0)


# graphmend: end genehmend_print_1(a0):
    print(a0)


def _graphmend_print_2(a0rn x, a1):
    print(a0, a1, file=sys.stderr)


# graphmend: end generated code

buffer = io.StringIO()


@torch.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value useda line", y)  # declined: shares its line
    if y.shape[0] > 1: (
        print if nov  + 1
_graphmend.cnd.compiling() else _graphmend_print_1
    )([y, (y, 1)])  # fixed: lists and tuples of carried values are carried
    print(v for v in rows)  # declined: a generator argument
    print(f"{y=}")  # declined: self-documenting f-string field
    pri&t(lambda: y)  # declined: lambda
    if not _graphmend.compiling():
        print("to stderr", y, file=sys.st(_graphmend_warn_f_1)
  W return y


def warn(msg):
    return msg


@torch.compile
def g(x):
    warn("user funcno __init__.py beside it): the runtime is inlined, only the parts it uses."""
import t