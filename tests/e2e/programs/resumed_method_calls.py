"""GM415: a tensor method whose arguments hold a data-dependent-shape break (GM404). Python binds
`t.method` before it evaluates the arguments; Dynamo breaks inside them, resumes in a new frame
with the bound method on its stack, and cannot call it ("Attempted to call function marked as
skipped", logged at the call's first line). A call's annotation says whether it breaks so
(`GM415 reported`, which the golden fixture tests/fixtures/GM415 checks too); `log_cases()` lists
the calls, and test_resumed_method_calls.py compares Dynamo's graph-break log with them and with
graphmend's findings."""
import torch


@torch.compile
def masked_scatter_of_selection(x: torch.Tensor, mask: torch.BoolTensor):
    """higgs-audio v2's decoder layer: the selected rows, normalised, scattered back."""
    y = x.masked_scatter(  # expect: GM415 reported -- bound before its arguments
        mask.unsqueeze(-1),
        torch.nn.functional.layer_norm(x[mask], (3,)),  # expect: GM404 reported
    )
    return y


@torch.compile
def add_of_a_sum(x: torch.Tensor, mask: torch.BoolTensor):
    return x.add(x[mask].sum())  # expect: GM404 reported, GM415 reported


@torch.compile
def chained_receiver(x: torch.Tensor, mask: torch.BoolTensor):
    return x.mul(2).add(torch.nonzero(mask).sum())  # expect: GM404 reported, GM415 reported


@torch.compile
def torch_function(x: torch.Tensor, mask: torch.BoolTensor):
    return torch.cat([x, x[mask]])  # expect: GM404 reported -- torch.cat is known by identity


@torch.compile
def own_statement(x: torch.Tensor, mask: torch.BoolTensor):
    selected = x[mask]  # expect: GM404 reported
    return x.add(selected.sum())


@torch.compile
def list_append(x: torch.Tensor, mask: torch.BoolTensor):
    out = []
    out.append(x[mask])  # expect: GM404 reported -- a list's method is taken
    return out[0]


@torch.compile
def in_a_loop(x: torch.Tensor, mask: torch.BoolTensor, steps: int):
    for _ in range(steps):
        x = x.add(x[mask].sum())  # expect: GM404 reported -- the function is skipped, nothing resumes
    return x


@torch.compile
def in_a_try(x: torch.Tensor, mask: torch.BoolTensor):
    try:
        y = x.add(x[mask].sum())  # expect: GM404 reported -- the function is skipped, nothing resumes
    finally:
        x = x * 1
    return y


def log_cases():
    x = torch.randn(4, 3)
    mask = torch.tensor([True, False, True, True])
    return [
        (masked_scatter_of_selection, (x, mask)),
        (add_of_a_sum, (x, mask)),
        (chained_receiver, (x, mask)),
        (torch_function, (x, mask)),
        (own_statement, (x, mask)),
        (list_append, (x, mask)),
        (in_a_loop, (x, mask, 2)),
        (in_a_try, (x, mask)),
    ]
