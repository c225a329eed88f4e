#!/usr/bin/env python3
"""map_coordinates order 1 of a (32, 256, 256) float32 batch (issue 22's bench case), symx's
compiled function against scipy.ndimage, standalone (not yet a `make bench` case):

    PYTHONPATH=build/python python3 bench/map_coordinates.py

The coordinates are a slightly zoomed and shifted grid per image, some of it outside (mode
'nearest'); SciPy runs two ways: one call with 3-D coordinates (the batch index as the first
coordinate, as symx's call) and one 2-D call per image. Medians of repeated calls."""

import time

import numpy as np
from scipy import ndimage as nd

import symx as sx


def median_time(f, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def main():
    rng = np.random.default_rng(0)
    batch, height, width = 32, 256, 256
    a = rng.normal(size=(batch, height, width)).astype(np.float32)
    shape = (batch, height, width)
    b = np.broadcast_to(np.arange(batch, dtype=np.float32)[:, None, None], shape)
    shift = rng.uniform(-2, 2, (batch, 1, 1)).astype(np.float32)
    r = np.arange(height, dtype=np.float32)[:, None] * 0.93 + 3.3 + shift + np.zeros(shape, np.float32)
    q = np.arange(width, dtype=np.float32)[None, :] * 1.07 - 4.1 + np.zeros(shape, np.float32)
    c = np.ascontiguousarray(np.stack([b, r, q]))
    x = sx.placeholder(a.shape, "float32")
    y = sx.placeholder(c.shape, "float32")
    out = sx.interpolation.map_coordinates(x, y, order=1, mode="nearest")
    gx, gy = sx.grad(out.sum(), [x, y])
    f = sx.function([x, y], [out])
    g = sx.function([x, y], [out, gx, gy])
    got = f(a, c)[0]
    g(a, c)
    want = nd.map_coordinates(a, c, order=1, mode="nearest")
    print(f"max |symx - scipy| = {np.abs(got - want).max():.3g}")
    print(f"symx compiled forward:            {median_time(lambda: f(a, c), 7) * 1e3:8.1f} ms")
    print(f"symx compiled forward + gradient: {median_time(lambda: g(a, c), 5) * 1e3:8.1f} ms")
    whole = median_time(lambda: nd.map_coordinates(a, c, order=1, mode="nearest"), 5)
    print(f"scipy, 3-D coordinates:           {whole * 1e3:8.1f} ms")
    per_image = lambda: [nd.map_coordinates(a[i], c[1:, i], order=1, mode="nearest") for i in range(batch)]  # noqa: E731
    print(f"scipy, 2-D per image:             {median_time(per_image, 5) * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
