"""Small compiled PyTorch programs for the differential fuzzer, each a function of a seed.

A program is a loose module: a few functions that `torch.compile` sees (each is handed to
`torch.compile` at the bottom, so graphmend treats it as compiled code; the runner compiles it
again with its own backends), helper functions they call, and `CASES`, the inputs each function
is run on. The shapes are the ones hostile testing found graphmend getting wrong, and their
neighbours:

- branches on tensor conditions (if/elif/else, else-less updates, returns in every branch, long
  elif chains) whose branches bind several names at once (`y = z = e`, `a, b = b, a`, walrus),
  compute with Python numbers torch cannot hold (2**70, 10**30, module constants), change dtype
  or shape, or divide and take logs (gradients);
- print, logging and warnings calls with unusual arguments (big ints, sizes, sep/end, categories,
  stacklevel), and validation guards whose messages carry such values (never an error Dynamo
  raises while it traces, like `x.shape[0]` of a 0-d tensor: the compiled program then fails
  before any graph runs, its effects unemitted, whatever graphmend does; rules/GM201.md);
- names that shadow builtins, names graphmend generates (`_graphmend_done`, ...), functions that
  read `locals()` or `vars()`, nested functions and closures.

Nothing here imports torch: the text alone is made here, so that generating is fast and a
program can be written and fixed before any process imports torch.
"""
from __future__ import annotations

import random

# Python numbers an expression may meet: small ones, and ones torch cannot hold as int64 (or at
# all, as float32). Weighted towards the small ones so most programs run.
SMALL_NUMBERS = ["2", "3", "-1", "0.5", "1e-3", "0", "1.5", "-2.25", "100"]
LARGE_NUMBERS = ["2**70", "10**30", "-(2**64)", "2**63", "2**62", "1e308", "2**63 - 1", "-(2**63)", "N_BIG",
                 "N_HUGE", "F_BIG",
                 # Python arithmetic that raises when it runs: by zero, an overflowing power.
                 "(1 / N_ZERO)", "(7 // N_ZERO)", "10.0**400", "(N_HUGE**20 / 7)", "(F_BIG ** 2)"]
GENERATED_NAMES = ["_graphmend_done", "_graphmend_c", "_graphmend_v0_0", "_graphmend_c0", "_graphmend_g0",
                   "_graphmend_iterated", "cond", "overflow", "selected"]
BUILTIN_SHADOWS = ["sum", "abs", "max", "min", "len", "any", "all", "bool", "float", "int", "round", "id"]
EXCEPTIONS = ["ValueError", "RuntimeError", "TypeError", "IndexError", "AssertionError"]
LOG_METHODS = ["warning", "info", "error", "debug", "critical"]
WARNING_CATEGORIES = ["UserWarning", "DeprecationWarning", "FutureWarning", "RuntimeWarning"]

# Inputs, by family: one shape and dtype, values that take different branches. A function's cases
# mostly share one family, so that each compiled mode compiles once and the values alone differ.
VALUES_3 = ["[1.0, 1.0, 1.0]", "[-1.0, -1.0, -1.0]", "[0.0, 0.0, 0.0]", "[1.0, float('nan'), 2.0]",
            "[float('inf'), 1.0, -2.0]", "[-3.0, 0.0, 3.0]", "[1e30, 1e30, 1e30]", "[0.25, 4.0, 9.0]",
            "[2.5, -1.0, 0.5]", "[-0.0, 0.0, 60000.0]"]
FAMILIES = {
    "float32": [f"torch.tensor({v})" for v in VALUES_3],
    "float64": [f"torch.tensor({v}, dtype=torch.float64)" for v in VALUES_3],
    "float16": [f"torch.tensor({v}, dtype=torch.float16)" for v in VALUES_3[:6] + VALUES_3[8:]],
    "scalar": ["torch.tensor(3.0)", "torch.tensor(-0.0)", "torch.tensor(float('nan'))", "torch.tensor(-2.5)",
               "torch.tensor(float('inf'))"],
    "matrix": ["torch.linspace(-2, 2, 6).reshape(2, 3)", "torch.ones(2, 3)", "-torch.ones(2, 3)",
               "torch.tensor([[1.0, float('nan'), 0.0], [2.0, 3.0, -4.0]])"],
    "int64": ["torch.tensor([5, -7, 2])", "torch.tensor([0, 0, 0])", "torch.tensor([1, 2, 3])"],
}
FAMILY_WEIGHTS = [("float32", 12), ("float64", 2), ("float16", 2), ("scalar", 2), ("matrix", 2), ("int64", 1)]


class Program:
    """One generated module's text, the functions it compiles and the cases for each."""

    def __init__(self, seed: int):
        self.seed = seed
        self.rng = random.Random(seed)
        self.head: list[str] = []  # module-level statements after the imports
        self.helpers: list[str] = []  # module-level functions the compiled ones call
        self.functions: list[tuple[str, list[str]]] = []  # (name, body lines)
        self.cases: dict[str, list[str]] = {}  # function -> argument tuples, as text
        self.counter = 0
        self.uses_logger = False
        self.uses_warnings = False
        self.uses_sys = False
        self.eager_only: list[str] = []  # functions that read locals(): Dynamo's resume frames differ
        # Functions with a long elif chain: compiled, the original breaks at every arm and Dynamo
        # takes minutes over its resume functions, so the fixed program compiled is compared with
        # the original run eagerly.
        self.eager_reference: list[str] = []
        self.long_chain = False

    # ----------------------------------------------------------------------------- numbers
    def number(self, large_chance=0.15) -> str:
        if self.rng.random() < large_chance:
            return self.rng.choice(LARGE_NUMBERS)
        return self.rng.choice(SMALL_NUMBERS)

    def fresh(self, stem="t") -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    # ------------------------------------------------------------------------- expressions
    def tensor_expr(self, names: list[str], depth=0) -> str:
        """A tensor expression over `names` (tensors), mostly elementwise, sometimes not."""
        rng = self.rng
        base = rng.choice(names)
        if depth > 1 or rng.random() < 0.25:
            return base
        k = self.number()
        forms = [
            lambda: f"{base} * {k}", lambda: f"{base} + {k}", lambda: f"{base} - {k}", lambda: f"{k} - {base}",
            lambda: f"{base} / {k}", lambda: f"torch.clamp({base}, min={k})",
            lambda: f"torch.clamp({base}, -{self.number(0.05)}, {self.number(0.05)})",
            lambda: f"{base}.clamp(max={k})", lambda: f"{base}.abs()", lambda: f"-{base}", lambda: f"torch.relu({base})",
            lambda: f"{base} * {rng.choice(names)}", lambda: f"{base} + {rng.choice(names)}",
            lambda: f"{base} / {rng.choice(names)}", lambda: f"{base}.sqrt()", lambda: f"torch.log({base})",
            lambda: f"{base}.exp()", lambda: f"{base} ** 2", lambda: f"{base} ** -1", lambda: f"{base}.float()",
            lambda: f"{base}.double()", lambda: f"{base}.to(torch.float64)", lambda: f"{base}.half()",
            lambda: f"{base}.sum()", lambda: f"{base}.mean()", lambda: f"{base}.max()", lambda: f"{base}.norm()",
            lambda: f"{base}.view(-1)", lambda: f"{base}.reshape(-1)", lambda: f"{base}.unsqueeze(0)",
            lambda: f"torch.zeros_like({base})", lambda: f"torch.ones(3)", lambda: f"torch.tensor({k})",
            lambda: f"{base}[0]", lambda: f"{base} * {base}.norm()", lambda: f"{base} * (2.0 / {base}.norm())",
            lambda: f"torch.where({base} > 0, {base}, {k})", lambda: f"{base}.masked_fill({base} < 0, {k})",
            lambda: f"torch.tanh({base})", lambda: f"{base}.detach()", lambda: f"{base}.clone()",
        ]
        inner = rng.choice(forms)()
        if rng.random() < 0.3:
            return self.tensor_expr([f"({inner})"], depth + 1)
        return inner

    def reduction(self, name: str) -> str:
        return self.rng.choice([f"{name}.sum()", f"{name}.max()", f"{name}.min()", f"{name}.mean()",
                                f"{name}.abs().max()", f"{name}.norm()", f"torch.sum({name})", f"{name}.amax()"])

    def condition(self, names: list[str], allow_walrus=True, first=True) -> tuple[str, list[str]]:
        """A condition on tensor values, and the names it binds (a walrus). The first condition
        of a chain (and a guard's) holds no number torch cannot hold: the original always traces
        it, so such a program cannot be compiled at all; a later arm's may, as only the rewrite
        traces it unconditionally."""
        rng = self.rng
        x = rng.choice(names)
        k = self.number(0.0 if first else 0.2)
        atoms = [
            lambda: f"{self.reduction(x)} > {k}", lambda: f"{self.reduction(x)} < {k}",
            lambda: f"({x} > {k}).any()", lambda: f"({x} < {k}).all()", lambda: f"torch.isinf({x}).any()",
            lambda: f"torch.isnan({x}).any()", lambda: f"not torch.isfinite({x}).all()", lambda: f"{x}.sum()",
            lambda: f"{x} > {k}", lambda: f"torch.equal({x}, {rng.choice(names)})", lambda: f"{x}.any()",
            lambda: f"({x} == {k}).any()", lambda: f"{self.reduction(x)} >= {self.number(0.0 if first else 0.4)}",
            lambda: f"{x}.max() > {rng.choice(names)}.min()",
        ]
        bound: list[str] = []
        cond = rng.choice(atoms)()
        r = rng.random()
        if r < 0.12:
            cond = f"{cond} and {rng.choice(atoms)()}"
        elif r < 0.22:
            cond = f"{cond} or {rng.choice(atoms)()}"
        elif r < 0.27:
            cond = f"not ({cond})"
        elif r < 0.37:
            cond = f"{x}.dtype == torch.{rng.choice(['float32', 'float16', 'float64'])} and ({cond})"
        elif r < 0.42 and allow_walrus:
            m = self.fresh("m")
            bound.append(m)
            cond = f"({m} := {self.reduction(x)}) > {k}"
        return cond, bound

    # -------------------------------------------------------------------------- statements
    def assignment(self, targets: list[str], names: list[str], indent: str, all_names: list[str]) -> list[str]:
        """Statements binding every name in `targets` (and maybe more), in one of the multi-name
        shapes: chained, unpacking, swap, walrus, temporaries, augmented."""
        rng = self.rng
        lines: list[str] = []
        remaining = list(targets)
        while remaining:
            r = rng.random()
            t = remaining.pop(0)
            if r < 0.15 and remaining:
                u = remaining.pop(0)
                lines.append(f"{indent}{t} = {u} = {self.tensor_expr(names)}")
            elif r < 0.28 and remaining:
                u = remaining.pop(0)
                lines.append(f"{indent}{t}, {u} = {self.tensor_expr(names)}, {self.tensor_expr(names)}")
            elif r < 0.34 and remaining and t in all_names and remaining[0] in all_names:
                u = remaining.pop(0)
                lines.append(f"{indent}{t}, {u} = {u}, {t}")
            elif r < 0.42 and remaining:
                u = remaining.pop(0)
                lines.append(f"{indent}{t} = ({u} := {self.tensor_expr(names)}) + 1")
            elif r < 0.55:
                tmp = self.fresh("tmp")
                lines.append(f"{indent}{tmp} = {self.tensor_expr(names)}")
                lines.append(f"{indent}{t} = {self.tensor_expr(names + [tmp])}")
            elif r < 0.6 and t in all_names:
                lines.append(f"{indent}{t} += {self.number()}")
            elif r < 0.63:
                lines.append(f"{indent}{t} = {self.number()}")  # a Python value selected
            else:
                lines.append(f"{indent}{t} = {self.tensor_expr(names)}")
        if rng.random() < 0.05:
            lines.append(f"{indent}{rng.choice(names)}.add_(1)")  # an in-place update: declined
        if rng.random() < 0.04:
            lines.extend(self.effect(names, indent))
        return lines

    def branch_site(self, names: list[str], indent: str, bound: list[str]) -> tuple[list[str], list[str]]:
        """An if/elif/else on tensor conditions; returns (lines, names bound on every path)."""
        rng = self.rng
        lines: list[str] = []
        n_targets = rng.choice([1, 1, 2, 2, 3])
        pool = [n for n in bound if n not in names[:1]] if rng.random() < 0.4 else []
        targets: list[str] = []
        for _ in range(n_targets):
            if pool and rng.random() < 0.5:
                targets.append(pool.pop(rng.randrange(len(pool))))
            else:
                targets.append(self.fresh("y"))
        targets = list(dict.fromkeys(targets))
        prebound = [t for t in targets if t in bound]
        r = rng.random()
        if r < 0.03:
            arms = rng.choice([210, 250])  # long chains: CPython rejects more than 200 nested brackets
            self.long_chain = True
        elif r < 0.3:
            arms = rng.choice([2, 3, 4])
        else:
            arms = 1
        has_else = rng.random() < 0.7 or not prebound
        walrus_names: list[str] = []
        for i in range(arms):
            if arms > 20:
                cond = f"{names[0]}.sum() > {i - arms // 2}"
            else:
                cond, w = self.condition(names, allow_walrus=i == 0, first=i == 0)
                walrus_names += w
            lines.append(f"{indent}{'if' if i == 0 else 'elif'} {cond}:")
            if arms > 20:
                lines.append(f"{indent}    {targets[0]} = {names[0]} * {i}")
                for t in targets[1:]:
                    lines.append(f"{indent}    {t} = {names[0]} + {i}")
            else:
                lines.extend(self.assignment(targets, names + walrus_names, indent + "    ", bound))
        if has_else:
            lines.append(f"{indent}else:")
            if arms > 20:
                for t in targets:
                    lines.append(f"{indent}    {t} = -{names[0]}")
            else:
                lines.extend(self.assignment(targets, names, indent + "    ", bound))
        # Every target is bound afterwards: an else-less `if` binds only prebound targets... and
        # the fresh ones are bound before it.
        pre: list[str] = []
        if not has_else:
            for t in targets:
                if t not in bound:
                    pre.append(f"{indent}{t} = {self.tensor_expr(names)}")
        # Names bound by chained / unpacked / walrus forms in a branch may be unbound on other
        # paths; only the targets are returned.
        return pre + lines, targets

    def return_site(self, names: list[str], indent: str) -> list[str]:
        """Returns in every branch of an if/else (and sometimes after an else-less if)."""
        lines = []
        cond, _ = self.condition(names, allow_walrus=False)
        lines.append(f"{indent}if {cond}:")
        lines.append(f"{indent}    return {self.tensor_expr(names)}")
        if self.rng.random() < 0.6:
            lines.append(f"{indent}else:")
            lines.append(f"{indent}    return {self.tensor_expr(names)}")
        else:
            lines.append(f"{indent}return {self.tensor_expr(names) if self.rng.random() < 0.8 else 'None'}")
        return lines

    def effect_argument(self, names: list[str]) -> str:
        rng = self.rng
        x = rng.choice(names)
        return rng.choice([
            x, f"{x}.sum()", self.number(0.4), f"'{rng.choice(['a', 'b c', 'x={}', '%d'])}'", f"{x}.shape",
            f"{x}.dtype", f"{x}.numel() * {self.number(0.5)}", f"[{x}, 2]", f"({x}.sum(), 'k')", "None", "True",
            f"f'v={{{x}.shape}} n={{{self.number(0.5)}}}'", f"{x}.ndim", "N_BIG", f"{x}.tolist()",
        ])

    def effect(self, names: list[str], indent: str) -> list[str]:
        rng = self.rng
        r = rng.random()
        args = [self.effect_argument(names) for _ in range(rng.choice([0, 1, 1, 2, 3]))]
        if r < 0.4:
            extra = []
            if rng.random() < 0.2:
                extra.append(f"sep={rng.choice(['', '-', ', '])!r}")
            if rng.random() < 0.2:
                extra.append(f"end={rng.choice(['', '!', chr(10) * 2])!r}")
            if rng.random() < 0.1:
                extra.append("flush=True")
            if rng.random() < 0.05:
                self.uses_sys = True
                extra.append("file=sys.stdout")
            return [f"{indent}print({', '.join(args + extra)})"]
        if r < 0.7:
            self.uses_logger = True
            method = rng.choice(LOG_METHODS)
            fmt = " ".join(rng.choice(["%s", "%d", "%r"]) for _ in args) or "plain"
            fmt_args = args
            if "%d" in fmt:
                fmt_args = [f"int({a})" if a.startswith(("'", "[", "(", "None", "f'")) else a for a in args]
                fmt = fmt.replace("%d", "%s")
            extra = ", stacklevel=2" if rng.random() < 0.1 else ""
            return [f"{indent}logger.{method}({', '.join([repr('msg ' + fmt)] + fmt_args)}{extra})"]
        self.uses_warnings = True
        message = rng.choice([f"'careful {self.counter}'", f"f'n={{{self.number(0.6)}}}'",
                              f"f'shape {{{rng.choice(names)}.shape}}'", f"'w' + str({self.number(0.5)})"])
        extra = []
        if rng.random() < 0.4:
            extra.append(rng.choice(WARNING_CATEGORIES))
        if rng.random() < 0.15:
            extra.append(f"stacklevel={rng.choice([1, 2])}")
        return [f"{indent}warnings.warn({', '.join([message] + extra)})"]

    def guard(self, names: list[str], indent: str) -> list[str]:
        rng = self.rng
        cond, _ = self.condition(names, allow_walrus=False)
        if rng.random() < 0.4:
            cond = f"not ({cond})"
        exc = rng.choice(EXCEPTIONS)
        message = rng.choice([
            f"'bad input {self.counter}'", f"f'n={{{self.number(0.7)}}}'", f"f'got {{{rng.choice(names)}.shape}}'",
            f"f'sum {{{rng.choice(names)}.sum()}}'", f"f'value {{{rng.choice(names)}}}'", "''",
            f"f'k={{{rng.choice(names)}.numel() * {self.number(0.6)}}}'",
        ])
        return [f"{indent}if {cond}:", f"{indent}    raise {exc}({message})"]

    # --------------------------------------------------------------------------- functions
    def function(self) -> str:
        rng = self.rng
        name = self.fresh("f")
        self.long_chain = False
        params = ["x"] + (["w"] if rng.random() < 0.5 else [])
        body: list[str] = []
        names = list(params)
        bound = list(params)
        indent = "    "
        # Prelude: shadowed builtins and generated names as user locals; plain temporaries.
        if rng.random() < 0.15:
            shadow = rng.choice(BUILTIN_SHADOWS)
            body.append(f"{indent}{shadow} = {self.tensor_expr(names)}")
            names.append(shadow)
            bound.append(shadow)
        if rng.random() < 0.12:
            gen = rng.choice(GENERATED_NAMES)
            body.append(f"{indent}{gen} = {rng.choice([self.number(), self.tensor_expr(names), 'False'])}")
            bound.append(gen)
        if rng.random() < 0.4:
            t = self.fresh("h")
            body.append(f"{indent}{t} = {self.tensor_expr(names)}")
            names.append(t)
            bound.append(t)
        if rng.random() < 0.08:
            # A nested function: a closure over a local a branch may rebind.
            inner = self.fresh("inner")
            body.append(f"{indent}def {inner}(v):")
            body.append(f"{indent}    return v * {rng.choice(names)}")
            names_for_call = rng.choice(names)
            body.append(f"{indent}{self.fresh('c')} = {inner}({names_for_call})")
        returned: list[str] = []
        wrapped = rng.random() < 0.06
        if wrapped:
            body.append(f"{indent}with torch.no_grad():")
            indent = "        "
        sites = rng.choice([1, 1, 2, 3])
        for _ in range(sites):
            r = rng.random()
            if r < 0.5:
                lines, targets = self.branch_site(names, indent, bound)
                body.extend(lines)
                for t in targets:
                    if t not in bound:
                        bound.append(t)
                    if t not in names and rng.random() < 0.7:
                        names.append(t)
                    returned.append(t)
            elif r < 0.75:
                body.extend(self.effect(names, indent))
            elif r < 0.9:
                body.extend(self.guard(names, indent))
            else:
                body.extend(self.helper_call(names, indent, bound, returned))
        if wrapped:
            indent = "    "
        returned = list(dict.fromkeys(returned))
        r = rng.random()
        if r < 0.16:
            # What a graph break leaves in a resumed frame's locals() is Dynamo's, not the
            # program's: these functions are compared in eager mode only.
            self.eager_only.append(name)
        if r < 0.08:
            body.append(f"{indent}return sorted(locals())")
        elif r < 0.12:
            body.append(f"{indent}return sorted(vars())")
        elif r < 0.16 and returned:
            kwargs_fn = self.fresh("take")
            params_text = ", ".join(f"{n}=None" for n in returned)
            self.helpers.append(f"def {kwargs_fn}({params_text}, **rest):\n    return ({', '.join(returned)},), sorted(rest)\n")
            body.append(f"{indent}return {kwargs_fn}(**locals())")
        elif r < 0.3:
            body.extend(self.return_site(names, indent))
        else:
            values = returned or [names[-1]]
            body.append(f"{indent}return {', '.join(values)}{',' if len(values) == 1 else ''}")
        if self.long_chain:
            self.eager_reference.append(name)
        self.functions.append((name, [f"def {name}({', '.join(params)}):"] + body))
        self.cases[name] = self.case_arguments(params)
        return name

    def helper_call(self, names: list[str], indent: str, bound: list[str], returned: list[str]) -> list[str]:
        """A call of a module-level helper holding an effect or a branch (fixed in the helper)."""
        helper = self.fresh("helper")
        inner: list[str] = [f"def {helper}(v):"]
        if self.rng.random() < 0.5:
            inner += self.effect(["v"], "    ")
            inner.append("    return v + 1")
        else:
            lines, targets = self.branch_site(["v"], "    ", ["v"])
            inner += lines
            inner.append(f"    return {targets[0]}")
        self.helpers.append("\n".join(inner) + "\n")
        out = self.fresh("r")
        bound.append(out)
        returned.append(out)
        return [f"{indent}{out} = {helper}({self.rng.choice(names)})"]

    def family(self) -> str:
        names, weights = zip(*FAMILY_WEIGHTS)
        return self.rng.choices(names, weights)[0]

    def case_arguments(self, params: list[str]) -> list[str]:
        rng = self.rng
        main = self.family()
        same_family = rng.random() < 0.6  # both arguments of one shape and dtype
        other = main if same_family else self.family()
        cases = []
        for i in range(rng.choice([3, 4])):
            family = main if i < 3 or rng.random() < 0.5 else self.family()
            args = [rng.choice(FAMILIES[family])]
            if len(params) == 2:
                args.append(rng.choice(FAMILIES[family if family != main else other]))
            cases.append("(" + ", ".join(args) + ",)")
        return cases

    # ------------------------------------------------------------------------------- text
    def text(self) -> str:
        names = [self.function() for _ in range(self.rng.choice([1, 1, 2]))]
        imports = ["import logging"] if self.uses_logger else []
        imports += ["import sys"] if self.uses_sys else []
        imports += ["import warnings"] if self.uses_warnings else []
        imports.append("")
        imports.append("import torch")
        out = [f'"""Differential fuzz program, seed {self.seed}."""'] + imports + [""]
        if self.uses_logger:
            out.append('logger = logging.getLogger("difffuzz")')
        out += ["N_BIG = 2**70", "N_HUGE = 10**30", "F_BIG = 1e300", "N_ZERO = 0", ""]
        for h in self.helpers:
            out += ["", h]
        for fname, lines in self.functions:
            out += ["", ""] + lines
        out += ["", ""]
        for n in names:
            out.append(f"{n}_compiled = torch.compile({n})")
        out += ["", "FUNCTIONS = [" + ", ".join(repr(n) for n in names) + "]",
                "EAGER_ONLY = [" + ", ".join(repr(n) for n in self.eager_only) + "]",
                "EAGER_REFERENCE = [" + ", ".join(repr(n) for n in self.eager_reference) + "]", "", "",
                "def cases():",
                "    return {"]
        for n in names:
            out.append(f"        {n!r}: [")
            for c in self.cases[n]:
                out.append(f"            {c},")
            out.append("        ],")
        out += ["    }", ""]
        return "\n".join(out)


def program(seed: int) -> str:
    """The text of program `seed`: the same text for the same seed, always."""
    return Program(seed).text()


if __name__ == "__main__":
    import sys

    print(program(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
