// The Python that [Defer] and [Trap] emit into a module's generated block. This is the product's
// runtime: tests/e2e/test_defer.py and test_trap.py run it on torch 2.13.0 with the eager,
// aot_eager and inductor backends. Explicit op schemas keep it independent of
// `from __future__ import annotations` in the host module.
#include <fmt/format.h>

#include "graphmend/rules/site_helper.h"

namespace graphmend::rules {

namespace {

constexpr std::string_view kPrelude = R"PY(import torch as _graphmend_torch

_graphmend_compiling = _graphmend_torch.compiler.is_compiling
_graphmend_sites = {}
_graphmend_layouts = {}
with _graphmend_torch.inference_mode(False):
    _graphmend_sink = _graphmend_torch.zeros(1)  # every op call updates it: see _graphmend_register


def _graphmend_site(fn):
    """Registers a call site's helper, which the graph calls back by name."""
    _graphmend_sites[fn.__name__] = fn
    return fn


def _graphmend_register(name, impl, schema):
    """Registers impl as a custom op of this module, once per process.

    Each op updates `_graphmend_sink` in place. That chains every call in program order. Because
    the update reaches a graph input, no backend can drop the call as dead code. An ordered effect
    (register_effect) would do the same, but Inductor 2.13 miscompiles some graphs that fuse
    kernels across an effectful op (Whisper: a buffer freed before its use).
    """
    for namespace in ("@NS@", "@NS@_%x" % id(globals())):
        try:
            op = _graphmend_torch.library.custom_op(namespace + "::" + name, impl, mutates_args=("sink",), schema=schema)
        except RuntimeError:  # this module's text is imported twice in one process
            continue
        op.register_fake(lambda *args: None)
        return getattr(getattr(_graphmend_torch.ops, namespace), name).default
    raise RuntimeError("graphmend: cannot register the custom op " + name)


def _graphmend_carry(args):
    """Splits values into an op's schema types while Dynamo traces; None if one cannot be carried.

    Carried: plain tensors that do not require grad, ints, floats, bools, strings, None,
    torch.Size, dtypes, and tuples and lists of these.
    """
    tensors, ints, floats = [], [], []
    layout = _graphmend_layout(args, tensors, ints, floats)
    if layout is None:
        return None
    return tensors, ints, floats, layout


def _graphmend_layout(values, tensors, ints, floats):
    parts = []
    for a in values:
        if type(a) is _graphmend_torch.Tensor and not a.requires_grad:
            tensors.append(a)
            parts.append("('t',0)")
        elif type(a) is bool or type(a) is str or a is None:
            parts.append("('c'," + repr(a) + ")")
        elif type(a) is int:
            ints.append(a)
            parts.append("('i',0)")
        elif type(a) is float:
            floats.append(a)
            parts.append("('f',0)")
        elif type(a) is _graphmend_torch.Size:
            ints.extend(a)
            parts.append("('s'," + str(len(a)) + ")")
        elif type(a) is _graphmend_torch.dtype:
            parts.append("('d','" + str(a)[len("torch."):] + "')")
        elif type(a) is tuple or type(a) is list:
            inner = _graphmend_layout(a, tensors, ints, floats)
            if inner is None:
                return None
            parts.append("('" + ("u" if type(a) is tuple else "l") + "'," + inner + ")")
        else:
            return None
    return "[" + ",".join(parts) + "]"


def _graphmend_uncarry(tensors, ints, floats, layout):
    """The values _graphmend_carry split, in their original order."""
    parsed = _graphmend_layouts.get(layout)
    if parsed is None:
        import ast

        parsed = _graphmend_layouts[layout] = ast.literal_eval(layout)
    return _graphmend_rebuild(parsed, iter(tensors), iter(ints), iter(floats))


def _graphmend_rebuild(parsed, tensors, ints, floats):
    values = []
    for kind, value in parsed:
        if kind == "t":
            values.append(next(tensors))
        elif kind == "i":
            values.append(next(ints))
        elif kind == "f":
            values.append(next(floats))
        elif kind == "s":
            values.append(_graphmend_torch.Size([next(ints) for _ in range(value)]))
        elif kind == "d":
            values.append(getattr(_graphmend_torch, value))
        elif kind == "u":
            values.append(tuple(_graphmend_rebuild(value, tensors, ints, floats)))
        elif kind == "l":
            values.append(_graphmend_rebuild(value, tensors, ints, floats))
        else:
            values.append(value)
    return values
)PY";

constexpr std::string_view kDefer = R"PY(def _graphmend_emit_impl(sink, site, tensors, ints, floats, layout):
    _graphmend_sites[site](*_graphmend_uncarry(tensors, ints, floats, layout))


if "_graphmend_emit" not in globals():  # a reload keeps the op it registered
    _graphmend_emit = _graphmend_register(
        "emit", _graphmend_emit_impl,
        "(Tensor(a!) sink, str site, Tensor[] tensors, SymInt[] ints, float[] floats, str layout) -> ()")


def _graphmend_defer(site, *args):
    """Under torch.compile: calls site(*args) from inside the graph, at this point, with these values.

    A value that cannot be carried makes it call site(*args) right here: the original call, and
    its graph break.
    """
    carried = _graphmend_carry(args)
    if carried is None:
        return site(*args)
    _graphmend_emit(_graphmend_sink, site.__name__, *carried)
)PY";

constexpr std::string_view kCheck = R"PY(def _graphmend_check_impl(sink, site, cond, negate, tensors, ints, floats, layout):
    if bool(cond) != negate:  # `if cond:` / `if not cond:`, with the same truth rules and errors
        _graphmend_sites[site](*_graphmend_uncarry(tensors, ints, floats, layout))


if "_graphmend_check_op" not in globals():  # a reload keeps the op it registered
    _graphmend_check_op = _graphmend_register(
        "check", _graphmend_check_impl,
        "(Tensor(a!) sink, str site, Tensor cond, bool negate, Tensor[] tensors, SymInt[] ints, float[] floats, str layout) -> ()")


def _graphmend_check(site, cond, negate, *args):
    """Under torch.compile: when `cond` (or `not cond`) is true, raises what site(*args) raises.

    The test runs inside the graph, in program order, so no break and no recompile between
    passing and failing inputs. A condition that is not a plain tensor, or a message value that
    cannot be carried, is tested right here, as the original `if` did.
    """
    carried = _graphmend_carry(args)
    if type(cond) is not _graphmend_torch.Tensor or carried is None:
        if bool(cond) != negate:
            site(*args)
        return
    _graphmend_check_op(_graphmend_sink, site.__name__, cond.detach(), negate, *carried)
)PY";

constexpr std::string_view kEqual = R"PY(def _graphmend_equal(a, b):
    """torch.equal(a, b) as a 0-d bool tensor, traceable by Dynamo.

    Shapes differing (a static test under Dynamo) give False, as torch.equal does, so broadcasting
    never passes a guard; otherwise elementwise ==, with torch.equal's type promotion and NaN != NaN.
    """
    if a.shape != b.shape:
        return _graphmend_torch.zeros((), dtype=_graphmend_torch.bool, device=a.device)
    return (a == b).all()
)PY";

constexpr std::string_view kAssertAsync = R"PY(def _graphmend_assert_async(cond, negate, message):
    """The opt-in asynchronous [Trap] tier: torch._assert_async instead of the original raise.

    Divergences: a failing input raises RuntimeError(message), not the original class; on CUDA the
    check is a device-side assert, reported at a later synchronisation, which poisons the context.
    """
    passed = cond.reshape(()).bool()
    if not negate:
        passed = _graphmend_torch.logical_not(passed)
    _graphmend_torch._assert_async(passed, message)
)PY";

constexpr std::string_view kWhere = R"PY(def _graphmend_selectable(conds, *groups):
    """True when torch.where gives exactly what the `if` would (static under Dynamo).

    Each condition (one, or a tuple for an elif chain) is a one-element tensor, else the `if`
    raises "ambiguous" and the original runs; each group of candidate values are plain contiguous
    tensors of one shape, dtype and device, so the selection neither broadcasts nor promotes.
    """
    for cond in conds if type(conds) is tuple else (conds,):
        if type(cond) is not _graphmend_torch.Tensor or cond.numel() != 1:
            return False
    for group in groups:
        first = group[0]
        for v in group:
            if type(v) is not _graphmend_torch.Tensor or not v.is_contiguous():
                return False
            if v.shape != first.shape or v.dtype != first.dtype or v.device != first.device:
                return False
    return True


def _graphmend_where(cond, a, b):
    """The value the `if` selects: `a` when the condition's truth value is true, else `b`."""
    return _graphmend_torch.where(cond.reshape(()).bool(), a, b)
)PY";

constexpr std::string_view kBuffer = R"PY(def _graphmend_buffer_slot(module, name):
    """True when `module.register_buffer(name, t, persistent=False)` does exactly
    `module._buffers[name] = t` (static under Dynamo): `name` is already a non-persistent buffer
    (nn.Module's own methods keep every such name in `_buffers`), register_buffer is nn.Module's,
    and no global buffer-registration hook is installed.

    Storing into `_buffers` directly keeps Dynamo from reading the old buffer, whose aliasing with
    another attribute would otherwise be guarded and force a recompile on the next call.
    """
    return (
        isinstance(module, _graphmend_torch.nn.Module)
        and type(module).register_buffer is _graphmend_torch.nn.Module.register_buffer
        and name in module._non_persistent_buffers_set
        and not _graphmend_torch.nn.modules.module._global_buffer_registration_hooks
    )


def _graphmend_unmoved(tensor, device):
    """True when `tensor.to(device)` returns `tensor` itself (static under Dynamo)."""
    return type(tensor) is _graphmend_torch.Tensor and isinstance(device, _graphmend_torch.device) and tensor.device == device
)PY";

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

source::Helper runtime_prelude(const ir::Module& m) {
  // The runtime's version is part of the op namespace: Inductor's on-disk cache keys compiled
  // code by op name and must never serve code compiled against another runtime.
  const std::string key = m.module_name().empty() ? std::string(m.file().display_path) : m.module_name();
  const std::string ns = fmt::format("graphmend_v2_{:016x}", fnv1a(key));
  std::string code(kPrelude);
  for (size_t pos = code.find("@NS@"); pos != std::string::npos; pos = code.find("@NS@", pos)) {
    code.replace(pos, 4, ns);
  }
  return {"_graphmend_site", std::move(code)};
}

source::Helper defer_runtime() { return {"_graphmend_defer", std::string(kDefer)}; }
source::Helper check_runtime() { return {"_graphmend_check", std::string(kCheck)}; }
source::Helper equal_runtime() { return {"_graphmend_equal", std::string(kEqual)}; }
source::Helper where_runtime() { return {"_graphmend_selectable", std::string(kWhere)}; }
source::Helper buffer_runtime() { return {"_graphmend_buffer_slot", std::string(kBuffer)}; }
source::Helper assert_async_runtime() { return {"_graphmend_assert_async", std::string(kAssertAsync)}; }

source::Helper site_helper(const std::string& name, const std::string& params, const std::string& body) {
  return {name, fmt::format("@_graphmend_site\ndef {}({}):\n    {}\n", name, params, body)};
}

}  // namespace graphmend::rules
