"""Completes the type stubs that nanobind's stubgen writes for the extension (symx/_symx/*.pyi).

Usage: stubs.py PACKAGE_DIR   (the folder of the built or installed `symx` package)

Run after stubgen, with PACKAGE_DIR's parent importable. Two things stubgen cannot see:

* The public submodules. `symx.nn`, `symx.nn.layers`, `symx.optim`, ... are the extension's
  submodules registered in `sys.modules` by symx/__init__.py, so no file stands at symx/nn; an
  editor resolving `from symx.nn import layers as L` finds nothing to complete. Each gets a stub
  (symx/nn/__init__.pyi, symx/nn/layers.pyi, symx/random.pyi, ...) that re-exports the extension
  submodule's stub. The list is read from `sys.modules`, so a submodule added there gets its stub.
* The Tensor methods and properties defined in Python (symx/__init__.py: `sum`, `mean`, `flatten`,
  `clip`, `shape`, ...).
  They are appended to `class Tensor` in symx/_symx/__init__.pyi with the signatures, annotations
  and docstrings of their Python definitions.
"""

import ast
import inspect
import os
import re
import sys
import textwrap

import numpy


def submodule_stubs(package_dir, modules):
    """{stub path relative to package_dir: text} for each public alias `symx.a.b` of an extension
    submodule `symx._symx.a.b`."""
    public = sorted(
        name for name, module in modules.items() if name.startswith("symx.") and not name.startswith("symx._")
    )
    stubs = {}
    for name in public:
        target = getattr(modules[name], "__name__", "")
        if not target.startswith("symx._symx."):
            continue
        parts = name.split(".")[1:]
        is_package = any(other.startswith(name + ".") for other in public)
        path = os.path.join(*parts, "__init__.pyi") if is_package else os.path.join(*parts[:-1], parts[-1] + ".pyi")
        stubs[path] = '"""Stub of `%s`: the extension submodule `%s` (see cmake/stubs.py)."""\n\nfrom %s import *\n' % (
            name,
            target,
            target,
        )
    return stubs


def annotation_text(annotation):
    if isinstance(annotation, str):
        return annotation
    return inspect.formatannotation(annotation)


def method_stub(name, function):
    """The stub of one Python-defined Tensor method: its signature with annotations and its docstring."""
    signature = inspect.signature(function)
    params = []
    for param in signature.parameters.values():
        text = param.name
        if param.kind is param.VAR_POSITIONAL:
            text = "*" + text
        if param.annotation is not param.empty:
            text += ": " + annotation_text(param.annotation)
        if param.default is not param.empty:
            text += " = " + repr(param.default)
        params.append(text)
    result = (
        "" if signature.return_annotation is signature.empty else " -> " + annotation_text(signature.return_annotation)
    )
    doc = inspect.getdoc(function) or ""
    body = textwrap.indent('"""\n%s\n"""' % doc.replace('"""', "'''"), " " * 8) if doc else "        ..."
    return "    def %s(%s)%s:\n%s\n" % (name, ", ".join(params), result, body)


def python_tensor_methods(tensor_class):
    """(name, function or property) of the methods and properties symx/__init__.py adds to Tensor,
    in name order."""
    found = []
    for name, value in sorted(vars(tensor_class).items()):
        function = value.fget if isinstance(value, property) else value
        if inspect.isfunction(function) and function.__module__ == "symx":
            found.append((name, value))
    return found


BEGIN = "    # Methods defined in symx/__init__.py (added by cmake/stubs.py)"
END = "    # End of the methods added by cmake/stubs.py"


def add_tensor_methods(stub_text, methods):
    """stub_text with the method stubs at the end of `class Tensor:`, replacing those of an earlier run."""
    lines = stub_text.split("\n")
    if BEGIN in lines:
        del lines[lines.index(BEGIN) - 1 : lines.index(END) + 1]
    if "import collections.abc" not in lines:  # for the Iterator of __iter__
        first_import = next(i for i, line in enumerate(lines) if line.startswith(("import ", "from ")))
        lines.insert(first_import, "import collections.abc")
    end = lines.index("class Tensor:") + 1
    while end < len(lines) and (not lines[end] or lines[end].startswith(" ")):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    added = ["", BEGIN]
    for name, member in methods:
        added.append("")
        if isinstance(member, property):  # its getter's stub, read-only, with the property's docstring
            member.fget.__doc__ = member.__doc__ or member.fget.__doc__
            added.append("    @property")
            member = member.fget
        added.extend(method_stub(name, member).rstrip("\n").split("\n"))
    added.extend([END, ""])
    return "\n".join(lines[:end] + added + lines[end:])


PACKAGE_IMPORT = re.compile(r"^from (symx(?:\.(?!_symx)\w+)*) import (\([^)]*\)|.*)$", re.MULTILINE)


def replace_package_imports(stub_text, modules):
    """stub_text without stubgen's imports from the package itself (`from symx import ...`), which
    would be circular once the package has stubs: an exception class made in C (ShapeError,
    DistributedError) becomes a class definition; the Python-defined Tensor methods stubgen found
    are dropped (add_tensor_methods writes them into the class)."""

    def replacement(match):
        module = modules[match.group(1)]
        classes = []
        for entry in match.group(2).strip("()").split(","):
            name, _, alias = (part.strip() for part in entry.strip().partition(" as "))
            value = getattr(module, name, None)
            if inspect.isclass(value) and issubclass(value, BaseException):
                doc = (inspect.getdoc(value) or "").replace('"""', "'''")
                classes.append(
                    'class %s(%s):\n    """\n%s\n    """\n'
                    % (alias or name, value.__bases__[0].__name__, textwrap.indent(doc, "    "))
                )
        return "\n".join(classes)

    return PACKAGE_IMPORT.sub(replacement, stub_text)


def package_stub(package, core):
    """The stub of the package itself: the extension's names, and the few that symx/__init__.py
    defines (dtypes, newaxis, __version__)."""
    lines = [
        '"""Stub of the `symx` package (see cmake/stubs.py)."""',
        "",
        "from typing import Any",
        "",
        "import numpy",
        "",
    ]
    lines.append("from symx._symx import *")
    for name, value in sorted(vars(package).items()):
        if name in vars(core) or inspect.ismodule(value) or (name.startswith("_") and name != "__version__"):
            continue
        if isinstance(value, numpy.dtype):
            lines.append("%s: numpy.dtype[Any]" % name)
        elif value is None or isinstance(value, str):
            lines.append("%s: %s" % (name, type(value).__name__ if value is not None else "None"))
    return "\n".join(lines) + "\n"


SKIPPED = "# Names stubgen skips (added by cmake/stubs.py, to the end of the file)"


def add_skipped_names(stub_text, core):
    """stub_text with the public names stubgen leaves out: functions whose name ends with an
    underscore (stubgen takes them for private: ix_) and module attributes that are instances of the
    extension's classes (index, an IndexMaker)."""
    if SKIPPED in stub_text:  # an earlier run's: the block runs to the end of the file
        stub_text = stub_text[: stub_text.index(SKIPPED)]
    lines = stub_text.rstrip("\n").split("\n") + ["", SKIPPED]
    defined = set()
    for node in ast.parse(stub_text).body:  # top-level names only (a method may be called index)
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            defined.add(node.target.id)
        elif isinstance(node, ast.Assign):
            defined |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    for name in sorted(dir(core)):
        if name.startswith("_") or name in defined:
            continue
        value = getattr(core, name)
        if callable(value) and not isinstance(value, type):
            doc = (value.__doc__ or "").strip().split("\n")
            lines += ["", "def %s(*args, **kwargs) -> Any:" % name, '    """%s"""' % doc[-1].replace('"', "'")]
        elif type(value).__module__.startswith("symx"):
            lines += ["", "%s: %s = ..." % (name, type(value).__name__)]
    if "from typing import Any" not in stub_text:
        lines.insert(
            next(i for i, line in enumerate(lines) if line.startswith(("import ", "from "))), "from typing import Any"
        )
    return "\n".join(lines) + "\n"


def qualify_builtin_complex(stub_text):
    """stub_text with the Python type `complex` of the annotations spelled builtins.complex: the module
    defines a function complex (symx.complex), which would shadow it."""
    text = stub_text.replace("| complex |", "| builtins.complex |")
    if text != stub_text and "import builtins" not in text.split("\n"):
        lines = text.split("\n")
        lines.insert(
            next(i for i, line in enumerate(lines) if line.startswith(("import ", "from "))), "import builtins"
        )
        text = "\n".join(lines)
    return text


def main():
    package_dir = os.path.abspath(sys.argv[1])
    sys.path.insert(0, os.path.dirname(package_dir))
    import symx

    for path, text in submodule_stubs(package_dir, sys.modules).items():
        full = os.path.join(package_dir, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)
    for folder, _, files in os.walk(os.path.join(package_dir, "_symx")):
        for name in files:
            if name.endswith(".pyi"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    text = replace_package_imports(f.read(), sys.modules)
                if path == os.path.join(package_dir, "_symx", "__init__.pyi"):
                    text = add_tensor_methods(text, python_tensor_methods(symx.Tensor))
                    text = add_skipped_names(text, symx._symx)
                    text = qualify_builtin_complex(text)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
    with open(os.path.join(package_dir, "__init__.pyi"), "w", encoding="utf-8") as f:
        f.write(package_stub(symx, symx._symx))


if __name__ == "__main__":
    main()
