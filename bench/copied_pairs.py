"""transformers' "Copied from" pairs: a definition marked `# Copied from transformers.X with A->B` must equal
its source with the replacements applied (transformers checks it with utils/check_copies.py, which the
wheel does not ship). This reads both trees with `ast` and counts the pairs identical before a fix and
after it (bodies compared without their first line, lines stripped; `with` replacements applied
literally), for bench/patch_review.py.

    .venv/bin/python bench/copied_pairs.py ORIGINAL_PACKAGE PATCHED_PACKAGE
"""
from __future__ import annotations

import ast
import pathlib
import re
import sys

def block(tree_root, dotted):
    parts = dotted.split(".")
    # find module file
    for i in range(len(parts), 0, -1):
        f = tree_root.joinpath(*parts[1:i]).with_suffix(".py")
        if f.exists():
            obj = parts[i:]
            break
    else:
        return None
    src = f.read_text()
    node = ast.parse(src)
    for name in obj:
        found = None
        for n in getattr(node, "body", []):
            if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name:
                found = n
        if found is None:
            return None
        node = found
    lines = src.splitlines()
    return "\n".join(lines[node.lineno - 1:node.end_lineno])

def pairs(root):
    out = []
    for f in sorted(root.rglob("*.py")):
        src = f.read_text(errors="replace")
        lines = src.splitlines()
        try:
            tree = ast.parse(src)
        except SyntaxError:
            continue
        for n in ast.walk(tree):
            if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                start = n.lineno - 1 - len(n.decorator_list)
                for k in (n.lineno - 2, start - 1):
                    if 0 <= k < len(lines):
                        m = re.match(r"\s*# Copied from (transformers\.[\w.]+)(?: with (.*))?$", lines[k])
                        if m:
                            body = "\n".join(lines[n.lineno - 1:n.end_lineno])
                            out.append((f.relative_to(root), n.name, m[1], m[2], body))
                            break
    return out

def replaced(text, spec):
    if not spec:
        return text
    for rule in spec.split(","):
        rule = rule.strip().split(" ")[0]
        if "->" in rule:
            a, b = rule.split("->", 1)
            text = text.replace(a, b)
    return text

def normal(text):
    """A definition without its first line (the names differ) and with its lines stripped."""
    return "\n".join(line.strip() for line in text.splitlines()[1:])


def compare(root):
    """Each "Copied from" pair of the tree: whether the copy equals its source."""
    same = {}
    for rel, name, target, spec, body in pairs(root):
        src = block(root, target)
        if src is not None:
            same[(str(rel), name)] = normal(replaced(src, spec)) == normal(body)
    return same



def broken_pairs(original: pathlib.Path, patched: pathlib.Path) -> tuple[int, int, list]:
    """(pairs, identical in the original, pairs identical there and not after the fix)."""
    before, after = compare(original), compare(patched)
    broken = sorted(k for k in before if before[k] and not after.get(k, False))
    return len(before), sum(before.values()), broken


if __name__ == "__main__":
    pairs_, same, broken = broken_pairs(pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]))
    print(f"pairs {pairs_}, identical in the original {same}, no longer identical after fix {len(broken)}")
    for k in broken:
        print("  ", k)
