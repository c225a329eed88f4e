// Fuzz test of the data readers: valid files generated here (IDX raw and gzip, MNIST pairs, CIFAR-10,
// CIFAR-100, .npz) are mutated with a seeded RNG (truncation at every or random lengths, byte flips,
// header fields set to huge values or zero, appended bytes, and for gzip files both the compressed
// bytes and the content before compression) and read back. Each read must either succeed with a
// consistent data set or throw symx::IOError; any other exception fails the test, and a crash or a
// memory error fails it under the sanitizer build. SYMX_FUZZ_FILES sets the mutations per format
// (default 300); SYMX_FUZZ_SEED the seed. IdxGzipAgreesWithRaw and Archives (issue 19) add the
// gzip framing (every cut an error, raw and gzip of the same bytes read alike) and crafted tar
// archives (traversal, links, devices, sparse and huge entries) for extract_archive.
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <set>

#include "../cpp/test_util.hpp"
#include "symx/data.hpp"
#include "symx/data/download.hpp"

namespace sx = symx;
namespace data = symx::data;
namespace fs = std::filesystem;
using sx::testing::read_bytes;
using sx::testing::write_bytes;

namespace {

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

const std::int64_t kFiles = symx::testing::env_int("SYMX_FUZZ_FILES", 300);
const std::uint64_t kSeed = static_cast<std::uint64_t>(symx::testing::env_int("SYMX_FUZZ_SEED", 20261201));

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

// Every cut of a gzip file is an IOError (a stream without its CRC trailer is never trusted), and
// a mutated IDX content reads the same raw and gzip-compressed: both fail, or both give the same
// array (the raw reader is the oracle of the inflating one).
TEST(DataFuzz, IdxGzipAgreesWithRaw) {
  FuzzDir dir;
  std::mt19937_64 rng(kSeed + 4);
  const std::vector<std::pair<std::string, std::size_t>> seeds = {{idx_file(0x08, {6, 3, 3}, 1), 16},
                                                                  {idx_file(0x0C, {5, 2}, 4), 12},
                                                                  {idx_file(0x09, {9}, 1), 8}};
  int cuts = 0, agreed = 0;
  for (const auto& [seed, header] : seeds) {
    const std::string gz = gzip_bytes(seed, dir / "scratch.gz");
    for (std::size_t n = 0; n < gz.size(); ++n, ++cuts) {
      write_bytes(dir / "cut.idx.gz", gz.substr(0, n));
      EXPECT_THROW(data::read_idx(dir / "cut.idx.gz"), sx::IOError) << "a gzip file cut to " << n << " bytes";
    }
    for (std::int64_t i = 0; i < kFiles / static_cast<std::int64_t>(seeds.size()); ++i) {
      const std::string content = mutate(seed, header, rng);
      write_bytes(dir / "m.idx", content);
      write_bytes(dir / "m.idx.gz", gzip_bytes(content, dir / "scratch.gz"));
      std::optional<sx::Array> raw, inflated;
      try {
        raw = data::read_idx(dir / "m.idx");
      } catch (const sx::IOError&) {}
      try {
        inflated = data::read_idx(dir / "m.idx.gz");
      } catch (const sx::IOError&) {}
      // A raw file starting with the gzip magic is read as gzip: no oracle then.
      if (content.size() >= 2 && content[0] == '\x1f' && content[1] == '\x8b') continue;
      ASSERT_EQ(raw.has_value(), inflated.has_value()) << "raw and gzip of the same content disagree";
      if (raw) {
        ASSERT_EQ(raw->shape(), inflated->shape());
        ASSERT_EQ(raw->dtype(), inflated->dtype());
        ASSERT_EQ(std::memcmp(raw->raw_data(), inflated->raw_data(), raw->nbytes()), 0);
      }
      ++agreed;
    }
  }
  EXPECT_GT(cuts, 100);
  EXPECT_GT(agreed, kFiles / 2);
}

namespace {

// One ustar entry: a 512-byte header and the data padded to 512 bytes. `size` overrides the size
// field (a header announcing other than what follows).
std::string tar_entry(const std::string& name, const std::string& data, char type = '0', const std::string& link = "",
                      std::int64_t size = -1) {
  std::string header(512, '\0');
  header.replace(0, std::min<std::size_t>(name.size(), 99), name.substr(0, 99));
  header.replace(100, 7, type == '5' ? "0000755" : "0000644");
  header.replace(108, 7, "0000000");
  header.replace(116, 7, "0000000");
  char field[16];
  std::snprintf(field, sizeof field, "%011llo",
                static_cast<unsigned long long>(size >= 0 ? size : static_cast<std::int64_t>(data.size())));
  header.replace(124, 11, field);
  header.replace(136, 11, "00000000000");
  header[156] = type;
  header.replace(157, std::min<std::size_t>(link.size(), 99), link.substr(0, 99));
  header.replace(257, 6, std::string("ustar\0", 6));
  header.replace(263, 2, "00");
  if (type == 'S') {  // GNU sparse: one chunk at the end of a file of 2 GiB
    header.replace(257, 8, std::string("ustar  \0", 8));
    std::snprintf(field, sizeof field, "%011llo", (2ULL << 30) - data.size());
    header.replace(386, 11, field);
    std::snprintf(field, sizeof field, "%011llo", static_cast<unsigned long long>(data.size()));
    header.replace(398, 11, field);
    std::snprintf(field, sizeof field, "%011llo", 2ULL << 30);
    header.replace(483, 11, field);
  }
  header.replace(148, 8, "        ");
  unsigned sum = 0;
  for (unsigned char c : header) sum += c;
  std::snprintf(field, sizeof field, "%06o", sum);
  header.replace(148, 7, std::string(field, 6) + '\0');
  return header + data + std::string((512 - data.size() % 512) % 512, '\0');
}

// After an extraction into `out` (under `root`): only regular files and folders, inside `out`, of at
// most `budget` bytes in all; after a failure, nothing at all. Nothing ever appears in `root` but `out`.
void check_extracted(const fs::path& root, const fs::path& out, bool ok, std::uint64_t budget) {
  std::uint64_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    ASSERT_TRUE(ok) << "a failed extraction left " << e.path();
    const fs::file_status st = fs::symlink_status(e.path());
    ASSERT_TRUE(fs::is_regular_file(st) || fs::is_directory(st)) << e.path() << " is neither a file nor a folder";
    if (fs::is_regular_file(st)) total += fs::file_size(e.path());
  }
  ASSERT_LE(total, budget);
  for (const auto& e : fs::directory_iterator(root))
    ASSERT_TRUE(e.path().filename() == "out" || e.path().extension() == ".tar" || e.path().extension() == ".gz" ||
                e.path().filename() == "scratch.gz")
        << "extraction wrote " << e.path() << " outside its folder";
}

}  // namespace

// Crafted archives: valid ones mutated at random and in their header fields, and entries chosen to
// be refused (traversal, absolute paths, links, devices, FIFOs, sparse files, sizes that lie, more
// data than the budget), raw and gzip-compressed, plus a zip file. Each extraction succeeds within
// the rules checked by check_extracted, or is an IOError that leaves nothing behind.
TEST(DataFuzz, Archives) {
  FuzzDir dir;
  std::mt19937_64 rng(kSeed + 5);
  constexpr std::uint64_t kBudget = 64 << 10;
  const std::vector<std::string> bad = {
      tar_entry("../up.bin", "x"),
      tar_entry("a/../../up.bin", "x"),
      tar_entry("/abs.bin", "x"),
      tar_entry("a/link", "", '2', "../../outside"),
      tar_entry("a/hard", "", '1', "a/file.bin"),
      tar_entry("a/char", "", '3'),
      tar_entry("a/block", "", '4'),
      tar_entry("a/fifo", "", '6'),
      tar_entry("a/sparse.bin", std::string(512, 's'), 'S'),
      tar_entry("a/huge.bin", "tiny", '0', "", std::int64_t{1} << 40),
      tar_entry("a/short.bin", std::string(700, 'q'), '0', "", 100),
      tar_entry("a/big.bin", std::string(kBudget + 1, 'b')),
  };
  const std::string good = tar_entry("a/", "", '5') + tar_entry("a/file.bin", std::string(1000, 'f')) +
                           tar_entry("a/sub/two.bin", "two") + tar_entry("b.txt", "bee");
  const std::string end(1024, '\0');
  std::vector<std::string> seeds = {good + end};
  for (const std::string& entry : bad) seeds.push_back(good + entry + end);
  int failures = 0, runs = 0;
  auto run = [&](const std::string& bytes, bool gz) {
    const fs::path out = dir.path / "out";
    fs::remove_all(out);
    fs::create_directories(out);
    const std::string archive = dir / (gz ? "x.tar.gz" : "x.tar");
    write_bytes(archive, gz ? gzip_bytes(bytes, dir / "scratch.gz") : bytes);
    bool ok = true;
    try {
      data::extract_archive(archive, out.string(), kBudget);
    } catch (const sx::IOError&) {
      ok = false;
      ++failures;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "threw " << typeid(e).name() << " (not IOError): " << e.what();
    }
    ++runs;
    check_extracted(dir.path, out, ok, kBudget);
    fs::remove(archive);
  };
  for (std::size_t k = 0; k < seeds.size(); ++k) {
    run(seeds[k], false);
    if (k > 0) {
      EXPECT_EQ(failures, static_cast<int>(k)) << "the crafted entry " << k - 1 << " was extracted";
    }
  }
  run(std::string("PK\x03\x04", 4) + std::string(200, 'z'), false);  // a zip: not a tar
  for (std::int64_t i = 0; i < kFiles / 2; ++i) {                    // an extraction costs a few folders and files
    const std::string& seed = seeds[static_cast<std::size_t>(rng() % seeds.size())];
    // Aim at the header fields of one of the first entries (name, size, type, link) or anywhere.
    run(mutate(seed, 512 * (1 + rng() % 4), rng), i % 3 == 0);
  }
  EXPECT_GT(failures, runs / 4);
  EXPECT_LT(failures, runs);
}

}  // namespace
