"""Help text (issue 8, part 5): every public function, class, method and property has a docstring
with an example, and the docstrings are the comments of include/symx/*.hpp (one source for both
languages). The header comments are read here by this test's own parser, not the build's."""

import inspect
import os
import pydoc
import re
import subprocess
import sys

import pytest

import symx as sx
from helpers import ROOT

HEADERS = os.path.join(ROOT, "include", "symx")


def header_comment(header, declaration):
    """The `//` comment lines right above the first line of `header` that starts with `declaration`
    (after indentation), joined with newlines and without the `// ` markers."""
    with open(os.path.join(HEADERS, header), encoding="utf-8") as f:
        lines = f.read().split("\n")
    index = next(i for i, line in enumerate(lines) if line.strip().startswith(declaration))
    comment = []
    for line in reversed(lines[:index]):
        if not line.strip().startswith("//") or line.strip().startswith("// ----"):
            break
        comment.insert(0, line.strip()[3:])
    assert comment, "no comment above %r in %s" % (declaration, header)
    return "\n".join(comment)


def public_callables():
    """(qualified name, object) of every public callable of symx and its submodules, and every public
    method and property of Tensor and Function."""
    found = []
    modules = [("sx", sx), ("sx.nn", sx.nn), ("sx.linalg", sx.linalg), ("sx.random", sx.random)]
    modules += [
        ("sx.signal", sx.signal),
        ("sx.interpolation", sx.interpolation),
        ("sx.image", sx.image),
        ("sx.fft", sx.fft),
    ]
    for module_name, module in modules:
        for name in dir(module):
            obj = getattr(module, name)
            if name.startswith("_") or inspect.ismodule(obj) or not callable(obj):
                continue
            if module is sx and not (getattr(obj, "__module__", "") or "").startswith("symx"):
                continue  # a NumPy dtype object, say
            found.append(("%s.%s" % (module_name, name), obj))
    for cls in (sx.Tensor, sx.Function, sx.Scope):
        for name, obj in vars(cls).items():
            if not name.startswith("_"):
                found.append(("sx.%s.%s" % (cls.__name__, name), obj))
    return found


def test_every_public_callable_has_a_docstring_with_an_example():
    names = [name for name, _ in public_callables()]
    # The walk itself must see the API (a broken walk would pass vacuously).
    for expected in (
        "sx.sum",
        "sx.nn.conv2d",
        "sx.linalg.inv",
        "sx.random.normal",
        "sx.Tensor.eval",
        "sx.Tensor.shape",
        "sx.Function.describe",
        "sx.function",
        "sx.ShapeError",
        "sx.Tensor.sum",
    ):
        assert expected in names
    undocumented = [
        name for name, obj in public_callables() if not re.search(r"^\s*Example", obj.__doc__ or "", re.MULTILINE)
    ]
    assert undocumented == [], "no docstring with an 'Example' line: " + ", ".join(undocumented)


@pytest.mark.parametrize(
    "obj, header, declaration",
    [
        (sx.sum, "ops.hpp", "Tensor sum("),
        (sx.floor_divide, "ops.hpp", "Tensor floor_divide("),
        (sx.nn.conv2d, "ops.hpp", "Tensor conv2d("),
        (sx.nn.softmax_cross_entropy, "ops.hpp", "Tensor softmax_cross_entropy("),
        (sx.linalg.solve, "ops.hpp", "Tensor solve("),
        (sx.random.truncated_normal, "ops.hpp", "Tensor truncated_normal("),
        (sx.grad, "autodiff.hpp", "std::vector<Tensor> grad("),
        (sx.function, "function.hpp", "Function function("),
        (sx.load_variables, "io.hpp", "void load_variables("),
        (sx.Tensor.eval, "tensor.hpp", "Array eval("),
        (sx.Tensor.shape, "tensor.hpp", "const Shape& shape()"),
        (sx.Function.__call__, "function.hpp", "std::vector<Array> operator()("),
        (sx.Tensor, "tensor.hpp", "class Tensor {"),
        (sx.ShapeError, "error.hpp", "class ShapeError"),
    ],
)
def test_docstrings_are_the_header_comments(obj, header, declaration):
    comment = header_comment(header, declaration)
    assert "Example" in comment
    assert comment in obj.__doc__


def test_overloads_share_one_docstring_with_both_comments():
    doc = sx.split.__doc__
    assert header_comment("ops.hpp", "std::vector<Tensor> split(const Tensor& x, std::int64_t") in doc
    assert header_comment("ops.hpp", "std::vector<Tensor> split(const Tensor& x, const std::vector") in doc


def test_tensor_reduction_methods_carry_the_free_functions_docstring():
    assert header_comment("ops.hpp", "Tensor mean(") in sx.Tensor.mean.__doc__


def test_help_of_softmax_cross_entropy_explains_logits_and_labels():
    text = pydoc.render_doc(sx.nn.softmax_cross_entropy, renderer=pydoc.plaintext)
    assert re.search(r"logits: float", text)
    assert re.search(r"labels: probabilities", text)
    assert "Example" in text


def test_the_stubs_carry_the_docstrings():
    stub = os.path.join(os.path.dirname(sx.__file__), "_symx", "nn.pyi")
    if os.path.exists(os.path.join(os.path.dirname(sx.__file__), "_symx", "nn", "__init__.pyi")):
        stub = os.path.join(os.path.dirname(sx.__file__), "_symx", "nn", "__init__.pyi")  # nn has submodules
    if not os.path.exists(stub):
        pytest.skip("stubs are generated by the build (not present in this install)")
    with open(stub, encoding="utf-8") as f:
        text = f.read()
    assert "labels: probabilities" in text


def test_the_build_fails_naming_a_binding_without_a_header_comment(tmp_path):
    binding = tmp_path / "binding.cpp"
    binding.write_text(
        "#define SYMX_UNARY(name) m.def(#name, DOC(name));\n"
        'm.def("sum", DOC(sum)); SYMX_UNARY(exp) SYMX_UNARY(frobnicate) nn.def("x", DOC(nn_blur));\n'
    )
    headers = [os.path.join(HEADERS, h) for h in sorted(os.listdir(HEADERS)) if h.endswith(".hpp")]
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "cmake", "docstrings.py"), str(tmp_path / "out.hpp"), str(binding)]
        + headers,
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "frobnicate" in result.stderr and "nn::blur" in result.stderr
    assert "exp" not in result.stderr.split("docstring of")[1].split(",")[0]
    assert "comment" in result.stderr

    binding.write_text('m.def("sum", DOC(sum)); nn.def("conv2d", DOC(nn_conv2d));\n')
    result = subprocess.run(
        [sys.executable, os.path.join(ROOT, "cmake", "docstrings.py"), str(tmp_path / "out.hpp"), str(binding)]
        + headers,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    generated = (tmp_path / "out.hpp").read_text()
    assert "inline constexpr const char nn_conv2d[]" in generated and "char sum[]" in generated


# C++ spelled in an example: scope operators, designated initializers, lambdas, `auto`, `std::`,
# C++ literals, a declaration `Type name = ...`, a statement ending in `;`. ("Example::" is reST.)
CPP_IN_EXAMPLE = re.compile(
    r"\w::\w|\{\s*\.\w|\[\]\s*\(|\bauto\b|\boverride\b|\btrue\b|\bfalse\b|"
    r"^\s*(Example:\s*)?[A-Z]\w*(<[^>]*>)? \w+ = |;\s*$"
)


def example_lines(doc):
    """The Example lines of a docstring with the lines indented under them."""
    found, inside = [], False
    for line in (doc or "").split("\n"):
        if re.match(r"\s*Example", line):
            found.append(line)
            inside = True
        elif inside and line.startswith("  ") and line.strip():
            found.append(line)
        else:
            inside = False
    return found


def documented_objects():
    """(name, object) of every public callable, class and class member of symx and its submodules."""
    modules = {"sx": sx}
    modules.update({name: module for name, module in sys.modules.items() if name.startswith("symx.")})
    for module_name, module in modules.items():
        if module_name.startswith("symx._"):
            continue
        for name in dir(module):
            obj = getattr(module, name)
            if name.startswith("_") or inspect.ismodule(obj):
                continue
            if type(obj).__module__.split(".")[0] == "numpy":  # sx.index is numpy.index_exp, NumPy's docs
                continue
            yield "%s.%s" % (module_name, name), obj
            if inspect.isclass(obj):
                for member, value in vars(obj).items():
                    if not member.startswith("_") or member in ("__init__", "__call__", "__iter__"):
                        yield "%s.%s.%s" % (module_name, name, member), value


def test_docstring_examples_are_python():
    """Issue 19: a Python user's help() showed C++ examples. A header comment gives the Python form
    on a `Python:` line, which cmake/docstrings.py shows instead of the C++ one."""
    objects = dict(documented_objects())
    assert "symx.distributed.rank" in objects and "symx.optim.SGD.__init__" in objects  # the walk sees them
    assert "sx.distributed.rank()" in sx.distributed.rank.__doc__
    cpp = [
        "%s: %s" % (name, line.strip())
        for name, obj in sorted(objects.items())
        for line in example_lines(
            getattr(obj, "__doc__", None) if isinstance(getattr(obj, "__doc__", None), str) else ""
        )
        if CPP_IN_EXAMPLE.search(line)
    ]
    assert cpp == [], "C++ in the examples of Python docstrings (add a '// Python: ...' line):\n" + "\n".join(cpp)
