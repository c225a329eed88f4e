"""Runs examples/mvn_pdf.py and examples/sgd.py as scripts against the symx package this test
process imports (its directory goes first on the child's PYTHONPATH)."""

import os
import subprocess

import numpy as np
import pytest

from helpers import MNIST, ROOT, run_python, symx_tool


def run_example(name):
    return run_python(os.path.join(ROOT, "examples", name), timeout=300)


@pytest.mark.parametrize("name", ["mvn_pdf.py", "sgd.py", "quickstart.py"])
def test_example_exits_zero(name):
    result = run_example(name)
    assert result.returncode == 0, result.stdout + result.stderr


def test_mvn_pdf_prints_the_grid():
    out = run_example("mvn_pdf.py").stdout
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 5 and "0.16" in lines[2] and lines[1].count("0.01") == 1 and lines[2].count("0.01") == 2


def test_sgd_prints_ten_costs():
    out = run_example("sgd.py").stdout.split()
    assert len(out) == 10 and abs(float(out[0]) - 0.008471076) < 1e-8


def readme_block(title, language):
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    section = text[text.index("## " + title) :]
    start = section.index("```" + language + "\n") + len(language) + 4
    return section[start : section.index("```", start)]


@pytest.mark.parametrize(
    "title,language,path",
    [
        ("Quick start, C++", "cpp", "examples/quickstart.cpp"),
        ("Quick start, Python", "python", "examples/quickstart.py"),
        ("Quick start, a network", "python", "examples/network.py"),
        ("Quick start, training loop", "python", "examples/train_digits.py"),
        ("Quick start, distributed loop", "python", "examples/distributed.py"),
        ("Quick start, data", "python", "examples/data_pipeline.py"),
        ("Quick start, loops", "python", "examples/loops.py"),
        ("Quick start, loops", "cpp", "examples/loops.cpp"),
        ("Quick start, NumPy", "python", "examples/numpy_tour.py"),
        ("Quick start, NumPy", "cpp", "examples/numpy_tour.cpp"),
    ],
)
def test_readme_quick_starts_are_the_example_files(title, language, path):
    # The README shows the files that the tests compile and run, so it cannot drift from them.
    with open(os.path.join(ROOT, path)) as f:
        assert readme_block(title, language) == f.read()


def test_loops_quick_start_prints_the_worked_values():
    # The running sum of 1..4, its steps and the gradient of the sum of their squares (worked by
    # hand: d/dx_s = 2 * sum of the partial sums from s on), sqrt(2) by Newton in 4 steps, and the
    # cond's value and gradient on the branch taken.
    result = run_example("loops.py")
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    for expected in (
        "array(10.",
        "[ 1.,  3.,  6., 10.]",
        "[40., 38., 32., 20.]",
        "array(1.4142135",
        "array(4,",
        "array(-2.",
        "array(1.",
    ):
        assert expected in out, out
    program = os.path.join(os.path.dirname(symx_tool()), "loops")
    if os.path.exists(program):
        cpp = subprocess.run([program], capture_output=True, text=True, timeout=300)
        assert cpp.returncode == 0, cpp.stdout + cpp.stderr
        assert cpp.stdout.split() == [
            "10.",
            "[",
            "1.",
            "3.",
            "6.",
            "10.]",
            "[40.",
            "38.",
            "32.",
            "20.]",
            "1.41421354",
            "-2.",
            "1.",
        ], cpp.stdout


def parse(line):
    return [float(v) for v in line.strip("[] ").split()]


def test_numpy_quick_start_prints_the_worked_values():
    # sort, median, cumprod and its gradient at a zero (worked by hand: d/dx1 of sum(cumprod) at
    # (3, 0, 2, 1) is x0 + x0 x2 + x0 x2 x3 = 15), counts of repeated indices, log(4!) and nonzero
    # padded with -1; the same lines from the C++ example.
    expected = ["[0. 1. 2. 3.]", "1.5", "[3. 0. 0. 0.]", "[ 1. 15.  0.  0.]", "[0. 2. 0. 1.]", "[ 0  2 -1]"]
    result = run_example("numpy_tour.py")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [lines[i] for i in (0, 1, 2, 3, 4, 7)] == expected, result.stdout
    assert lines[5].startswith("(2, 3, 3) 3.17805"), result.stdout
    program = os.path.join(os.path.dirname(symx_tool()), "numpy_tour")
    if os.path.exists(program):
        cpp = subprocess.run([program], capture_output=True, text=True, timeout=300)
        assert cpp.returncode == 0, cpp.stdout + cpp.stderr
        out = cpp.stdout.splitlines()
        assert [out[i] for i in (0, 1, 2, 3, 4, 7)] == expected, cpp.stdout
        assert out[5].startswith("3 axes, 3.17805"), cpp.stdout
        # The seeded gamma draws are the same numbers in both languages.
        assert np.allclose(parse(out[6]), parse(lines[6]), rtol=1e-6), (out[6], lines[6])


def test_data_quick_start_runs_an_epoch():
    result = run_example("data_pipeline.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "7000 examples in 219 batches, pixels up to 1.0; 1000 for validation" in result.stdout, result.stdout


def test_python_quick_start_loss_falls():
    result = run_example("quickstart.py")
    assert result.returncode == 0, result.stderr
    checker = os.path.join(ROOT, "tests", "package", "check_quickstart.py")
    check = run_python(checker, input=result.stdout)
    assert check.returncode == 0, check.stdout + check.stderr


def test_network_quick_start_learns_the_circle():
    # Ten epochs of batches of 64 and a last batch of 40 (the batch size is None): the loss falls and
    # the accuracy on all 1000 points ends far above chance (about 0.5 for the two classes).
    result = run_example("network.py")
    assert result.returncode == 0, result.stdout + result.stderr
    epochs = [line.split() for line in result.stdout.splitlines() if line.startswith("epoch")]
    assert len(epochs) == 10, result.stdout
    losses = [float(e[3].rstrip(",")) for e in epochs]
    accuracy = float(epochs[-1][5])
    assert losses[-1] < 0.5 * losses[0], result.stdout
    assert accuracy > 0.9, result.stdout


def _check_digits_run(stdout, run_dir):
    # Up to five epochs of a 784-128-10 perceptron on 7,000 real digits: far above chance (0.1) on
    # the 1,000 held out, with the run folder's files written.
    last = stdout.strip().splitlines()[-1]
    accuracy = float(last.split("validation accuracy ")[1].split(";")[0])
    assert accuracy > 0.85, stdout
    assert (run_dir / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert len((run_dir / "metrics.jsonl").read_text().splitlines()) >= 3


def test_train_digits_quick_start_python(tmp_path):
    result = run_python(os.path.join(ROOT, "examples", "train_digits.py"), MNIST, str(tmp_path / "run"), timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    _check_digits_run(result.stdout, tmp_path / "run")


def _run_cpp_example(name, tmp_path):
    # build/bin/<name> on the bundled digits, writing its run folder into tmp_path/run.
    program = os.path.join(os.path.dirname(symx_tool()), name)
    if not os.path.exists(program):
        pytest.skip(f"build/bin/{name} is not built (set SYMX_BIN to the build's bin/symx)")
    return subprocess.run([program, MNIST, str(tmp_path / "run")], capture_output=True, text=True, timeout=600)


def test_train_digits_quick_start_cpp(tmp_path):
    result = _run_cpp_example("train_digits", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    _check_digits_run(result.stdout, tmp_path / "run")


def _check_sequence_run(stdout, run_dir):
    # Three epochs of an LSTM of 64 units over the rows of 7,000 real digits: far above chance (0.1)
    # on the 1,000 held out.
    last = stdout.strip().splitlines()[-1]
    accuracy = float(last.split("validation accuracy ")[1].split(";")[0])
    assert accuracy > 0.6, stdout
    assert len((run_dir / "metrics.jsonl").read_text().splitlines()) == 3


def test_sequence_example_python(tmp_path):
    result = run_python(os.path.join(ROOT, "examples", "sequence.py"), MNIST, str(tmp_path / "run"), timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    _check_sequence_run(result.stdout, tmp_path / "run")


def test_sequence_example_cpp(tmp_path):
    result = _run_cpp_example("sequence", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    _check_sequence_run(result.stdout, tmp_path / "run")
