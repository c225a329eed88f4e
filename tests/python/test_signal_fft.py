"""symx.signal's FFT-based transforms (stft, istft, spectrogram, hilbert) against scipy.signal, the
round trip istft(stft(x)) = x, gradients by float64 central differences, and the errors."""

import numpy as np
import pytest
import scipy.signal as ss

import symx as sx
from helpers import numeric_grad

RNG = np.random.default_rng(7)
TOL = {np.float32: 2e-6, np.float64: 1e-12}

STFT_CASES = [
    dict(nperseg=64),
    dict(nperseg=50, noverlap=20, nfft=64),
    dict(nperseg=64, return_onesided=False),
    dict(nperseg=33, window="hamming", boundary=None, padded=False, scaling="psd"),
    dict(nperseg=16, noverlap=12, window=("tukey", 0.5), fs=100.0),
    dict(nperseg=20, window=("kaiser", 8.0), padded=False),
]


def rel_err(a, b):
    return np.abs(np.asarray(a) - b).max() / max(np.abs(b).max(), 1e-300)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [200, 257])
@pytest.mark.parametrize("kw", STFT_CASES, ids=lambda k: ",".join(f"{a}={b}" for a, b in k.items()))
def test_stft_matches_scipy(kw, n, dtype):
    x = RNG.standard_normal(n).astype(dtype)
    f, t, Z = sx.signal.stft(x, **kw)
    f2, t2, Z2 = ss.stft(x, **kw)
    assert Z.shape == Z2.shape and np.dtype(Z.dtype) == Z2.dtype
    assert rel_err(Z.eval(), Z2) < TOL[dtype]
    np.testing.assert_allclose(f.eval(), f2, rtol=1e-14)
    np.testing.assert_allclose(t.eval(), t2, rtol=1e-14)


@pytest.mark.parametrize("axis", [0, 1, -2])
def test_stft_axis(axis):
    x = RNG.standard_normal((40, 50, 2))
    _, _, Z = sx.signal.stft(x, nperseg=16, axis=axis)
    _, _, Z2 = ss.stft(x, nperseg=16, axis=axis)
    assert Z.shape == Z2.shape
    assert rel_err(Z.eval(), Z2) < 1e-12


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "kw",
    [
        dict(nperseg=64),
        dict(nperseg=50, noverlap=20, nfft=64),
        dict(nperseg=30, noverlap=20, window="hamming", scaling="psd"),
        dict(nperseg=32, noverlap=8, window="boxcar"),
        dict(nperseg=64, return_onesided=False, input_onesided=False),
    ],
)
def test_istft_matches_scipy_and_inverts(kw, dtype):
    x = RNG.standard_normal(300).astype(dtype)
    skw = {k: v for k, v in kw.items() if k != "input_onesided"}
    ikw = {k: v for k, v in kw.items() if k != "return_onesided"}
    _, _, Z2 = ss.stft(x, **skw)
    t, y = sx.signal.istft(Z2.astype(np.complex64 if dtype == np.float32 else np.complex128), **ikw)
    t2, y2 = ss.istft(Z2, **ikw)
    assert y.shape == y2.shape
    assert rel_err(y.eval(), y2) < TOL[dtype] * 10
    np.testing.assert_allclose(t.eval(), t2)
    # the round trip through symx's own stft
    _, _, Z = sx.signal.stft(x, **skw)
    _, yy = sx.signal.istft(Z, **ikw)
    np.testing.assert_allclose(np.real(yy.eval())[: len(x)], x, atol=TOL[dtype] * 100)


def test_istft_axes():
    x = RNG.standard_normal((2, 200))
    _, _, Z2 = ss.stft(x, nperseg=40, axis=-1)  # (2, 21, T)
    Zt = np.moveaxis(Z2, 0, -1)  # (21, T, 2)
    _, y = sx.signal.istft(Zt, nperseg=40, freq_axis=0, time_axis=1)
    _, y2 = ss.istft(Zt, nperseg=40, freq_axis=0, time_axis=1)
    assert y.shape == y2.shape
    assert rel_err(y.eval(), y2) < 1e-12


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "kw",
    [
        dict(),
        dict(nperseg=64),
        dict(nperseg=64, mode="magnitude"),
        dict(nperseg=64, mode="complex", scaling="spectrum"),
        dict(nperseg=31, noverlap=10, nfft=40, scaling="spectrum", detrend=False),
        dict(nperseg=64, return_onesided=False, window="hann"),
    ],
)
def test_spectrogram_matches_scipy(kw, dtype):
    x = RNG.standard_normal(700).astype(dtype)
    f, t, S = sx.signal.spectrogram(x, **kw)
    f2, t2, S2 = ss.spectrogram(x, **kw)
    assert S.shape == S2.shape and np.dtype(S.dtype) == S2.dtype
    assert rel_err(S.eval(), S2) < TOL[dtype] * 10
    np.testing.assert_allclose(f.eval(), f2)
    np.testing.assert_allclose(t.eval(), t2)


def test_spectrogram_axis():
    x = RNG.standard_normal((300, 3))
    _, _, S = sx.signal.spectrogram(x, nperseg=32, axis=0)
    _, _, S2 = ss.spectrogram(x, nperseg=32, axis=0)
    assert S.shape == S2.shape and rel_err(S.eval(), S2) < 1e-12


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,N,axis", [((64,), None, -1), ((65,), None, -1), ((3, 40), 50, -1), ((31, 2), None, 0)])
def test_hilbert_matches_scipy(shape, N, axis, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    z = sx.signal.hilbert(x, N=N, axis=axis)
    z2 = ss.hilbert(x, N=N, axis=axis)
    assert z.shape == z2.shape and np.dtype(z.dtype) == z2.dtype
    assert rel_err(z.eval(), z2) < TOL[dtype] * 10
    assert rel_err(sx.signal.hilbert_transform(x, N=N, axis=axis).eval(), z2) < TOL[dtype] * 10


def _grad_check(sx_fn, np_fn, x):
    y0 = np_fn(x)
    w = RNG.standard_normal(y0.shape) + (1j * RNG.standard_normal(y0.shape) if np.iscomplexobj(y0) else 0)

    def np_loss(v):
        y = np_fn(v)
        return float(np.sum(np.abs(y) ** 2) + np.sum(np.real(w * y)))

    p = sx.placeholder(x.shape, sx.float64)
    y = sx_fn(p)
    loss = sx.sum(sx.abs(y) ** 2) + sx.sum(sx.real(y * w))
    g = sx.function([p], [sx.grad(loss, p)])(x)[0]
    np.testing.assert_allclose(g, numeric_grad(np_loss, x), rtol=1e-6, atol=1e-6)


def test_gradients():
    x = RNG.standard_normal(40)
    _grad_check(lambda p: sx.signal.stft(p, nperseg=16)[2], lambda v: ss.stft(v, nperseg=16)[2], x)
    _grad_check(
        lambda p: sx.signal.stft(p, nperseg=12, noverlap=7, nfft=16, return_onesided=False)[2],
        lambda v: ss.stft(v, nperseg=12, noverlap=7, nfft=16, return_onesided=False)[2],
        x,
    )
    _grad_check(lambda p: sx.signal.spectrogram(p, nperseg=16)[2], lambda v: ss.spectrogram(v, nperseg=16)[2], x)
    _grad_check(lambda p: sx.signal.hilbert(p, N=45), lambda v: ss.hilbert(v, N=45), x)
    Z = ss.stft(RNG.standard_normal(40), nperseg=16)[2]
    zr = np.concatenate([Z.real.ravel(), Z.imag.ravel()])

    def np_istft(v):
        return ss.istft((v[: Z.size] + 1j * v[Z.size :]).reshape(Z.shape), nperseg=16)[1]

    def sx_istft(p):
        zc = sx.complex(sx.reshape(p[: Z.size], Z.shape), sx.reshape(p[Z.size :], Z.shape))
        return sx.signal.istft(zc, nperseg=16)[1]

    _grad_check(sx_istft, np_istft, zr)


def test_errors():
    x = RNG.standard_normal(100)
    with pytest.raises(ValueError, match="noverlap"):
        sx.signal.stft(x, nperseg=32, noverlap=32)
    with pytest.raises(ValueError, match="nperseg=16 is different from the length of window"):
        sx.signal.stft(x, window=np.ones(20), nperseg=16)
    with pytest.raises(ValueError, match="nfft"):
        sx.signal.stft(x, nperseg=32, nfft=16)
    with pytest.raises(ValueError, match="boundary"):
        sx.signal.stft(x, nperseg=32, boundary="even")
    with pytest.raises(ValueError, match="NOLA"):
        sx.signal.istft(
            ss.stft(x, window="boxcar", nperseg=16, noverlap=0)[2],
            window=np.r_[np.ones(8), np.zeros(8)],
            nperseg=16,
            noverlap=0,
        )
    with pytest.raises(ValueError, match="window must have length"):
        sx.signal.istft(ss.stft(x, nperseg=16)[2], window=np.ones(10), nperseg=16)
    with pytest.raises(ValueError, match="mode"):
        sx.signal.spectrogram(x, mode="phase")
    with pytest.raises(ValueError, match="must be real"):
        sx.signal.hilbert(np.ones(4, np.complex128))
    with pytest.raises(ValueError, match="N must be positive"):
        sx.signal.hilbert(x, N=0)


# ---- wavelets (SymJAX's definitions, written out) ----
@pytest.mark.parametrize("M,s,w", [(64, 1.0, 5.0), (33, 0.5, 3.0), (100, 2.0, 7.5)])
def test_morlet(M, s, w):
    x = np.linspace(-2 * np.pi, 2 * np.pi, M) * s
    want = np.pi**-0.25 * (np.exp(1j * w * x) - np.exp(-0.5 * w**2)) * np.exp(-0.5 * x**2)
    got = sx.signal.morlet(M, s, w, dtype=sx.float64).eval()
    assert rel_err(got, want) < 1e-13
    assert rel_err(sx.signal.morlet(M, s, w).eval(), want) < 1e-6


def test_complex_morlet():
    b = np.array([[1.5], [3.0], [4.0]])
    c = 1 / b
    B = 6 * b.max() + 1
    t = np.linspace(-(B // 2), B // 2, int(B))
    want = np.exp(-((t / b) ** 2)) * np.exp(1j * c * t)
    assert rel_err(sx.signal.complex_morlet(b, c).eval(), want) < 1e-13
    t2 = np.linspace(-5, 5, 41)
    want2 = np.exp(-((t2 / b) ** 2)) * np.exp(1j * c * t2)
    assert rel_err(sx.signal.complex_morlet(b, c, t2).eval(), want2) < 1e-13


# ---- librosa's melspectrogram and mfcc, written out (librosa is not installed) ----
def ref_hz_to_mel(f, htk):
    f = np.asarray(f, float)
    if htk:
        return 2595 * np.log10(1 + f / 700)
    lin = f * 3 / 200
    return np.where(f >= 1000, 15 + np.log(np.maximum(f, 1e-10) / 1000) * 27 / np.log(6.4), lin)


def ref_mel_to_hz(m, htk):
    m = np.asarray(m, float)
    if htk:
        return 700 * (10 ** (m / 2595) - 1)
    return np.where(m >= 15, 1000 * np.exp(np.log(6.4) / 27 * (m - 15)), m * 200 / 3)


def ref_mel(sr, n_fft, n_mels, fmin, fmax, htk):
    freqs = np.arange(1 + n_fft // 2) * sr / n_fft
    edges = ref_mel_to_hz(np.linspace(ref_hz_to_mel(fmin, htk), ref_hz_to_mel(fmax, htk), n_mels + 2), htk)
    W = np.zeros((n_mels, len(freqs)))
    for i in range(n_mels):
        lo, mid, hi = edges[i], edges[i + 1], edges[i + 2]
        tri = np.minimum((freqs - lo) / (mid - lo), (hi - freqs) / (hi - mid))
        W[i] = np.clip(tri, 0, None) * 2 / (hi - lo)
    return W


def ref_melspec(y, sr, n_fft, hop, n_mels, fmin, fmax, htk, power=2.0):
    yp = np.pad(y, [(0, 0)] * (y.ndim - 1) + [(n_fft // 2, n_fft // 2)])
    win = ss.get_window("hann", n_fft)
    n = 1 + (yp.shape[-1] - n_fft) // hop
    frames = np.stack([yp[..., k * hop : k * hop + n_fft] * win for k in range(n)], axis=-1)  # (..., n_fft, T)
    S = np.abs(np.fft.rfft(frames, axis=-2)) ** power
    return ref_mel(sr, n_fft, n_mels, fmin, fmax or sr / 2, htk) @ S


def ref_power_to_db(S, top_db=80.0):
    d = 10 * np.log10(np.maximum(1e-10, S))
    return np.maximum(d, d.max() - top_db)


MEL_CASES = [
    dict(sr=16000, n_fft=512, hop_length=128, n_mels=40),
    dict(sr=22050, n_fft=256, hop_length=100, n_mels=20, fmin=100.0, fmax=6000.0, htk=True),
    dict(sr=8000, n_fft=200, hop_length=50, n_mels=32, power=1.0),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", MEL_CASES, ids=["slaney", "htk", "power1"])
def test_melspectrogram(kw, dtype):
    y = RNG.standard_normal((2, 3000)).astype(dtype)
    k = dict(kw)
    want = ref_melspec(
        y.astype(np.float64),
        k["sr"],
        k["n_fft"],
        k["hop_length"],
        k["n_mels"],
        k.get("fmin", 0.0),
        k.get("fmax"),
        k.get("htk", False),
        k.get("power", 2.0),
    )
    got = sx.signal.melspectrogram(y, **kw)
    assert got.shape == want.shape and np.dtype(got.dtype) == dtype
    assert rel_err(got.eval(), want) < (1e-5 if dtype == np.float32 else 1e-12)
    fb = sx.signal.mel_filters(k["sr"], k["n_fft"], k["n_mels"], k.get("fmin", 0.0), k.get("fmax"), k.get("htk", False))
    want_fb = ref_mel(
        k["sr"], k["n_fft"], k["n_mels"], k.get("fmin", 0.0), k.get("fmax") or k["sr"] / 2, k.get("htk", False)
    )
    assert rel_err(fb.eval(), want_fb) < 1e-6


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("lifter", [0, 22])
def test_mfcc(dtype, lifter):
    import scipy.fft

    y = RNG.standard_normal(4000).astype(dtype)
    kw = dict(sr=16000, n_fft=512, hop_length=128, n_mels=40)
    want = scipy.fft.dct(
        ref_power_to_db(ref_melspec(y.astype(np.float64), 16000, 512, 128, 40, 0.0, None, False)),
        type=2,
        axis=-2,
        norm="ortho",
    )[:13]
    if lifter:
        want *= (1 + lifter / 2 * np.sin(np.pi * np.arange(1, 14) / lifter))[:, None]
    got = sx.signal.mfcc(y, n_mfcc=13, lifter=lifter, **kw)
    assert got.shape == want.shape
    assert rel_err(got.eval(), want) < (1e-5 if dtype == np.float32 else 1e-12)


def test_mel_gradients():
    x = RNG.standard_normal(300)
    kw = dict(sr=8000, n_fft=64, hop_length=32, n_mels=8)
    _grad_check(
        lambda p: sx.signal.melspectrogram(p, **kw),
        lambda v: ref_melspec(v, 8000, 64, 32, 8, 0.0, None, False),
        x[:120],
    )
    _grad_check(
        lambda p: sx.signal.mfcc(p, n_mfcc=5, **kw),
        lambda v: scipy_dct_db(ref_melspec(v, 8000, 64, 32, 8, 0.0, None, False))[:5],
        x[:120],
    )
    _grad_check(
        lambda p: sx.signal.morlet(16, p[0], p[1], dtype=sx.float64),
        lambda v: morlet_np(16, v[0], v[1]),
        np.array([0.8, 4.0]),
    )


def scipy_dct_db(S):
    import scipy.fft

    return scipy.fft.dct(ref_power_to_db(S), type=2, axis=-2, norm="ortho")


def morlet_np(M, s, w):
    x = np.linspace(-2 * np.pi, 2 * np.pi, M) * s
    return np.pi**-0.25 * (np.exp(1j * w * x) - np.exp(-0.5 * w**2)) * np.exp(-0.5 * x**2)


def test_mel_errors():
    y = RNG.standard_normal(1000)
    with pytest.raises(ValueError, match="win_length"):
        sx.signal.melspectrogram(y, n_fft=256, win_length=300)
    with pytest.raises(ValueError, match="pad_mode"):
        sx.signal.melspectrogram(y, n_fft=256, pad_mode="reflect")
    with pytest.raises(ValueError, match="n_mfcc"):
        sx.signal.mfcc(y, n_mfcc=50, n_fft=256, n_mels=40)


def ref_phase_vocoder(D, rate, hop_length=None):
    """librosa.phase_vocoder, written out (its loop)."""
    n_fft = 2 * (D.shape[-2] - 1)
    hop_length = hop_length or n_fft // 4
    steps = np.arange(0, D.shape[-1], rate, dtype=np.float64)
    out = np.zeros(D.shape[:-1] + (len(steps),), D.dtype)
    phi = hop_length * np.linspace(0, np.pi, D.shape[-2])
    acc = np.angle(D[..., 0])
    Dp = np.pad(D, [(0, 0)] * (D.ndim - 1) + [(0, 2)])
    for t, step in enumerate(steps):
        cols = Dp[..., int(step) : int(step + 2)]
        a = np.mod(step, 1.0)
        mag = (1 - a) * np.abs(cols[..., 0]) + a * np.abs(cols[..., 1])
        out[..., t] = mag * np.exp(1j * acc)
        dp = np.angle(cols[..., 1]) - np.angle(cols[..., 0]) - phi
        dp = dp - 2 * np.pi * np.round(dp / (2 * np.pi))
        acc = acc + phi + dp
    return out


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("rate,hop", [(2.0, None), (0.7, 16), (1.3, None)])
def test_phase_vocoder(rate, hop, dtype):
    D = (RNG.standard_normal((2, 33, 20)) + 1j * RNG.standard_normal((2, 33, 20))).astype(dtype)
    want = ref_phase_vocoder(D.astype(np.complex128), rate, hop)
    got = sx.signal.phase_vocoder(D, rate, hop_length=hop)
    assert got.shape == want.shape and np.dtype(got.dtype) == dtype
    assert rel_err(got.eval(), want) < (1e-4 if dtype == np.complex64 else 1e-12)
    with pytest.raises(ValueError, match="rate"):
        sx.signal.phase_vocoder(D, 0.0)


def test_phase_vocoder_gradient():
    D = RNG.standard_normal((2, 9, 6)) + 0.5

    def np_fn(v):
        return ref_phase_vocoder(v[0] + 1j * v[1], 1.5)

    _grad_check(lambda p: sx.signal.phase_vocoder(sx.complex(p[0], p[1]), 1.5), np_fn, D)


def ref_wvd(x, window, hop, L):
    """SymJAX's wvd (mode 'valid'), written out in NumPy from its stft, extract_image_patches and mask."""
    P = (x.shape[-1] - window) // hop + 1
    frames = np.stack([x[..., p * hop : p * hop + window] * np.hanning(window) for p in range(P)], axis=-2)
    S = np.fft.fft(frames, n=2 * window)[..., :window]
    S = np.swapaxes(S, -1, -2)  # (..., F, T), SymJAX's stft layout
    K = 2 * L + 1
    Fo = int(np.ceil(window / 2))
    total = max((Fo - 1) * 2 + K - window, 0)
    Sp = np.pad(S, [(0, 0)] * (S.ndim - 2) + [(total // 2, total - total // 2), (0, 0)])
    patches = np.stack([Sp[..., 2 * f : 2 * f + K, :] for f in range(Fo)], axis=-3)  # (..., Fo, K, T)
    patches = np.moveaxis(patches, -2, -1)  # (..., Fo, T, K)
    freq = np.linspace(-L / window, L / window, K)
    t = np.arange(P)[:, None]
    mask = np.exp(1j * 2 * 3.14159 * t * freq) * np.hanning(K)
    return np.real((patches * np.conj(patches[..., ::-1]) * mask).sum(-1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("window,hop,L", [(64, 16, 3), (33, 10, 2), (16, 4, 0)])
def test_wvd(window, hop, L, dtype):
    x = RNG.standard_normal((2, 1, 300)).astype(dtype)
    want = ref_wvd(x.astype(np.float64), window, hop, L)
    got = sx.signal.wvd(x, window, hop, L)
    assert got.shape == want.shape and np.dtype(got.dtype) == dtype
    assert rel_err(got.eval(), want) < (1e-5 if dtype == np.float32 else 1e-12)


def test_wvd_gradient():
    x = RNG.standard_normal(40)
    _grad_check(lambda p: sx.signal.wvd(p, 16, 8, 2), lambda v: ref_wvd(v, 16, 8, 2), x)


def test_wvd_is_symjax_code():
    """SymJAX's wvd line by line with sx.signal.extract_image_patches (on the real and imaginary parts)."""
    window, hop, L = 32, 8, 3
    x = RNG.standard_normal((2, 1, 200))
    P = (200 - window) // hop + 1
    frames = np.stack([x[..., p * hop : p * hop + window] for p in range(P)], axis=-2) * np.hanning(window)
    s = np.swapaxes(np.fft.fft(np.pad(frames, [(0, 0)] * 3 + [(0, window)]))[..., : int(np.ceil(window))], -1, -2)
    step = 1 / window
    freq = np.linspace(-step * L, step * L, 2 * L + 1)
    time = np.arange(s.shape[-1]).reshape((-1, 1))
    mask = np.exp(1j * 2 * 3.14159 * time * freq) * np.hanning(2 * L + 1)

    def patches_of(a):
        p = sx.signal.extract_image_patches(sx.constant(a), (2 * L + 1, 1), strides=(2, 1), padding="same").eval()
        return np.transpose(p, (0, 3, 1, 2, 4, 5))[..., 0]

    patches = patches_of(s.real) + 1j * patches_of(s.imag)
    want = np.real((patches * np.conj(np.flip(patches, -1)) * mask).sum(-1))
    got = sx.signal.wvd(x, window, hop, L).eval()
    assert got.shape == want.shape
    assert rel_err(got, want) < 1e-12
