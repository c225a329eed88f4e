# Usage: PYTHONPATH=build/python python3 tools/signal_fft_accuracy.py
# Max relative error (max|a-b| / max|b|) of symx.signal's FFT transforms against scipy.signal / written-out refs.
import sys

sys.path.insert(
    0,
    __import__("os").path.join(
        __import__("os").path.dirname(__import__("os").path.abspath(__file__)), "..", "tests", "python"
    ),
)
import numpy as np
import scipy.fft
import scipy.signal as ss
import test_signal_fft as T

import symx as sx

rng = np.random.default_rng(1)


def re(a, b):
    return np.abs(np.asarray(a) - b).max() / np.abs(b).max()


res = {}
for dt in (np.float32, np.float64):
    e = {
        k: 0.0 for k in ("stft", "istft", "spectrogram", "hilbert", "melspectrogram", "mfcc", "phase_vocoder", "morlet")
    }
    for n in (200, 257, 1000, 4096):
        x = rng.standard_normal(n).astype(dt)
        for kw in T.STFT_CASES:
            e["stft"] = max(e["stft"], re(sx.signal.stft(x, **kw)[2].eval(), ss.stft(x.astype(np.float64), **kw)[2]))
        for kw in (
            dict(nperseg=64),
            dict(nperseg=50, noverlap=20, nfft=64),
            dict(nperseg=30, noverlap=20, window="hamming"),
        ):
            Z = ss.stft(x.astype(np.float64), **kw)[2]
            zc = Z.astype(np.complex64 if dt == np.float32 else np.complex128)
            e["istft"] = max(e["istft"], re(sx.signal.istft(zc, **kw)[1].eval(), ss.istft(Z, **kw)[1]))
        for kw in (
            dict(),
            dict(nperseg=64, mode="magnitude"),
            dict(nperseg=31, noverlap=10, nfft=40, scaling="spectrum"),
        ):
            e["spectrogram"] = max(
                e["spectrogram"],
                re(sx.signal.spectrogram(x, **kw)[2].eval(), ss.spectrogram(x.astype(np.float64), **kw)[2]),
            )
        e["hilbert"] = max(e["hilbert"], re(sx.signal.hilbert(x).eval(), ss.hilbert(x.astype(np.float64))))
    y = rng.standard_normal(8000).astype(dt)
    want = T.ref_melspec(y.astype(np.float64), 16000, 512, 128, 40, 0.0, None, False)
    e["melspectrogram"] = re(sx.signal.melspectrogram(y, sr=16000, n_fft=512, hop_length=128, n_mels=40).eval(), want)
    wm = scipy.fft.dct(T.ref_power_to_db(want), type=2, axis=-2, norm="ortho")[:13]
    e["mfcc"] = re(sx.signal.mfcc(y, sr=16000, n_mfcc=13, n_fft=512, hop_length=128, n_mels=40).eval(), wm)
    D = ss.stft(y.astype(np.float64), nperseg=256)[2]
    cd = np.complex64 if dt == np.float32 else np.complex128
    e["phase_vocoder"] = re(sx.signal.phase_vocoder(D.astype(cd), 1.5).eval(), T.ref_phase_vocoder(D, 1.5))
    e["morlet"] = re(sx.signal.morlet(256, 1.0, 5.0, dtype=dt).eval(), T.morlet_np(256, 1.0, 5.0))
    xw = rng.standard_normal((2, 1, 1000)).astype(dt)
    e["wvd"] = re(sx.signal.wvd(xw, 64, 16, 3).eval(), T.ref_wvd(xw.astype(np.float64), 64, 16, 3))
    res[dt.__name__] = e
for k in res["float32"]:
    print(f"{k:15s} float32 {res['float32'][k]:.2e}  float64 {res['float64'][k]:.2e}")
