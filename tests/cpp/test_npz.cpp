// .npz archives: save_npz/load_npz round trips, archives written by NumPy (the fixtures in
// tests/cpp/data, made by make_npz_fixtures.py), damaged archives (each an IOError naming the file
// and the entry), and a fuzz test of mutated archives.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace symx {
namespace {

namespace fs = std::filesystem;
using testing::expect_error;
using testing::read_bytes;
using testing::write_bytes;

// The source tree's tests/cpp/data (CMake defines it: __FILE__ is relative under Ninja).
const fs::path kFixtures = SYMX_NPZ_FIXTURES;

// The bytes of a fixture; a missing one stops the test rather than feeding it an empty string.
std::string fixture_bytes(const char* name) {
  std::string bytes = read_bytes((kFixtures / name).string());
  if (bytes.empty()) throw std::runtime_error("missing fixture " + (kFixtures / name).string());
  return bytes;
}

class NpzTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    dir_ = fs::temp_directory_path() / ("symx_npz_test_" + std::to_string(rd()) + "_" + std::to_string(rd()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

void expect_same(const std::map<std::string, Array>& actual, const std::map<std::string, Array>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (const auto& [name, array] : expected) {
    SCOPED_TRACE(name);
    ASSERT_EQ(actual.count(name), 1u);
    EXPECT_EQ(actual.at(name).dtype(), array.dtype());
    EXPECT_EQ(actual.at(name).shape(), array.shape());
    EXPECT_TRUE(actual.at(name).equals(array)) << actual.at(name).repr() << " vs " << array.repr();
  }
}

// The arrays make_npz_fixtures.py writes, rebuilt here from their definitions.
std::map<std::string, Array> fixture_arrays() {
  return {{"a", Array::arange(0, 6, 1, DType::f32).reshape({2, 3})},
          {"b", Array::from_vector<std::int64_t>({1, -2, 3}, {3})},
          {"flag", Array::scalar<bool>(true)},
          {"empty", Array::zeros({0, 2}, DType::f64)}};
}

// Byte offsets of every occurrence of `pattern` in `bytes`.
std::vector<std::size_t> find_all(const std::string& bytes, const std::string& pattern) {
  std::vector<std::size_t> at;
  for (std::size_t p = bytes.find(pattern); p != std::string::npos; p = bytes.find(pattern, p + 1)) at.push_back(p);
  return at;
}

const std::string kCentral("PK\x01\x02", 4), kLocal("PK\x03\x04", 4);

// CRC-32 with the zip polynomial, bit by bit: an oracle independent of zlib.
std::uint32_t crc32_reference(const std::string& bytes) {
  std::uint32_t crc = 0xffffffff;
  for (unsigned char c : bytes) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
  }
  return ~crc;
}

std::uint32_t get_u32(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
  return v;
}

void put_u32(std::string& bytes, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

TEST_F(NpzTest, RoundTripForEachDtypeAndShape) {
  std::map<std::string, Array> arrays = {{"f32", testing::random_array({2, 3}, -5, 5, 1, DType::f32)},
                                         {"f64", testing::random_array({4, 1, 2}, -5, 5, 2, DType::f64)},
                                         {"i32", Array::from_vector<std::int32_t>({-1, 0, 2147483647}, {3})},
                                         {"i64",
                                          Array::from_vector<std::int64_t>({-(std::int64_t{1} << 50), 7}, {2, 1})},
                                         {"u8", Array::from_vector<std::uint8_t>({0, 128, 255, 1}, {2, 2})},
                                         {"bool", Array::from_vector<bool>({true, false, true}, {3})},
                                         {"scalar", Array::scalar<double>(3.25)},
                                         {"empty", Array::zeros({0, 3}, DType::i32)},
                                         {"dir/odd name é", Array::ones({1}, DType::f32)}};
  save_npz(path("a.npz"), arrays);
  expect_same(load_npz(path("a.npz")), arrays);
  save_npz(path("none.npz"), {});
  EXPECT_TRUE(load_npz(path("none.npz")).empty());
}

TEST_F(NpzTest, SavingIsDeterministicAndAtomic) {
  std::map<std::string, Array> arrays = {{"x", Array({1.f, 2.f})}};
  save_npz(path("a.npz"), arrays);
  save_npz(path("b.npz"), arrays);
  EXPECT_EQ(read_bytes(path("a.npz")), read_bytes(path("b.npz")));
  expect_error<IOError>([&] { save_npz(path("missing_dir/c.npz"), arrays); }, {"save_npz", "c.npz"});
  EXPECT_FALSE(fs::exists(path("missing_dir")));
}

TEST_F(NpzTest, ReadsNumpySavezStoredDeflatedAndZip64) {
  for (const char* name : {"numpy_savez.npz", "numpy_savez_compressed.npz", "zip64_data_descriptor.npz"}) {
    SCOPED_TRACE(name);
    expect_same(load_npz((kFixtures / name).string()), fixture_arrays());
  }
}

TEST_F(NpzTest, MissingNotZipAndTruncatedArchivesFail) {
  expect_error<IOError>([&] { load_npz(path("none.npz")); }, {"load_npz", "none.npz", "cannot open"});
  write_bytes(path("junk.npz"), "this is not a zip archive, it only has some text in it");
  expect_error<IOError>([&] { load_npz(path("junk.npz")); }, {"load_npz", "junk.npz", "not a zip archive"});
  expect_error<IOError>([&] { load_npz(dir_.string()); }, {"load_npz", "not a regular file"});
  for (const char* name : {"numpy_savez.npz", "numpy_savez_compressed.npz"}) {
    const std::string bytes = fixture_bytes(name);
    for (std::size_t keep : {std::size_t{0}, std::size_t{21}, bytes.size() / 2, bytes.size() - 1}) {
      SCOPED_TRACE(std::string(name) + " cut to " + std::to_string(keep));
      write_bytes(path("cut.npz"), bytes.substr(0, keep));
      expect_error<IOError>([&] { load_npz(path("cut.npz")); }, {"load_npz", "'" + path("cut.npz") + "'"});
    }
  }
  // A cut that keeps the end records but not the data: the directory points beyond the file.
  const std::string bytes = fixture_bytes("numpy_savez.npz");
  const std::size_t central = find_all(bytes, kCentral).front();
  write_bytes(path("gap.npz"), bytes.substr(central));
  expect_error<IOError>([&] { load_npz(path("gap.npz")); }, {"load_npz", "gap.npz", "beyond the end of the file"});
}

TEST_F(NpzTest, CorruptEntriesNameTheFileAndTheEntry) {
  const std::string stored = fixture_bytes("numpy_savez.npz");
  const std::size_t first = find_all(stored, kCentral).front();  // the directory entry of a.npy

  std::string bad_crc = stored;
  bad_crc[first + 16] ^= 1;
  write_bytes(path("crc.npz"), bad_crc);
  expect_error<IOError>([&] { load_npz(path("crc.npz")); }, {"load_npz", "crc.npz", "'a.npy'", "CRC-32"});

  std::string bad_data = stored;
  bad_data[find_all(stored, "NUMPY").front() + 100] ^= 1;  // a header byte of a.npy
  write_bytes(path("data.npz"), bad_data);
  expect_error<IOError>([&] { load_npz(path("data.npz")); }, {"load_npz", "data.npz", "'a.npy'", "CRC-32"});

  std::string bzip2 = stored;
  bzip2[first + 10] = 12;
  write_bytes(path("bzip2.npz"), bzip2);
  expect_error<IOError>([&] { load_npz(path("bzip2.npz")); },
                        {"load_npz", "bzip2.npz", "entry 'a.npy' is compressed with method 12 (bzip2)",
                         "stored and deflated", "numpy.savez"});

  std::string encrypted = stored;
  encrypted[first + 8] |= 1;
  write_bytes(path("enc.npz"), encrypted);
  expect_error<IOError>([&] { load_npz(path("enc.npz")); }, {"load_npz", "enc.npz", "'a.npy'", "encrypted"});
}

TEST_F(NpzTest, EntriesMustBeUniqueNpyFiles) {
  const std::string stored = fixture_bytes("numpy_savez.npz");
  std::string renamed = stored;
  for (std::size_t at : find_all(stored, "a.npy")) renamed.replace(at, 5, "a.txt");
  write_bytes(path("txt.npz"), renamed);
  expect_error<IOError>([&] { load_npz(path("txt.npz")); }, {"load_npz", "txt.npz", "'a.txt'", "not a .npy"});

  std::string twice = stored;
  for (std::size_t at : find_all(stored, "b.npy")) twice.replace(at, 5, "a.npy");
  write_bytes(path("twice.npz"), twice);
  expect_error<IOError>([&] { load_npz(path("twice.npz")); }, {"load_npz", "twice.npz", "'a.npy'", "appears twice"});

  // The .npy inside is parsed by the .npy parser, whose errors name the entry; the CRC-32 is
  // fixed so that the parser, not the CRC check, finds the problem.
  std::string dtype = stored;
  dtype.replace(dtype.find("'<f4'"), 5, "'<f2'");
  const std::size_t first = find_all(stored, kCentral).front(), data = find_all(stored, "\x93NUMPY").front();
  EXPECT_EQ(crc32_reference(stored.substr(data, get_u32(stored, first + 24))), get_u32(stored, first + 16));
  put_u32(dtype, first + 16, crc32_reference(dtype.substr(data, get_u32(stored, first + 24))));
  write_bytes(path("dtype.npz"), dtype);
  expect_error<IOError>([&] { load_npz(path("dtype.npz")); },
                        {"load_npz", "dtype.npz", "entry 'a.npy'", "'descr'", "'<f2'"});
}

TEST_F(NpzTest, DeclaredSizesAreCheckedBeforeAllocating) {
  std::string deflated = fixture_bytes("numpy_savez_compressed.npz");
  const std::size_t first = find_all(deflated, kCentral).front();
  for (int i = 0; i < 4; ++i) deflated[first + 24 + i] = '\x7f';  // uncompressed size ~2 GiB
  write_bytes(path("bomb.npz"), deflated);
  expect_error<IOError>([&] { load_npz(path("bomb.npz")); }, {"load_npz", "bomb.npz", "'a.npy'", "deflated bytes"});

  std::string lie = fixture_bytes("numpy_savez_compressed.npz");
  lie[first + 24] = static_cast<char>(lie[first + 24] + 1);  // one byte more than the stream holds
  write_bytes(path("lie.npz"), lie);
  expect_error<IOError>([&] { load_npz(path("lie.npz")); }, {"load_npz", "lie.npz", "'a.npy'", "corrupt deflated"});

  std::string offset = fixture_bytes("numpy_savez.npz");
  const std::size_t entry = find_all(offset, kCentral).back();
  for (int i = 0; i < 4; ++i) offset[entry + 42 + i] = '\x7e';  // local header far beyond the end
  write_bytes(path("offset.npz"), offset);
  expect_error<IOError>([&] { load_npz(path("offset.npz")); }, {"load_npz", "offset.npz", "truncated", "local header"});
}

// ---- fuzz: mutated archives load consistently or raise IOError, never crash ----

std::string mutate(std::string bytes, std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
  // Most mutations hit the zip structures (local headers and the central directory).
  std::vector<std::size_t> headers = find_all(bytes, kCentral), locals = find_all(bytes, kLocal);
  headers.insert(headers.end(), locals.begin(), locals.end());
  const std::size_t structure = headers.empty() ? pick(bytes.size()) : headers[pick(headers.size())] + pick(48);
  switch (rng() % 6) {
    case 0:
      if (!bytes.empty()) bytes[pick(bytes.size())] = static_cast<char>(rng());
      break;
    case 1: bytes.resize(pick(bytes.size() + 1)); break;
    case 2: bytes += std::string(1 + pick(64), static_cast<char>(rng())); break;
    case 3:
      if (structure < bytes.size()) bytes[structure] = static_cast<char>(rng());
      break;
    case 4:  // a 32-bit field set to 0xffffffff (the ZIP64 marker) or a small value
      for (std::size_t i = 0; i < 4 && structure + i < bytes.size(); ++i)
        bytes[structure + i] = rng() % 2 ? '\xff' : static_cast<char>(i == 0 ? pick(256) : 0);
      break;
    default:
      if (bytes.size() > 22) bytes[bytes.size() - 22 + pick(22)] = static_cast<char>(rng());
      break;  // end record
  }
  return bytes;
}

TEST_F(NpzTest, FuzzMutatedArchivesLoadOrRaiseIOError) {
  save_npz(path("seed.npz"), fixture_arrays());
  std::vector<std::string> seeds = {read_bytes(path("seed.npz"))};
  for (const char* name : {"numpy_savez.npz", "numpy_savez_compressed.npz", "zip64_data_descriptor.npz"})
    seeds.push_back(fixture_bytes(name));
  std::mt19937_64 rng(11);
  const std::string file = path("mutated.npz");
  int loaded = 0, rejected = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 300; ++i) {
    std::string bytes = seeds[rng() % seeds.size()];
    for (std::uint64_t k = 1 + rng() % 2; k > 0; --k) bytes = mutate(std::move(bytes), rng);
    write_bytes(file, bytes);
    try {
      for (const auto& [name, array] : load_npz(file)) {
        ASSERT_LE(array.nbytes(), 8 * bytes.size() + 1024) << name;  // nothing larger than the data can describe
        for (std::int64_t j = 0; j < array.size(); ++j) (void)array.get_flat(j);
      }
      ++loaded;
    } catch (const IOError& e) {
      ASSERT_NE(std::string(e.what()).find("mutated.npz"), std::string::npos) << e.what();
      ++rejected;
    } catch (const std::exception& e) {
      FAIL() << "mutation " << i << " threw a non-IOError: " << e.what();
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "FuzzNpz: " << loaded << " loaded, " << rejected << " rejected with IOError in " << seconds << " s\n";
  // Both outcomes must occur, or the mutations test nothing.
  EXPECT_GT(loaded, 15);
  EXPECT_GT(rejected, 75);
}

}  // namespace
}  // namespace symx
