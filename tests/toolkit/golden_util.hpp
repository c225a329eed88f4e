// What the toolkit's golden-file tests share: the .npz files tests/golden/make_golden.py writes,
// and the comparison of an array with its PyTorch value.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include <symx/symx.hpp>

namespace symx_toolkit_test {

// tests/golden/<file> (e.g. "layers_dense.npz"): ctest sets SYMX_GOLDEN_DIR; run by hand, the files
// are found beside this source.
inline std::map<std::string, symx::Array> golden_npz(const std::string& file) {
  const char* dir = std::getenv("SYMX_GOLDEN_DIR");
  std::string base = dir ? dir : (std::filesystem::path(__FILE__).parent_path().parent_path() / "golden").string();
  return symx::load_npz(base + "/" + file);
}

// Within rtol times the expected array's largest magnitude (plus an absolute floor for analytic zeros).
inline void expect_close(const symx::Array& actual, const symx::Array& expected, const std::string& what,
                         double rtol = 1e-10, double floor = 0) {
  ASSERT_EQ(actual.shape(), expected.shape()) << what;
  auto a = actual.to_vector(), e = expected.to_vector();
  double scale = 0;
  for (double v : e) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_LE(std::abs(a[i] - e[i]), std::max(rtol * scale, floor))
        << what << " at " << i << ": " << a[i] << " vs " << e[i];
}

// A scoped variable name's last part ("dense/w" -> "w").
inline std::string last_part(const std::string& name) { return name.substr(name.rfind('/') + 1); }

}  // namespace symx_toolkit_test
