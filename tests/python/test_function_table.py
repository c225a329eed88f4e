"""docs/functions.md, the table of symx's public functions, kept true: for each function of the
conformance table it says whether it is a primitive (a row of the op table, src/ops/), an alias of
another name, or a composite, and which primitives its graph holds (the forward graph of its
conformance rows). The page is generated from the conformance table; this test fails when it is out
of date. Rewrite it with

    PYTHONPATH=build/python python3 tests/python/test_function_table.py --write
"""

import os
import sys

import symx as sx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_conformance as c  # noqa: E402

from helpers import ROOT  # noqa: E402

PAGE = os.path.join(ROOT, "docs", "functions.md")
LEAVES = {"placeholder", "constant", "variable"}
MODULES = ("", "special", "linalg", "random", "nn")


def resolve(name):
    obj = sx
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def table():
    primitives = set(sx._symx._op_names())
    ops = {}
    for r in c.ROWS:
        if not r.api:
            continue
        found = c.graph_ops(r, False) - LEAVES
        for api in r.api:
            ops.setdefault(api, set()).update(found)
    # An alias is the same function object as another name (NumPy's spellings): its __name__ is the
    # name it was defined under.
    groups = {m: [] for m in MODULES}
    for api in sorted(ops):
        module = api.rsplit(".", 1)[0] if "." in api else ""
        if module not in groups:
            groups[module] = []
        leaf = api.rsplit(".", 1)[-1]
        fn = resolve(api)
        found = sorted(ops[api])
        defined = getattr(fn, "__name__", leaf)
        if defined != leaf:
            kind = "alias of `%s`" % (module + "." + defined if module else defined)
        elif leaf in primitives or (len(found) == 1 and found[0] == leaf):
            kind = "primitive"
        else:
            kind = "composite"
        groups[module].append(
            "| `%s` | %s | %s |" % (api, kind, ", ".join(found) if found else "(a constant: no inputs)")
        )
    lines = [
        "# symx's functions: primitives and composites",
        "",
        "Generated from the conformance table (tests/python/test_conformance.py and its conformance_*.py",
        "modules) by tests/python/test_function_table.py, which fails when this page is out of date.",
        "A **primitive** is a row of the op table (src/ops/, docs/adding-an-op.md): its own type rule,",
        "reference evaluation, gradient and lowering. A **composite** builds a graph of primitives, so the",
        "compiler fuses it with its neighbours; the last column lists the primitives of its forward graph",
        "over the inputs of its conformance rows. An **alias** is the same function under NumPy's other name.",
        "",
    ]
    for module in groups:
        if not groups[module]:
            continue
        lines += ["## %s" % ("symx." + module if module else "symx (top level)"), ""]
        lines += ["| function | kind | primitives in its graph |", "|---|---|---|"]
        lines += groups[module] + [""]
    return "\n".join(lines)


def test_function_table_is_current():
    want = table()
    have = ""
    if os.path.exists(PAGE):
        with open(PAGE) as f:
            have = f.read()
    assert have == want, (
        "docs/functions.md is out of date with the conformance table: rewrite it with "
        "PYTHONPATH=build/python python3 tests/python/test_function_table.py --write"
    )


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        with open(PAGE, "w") as f:
            f.write(table())
        print("wrote", PAGE)
    else:
        print(table())
