// The Python the [Defer] rewrite emits once per module. It is the product's runtime: the tests in
// tests/e2e/test_defer.py run it on torch 2.13.0 with the eager, aot_eager and inductor backends.
#include <fmt/format.h>

#include "graphmend/rules/defer_rewrite.h"

namespace graphmend::rules {

namespace {

// `{ns}` is the only substitution; every other brace is Python's.
constexpr std::string_view kRuntime = R"PY(import torch as _graphmend_torch

_graphmend_compiling = _graphmend_torch.compiler.is_compiling
_graphmend_sites = {}


def _graphmend_site(fn):
    """Registers a deferred call site, which the graph calls back by name."""
    _graphmend_sites[fn.__name__] = fn
    return fn


def _graphmend_define_emit(namespace):
    """An ordered effectful custom op that calls a site back with the values it was given.

    Ordered effects keep it in program order and out of dead-code elimination in every backend.
    """
    import ast
    import functools
    from torch._higher_order_ops.effects import EffectType

    decode = functools.lru_cache(maxsize=None)(ast.literal_eval)

    @_graphmend_torch.library.custom_op(namespace + "::emit", mutates_args=())
    def emit(site: str, tensors: list[_graphmend_torch.Tensor], ints: list[int],
             floats: list[float], layout: str) -> None:
        tensors, ints, floats = iter(tensors), iter(ints), iter(floats)
        args = []
        for kind, value in decode(layout):
            if kind == "t":
                args.append(next(tensors))
            elif kind == "i":
                args.append(next(ints))
            elif kind == "f":
                args.append(next(floats))
            elif kind == "s":
                args.append(_graphmend_torch.Size([next(ints) for _ in range(value)]))
            elif kind == "d":
                args.append(getattr(_graphmend_torch, value))
            else:
                args.append(value)
        _graphmend_sites[site](*args)

    @emit.register_fake
    def _(site, tensors, ints, floats, layout):
        return None

    emit.register_effect(EffectType.ORDERED)
    return getattr(getattr(_graphmend_torch.ops, namespace), "emit").default


if "_graphmend_emit" not in globals():  # a reload keeps the op it registered
    try:
        _graphmend_emit = _graphmend_define_emit("{ns}")
    except RuntimeError:  # this module's text is imported twice in one process
        _graphmend_emit = _graphmend_define_emit("{ns}_%x" % id(globals()))


def _graphmend_defer(site, *args):
    """Under torch.compile: calls site(*args) from inside the graph, at this point, with these values.

    Tensors (plain, not requiring grad), ints, floats, bools, strings, None, torch.Size and dtypes
    are carried into the graph; any other value is handed to `site` right here, which is exactly
    the original call (and its graph break).
    """
    tensors, ints, floats, layout = [], [], [], []
    for a in args:
        if type(a) is _graphmend_torch.Tensor and not a.requires_grad:
            tensors.append(a)
            layout.append("('t',0)")
        elif type(a) is bool or type(a) is str or a is None:
            layout.append("('c'," + repr(a) + ")")
        elif type(a) is int:
            ints.append(a)
            layout.append("('i',0)")
        elif type(a) is float:
            floats.append(a)
            layout.append("('f',0)")
        elif type(a) is _graphmend_torch.Size:
            ints.extend(a)
            layout.append("('s'," + str(len(a)) + ")")
        elif type(a) is _graphmend_torch.dtype:
            layout.append("('d','" + str(a)[len("torch."):] + "')")
        else:
            return site(*args)
    _graphmend_emit(site.__name__, tensors, ints, floats, "[" + ",".join(layout) + "]")
)PY";

}  // namespace

std::string defer_runtime_helper(std::string_view op_namespace) {
  std::string out(kRuntime);
  for (size_t pos = out.find("{ns}"); pos != std::string::npos; pos = out.find("{ns}", pos)) {
    out.replace(pos, 4, op_namespace);
  }
  return out;
}

}  // namespace graphmend::rules
