#!/usr/bin/env bash
# Installs what symx needs to build and test, if it is missing: Debian packages (compiler,
# oneDNN, OpenBLAS/LAPACKE, FFTW 3, GoogleTest, nlohmann-json, zlib; for the data and training tool CLI11,
# libcurl, libcrypto, libarchive and Cairo; Open MPI for distributed training; ccache, which lets the package
# test reuse the main build's objects; clang-format for the format check) and Python packages (NumPy,
# SciPy (an oracle of the tests), nanobind, scikit-build-core, pytest, and ruff at a pinned version,
# since its formatting and rules change between releases). Safe to run repeatedly; does nothing when
# all is there.
set -euo pipefail

PY=${PYTHON:-python3}
apt_packages=(g++ cmake ninja-build ccache pkg-config libdnnl-dev libopenblas-dev liblapacke-dev libfftw3-dev libgtest-dev nlohmann-json3-dev zlib1g-dev
              libcli11-dev libcurl4-openssl-dev libssl-dev libarchive-dev libcairo2-dev clang-format
              libopenmpi-dev openmpi-bin)
missing=()
for p in "${apt_packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# cmake and ninja also come from pip on some machines; only the libraries are mandatory via apt.
if ((${#missing[@]})); then
  echo "install_deps: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

py_missing=()
# mypy and jedi check the type stubs in the tests (a type checker and an editor's completion).
for mod in numpy:numpy scipy:scipy nanobind:nanobind scikit_build_core:scikit-build-core pytest:pytest mypy:mypy jedi:jedi; do
  "$PY" -c "import ${mod%%:*}" >/dev/null 2>&1 || py_missing+=("${mod##*:}")
done
# The version tools/check_format.sh expects (pyproject.toml's [tool.ruff] is written for it).
RUFF_VERSION=0.17.6
[ "$("$PY" -m ruff --version 2>/dev/null)" = "ruff $RUFF_VERSION" ] || py_missing+=("ruff==$RUFF_VERSION")
if ((${#py_missing[@]})); then
  echo "install_deps: installing Python packages: ${py_missing[*]}"
  "$PY" -m pip install -q "${py_missing[@]}"
fi
