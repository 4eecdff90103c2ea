"""GM409: calls Dynamo does not trace split the graph at the call. Each is followed by tensor work,
so every split shows. The near relatives Dynamo does trace (random.randint, random.uniform,
torch.seed, torch._check of a size, a deepcopy of plain Python values, str of a size, an f-string of a tensor,
os.environ.get, torch.cuda.empty_cache, a logger's `level` attribute) break nothing and are not
reported. A logger method other than a log call breaks (GM202 reports the log calls). numpy.random
draws that PyTorch implements break only when they return one Python number (no size); given a
size they are arrays and trace; the others break whatever their arguments."""
import copy
import datetime
import gc
import hashlib
import importlib
import inspect
import json
import logging
import os
import pickle
import platform
import random
import sys
import threading
import time
import traceback
import uuid
import warnings
from time import perf_counter as clock

import numpy as np
import torch

logger = logging.getLogger(__name__)


@torch.compile
def timed(x: torch.Tensor):
    y = x.sin()
    start = time.time()  # expect: GM409 reported
    y = y + 1
    tick = time.perf_counter()  # expect: GM409 reported
    y = y * 2
    mono = time.monotonic()  # expect: GM409 reported
    y = y - 1
    time.sleep(0)  # expect: GM409 reported
    y = y.cos()
    stamp = datetime.datetime.now()  # expect: GM409 reported
    y = y + 3
    pid = os.getpid()  # expect: GM409 reported
    y = y * 3
    token = uuid.uuid4()  # expect: GM409 reported
    y = y - 3
    lap = clock()  # expect: GM409 reported
    y = y.sin()
    nanos = time.time_ns()  # expect: GM409 reported
    y = y + 4
    spent = time.process_time()  # expect: GM409 reported
    y = y * 4
    return y, (start, tick, mono, stamp, pid, token, lap, nanos, spent)


@torch.compile
def randomised(x: torch.Tensor):
    y = x.sin()
    r = random.random()  # expect: GM409 reported
    y = y + r
    c = random.choice([1, 2])  # expect: GM409 reported
    y = y * c
    torch.manual_seed(0)  # expect: GM409 reported
    y = y - 1
    torch.cuda.manual_seed(0)  # expect: GM409 reported
    y = y.cos()
    k = random.randint(0, 3)
    y = y + k
    u = random.uniform(0.0, 1.0)
    y = y * u
    torch.seed()
    y = y - 2
    g = random.gauss(0.0, 1.0)  # expect: GM409 reported
    y = y + g
    order = [1, 2]
    random.shuffle(order)  # expect: GM409 reported
    y = y * order[0]
    random.seed(0)  # expect: GM409 reported
    y = y - 3
    torch.random.manual_seed(0)  # expect: GM409 reported
    y = y.sin()
    state = torch.get_rng_state()  # expect: GM409 reported
    y = y + 5
    torch.set_rng_state(state)  # expect: GM409 reported
    y = y * 5
    return y


@torch.compile
def streams_and_copies(x: torch.Tensor):
    y = x.sin()
    sys.stdout.write("")  # expect: GM409 reported
    y = y + 1
    sys.stderr.flush()  # expect: GM409 reported
    y = y * 2
    sys.stderr.write("")  # expect: GM409 reported
    y = y + 2
    sys.stdout.flush()  # expect: GM409 reported
    y = y * 3
    torch._check_tensor_all(y > -1000)  # expect: GM409 reported
    y = y + 5
    torch._check(y.shape[0] > 0)
    y = y - 5
    snapshot = copy.deepcopy(y)  # expect: GM409 reported
    y = y - snapshot
    shallow = copy.copy(y)  # expect: GM409 reported
    y = y + shallow
    both = copy.deepcopy({"a": y})  # expect: GM409 reported
    y = y * both["a"]
    text = str(y)  # expect: GM409 reported
    y = y - 1
    shown = repr(y)  # expect: GM409 reported
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
    gc.collect()  # expect: GM409 reported
    y = y + 1
    size = sys.getsizeof(y)  # expect: GM409 reported
    y = y * 2
    frame = inspect.currentframe()  # expect: GM409 reported
    y = y - 1
    thread = threading.current_thread()  # expect: GM409 reported
    y = y.cos()
    warnings.simplefilter("ignore")  # expect: GM409 reported
    y = y + 2
    encoded = json.dumps({"a": 1})  # expect: GM409 reported
    y = y * 3
    used = torch.cuda.memory_allocated()  # expect: GM409 reported
    y = y - 3
    if logger.isEnabledFor(logging.DEBUG):  # expect: GM409 reported
        y = y + 4
    y = y * 4
    level = logger.getEffectiveLevel()  # expect: GM409 reported
    y = y - 4
    handled = logger.hasHandlers()  # expect: GM409 reported
    y = y.sin()
    child = logger.getChild("probe")  # expect: GM409 reported
    y = y + 5
    logger.setLevel(logging.WARNING)  # expect: GM409 reported
    y = y * 5
    logger.addHandler(logging.NullHandler())  # expect: GM409 reported
    y = y - 5
    known = logger.level
    y = y + known
    return y, (size, frame, thread, encoded, used, level, handled, child)


@torch.compile
def environment(x: torch.Tensor):
    y = x.sin()
    gpus = torch.cuda.device_count()  # expect: GM409 reported
    y = y + 1
    threads = torch.get_num_threads()  # expect: GM409 reported
    y = y * 2
    torch.set_num_threads(threads)  # expect: GM409 reported
    y = y - 1
    generator = torch.Generator()  # expect: GM409 reported
    y = y.cos()
    here = os.path.exists(os.devnull)  # expect: GM409 reported
    y = y + 2
    names = os.listdir(os.path.dirname(__file__))  # expect: GM409 reported
    y = y * 3
    year = time.strftime("%Y")  # expect: GM409 reported
    y = y - 2
    digest = hashlib.md5(b"graphmend")  # expect: GM409 reported
    y = y + 3
    blob = pickle.dumps(1)  # expect: GM409 reported
    y = y * 4
    stack = traceback.format_stack()  # expect: GM409 reported
    y = y - 3
    module = importlib.import_module("math")  # expect: GM409 reported
    y = y.sin()
    open(os.devnull).close()  # expect: GM409 reported
    y = y + 4
    pick = np.random.randint(0, 3)  # expect: GM409 reported
    y = y * 5
    noise = np.random.normal()  # expect: GM409 reported
    y = y - 4
    order = np.random.permutation(3)  # expect: GM409 reported
    y = y + 5
    ranked = sorted(y)  # expect: GM409 reported
    y = y * 6
    return y, (gpus, generator, here, names, year, digest, blob, stack, module, pick, noise, order, ranked)


@torch.compile
def environment_traced(x: torch.Tensor):
    y = x.sin()
    home = os.getenv("HOME")
    y = y + 1
    path = os.path.join("a", "b")
    y = y * 2
    uniform = np.random.rand(2)
    y = y - 1
    draws = np.random.randint(0, 3, size=4)
    y = y * 4
    noise = np.random.normal(0, 1, 3)
    y = y + 3
    spread = np.random.uniform(0, 1, size=3)
    y = y * 5
    unit = np.random.random(3)
    y = y - 2
    grid = np.random.randn(2, 3)
    y = y + 4
    cuda = torch.cuda.is_available()
    y = y.cos()
    system = platform.system()
    y = y + 2
    ranked = sorted([3, 1, 2])
    y = y * 3
    return y, (home, path, uniform, draws, noise, spread, unit, grid, cuda, system, ranked)


@torch.compile
def numpy_scalar_draws(x: torch.Tensor):
    y = x.sin()
    layer_drop = np.random.uniform(0, 1)  # expect: GM409 reported
    y = y + 1
    unit = np.random.random()  # expect: GM409 reported
    y = y * 2
    one = np.random.rand()  # expect: GM409 reported
    y = y - 1
    pick = np.random.choice(5)  # expect: GM409 reported
    y = y.cos()
    explicit_none = np.random.randint(0, 3, None)  # expect: GM409 reported
    y = y + 2
    unsupported = np.random.standard_normal(3)  # expect: GM409 reported
    y = y * 3
    return y, (layer_drop, unit, one, pick, explicit_none, unsupported)


def cases():
    return [
        (timed, (torch.randn(4),)),
        (randomised, (torch.randn(4),)),
        (streams_and_copies, (torch.randn(4),)),
        (introspective, (torch.randn(4),)),
        (environment, (torch.randn(4),)),
        (environment_traced, (torch.randn(4),)),
        (numpy_scalar_draws, (torch.randn(4),)),
    ]
