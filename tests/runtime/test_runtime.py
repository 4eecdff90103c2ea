"""The runtime patched code calls (runtime/_graphmend_runtime.py), tested directly on real torch:
carrying values into the ops and back, one op registration per process however many copies are
loaded, reload, site lookup per module, and the failure paths."""

from __future__ import annotations

import hashlib
import json
import importlib.util
import pathlib
import subprocess
import sys
import types

import pytest
import torch

RUNTIME = pathlib.Path(__file__).resolve().parents[2] / "runtime" / "_graphmend_runtime.py"
# RUNTIME_VERSION -> sha256 of the file: a changed runtime must carry a new version, or packages
# patched earlier would keep a stale copy (graphmend rewrites the file only when versions differ).
RELEASED = {
    "3": "f4df64c24228f9a85d180db09eed82c498a9e9c3d6731d5bc43c9211a11c3ccd",
    "4": "4dcb186b2dbfe673301fbc9946508a02b772dbba8ad47057c6de6a18bca0e9bc",
    "5": "0914559cc6e4b70377fb43ed95f5b405580af811171d853022fc27c88c8a135b",
    "6": "26aaec652e1ffa4f42b64ae8daa08b3845876897cc08dfe423a5415af41e6639",
    "7": "da5e55cafe7e7dd5e2e7ee09bf5beca816f37539a6ce17ad99e8d7787d46576f",
    "8": "7451d08143127ff84fd62a8a6bbceec7da7ca22d372987fd16bce35867b146a2",
    "9": "6f4342d74587b5c6e8574b77ed2f2a0cd2cbc292bee9bfc19f1c3c243f6dcad8",
    "10": "e87b455ffdf29e02fdafd3ca398d0557d0fa272ad96f5abe032f14517290fc46",
    "11": "dad33bc69763cf32ada5e2e8eece388f7e19090938cc54d2aaf2f9a7f27f3c20",
    "12": "ae29bc45c2dce8efba1fd416ef39252918d807e35d1a9d103e4cdc1edd3dabc4",
    "13": "7cb82fbc8803c82416daaea79fc0c8d6a7ce9a1ef870f1e160572ba98a26cbc3",
    "14": "1566edba4cc355aea1251152766dad1dbe5fe3d95e2a090a10c156cb051c274b",
    "15": "5eb5c89eb5450374457937e6b4ec9dd0afc0a0a063c1ecdefc8b2f4839bfa9ab",
    "16": "4f6ad547b6507c82bdef505e553b2a50a8e56e101fb8fb0d837116c80c7f26a9",
    "17": "92fbcac9dce977dbfef4f86343dd03e3c820de43d585234be7368340f51f5c92",
    "18": "aa53d07254b635b1f2d83dd2e10eb812596b17f9e52ce197838883a3f772cfc7",
}


def load_copy(name: str) -> types.ModuleType:
    """A copy of the runtime as graphmend writes it into one package."""
    spec = importlib.util.spec_from_file_location(name, RUNTIME)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    assert module._load_torch()  # torch is imported here; bind() does the same
    return module


def host_module(name: str, runtime: types.ModuleType, source: str) -> types.ModuleType:
    """A patched module: `source` run with `_graphmend` bound as graphmend binds it."""
    module = types.ModuleType(name)
    sys.modules[name] = module
    module.__dict__["torch"] = torch
    module._graphmend = runtime.bind(module.__dict__)  # as the generated block does, first
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


@pytest.fixture(scope="module")
def rt():
    return load_copy("pkg_a._graphmend_runtime")


VALUES = [
    torch.arange(3.0),
    7,
    -2.5,
    True,
    False,
    "text with 'quotes' and \"more\"",
    None,
    torch.Size([2, 3]),
    torch.float16,
    (1, (2.0, "x"), [torch.ones(1), None]),
    [],
    (),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_carry_round_trip(rt, value):
    carried = rt._carry([value])
    assert carried is not None
    (back,) = rt._uncarry(*carried)
    assert type(back) is type(value)
    if isinstance(value, torch.Tensor):
        assert back is value
    else:
        assert repr(back) == repr(value)


@pytest.mark.parametrize(
    "value",
    [object(), {"a": 1}, torch.ones(1, requires_grad=True), 1j, b"bytes", (1, object())],
    ids=["object", "dict", "grad tensor", "complex", "bytes", "nested object"],
)
def test_uncarriable_values_are_refused(rt, value):
    assert rt._carry([value]) is None


def test_two_copies_share_one_registration(rt):
    other = load_copy("pkg_b._graphmend_runtime")
    rt._make_ready()  # what the first traced check or effect of each copy does
    other._make_ready()
    assert other._emit is rt._emit and other._check_op is rt._check_op
    assert other._state is rt._state
    assert rt._emit.name().startswith("graphmend_rt" + rt.RUNTIME_VERSION + "::")


def test_sites_of_each_module_are_called_back(rt, capsys):
    other = load_copy("pkg_c._graphmend_runtime")
    src = """
def _graphmend_print_f_0(a0):
    print(NAME, a0.tolist())

def f(x):
    y = x + 1
    if not _graphmend.compiling():
        print(NAME, y.tolist())
    else:
        _graphmend.defer(_graphmend_print_f_0, y)
    return y * 2
"""
    a = host_module("pkg_a.model", rt, "NAME = 'a'\n" + src)
    b = host_module("pkg_c.model", other, "NAME = 'b'\n" + src)
    torch._dynamo.reset()
    for module in (a, b):
        compiled = torch.compile(module.f, fullgraph=True, backend="aot_eager")
        assert torch.equal(compiled(torch.zeros(2)), torch.full((2,), 2.0))
    assert capsys.readouterr().out == "a [1.0, 1.0]\nb [1.0, 1.0]\n"


def test_same_name_modules_get_their_own_key(rt, capsys):
    src = """
def _graphmend_print_f_0():
    print(WHO)

def f(x):
    _graphmend.defer(_graphmend_print_f_0)
    return x
"""
    first = host_module("dup", rt, "WHO = 'first'\n" + src)
    second = host_module("dup", rt, "WHO = 'second'\n" + src)
    torch._dynamo.reset()
    for module in (first, second):
        torch.compile(module.f, fullgraph=True, backend="eager")(torch.zeros(1))
    assert capsys.readouterr().out == "first\nsecond\n"


def test_reload_keeps_the_registered_ops(rt, capsys):
    copy = load_copy("pkg_r._graphmend_runtime")
    copy._make_ready()
    emit = copy._emit
    copy.__spec__.loader.exec_module(copy)  # what importlib.reload does: the same dict, run again
    reloaded = copy
    reloaded._make_ready()
    assert reloaded._emit is emit is rt._emit
    m = host_module(
        "pkg_a.reloaded",
        reloaded,
        "def _graphmend_print_f_0(a0):\n    print('after reload', a0)\n"
        "def f(x):\n    _graphmend.defer(_graphmend_print_f_0, 3)\n    return x\n",
    )
    torch._dynamo.reset()
    torch.compile(m.f, fullgraph=True, backend="eager")(torch.zeros(1))
    assert capsys.readouterr().out == "after reload 3\n"


def test_uncarriable_argument_falls_back_to_the_original_call(rt, capsys):
    m = host_module(
        "pkg_a.fallback",
        rt,
        "def _graphmend_print_f_0(a0):\n    print('object', type(a0).__name__)\n"
        "def f(x):\n    _graphmend.defer(_graphmend_print_f_0, object())\n    return x + 1\n",
    )
    torch._dynamo.reset()
    out = torch.compile(m.f, backend="eager")(torch.zeros(1))  # a graph break, as the original
    assert torch.equal(out, torch.ones(1))
    assert capsys.readouterr().out == "object object\n"


def test_deferred_helper_replaces_the_callee_under_compile(rt, capsys):
    m = host_module(
        "pkg_a.callee",
        rt,
        """
@_graphmend.deferred
def _graphmend_print_0(a0, a1):
    print(a0, a1.tolist())

def f(x):
    (print if not _graphmend.compiling() else _graphmend_print_0)("value", x + 1)
    return x * 2
""",
    )
    assert m._graphmend_print_0.__graphmend_site__.__name__ == "_graphmend_print_0"
    torch._dynamo.reset()
    for backend in ("eager", "aot_eager"):
        out = torch.compile(m.f, fullgraph=True, backend=backend)(torch.zeros(2))
        assert torch.equal(out, torch.zeros(2))
    assert m.f(torch.ones(1)).tolist() == [2.0]  # eager: the original callee
    assert capsys.readouterr().out == "value [1.0, 1.0]\nvalue [1.0, 1.0]\nvalue tensor([2.])\n"


def test_call_defers_a_callee_written_as_code(rt, capsys):
    m = host_module(
        "pkg_a.by_code",
        rt,
        """
import functools, logging, sys
logger = logging.getLogger("graphmend.test.by_code")
logger.addHandler(logging.StreamHandler(sys.stdout))
logger.propagate = False

@functools.lru_cache(None)
def warning_once(self, *args):  # transformers' Logger.warning_once
    self.warning(*args)

logging.Logger.warning_once = warning_once

def f(x):
    _graphmend.call(print)("value", x + 1)
    _graphmend.call(logger).warning("%s items", x.numel())
    _graphmend.call(logger).warning_once("once")
    return x * 2
""",
    )
    torch._dynamo.reset()
    for backend in ("eager", "aot_eager"):
        out = torch.compile(m.f, fullgraph=True, backend=backend)(torch.zeros(2))
        assert torch.equal(out, torch.zeros(2))
    assert m.f(torch.ones(1)).tolist() == [2.0]  # eager: the callee itself, called in place
    graphs = []
    torch._dynamo.reset()
    torch.compile(m.f, fullgraph=True, backend=lambda gm, ex: graphs.append(gm) or gm.forward)(torch.zeros(2))
    sites = [n.args[1] for n in graphs[0].graph.nodes if "graphmend_rt" in str(n.target)]
    # named, not numbered by id(): the same graph in every process, for a compiled-graph cache
    assert sites == ["#builtins:print/", "#logger:graphmend.test.by_code/warning",
                     "#logger:graphmend.test.by_code/warning_once"]
    assert capsys.readouterr().out == (
        "value tensor([1., 1.])\n2 items\nonce\n" + "value tensor([1., 1.])\n2 items\n"
        + "value tensor([2.])\n1 items\n" + "value tensor([1., 1.])\n2 items\n"
    )


def test_call_with_a_class_name_in_an_f_string_makes_one_graph(rt, capsys):
    """`_graphmend.call(logger).warning(f"{self.__class__.__name__} ...")`: Dynamo makes the
    message a constant, as it did for the original call: no break, no recompile."""
    m = host_module(
        "pkg_a.class_name",
        rt,
        """
import logging, sys, torch
logger = logging.getLogger("graphmend.test.class_name")
logger.addHandler(logging.StreamHandler(sys.stdout))
logger.propagate = False

class Net(torch.nn.Module):
    def forward(self, x):
        _graphmend.call(logger).warning(f"{self.__class__.__name__} ignores padding")
        return x + 1
""",
    )
    torch._dynamo.reset()
    graphs = []
    compiled = torch.compile(m.Net(), fullgraph=True, backend=lambda gm, ex: graphs.append(gm) or gm.forward)
    for _ in range(2):
        compiled(torch.ones(2))
    m.Net()(torch.ones(1))
    assert capsys.readouterr().out == "Net ignores padding\n" * 3
    assert len(graphs) == 1


def test_call_of_a_rebound_logger_compiles_again_and_logs_to_the_new_one(rt, capsys):
    m = host_module(
        "pkg_a.rebound",
        rt,
        """
import logging, sys
def make(name):
    made = logging.getLogger(name)
    made.addHandler(logging.StreamHandler(sys.stdout))
    made.propagate = False
    made.handlers[0].setFormatter(logging.Formatter("%(name)s: %(message)s"))
    return made
logger = make("graphmend.test.first")

def f(x):
    _graphmend.call(logger).warning("%s", x.sum())
    return x + 1
""",
    )
    torch._dynamo.reset()
    graphs = []
    compiled = torch.compile(m.f, fullgraph=True, backend=lambda gm, ex: graphs.append(gm) or gm.forward)
    compiled(torch.ones(2))
    m.logger = m.make("graphmend.test.second")
    compiled(torch.ones(2))
    assert len(graphs) == 2  # Dynamo guards the logger's identity
    assert capsys.readouterr().out == "graphmend.test.first: tensor(2.)\ngraphmend.test.second: tensor(2.)\n"


def test_call_of_a_logger_logging_does_not_know_makes_the_original_call(rt, capsys):
    """A Logger built directly, not by getLogger, cannot be found again by the op: the call
    runs as written, and breaks the graph as the original did."""
    m = host_module(
        "pkg_a.unknown_logger",
        rt,
        """
import logging, sys
logger = logging.Logger("graphmend.test.unknown")
logger.addHandler(logging.StreamHandler(sys.stdout))

def f(x):
    _graphmend.call(logger).warning("%s", x.sum())
    return x + 1
""",
    )
    torch._dynamo.reset()
    out = torch.compile(m.f, backend="eager")(torch.ones(2))
    assert torch.equal(out, torch.full((2,), 2.0))
    assert capsys.readouterr().out == "tensor(2.)\n"
    with pytest.raises(torch._dynamo.exc.Unsupported):
        torch._dynamo.reset()
        torch.compile(m.f, backend="eager", fullgraph=True)(torch.ones(2))


def test_a_frame_dynamo_runs_eagerly_calls_the_runtime_as_plain_python(rt, capsys):
    """Dynamo runs a frame it gave up on eagerly and compiles what that frame calls one by one.
    The runtime's functions are not among them: the site runs as written, with no graph of
    its own (a deferred call compiled alone would add one graph per site)."""
    import torch._dynamo.eval_frame

    m = host_module(
        "pkg_a.given_up",
        rt,
        "def f(x):\n    _graphmend.call(print)('value', x + 1)\n    return x * 2\n",
    )
    rt.bind({"__name__": "pkg_a.after_dynamo"})  # Dynamo is imported now: this bind skips, if none did
    torch._dynamo.eval_frame.skip_code(m.f.__code__)  # what Dynamo does with a frame it gives up on
    torch._dynamo.reset()
    graphs = []
    out = torch.compile(m.f, backend=lambda gm, example: graphs.append(gm) or gm.forward)(torch.zeros(2))
    assert torch.equal(out, torch.zeros(2))
    assert graphs == []
    assert capsys.readouterr().out == "value tensor([1., 1.])\n"


def test_two_callees_of_one_name_are_kept_apart(rt):
    first, second = (lambda: None), (lambda: None)
    assert first.__qualname__ == second.__qualname__
    keys = [rt._registered_callee(f) for f in (first, second, first)]
    assert keys[0] != keys[1] and keys[2] == keys[0]
    assert rt._state.callees[keys[0]] is first and rt._state.callees[keys[1]] is second


def test_call_is_its_target_when_not_compiling(rt):
    m = host_module("pkg_a.lookup", rt, "")
    assert m._graphmend.call(print) is print
    assert m._graphmend.call(m) is m


def test_call_of_a_path_as_runtimes_13_to_15_wrote_it_still_defers(rt, capsys):
    m = host_module(
        "pkg_a.by_path_legacy",
        rt,
        """
import logging, sys
logger = logging.getLogger("graphmend.test.by_path")
logger.addHandler(logging.StreamHandler(sys.stdout))
logger.propagate = False

def f(x):
    _graphmend.call("print")("value", x + 1)
    _graphmend.call("logger.warning")("%s items", x.numel())
    return x * 2
""",
    )
    torch._dynamo.reset()
    for backend in ("eager", "aot_eager"):
        out = torch.compile(m.f, fullgraph=True, backend=backend)(torch.zeros(2))
        assert torch.equal(out, torch.zeros(2))
    assert m.f(torch.ones(1)).tolist() == [2.0]  # eager: the callee itself, called in place
    assert capsys.readouterr().out == (
        "value tensor([1., 1.])\n2 items\n" * 2 + "value tensor([2.])\n1 items\n"
    )


def test_call_of_a_path_finds_the_callee_as_the_module_does(rt):
    m = host_module("pkg_a.lookup", rt, "def print(*a):\n    return ('own', a)\nclass ns:\n    value = 3\n")
    assert m._graphmend.call("print")(1) == ("own", (1,))  # a global shadows the builtin
    assert m._graphmend.call("len")("abc") == 3  # else the builtin
    assert m._graphmend.call("ns.value") == 3
    with pytest.raises(NameError, match=r"^name 'missing' is not defined$"):
        m._graphmend.call("missing")
    with pytest.raises(AttributeError, match="has no attribute 'other'"):
        m._graphmend.call("ns.other")


def test_call_with_an_uncarriable_argument_makes_the_original_call(rt, capsys):
    m = host_module(
        "pkg_a.by_path_fallback",
        rt,
        "def f(x):\n    _graphmend.call(print)('object', type(object()).__name__, {})\n    return x + 1\n",
    )
    torch._dynamo.reset()
    out = torch.compile(m.f, backend="eager")(torch.zeros(1))  # a graph break, as the original
    assert torch.equal(out, torch.ones(1))
    assert capsys.readouterr().out == "object object {}\n"


def test_check_raises_the_sites_exception_from_the_graph(rt):
    m = host_module(
        "pkg_a.trap",
        rt,
        "def _graphmend_raise_f_0(a0):\n    raise ValueError('bad value ' + str(a0))\n"
        "def f(x):\n    _graphmend.check(_graphmend_raise_f_0, (x < 0).any(), False, 5)\n    return x * 3\n",
    )
    torch._dynamo.reset()
    compiled = torch.compile(m.f, fullgraph=True, backend="aot_eager")
    assert torch.equal(compiled(torch.ones(2)), torch.full((2,), 3.0))
    with pytest.raises(ValueError, match=r"^bad value 5$"):
        compiled(-torch.ones(2))


def test_check_of_an_exception_class_raises_it_from_the_graph(rt):
    """`_graphmend.check(ValueError, cond, negate, "message")`: the class and its literal
    arguments at the site, no helper; the same exception eager, compiled and exported."""
    m = host_module(
        "pkg_a.trap_class",
        rt,
        "def f(x):\n"
        "    _graphmend.check(ValueError, (x < 0).any(), False, 'negative input')\n"
        "    _graphmend.check(AssertionError, _graphmend.item_compare(x.max(), '<=', 10), True)\n"
        "    return x * 3\n",
    )
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        graphs = []
        compiled = torch.compile(m.f, fullgraph=True, backend=backend)
        assert torch.equal(compiled(torch.ones(2)), torch.full((2,), 3.0))
        with pytest.raises(ValueError, match=r"^negative input$"):
            compiled(-torch.ones(2))
        with pytest.raises(AssertionError, match=r"^$"):
            compiled(torch.full((2,), 11.0))
    with pytest.raises(ValueError, match=r"^negative input$"):
        m.f(-torch.ones(2))  # not compiling: tested in place

    class M(torch.nn.Module):
        def forward(self, x):
            return m.f(x)

    exported = torch.export.export(M(), (torch.ones(2),)).module()
    with pytest.raises(RuntimeError, match="ValueError: negative input"):
        exported(-torch.ones(2))


def test_check_on_a_python_condition_tests_it_in_place(rt):
    m = host_module(
        "pkg_a.trap_static",
        rt,
        "def _graphmend_raise_f_0():\n    raise TypeError('static')\n"
        "def f(x, flag):\n    _graphmend.check(_graphmend_raise_f_0, flag, True)\n    return x\n",
    )
    assert torch.equal(m.f(torch.ones(1), True), torch.ones(1))
    with pytest.raises(TypeError, match="static"):
        m.f(torch.ones(1), False)


def test_host_ops_are_kept_out_of_cuda_graphs(rt):
    """A CUDA graph replays kernels, not the Python an op runs: Inductor's own test must call
    both ops unsafe to capture, whatever device it infers for them."""
    from torch._inductor.utils import is_cudagraph_unsafe_fx_node

    rt._load_torch()
    rt._make_ready()  # the ops are registered when first traced, whichever test traced first
    graph = torch.fx.Graph()
    for op in (rt._emit, rt._check_op):
        assert torch.Tag.cudagraph_unsafe in op.tags
        assert is_cudagraph_unsafe_fx_node(graph.call_function(op, ()))


@pytest.fixture
def epilogue(rt, monkeypatch):
    """The runtime with [Defer]'s epilogue form selected, as GRAPHMEND_DEFER=epilogue selects
    it for a whole process."""
    rt._load_torch()
    rt._make_ready()  # set up first, so that the form patched here is restored afterwards
    monkeypatch.setattr(rt._state, "defer_form", "epilogue")
    torch._dynamo.reset()
    yield rt
    torch._dynamo.reset()


EPILOGUE_SOURCE = """
import logging, sys
logger = logging.getLogger("graphmend.test.epilogue")
logger.addHandler(logging.StreamHandler(sys.stdout))
logger.propagate = False

@_graphmend.deferred
def _graphmend_print_0(a0, a1):
    print(a0, a1)

def inner(x):
    y = x * 2
    (print if not _graphmend.compiling() else _graphmend_print_0)(y, y.shape)
    y.add_(1)  # after the call: the call shows y as it was
    _graphmend.call(logger).warning("%s then %s %s", y, torch.float16, (1, [2.5, None]))
    return y

def f(x):
    y = inner(x)
    if BREAK:
        print("an unfixed break")
    _graphmend.call(print)("last", y.sum())
    return y * 3
"""


def run_and_capture(call, capsys):
    result = call()
    return result, capsys.readouterr().out


def test_epilogue_form_emits_what_eager_emits_after_the_graph(epilogue, capsys):
    m = host_module("pkg_a.epilogue", epilogue, EPILOGUE_SOURCE)
    m.BREAK = False
    inputs = (torch.ones(2), torch.full((2,), -3.0))
    expected = [run_and_capture(lambda: m.f(x), capsys) for x in inputs]
    assert expected[0][1] == (
        "tensor([2., 2.]) torch.Size([2])\ntensor([3., 3.]) then torch.float16 (1, [2.5, None])\n"
        "last tensor(6.)\n"
    )
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        graphs = []

        def counting(gm, example, backend=backend):
            graphs.append(gm)
            return torch._dynamo.lookup_backend(backend)(gm, example)

        compiled = torch.compile(m.f, fullgraph=True, backend=counting)
        for x, (out, text) in zip(inputs, expected):
            got, got_text = run_and_capture(lambda x=x: compiled(x), capsys)
            assert torch.equal(got, out), backend
            assert got_text == text, backend
        assert len(graphs) == 1, backend  # no break, and no recompile for other values
        ops = [n for n in graphs[0].graph.nodes if "graphmend_rt" in str(n.target)]
        assert ops == [], "the epilogue form leaves no host op in the graph"


def test_epilogue_form_keeps_program_order_around_a_remaining_break(epilogue, capsys):
    m = host_module("pkg_a.epilogue_break", epilogue, EPILOGUE_SOURCE)
    m.BREAK = True
    compiled = torch.compile(m.f, backend="aot_eager")
    _, text = run_and_capture(lambda: compiled(torch.ones(2)), capsys)
    assert text == (
        "tensor([2., 2.]) torch.Size([2])\ntensor([3., 3.]) then torch.float16 (1, [2.5, None])\n"
        "an unfixed break\nlast tensor(6.)\n"
    )


def test_in_graph_form_places_one_host_op_per_deferred_call(rt, capsys):
    m = host_module("pkg_a.in_graph", rt, EPILOGUE_SOURCE)
    m.BREAK = False
    torch._dynamo.reset()
    graphs = []
    compiled = torch.compile(m.f, fullgraph=True, backend=lambda gm, ex: graphs.append(gm) or gm.forward)
    _, text = run_and_capture(lambda: compiled(torch.ones(2)), capsys)
    assert rt._state.defer_form == "in-graph"  # the default
    assert text.startswith("tensor([2., 2.]) torch.Size([2])") and text.endswith("last tensor(6.)\n")
    ops = [n for n in graphs[0].graph.nodes if "graphmend_rt" in str(n.target)]
    assert len(ops) == 3


def test_epilogue_form_loses_the_effects_of_a_graph_that_raises(epilogue, rt, capsys, monkeypatch):
    """The epilogue form's stated divergence: effects wait for the graph to return, so a [Trap]
    check that fails later in the same graph raises without them. The in-graph form emits
    them first, as eager does."""
    source = (
        "def _graphmend_raise_f_0():\n    raise ValueError('negative')\n"
        "def f(x):\n    _graphmend.call(print)('seen', x.sum())\n"
        "    _graphmend.check(_graphmend_raise_f_0, (x < 0).any(), False)\n    return x\n"
    )
    m = host_module("pkg_a.epilogue_raises", epilogue, source)
    compiled = torch.compile(m.f, fullgraph=True, backend="aot_eager")
    with pytest.raises(ValueError, match="^negative$"):
        compiled(-torch.ones(2))
    assert capsys.readouterr().out == ""
    monkeypatch.setattr(rt._state, "defer_form", "in-graph")
    torch._dynamo.reset()
    compiled = torch.compile(m.f, fullgraph=True, backend="aot_eager")
    with pytest.raises(ValueError, match="^negative$"):
        compiled(-torch.ones(2))
    assert capsys.readouterr().out == "seen tensor(-2.)\n"


@pytest.mark.parametrize(
    "value, form, warns",
    [(None, "in-graph", False), ("", "in-graph", False), ("in-graph", "in-graph", False),
     ("epilogue", "epilogue", False), ("later", "in-graph", True)],
)
def test_defer_form_is_chosen_per_process_by_the_environment(value, form, warns):
    import os
    import subprocess

    script = f"""
import importlib.util, sys, warnings
warnings.simplefilter("always")
import torch
spec = importlib.util.spec_from_file_location("pkg_y._graphmend_runtime", {str(RUNTIME)!r})
rt = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = rt
spec.loader.exec_module(rt)
rt.bind({{"__name__": "host"}})
assert rt._state.defer_form is None  # nothing is set up at import
rt._make_ready()  # what the first traced effect does
print(rt._state.defer_form)
"""
    env = {k: v for k, v in os.environ.items() if k != "GRAPHMEND_DEFER"}
    if value is not None:
        env["GRAPHMEND_DEFER"] = value
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.stdout.strip() == form, done.stderr
    assert ("is neither 'in-graph' nor 'epilogue'" in done.stderr) == warns


def test_selection_helpers(rt):
    a, b = torch.ones(2), torch.zeros(2)
    assert rt.selectable(torch.tensor(True), (a, b))
    assert not rt.selectable(torch.tensor([True, False]), (a, b))  # the `if` would raise
    assert not rt.selectable(torch.tensor(True), (a, torch.zeros(3)))  # would broadcast
    assert not rt.selectable(torch.tensor(True), (a, b.double()))  # would promote
    assert torch.equal(rt.where(torch.tensor([1]), a, b), a)
    assert bool(rt.equal(a, a.clone())) and not bool(rt.equal(a, torch.ones(3)))
    assert not bool(rt.equal(torch.tensor([float("nan")]), torch.tensor([float("nan")])))


def test_buffer_helpers(rt):
    module = torch.nn.Module()
    module.register_buffer("table", torch.ones(1), persistent=False)
    module.register_buffer("kept", torch.ones(1))
    assert rt.buffer_slot(module, "table")
    assert not rt.buffer_slot(module, "kept")
    assert rt.unmoved(torch.ones(1), torch.device("cpu"))
    assert not rt.unmoved(torch.ones(1), "cpu")


def test_allocating_module_holds_only_for_torch_classes_without_hooks(rt):
    norm = torch.nn.LayerNorm(4)
    assert rt.allocating_module(norm, "LayerNorm")
    assert rt.allocating_module(torch.nn.Linear(2, 2), "Linear")
    assert not rt.allocating_module(norm, "Linear"), "another class"
    assert not rt.allocating_module(torch.nn.Identity(), "Identity"), "a class that returns its input"

    class Norm(torch.nn.LayerNorm):
        pass

    assert not rt.allocating_module(Norm(4), "LayerNorm"), "a subclass may override forward"
    for register in (norm.register_forward_hook, norm.register_forward_pre_hook,
                     norm.register_full_backward_hook, norm.register_full_backward_pre_hook):
        handle = register(lambda *args: None)
        assert not rt.allocating_module(norm, "LayerNorm")
        handle.remove()
    module_hooks = torch.nn.modules.module
    for register in (module_hooks.register_module_forward_hook, module_hooks.register_module_forward_pre_hook,
                     module_hooks.register_module_full_backward_hook,
                     module_hooks.register_module_full_backward_pre_hook):
        handle = register(lambda *args: None)
        assert not rt.allocating_module(norm, "LayerNorm")
        handle.remove()
    assert rt.allocating_module(norm, "LayerNorm")


def test_user_module_holds_only_for_that_exact_class_running_its_own_forward(rt):
    class Centred(torch.nn.Module):
        def forward(self, x):
            return x - x.mean()

    class Sub(Centred):
        pass

    class CustomCall(Centred):
        def __call__(self, x):
            return x

    class NotAModule:
        def forward(self, x):
            return x - x.mean()

    norm = Centred()
    assert rt.user_module(norm, Centred)
    assert not rt.user_module(norm, Sub), "another class"
    assert not rt.user_module(Sub(), Centred), "a subclass may override forward"
    assert not rt.user_module(CustomCall(), CustomCall), "a call that is not nn.Module's"
    assert not rt.user_module(NotAModule(), NotAModule)
    own = Centred()
    own.forward = lambda x: x
    assert not rt.user_module(own, Centred), "the instance's own forward"
    for register in (norm.register_forward_hook, norm.register_forward_pre_hook,
                     norm.register_full_backward_hook, norm.register_full_backward_pre_hook):
        handle = register(lambda *args: None)
        assert not rt.user_module(norm, Centred)
        handle.remove()
    module_hooks = torch.nn.modules.module
    for register in (module_hooks.register_module_forward_hook, module_hooks.register_module_forward_pre_hook,
                     module_hooks.register_module_full_backward_hook,
                     module_hooks.register_module_full_backward_pre_hook):
        handle = register(lambda *args: None)
        assert not rt.user_module(norm, Centred)
        handle.remove()
    assert rt.user_module(norm, Centred)


def test_plain_tensors_accepts_only_plain_tensors(rt):
    assert rt.plain_tensors(torch.ones(1), torch.zeros(2, dtype=torch.int64))
    assert rt.plain_tensors()
    for other in (None, 1.0, 3, True, [torch.ones(1)], torch.nn.Parameter(torch.ones(1))):
        assert not rt.plain_tensors(torch.ones(1), other), other

    class Sub(torch.Tensor):
        pass

    assert not rt.plain_tensors(torch.ones(1).as_subclass(Sub))


def test_numbers_accepts_only_python_numbers(rt):
    assert rt.numbers(1, 2.5, True, -0.0) and rt.numbers()
    for other in (torch.tensor(2.0), torch.ones(2), None, "1", [1.0], (2,)):
        assert not rt.numbers(1.0, other), other


def test_the_allocating_modules_are_those_of_the_table_of_api_facts(rt):
    """The runtime's list is a copy of the analysis's facts (src/analysis/api_facts.cpp,
    `AllocatingModule`): the rewrite proves with one, the runtime checks with the other."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "scripts"))
    import api_facts_docs

    table = {
        row.name.removeprefix("torch.nn.")
        for row in api_facts_docs.rows()
        if row.space == "Global" and "AllocatingModule" in row.facts
    }
    assert table and set(rt._ALLOCATING_MODULES) == table


def test_allocating_modules_return_new_storage(rt):
    """Each listed class, called, returns storage that none of its inputs or tensors share."""
    x3 = torch.randn(1, 4, 4, 4, 4)
    cases = {
        "LayerNorm": (torch.nn.LayerNorm(4), torch.randn(2, 4)),
        "Linear": (torch.nn.Linear(4, 4), torch.randn(2, 4)),
        "Conv1d": (torch.nn.Conv1d(4, 4, 1), torch.randn(1, 4, 4)),
        "Conv2d": (torch.nn.Conv2d(4, 4, 1), torch.randn(1, 4, 4, 4)),
        "Conv3d": (torch.nn.Conv3d(4, 4, 1), x3),
        "Embedding": (torch.nn.Embedding(4, 4), torch.tensor([0, 1])),
        "GroupNorm": (torch.nn.GroupNorm(2, 4), torch.randn(1, 4, 3)),
        "RMSNorm": (torch.nn.RMSNorm(4), torch.randn(2, 4)),
    }
    assert set(cases) == set(rt._ALLOCATING_MODULES)
    for name, (module, x) in cases.items():
        assert rt.allocating_module(module, name)
        held = [x, *module.parameters(), *module.buffers()]
        for grad in (False, True):
            with torch.set_grad_enabled(grad):
                out = module(x)
            ptr = out.untyped_storage().data_ptr()
            assert all(ptr != t.untyped_storage().data_ptr() for t in held), name


def test_source_can_be_embedded_and_inlined():
    text = RUNTIME.read_text()
    assert "'''" not in text, "the inline form wraps the source in r'''...'''"
    assert ')gmrt"' not in text, "the build embeds the source in R\"gmrt(...)gmrt\""
    assert "\\'''" not in text and not text.rstrip("\n").endswith("\\")


def test_version_changes_with_the_source(rt):
    digest = hashlib.sha256(RUNTIME.read_bytes()).hexdigest()
    assert RELEASED.get(rt.RUNTIME_VERSION) == digest, (
        "runtime/_graphmend_runtime.py changed: give it a new RUNTIME_VERSION and record "
        f'"{rt.RUNTIME_VERSION}": "{digest}" (or the new version) in RELEASED'
    )


def test_bound_before_torch_is_imported(tmp_path):
    """A module patched by graphmend never makes its import import torch: bound first, it runs
    its original code (compiling() is False); once torch is imported, the next bind completes
    every earlier view."""
    script = f"""
import importlib.util, sys, types
spec = importlib.util.spec_from_file_location("pkg_x._graphmend_runtime", {str(RUNTIME)!r})
rt = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = rt
spec.loader.exec_module(rt)
early = rt.bind({{"__name__": "early"}})
assert "torch" not in sys.modules, "binding imported torch"
assert early.compiling() is False and not hasattr(early, "defer")
import torch
late = rt.bind({{"__name__": "late"}})
assert early.compiling is torch.compiler.is_compiling and callable(early.defer)
assert late.where is early.where
print("ok")
"""
    import subprocess

    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


@pytest.mark.parametrize(
    "tensor,op,number",
    [
        (torch.tensor(9983.5, dtype=torch.bfloat16), "<", 9984),  # bfloat16 would round 9983.5 up
        (torch.tensor([65504.0], dtype=torch.float16), "<", 65504.5),
        (torch.tensor(float("nan")), "!=", 0),
        (torch.tensor(float("nan")), "<=", 1.0),
        (torch.tensor(2**53 + 1, dtype=torch.int64), ">", 2**53),  # exact as int64, not float64
        (torch.tensor(-(2**63), dtype=torch.int64), "==", -(2**63)),
        (torch.tensor(True), "==", 1),
        (torch.tensor(255, dtype=torch.uint8), ">=", 255),
        (torch.tensor([[3]], dtype=torch.int32), "!=", 3),
    ],
)
def test_item_compare_is_pythons_comparison_in_a_tensor(rt, tensor, op, number):
    import operator

    compare = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
               "==": operator.eq, "!=": operator.ne}[op]
    got = rt.item_compare(tensor, op, number)
    assert type(got) is torch.Tensor and got.dtype == torch.bool and got.shape == ()
    assert bool(got) == compare(tensor.item(), number)


@pytest.mark.parametrize(
    "tensor,number",
    [
        (torch.tensor(3, dtype=torch.int64), 2.5),  # a float against an integer tensor
        (torch.tensor(1.0), 2**53 + 1),  # an integer with no exact float64
        (torch.tensor(1, dtype=torch.int64), 2**63),  # outside int64
        (torch.tensor(1 + 2j), 0),  # complex
        (torch.nn.Parameter(torch.tensor(1.0)), 0),  # not a plain tensor
    ],
)
def test_item_compare_takes_item_where_a_tensor_could_differ(rt, tensor, number):
    assert rt.item_compare(tensor, "!=", number) is (tensor.item() != number)


def test_item_compare_of_several_elements_raises_what_item_raises(rt):
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        rt.item_compare(torch.ones(2), "<", 3)


IMPORT_SIDE_EFFECTS = r"""
import json, sys
import torch, torch._dynamo
import torch._dynamo.eval_frame as eval_frame

skipped = []
_skip_code = eval_frame.skip_code
eval_frame.skip_code = lambda code: (skipped.append(code), _skip_code(code))[1]
def ops():
    return sorted(n for n in torch._C._dispatch_get_all_op_names() if n.startswith("graphmend_rt"))
def config():
    return {k: repr(v) for k, v in torch._dynamo.config.get_config_copy().items()}
before = config()
sys.path.insert(0, sys.argv[1])
import pkg.model as model
facts = {"ops_at_import": ops(), "skipped_at_import": len(skipped), "config_changed": config() != before}
x = torch.ones(3)
model.f(x)  # eager: the original code
facts["ops_after_eager"] = ops()
compiled = torch.compile(model.f, backend="aot_eager", fullgraph=True)
compiled(x)
facts["ops_after_compile"] = ops()
facts["skipped_after_compile"] = len(skipped)
print(json.dumps(facts))
"""


def test_importing_a_patched_module_changes_nothing_in_torch(tmp_path):
    """Issue 47, item 2: importing a patched module (and running it eagerly) registers no
    operator, marks no code for Dynamo and leaves Dynamo's configuration as it was; the first
    compiled call does that, once."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "_graphmend_runtime.py").write_bytes(RUNTIME.read_bytes())
    (pkg / "model.py").write_text(
        "import torch\n\n"
        '_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())\n\n\n'
        "def _graphmend_print_f_0(a0):\n    print(a0)\n\n\n"
        "def f(x):\n"
        "    if not _graphmend.compiling():\n        print(x.shape)\n"
        "    else:\n        _graphmend.defer(_graphmend_print_f_0, x.shape)\n"
        "    return x + 1\n"
    )
    out = subprocess.run([sys.executable, "-c", IMPORT_SIDE_EFFECTS, str(tmp_path)], capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    facts = json.loads(out.stdout.strip().splitlines()[-1])
    assert facts["ops_at_import"] == [] and facts["skipped_at_import"] == 0
    assert not facts["config_changed"]
    assert facts["ops_after_eager"] == []
    assert facts["ops_after_compile"] and facts["skipped_after_compile"] > 0
