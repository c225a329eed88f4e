// symx::data (issue 10): readers against files written here byte by byte (IDX raw and gzip, CIFAR
// binary, .npz) and against the real digits in $SYMX_TEST_DATA/mnist read directly through zlib;
// splits, statistics and one-hot against direct loops; the batch iterator's coverage, order,
// determinism, restore, errors and shutdown.
#include <sys/stat.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <limits>
#include <thread>

#include "../cpp/test_util.hpp"
#include "symx/data.hpp"

namespace sx = symx;
namespace data = symx::data;
namespace fs = std::filesystem;
using sx::testing::expect_error;
using sx::testing::read_bytes;
using sx::testing::write_bytes;

namespace {

using sx::testing::TempDir;

std::string big_endian(std::uint64_t v, int bytes) {
  std::string out;
  for (int k = bytes - 1; k >= 0; --k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
  return out;
}

// An IDX file: magic (0, 0, type, axes), big-endian dims, then `payload` (already big-endian).
std::string idx_bytes(unsigned char type, const std::vector<std::uint32_t>& dims, const std::string& payload) {
  std::string out = {0, 0, static_cast<char>(type), static_cast<char>(dims.size())};
  for (std::uint32_t d : dims) out += big_endian(d, 4);
  return out + payload;
}

std::string gzip(const std::string& bytes, const std::string& path) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(f);
  return read_bytes(path);
}

// The decompressed bytes of a gzip file, read with zlib directly (the oracle for the readers).
std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  std::string out;
  char buffer[1 << 16];
  int n;
  while ((n = gzread(f, buffer, sizeof buffer)) > 0) out.append(buffer, static_cast<std::size_t>(n));
  gzclose(f);
  return out;
}

std::string test_data() {
  const char* dir = std::getenv("SYMX_TEST_DATA");
  return dir ? dir : "data";
}

std::vector<std::int64_t> ints(const sx::Array& a) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = 0; i < a.size(); ++i) out.push_back(static_cast<std::int64_t>(a.get_flat(i)));
  return out;
}

// ---- IDX ----

TEST(DataIdx, ReadsEveryTypeRawAndGzip) {
  TempDir dir;
  struct Case {
    unsigned char type;
    std::string payload;
    sx::DType dtype;
    std::vector<double> values;
  };
  std::vector<Case> cases = {
      {0x08, std::string("\x00\x01\x7f\x80\xfe\xff", 6), sx::u8, {0, 1, 127, 128, 254, 255}},
      {0x09, std::string("\x00\x01\x7f\x80\xfe\xff", 6), sx::i32, {0, 1, 127, -128, -2, -1}},
      {0x0B,
       big_endian(1, 2) + big_endian(0xffff, 2) + big_endian(0x8000, 2) + big_endian(300, 2) + big_endian(0, 2) +
           big_endian(0x7fff, 2),
       sx::i32,
       {1, -1, -32768, 300, 0, 32767}},
      {0x0C,
       big_endian(1, 4) + big_endian(0xffffffff, 4) + big_endian(0x80000000, 4) + big_endian(70000, 4) +
           big_endian(0, 4) + big_endian(0x7fffffff, 4),
       sx::i32,
       {1, -1, -2147483648.0, 70000, 0, 2147483647}},
      // 1.0f = 0x3f800000, -2.5f = 0xc0200000, 0.5f = 0x3f000000
      {0x0D,
       big_endian(0x3f800000, 4) + big_endian(0xc0200000, 4) + big_endian(0x3f000000, 4) + big_endian(0, 4) +
           big_endian(0x3f800000, 4) + big_endian(0x3f000000, 4),
       sx::f32,
       {1, -2.5, 0.5, 0, 1, 0.5}},
      // 1.0 = 0x3ff0000000000000, -3.0 = 0xc008000000000000
      {0x0E,
       big_endian(0x3ff0000000000000ULL, 8) + big_endian(0xc008000000000000ULL, 8) + big_endian(0, 8) +
           big_endian(0x3ff0000000000000ULL, 8) + big_endian(0, 8) + big_endian(0xc008000000000000ULL, 8),
       sx::f64,
       {1, -3, 0, 1, 0, -3}},
  };
  for (const Case& c : cases) {
    const std::string bytes = idx_bytes(c.type, {2, 3}, c.payload);
    write_bytes(dir / "a.idx", bytes);
    gzip(bytes, dir / "a.idx.gz");
    for (const std::string& p : {dir / "a.idx", dir / "a.idx.gz"}) {
      sx::Array a = data::read_idx(p);
      EXPECT_EQ(a.shape(), (sx::Shape{2, 3})) << p;
      EXPECT_EQ(a.dtype(), c.dtype) << p;
      EXPECT_EQ(a.to_vector(), c.values) << p << " type " << int(c.type);
    }
  }
}

TEST(DataIdx, EmptyAndOneAxis) {
  TempDir dir;
  write_bytes(dir / "e.idx", idx_bytes(0x08, {0, 28, 28}, ""));
  EXPECT_EQ(data::read_idx(dir / "e.idx").shape(), (sx::Shape{0, 28, 28}));
  write_bytes(dir / "l.idx", idx_bytes(0x08, {3}, "\x01\x02\x03"));
  EXPECT_EQ(ints(data::read_idx(dir / "l.idx")), (std::vector<std::int64_t>{1, 2, 3}));
}

TEST(DataIdx, TruncatedExtraAndMalformedFilesAreIOErrors) {
  TempDir dir;
  const std::string full = idx_bytes(0x08, {10, 4, 4}, std::string(160, '\x07'));
  write_bytes(dir / "t.idx", full.substr(0, 16 + 100));
  expect_error<sx::IOError>([&] { data::read_idx(dir / "t.idx"); },
                            {dir / "t.idx", "shape (10, 4, 4) of uint8 (160 bytes)",
                             "the file has 100 bytes after the 16-byte header", "truncated", "download it again"});
  gzip(full.substr(0, 16 + 100), dir / "t.idx.gz");
  expect_error<sx::IOError>([&] { data::read_idx(dir / "t.idx.gz"); },
                            {"t.idx.gz", "(160 bytes)", "100 bytes after the 16-byte header (decompressed)",
                             "truncated"});
  write_bytes(dir / "x.idx", full + "zz");
  expect_error<sx::IOError>([&] { data::read_idx(dir / "x.idx"); },
                            {"162 bytes after the 16-byte header", "extra data"});
  write_bytes(dir / "m.idx", "PK\x03\x04 not idx at all");
  expect_error<sx::IOError>([&] { data::read_idx(dir / "m.idx"); },
                            {"m.idx", "is not an IDX file", "0x50 0x4b 0x03 0x04"});
  write_bytes(dir / "h.idx", full.substr(0, 9));
  expect_error<sx::IOError>([&] { data::read_idx(dir / "h.idx"); }, {"3 axes (16 header bytes)", "ends after 9 bytes"});
  write_bytes(dir / "s.idx", std::string(2, '\0'));
  expect_error<sx::IOError>([&] { data::read_idx(dir / "s.idx"); }, {"has 2 bytes", "4-byte magic"});
  // A header announcing far more than the gzip stream can hold is refused before allocating.
  gzip(idx_bytes(0x0E, {0xffffffff, 0xffffffff, 16}, "abc"), dir / "huge.idx.gz");
  expect_error<sx::IOError>([&] { data::read_idx(dir / "huge.idx.gz"); }, {"huge.idx.gz"});
  gzip(idx_bytes(0x0E, {0x10000, 0x10000}, "abc"), dir / "big.idx.gz");
  expect_error<sx::IOError>([&] { data::read_idx(dir / "big.idx.gz"); },
                            {"big.idx.gz", "(34359738368 bytes)", "3 bytes after the 12-byte header (decompressed)",
                             "truncated"});
  // A corrupt deflate stream: flip bytes in the middle of the compressed data.
  std::string gz = gzip(full, dir / "c.idx.gz");
  std::string broken = gz;
  for (std::size_t i = 12; i < broken.size() - 8; ++i) broken[i] = static_cast<char>(broken[i] ^ 0x5a);
  write_bytes(dir / "c.idx.gz", broken);
  expect_error<sx::IOError>([&] { data::read_idx(dir / "c.idx.gz"); }, {"c.idx.gz"});
  // A wrong CRC in the gzip trailer.
  broken = gz;
  broken[broken.size() - 6] = static_cast<char>(broken[broken.size() - 6] ^ 1);
  write_bytes(dir / "crc.idx.gz", broken);
  expect_error<sx::IOError>([&] { data::read_idx(dir / "crc.idx.gz"); }, {"crc.idx.gz", "gzip stream is corrupt"});
  expect_error<sx::IOError>([&] { data::read_idx(dir / "nothing.idx"); }, {"nothing.idx", "does not exist"});
}

// ---- MNIST ----

void write_mnist(const TempDir& dir, const std::string& prefix, std::uint32_t images, std::uint32_t labels, bool gz) {
  std::string pixels, label_bytes;
  for (std::uint32_t i = 0; i < images * 4 * 3; ++i) pixels.push_back(static_cast<char>(i * 7 % 256));
  for (std::uint32_t i = 0; i < labels; ++i) label_bytes.push_back(static_cast<char>(i % 10));
  const std::string x = idx_bytes(0x08, {images, 4, 3}, pixels), y = idx_bytes(0x08, {labels}, label_bytes);
  if (gz) {
    gzip(x, dir / (prefix + "-images-idx3-ubyte.gz"));
    gzip(y, dir / (prefix + "-labels-idx1-ubyte.gz"));
  } else {
    write_bytes(dir / (prefix + "-images-idx3-ubyte"), x);
    write_bytes(dir / (prefix + "-labels-idx1-ubyte"), y);
  }
}

// A gzip file cut anywhere, its 8-byte CRC and length trailer included, is an error: the data may
// all be there, but unchecked (the probe's file loaded without its CRC check).
TEST(DataIdx, GzipMustEndWithItsTrailer) {
  TempDir dir;
  const std::string full = idx_bytes(0x08, {10, 4, 4}, std::string(160, '\x07'));
  const std::string gz = gzip(full, dir / "whole.idx.gz");
  EXPECT_EQ(data::read_idx(dir / "whole.idx.gz").size(), 160);
  for (std::size_t cut = 1; cut <= 8; ++cut) {
    write_bytes(dir / "cut.idx.gz", gz.substr(0, gz.size() - cut));
    expect_error<sx::IOError>([&] { data::read_idx(dir / "cut.idx.gz"); },
                              {"cut.idx.gz", "gzip stream is cut short", "CRC trailer", "truncated"});
  }
  // Concatenated members are one stream (as gzip -d reads them); other bytes after it are not.
  const std::string second = gzip(full.substr(100), dir / "b.gz");
  write_bytes(dir / "two.idx.gz", gzip(full.substr(0, 100), dir / "a.gz") + second);
  EXPECT_EQ(data::read_idx(dir / "two.idx.gz").size(), 160);
  write_bytes(dir / "tail.idx.gz", gz + "trailing junk");
  expect_error<sx::IOError>([&] { data::read_idx(dir / "tail.idx.gz"); }, {"followed by bytes that are not gzip"});
}

// A FIFO or a link to a device is refused without blocking or reading forever.
TEST(DataIdx, OnlyRegularFilesAreRead) {
  TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "fifo.idx").c_str(), 0600), 0);
  expect_error<sx::IOError>([&] { data::read_idx(dir / "fifo.idx"); }, {"fifo.idx", "not a regular file"});
  fs::create_symlink("/dev/zero", dir / "zero.idx");
  expect_error<sx::IOError>([&] { data::read_idx(dir / "zero.idx"); }, {"zero.idx", "not a regular file"});
}

TEST(DataMnist, GeneratedFilesRawAndGzip) {
  TempDir dir;
  write_mnist(dir, "train", 5, 5, true);
  write_mnist(dir, "t10k", 3, 3, false);
  data::Dataset train = data::load_mnist(dir.path.string());
  EXPECT_EQ(train.x.shape(), (sx::Shape{5, 1, 4, 3}));
  EXPECT_EQ(train.x.dtype(), sx::u8);
  EXPECT_EQ(train.y.dtype(), sx::i64);
  EXPECT_EQ(ints(train.y), (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  for (std::int64_t i = 0; i < train.x.size(); ++i) ASSERT_EQ(train.x.get_flat(i), static_cast<double>(i * 7 % 256));
  data::Dataset test = data::load_fashion_mnist(dir.path.string(), "test");
  EXPECT_EQ(test.size(), 3);
}

TEST(DataMnist, Errors) {
  TempDir dir;
  expect_error<sx::IOError>([&] { data::load_mnist(dir / "absent"); },
                            {"absent", "does not exist", "train-images-idx3-ubyte.gz", "symx data download mnist"});
  expect_error<sx::IOError>([&] { data::load_mnist(dir.path.string()); },
                            {"no train-images-idx3-ubyte[.gz]", "train-labels-idx1-ubyte.gz"});
  expect_error<sx::ValueError>([&] { data::load_mnist(dir.path.string(), "validation"); },
                               {"'validation'", "\"train\""});
  write_mnist(dir, "train", 5, 4, true);
  expect_error<sx::IOError>([&] { data::load_mnist(dir.path.string()); },
                            {"train-images-idx3-ubyte.gz' holds 5 images",
                             "train-labels-idx1-ubyte.gz' holds 4 labels"});
  gzip(idx_bytes(0x08, {5}, std::string("\x01\x02\x0c\x00\x01", 5)), dir / "train-labels-idx1-ubyte.gz");
  expect_error<sx::IOError>([&] { data::load_mnist(dir.path.string()); }, {"label 12 at index 2", "outside 0..9"});
}

TEST(DataMnist, RealDigits) {
  const std::string dir = test_data() + "/mnist";
  data::Dataset d = data::load_mnist(dir);
  ASSERT_EQ(d.x.shape(), (sx::Shape{8000, 1, 28, 28}));
  EXPECT_EQ(d.x.dtype(), sx::u8);
  ASSERT_EQ(d.y.shape(), (sx::Shape{8000}));
  // The oracle: the decompressed bytes, read with zlib here, after the 16- and 8-byte headers.
  const std::string images = gunzip(dir + "/train-images-idx3-ubyte.gz");
  const std::string labels = gunzip(dir + "/train-labels-idx1-ubyte.gz");
  ASSERT_EQ(images.size(), 16u + 8000u * 784u);
  ASSERT_EQ(labels.size(), 8u + 8000u);
  EXPECT_EQ(std::memcmp(d.x.raw_data(), images.data() + 16, 8000 * 784), 0);
  std::map<std::int64_t, std::int64_t> expected, found;
  for (std::size_t i = 8; i < labels.size(); ++i) ++expected[static_cast<unsigned char>(labels[i])];
  for (std::int64_t v : ints(d.y)) ++found[v];
  EXPECT_EQ(found, expected);
  EXPECT_EQ(found.size(), 10u);
  EXPECT_EQ(found.begin()->first, 0);
  EXPECT_EQ(found.rbegin()->first, 9);
}

// ---- CIFAR ----

// `records` CIFAR records: label bytes (one, or coarse and fine) then 3072 pixels = (record + k) % 256.
std::string cifar_bytes(int records, int first, bool hundred) {
  std::string out;
  for (int r = first; r < first + records; ++r) {
    if (hundred) out.push_back(static_cast<char>(r % 20));
    out.push_back(static_cast<char>(r % (hundred ? 100 : 10)));
    for (int k = 0; k < 3072; ++k) out.push_back(static_cast<char>((r + k) % 256));
  }
  return out;
}

void expect_cifar(const data::Dataset& d, int records, int first, int classes) {
  ASSERT_EQ(d.x.shape(), (sx::Shape{records, 3, 32, 32}));
  ASSERT_EQ(d.y.shape(), (sx::Shape{records}));
  EXPECT_EQ(d.x.dtype(), sx::u8);
  EXPECT_EQ(d.y.dtype(), sx::i64);
  const auto* x = d.x.data<std::uint8_t>();
  for (int i = 0; i < records; ++i) {
    const int r = first + i;
    ASSERT_EQ(d.y.get_flat(i), r % classes) << i;
    for (int k = 0; k < 3072; k += 97) ASSERT_EQ(x[i * 3072 + k], (r + k) % 256) << i << " " << k;
  }
}

TEST(DataCifar, Cifar10BatchesInFolderOrSubfolder) {
  TempDir dir;
  write_bytes(dir / "data_batch_1.bin", cifar_bytes(3, 0, false));
  write_bytes(dir / "data_batch_3.bin", cifar_bytes(2, 3, false));  // 2, 4, 5 absent: those present are read
  write_bytes(dir / "test_batch.bin", cifar_bytes(4, 50, false));
  expect_cifar(data::load_cifar10(dir.path.string()), 5, 0, 10);
  expect_cifar(data::load_cifar10(dir.path.string(), "test"), 4, 50, 10);
  fs::create_directories(dir.path / "cifar-10-batches-bin");
  fs::rename(dir / "data_batch_1.bin", dir / "cifar-10-batches-bin/data_batch_1.bin");
  fs::remove(dir / "data_batch_3.bin");
  expect_cifar(data::load_cifar10(dir.path.string()), 3, 0, 10);
}

TEST(DataCifar, Cifar100FineAndCoarse) {
  TempDir dir;
  fs::create_directories(dir.path / "cifar-100-binary");
  write_bytes(dir / "cifar-100-binary/train.bin", cifar_bytes(120, 0, true));
  write_bytes(dir / "cifar-100-binary/test.bin", cifar_bytes(2, 7, true));
  expect_cifar(data::load_cifar100(dir.path.string()), 120, 0, 100);
  expect_cifar(data::load_cifar100(dir.path.string(), "train", "coarse"), 120, 0, 20);
  expect_cifar(data::load_cifar100(dir.path.string(), "test"), 2, 7, 100);
  expect_error<sx::ValueError>([&] { data::load_cifar100(dir.path.string(), "train", "medium"); },
                               {"'medium'", "fine"});
}

TEST(DataCifar, Errors) {
  TempDir dir;
  expect_error<sx::IOError>([&] { data::load_cifar10(dir.path.string()); },
                            {"no data_batch_1.bin", "cifar-10-batches-bin", "symx data download cifar10"});
  expect_error<sx::IOError>([&] { data::load_cifar10(dir / "nowhere", "test"); }, {"nowhere", "does not exist"});
  write_bytes(dir / "data_batch_1.bin", cifar_bytes(3, 0, false).substr(0, 3 * 3073 - 10));
  expect_error<sx::IOError>([&] { data::load_cifar10(dir.path.string()); },
                            {"data_batch_1.bin' has 9209 bytes", "3073-byte records",
                             "2 records and 3063 bytes left over", "truncated"});
  write_bytes(dir / "data_batch_1.bin", "");
  expect_error<sx::IOError>([&] { data::load_cifar10(dir.path.string()); }, {"has 0 bytes"});
  std::string bad = cifar_bytes(2, 0, false);
  bad[3073] = 10;
  write_bytes(dir / "data_batch_1.bin", bad);
  expect_error<sx::IOError>([&] { data::load_cifar10(dir.path.string()); }, {"record 1 has label 10", "outside 0..9"});
  write_bytes(dir / "train.bin", cifar_bytes(1, 0, false));  // a CIFAR-10 record is not a CIFAR-100 one
  expect_error<sx::IOError>([&] { data::load_cifar100(dir.path.string()); },
                            {"train.bin' has 3073 bytes", "3074-byte records"});
}

// ---- .npy / .npz ----

TEST(DataArrays, NpzAndNpy) {
  TempDir dir;
  sx::Array x = sx::testing::random_array({5, 2, 3}, 0, 1, 4, sx::f32);
  sx::Array y = sx::Array::from_vector<std::int32_t>({0, 1, 2, 1, 0}, {5});
  sx::save_npz(dir / "d.npz", {{"x", x}, {"y", y}, {"images", x}, {"labels", y}});
  data::Dataset d = data::load_arrays(dir / "d.npz");
  EXPECT_TRUE(d.x.equals(x));
  EXPECT_EQ(ints(d.y), (std::vector<std::int64_t>{0, 1, 2, 1, 0}));
  EXPECT_EQ(d.y.dtype(), sx::i64);
  EXPECT_TRUE(data::load_arrays(dir / "d.npz", "images", "labels").x.equals(x));
  EXPECT_EQ(data::load_arrays(dir / "d.npz", "x", "").y.size(), 0);
  x.save_npy(dir / "x.npy");
  data::Dataset only = data::load_arrays(dir / "x.npy");
  EXPECT_TRUE(only.x.equals(x));
  EXPECT_EQ(only.y.size(), 0);
  EXPECT_EQ(only.size(), 5);
  expect_error<sx::IOError>([&] { data::load_arrays(dir / "d.npz", "pixels"); },
                            {"no array 'pixels'", "'images', 'labels', 'x', 'y'"});
  sx::save_npz(dir / "m.npz", {{"x", x}, {"y", sx::Array::from_vector<std::int64_t>({1, 2}, {2})}});
  expect_error<sx::IOError>([&] { data::load_arrays(dir / "m.npz"); }, {"5 examples in 'x' but 2 labels in 'y'"});
  sx::save_npz(dir / "f.npz", {{"x", x}, {"y", sx::Array({1.f, 2.f, 3.f, 4.f, 5.f})}});
  expect_error<sx::IOError>([&] { data::load_arrays(dir / "f.npz"); }, {"labels 'y' are float32", "integers"});
  write_bytes(dir / "d.csv", "1,2\n");
  expect_error<sx::IOError>([&] { data::load_arrays(dir / "d.csv"); }, {"'.csv'", ".npz"});
  expect_error<sx::IOError>([&] { data::load_arrays(dir / "none.npz"); }, {"none.npz", "does not exist"});
}

// ---- permutation and splits ----

TEST(DataSplit, PermutationIsPortable) {
  // Pinned values from an independent implementation (Python) of Fisher-Yates over splitmix64.
  EXPECT_EQ(data::permutation(10, 42), (std::vector<std::int64_t>{0, 9, 5, 8, 6, 4, 7, 2, 1, 3}));
  EXPECT_EQ(data::permutation(10, 0), (std::vector<std::int64_t>{6, 3, 2, 9, 8, 1, 4, 7, 0, 5}));
  EXPECT_EQ(data::permutation(1, 5), (std::vector<std::int64_t>{0}));
  EXPECT_TRUE(data::permutation(0, 5).empty());
  std::vector<std::int64_t> p = data::permutation(1000, 7);
  std::sort(p.begin(), p.end());
  for (std::int64_t i = 0; i < 1000; ++i) ASSERT_EQ(p[static_cast<std::size_t>(i)], i);
}

data::Dataset numbered(std::int64_t n, std::int64_t classes) {
  data::Dataset d;
  d.x = sx::Array::arange(0, static_cast<double>(n), 1, sx::i64).reshape({n, 1});
  std::vector<std::int64_t> y;
  for (std::int64_t i = 0; i < n; ++i) y.push_back(i % classes);
  d.y = sx::Array::from_vector(y, {n});
  return d;
}

TEST(DataSplit, SizesDisjointDeterministic) {
  data::Dataset d = numbered(100, 10);
  auto [train, test] = data::train_test_split(d, 30, 3);
  EXPECT_EQ(train.size(), 70);
  EXPECT_EQ(test.size(), 30);
  std::set<std::int64_t> all;
  for (std::int64_t v : ints(train.x)) all.insert(v);
  for (std::int64_t v : ints(test.x)) all.insert(v);
  EXPECT_EQ(all.size(), 100u);
  // Labels travel with their examples.
  for (std::int64_t i = 0; i < test.size(); ++i) EXPECT_EQ(test.y.get_flat(i), std::fmod(test.x.get_flat(i), 10));
  auto [train2, test2] = data::train_test_split(d, 30, 3);
  EXPECT_TRUE(test2.x.equals(test.x));
  EXPECT_TRUE(train2.x.equals(train.x));
  auto [train3, test3] = data::train_test_split(d, 30, 4);
  EXPECT_FALSE(test3.x.equals(test.x));
  // The test part is the first 30 of the permutation for this seed (documented algorithm).
  auto [t0, t1] = data::train_test_split(d, 0, 3);
  EXPECT_EQ(t0.size(), 100);
  EXPECT_EQ(t1.size(), 0);
  expect_error<sx::ValueError>([&] { data::train_test_split(d, 101, 0); }, {"test_size is 101", "100 examples"});
}

TEST(DataSplit, StratifiedKeepsShares) {
  // 50 of class 0, 30 of class 1, 20 of class 2.
  data::Dataset d;
  std::vector<std::int64_t> y;
  for (int i = 0; i < 100; ++i) y.push_back(i < 50 ? 0 : i < 80 ? 1 : 2);
  d.x = sx::Array::arange(0, 100, 1, sx::i64);
  d.y = sx::Array::from_vector(y, {100});
  for (std::uint64_t seed : {0u, 1u, 2u}) {
    auto [train, test] = data::train_test_split(d, 10, seed, true);
    std::map<std::int64_t, int> share;
    for (std::int64_t v : ints(test.y)) ++share[v];
    EXPECT_EQ(share, (std::map<std::int64_t, int>{{0, 5}, {1, 3}, {2, 2}}));
    EXPECT_EQ(train.size(), 90);
  }
  // Largest remainder: 7 of (50, 30, 20) -> exact 3.5, 2.1, 1.4 -> 3 + 2 + 1 = 6, the extra one to class 0.
  auto [train, test] = data::train_test_split(d, 7, 0, true);
  std::map<std::int64_t, int> share;
  for (std::int64_t v : ints(test.y)) ++share[v];
  EXPECT_EQ(share, (std::map<std::int64_t, int>{{0, 4}, {1, 2}, {2, 1}}));
}

// ---- statistics, standardize, one-hot ----

TEST(DataTransforms, ChannelStatsAndStandardize) {
  sx::Array x = sx::testing::random_array({4, 3, 2, 5}, 0, 255, 9, sx::u8);
  auto [mean, std] = data::channel_stats(x);
  ASSERT_EQ(mean.shape(), (sx::Shape{3}));
  EXPECT_EQ(mean.dtype(), sx::f32);
  for (int c = 0; c < 3; ++c) {
    double s = 0, ss = 0;
    for (int n = 0; n < 4; ++n)
      for (int k = 0; k < 10; ++k) s += x.get_flat((n * 3 + c) * 10 + k);
    const double m = s / 40;
    for (int n = 0; n < 4; ++n)
      for (int k = 0; k < 10; ++k) ss += std::pow(x.get_flat((n * 3 + c) * 10 + k) - m, 2);
    EXPECT_NEAR(mean.get_flat(c), m, 1e-4);
    EXPECT_NEAR(std.get_flat(c), std::sqrt(ss / 40), 1e-4);
  }
  sx::Array z = data::standardize(x, mean, std);
  EXPECT_EQ(z.dtype(), sx::f32);
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const std::int64_t c = i / 10 % 3;
    EXPECT_NEAR(z.get_flat(i), (x.get_flat(i) - mean.get_flat(c)) / std.get_flat(c), 1e-5);
  }
  auto [zm, zs] = data::channel_stats(z);
  sx::testing::expect_close(zm, {0, 0, 0}, 0, 1e-5);
  sx::testing::expect_close(zs, {1, 1, 1}, 1e-5, 1e-5);
  expect_error<sx::ValueError>([&] { data::standardize(x, mean, sx::Array({1.f, 0.f, 1.f})); }, {"std[1]", "positive"});
  expect_error<sx::ShapeError>([&] { data::standardize(x, sx::Array({1.f}), std); },
                               {"mean has shape (1,)", "3 channels"});
  expect_error<sx::ShapeError>([&] { data::channel_stats(sx::Array({1.f, 2.f})); }, {"at least 2 axes"});
}

TEST(DataTransforms, OneHot) {
  sx::Array y = sx::Array::from_vector<std::int64_t>({2, 0, 1, 2}, {4});
  sx::Array h = data::one_hot(y, 3);
  EXPECT_EQ(h.shape(), (sx::Shape{4, 3}));
  EXPECT_EQ(h.dtype(), sx::f32);
  EXPECT_EQ(h.to_vector(), (std::vector<double>{0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(data::one_hot(sx::Array::from_vector<std::uint8_t>({1}, {1}), 2, sx::i64).dtype(), sx::i64);
  expect_error<sx::ValueError>([&] { data::one_hot(y, 2); }, {"label 2 at index 0", "[0, 2)"});
  expect_error<sx::ValueError>([&] { data::one_hot(sx::Array::from_vector<std::int64_t>({-1}, {1}), 2); },
                               {"label -1"});
  expect_error<sx::DTypeError>([&] { data::one_hot(sx::Array({1.f}), 2); }, {"float32", "integers"});
}

// ---- the batch iterator ----

// Every batch of one epoch, as lists of example numbers (x holds each example's index).
std::vector<std::vector<std::int64_t>> epoch_of(data::BatchIterator& it) {
  std::vector<std::vector<std::int64_t>> out;
  while (auto b = it.next()) {
    EXPECT_EQ((*b)[0].shape()[0], (*b)[1].shape()[0]);
    for (std::int64_t i = 0; i < (*b)[0].shape()[0]; ++i)
      EXPECT_EQ((*b)[1].get_flat(i), std::fmod((*b)[0].get_flat(i), 10));
    out.push_back(ints((*b)[0]));
  }
  return out;
}

TEST(DataIterator, EveryExampleOncePerEpochWithAndWithoutDropLast) {
  data::Dataset d = numbered(103, 10);
  for (bool drop : {false, true}) {
    data::BatchIterator it({d.x, d.y}, {.batch_size = 10, .seed = 5, .drop_last = drop});
    EXPECT_EQ(it.batches_per_epoch(), drop ? 10 : 11);
    EXPECT_EQ(it.size(), 103);
    std::vector<std::vector<std::int64_t>> previous;
    for (int epoch = 0; epoch < 3; ++epoch) {
      auto batches = epoch_of(it);
      ASSERT_EQ(static_cast<std::int64_t>(batches.size()), drop ? 10 : 11);
      std::multiset<std::int64_t> seen;
      for (std::size_t b = 0; b < batches.size(); ++b) {
        EXPECT_EQ(batches[b].size(), (!drop && b == 10) ? 3u : 10u);
        seen.insert(batches[b].begin(), batches[b].end());
      }
      EXPECT_EQ(seen.size(), drop ? 100u : 103u);
      EXPECT_EQ(std::set<std::int64_t>(seen.begin(), seen.end()).size(), seen.size());  // no repeats
      EXPECT_NE(batches, previous) << "epoch " << epoch << " has the same order as the one before";
      previous = batches;
      EXPECT_EQ(it.state(), (data::IteratorState{5, epoch + 1, 0}));
    }
  }
}

TEST(DataIterator, OrderFollowsSeedAndEpochOnly) {
  data::Dataset d = numbered(50, 10);
  data::BatchIterator a({d.x, d.y}, {.batch_size = 8, .seed = 11, .prefetch = 0});
  data::BatchIterator b({d.x, d.y}, {.batch_size = 8, .seed = 11, .prefetch = 2});
  data::BatchIterator c({d.x, d.y}, {.batch_size = 8, .seed = 12});
  data::BatchIterator plain({d.x, d.y}, {.batch_size = 8, .shuffle = false});
  for (int epoch = 0; epoch < 3; ++epoch) {
    auto ea = epoch_of(a);
    EXPECT_EQ(ea, epoch_of(b));
    EXPECT_NE(ea, epoch_of(c));
    // Epoch e's order is permutation(n, derived seed): every batch in order is consecutive slices of it.
    auto ep = epoch_of(plain);
    std::vector<std::int64_t> flat;
    for (auto& batch : ep) flat.insert(flat.end(), batch.begin(), batch.end());
    for (std::int64_t i = 0; i < 50; ++i) EXPECT_EQ(flat[static_cast<std::size_t>(i)], i);
  }
}

TEST(DataIterator, TransformsGetSeedsOfSeedEpochBatch) {
  data::Dataset d = numbered(20, 10);
  auto record = std::make_shared<std::vector<std::uint64_t>>();
  auto make = [&](std::int64_t prefetch) {
    data::BatchOptions o{.batch_size = 6, .seed = 3, .prefetch = prefetch};
    o.transforms.push_back([](std::vector<sx::Array> b, std::uint64_t seed) {
      // Adds seed % 1000 to x (as float) and keeps y: the batches show the seed they were given.
      sx::Array x = b[0].astype(sx::f64);
      for (std::int64_t i = 0; i < x.size(); ++i)
        x.set_flat(i, x.get_flat(i) + 1000.0 * static_cast<double>(seed % 1000));
      return std::vector<sx::Array>{x, b[1]};
    });
    return o;
  };
  data::BatchIterator a({d.x, d.y}, make(0)), b({d.x, d.y}, make(3));
  std::set<std::int64_t> seeds;
  for (int epoch = 0; epoch < 2; ++epoch)
    for (;;) {
      auto ba = a.next(), bb = b.next();
      ASSERT_EQ(ba.has_value(), bb.has_value());
      if (!ba) break;
      EXPECT_TRUE((*ba)[0].equals((*bb)[0]));
      seeds.insert(static_cast<std::int64_t>((*ba)[0].get_flat(0)) / 1000);
    }
  EXPECT_GE(seeds.size(), 7u);  // 8 batches over 2 epochs, nearly all with distinct seeds
}

TEST(DataIterator, RestoreContinuesExactly) {
  data::Dataset d = numbered(37, 10);
  for (std::int64_t prefetch : {0, 1, 3}) {
    data::BatchIterator whole({d.x, d.y}, {.batch_size = 5, .seed = 9, .prefetch = prefetch});
    std::vector<std::vector<std::int64_t>> reference;
    for (int epoch = 0; epoch < 3; ++epoch)
      for (auto& b : epoch_of(whole)) reference.push_back(b);
    // Stop after 10 batches (in epoch 1), save, continue in a new iterator.
    data::BatchIterator first({d.x, d.y}, {.batch_size = 5, .seed = 9, .prefetch = prefetch});
    std::vector<std::vector<std::int64_t>> resumed;
    for (int k = 0; k < 8; ++k) resumed.push_back(ints((*first.next())[0]));
    EXPECT_FALSE(first.next().has_value());
    for (int k = 0; k < 2; ++k) resumed.push_back(ints((*first.next())[0]));
    const data::IteratorState saved = first.state();
    EXPECT_EQ(saved, (data::IteratorState{9, 1, 2}));
    data::BatchIterator second({d.x, d.y}, {.batch_size = 5, .seed = 9, .prefetch = prefetch});
    second.next();  // its thread runs ahead; restore discards that
    second.restore(saved);
    while (resumed.size() < reference.size())
      if (auto b = second.next()) resumed.push_back(ints((*b)[0]));
    EXPECT_EQ(resumed, reference) << "prefetch " << prefetch;
  }
  data::BatchIterator it({d.x, d.y}, {.batch_size = 5, .seed = 9});
  expect_error<sx::ValueError>([&] { it.restore({8, 0, 0}); }, {"seed 8", "seed 9"});
  expect_error<sx::ValueError>([&] { it.restore({9, 0, 9}); }, {"batch 9", "8 batches"});
}

TEST(DataIterator, TransformErrorsSurfaceWithTheBatch) {
  data::Dataset d = numbered(30, 10);
  for (std::int64_t prefetch : {0, 2}) {
    data::BatchOptions o{.batch_size = 10, .shuffle = false, .prefetch = prefetch};
    o.transforms.push_back([](std::vector<sx::Array> b, std::uint64_t) { return b; });
    o.transforms.push_back([](std::vector<sx::Array> b, std::uint64_t) {
      if (b[0].get_flat(0) == 10) throw sx::ValueError("no tens here");
      return b;
    });
    data::BatchIterator it({d.x, d.y}, o);
    ASSERT_TRUE(it.next().has_value());
    expect_error<sx::ValueError>([&] { it.next(); },
                                 {"transform 1 (of 2) failed on batch 1 of epoch 0", "no tens here"});
    EXPECT_EQ(it.state(), (data::IteratorState{0, 0, 1}));
    // The failed batch is tried again: it fails again, deterministically.
    expect_error<sx::ValueError>([&] { it.next(); }, {"batch 1 of epoch 0"});
    // A foreign exception keeps its type.
    data::BatchOptions p{.batch_size = 10, .prefetch = prefetch};
    p.transforms.push_back(
        [](std::vector<sx::Array>, std::uint64_t) -> std::vector<sx::Array> { throw std::out_of_range("oops"); });
    data::BatchIterator it2({d.x}, p);
    EXPECT_THROW(it2.next(), std::out_of_range);
  }
}

TEST(DataIterator, DestroyingMidEpochWithASlowTransformReturns) {
  data::Dataset d = numbered(1000, 10);
  auto calls = std::make_shared<std::atomic<int>>(0);
  data::BatchOptions o{.batch_size = 4, .prefetch = 2};
  o.transforms.push_back([calls](std::vector<sx::Array> b, std::uint64_t) {
    ++*calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return b;
  });
  const auto begin = std::chrono::steady_clock::now();
  {
    data::BatchIterator it({d.x, d.y}, o);
    it.next();
    it.next();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  EXPECT_LT(seconds, 5.0);
  EXPECT_LE(calls->load(), 6);  // the thread stopped: it did not run on through the epoch
  // Never started, and restored without a next(): nothing to join, nothing hangs.
  { data::BatchIterator idle({d.x, d.y}, o); }
}

TEST(DataIterator, BatchesAreFreshAndWaitIsCounted) {
  data::Dataset d = numbered(12, 10);
  data::BatchIterator it({d.x, d.y}, {.batch_size = 4, .shuffle = false});
  auto b0 = it.next();
  auto b1 = it.next();
  EXPECT_EQ(ints((*b0)[0]), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_TRUE((*b0)[0].is_unique());
  EXPECT_NE((*b0)[0].raw_data(), d.x.raw_data());
  EXPECT_GE(it.wait_seconds(), 0.0);
}

TEST(DataIterator, EdgeCasesAndErrors) {
  data::Dataset d = numbered(3, 10);
  data::BatchIterator none({d.x}, {.batch_size = 5, .drop_last = true});
  EXPECT_EQ(none.batches_per_epoch(), 0);
  EXPECT_FALSE(none.next().has_value());
  EXPECT_EQ(none.state().epoch, 1);
  data::BatchIterator empty({sx::Array::zeros({0, 2})}, {.batch_size = 5});
  EXPECT_FALSE(empty.next().has_value());
  expect_error<sx::ShapeError>(
      [&] {
        data::BatchIterator({d.x, sx::Array::zeros({4})});
      },
      {"array 1 has shape (4,)", "(3, 1)"});
  expect_error<sx::ValueError>([&] { data::BatchIterator({d.x}, {.batch_size = 0}); }, {"batch_size is 0"});
  expect_error<sx::ValueError>([&] { data::BatchIterator({d.x}, {.prefetch = -1}); }, {"prefetch is -1"});
  expect_error<sx::ValueError>([&] { data::BatchIterator({}, {}); }, {"no arrays"});
}

// The probe's case: batch_size 2^62 with 4 shards wrapped the global batch to 0 and divided by it
// (SIGFPE). Under the sanitizer build UBSan reports any signed overflow left on these paths.
TEST(DataIterator, HugeBatchSizesAreRangeErrorsOrWork) {
  data::Dataset d = numbered(7, 10);
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  expect_error<sx::ValueError>([&] { data::BatchIterator({d.x}, {.batch_size = std::int64_t{1} << 62, .shards = 4}); },
                               {"batch_size 4611686018427387904 times shards 4", "more than 2^63 - 1",
                                "below 2305843009213693951"});
  expect_error<sx::ValueError>([&] { data::BatchIterator({d.x}, {.batch_size = max, .shard = 1, .shards = 2}); },
                               {"times shards 2"});
  // The largest batches that fit: one batch of every example, each shard its part of the 7.
  data::BatchIterator whole({d.x}, {.batch_size = max, .prefetch = 0});
  EXPECT_EQ(whole.batches_per_epoch(), 1);
  EXPECT_EQ(whole.next()->at(0).shape()[0], 7);
  std::int64_t seen = 0;
  for (std::int64_t k = 0; k < 3; ++k) {
    data::BatchIterator part({d.x}, {.batch_size = max / 3, .prefetch = 0, .shard = k, .shards = 3});
    EXPECT_EQ(part.batches_per_epoch(), 1);
    seen += part.next()->at(0).shape()[0];
  }
  EXPECT_EQ(seen, 7);
}

}  // namespace

namespace {

TEST(DataTransforms, BuiltInBatchTransforms) {
  sx::Array x = sx::Array::from_vector<std::uint8_t>({0, 50, 100, 200, 0, 0, 3, 6, 9}, {3, 3});
  sx::Array y = sx::Array::from_vector<std::int64_t>({1, 2, 3}, {3});
  auto out = data::divide_by_max()({x, y}, 0);
  EXPECT_EQ(out[0].dtype(), sx::f32);
  sx::testing::expect_close(out[0], {0, 0.5, 1, 1, 0, 0, 1.f / 3, 2.f / 3, 1}, 1e-7);
  EXPECT_TRUE(out[1].equals(y));
  out = data::to_float32(0.5)({x, y}, 0);
  sx::testing::expect_close(out[0], {0, 25, 50, 100, 0, 0, 1.5, 3, 4.5});
  sx::Array img = sx::testing::random_array({4, 2, 3}, 0, 9, 1, sx::f32);
  auto [mean, std] = data::channel_stats(img);
  EXPECT_TRUE(data::standardize_channels(mean, std)({img}, 0)[0].equals(data::standardize(img, mean, std)));
  expect_error<sx::ValueError>([&] { data::to_float32(1.0, 2)({x, y}, 0); }, {"array 2", "2 arrays"});
}

}  // namespace

namespace {

// Random next() and restore() calls, with a transform of random duration so that the thread is
// caught at every stage, against the batches of an uninterrupted iterator without a thread.
TEST(DataIterator, RandomNextAndRestoreMatchTheReference) {
  data::Dataset d = numbered(23, 10);
  const int epochs = 4;
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<std::int64_t>> reference;
  data::BatchIterator plain({d.x, d.y}, {.batch_size = 4, .seed = 3, .prefetch = 0});
  for (int e = 0; e < epochs; ++e)
    for (std::int64_t b = 0; auto batch = plain.next(); ++b) reference[{e, b}] = ints((*batch)[0]);
  data::BatchOptions o{.batch_size = 4, .seed = 3, .prefetch = 3};
  o.transforms.push_back([](std::vector<sx::Array> b, std::uint64_t seed) {
    std::this_thread::sleep_for(std::chrono::microseconds(seed % 300));
    return b;
  });
  data::BatchIterator it({d.x, d.y}, o);
  std::mt19937_64 rng(1);
  for (int op = 0; op < 300; ++op) {
    if (rng() % 5 == 0) {
      it.restore({3, static_cast<std::int64_t>(rng() % (epochs - 1)), static_cast<std::int64_t>(rng() % 7)});
      continue;
    }
    const data::IteratorState at = it.state();
    if (at.epoch >= epochs) {
      it.restore({3, 0, 0});
      continue;
    }
    auto batch = it.next();
    ASSERT_EQ(batch.has_value(), at.batch < 6) << op;
    if (batch) {
      ASSERT_EQ(ints((*batch)[0]), (reference[{at.epoch, at.batch}])) << "op " << op;
    }
  }
}

}  // namespace
