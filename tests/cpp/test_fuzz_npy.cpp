// Fuzz test of the .npy loader: valid files written by symx, mutated with a seeded RNG (byte
// flips, truncation, extension, and edits of the header text), must each either load as a
// consistent array or fail with symx::IOError. Any other exception fails the test; a crash or a
// memory error fails it under the sanitizer build. SYMX_FUZZ_FILES sets the number of files
// (default 500); SYMX_FUZZ_SEED the seed.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace symx {
namespace {

namespace fs = std::filesystem;

using testing::read_bytes;
using testing::write_bytes;

// The seeds: one file per dtype, plus 0-d, empty and 3-d shapes.
std::vector<std::string> seed_files(const fs::path& dir) {
  std::vector<Array> arrays = {testing::random_array({3, 4}, -1, 1, 1, DType::f32),
                               testing::random_array({5}, -1, 1, 2, DType::f64),
                               Array::from_vector<std::int32_t>({-1, 0, 7, 2147483647}, {2, 2}),
                               Array::from_vector<std::int64_t>({1, -2, 3}, {3, 1}),
                               Array::from_vector<std::uint8_t>({0, 255}, {2}),
                               Array::from_vector<bool>({true, false, true, true}, {4}),
                               Array::scalar<double>(2.5),
                               Array::zeros({0, 3}, DType::f32),
                               testing::random_array({2, 3, 2}, 0, 9, 3, DType::f64)};
  std::vector<std::string> out;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    std::string p = (dir / ("seed" + std::to_string(i) + ".npy")).string();
    arrays[i].save_npy(p);
    out.push_back(read_bytes(p));
  }
  return out;
}

// Where the header text lies in a version 1.0 file written by symx.
std::size_t header_end(const std::string& bytes) {
  if (bytes.size() < 10) return bytes.size();
  const std::size_t length =
      static_cast<unsigned char>(bytes[8]) | static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8;
  return std::min(bytes.size(), 10 + length);
}

// One mutation of `bytes`; most of them edit the header text so that the parser is exercised.
std::string mutate(std::string bytes, std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
  static const std::vector<std::string> inserts = {"99999999999999999999",
                                                   "2147483648",
                                                   "4611686018427387904",
                                                   "-1",
                                                   "0",
                                                   ",",
                                                   "(",
                                                   ")",
                                                   "[",
                                                   "]",
                                                   "'",
                                                   "\"",
                                                   "{",
                                                   "}",
                                                   ":",
                                                   " ",
                                                   "True",
                                                   "'shape': (1,), ",
                                                   "3.0",
                                                   "0x10",
                                                   "\n",
                                                   std::string(1, '\0')};
  const std::size_t hend = std::max<std::size_t>(header_end(bytes), 11);
  const std::size_t in_header = 10 + pick(hend - 10);
  switch (rng() % 8) {
    case 0: bytes[pick(bytes.size())] = static_cast<char>(rng()); break;          // any byte
    case 1: bytes.resize(pick(bytes.size() + 1)); break;                          // truncation
    case 2: bytes += std::string(1 + pick(64), static_cast<char>(rng())); break;  // extension
    case 3:  // a digit of the header changed to another digit
      for (std::size_t i = 0; i < 40; ++i) {
        std::size_t at = 10 + pick(hend - 10);
        if (at < bytes.size() && bytes[at] >= '0' && bytes[at] <= '9') {
          bytes[at] = static_cast<char>('0' + pick(10));
          break;
        }
      }
      break;
    case 4:
      if (in_header < bytes.size()) bytes.erase(in_header, 1 + pick(3));
      break;  // deleted characters
    case 5:
      if (in_header <= bytes.size()) bytes.insert(in_header, inserts[pick(inserts.size())]);
      break;
    case 6:
      if (bytes.size() > 9) bytes[8 + pick(2)] = static_cast<char>(rng());
      break;  // header length
    default:
      if (bytes.size() > 7) bytes[6 + pick(2)] = static_cast<char>(pick(5));
      break;  // version
  }
  return bytes;
}

// A loaded array must be internally consistent and fully readable.
void expect_consistent(const Array& a, std::size_t file_size) {
  ASSERT_LE(a.ndim(), 64);
  std::int64_t n = 1;
  for (auto d : a.shape()) {
    ASSERT_GE(d, 0);
    n *= d;
  }
  ASSERT_EQ(a.size(), n);
  ASSERT_LE(a.nbytes(), file_size);
  double sum = 0;
  for (std::int64_t i = 0; i < a.size(); ++i) sum += a.get_flat(i) == a.get_flat(i) ? 1 : 0;
  EXPECT_LE(sum, static_cast<double>(n));
}

TEST(FuzzNpy, MutatedFilesLoadOrRaiseIOError) {
  std::random_device rd;
  fs::path dir = fs::temp_directory_path() / ("symx_fuzz_npy_" + std::to_string(rd()) + std::to_string(rd()));
  fs::create_directories(dir);
  const auto seeds = seed_files(dir);
  const std::int64_t count = symx::testing::env_int("SYMX_FUZZ_FILES", 500);
  const auto seed = static_cast<std::uint64_t>(symx::testing::env_int("SYMX_FUZZ_SEED", 7));
  std::mt19937_64 rng(seed);
  const std::string file = (dir / "mutated.npy").string();
  std::int64_t loaded = 0, rejected = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    std::string bytes = seeds[rng() % seeds.size()];
    for (std::uint64_t k = 1 + rng() % 3; k > 0; --k) bytes = mutate(std::move(bytes), rng);
    write_bytes(file, bytes);
    try {
      expect_consistent(Array::load_npy(file), bytes.size());
      ++loaded;
    } catch (const IOError& e) {
      ASSERT_NE(std::string(e.what()).find("mutated.npy"), std::string::npos) << e.what();
      ++rejected;
    } catch (const std::exception& e) {
      FAIL() << "file " << i << " (seed " << seed << ") threw a non-IOError: " << e.what();
    }
  }
  fs::remove_all(dir);
  // Both outcomes must be exercised, or the mutations are too weak (or too strong) to test anything.
  EXPECT_GT(loaded, count / 20);
  EXPECT_GT(rejected, count / 4);
  std::cout << "FuzzNpy: " << loaded << " loaded, " << rejected << " rejected with IOError\n";
}

}  // namespace
}  // namespace symx
