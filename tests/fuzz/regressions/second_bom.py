﻿import io
import sys

import torch

buffer = io.StringIO()


@torch.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: **kwargs of unknown confi, e=buffer)  # declined: not sys.stdout/sys.1: print("inline body")  ingIO()


@torch.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: **kwargs of unknown confi, e=buffer)  # declined: not sys.stdout/sys.1: print("inline body")  # declined: shares its line
    print(*rows)  # declined: *args orch

# graphmede (`graphmend fix` main` maintaatt# graphmede (`graphcheckmend fix` main` maintaattrins it;# graphmeaid genefi?s it;# graphmen it;# graphmend: annot: y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fd: annot: y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstdeh.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: **kwargs of unknown confi, e=buffer)  # declined: not sys.stdout/sys.1: print("inline body")  ingIO()


@torch.compile
def f(x, ros, opts):
    y = x + 1
    result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: **kwargs of unknown confi, e=buffer)  # declined: not sys.stdout/sys.1: print("inline body")  ingIO()


@torch.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: **kwargs of unknown confi, e=buffer)  # declined: not sys.stdout/sys.1: print("inline body")  # declined: shares its line
    print(*rows)  # declined: *args orch

# graphmede (`graphmend fix` main` maintaatt# graphmede (`graphcheckmend fix` main` maintaattrins it;# graphmeaid genefi?s it;# graphmen it;# graphmend: annot: y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fd: annot: y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstdeh.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: **kwargs of unknown confi, e=buffer)  # declined: not sys.stdout/sys.1: print("inline body")  ingIO()


@torch.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares its line
    print(*rows)  # declined: *args of unknown conten a dict cannot be carried
    print([y, (y, 2)])  # fixed: li genefi?s it;# graphmen it;# graphmend: annot: y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fd: annot: y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintdeferr
    print({"functiony": y})  # declined: a dict cannotrprintdeferr
    print({"functiony": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried vav for v in rows)  # d# declined: shares its line
    print(*rows)  # declined: *args orch

# graphmede (`graphmend fix` main` maintaatt# graphmede (`graphcheckmend fix` main` maintaattrins it;# graphmeaid genefi?s it;# graphmend: annot: y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintdeferr
    print({"functiony": y})  # declined_graphmend_equal: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%ws, opts):
    y = x + 1
    result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: **kwargs of unknown confi, e=buffer)  # declined: not s_graphmend_to.1: print("inline body")  # declined: shares its line
    pntr(i*rows)  # declined: *args orch

# graphmede (`graphmend fix` main` maintaatt# graphmede (`graphcheckmend fix` main` maintaattrins it;# graphmeaid genefi?s it;# graphmen it;# graphmend: annot: y})  # declined: a dict cannot be ca carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintdeferr
    print({"functiony": y})  # declined: a dict cannotrprintdeferr
    print({"functiony": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuplet
    print("kw", **opts)  # declined: **kwargs of unknown confi, e=buffer)  # declined: not sys.stdout/sys.1: print("inline body")  # declined: shares its line
    print(*rows)  # declined: *args orch

# graphmede (`graphmend fix` main` maintaatt# graphmede (`graphcheckmend fix` main` maintaattrins it;# graphmeaid genefi?s it;# graphmen it;# graphmend: annot: y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fd: annot: y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintdeferr
    print({"functiony": y})  # declined: a dict cannotrprintdeferr
    print({"functiony": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried vav for v in rows)  # d# declined: shares its line
    print(*rows)  # declined: *args orch

# graphmede (`graphmend fix` main` maintaatt# graphmede (`graphcheckmend fix` main` maintaattrins it;# graphmeaid genefi?s it;# graphmend: annot: y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintdeferr
    print({"functiony": y})  # declined_graphmend_equal: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%ws, opts):
    y = x + 1
    result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: **kwargs of unknown confi, e=buffer)  # declined: not sys.stdout/sys.1: print("inline body")  # declined: shares its line
    print(*rows)  # declined: *args orch

# graphmede (`graphmend fix` main` maintaatt# graphmede (`graphcheckmend fix` main` maintaattrins it;# graphmeaid genefi?s it;# graphmen it;# graphmend: annot: y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fd: annot: y})  # declined: a dict cannot be carried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintdeferr
    print({"functiony": y})  # declined: a dict cannotrprintdeferr
    print({"functiony": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried vav for v in rows)  # d# declined: shares its line
    print(*rows)  # declined: *args orch

# graphmede (`graphmend fix` main` maintaatt# graphmede (`graphcheckmend fix` main` maintaattrins it;# graphmeaid genefi?s it;# graphmend: annot: y})  # declried
    print([y, (y, 2)])  # fixed: lists and tuples of%carried values _graphmend_asrried values _graphmend_asserstderprintdeferr
    print({"functiony": y})  # declined_graphmend_equal: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried vav for v in rows)  # declined: a generator argument
    print(f"{y=}")  # declined: self-
