"""GM412: a tensor as a slice bound (`x[:n]`, `x[s:e] = v`, `l[:n]`, `x[::k]`, `slice(0, n)`) makes
Dynamo ask the tensor for a Python int (`.item()`), which it cannot trace. The break lands in the
middle of building the slice, where Dynamo cannot resume: it compiles the graph up to the last
point it can resume from and runs the rest of the function eagerly. So a later slice in the same
block is never traced, and only the first is a break site until it is fixed; a slice in a branch
that did not run leaves the later one traced (both arms are run below).

Bounds read from shapes (`y.shape[0] // 2`, `y.size(0) - 1`, `len(y)`), a Python int argument,
and a tensor used as an index rather than a bound (`y[n]`) break nothing. A bound taken with
`.item()` breaks at the `.item()` (GM401), not at the slice. A slice in a helper breaks in the
helper's frame.

A slice inside a loop, and a bound that is an input of the compiled function, are in
slice_bounds_logged.py: `explain` does not show those breaks where they happen."""
import torch


@torch.compile
def stop_bound(x: torch.Tensor):
    y = x * 2
    n = (y > 0).sum()
    z = y[:n]  # expect: GM412 reported
    return z + 1


@torch.compile
def cumsum_bounds(x: torch.Tensor):
    y = x * 2
    bounds = torch.cumsum(torch.tensor([1, 2, 3]), 0)
    start = bounds[0]
    end = bounds[1]
    z = y[start:end]  # expect: GM412 reported
    return z * 3


@torch.compile
def step_bound(x: torch.Tensor):
    y = x * 2
    step = (y > 100).sum() + 1
    return y[::step] + 1  # expect: GM412 reported


@torch.compile
def second_dimension(x: torch.Tensor):
    y = x * 2
    n = (y > 0).sum()
    return y[..., 1:n] + 1  # expect: GM412 reported


@torch.compile
def stored_slice(x: torch.Tensor):
    y = x * 2
    n = (y > 0).sum()
    y[:n] = 0  # expect: GM412 reported
    return y + 1


@torch.compile
def list_slice(x: torch.Tensor):
    y = x * 2
    n = (y > 0).sum()
    weights = [1.0, 2.0, 3.0, 4.0]
    return y + weights[:n][0]  # expect: GM412 reported


@torch.compile
def slice_object(x: torch.Tensor):
    y = x * 2
    n = (y > 0).sum()
    return y[slice(0, n)] + 1  # expect: GM412 reported


@torch.compile
def constant_tensor_bound(x: torch.Tensor):
    y = x * 2
    n = torch.tensor(2)
    return y[:n] + 1  # expect: GM412 reported


@torch.compile
def two_slices(x: torch.Tensor):
    y = x * 2
    n = (y > 0).sum()
    head = y[:n]  # expect: GM412 reported
    head = head * 3
    tail = y[n:]
    return head, tail


@torch.compile
def slice_in_branch(x: torch.Tensor, flag: bool):
    y = x * 2
    n = (y > 0).sum()
    if flag:
        head = y[:n]  # expect: GM412 reported
    else:
        head = y
    tail = y[n:]  # expect: GM412 reported
    return head, tail


def take(t: torch.Tensor, k):
    return t[:k] * 2  # expect: GM412 reported


@torch.compile
def through_helper(x: torch.Tensor):
    y = x * 2
    n = (y > 0).sum()
    z = take(y, n)
    return z + 1


@torch.compile
def static_bounds(x: torch.Tensor, k: int):
    y = x * 2
    half = y.shape[0] // 2
    a = y[:half]
    b = y[: y.size(0) - 1]
    c = y[: len(y) - 2]
    d = y[:k]
    return a.sum() + b.sum() + c.sum() + d.sum()


@torch.compile
def index_not_bound(x: torch.Tensor):
    y = x * 2
    n = torch.tensor(2)
    return y[n] + 1


@torch.compile
def bound_from_item(x: torch.Tensor):
    y = x * 2
    n = int((y > 0).sum().item())  # expect: GM401 declined item-not-assigned
    return y[:n] + 1


def cases():
    x = torch.randn(10, 4)
    return [
        (stop_bound, (x,)),
        (cumsum_bounds, (x,)),
        (step_bound, (x,)),
        (second_dimension, (x,)),
        (stored_slice, (x,)),
        (list_slice, (x,)),
        (slice_object, (x,)),
        (constant_tensor_bound, (x,)),
        (two_slices, (x,)),
        (slice_in_branch, (x, True)),
        (slice_in_branch, (x, False)),
        (through_helper, (x,)),
        (static_bounds, (x, 3)),
        (index_not_bound, (x,)),
        (bound_from_item, (x,)),
    ]
