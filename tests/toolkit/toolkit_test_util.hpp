// Shared helpers of the toolkit's C++ tests that train or run the `symx` tool: the bundled digits,
// scratch folders, the tool run in-process, and digits written as IDX files.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include <symx/cli.hpp>
#include <symx/data.hpp>

#include "../cpp/test_util.hpp"

namespace symx_toolkit_test {

namespace fs = std::filesystem;

// The repository's data folder (data/mnist holds the bundled digits), or SYMX_TEST_DATA.
inline fs::path data_dir() {
  const char* dir = std::getenv("SYMX_TEST_DATA");
  return dir ? fs::path(dir) : fs::path(__FILE__).parent_path().parent_path().parent_path() / "data";
}

// An empty folder <tmp>/symx_<name>_<pid> (made anew, so a test starts from nothing).
inline fs::path temp_dir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("symx_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// n real MNIST digits from `offset` on (a slice of the bundled 8,000).
inline symx::data::Dataset digits(std::int64_t n, std::int64_t offset = 0) {
  static symx::data::Dataset all = symx::data::load_mnist((data_dir() / "mnist").string());
  symx::data::Dataset d{symx::Array(symx::Shape{n, 1, 28, 28}, symx::DType::u8),
                        symx::Array(symx::Shape{n}, symx::DType::i64)};
  std::memcpy(d.x.raw_data(), all.x.data<std::uint8_t>() + offset * 784, static_cast<std::size_t>(n * 784));
  std::memcpy(d.y.raw_data(), all.y.data<std::int64_t>() + offset, static_cast<std::size_t>(n * 8));
  return d;
}

// Runs the `symx` tool in-process on a fresh default graph; its stderr and stdout go to err and out.
inline int cli(std::vector<std::string> args, std::string* err = nullptr, std::string* out = nullptr) {
  symx::reset_default_graph();
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  int rc = symx::cli::run(args);
  std::string e = ::testing::internal::GetCapturedStderr();
  std::string o = ::testing::internal::GetCapturedStdout();
  if (err) *err = e;
  if (out) *out = o;
  return rc;
}

// n bundled digits from `offset` on as raw IDX files <prefix>-images-idx3-ubyte and
// <prefix>-labels-idx1-ubyte in `dir`; labels[i] replaces the i-th label when given.
inline void write_mnist_idx(const fs::path& dir, std::int64_t n, const std::string& prefix, std::int64_t offset = 0,
                            const std::vector<int>& labels = {}) {
  symx::data::Dataset d = digits(n, offset);
  fs::create_directories(dir);
  auto be = [](std::string& s, std::uint32_t v) {
    for (int shift : {24, 16, 8, 0}) s += static_cast<char>(v >> shift);
  };
  std::string im, lb;
  be(im, 0x803), be(im, static_cast<std::uint32_t>(n)), be(im, 28), be(im, 28);
  im.append(static_cast<const char*>(d.x.raw_data()), static_cast<std::size_t>(n * 784));
  be(lb, 0x801), be(lb, static_cast<std::uint32_t>(n));
  for (std::int64_t i = 0; i < n; ++i)
    lb += static_cast<char>(static_cast<std::size_t>(i) < labels.size() ? labels[static_cast<std::size_t>(i)]
                                                                        : d.y.data<std::int64_t>()[i]);
  symx::testing::write_bytes((dir / (prefix + "-images-idx3-ubyte")).string(), im);
  symx::testing::write_bytes((dir / (prefix + "-labels-idx1-ubyte")).string(), lb);
}

}  // namespace symx_toolkit_test
