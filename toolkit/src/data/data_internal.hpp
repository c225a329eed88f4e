// toolkit/src/data/data_internal.hpp: what the readers, the transforms and the iterator share: the
// portable random numbers behind every shuffle, seed derivation, and row gathering.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symx/data.hpp"

namespace symx::data::detail {

// splitmix64 (Steele, Lea, Flood 2014): a tiny generator whose output is fixed by the algorithm
// alone, so shuffles agree across machines and standard libraries.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t operator()() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // A uniform draw from [0, bound) without modulo bias (rejection of the short last interval).
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
    for (;;) {
      const std::uint64_t r = (*this)();
      if (r >= threshold) return r % bound;
    }
  }

 private:
  std::uint64_t state_;
};

// Seeds derived from a user seed and a purpose, so that different uses never share a stream.
enum class Stream : std::uint64_t { split = 1, stratum = 2, epoch_order = 3, transform = 4 };
std::uint64_t derive_seed(std::uint64_t seed, Stream stream, std::uint64_t a, std::uint64_t b = 0);

// Bytes of one example (one row along axis 0) of `array`; 0 for an array with no axes.
std::size_t row_bytes(const Array& array);
// A new array holding rows indices[begin, end) of `array` in that order (indices are trusted).
Array gather_rows(const Array& array, const std::int64_t* indices, std::int64_t count);

// "12 bytes", "1 byte"
std::string bytes_text(std::uint64_t n);

}  // namespace symx::data::detail
