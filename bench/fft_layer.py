"""Timings of numpy.fft.rfft and scipy.fft.rfft on the two float32 cases of runtime/fft_plans.cpp's
FftPlansTiming test (the best of REPS runs, milliseconds), for comparison with FFTW's plans:

    python3 bench/fft_layer.py
    build/bin/symx_tests --gtest_also_run_disabled_tests --gtest_filter='FftPlansTiming.*'
"""

import time

import numpy as np
import scipy.fft


def best_ms(f, reps):
    f()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def main():
    rng = np.random.default_rng(1)
    cases = [("rfft (256, 65536) axis -1", (256, 65536), 10), ("stft-like (64, 122, 512) axis -1", (64, 122, 512), 20)]
    for name, shape, reps in cases:
        x = rng.uniform(-1, 1, shape).astype(np.float32)
        ms = best_ms(lambda x=x: np.fft.rfft(x, axis=-1), reps)
        print(f"{name}: numpy.fft.rfft {ms:8.2f} ms (-> {np.fft.rfft(x[:1]).dtype})")
        for workers in (1, 2):
            ms = best_ms(lambda x=x, workers=workers: scipy.fft.rfft(x, axis=-1, workers=workers), reps)
            print(f"{name}: scipy.fft.rfft workers={workers} {ms:8.2f} ms (-> {scipy.fft.rfft(x[:1]).dtype})")


if __name__ == "__main__":
    main()
