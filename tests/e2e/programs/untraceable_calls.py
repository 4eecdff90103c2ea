"""GM409: calls Dynamo does not trace split the graph at the call. Each is followed by tensor work,
so every split shows. The near relatives Dynamo does trace (random.randint, random.uniform,
torch.seed, a deepcopy of plain Python values, str of a size, an f-string of a tensor) break nothing
and are not reported."""
import copy
import datetime
import os
import random
import sys
import time
import uuid
from time import perf_counter as clock

import torch


@torch.compile
def timed(x: torch.Tensor):
    y = x.sin()
    start = time.time()
    y = y + 1
    tick = time.perf_counter()
    y = y * 2
    mono = time.monotonic()
    y = y - 1
    time.sleep(0)
    y = y.cos()
    stamp = datetime.datetime.now()
    y = y + 3
    pid = os.getpid()
    y = y * 3
    token = uuid.uuid4()
    y = y - 3
    lap = clock()
    y = y.sin()
    return y, (start, tick, mono, stamp, pid, token, lap)


@torch.compile
def randomised(x: torch.Tensor):
    y = x.sin()
    r = random.random()
    y = y + r
    c = random.choice([1, 2])
    y = y * c
    torch.manual_seed(0)
    y = y - 1
    torch.cuda.manual_seed(0)
    y = y.cos()
    k = random.randint(0, 3)
    y = y + k
    u = random.uniform(0.0, 1.0)
    y = y * u
    torch.seed()
    y = y - 2
    return y


@torch.compile
def streams_and_copies(x: torch.Tensor):
    y = x.sin()
    sys.stdout.write("")
    y = y + 1
    sys.stderr.flush()
    y = y * 2
    snapshot = copy.deepcopy(y)
    y = y - snapshot
    shallow = copy.copy(y)
    y = y + shallow
    both = copy.deepcopy({"a": y})
    y = y * both["a"]
    text = str(y)
    y = y - 1
    shown = repr(y)
    y = y.cos()
    sizes = copy.deepcopy([1, 2])
    y = y + sizes[0]
    width = str(y.shape[0])
    y = y * len(width)
    label = f"{y}"
    y = y + 1
    return y, (text, shown, label)


def cases():
    return [
        (timed, (torch.randn(4),)),
        (randomised, (torch.randn(4),)),
        (streams_and_copies, (torch.randn(4),)),
    ]
