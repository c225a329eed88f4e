"""Writes the Python docstrings header from the comments of the public C++ headers.

Usage: docstrings.py OUT FILE...   (FILEs ending in .cpp are binding sources, the others headers)

The docstring of a declaration is the `//` comment block immediately above it (no blank line in
between), keyed by its qualified name without `symx::` ("sum", "nn::conv2d", "Tensor::eval";
`operator()` is "call"). Overloads that have their own comments are joined in header order, since
Python binds them as one function. A block whose first line is `// Doc NAME:` documents NAME, a
binding with no C++ declaration of its own (a Python-only property, say).

The binding asks for a docstring with DOC(NAME) (qualified names with "::" spelled "_"), and OUT
defines `symx::doc::NAME` for each name asked for. This script fails, naming the missing comments, when it asks
for one the headers do not have, so that no function ships undocumented.
"""

import os
import re
import sys

DOC_TAG = re.compile(r"^Doc ([\w:]+):\s*(.*)$")


def declared_name(decl):
    """The name a declaration declares, or None (fields, usings, macros)."""
    if re.match(r"\s*(using|#|typedef|friend)\b", decl):
        return None
    if "operator()" in decl:
        return "call"
    if "operator" in decl:
        return None
    m = re.match(r"\s*(?:enum\s+)?(?:class|struct)\s+(\w+)[^;(]*[{;]?", decl)
    if m and "(" not in decl.split("{")[0]:
        return m.group(1)
    m = re.search(r"(~?\w+)\s*\(", decl)
    return m.group(1) if m else None


def parse_header(path, docs):
    scopes = []  # (kind, name): kind "namespace" or "class"
    block = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        text = line.strip()
        i += 1
        if text.startswith("// ----"):  # a section heading, not a declaration's comment
            block = []
            continue
        if text.startswith("//"):
            block.append(text[2:].strip() if not text.startswith("// ") else text[3:].rstrip())
            continue
        if not text:
            tag = DOC_TAG.match(block[0]) if block else None
            if tag:
                add(docs, tag.group(1), [tag.group(2)] + block[1:] if tag.group(2) else block[1:])
            block = []
            continue
        m = re.match(r"namespace\s+([\w:]+)\s*\{", text)
        if m:
            scopes.append(("namespace", m.group(1)))
            block = []
            continue
        if text.startswith("}") and not text.startswith("};"):
            while scopes and scopes[-1][0] != "namespace":
                scopes.pop()
            if scopes:
                scopes.pop()
            block = []
            continue
        if text == "};":
            if scopes and scopes[-1][0] == "class":
                scopes.pop()
            block = []
            continue
        if re.match(r"(public|private|protected)\s*:", text):
            block = []
            continue
        if text.startswith("#"):  # a preprocessor line is whole on its line
            block = []
            continue
        # A declaration: read on to its end (";" or "{") to see the whole signature.
        decl = text
        while not re.search(r"[;{]", decl) and i < len(lines):
            decl += " " + lines[i].strip()
            i += 1
        name = declared_name(decl)
        opens_class = re.match(r"(?:enum\s+)?(?:class|struct)\s+\w+[^;]*\{\s*$", text) is not None
        if name and block:
            prefix = [n for kind, n in scopes if n not in ("symx",)]
            prefix = [p.replace("symx::", "") for p in prefix]
            add(docs, "::".join(prefix + [name]), block)
        if opens_class:
            scopes.append(("class", name))
        block = []
    return docs


PYTHON_INLINE = re.compile(r"^(\s*Example:?).*\(Python: (.*)\)\s*$")


def for_python(block):
    """The comment lines as the Python docstring shows them. A header comment's example is often
    C++; its Python form is given on a line `Python: ...` (or at the end of the example line as
    `(Python: ...)`), and then the docstring shows that one as its Example and drops the C++ lines
    (an `Example` line and the lines indented under it)."""
    lines = [PYTHON_INLINE.sub(r"\1 \2", line) for line in block]
    if not any(line.startswith("Python:") for line in lines):
        return lines
    kept, in_cpp_example = [], False
    for line in lines:
        if line.startswith("Example"):
            in_cpp_example = True
            continue
        if in_cpp_example and line.startswith("  "):
            continue
        in_cpp_example = False
        kept.append("Example:" + line[len("Python:") :] if line.startswith("Python:") else line)
    return kept


def add(docs, key, block):
    text = "\n".join(for_python(block)).strip()
    if text and text not in docs.setdefault(key, []):
        docs[key].append(text)


def requested_names(binding_path):
    """The names passed to DOC(...) in the binding, also through its one-parameter macros."""
    with open(binding_path, encoding="utf-8") as f:
        source = f.read().replace("\\\n", " ")  # one line per macro definition
    names = set(re.findall(r"\bDOC\((\w+)\)", source))
    for macro, param, body in re.findall(r"#define\s+(\w+)\((\w+)\)(.*)", source):
        if re.search(r"\bDOC\(" + param + r"\)", body):
            names.discard(param)
            names.update(re.findall(r"\b" + macro + r"\((\w+)\)", source.replace("#define " + macro, "")))
    return names


def c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def main():
    out, files = sys.argv[1], sys.argv[2:]
    bindings = [f for f in files if f.endswith(".cpp")]
    headers = [f for f in files if not f.endswith(".cpp")]
    docs = {}
    for header in headers:
        parse_header(header, docs)
    symbols = {key.replace("::", "_"): "\n\n".join(texts) for key, texts in docs.items()}
    requested = set()
    for binding in bindings:
        requested |= requested_names(binding)
    missing = sorted(requested - set(symbols))
    if missing:
        sys.stderr.write(
            "docstrings: the binding (python/*.cpp) asks for the docstring of %s, but no public header "
            "has a comment block right above that declaration. Add one (what it does, arguments, what it "
            "returns, an 'Example:' line), or a '// Doc NAME: ...' block for a Python-only binding.\n"
            % ", ".join(
                name.replace("_", "::", 1)
                if name.startswith(("nn_", "linalg_", "random_", "optim_", "stats_"))
                else name
                for name in missing
            )
        )
        return 1
    lines = [
        "// Generated by cmake/docstrings.py from the comments of the public headers. Do not edit.",
        "#pragma once",
        "",
        "namespace symx::doc {",
    ]
    for symbol in sorted(requested):
        lines.append("inline constexpr const char %s[] = %s;" % (symbol, c_string(symbols[symbol])))
    lines += ["}  // namespace symx::doc", ""]
    text = "\n".join(lines)
    # Rewritten only when it changes, so that (with ninja's restat) a comment edit elsewhere in a header
    # does not recompile every binding file.
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            if f.read() == text:
                return 0
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
