"""The runtime of graphmend's rewrites: what patched code calls under torch.compile.

graphmend writes this file once per top-level package, as `_graphmend_runtime.py` at the
package root; every module it patches there binds it with one line after its imports:

    _graphmend = __import__("_graphmend_runtime", globals(), level=N).bind(globals())

A loose script gets the same source inline. Patched code needs only torch. graphmend
rewrites this file when RUNTIME_VERSION differs from its own and never edits it
otherwise; do not edit it. See `graphmend rule GM201`, `GM301` and `GM101` for what each
part is for.
"""

import operator
import os
import sys
import types

RUNTIME_VERSION = "18"

# The runtime never imports torch itself: a patched module that imports torch only on
# some paths (or not at all) must not start importing it. It uses torch once loaded.
torch = None

# Process-wide state shared by every copy of this runtime version (one per patched
# package, or inline in a script): the modules whose site helpers the ops call back, the
# module views bind() handed out, the ops, and the sink tensor that chains the op calls.
_STATE_NAME = "_graphmend_runtime_state_v" + RUNTIME_VERSION
_state = sys.modules.get(_STATE_NAME)
if _state is None:
    _state = types.ModuleType(_STATE_NAME, "graphmend runtime state, shared")
    _state.modules = {}  # module key -> that module's globals
    _state.views = []  # (view, key) bound before torch was imported
    _state.ops = {}  # op name -> the registered op's overload
    _state.layouts = {}  # carried layout string -> its parsed form
    _state.callees = {}  # "#<key>" -> the callee (or object) a deferred call names
    _state.sink = None  # every op call updates it: see _register
    _state.defer_form = None  # "in-graph" or "epilogue": see _defer_form
    _state.epilogue = None  # the effects a graph recorded: see _Epilogue
    sys.modules[_STATE_NAME] = _state


def bind(module_globals):
    """The runtime as one patched module sees it: its `_graphmend` name.

    Site helpers are module-level functions of that module; the ops find them again
    through the module's key, its `__name__` (a suffix tells apart two live modules that
    share a name). Bound before torch is imported, the view's `compiling()` is False, so
    the module runs its original code, until a later bind finds torch and completes it.

    Binding defines names and nothing more: no operator is registered and Dynamo is not
    touched until a check or a deferred effect is first traced (see _make_ready).
    """
    name = module_globals.get("__name__") or "__unnamed__"
    key, n = name, 1
    while _state.modules.setdefault(key, module_globals) is not module_globals:
        n += 1
        key = name + "#" + str(n)
    view = types.ModuleType("_graphmend_runtime[" + key + "]")
    if "_deferring" in globals():  # decorates site helpers when the module is defined
        view.deferred = lambda site: _deferring(key, site)
        view.call = lambda target: _calling(key, target)
    if _load_torch():
        _complete(view, key)
    else:
        view.compiling = _not_compiling
        _state.views.append((view, key))
    return view


_own_frames_skipped = False


def _run_eagerly_when_called_eagerly():
    """Tells Dynamo never to compile this runtime's functions as frames of their own.

    When Dynamo gives up on a frame it runs that frame eagerly, but still compiles each
    function the frame calls as a frame of its own. A runtime function compiled alone
    sees compiling() true, takes its graph path and makes a graph of its own: one more
    graph per patched site than the original had (longt5 in the census). Skipped, an
    eager caller runs it as plain Python (its eager path); a traced caller still inlines
    it. Done by _make_ready, when Dynamo first traces a check or a deferred effect.
    """
    global _own_frames_skipped
    skip_code = getattr(sys.modules.get("torch._dynamo.eval_frame"), "skip_code", None)
    if _own_frames_skipped or skip_code is None:
        return
    _own_frames_skipped = True
    own = globals()
    codes = []
    for value in list(own.values()):
        members = vars(value).values() if isinstance(value, type) else (value,)
        codes += [
            f.__code__
            for f in members
            if isinstance(f, types.FunctionType) and f.__globals__ is own
        ]
    while codes:
        code = codes.pop()
        skip_code(code)
        codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]


def _not_compiling():
    """compiling() before torch is imported: nothing can be compiling yet."""
    return False


def _load_torch():
    """True once torch is imported in this process; then the setup steps have run."""
    global torch
    if torch is None:
        loaded = sys.modules.get("torch")
        if loaded is None or not hasattr(loaded, "compiler"):
            return False  # absent, or still being imported
        torch = loaded
        globals()["compiling"] = torch.compiler.is_compiling
        # Marks the functions for Dynamo (sets an attribute of each): registers nothing.
        for constant in (
            "_make_ready",
            "_registered_callee",
            "_registered_logger",
            "_registered_warning",
            "_is_warn",
        ):
            if constant in globals():
                torch.compiler.assume_constant_result(globals()[constant])
        views, _state.views = _state.views, []
        for view, key in views:
            _complete(view, key)
    return True


_is_ready = False


def _make_ready():
    """Sets up what the traced paths use, once, when the first of them is traced: each
    section's setup (the effects section registers its operators) and the skip marks of
    _run_eagerly_when_called_eagerly. Dynamo calls it while tracing as plain Python
    (marked assume_constant_result once torch is seen) and keeps only its constant
    result: a module that is imported, or run eagerly, changes nothing in torch.
    """
    global _is_ready
    if not _is_ready:
        _is_ready = True
        for setup in _SETUP:
            if setup in globals():
                globals()[setup]()
        _run_eagerly_when_called_eagerly()
    return True


def _complete(view, key):
    for public in _PUBLIC:
        if public in globals():
            setattr(view, public, globals()[public])
    if "_defer" in globals():
        view.defer = _keyed(_defer, key)
        view.check = _keyed(_check, key)


def _keyed(call, key):
    def keyed(site, *args):
        return call(key, site, *args)

    keyed.__name__ = call.__name__.lstrip("_")
    return keyed


def _plain_tensor(value):
    """A plain torch.Tensor (not a Parameter or another subclass); under torch.export,
    which runs the code on fake tensors when not strict, a FakeTensor stands for one."""
    if type(value) is torch.Tensor:
        return True
    if not torch.compiler.is_exporting():
        return False
    return type(value) is torch._subclasses.fake_tensor.FakeTensor


# graphmend-section: effects
def _register(name, impl, schema):
    """The op `name` of this runtime version, registered once per process.

    Each op updates the sink in place. That chains every call in program order, and
    because the update reaches a graph input no backend can drop the call as dead code.
    An ordered effect (register_effect) would do the same, but Inductor 2.13 miscompiles
    some graphs that fuse kernels across an effectful op (Whisper: a buffer freed before
    its use). Every copy of one version has the same ops, so a later copy reuses the op
    an earlier one registered.

    The ops are tagged cudagraph_unsafe: a CUDA graph replays kernels, never the host
    Python an op runs, so Inductor must keep every call out of its CUDA graphs (it ends
    a partition there, or captures none of the graph), whatever device it infers.
    """
    op = _state.ops.get(name)
    if op is None:
        namespace = "graphmend_rt" + RUNTIME_VERSION
        unsafe = getattr(torch.Tag, "cudagraph_unsafe", None)
        custom = torch.library.custom_op(
            namespace + "::" + name,
            impl,
            mutates_args=("sink",),
            schema=schema,
            tags=(unsafe,) if unsafe is not None else None,
        )
        custom.register_fake(lambda *args: None)
        op = _state.ops[name] = getattr(getattr(torch.ops, namespace), name).default
    return op


def _site(qualified):
    """What `key:name` names: a site helper (a module-level function of a bound module);
    or what a `_graphmend.call` site defers: `#<key>/` a callee, `#<key>/attribute` an
    attribute of an object, as _callee_key registered them."""
    if qualified.startswith("#"):
        key, _, attribute = qualified.rpartition("/")
        target = _state.callees[key]
        return getattr(target, attribute) if attribute else target
    key, _, name = qualified.rpartition(":")
    if not name.startswith("_graphmend_"):  # a path: written for runtimes 13 to 15
        return _resolve(key, name)
    site = _state.modules[key][name]
    return getattr(site, "__graphmend_site__", site)  # a @deferred helper: its function


def _resolve(key, path):
    """The object a dotted path ("logger.warning_once", "print") names in a bound
    module, found as the module's own code finds it: a global, else a builtin, then
    attributes; a name bound nowhere raises the NameError that code would."""
    scope = _state.modules[key]
    head, *attributes = path.split(".")
    if head in scope:
        value = scope[head]
    else:
        builtins = scope.get("__builtins__", __builtins__)
        if type(builtins) is not dict:
            builtins = vars(builtins)
        if head not in builtins:
            raise NameError("name '" + head + "' is not defined", name=head)
        value = builtins[head]
    for attribute in attributes:
        value = getattr(value, attribute)
    return value


def _carry(args):
    """Splits values into an op's schema types while Dynamo traces; None if one cannot
    be carried.

    Carried: plain tensors that do not require grad, ints, floats, bools, strings, None,
    torch.Size, dtypes, and tuples and lists of these. An int an op cannot hold (beyond
    int64, like 2**70) travels as a constant of the call, as bools and strings do.
    """
    tensors, ints, floats = [], [], []
    layout = _layout(args, tensors, ints, floats)
    if layout is None:
        return None
    return tensors, ints, floats, layout


def _layout(values, tensors, ints, floats):
    parts = []
    for a in values:
        if type(a) is torch.Tensor and not a.requires_grad:
            tensors.append(a)
            parts.append("('t',0)")
        elif type(a) is bool or type(a) is str or a is None:
            parts.append("('c'," + repr(a) + ")")
        elif type(a) is int and -(2**63) <= a < 2**63:
            ints.append(a)
            parts.append("('i',0)")
        elif type(a) is int:
            parts.append("('c'," + repr(a) + ")")
        elif type(a) is float:
            floats.append(a)
            parts.append("('f',0)")
        elif type(a) is torch.Size:
            ints.extend(a)
            parts.append("('s'," + str(len(a)) + ")")
        elif type(a) is torch.dtype:
            parts.append("('d','" + str(a)[len("torch.") :] + "')")
        elif type(a) is tuple or type(a) is list:
            inner = _layout(a, tensors, ints, floats)
            if inner is None:
                return None
            parts.append("('" + ("u" if type(a) is tuple else "l") + "'," + inner + ")")
        else:
            return None
    return "[" + ",".join(parts) + "]"


def _uncarry(tensors, ints, floats, layout):
    """The values _carry split, in their original order."""
    parsed = _state.layouts.get(layout)
    if parsed is None:
        import ast

        parsed = _state.layouts[layout] = ast.literal_eval(layout)
    return _rebuild(parsed, iter(tensors), iter(ints), iter(floats))


def _rebuild(parsed, tensors, ints, floats):
    values = []
    for kind, value in parsed:
        if kind == "t":
            values.append(next(tensors))
        elif kind == "i":
            values.append(next(ints))
        elif kind == "f":
            values.append(next(floats))
        elif kind == "s":
            values.append(torch.Size([next(ints) for _ in range(value)]))
        elif kind == "d":
            values.append(getattr(torch, value))
        elif kind == "u":
            values.append(tuple(_rebuild(value, tensors, ints, floats)))
        elif kind == "l":
            values.append(_rebuild(value, tensors, ints, floats))
        else:
            values.append(value)
    return values


def _emit_impl(sink, site, tensors, ints, floats, layout):
    _site(site)(*_uncarry(tensors, ints, floats, layout))


def _check_impl(sink, site, cond, negate, tensors, ints, floats, layout):
    # `if cond:` / `if not cond:`, with the same truth rules and errors
    if bool(cond) != negate:
        _fail(_site(site), _uncarry(tensors, ints, floats, layout))


def _fail(site, args):
    """Raises what a [Trap] site raises: a site helper raises itself; an exception class
    (`_graphmend.check(ValueError, ...)`) is raised, made from the arguments."""
    error = site(*args)
    if isinstance(error, BaseException):
        raise error


def _setup_effects():
    global _emit, _check_op
    if _state.sink is None:
        with torch.inference_mode(False):
            _state.sink = torch.zeros(1)
    if _state.defer_form is None:
        _state.defer_form = _defer_form()
    if _state.epilogue is None:
        # The replay runs inside the compiled code, where Dynamo would trace each frame
        # the sites call (and count their breaks): the sites run as plain Python.
        _Epilogue.__setattr__ = torch._dynamo.disable(_Epilogue.__setattr__)
        _state.epilogue = _Epilogue("_graphmend_runtime_epilogue")
        _state.epilogue.pending = ()
    _emit = _register(
        "emit",
        _emit_impl,
        "(Tensor(a!) sink, str site, Tensor[] tensors, SymInt[] ints, float[] floats, "
        "str layout) -> ()",
    )
    _check_op = _register(
        "check",
        _check_impl,
        "(Tensor(a!) sink, str site, Tensor cond, bool negate, Tensor[] tensors, "
        "SymInt[] ints, float[] floats, str layout) -> ()",
    )


def _defer(key, site, *args):
    """[Defer] under torch.compile: calls site(*args) from inside the graph, here, with
    these values (see _defer_as)."""
    return _defer_as(args, site, lambda: key + ":" + site.__name__)


def _defer_as(args, callee, qualified):
    """Defers callee(*args) into the graph, where the op finds the callee again by
    the key `qualified()` (see _site). A value that cannot be carried, or a callee the
    op could not find again (qualified() is None), makes it call callee(*args) right
    here: the original call, and its graph break. Under torch.export it does nothing
    (see _exported).
    """
    if torch.compiler.is_exporting():
        return None
    _make_ready()
    carried = _carry(args)
    key = qualified() if carried is not None else None
    if key is None:
        return callee(*args)
    return _deferred_call(key, args, carried)


def _deferring(key, site):
    """`@_graphmend.deferred`: the site helper as a callable that defers its call.

    A patched call picks it in place of the original callee under torch.compile only:
    `(print if not _graphmend.compiling() else _graphmend_print_0)(...)`, so the call's
    arguments are written once. Calling it is `_graphmend.defer(site, *args)`.
    """

    def deferred(*args):
        return _defer(key, site, *args)

    deferred.__name__ = deferred.__qualname__ = site.__name__
    deferred.__graphmend_site__ = site
    return deferred


def _calling(key, target):
    """`_graphmend.call(print)(...)`, `_graphmend.call(logger).warning_once(...)`: a
    [Defer] site whose arguments are all carried as they are; the callee stays written
    as code, and no helper is needed.

    Eager (or before torch is imported): `target` itself, so the call runs as written.
    Under torch.compile: a stand-in whose call, or whose method call, is deferred as
    `_graphmend.defer` defers a helper's; the attribute is looked up when the deferred
    call runs, as the original looked it up when it ran.
    """
    if type(target) is str:  # runtimes 13 to 15 wrote the callee's path
        return _calling_path(key, target)
    if torch is not None and torch.compiler.is_compiling():
        return _Deferring(target, key)
    return target


def _calling_path(key, path):
    """`_graphmend.call("logger.warning")(...)`, as runtimes 13-15 wrote it: the callee
    found by its path in the module, as the module's code finds it (see _resolve), and
    not looked up while tracing."""
    if torch is not None and torch.compiler.is_compiling():

        def deferred(*args):
            def callee(*values):
                return _resolve(key, path)(*values)

            return _defer_as(args, callee, lambda: key + ":" + path)

        return deferred
    return _resolve(key, path)


class _Deferring:
    """What `_graphmend.call(target)` is under torch.compile (see _calling): its call,
    or the call of its attribute, deferred under `#<key>/<attribute>` (see _callee_key);
    the attribute is looked up when the call is made."""

    def __init__(self, target, key):
        self.target = target
        self.key = key

    def __call__(self, *args):
        target, key = self.target, self.key
        if not torch.compiler.is_exporting() and _is_warn(target, ""):
            return _defer_warning(key, args)
        return _defer_as(args, target, lambda: _attribute_key(target, ""))

    def __getattr__(self, attribute):
        target, key = self.target, self.key
        if (
            attribute == "warn"
            and isinstance(
                target, types.ModuleType
            )  # not a logger: _is_warn takes constants
            and not torch.compiler.is_exporting()
            and _is_warn(target, attribute)
        ):
            return lambda *args: _defer_warning(key, args)

        def deferred(*args):
            def method(*values):
                return getattr(target, attribute)(*values)

            return _defer_as(args, method, lambda: _attribute_key(target, attribute))

        return deferred


def _is_warn(target, attribute):
    # Run as plain Python while tracing (marked assume_constant_result in _load_torch):
    # whether `target.attribute` (or `target`, for "") is warnings.warn itself.
    warnings = sys.modules.get("warnings")
    if warnings is None:
        return False
    if attribute:
        return target is warnings and attribute == "warn"
    return target is warnings.warn


def _defer_warning(key, args):
    """`_graphmend.call(warnings).warn(message[, category])` under torch.compile: the
    warning is issued when the graph reaches it, as from the site's own line, so the
    filters, the once-per-location registry and the text shown are eager's. Any other
    form, or a site Dynamo cannot place, warns in place: the original call, its break
    included."""
    where = None
    if len(args) in (1, 2) and type(args[0]) is str:
        category = args[1] if len(args) == 2 else UserWarning
        where = _registered_warning(key, category)
    if where is None:
        return _warn_in_place(args)
    _make_ready()
    return _deferred_call(where, args[:1], _carry(args[:1]))


def _warn_in_place(args):
    # Dynamo gives up on this call and runs it eagerly from the site; counted from here,
    # the site is 4 frames up (here, _defer_warning, the stand-in's method, the site).
    import warnings

    warnings.warn(*args, stacklevel=4)


def _registered_warning(key, category):
    # Run as plain Python while tracing (marked assume_constant_result in _load_torch):
    # the key of a warning issued from the patched module's line Dynamo is tracing.
    if not (isinstance(category, type) and issubclass(category, Warning)):
        return None
    scope = _state.modules.get(key)
    context = torch._guards.TracingContext.try_get()
    if scope is None or context is None:
        return None
    # The frames traced: ..., the site, the stand-in's method, _defer_warning.
    stack = context.extract_stack()
    if len(stack) < 3 or stack[-1].name != "_defer_warning":
        return None
    site = stack[-3]
    module_file = os.path.splitext(scope.get("__file__") or "")[
        0
    ]  # a .pyc without source too
    if os.path.splitext(site.filename)[0] != module_file or not site.lineno:
        return None
    filename, lineno = site.filename, site.lineno
    name = "warn:" + key + ":" + str(lineno) + ":" + category.__qualname__
    for n in range(1, len(_state.callees) + 2):
        known = _state.callees.get("#" + name + ("#" + str(n) if n > 1 else ""))
        if known is None:
            break
        if known.category is category and known.scope is scope:
            return "#" + name + ("#" + str(n) if n > 1 else "") + "/"

    def warn(message):
        import warnings

        registry = scope.setdefault("__warningregistry__", {})
        module = scope.get("__name__", "<string>")
        warnings.warn_explicit(
            message, category, filename, lineno, module, registry, scope
        )

    warn.category, warn.scope = category, scope
    return _registered(warn, name) + "/"


def _attribute_key(target, attribute):
    key = _callee_key(target)
    return None if key is None else key + "/" + attribute


def _callee_key(target):
    """The key under which the in-graph op finds `target` again (see _site), or None.

    A function, builtin or module is registered as Dynamo holds it, as a constant.
    Dynamo holds a logging.Logger apart, opaque but for its id(), a constant it guards:
    the logger is registered once found, by that id, among the loggers logging knows.
    Either way Dynamo guards the identity, so the compiled code runs with this very
    object. The key is made of names, not ids, so the graph is the same in every
    process and a compiled-graph cache can find it.
    """
    logging = sys.modules.get("logging")
    if logging is not None and isinstance(target, logging.Logger):
        return _registered_logger(id(target))
    return _registered_callee(target)


def _registered_callee(target):
    # Run as plain Python while tracing (marked assume_constant_result in _load_torch).
    if isinstance(target, types.ModuleType):
        return _registered(target, "module:" + target.__name__)
    names = (getattr(target, "__module__", None), getattr(target, "__qualname__", None))
    return _registered(target, ":".join(str(name) for name in names))


def _registered_logger(ident):
    # Run as plain Python while tracing (marked assume_constant_result in _load_torch):
    # the logger whose id() is `ident`, if logging knows it (the root, or one that
    # getLogger made).
    logging = sys.modules["logging"]
    for logger in (logging.root, *logging.Logger.manager.loggerDict.values()):
        if id(logger) == ident and isinstance(logger, logging.Logger):
            return _registered(logger, "logger:" + logger.name)
    return None


def _registered(target, name):
    """`#name`, or `#name#2` and on when another object holds that name: one object per
    key for the life of the process (a graph compiled for one never finds another)."""
    key, n = "#" + name, 1
    while _state.callees.setdefault(key, target) is not target:
        n += 1
        key = "#" + name + "#" + str(n)
    return key


def _defer_form():
    """How [Defer] runs under torch.compile in this process: GRAPHMEND_DEFER, read once
    when torch is first seen.

    "in-graph" (the default): an op in the graph calls the site in program order, when
    the graph reaches it. "epilogue": the graph records the values (tensors copied where
    the call was) and the site is called once the graph has returned, before the
    compiled code goes on: no host code runs inside the graph, so CUDA graphs can
    capture it. The epilogue form's divergences are in `graphmend rule GM201`.
    """
    form = os.environ.get("GRAPHMEND_DEFER", "") or "in-graph"
    if form not in ("in-graph", "epilogue"):
        import warnings

        warnings.warn(
            "graphmend: GRAPHMEND_DEFER=" + repr(form) + " is neither 'in-graph' nor"
            " 'epilogue'; [Defer] effects run in-graph",
            stacklevel=2,
        )
        form = "in-graph"
    return form


class _Epilogue(types.ModuleType):
    """Where a graph's deferred effects wait for the graph to return.

    Under torch.compile, `_record` appends to `pending`. Dynamo traces that as a
    mutation of a module attribute and, once the graph has run, replays it: it stores
    the final `pending` with a real attribute store, which lands here and calls each
    recorded site in the order recorded. A graph that raises replays nothing.
    """

    def __setattr__(self, name, value):
        types.ModuleType.__setattr__(self, name, () if name == "pending" else value)
        if name == "pending":
            for qualified, args in value:
                _site(qualified)(*args)


def _deferred_call(qualified, args, carried):
    """A deferred call whose values can be carried, in this process's form: the in-graph
    op, or recorded for the graph's end."""
    if _state.defer_form == "epilogue":
        return _record(qualified, args)
    _emit(_state.sink, qualified, *carried)


def _record(qualified, args):
    """The epilogue form of a deferred call: under torch.compile, records it for the
    graph's end; otherwise (Dynamo runs this frame eagerly) makes it here."""
    if not torch.compiler.is_compiling():
        return _site(qualified)(*args)
    epilogue = _state.epilogue
    epilogue.pending = epilogue.pending + ((qualified, _snapshot(args)),)


def _snapshot(values):
    """The values with each tensor copied: the site sees them as they were at the call,
    whatever the graph does to them afterwards."""
    copied = []
    for v in values:
        if type(v) is torch.Tensor:
            v = v.clone()
        elif type(v) is tuple or type(v) is list:
            v = _snapshot(v)
        copied.append(v)
    return type(values)(copied)


def _check(key, site, cond, negate, *args):
    """[Trap] under torch.compile: when `cond` (or `not cond`) is true, raises what
    site(*args) raises; `site` an exception class, the exception site(*args) makes.

    The test runs inside the graph, in program order, so no break and no recompile
    between passing and failing inputs. A condition that is not a plain tensor, or a
    message value that cannot be carried, is tested right here, as the original `if`
    did. A tensor in the message is formatted by the site when the check fails, from
    the values the graph passed it. Under torch.export such a message cannot be made
    at export time: the test runs right here too, as the original `if` did.
    """
    exported = torch.compiler.is_exporting() and _plain_tensor(cond)
    if exported and not _holds_tensor(args):
        passed = cond.reshape(()).bool()
        if not negate:
            passed = torch.logical_not(passed)
        torch._assert_async(passed, _exported(site, args))
        return
    _make_ready()
    carried = _carry(args)
    if type(cond) is not torch.Tensor or carried is None:
        if bool(cond) != negate:
            _fail(site, args)
        return
    # A site helper is found by its module and name, an exception class as a callee.
    if isinstance(site, type):
        qualified = _callee_key(site) + "/"
    else:
        qualified = key + ":" + site.__name__
    _check_op(_state.sink, qualified, cond.detach(), negate, *carried)


def _holds_tensor(values):
    """Whether a tensor is among `values`, or inside their tuples and lists."""
    for v in values:
        if isinstance(v, torch.Tensor):
            return True
        if (type(v) is tuple or type(v) is list) and _holds_tensor(v):
            return True
    return False


def _exported(site, args):
    """Under torch.export, what a [Trap] check's failure says.

    An exported program (AOTInductor, a C++ runtime) runs without Python, so it cannot
    hold the in-graph ops, whose implementations are Python. Under torch.export only
    (eager and torch.compile are unchanged): a [Defer] effect is dropped (the exported
    program prints and logs nothing), and a [Trap] check becomes torch._assert_async,
    which raises RuntimeError("<Class>: <message>") with the original exception's class
    and message (asynchronously on CUDA). The message is made here, at export time, by
    calling the site helper, which raises it: its arguments are static values.
    """
    try:
        _fail(site, args)
    except Exception as error:  # noqa: BLE001 - whatever the site raises is the message
        return type(error).__name__ + ": " + str(error)
    return site.__name__


# graphmend-section: equal
def equal(a, b):
    """torch.equal(a, b) as a 0-d bool tensor, traceable by Dynamo.

    Shapes differing (a static test under Dynamo) give False, as torch.equal does, so
    broadcasting never passes a guard; otherwise elementwise ==, with torch.equal's type
    promotion and NaN != NaN.
    """
    if a.shape != b.shape:
        return torch.zeros((), dtype=torch.bool, device=a.device)
    return (a == b).all()


# graphmend-section: assert_async
def assert_async(cond, negate, message):
    """The opt-in asynchronous [Trap] tier: torch._assert_async instead of the original
    raise.

    Divergences: a failing input raises RuntimeError(message), not the original class;
    on CUDA the check is a device-side assert, reported at a later synchronisation,
    which poisons the context.
    """
    passed = cond.reshape(()).bool()
    if not negate:
        passed = torch.logical_not(passed)
    torch._assert_async(passed, message)


# graphmend-section: where
def selectable(conds, *groups):
    """True when torch.where gives exactly what the `if` would (static under Dynamo).

    Each condition (one, or a tuple for an elif chain) is a one-element tensor, else the
    `if` raises "ambiguous" and the original runs; each group of candidate values are
    plain contiguous tensors of one shape, dtype and device, so the selection neither
    broadcasts nor promotes.
    """
    for cond in conds if type(conds) is tuple else (conds,):
        if not _plain_tensor(cond) or cond.numel() != 1:
            return False
    for group in groups:
        first = group[0]
        for v in group:
            if not _plain_tensor(v) or not v.is_contiguous():
                return False
            if (
                v.shape != first.shape
                or v.dtype != first.dtype
                or v.device != first.device
            ):
                return False
    return True


def plain_tensors(*values):
    """True when every value is a plain torch.Tensor (static under Dynamo).

    graphmend checks this before a selection that read the values as tensors where the
    code alone did not say so (an unannotated or Optional parameter); otherwise the
    original `if` runs."""
    return all(_plain_tensor(v) for v in values)


def numbers(*values):
    """True when every value is a Python number (static under Dynamo) or a symbolic one.

    graphmend checks this before a selection whose branch, which the original may skip,
    uses a value as a number (`h > limit`, `torch.clamp(h, max=bound)`): a tensor there
    may not broadcast, and the selection computes every branch; otherwise the original
    `if` runs."""
    kinds = (int, float, torch.SymInt, torch.SymFloat)
    return all(isinstance(v, kinds) for v in values)


# The torch.nn classes whose forward returns new storage: never its input, a view of
# it, or a tensor held elsewhere.
_ALLOCATING_MODULES = (
    "LayerNorm",
    "Linear",
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "Embedding",
    "GroupNorm",
    "RMSNorm",
)


def _module_type(module):
    """The class of `module`. Non-strict torch.export, once a model shares a submodule
    between two paths, reaches submodules through proxies: instances of a class made
    from (_AttrProxy, the module's class) that share the module's __dict__. Under
    export such a proxy stands for its module, so its class is that module's."""
    if torch.compiler.is_exporting():
        tracing = sys.modules.get("torch.fx.experimental.proxy_tensor")
        proxy = getattr(tracing, "_AttrProxy", None)
        if proxy is not None and isinstance(module, proxy):
            return type(module.get_base())
    return type(module)


def _unhooked(module):
    """True when no hook, of `module` or global, can replace what its forward returns or
    wrap it (backward hooks do, on the way out)."""
    hooks = torch.nn.modules.module
    return not (
        module._forward_hooks
        or module._forward_pre_hooks
        or module._backward_hooks
        or module._backward_pre_hooks
        or hooks._global_forward_hooks
        or hooks._global_forward_pre_hooks
        or hooks._global_backward_hooks
        or hooks._global_backward_pre_hooks
    )


def allocating_module(module, name):
    """True when calling `module` returns a new tensor (static under Dynamo).

    It is an instance of exactly torch.nn.<name>, one of _ALLOCATING_MODULES, without a
    hook that could change its result (_unhooked). graphmend checks this before it
    selects (torch.where) in place of a value such a call made: then nothing else can
    hold the tensor the selection replaces."""
    if name not in _ALLOCATING_MODULES:
        return False
    return _module_type(module) is getattr(torch.nn, name) and _unhooked(module)


def user_module(module, cls):
    """True when calling `module` runs `cls.forward` and returns what it returns (static
    under Dynamo).

    `module` is an instance of exactly `cls`, an nn.Module class whose call is
    nn.Module's; its instance does not replace `forward`; and no hook can change the
    result (_unhooked). graphmend checks this before it selects in place of a value such
    a call made, having proved from the source of `cls.forward` that it returns new
    storage nothing else holds."""
    if _module_type(module) is not cls or not isinstance(module, torch.nn.Module):
        return False
    if cls.__call__ is not torch.nn.Module.__call__ or "forward" in module.__dict__:
        return False
    return _unhooked(module)


def where(cond, a, b):
    """The value the `if` selects: `a` when the condition's truth value is true, else
    `b`."""
    return torch.where(cond.reshape(()).bool(), a, b)


# graphmend-section: buffer
def buffer_slot(module, name):
    """True when `module.register_buffer(name, t, persistent=False)` does exactly
    `module._buffers[name] = t` (static under Dynamo): `name` is already a
    non-persistent buffer (nn.Module's own methods keep every such name in `_buffers`),
    register_buffer is nn.Module's, and no global buffer-registration hook is installed.

    Storing into `_buffers` directly keeps Dynamo from reading the old buffer, whose
    aliasing with another attribute would otherwise be guarded and force a recompile on
    the next call.
    """
    return (
        isinstance(module, torch.nn.Module)
        and type(module).register_buffer is torch.nn.Module.register_buffer
        and name in module._non_persistent_buffers_set
        and not torch.nn.modules.module._global_buffer_registration_hooks
    )


def unmoved(tensor, device):
    """True when `tensor.to(device)` returns `tensor` itself (static under Dynamo)."""
    return (
        type(tensor) is torch.Tensor
        and isinstance(device, torch.device)
        and tensor.device == device
    )


# graphmend-section: scalar
def scalar(tensor):
    """What `tensor.item()` gives, for a comparison with a number (static under Dynamo).

    For a tensor of one floating-point element: the value as a 0-d float64 tensor.
    Widening to float64 is exact, and a float64 comparison with a float (or an integer
    up to 2**53) is Python's, so the comparison's truth is the one `.item()` would give,
    with no graph break. Otherwise (an integer or boolean tensor, several elements, a
    NumPy array, ...) `.item()` itself: the original value, error and break."""
    if (
        isinstance(tensor, torch.Tensor)
        and tensor.dtype.is_floating_point
        and tensor.numel() == 1
    ):
        return tensor.reshape(()).double()
    return tensor.item()


_COMPARISONS = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
}


def item_compare(tensor, op, number):
    """`tensor.item() <op> number`, as a 0-d boolean tensor where that is exact.

    What decides is static under Dynamo: the tensor's type, dtype and element count,
    and the number's type and value. One floating-point element against a float, or an
    integer of at most 2**53: both widened to float64, where the comparison is Python's
    (NaN included). One integer or boolean element against an integer in int64's range:
    both as int64, exact. Otherwise (several elements, a complex or wide unsigned
    tensor, a NumPy array, a float against an integer tensor, ...) `.item()` itself,
    compared in Python: the original value, error and graph break."""
    compare = _COMPARISONS[op]
    if _plain_tensor(tensor) and tensor.numel() == 1 and type(number) in (int, float):
        if tensor.dtype.is_floating_point:
            if type(number) is float or -(2**53) <= number <= 2**53:
                return compare(tensor.reshape(()).double(), number)
        elif (
            tensor.dtype
            in (
                torch.bool,
                torch.uint8,
                torch.int8,
                torch.int16,
                torch.int32,
                torch.int64,
            )
            and type(number) is int
            and -(2**63) <= number < 2**63
        ):
            return compare(tensor.reshape(()).long(), number)
    return compare(tensor.item(), number)


# graphmend-section: end
# What each section sets up when its first traced call needs it (see _make_ready).
_SETUP = ("_setup_effects",)
# What bind() hands a module (the names defined above in the sections it was written
# with).
_PUBLIC = (
    "RUNTIME_VERSION",
    "compiling",
    "torch",
    "equal",
    "assert_async",
    "selectable",
    "allocating_module",
    "user_module",
    "plain_tensors",
    "numbers",
    "where",
    "buffer_slot",
    "unmoved",
    "scalar",
    "item_compare",
)
