"""Conformance rows of symx.signal (symx/signal.hpp), against scipy.signal / scipy.fft and SymJAX's formulas
written out in NumPy (added to test_conformance.py's table: see its _AREAS). Modes, boundaries, layouts,
errors and the gradients at kinks and ties are in tests/python/test_signal.py."""

import numpy as np
import scipy.fft
import scipy.signal

import symx as sx


def f32(a):
    return np.asarray(a, np.float32)


def reim(z):  # a complex tensor as its real and imaginary parts, stacked on a new first axis
    return sx.stack([sx.real(z), sx.imag(z)])


def reim_np(z):
    return np.stack([z.real, z.imag])


def add_rows(c):
    row = c.row
    for name, ref in [
        ("hann", lambda m: scipy.signal.windows.hann(m)),
        ("hamming", lambda m: scipy.signal.windows.hamming(m)),
        ("blackman", lambda m: scipy.signal.windows.blackman(m)),
        ("bartlett", lambda m: scipy.signal.windows.bartlett(m)),
        ("hanning", lambda m: np.hanning(m)),
    ]:
        row(
            f"signal.{name}",
            lambda name=name: getattr(sx.signal, name)(9),
            lambda ref=ref: f32(ref(9)),
            [()],
            dtypes=("float32",),
            grad=False,
            api=(f"signal.{name}",),
        )
    row(
        "signal.kaiser",
        lambda: sx.signal.kaiser(10, 6.5, sym=False, dtype="float64"),
        lambda: scipy.signal.windows.kaiser(10, 6.5, sym=False),
        [()],
        dtypes=("float64",),
        grad=False,
    )
    row(
        "signal.tukey",
        lambda: sx.signal.tukey(11, 0.4),
        lambda: f32(scipy.signal.windows.tukey(11, 0.4)),
        [()],
        dtypes=("float32",),
        grad=False,
    )
    row(
        "signal.get_window",
        lambda: sx.signal.get_window(("kaiser", 4.0), 12, dtype="float64"),
        lambda: scipy.signal.get_window(("kaiser", 4.0), 12),
        [()],
        dtypes=("float64",),
        grad=False,
    )
    for mode in ("full", "same", "valid"):
        row(
            f"signal.convolve[{mode}]",
            lambda a, b, mode=mode: sx.signal.convolve(a, b, mode),
            lambda a, b, mode=mode: scipy.signal.convolve(a, b, mode, method="direct"),
            [((9,), (4,)), ((5, 6), (3, 2))],
            api=("signal.convolve",),
        )
        row(
            f"signal.correlate[{mode}]",
            lambda a, b, mode=mode: sx.signal.correlate(a, b, mode),
            lambda a, b, mode=mode: scipy.signal.correlate(a, b, mode, method="direct"),
            [((9,), (4,)), ((4, 5, 3), (2, 2, 3))],
            api=("signal.correlate",),
        )
    row(
        "signal.convolve2d",
        lambda a, b: sx.signal.convolve2d(a, b, "same", "symm"),
        lambda a, b: scipy.signal.convolve2d(a, b, "same", "symm"),
        [((6, 7), (3, 3))],
    )
    row(
        "signal.correlate2d",
        lambda a, b: sx.signal.correlate2d(a, b, "full", "wrap"),
        lambda a, b: scipy.signal.correlate2d(a, b, "full", "wrap"),
        [((5, 6), (2, 3))],
    )

    def conv_ref(x, w, stride=1):
        # (N, C, W) x (O, C, K) cross-correlation, valid, as jax.lax.conv_general_dilated
        n, cin, width = x.shape
        o, _, k = w.shape
        out = (width - k) // stride + 1
        y = np.zeros((n, o, out), np.result_type(x, w))
        for i in range(out):
            y[:, :, i] = np.einsum("nck,ock->no", x[:, :, i * stride : i * stride + k], w)
        return y

    row(
        "signal.batch_convolve",
        lambda x, w: sx.signal.batch_convolve(x, w, strides=2),
        lambda x, w: conv_ref(x, w, 2),
        [((2, 3, 11), (4, 3, 3))],
    )

    def conv_transpose_ref(x, w, stride):
        # jax.lax.conv_transpose (VALID, NCW/OIW, transpose_kernel=False): the zero-dilated input convolved
        # with padding (k - 1) + max(k - s, 0) ... as JAX's _conv_transpose_padding
        n, c, width = x.shape
        k = w.shape[2]
        d = np.zeros((n, c, (width - 1) * stride + 1), x.dtype)
        d[:, :, ::stride] = x
        pad_len = k + stride - 2 + max(k - stride, 0)
        lo = k - 1
        d = np.pad(d, ((0, 0), (0, 0), (lo, pad_len - lo)))
        return conv_ref(d, w, 1)

    row(
        "signal.batch_convolve_transpose",
        lambda x, w: sx.signal.batch_convolve_transpose(x, w, strides=2),
        lambda x, w: conv_transpose_ref(x, w, 2),
        [((1, 3, 5), (2, 3, 3))],
    )

    def patches_ref(x, length, hop):
        p = (x.shape[-1] - length) // hop + 1
        return np.stack([x[..., i * hop : i * hop + length] for i in range(p)], -2)

    row(
        "signal.extract_signal_patches",
        lambda x: sx.signal.extract_signal_patches(x, 4, hop=3),
        lambda x: patches_ref(x, 4, 3),
        [((2, 3, 14),), ((10,),)],
    )

    def image_patches_ref(x, k, s):
        n, c, h, w = x.shape
        oh, ow = (h - k[0]) // s[0] + 1, (w - k[1]) // s[1] + 1
        out = np.zeros((n, oh, ow, c, k[0], k[1]), x.dtype)
        for i in range(oh):
            for j in range(ow):
                out[:, i, j] = x[:, :, i * s[0] : i * s[0] + k[0], j * s[1] : j * s[1] + k[1]]
        return out

    row(
        "signal.extract_image_patches",
        lambda x: sx.signal.extract_image_patches(x, (2, 3), strides=(2, 1)),
        lambda x: image_patches_ref(x, (2, 3), (2, 1)),
        [((2, 3, 5, 6),)],
    )

    def pool_ref(x, window, reducer):
        out_shape = tuple(n // w for n, w in zip(x.shape, window))
        y = np.zeros(out_shape, x.dtype)
        for idx in np.ndindex(*out_shape):
            block = x[tuple(slice(i * w, i * w + w) for i, w in zip(idx, window))]
            y[idx] = block.max() if reducer == "MAX" else block.mean() if reducer == "AVG" else block.sum()
        return y

    for reducer in ("MAX", "AVG", "SUM"):
        row(
            f"signal.pool[{reducer}]",
            lambda x, reducer=reducer: sx.signal.pool(x, (1, 2, 3), reducer),
            lambda x, reducer=reducer: pool_ref(x, (1, 2, 3), reducer),
            [((2, 4, 9),)],
            api=("signal.pool",),
        )
    for t in (1, 2, 3, 4):
        for norm in ("backward", "ortho", "forward"):
            row(
                f"signal.dct[{t},{norm}]",
                lambda x, t=t, norm=norm: sx.signal.dct(x, t, axis=0, norm=norm),
                lambda x, t=t, norm=norm: scipy.fft.dct(x, t, axis=0, norm=norm),
                [((6, 3),)],
                api=("signal.dct",),
                grad=norm == "ortho",
            )
    row(
        "signal.idct",
        lambda x: sx.signal.idct(x, 2, n=8),
        lambda x: scipy.fft.idct(x, 2, n=8),
        [((3, 6),)],
    )
    row(
        "signal.hat_1D",
        lambda x: sx.signal.hat_1D(x, -1.0, 0.25, 1.5),
        lambda x: np.interp(x, [-1.0, 0.25, 1.5], [0.0, 1.0, 0.0]).astype(x.dtype),
        [((4, 5),)],
    )
    row(
        "signal.bin_to_freq",
        lambda b: sx.signal.bin_to_freq(b, 8000.0),
        lambda b: b / b.max() * 8000.0,
        [((7,),)],
        kinds="pos",
    )
    row(
        "signal.freq_to_bin",
        lambda f: sx.signal.freq_to_bin(f, 64, 0.0, 4000.0),
        lambda f: (f / (4000.0 / 64)).astype(np.int32),
        [((9,),)],
        kinds="pos",
        grad=False,
    )

    def to_mel(f):  # librosa.hz_to_mel(f, htk=False), written out
        f_sp, min_log_hz = 200.0 / 3, 1000.0
        return np.where(
            f >= min_log_hz,
            min_log_hz / f_sp + np.log(np.maximum(f, 1e-30) / min_log_hz) / (np.log(6.4) / 27),
            f / f_sp,
        )

    def to_hz(m):
        f_sp, min_log_mel = 200.0 / 3, 1000.0 / (200.0 / 3)
        return np.where(m >= min_log_mel, 1000.0 * np.exp(np.log(6.4) / 27 * (m - min_log_mel)), f_sp * m)

    row(
        "signal.freq_to_mel",
        lambda f: sx.signal.freq_to_mel(f * 1000.0),
        lambda f: to_mel(f * 1000.0).astype(f.dtype),
        [((12,),)],
        kinds="pos",
    )
    row(
        "signal.mel_to_freq",
        lambda m: sx.signal.mel_to_freq(m * 15.0),
        lambda m: to_hz(m * 15.0).astype(m.dtype),
        [((12,),)],
        kinds="pos",
    )
    row(
        "signal.power_to_db",
        lambda s: sx.signal.power_to_db(s * 1e4, ref=2.0, top_db=30.0),
        lambda s: (lambda d: np.maximum(d, d.max() - 30.0))(10 * np.log10(np.maximum(s * 1e4, 1e-10) / 2.0)),
        [((3, 8),)],
        kinds="pos",
    )
    row(
        "signal.sinc_bandpass",
        lambda t: sx.signal.sinc_bandpass(t, 0.2, 0.35),
        lambda t: 0.2 * np.sinc(0.2 * t) - 0.35 * np.sinc(0.35 * t),
        [((17,),)],
    )

    def mel_bank_ref(length, n_filter, low, high, nyquist):
        mels = np.linspace(to_mel(np.float64(low)), to_mel(np.float64(high)), n_filter + 2)
        peaks = (to_hz(mels) / (nyquist / length)).astype(np.int32).astype(np.float64)
        freqs = np.arange(length, dtype=np.float64)
        bank = np.zeros((n_filter, length))
        for j in range(n_filter):
            bank[j] = np.interp(freqs, peaks[j : j + 3], [0.0, 1.0, 0.0])
        return bank.astype(np.float32)

    row(
        "signal.mel_filterbank",
        lambda: sx.signal.mel_filterbank(129, 10, 0.0, 8000.0, 8000.0),
        lambda: mel_bank_ref(129, 10, 0.0, 8000.0, 8000.0),
        [()],
        dtypes=("float32",),
        grad=False,
    )

    def morlet_ref(b, c, n):
        w = np.linspace(0, 2 * np.pi, n).astype(b.dtype)
        return np.exp(-0.25 * (w - c) ** 2 * b**2) * (w <= np.pi)

    row(
        "signal.fourier_complex_morlet",
        lambda b, c: sx.signal.fourier_complex_morlet(b, c, 16),
        lambda b, c: morlet_ref(b, c, 16),
        [((4, 1), (4, 1))],
        kinds="pos",
    )

    def lp_ref(bank):
        lp = np.abs(bank).sum(0)
        w = np.linspace(0, 2 * np.pi, bank.shape[-1]).astype(bank.dtype)
        return bank / np.where((w >= 0) & (w <= np.pi), lp, 1)

    row(
        "signal.littewood_paley_normalization",
        lambda b: sx.signal.littewood_paley_normalization(b),
        lp_ref,
        [((3, 10),)],
        kinds="away",
    )
    # the FFT-based transforms (python/symx/_signal_fft.py)
    row(
        "signal.stft",
        lambda x: reim(sx.signal.stft(x, nperseg=16, noverlap=10)[2]),
        lambda x: reim_np(scipy.signal.stft(x, nperseg=16, noverlap=10)[2]),
        [((2, 50),)],
    )
    row(
        "signal.istft",
        lambda x: sx.signal.istft(sx.signal.stft(x, nperseg=16)[2], nperseg=16)[1],
        lambda x: scipy.signal.istft(scipy.signal.stft(x, nperseg=16)[2], nperseg=16)[1].astype(x.dtype),
        [((2, 48),)],
    )
    row(
        "signal.spectrogram",
        lambda x: sx.signal.spectrogram(x, nperseg=16, axis=0)[2],
        lambda x: scipy.signal.spectrogram(x, nperseg=16, axis=0)[2],
        [((60, 2),)],
    )
    row(
        "signal.hilbert",
        lambda x: reim(sx.signal.hilbert(x)),
        lambda x: reim_np(scipy.signal.hilbert(x)),
        [((3, 17),)],
        api=("signal.hilbert", "signal.hilbert_transform"),
    )
    from test_signal_fft import morlet_np, ref_mel, ref_melspec, ref_phase_vocoder, ref_power_to_db, ref_wvd

    row(
        "signal.morlet",
        lambda: reim(sx.signal.morlet(16, 0.8, 4.0)),
        lambda: f32(reim_np(morlet_np(16, 0.8, 4.0))),
        [()],
        dtypes=("float32",),
        grad=False,
    )
    t21 = np.linspace(-5, 5, 21)
    row(
        "signal.complex_morlet",
        lambda b, c: reim(sx.signal.complex_morlet(b, c, t21)),
        lambda b, c: reim_np(np.exp(-((t21 / b) ** 2)) * np.exp(1j * c * t21)).astype(b.dtype),
        [((4, 1), (4, 1))],
        kinds="pos",
    )
    row(
        "signal.mel_filters",
        lambda: sx.signal.mel_filters(8000, 64, 8),
        lambda: f32(ref_mel(8000, 64, 8, 0.0, 4000.0, False)),
        [()],
        dtypes=("float32",),
        grad=False,
    )
    mel_kw = dict(sr=8000, n_fft=64, hop_length=32, n_mels=8)
    row(
        "signal.melspectrogram",
        lambda y: sx.signal.melspectrogram(y, **mel_kw),
        lambda y: ref_melspec(y.astype(np.float64), 8000, 64, 32, 8, 0.0, None, False).astype(y.dtype),
        [((2, 100),)],
    )
    row(
        "signal.mfcc",
        lambda y: sx.signal.mfcc(y, n_mfcc=5, **mel_kw),
        lambda y: scipy.fft.dct(
            ref_power_to_db(ref_melspec(y.astype(np.float64), 8000, 64, 32, 8, 0.0, None, False)),
            type=2,
            axis=-2,
            norm="ortho",
        )[:5].astype(y.dtype),
        [((100,),)],
    )
    row(
        "signal.phase_vocoder",
        lambda a, b: reim(sx.signal.phase_vocoder(sx.complex(a, b), 1.5)),
        lambda a, b: reim_np(ref_phase_vocoder(a.astype(np.float64) + 1j * b, 1.5)).astype(a.dtype),
        [((9, 6), (9, 6))],
        kinds="away",
    )
    row(
        "signal.wvd",
        lambda x: sx.signal.wvd(x, 16, 8, 2),
        lambda x: ref_wvd(x.astype(np.float64), 16, 8, 2).astype(x.dtype),
        [((2, 60),)],
    )
