"""docs/symjax.md, the "Coming from SymJAX" page, kept true: every symx name it gives (`sx.something`
in backticks, in its tables and its text) resolves in the symx package under test, every SymJAX name
it marks "not yet" is still missing from symx, and its ported example runs and trains."""

import os
import re

import numpy as np

import symx as sx
from helpers import ROOT

PAGE = os.path.join(ROOT, "docs", "symjax.md")
HEADER = ["SymJAX", "symx (Python)", "notes"]
# A dotted symx name: sx.nn.layers.Dense in `sx.nn.layers.Dense(10)(x)`.
SYMX_NAME = re.compile(r"\bsx(?:\.[A-Za-z_]\w*)+")
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)
# Where the SymJAX modules of the "SymJAX" column live in symx, longest prefix first.
SYMJAX_MODULES = [
    ("symjax.probabilities.", "sx.stats"),
    ("symjax.data.", "sx.data"),
    ("symjax.", "sx"),
    ("T.linalg.", "sx.linalg"),
    ("T.random.", "sx.random"),
    ("T.", "sx"),
    ("nn.layers.", "sx.nn.layers"),
    ("nn.losses.", "sx.nn.losses"),
    ("nn.optimizers.", "sx.optim"),
    ("nn.schedules.", "sx.optim.schedules"),
    ("nn.", "sx.nn"),
    ("Tensor.", "sx.Tensor"),
]


def read_page():
    with open(PAGE, encoding="utf-8") as f:
        return f.read()


def table_rows(text):
    """(line number, [SymJAX, symx, notes]) for each body row of the page's tables; the header and
    separator rows are checked and left out."""
    rows = []
    lines = text.split("\n")
    for number, line in enumerate(lines, 1):
        if not line.startswith("|") or re.fullmatch(r"\|(-+\|)+", line):
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if number < len(lines) and re.fullmatch(r"\|(-+\|)+", lines[number]):
            assert cells == HEADER, "line %d: a table's header is not %s" % (number, HEADER)
            continue
        rows.append((number, cells))
    return rows


def spans(text):
    """The `inline code` spans of markdown text, fenced blocks left out."""
    return re.findall(r"`([^`\n]+)`", FENCE.sub("", text))


def resolve(name):
    """The object `name` ("sx.nn.layers.Dense") names, by attribute lookups from the symx package."""
    obj = sx
    for part in name.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def test_every_table_row_has_three_cells():
    rows = table_rows(read_page())
    assert len(rows) > 100  # the parser sees the tables
    bad = ["line %d: %d cells" % (number, len(cells)) for number, cells in rows if len(cells) != 3]
    assert bad == [], "a row is not SymJAX | symx | notes (a `|` inside a cell?): " + "; ".join(bad)


def test_symx_cells_are_names_or_a_dash():
    # A symx cell is a list of `sx.` names, or "—" with a note saying what to do instead.
    for number, (_, symx_cell, notes) in table_rows(read_page()):
        if symx_cell == "—":
            assert "issue" in notes or SYMX_NAME.search(notes), "line %d: a dash without an issue or a way" % number
            continue
        names = [name.strip() for name in symx_cell.split(",")]
        assert all(re.fullmatch(r"`sx(\.[A-Za-z_]\w*)+`", name) for name in names), "line %d: %s" % (number, symx_cell)


def test_every_symx_name_on_the_page_resolves():
    text = read_page()
    table_names = {
        m.group(0) for _, cells in table_rows(text) for span in spans(cells[1]) for m in SYMX_NAME.finditer(span)
    }
    all_names = {m.group(0) for span in spans(text) for m in SYMX_NAME.finditer(span)}
    assert len(table_names) > 150 and table_names <= all_names  # the walk sees the tables
    unresolved = []
    for name in sorted(all_names):
        try:
            resolve(name)
        except AttributeError:
            unresolved.append(name)
    assert unresolved == [], "docs/symjax.md names what symx does not have: " + ", ".join(unresolved)


def not_yet_names(rows):
    """(line number, symx name) for each name the page says symx does not have yet: the SymJAX
    names of rows whose note says "not yet", in their symx module, and the bare names (`cumprod`,
    `Tensor.cast`) in a clause of a note that names an issue."""
    found = []
    for number, (symjax_cell, _, notes) in rows:
        if "not yet" in notes:
            for span in spans(symjax_cell):
                name = re.match(r"[\w.]+", span).group(0)
                prefix, module = next((p, m) for p, m in SYMJAX_MODULES + [("", "")] if name.startswith(p))
                if module and re.fullmatch(r"\w+", name[len(prefix) :]):  # not T.fft.*, not a method
                    found.append((number, module + "." + name[len(prefix) :]))
        for clause in notes.split(";"):
            if "issue" in clause:
                found += [(number, "sx." + span) for span in spans(clause) if re.fullmatch(r"(Tensor\.)?\w+", span)]
    return found


def test_names_marked_not_yet_are_still_missing():
    # When symx gains a name the page calls missing, the page must say how to use it instead.
    names = not_yet_names(table_rows(read_page()))
    # (Fewer each time an issue lands: issue 21 took the NumPy names off the page.)
    assert len(names) > 5 and "sx.jax_wrap" in {name for _, name in names}  # the parser sees them
    arrived = []
    for number, name in names:
        try:
            resolve(name)
            arrived.append("line %d: %s" % (number, name))
        except AttributeError:
            pass
    assert arrived == [], "symx now has names docs/symjax.md calls missing: " + "; ".join(arrived)


def test_piecewise_constant_matches_symjax_doc_example():
    # The page: PiecewiseConstant(0.1, {4: 1, 8: 2}) is piecewise_constant([4, 8], [0.1, 1, 2]); SymJAX's
    # docstring prints 0.1 for steps 0..3, 1.0 for 4..7, 2.0 for 8 and 9.
    assert "`piecewise_constant([4, 8], [0.1, 1, 2])`" in read_page()
    rates = sx.optim.schedules.piecewise_constant([4, 8], [0.1, 1, 2])(np.arange(10)).eval()
    np.testing.assert_allclose(rates, [0.1] * 4 + [1.0] * 4 + [2.0] * 2)


def test_ported_example_trains(fresh_graph):
    text = read_page()
    section = text[text.index("## A ported example") :]
    blocks = FENCE.findall(section)
    assert len(blocks) == 2 and "import symjax" in blocks[0] and "import symx" in blocks[1]
    scope = {}
    exec(compile(blocks[1], "docs/symjax.md (symx example)", "exec"), scope)
    losses = scope["losses"]
    assert len(losses) == 200 and losses[0] > 100
    assert losses[-1] < 1e-4, "the loss falls to %g only, the page says below 1e-4" % losses[-1]
