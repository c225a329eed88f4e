// Fuzz test of the data readers: valid files generated here (IDX raw and gzip, MNIST pairs, CIFAR-10,
// CIFAR-100, .npz) are mutated with a seeded RNG (truncation at every or random lengths, byte flips,
// header fields set to huge values or zero, appended bytes, and for gzip files both the compressed
// bytes and the content before compression) and read back. Each read must either succeed with a
// consistent data set or throw symx::IOError; any other exception fails the test, and a crash or a
// memory error fails it under the sanitizer build. SYMX_FUZZ_FILES sets the mutations per format
// (default 300); SYMX_FUZZ_SEED the seed.
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>

#include "../cpp/test_util.hpp"
#include "symx/data.hpp"

namespace sx = symx;
namespace data = symx::data;
namespace fs = std::filesystem;
using sx::testing::read_bytes;
using sx::testing::write_bytes;

namespace {

std::int64_t env_int(const char* name, std::int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoll(v) : fallback;
}

struct FuzzDir {
  fs::path path = fs::temp_directory_path() / ("symx_data_fuzz_" + std::to_string(::getpid()) + "_" +
                                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
  FuzzDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~FuzzDir() { fs::remove_all(path); }
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

std::string gzip_bytes(const std::string& bytes, const std::string& scratch) {
  gzFile f = gzopen(scratch.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
  return read_bytes(scratch);
}

std::string idx_file(unsigned char type, const std::vector<std::uint32_t>& dims, std::size_t item) {
  std::string out = {0, 0, static_cast<char>(type), static_cast<char>(dims.size())};
  std::size_t n = 1;
  for (std::uint32_t d : dims) {
    for (int k = 3; k >= 0; --k) out.push_back(static_cast<char>(d >> (8 * k)));
    n *= d;
  }
  for (std::size_t i = 0; i < n * item; ++i) out.push_back(static_cast<char>(i * 13 % 10));
  return out;
}

std::string cifar_file(int records, bool hundred) {
  std::string out;
  for (int r = 0; r < records; ++r) {
    if (hundred) out.push_back(static_cast<char>(r % 20));
    out.push_back(static_cast<char>(r % 10));
    for (int k = 0; k < 3072; ++k) out.push_back(static_cast<char>((r * 31 + k) % 256));
  }
  return out;
}

// One mutation. `header` is the length of the part worth aiming at (header fields).
std::string mutate(std::string bytes, std::size_t header, std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
  static const std::vector<std::string> fields = {std::string("\xff\xff\xff\xff", 4),
                                                  std::string(4, '\0'),
                                                  std::string("\x7f\xff\xff\xff", 4),
                                                  std::string("\x00\x01\x00\x00", 4),
                                                  std::string("\x80\x00\x00\x00", 4),
                                                  std::string("\x00\x00\x00\x01", 4)};
  switch (rng() % 6) {
    case 0:  // truncate
      bytes.resize(pick(bytes.size() + 1));
      break;
    case 1:  // flip 1 to 4 bytes anywhere
      for (std::size_t k = 0, n = 1 + pick(4); k < n && !bytes.empty(); ++k)
        bytes[pick(bytes.size())] ^= static_cast<char>(1 + pick(255));
      break;
    case 2:  // flip a byte of the header
      if (!bytes.empty()) bytes[pick(std::min(header, bytes.size()))] = static_cast<char>(rng());
      break;
    case 3: {  // overwrite a 4-byte header field (IDX dimension) with a huge, zero or odd value
      const std::string& f = fields[pick(fields.size())];
      const std::size_t at = 4 * pick(std::max<std::size_t>(header / 4, 1));
      for (std::size_t k = 0; k < 4 && at + k < bytes.size(); ++k) bytes[at + k] = f[k];
      break;
    }
    case 4:  // append bytes
      bytes += std::string(1 + pick(64), static_cast<char>(rng()));
      break;
    default:  // remove a range
      if (!bytes.empty()) {
        const std::size_t at = pick(bytes.size());
        bytes.erase(at, 1 + pick(bytes.size() - at));
      }
  }
  return bytes;
}

// Runs `read`; fails the test unless it succeeds (then `check` must hold) or throws IOError.
template <class R, class C> void expect_clean(R&& read, C&& check, const std::string& what, int& failures) {
  try {
    check(read());
  } catch (const sx::IOError&) {
    ++failures;
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": threw " << typeid(e).name() << " (not IOError): " << e.what();
  }
}

void check_idx_array(const sx::Array& a) {
  ASSERT_GE(a.ndim(), 1);
  ASSERT_LE(a.ndim(), 8);
  for (std::int64_t i = 0; i < a.size(); ++i)
    ASSERT_TRUE(std::isfinite(a.get_flat(i)) || a.dtype() == sx::f32 || a.dtype() == sx::f64);
}

void check_dataset(const data::Dataset& d, std::int64_t classes) {
  ASSERT_GE(d.x.ndim(), 1);
  ASSERT_EQ(d.y.ndim(), 1);
  ASSERT_EQ(d.y.shape()[0], d.x.shape()[0]);
  for (std::int64_t i = 0; i < d.y.size(); ++i) {
    ASSERT_GE(d.y.get_flat(i), 0);
    ASSERT_LT(d.y.get_flat(i), classes);
  }
}

const std::int64_t kFiles = env_int("SYMX_FUZZ_FILES", 300);
const std::uint64_t kSeed = static_cast<std::uint64_t>(env_int("SYMX_FUZZ_SEED", 20261201));

TEST(DataFuzz, IdxRawAndGzip) {
  FuzzDir dir;
  std::mt19937_64 rng(kSeed);
  const std::vector<std::pair<std::string, std::size_t>> seeds = {{idx_file(0x08, {5, 3, 3}, 1), 16},
                                                                  {idx_file(0x0D, {4, 2}, 4), 12},
                                                                  {idx_file(0x0B, {7}, 2), 8},
                                                                  {idx_file(0x0E, {2, 1, 1, 2}, 8), 20},
                                                                  {idx_file(0x08, {0, 28, 28}, 1), 16}};
  int failures = 0, reads = 0;
  for (const auto& [seed, header] : seeds) {
    // Truncation at every length, raw and compressed.
    const std::string gz = gzip_bytes(seed, dir / "scratch.gz");
    for (std::size_t n = 0; n < seed.size(); ++n) {
      write_bytes(dir / "t.idx", seed.substr(0, n));
      expect_clean([&] { return data::read_idx(dir / "t.idx"); }, check_idx_array, "raw truncated", failures);
      ++reads;
    }
    for (std::size_t n = 0; n < gz.size(); ++n) {
      write_bytes(dir / "t.idx.gz", gz.substr(0, n));
      expect_clean([&] { return data::read_idx(dir / "t.idx.gz"); }, check_idx_array, "gzip truncated", failures);
      ++reads;
    }
    for (std::int64_t i = 0; i < kFiles / static_cast<std::int64_t>(seeds.size()); ++i) {
      const std::string raw = mutate(seed, header, rng);
      write_bytes(dir / "m.idx", raw);
      expect_clean([&] { return data::read_idx(dir / "m.idx"); }, check_idx_array, "raw mutated", failures);
      write_bytes(dir / "m.idx.gz", gzip_bytes(raw, dir / "scratch.gz"));  // mutated content, valid gzip
      expect_clean([&] { return data::read_idx(dir / "m.idx.gz"); }, check_idx_array, "content mutated", failures);
      write_bytes(dir / "c.idx.gz", mutate(gz, 10, rng));  // mutated gzip stream
      expect_clean([&] { return data::read_idx(dir / "c.idx.gz"); }, check_idx_array, "gzip mutated", failures);
      reads += 3;
    }
  }
  EXPECT_GT(failures, reads / 4);  // the mutations did reach the error paths
  EXPECT_LT(failures, reads);      // and some mutated files are still valid
}

TEST(DataFuzz, MnistPair) {
  FuzzDir dir;
  std::mt19937_64 rng(kSeed + 1);
  const std::string images = idx_file(0x08, {6, 4, 4}, 1), labels = idx_file(0x08, {6}, 1);
  int failures = 0;
  for (std::int64_t i = 0; i < kFiles / 2; ++i) {
    const bool which = i % 2 == 0;
    write_bytes(dir / "train-images-idx3-ubyte", which ? mutate(images, 16, rng) : images);
    write_bytes(dir / "train-labels-idx1-ubyte", which ? labels : mutate(labels, 8, rng));
    expect_clean([&] { return data::load_mnist(dir.path.string()); },
                 [](const data::Dataset& d) { check_dataset(d, 10); }, "mnist", failures);
  }
  EXPECT_GT(failures, 0);
}

TEST(DataFuzz, Cifar10And100) {
  FuzzDir dir;
  std::mt19937_64 rng(kSeed + 2);
  const std::string c10 = cifar_file(3, false), c100 = cifar_file(2, true);
  int failures = 0;
  for (std::int64_t i = 0; i < kFiles; ++i) {
    write_bytes(dir / "data_batch_1.bin", mutate(c10, 3073, rng));
    expect_clean([&] { return data::load_cifar10(dir.path.string()); },
                 [](const data::Dataset& d) { check_dataset(d, 10); }, "cifar10", failures);
    write_bytes(dir / "test.bin", mutate(c100, 3074, rng));
    expect_clean([&] { return data::load_cifar100(dir.path.string(), "test"); },
                 [](const data::Dataset& d) { check_dataset(d, 100); }, "cifar100", failures);
    expect_clean([&] { return data::load_cifar100(dir.path.string(), "test", "coarse"); },
                 [](const data::Dataset& d) { check_dataset(d, 20); }, "cifar100 coarse", failures);
  }
  EXPECT_GT(failures, 0);
}

TEST(DataFuzz, Npz) {
  FuzzDir dir;
  std::mt19937_64 rng(kSeed + 3);
  sx::save_npz(dir / "seed.npz", {{"x", sx::testing::random_array({4, 3}, 0, 1, 1, sx::f32)},
                                  {"y", sx::Array::from_vector<std::int64_t>({0, 1, 2, 3}, {4})}});
  const std::string seed = read_bytes(dir / "seed.npz");
  int failures = 0;
  for (std::int64_t i = 0; i < kFiles; ++i) {
    write_bytes(dir / "m.npz", mutate(seed, 128, rng));
    expect_clean([&] { return data::load_arrays(dir / "m.npz"); },
                 [](const data::Dataset& d) {
                   ASSERT_EQ(d.y.ndim(), 1);
                   ASSERT_EQ(d.y.shape()[0], d.x.shape()[0]);
                 },
                 "npz", failures);
  }
  EXPECT_GT(failures, 0);
}

}  // namespace
