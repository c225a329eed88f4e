#!/usr/bin/env bash
# The format check of `make test` (`make check-format`), cheap and run first: ruff's lint and format
# check over the Python (configuration: [tool.ruff] in pyproject.toml), then clang-format over the
# tracked C++ files (configuration: .clang-format). Prints what is wrong and exits non-zero.
#
#   tools/check_format.sh          check
#   tools/check_format.sh --fix    apply ruff's safe fixes, ruff format and clang-format instead
#
# SYMX_SKIP_CLANG_FORMAT=1 skips the C++ half (the Makefile sets it until the C++ sources have been
# formatted once with .clang-format; then that line goes).
# Not formatted: the kernel prelude headers, whose text is embedded in every generated kernel (a
# change of layout there changes the kernels' source and so their cache keys). examples/quickstart.cpp
# is shown verbatim in README.md (tests/python/test_examples.py checks it): format both together.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
fix=0
[ "${1:-}" = "--fix" ] && fix=1
failed=()

cpp_excluded=(src/codegen/kernel_prelude.hpp src/codegen/kernel_support.hpp src/codegen/kernel_rows.hpp)

if ((fix)); then
  "$PY" -m ruff check --fix --quiet . || failed+=("ruff check")
  "$PY" -m ruff format --quiet .
else
  "$PY" -m ruff check --quiet . || failed+=("ruff check (fix: $PY -m ruff check --fix .)")
  "$PY" -m ruff format --check --quiet . || failed+=("ruff format (fix: $PY -m ruff format .)")
fi

if [ "${SYMX_SKIP_CLANG_FORMAT:-0}" = "1" ]; then
  echo "check_format: clang-format skipped (SYMX_SKIP_CLANG_FORMAT=1)"
elif ! command -v clang-format >/dev/null 2>&1; then
  failed+=("clang-format (not installed: run tools/install_deps.sh)")
else
  # The tracked C++ sources (git ls-files; a tree without git: the same folders by name).
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.h')
  else
    mapfile -t files < <(find src include toolkit python tests examples bench -name '*.cpp' -o -name '*.hpp' -o -name '*.h' | sort)
  fi
  cpp=()
  for f in "${files[@]}"; do
    [[ " ${cpp_excluded[*]} " == *" $f "* ]] || cpp+=("$f")
  done
  if ((fix)); then
    clang-format -i "${cpp[@]}"
  else
    unformatted=()
    for f in "${cpp[@]}"; do
      clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
    done
    if ((${#unformatted[@]})); then
      printf '  %s\n' "${unformatted[@]}"
      failed+=("clang-format: ${#unformatted[@]} of ${#cpp[@]} C++ files above are not formatted ($(clang-format --version | head -1); fix: tools/check_format.sh --fix, or clang-format -i FILE)")
    fi
  fi
fi

if ((${#failed[@]})); then
  printf 'check_format: FAILED: %s\n' "${failed[@]}" >&2
  exit 1
fi
echo "check_format: ok"
