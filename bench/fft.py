#!/usr/bin/env python3
"""symx.fft against numpy.fft, scipy.fft and PyTorch (and JAX when installed), side by side in one run
(issue 22's rfft case; standalone, not yet a `make bench` case):

    PYTHONPATH=build/python python3 bench/fft.py

Cases: rfft along the last axis of a (256, 65536) float32 array, and a batch of 7808 rfft frames of
512 samples (64 one-second 16 kHz signals framed with hop 128, the stft case's transforms); each
forward, and forward plus the gradient of sum(|rfft(x)|^2) where the framework differentiates.
Medians of repeated calls after warm-up."""

import time

import numpy as np
import scipy.fft

import symx as sx


def median_ms(f, repeats=9):
    f()
    f()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return 1e3 * float(np.median(times))


def main():
    rng = np.random.default_rng(0)
    cases = {
        "rfft (256, 65536)": rng.standard_normal((256, 65536)).astype(np.float32),
        "rfft frames (7808, 512)": rng.standard_normal((7808, 512)).astype(np.float32),
    }
    try:
        import torch

        torch.set_num_threads(2)
    except ImportError:
        torch = None
    try:
        import jax
    except ImportError:
        jax = None
    print(f"{'case':28s} {'framework':22s} {'forward ms':>11s} {'fwd+grad ms':>12s}")
    for name, x in cases.items():
        run_case(name, x, torch, jax)


def run_case(name, x, torch, jax):
    p = sx.placeholder(x.shape, sx.float32)
    y = sx.fft.rfft(p)
    f = sx.function([p], [y])
    g = sx.function([p], [sx.grad(sx.sum(sx.abs(y) ** 2), p)])
    rows = [("symx", median_ms(lambda: f(x)), median_ms(lambda: g(x)))]
    rows.append(("numpy.fft", median_ms(lambda: np.fft.rfft(x)), None))
    rows.append(("scipy.fft workers=2", median_ms(lambda: scipy.fft.rfft(x, workers=2)), None))
    if torch is not None:
        xt = torch.from_numpy(x)

        def torch_grad():
            v = xt.clone().requires_grad_(True)
            (torch.fft.rfft(v).abs() ** 2).sum().backward()
            return v.grad

        rows.append(("torch eager", median_ms(lambda: torch.fft.rfft(xt)), median_ms(torch_grad)))
    if jax is not None:
        import jax.numpy as jnp

        xj = jnp.asarray(x)
        jf = jax.jit(jnp.fft.rfft)
        jg = jax.jit(jax.grad(lambda v: jnp.sum(jnp.abs(jnp.fft.rfft(v)) ** 2)))
        rows.append(
            (
                "jax jit",
                median_ms(lambda: jf(xj).block_until_ready()),
                median_ms(lambda: jg(xj).block_until_ready()),
            )
        )
    best = min(r[1] for r in rows[1:])
    for fw, fwd, both in rows:
        both_text = f"{both:12.1f}" if both is not None else f"{'-':>12s}"
        print(f"{name:28s} {fw:22s} {fwd:11.1f} {both_text}")
    print(f"{'':28s} symx / best peer forward: {rows[0][1] / best:.2f}x")


if __name__ == "__main__":
    main()
