"""GM409: calls Dynamo does not trace split the graph at the call. Each is followed by tensor work,
so every split shows. The near relatives Dynamo does trace (random.randint, random.uniform,
torch.seed, a deepcopy of plain Python values, str of a size, an f-string of a tensor,
os.environ.get, torch.cuda.empty_cache, a logger's `level` attribute) break nothing and are not
reported. A logger method other than a log call breaks (GM202 reports the log calls)."""
import copy
import datetime
import gc
import inspect
import json
import logging
import os
import random
import sys
import threading
import time
import uuid
import warnings
from time import perf_counter as clock

import torch

logger = logging.getLogger(__name__)


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
    nanos = time.time_ns()
    y = y + 4
    spent = time.process_time()
    y = y * 4
    return y, (start, tick, mono, stamp, pid, token, lap, nanos, spent)


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
    g = random.gauss(0.0, 1.0)
    y = y + g
    order = [1, 2]
    random.shuffle(order)
    y = y * order[0]
    random.seed(0)
    y = y - 3
    torch.random.manual_seed(0)
    y = y.sin()
    state = torch.get_rng_state()
    y = y + 5
    torch.set_rng_state(state)
    y = y * 5
    return y


@torch.compile
def streams_and_copies(x: torch.Tensor):
    y = x.sin()
    sys.stdout.write("")
    y = y + 1
    sys.stderr.flush()
    y = y * 2
    sys.stderr.write("")
    y = y + 2
    sys.stdout.flush()
    y = y * 3
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
    home = os.environ.get("HOME")
    y = y * 2
    torch.cuda.empty_cache()
    y = y - 1
    return y, (text, shown, label, home)


@torch.compile
def introspective(x: torch.Tensor):
    y = x.sin()
    gc.collect()
    y = y + 1
    size = sys.getsizeof(y)
    y = y * 2
    frame = inspect.currentframe()
    y = y - 1
    thread = threading.current_thread()
    y = y.cos()
    warnings.simplefilter("ignore")
    y = y + 2
    encoded = json.dumps({"a": 1})
    y = y * 3
    used = torch.cuda.memory_allocated()
    y = y - 3
    if logger.isEnabledFor(logging.DEBUG):
        y = y + 4
    y = y * 4
    level = logger.getEffectiveLevel()
    y = y - 4
    handled = logger.hasHandlers()
    y = y.sin()
    child = logger.getChild("probe")
    y = y + 5
    logger.setLevel(logging.WARNING)
    y = y * 5
    logger.addHandler(logging.NullHandler())
    y = y - 5
    known = logger.level
    y = y + known
    return y, (size, frame, thread, encoded, used, level, handled, child)


def cases():
    return [
        (timed, (torch.randn(4),)),
        (randomised, (torch.randn(4),)),
        (streams_and_copies, (torch.randn(4),)),
        (introspective, (torch.randn(4),)),
    ]
