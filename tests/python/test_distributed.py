"""Distributed training over MPI, on this machine: `mpirun --oversubscribe -np 2` on loopback runs
tests/python/mpi_worker.py (or the `symx` tool), and the tests compare what the processes wrote
against NumPy and against one process with the whole batch."""

import json
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import symx as sx
from helpers import MNIST, python_env, symx_tool

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mpi_worker.py")
sys.path.insert(0, os.path.dirname(WORKER))
import mpi_worker  # noqa: E402


def mpirun_line(n, *command, env=None):
    """The command line and environment of `mpirun -np n command...` on this machine only, over
    loopback, with `env`'s changes."""
    line = ["mpirun", "--oversubscribe", "-np", str(n)]
    if os.geteuid() == 0:
        line.append("--allow-run-as-root")
    # Keep every byte on 127.0.0.1 (the TCP transport and Open MPI's own out-of-band channel).
    changes = {"OMPI_MCA_btl_tcp_if_include": "lo", "OMPI_MCA_oob_tcp_if_include": "lo"}
    changes.update(env or {})
    return line + list(command), python_env(**changes)


def mpirun(n, *command, env=None, timeout=180):
    """Runs mpirun_line(n, command...) to its end; returns (process, seconds)."""
    line, environment = mpirun_line(n, *command, env=env)
    start = time.monotonic()
    done = subprocess.run(line, env=environment, capture_output=True, text=True, timeout=timeout)
    return done, time.monotonic() - start


def worker(n, out, *args, env=None):
    """The worker on n processes (n = 1: a plain process, a world of one, without mpirun)."""
    command = [sys.executable, WORKER, *args[:1], str(out), *args[1:]]
    if n == 1:
        done = subprocess.run(command, env=python_env(**(env or {})), capture_output=True, text=True, timeout=180)
    else:
        done, _ = mpirun(n, *command, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return [dict(np.load(os.path.join(out, f"rank{r}.npz"))) for r in range(n)]


def test_mpirun_is_installed():
    assert shutil.which("mpirun"), "mpirun is missing: tools/install_deps.sh installs Debian's openmpi-bin"


def test_collectives_match_numpy(tmp_path):
    got = worker(2, tmp_path, "collectives")
    a = [mpi_worker.inputs(r) for r in range(2)]
    f32, f64, i64, row = ([a[r][k] for r in range(2)] for k in ("f32", "f64", "i64", "row"))
    s = 2 * (f32[0] + f32[1])
    for r in range(2):
        g = got[r]
        np.testing.assert_allclose(g["sum"], f32[0] + f32[1], rtol=1e-6)
        np.testing.assert_allclose(g["mean"], (f64[0] + f64[1]) / 2, rtol=1e-12)
        np.testing.assert_array_equal(g["max"], np.maximum(i64[0], i64[1]))
        np.testing.assert_array_equal(g["isum"], i64[0] + i64[1])
        np.testing.assert_array_equal(g["bcast"], f64[1])
        np.testing.assert_array_equal(g["gather"], np.concatenate(row))
        np.testing.assert_array_equal(g["gather_scalar"], [0.0, 1.0])
        np.testing.assert_array_equal(g["local"], [r, 2])  # both processes on this machine
        # As graph nodes in a compiled function.
        np.testing.assert_allclose(g["t_sum"], s, rtol=1e-6)
        np.testing.assert_array_equal(g["t_gather"], np.concatenate(row))
        np.testing.assert_array_equal(g["t_bcast"], f32[0])
        # Gradients of the sum of the processes' losses sum(s^2) + sum(gathered^2): d/dp_r = 2 * (2 s summed
        # over the two processes) = 8 s; d/dq_r = this process's rows of 2 * gathered summed = 4 q_r.
        np.testing.assert_allclose(g["t_gp"], 8 * s, rtol=1e-6)
        np.testing.assert_allclose(g["t_gq"], 4 * row[r], rtol=1e-6)
        assert "passed float32 (%d,) but rank %d passed float32 (%d,)" % (2 + r, 1 - r, 3 - r) in str(g["mismatch"])


def test_a_world_of_one_without_mpirun(tmp_path):
    (g,) = worker(1, tmp_path, "collectives")
    a = mpi_worker.inputs(0)
    assert sx.distributed.world_size() == 1 and sx.distributed.rank() == 0
    np.testing.assert_array_equal(g["sum"], a["f32"])
    np.testing.assert_array_equal(g["mean"], a["f64"])
    np.testing.assert_array_equal(g["gather"], a["row"])
    np.testing.assert_allclose(g["t_gp"], 8 * a["f32"], rtol=1e-6)
    np.testing.assert_array_equal(g["local"], [0, 1])
    assert str(g["mismatch"]) == "no error"


def relative_difference(one, two):
    """The largest |a - b| / max |a| over the variables of two runs (NaN-free, same names)."""
    names = [k for k in one if not k.startswith("__")]
    assert names and sorted(names) == sorted(k for k in two if not k.startswith("__"))
    return max(float(np.max(np.abs(one[k] - two[k])) / max(float(np.max(np.abs(one[k]))), 1e-12)) for k in names)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
@pytest.mark.parametrize("bn", [False, True], ids=["plain", "sync_bn"])
def test_two_processes_train_like_one_with_twice_the_batch(tmp_path, optimizer, bn):
    args = ["train", "--optimizer", optimizer] + (["--bn"] if bn else [])
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    (one,) = worker(1, tmp_path / "one", *args)
    two = worker(2, tmp_path / "two", *args)
    # 20 steps of batch 32 against 20 steps of two processes with 16 each, over the same examples.
    assert relative_difference(one, two[0]) < 1e-5
    # The processes hold the same variables after every step, and several buckets were reduced.
    for r in range(2):
        assert two[r]["__spread__"].shape == (20,) and np.max(two[r]["__spread__"]) == 0.0
        assert two[r]["__stats__"][0] == 2 * 20  # two buckets of 0.02 MiB per step
    np.testing.assert_array_equal(two[0]["sequential/dense_1/w"], two[1]["sequential/dense_1/w"])


def test_batch_norm_without_sync_uses_each_process_statistics(tmp_path):
    # The control of the test above: per-process statistics (16 examples) are not those of 32.
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    (one,) = worker(1, tmp_path / "one", "train", "--bn", "--local-bn")
    two = worker(2, tmp_path / "two", "train", "--bn", "--local-bn")
    assert relative_difference(one, two[0]) > 1e-3


@pytest.mark.parametrize("how", ["kill", "raise", "hang"])
def test_a_failed_process_ends_the_job(tmp_path, how):
    command = [sys.executable, WORKER, "fault", str(tmp_path), "--how", how]
    done, seconds = mpirun(2, *command, env={"SYMX_DIST_TIMEOUT": "3"}, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert seconds < 60, f"the job took {seconds:.0f} s to end"
    assert "rank 0 was never stopped" not in output
    expected = {
        "kill": "exited on signal 9",
        "raise": "uncaught ValueError (traceback above); ending every process of the run",
        "hang": "waited 3 s for the other 1 process(es)",
    }[how]
    assert expected in output, output


def test_every_collective_compares_the_whole_shape_and_dtype(tmp_path):
    got = worker(2, tmp_path, "mismatch")
    ones8, ones7 = "(" + "1, " * 8, "(" + "1, " * 7
    for r in range(2):
        mine, other = ("2, 3)", "3, 2)") if r == 0 else ("3, 2)", "2, 3)")
        g = got[r]
        # Axes past the eighth were never compared: garbage sums, mixed data.
        assert f"this process passed float32 {ones8}{mine} but rank {1 - r} passed float32 {ones8}{other}" in str(
            g["reduce10"]
        ), g["reduce10"]
        for key in ("bcast9", "gather9"):
            assert f"float32 {ones7}{mine} but rank {1 - r} passed float32 {ones7}{other}" in str(g[key]), g[key]
        mine_dtype, other_dtype = ("float32", "float64") if r == 0 else ("float64", "float32")
        assert f"passed {mine_dtype} (3,) but rank {1 - r} passed {other_dtype} (3,)" in str(g["dtype"]), g["dtype"]
        # Tensors with unknown sizes: (2, 3) against (3, 2), a batch of 2 against 7.
        assert f"passed float32 ({mine} but rank {1 - r} passed float32 ({other}" in str(g["t_reduce"]), g["t_reduce"]
        batch, other_batch = (2, 7) if r == 0 else (7, 2)
        assert f"passed float32 ({batch}, 3) but rank {1 - r} passed float32 ({other_batch}, 3)" in str(g["t_bcast"])
        np.testing.assert_array_equal(g["after"], [2, 2, 2, 2])


def test_after_a_timeout_every_collective_fails_and_the_job_ends(tmp_path):
    command = [sys.executable, WORKER, "timeout", str(tmp_path)]
    done, seconds = mpirun(2, *command, env={"SYMX_DIST_TIMEOUT": "2"}, timeout=120)
    output = done.stdout + done.stderr
    assert seconds < 40, f"the job took {seconds:.0f} s to end (MPI_Finalize waited for the lost collective)"
    assert done.returncode != 0, output
    assert "a collective timed out earlier, so MPI cannot be finalized" in output, output
    g = np.load(tmp_path / "rank0.npz")
    assert "waited 2 s for the other 1 process(es)" in str(g["first"]), g["first"]
    for key in ("second", "barrier"):  # once, the second returned [1, 1, 1, 1] from the lost one
        assert "not started, because an earlier collective timed out" in str(g[key]), g[key]


def test_init_is_bounded_when_a_process_exits_before_it(tmp_path):
    command = [sys.executable, WORKER, "early-exit", str(tmp_path)]
    done, seconds = mpirun(2, *command, env={"SYMX_DIST_TIMEOUT": "3"}, timeout=120)
    output = done.stdout + done.stderr
    assert done.returncode != 0 and seconds < 40, f"{seconds:.0f} s: {output}"
    assert "init waited 3 s for the other processes of the job" in output, output


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0, 0.0])
def test_invalid_timeouts_are_refused(bad):
    with pytest.raises(ValueError, match="not a positive"):
        sx.distributed.init(timeout=bad)


def test_invalid_timeouts_in_the_environment_are_refused(tmp_path):
    for bad in ("nan", "inf", "-3", "5s"):
        code = "import symx as sx; sx.distributed.init()"
        done = subprocess.run(
            [sys.executable, "-c", code], env=python_env(SYMX_DIST_TIMEOUT=bad), capture_output=True, text=True
        )
        assert done.returncode != 0 and f"SYMX_DIST_TIMEOUT is '{bad}'" in done.stderr, done.stderr


def test_sharded_batches_cover_every_example_once(tmp_path):
    x = np.arange(103, dtype=np.int64)
    whole = list(sx.data.BatchIterator([x], batch_size=30, seed=7, prefetch=0))
    parts = [list(sx.data.BatchIterator([x], batch_size=10, seed=7, prefetch=0, shard=k, shards=3)) for k in range(3)]
    assert len(whole) == 4 and all(len(p) == 4 for p in parts)
    for b in range(4):  # the shards of global batch b are the single process's batch b, in order
        np.testing.assert_array_equal(np.concatenate([parts[k][b][0] for k in range(3)]), whole[b][0])
    assert [len(parts[k][3][0]) for k in range(3)] == [4, 4, 5]  # 13 left: parts within one example
    # Fewer examples than shards in the last batch: no shard gets an empty batch.
    tail = [list(sx.data.BatchIterator([x[:7]], batch_size=2, prefetch=0, shard=k, shards=3)) for k in range(3)]
    assert [len(t[1][0]) for t in tail] == [1, 1, 1]
    with pytest.raises(ValueError, match="shard 3 of 3 shards"):
        sx.data.BatchIterator([x], shard=3, shards=3)


def test_symx_tool_under_mpirun_and_resumed_with_one_process(tmp_path):
    run = tmp_path / "run"
    common = ["--data", "mnist", "--data-dir", MNIST, "--log", "lines"]
    done, _ = mpirun(2, symx_tool(), "train", "--model", "mlp", "--epochs", "1", "--out", str(run), *common)
    assert done.returncode == 0, done.stdout + done.stderr
    # Rank 0 alone prints and writes.
    assert done.stdout.count("symx train: mlp on mnist") == 1, done.stdout
    assert "2 processes x 1 threads, batch 32 per process (64 in all)" in done.stdout
    assert done.stdout.count("done: validation loss") == 1
    lines = (run / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["val_accuracy"] > 0.8
    assert (run / "curves.png").exists()
    info = sx.train.read_checkpoint(str(run))
    assert info["epoch"] == 1 and info["step"] == 110  # ceil(7000 / 64) steps of both processes
    # The run continues with one process (batch 32 per step now).
    tool = subprocess.run(
        [symx_tool(), "train", "--resume", str(run), "--epochs", "2", "--data-dir", MNIST, "--log", "lines"],
        capture_output=True,
        text=True,
        timeout=300,
        env=python_env(),
    )
    assert tool.returncode == 0, tool.stdout + tool.stderr
    info = sx.train.read_checkpoint(str(run))
    assert info["epoch"] == 2 and info["step"] == 110 + 219
    assert len((run / "metrics.jsonl").read_text().splitlines()) == 2


def _digits_lines(stdout):
    # Each process's closing line; mpirun interleaves the two processes' output, so rank 1's line may
    # follow rank 0's unfinished progress line (carriage returns, no newline) on the same line.
    return re.findall(r"\d+ epochs, validation accuracy [0-9.]+", stdout)


@pytest.mark.parametrize("language", ["python", "cpp"])
def test_train_digits_quick_start_under_mpirun(tmp_path, language):
    # The README's training quick start unchanged: fit trains data-parallel when mpirun starts it.
    if language == "python":
        program = [sys.executable, os.path.join(os.path.dirname(WORKER), "..", "..", "examples", "train_digits.py")]
    else:
        program = [os.path.join(os.path.dirname(symx_tool()), "train_digits")]
    done, _ = mpirun(2, *program, MNIST, str(tmp_path / "run"), timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    # The progress is rank 0's alone; both processes end with the same model, so the same accuracy.
    finals = _digits_lines(done.stdout)
    assert len(finals) == 2 and finals[0] == finals[1], done.stdout
    assert float(finals[0].split("validation accuracy ")[1].split(";")[0]) > 0.85
    assert len((tmp_path / "run" / "metrics.jsonl").read_text().splitlines()) >= 3


def test_distributed_quick_start_matches_one_process(tmp_path):
    # examples/distributed.py: two processes of 32 print the losses of one process of 64.
    script = os.path.join(os.path.dirname(WORKER), "..", "..", "examples", "distributed.py")
    one = subprocess.run([sys.executable, script, MNIST], env=python_env(), capture_output=True, text=True, timeout=300)
    two, _ = mpirun(2, sys.executable, script, MNIST, timeout=300)
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stdout + two.stderr
    losses = [[float(line.split("mean loss ")[1].split()[0]) for line in r.stdout.splitlines()] for r in (one, two)]
    assert len(losses[0]) == 2 and losses[0][1] < losses[0][0], one.stdout
    np.testing.assert_allclose(losses[1], losses[0], rtol=1e-4)
    assert two.stdout.count("over 2 processes") == 2, two.stdout


def test_a_killed_process_leaves_the_last_checkpoint_loadable(tmp_path):
    # `symx train` on two processes; once the first epoch's checkpoint is written, rank 1 is
    # killed: the job ends with an error, and the run resumes from that checkpoint.
    run = tmp_path / "run"
    train = ["train", "--model", "mlp", "--data", "mnist", "--data-dir", MNIST, "--epochs", "50"]
    line, env = mpirun_line(2, symx_tool(), *train, "--out", str(run), "--log", "lines")
    job = subprocess.Popen(line, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while not (run / "LATEST").exists() and time.monotonic() < deadline and job.poll() is None:
            time.sleep(0.05)
        assert (run / "LATEST").exists(), "no checkpoint was written"
        ranks = subprocess.run(["pgrep", "-f", str(run)], capture_output=True, text=True).stdout.split()
        children = [p for p in ranks if int(p) != job.pid]
        assert len(children) == 2, ranks
        os.kill(int(max(children, key=int)), 9)
        output, _ = job.communicate(timeout=60)
    finally:
        if job.poll() is None:
            job.kill()
    assert job.returncode != 0, output
    info = sx.train.read_checkpoint(str(run))
    assert info["epoch"] >= 1 and info["step"] == 110 * info["epoch"]
    resumed = subprocess.run(
        [symx_tool(), "train", "--resume", str(run), "--epochs", str(info["epoch"] + 1), "--data-dir", MNIST],
        capture_output=True,
        text=True,
        timeout=300,
        env=python_env(),
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert sx.train.read_checkpoint(str(run))["epoch"] == info["epoch"] + 1
