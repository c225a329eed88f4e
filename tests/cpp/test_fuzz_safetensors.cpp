// Fuzzing of the safetensors loader: valid checkpoints mutated with a seeded generator (byte
// flips, truncation, extension, edits of the header text) must each either load or throw IOError,
// leave every variable unchanged when they throw, and never crash or throw anything else.
// SYMX_FUZZ_FILES sets the number of mutated files (default 500), SYMX_FUZZ_SEED the seed.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <typeinfo>
#include <vector>

#include "test_util.hpp"

namespace symx {
namespace {

namespace fs = std::filesystem;

using testing::read_bytes;
using testing::write_bytes;

// Replaces the header of `file` with `header`, updating the length field.
std::string with_header(const std::string& file, const std::string& header) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(file[static_cast<std::size_t>(i)]);
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>(header.size() >> (8 * i));
  return out + header + file.substr(8 + n);
}

std::string header_of(const std::string& file) {
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(file[static_cast<std::size_t>(i)]);
  return file.substr(8, n);
}

// One mutation of a valid file; `changes_size` tells whether the data section length changed
// without the header saying so (such a file must be rejected).
struct Mutant {
  std::string bytes;
  bool changes_size = false;
  std::string what;
};

// Edits of the header text: a digit changed, an entry duplicated, two offsets swapped, a byte
// deleted or inserted.
Mutant edit_header(const std::string& file, std::mt19937_64& rng) {
  std::string h = header_of(file);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
  switch (rng() % 5) {
    case 0: {
      std::vector<std::size_t> digits;
      for (std::size_t i = 0; i < h.size(); ++i)
        if (h[i] >= '0' && h[i] <= '9') digits.push_back(i);
      if (!digits.empty()) h[digits[pick(digits.size())]] = static_cast<char>('0' + rng() % 10);
      return {with_header(file, h), false, "digit changed"};
    }
    case 1: {
      // Duplicate the entry that starts at a random key: "name":{...}
      std::size_t start = h.find("\":{\"", pick(h.size()));
      if (start == std::string::npos) return {with_header(file, h), false, "no entry to duplicate"};
      start = h.rfind(",\"", start);
      std::size_t end = h.find('}', start == std::string::npos ? 0 : start);
      if (start == std::string::npos || end == std::string::npos) return {file, false, "unchanged"};
      std::string entry = h.substr(start, end + 1 - start);
      h.insert(end + 1, entry);
      return {with_header(file, h), false, "key duplicated"};
    }
    case 2: {
      std::vector<std::size_t> offsets;
      for (std::size_t i = h.find("\"data_offsets\":["); i != std::string::npos;
           i = h.find("\"data_offsets\":[", i + 1))
        offsets.push_back(i + 16);
      if (offsets.size() < 2) return {file, false, "unchanged"};
      std::size_t a = offsets[pick(offsets.size())], b = offsets[pick(offsets.size())];
      if (a > b) std::swap(a, b);
      std::size_t a_end = h.find(']', a), b_end = h.find(']', b);
      if (a == b) return {file, false, "unchanged"};
      std::string first = h.substr(a, a_end - a), second = h.substr(b, b_end - b);
      h.replace(b, b_end - b, first);
      h.replace(a, a_end - a, second);
      return {with_header(file, h), false, "offsets swapped"};
    }
    case 3:
      if (!h.empty()) h.erase(pick(h.size()), 1);
      return {with_header(file, h), false, "header byte deleted"};
    default:
      h.insert(pick(h.size() + 1), 1, "{}[],:\"0-9 x\xff"[pick(14)]);
      return {with_header(file, h), false, "header byte inserted"};
  }
}

Mutant mutate(const std::string& file, std::mt19937_64& rng) {
  Mutant m{file, false, ""};
  switch (rng() % 4) {
    case 0: {
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int i = 0; i < flips; ++i) m.bytes[rng() % m.bytes.size()] ^= static_cast<char>(1u << (rng() % 8));
      m.what = "bytes flipped";
      return m;
    }
    case 1:
      m.bytes.resize(rng() % m.bytes.size());
      m.what = "truncated to " + std::to_string(m.bytes.size());
      m.changes_size = m.bytes.size() >= 8 + header_of(file).size();  // cut in the data section
      return m;
    case 2:
      for (std::uint64_t n = 1 + rng() % 16; n > 0; --n) m.bytes += static_cast<char>(rng());
      m.what = "extended";
      m.changes_size = true;
      return m;
    default: return edit_header(file, rng);
  }
}

TEST(FuzzSafetensors, MutatedCheckpointsLoadOrThrowIOError) {
  reset_default_graph();
  fs::path dir = fs::temp_directory_path() / ("symx_fuzz_st_" + std::to_string(std::random_device{}()));
  fs::create_directories(dir);
  std::vector<Tensor> vars;
  {
    Scope s("net");
    vars.push_back(variable(testing::random_array({3, 4}, -1, 1, 1, DType::f32), "w"));
    vars.push_back(variable(testing::random_array({4}, -1, 1, 2, DType::f64), "b"));
  }
  vars.push_back(variable(Array::from_vector<std::int32_t>({1, -2, 3, 4}, {2, 2}), "counts"));
  vars.push_back(variable(Array::from_vector<std::uint8_t>({0, 7, 255}, {3}), "bytes"));
  vars.push_back(variable(Array::from_vector<bool>({true, false, true}, {3}), "mask"));
  vars.push_back(variable(Array::zeros({0, 2}), "empty"));
  save_variables((dir / "good.safetensors").string());
  const std::string good = read_bytes(dir / "good.safetensors");

  // Values different from the file's, so that a load that changed something is visible.
  for (const auto& v : vars) {
    Array a(v.shape(), v.dtype());
    for (std::int64_t i = 0; i < a.size(); ++i)
      a.set_flat(i, v.dtype() == DType::b8 ? 0.0 : 100.0 + static_cast<double>(i));
    v.assign(a);
  }
  std::mt19937_64 rng(static_cast<std::uint64_t>(symx::testing::env_int("SYMX_FUZZ_SEED", 20261201)));
  const std::uint64_t count = static_cast<std::uint64_t>(symx::testing::env_int("SYMX_FUZZ_FILES", 500));
  const std::string file = (dir / "mutant.safetensors").string();
  int loaded = 0, rejected = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    Mutant m = mutate(good, rng);
    SCOPED_TRACE("mutant " + std::to_string(i) + " (" + m.what + ")");
    write_bytes(file, m.bytes);
    std::vector<Array> before;
    for (const auto& v : vars) before.push_back(v.value().copy());
    try {
      load_variables(file);
      ++loaded;
      EXPECT_FALSE(m.changes_size) << "a file whose data section does not match its header was accepted";
    } catch (const IOError& e) {
      ++rejected;
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
      for (std::size_t k = 0; k < vars.size(); ++k)
        EXPECT_TRUE(vars[k].value().equals(before[k])) << vars[k].name() << " changed by a failed load";
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not an IOError: " << typeid(e).name() << ": " << e.what();
    }
    // Back to values unlike the file's for the next mutant.
    for (std::size_t k = 0; k < vars.size(); ++k) vars[k].assign(before[k]);
  }
  EXPECT_GT(rejected, 0);
  std::cout << "[ fuzz     ] " << count << " mutated checkpoints: " << loaded << " loaded, " << rejected
            << " rejected\n";
  std::error_code ec;
  fs::remove_all(dir, ec);
}

}  // namespace
}  // namespace symx
