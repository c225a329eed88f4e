"""tools/check_layers.py, the include check of `make test`: it passes on the real tree and fails,
naming the file, the line, the include and both layers, on a copy with an include planted that
points up."""

import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "tools", "check_layers.py")


def run(root, *args):
    return subprocess.run(
        [sys.executable, SCRIPT, "--root", str(root), *args], capture_output=True, text=True, timeout=60
    )


@pytest.fixture
def tree(tmp_path):
    """A copy of the sources the check reads."""
    for top in ("src", "include", "toolkit", "python"):
        shutil.copytree(
            os.path.join(ROOT, top), tmp_path / top, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyc")
        )
    return tmp_path


def plant(path, line):
    """Appends `line` to the file; returns its line number."""
    text = path.read_text()
    if not text.endswith("\n"):
        text += "\n"
    path.write_text(text + line + "\n")
    return text.count("\n") + 1


def test_the_real_tree_passes():
    result = run(ROOT)
    assert result.returncode == 0, result.stderr
    assert "every include points down" in result.stdout


def test_an_include_from_core_into_the_runtime_fails_naming_it(tree):
    line = plant(tree / "src" / "core" / "graph.cpp", '#include "runtime/program.hpp"')
    result = run(tree)
    assert result.returncode == 1
    problems = [p for p in result.stderr.splitlines() if not p.startswith("check_layers:")]
    assert len(problems) == 1, result.stderr
    assert problems[0].startswith('src/core/graph.cpp:%d: includes "runtime/program.hpp"' % line)
    assert "layer runtime" in problems[0] and "layer core" in problems[0]
    assert "Fix:" in problems[0]
    assert int(run(tree, "--count").stdout) == int(run(ROOT, "--count").stdout) + 1


def test_a_public_header_including_a_higher_one_fails(tree):
    line = plant(tree / "include" / "symx" / "tensor.hpp", '#include "symx/function.hpp"')
    result = run(tree)
    assert result.returncode == 1
    assert 'include/symx/tensor.hpp:%d: includes "symx/function.hpp"' % line in result.stderr
    assert "layer function" in result.stderr and "layer core" in result.stderr


def test_the_toolkit_including_an_engine_source_header_fails(tree):
    line = plant(tree / "toolkit" / "src" / "optim.cpp", '#include "ops/op_table.hpp"')
    result = run(tree)
    assert result.returncode == 1
    assert 'toolkit/src/optim.cpp:%d: includes "ops/op_table.hpp"' % line in result.stderr
    assert "public API" in result.stderr


def test_a_file_outside_every_layer_fails(tree):
    (tree / "src" / "misc").mkdir()
    (tree / "src" / "misc" / "stray.cpp").write_text("int x;\n")
    result = run(tree)
    assert result.returncode == 1
    assert "src/misc/stray.cpp: this file belongs to no layer" in result.stderr


def test_an_allowed_arrow_that_no_longer_exists_fails(tree, monkeypatch):
    spec = importlib.util.spec_from_file_location("check_layers", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module, "ALLOWED_UPWARD", module.ALLOWED_UPWARD | {("src/core/graph.cpp", "src/ops/ops.hpp")})
    problems, _, _ = module.check(str(tree))
    assert problems == [
        "tools/check_layers.py: the allowed upward include src/core/graph.cpp -> src/ops/ops.hpp "
        "no longer exists. Delete its entry from ALLOWED_UPWARD."
    ]
