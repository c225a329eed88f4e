#!/usr/bin/env bash
# Installs the benchmark peers for `make bench`, if missing: PyTorch (CPU build, pinned to
# 2.13.0 so pip never pulls a multi-GB CUDA build), JAX and jaxlib (CPU), and psutil/numexpr
# (optional helpers). Never a dependency of symx itself; `make test` does not call this.
# Safe to run repeatedly; does nothing when everything imports.
set -euo pipefail

PY=${PYTHON:-python3}
TORCH_VERSION=${SYMX_BENCH_TORCH_VERSION:-2.13.0}

if ! "$PY" -c "import torch" >/dev/null 2>&1; then
  echo "install_bench_deps: installing torch==${TORCH_VERSION} (CPU)"
  # Pinned: a CPU wheel of this exact version lies in the local wheel directory (pip's
  # find-links); an unpinned `torch` could resolve to the multi-GB CUDA build.
  "$PY" -m pip install -q "torch==${TORCH_VERSION}"
fi
if ! "$PY" -c "import jax, jaxlib" >/dev/null 2>&1; then
  echo "install_bench_deps: installing jax and jaxlib (CPU)"
  "$PY" -m pip install -q jax jaxlib
fi
for mod in psutil numexpr; do
  "$PY" -c "import $mod" >/dev/null 2>&1 || "$PY" -m pip install -q "$mod" \
    || echo "install_bench_deps: optional $mod not installed (continuing)"
done
"$PY" -c "import torch, jax; print('install_bench_deps: torch', torch.__version__, '| jax', jax.__version__)"
