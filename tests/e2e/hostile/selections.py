"""Issue 45, defects 1, 2 and 4, as hostile testing wrote them: [Where] sites whose branches bind
several names, compute with Python ints torch cannot hold, or run in functions that read their own
frame or bind graphmend's names. Each must be fixed exactly or declined."""
import torch

N_HUGE = 10**30


def chained(x):
    if x.sum() > 0:
        y = z = x * 2
    else:
        y = z = x - 1
    return y, z


def walrus_in_branch(x):
    if x.sum() > 0:
        y = (z := x * 2) + 1
    else:
        y = x - 1
        z = x
    return y, z


def walrus_keeps_prior(x):
    z = x * 3
    if x.sum() > 0:
        y = (z := x * 2) + 1
    else:
        y = x - 1
    return y, z


def huge_int_untaken(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x * 2**70
    return y


def huge_module_constant(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x * N_HUGE
    return y


def huge_clamp(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = torch.clamp(x, min=-(2**70))
    return y


def huge_subtraction(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 2**64
    return y


def huge_elif(x):
    s = x.sum()
    if s > 0:
        y = x * 2
    elif s > 2**70:
        y = x * 3
    else:
        y = -x
    return y


def reads_locals(x):
    h = x * 2
    if h.sum() > 0:
        h = h + 1
    return sorted(locals())


def reads_vars(x):
    h = x * 2
    if h.sum() > 0:
        h = h + 1
    return sorted(vars())


def take(x=None, h=None):
    return h


def passes_locals(x):
    h = x * 2
    if h.sum() > 0:
        h = h + 1
    return take(**locals())


def own_done_flag(x: torch.Tensor):
    _graphmend_done = True
    h = x * 2
    if h.sum() > 0:
        h = h + 1
    return h, _graphmend_done


def own_condition_name(x: torch.Tensor):
    _graphmend_c = 5
    h = x * 2
    if h.sum() > 0:
        h = h + 1
    return h, _graphmend_c


FUNCTIONS = ["chained", "walrus_in_branch", "walrus_keeps_prior", "huge_int_untaken", "huge_module_constant",
             "huge_clamp", "huge_subtraction", "huge_elif", "reads_locals", "reads_vars", "passes_locals",
             "own_done_flag", "own_condition_name"]
EAGER_ONLY = ["reads_locals", "reads_vars", "passes_locals"]  # a graph break's resumed frame has Dynamo's locals
EAGER_REFERENCE = []
chained_compiled = torch.compile(chained)
walrus_in_branch_compiled = torch.compile(walrus_in_branch)
walrus_keeps_prior_compiled = torch.compile(walrus_keeps_prior)
huge_int_untaken_compiled = torch.compile(huge_int_untaken)
huge_module_constant_compiled = torch.compile(huge_module_constant)
huge_clamp_compiled = torch.compile(huge_clamp)
huge_subtraction_compiled = torch.compile(huge_subtraction)
huge_elif_compiled = torch.compile(huge_elif)
reads_locals_compiled = torch.compile(reads_locals)
reads_vars_compiled = torch.compile(reads_vars)
passes_locals_compiled = torch.compile(passes_locals)
own_done_flag_compiled = torch.compile(own_done_flag)
own_condition_name_compiled = torch.compile(own_condition_name)


def cases():
    inputs = [(torch.ones(3),), (-torch.ones(3),), (torch.tensor([1.0, float("nan"), 2.0]),)]
    return {name: inputs for name in FUNCTIONS}
