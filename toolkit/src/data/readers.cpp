// toolkit/src/data/readers.cpp: the IDX (MNIST, Fashion-MNIST), CIFAR-10/100 binary and .npy/.npz
// readers. Files are untrusted: every size a header announces is checked against the file's
// length (for gzip, against what the stream can hold) before anything is allocated, and every
// problem is an IOError that names the file, what was expected and what was found.
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>

#include "data_internal.hpp"
#include "symx/io.hpp"

namespace symx::data {
namespace {

namespace fs = std::filesystem;
using detail::bytes_text;

// Deflate cannot expand data more than about 1032:1; a gzip file that would have to hold more
// than this many bytes per compressed byte is truncated, whatever its header says.
constexpr std::uint64_t kMaxDeflateRatio = 1032;
constexpr int kMaxIdxAxes = 8;

std::string in_quotes(const std::string& path) { return "'" + path + "'"; }

std::uint64_t checked_file_size(const std::string& path, const std::string& op) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw IOError(op + ": " + in_quotes(path) + " does not exist. Check the path.");
  if (fs::is_directory(path, ec))
    throw IOError(op + ": " + in_quotes(path) + " is a folder, not a file. Pass the path of the file.");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) throw IOError(op + ": cannot read " + in_quotes(path) + ": " + ec.message());
  return size;
}

// The largest data file read (compressed or not): far above any data set, below what a link to a
// huge device or sparse file would make read_idx stream for hours.
constexpr std::uint64_t kMaxDataFileBytes = std::uint64_t{1} << 38;

// A data file read through zlib's inflate: a gzip stream is inflated (every member up to its CRC
// and length trailer, which must be there: a stream cut anywhere, the trailer included, is an
// IOError), another file read as it is. The file is checked to be a regular file of bounded size
// first, so a FIFO or a link to /dev/zero is refused instead of blocking or growing without end.
class DataReader {
 public:
  DataReader(const std::string& path, const std::string& op) : path_(path), op_(op), in_(1 << 17) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw IOError(op + ": " + in_quotes(path) + " does not exist. Check the path.");
    fd_ = open_regular_file(path, kMaxDataFileBytes, op.c_str(), &file_size_);
    try {
      while (available() < 2 && fill()) {}
    } catch (...) {
      ::close(fd_);
      throw;
    }
    gz_ = available() >= 2 && in_[0] == 0x1f && in_[1] == 0x8b;
    if (gz_ && inflateInit2(&z_, 16 + MAX_WBITS) != Z_OK) {
      ::close(fd_);
      throw std::bad_alloc();
    }
  }
  ~DataReader() {
    if (gz_) inflateEnd(&z_);
    ::close(fd_);
  }
  DataReader(const DataReader&) = delete;
  DataReader& operator=(const DataReader&) = delete;

  bool gz() const { return gz_; }
  std::uint64_t file_size() const { return file_size_; }

  // Reads up to `n` bytes into `out`; returns how many were read (fewer only at the end of the
  // data). A corrupt or cut gzip stream is an IOError.
  std::uint64_t read(void* out, std::uint64_t n) {
    auto* to = static_cast<unsigned char*>(out);
    std::uint64_t done = 0;
    while (done < n && !ended_) {
      if (available() == 0 && !fill()) {
        if (gz_) throw_cut();
        ended_ = true;
        break;
      }
      done += gz_ ? inflate_some(to + done, n - done) : copy_some(to + done, n - done);
    }
    total_ += done;
    return done;
  }
  // Reads to the end of the data and returns how many bytes there were.
  std::uint64_t count_rest() {
    std::vector<char> scratch(1 << 16);
    std::uint64_t n = 0;
    for (;;) {
      const std::uint64_t got = read(scratch.data(), scratch.size());
      n += got;
      if (got < scratch.size()) return n;
    }
  }

 private:
  std::uint64_t available() const { return z_.avail_in; }
  // Reads the next chunk of the file into the input buffer; false at its end.
  bool fill() {
    if (eof_) return false;
    const std::size_t kept = z_.avail_in;
    if (kept > 0 && z_.next_in != in_.data()) std::memmove(in_.data(), z_.next_in, kept);
    for (;;) {
      const ssize_t got = ::read(fd_, in_.data() + kept, in_.size() - kept);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) throw IOError(op_ + ": cannot read " + in_quotes(path_) + ": " + std::strerror(errno));
      z_.next_in = in_.data();
      z_.avail_in = static_cast<uInt>(kept + static_cast<std::size_t>(got));
      if (got == 0) eof_ = true;
      return got > 0;
    }
  }
  std::uint64_t copy_some(unsigned char* to, std::uint64_t n) {
    const std::uint64_t k = std::min<std::uint64_t>(n, z_.avail_in);
    std::memcpy(to, z_.next_in, k);
    z_.next_in += k;
    z_.avail_in -= static_cast<uInt>(k);
    return k;
  }
  std::uint64_t inflate_some(unsigned char* to, std::uint64_t n) {
    z_.next_out = to;
    z_.avail_out = static_cast<uInt>(std::min<std::uint64_t>(n, 1u << 30));
    const uInt before = z_.avail_out;
    const int code = inflate(&z_, Z_NO_FLUSH);
    const std::uint64_t produced = before - z_.avail_out;
    if (code == Z_STREAM_END) {
      end_member();
    } else if (code != Z_OK && !(code == Z_BUF_ERROR && z_.avail_in == 0)) {
      total_ += produced;
      throw_corrupt();
    }
    return produced;
  }
  // After a member's trailer: the end of the data, or another member (gzip files may be
  // concatenated); anything else is an error.
  void end_member() {
    if (available() == 0) fill();
    if (available() == 0) {
      ended_ = true;
      return;
    }
    if (z_.next_in[0] != 0x1f)
      throw IOError(op_ + ": " + in_quotes(path_) +
                    ": the gzip stream is followed by bytes that are not gzip data. The file is damaged: "
                    "download it again.");
    inflateReset(&z_);
  }
  [[noreturn]] void throw_cut() {
    throw IOError(op_ + ": " + in_quotes(path_) + ": the gzip stream is cut short after " + bytes_text(total_) +
                  " of data (it ends before its end marker and CRC trailer, so it cannot be checked). The file is "
                  "truncated: download it again.");
  }
  [[noreturn]] void throw_corrupt() {
    throw IOError(op_ + ": " + in_quotes(path_) + ": the gzip stream is corrupt after " + bytes_text(total_) +
                  " of data (zlib: " + (z_.msg ? z_.msg : "unknown error") +
                  "). The file is damaged: download it again.");
  }

  std::string path_, op_;
  int fd_ = -1;
  std::uint64_t file_size_ = 0, total_ = 0;
  std::vector<unsigned char> in_;
  z_stream z_{};
  bool gz_ = false, eof_ = false, ended_ = false;
};

struct IdxType {
  unsigned char code;
  const char* name;
  std::size_t size;  // bytes per element in the file
  DType dtype;       // the dtype of the array read
};
constexpr std::array<IdxType, 6> kIdxTypes = {{{0x08, "uint8", 1, DType::u8},
                                               {0x09, "int8", 1, DType::i32},
                                               {0x0B, "int16", 2, DType::i32},
                                               {0x0C, "int32", 4, DType::i32},
                                               {0x0D, "float32", 4, DType::f32},
                                               {0x0E, "float64", 8, DType::f64}}};

std::string hex_byte(unsigned char b) {
  static const char* digits = "0123456789abcdef";
  return std::string("0x") + digits[b >> 4] + digits[b & 15];
}

const IdxType& idx_type(const unsigned char magic[4], const std::string& path) {
  for (const IdxType& t : kIdxTypes)
    if (magic[0] == 0 && magic[1] == 0 && magic[2] == t.code && magic[3] >= 1 && magic[3] <= kMaxIdxAxes) return t;
  throw IOError("read_idx: " + in_quotes(path) + " is not an IDX file: it starts with " + hex_byte(magic[0]) + " " +
                hex_byte(magic[1]) + " " + hex_byte(magic[2]) + " " + hex_byte(magic[3]) +
                " but an IDX file starts with 0x00 0x00, a type code (0x08 uint8, 0x09 int8, 0x0b int16, 0x0c "
                "int32, 0x0d float32, 0x0e float64) and the number of axes (1 to 8). Check that this is the "
                "right file, or download it again.");
}

// Converts `count` big-endian elements of the file's type in `bytes` into `out` (host order).
void convert_big_endian(const IdxType& type, const unsigned char* bytes, std::uint64_t count, Array& out) {
  auto load = [&](std::uint64_t i, std::size_t size) {
    std::uint64_t v = 0;
    for (std::size_t k = 0; k < size; ++k) v = v << 8 | bytes[i * size + k];
    return v;
  };
  switch (type.code) {
    case 0x09: {
      auto* o = out.data<std::int32_t>();
      for (std::uint64_t i = 0; i < count; ++i) o[i] = static_cast<std::int8_t>(bytes[i]);
      return;
    }
    case 0x0B: {
      auto* o = out.data<std::int32_t>();
      for (std::uint64_t i = 0; i < count; ++i)
        o[i] = static_cast<std::int16_t>(static_cast<std::uint16_t>(load(i, 2)));
      return;
    }
    default: throw InternalError("convert_big_endian: unexpected IDX type");
  }
}

// Swaps 4- or 8-byte elements in place from big-endian to host order.
void swap_in_place(Array& a, std::size_t size) {
  if constexpr (std::endian::native == std::endian::big) return;
  auto* p = static_cast<unsigned char*>(a.raw_data());
  const std::uint64_t n = static_cast<std::uint64_t>(a.size());
  for (std::uint64_t i = 0; i < n; ++i) std::reverse(p + i * size, p + (i + 1) * size);
}

[[noreturn]] void throw_idx_size(const std::string& path, const Shape& shape, const IdxType& type,
                                 std::uint64_t header_bytes, std::uint64_t expected, std::uint64_t found,
                                 bool found_is_lower_bound, bool gz) {
  std::ostringstream msg;
  msg << "read_idx: " << in_quotes(path) << ": the IDX header says shape " << shape_string(shape) << " of " << type.name
      << " (" << bytes_text(expected) << ") but the file has " << (found_is_lower_bound ? "more than " : "")
      << bytes_text(found) << " after the " << header_bytes << "-byte header" << (gz ? " (decompressed)" : "");
  if (found < expected) msg << "; the file is truncated: download it again.";
  else msg << "; the file has extra data or a wrong header: check that it is an IDX file, or download it again.";
  throw IOError(msg.str());
}

Array make_array(const Shape& shape, DType dtype, const std::string& op, const std::string& path) {
  std::string problem = shape_problem(shape, dtype);
  if (!problem.empty())
    throw IOError(op + ": " + in_quotes(path) + ": the header announces shape " + shape_string(shape) +
                  ", which cannot be an array: " + problem + ". The file is damaged: download it again.");
  return Array::empty(shape, dtype);
}

}  // namespace

Array read_idx(const std::string& path) {
  DataReader in(path, "read_idx");
  const std::uint64_t file_size = in.file_size();
  const bool gz = in.gz();
  unsigned char magic[4];
  const std::uint64_t got_magic = in.read(magic, 4);
  if (got_magic < 4)
    throw IOError("read_idx: " + in_quotes(path) + " has " + bytes_text(got_magic) + (gz ? " (decompressed)" : "") +
                  " but an IDX file starts with a 4-byte magic number. The file is truncated or not an IDX file.");
  const IdxType& type = idx_type(magic, path);
  const int axes = magic[3];
  const std::uint64_t header_bytes = 4 + 4 * static_cast<std::uint64_t>(axes);
  unsigned char dims[4 * kMaxIdxAxes];
  const std::uint64_t got_dims = in.read(dims, 4 * static_cast<std::uint64_t>(axes));
  if (got_dims < 4 * static_cast<std::uint64_t>(axes))
    throw IOError("read_idx: " + in_quotes(path) + ": the header announces " + std::to_string(axes) + " axes (" +
                  std::to_string(header_bytes) + " header bytes) but the file ends after " + bytes_text(4 + got_dims) +
                  (gz ? " (decompressed)" : "") + ". The file is truncated: download it again.");
  Shape shape;
  for (int k = 0; k < axes; ++k) {
    const unsigned char* d = dims + 4 * k;
    shape.push_back(static_cast<std::int64_t>(std::uint32_t{d[0]} << 24 | std::uint32_t{d[1]} << 16 |
                                              std::uint32_t{d[2]} << 8 | std::uint32_t{d[3]}));
  }
  // The file's element size is at most the array's, so the array's check bounds the file's size too.
  const std::string problem = shape_problem(shape, type.dtype);
  if (!problem.empty())
    throw IOError("read_idx: " + in_quotes(path) + ": the IDX header announces shape " + shape_string(shape) +
                  ", which cannot be an array: " + problem + ". The file is damaged: download it again.");
  const std::uint64_t expected = static_cast<std::uint64_t>(num_elements(shape)) * type.size;
  if (!gz && file_size - header_bytes != expected)
    throw_idx_size(path, shape, type, header_bytes, expected, file_size - header_bytes, false, false);
  if (gz && expected > file_size * kMaxDeflateRatio)
    throw_idx_size(path, shape, type, header_bytes, expected, in.count_rest(), false, true);

  // The data, in a buffer grown as it arrives: the header's size is only a claim (a 1 MiB gzip file
  // may announce a gigabyte), so memory follows what the stream holds.
  std::unique_ptr<unsigned char, decltype(&std::free)> bytes(nullptr, &std::free);
  std::uint64_t got = 0, capacity = 0;
  while (got < expected) {
    const std::uint64_t grown = std::min(expected, std::max<std::uint64_t>(2 * capacity, 1 << 20));
    auto* p = static_cast<unsigned char*>(std::realloc(bytes.get(), grown));
    if (!p) throw std::bad_alloc();
    bytes.release();
    bytes.reset(p);
    capacity = grown;
    const std::uint64_t n = in.read(p + got, capacity - got);
    got += n;
    if (got < capacity) break;
  }
  if (got < expected) throw_idx_size(path, shape, type, header_bytes, expected, got, false, gz);
  unsigned char extra;
  if (in.read(&extra, 1) > 0) throw_idx_size(path, shape, type, header_bytes, expected, expected, true, gz);
  Array out = Array::empty(shape, type.dtype);
  if (type.size < itemsize(type.dtype)) {
    convert_big_endian(type, bytes.get(), expected / type.size, out);
  } else {
    if (expected > 0) std::memcpy(out.raw_data(), bytes.get(), expected);
    if (type.size > 1) swap_in_place(out, type.size);
  }
  return out;
}

std::int64_t Dataset::size() const { return x.ndim() == 0 ? 0 : x.shape()[0]; }

namespace {

std::string check_split(const std::string& op, const std::string& split) {
  if (split != "train" && split != "test")
    throw ValueError(op + ": split " + in_quotes(split) +
                     " is neither 'train' nor 'test'. Pass \"train\" or \"test\".");
  return split;
}

void check_folder(const std::string& op, const std::string& dir, const std::string& expected,
                  const std::string& dataset) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw IOError(op + ": the folder " + in_quotes(dir) + " does not exist; it should hold " + expected +
                  ". Download them with `symx data download " + dataset + " --dir " + dir + "`.");
}

// dir/name.gz or dir/name, whichever exists.
std::string find_idx_file(const std::string& op, const std::string& dir, const std::string& name,
                          const std::string& expected, const std::string& dataset) {
  for (const std::string& candidate : {name + ".gz", name}) {
    std::error_code ec;
    fs::path p = fs::path(dir) / candidate;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  throw IOError(op + ": no " + name + "[.gz] in " + in_quotes(dir) + "; the folder should hold " + expected +
                " (gzip-compressed or raw). Download them with `symx data download " + dataset + " --dir " + dir +
                "`.");
}

Array labels_to_int64(const Array& labels, std::int64_t classes, const std::string& op, const std::string& path) {
  Array y = Array::empty({labels.size()}, DType::i64);
  const auto* in = labels.data<std::uint8_t>();
  auto* out = y.data<std::int64_t>();
  for (std::int64_t i = 0; i < labels.size(); ++i) {
    if (in[i] >= classes)
      throw IOError(op + ": " + in_quotes(path) + ": label " + std::to_string(in[i]) + " at index " +
                    std::to_string(i) + " is outside 0.." + std::to_string(classes - 1) +
                    ". The file is damaged: download it again.");
    out[i] = in[i];
  }
  return y;
}

Dataset load_idx_pair(const std::string& op, const std::string& dir, const std::string& split,
                      const std::string& dataset) {
  check_split(op, split);
  const std::string prefix = split == "train" ? "train" : "t10k";
  const std::string images_name = prefix + "-images-idx3-ubyte", labels_name = prefix + "-labels-idx1-ubyte";
  const std::string expected = images_name + ".gz and " + labels_name + ".gz";
  check_folder(op, dir, expected, dataset);
  const std::string images_path = find_idx_file(op, dir, images_name, expected, dataset);
  const std::string labels_path = find_idx_file(op, dir, labels_name, expected, dataset);
  Array images = read_idx(images_path);
  if (images.dtype() != DType::u8 || images.ndim() != 3)
    throw IOError(op + ": " + in_quotes(images_path) + " holds " + std::string(dtype_name(images.dtype())) +
                  " of shape " + shape_string(images.shape()) +
                  " but images are uint8 of shape (N, rows, columns). Check that " +
                  "this is the images file, or download it again.");
  Array labels = read_idx(labels_path);
  if (labels.dtype() != DType::u8 || labels.ndim() != 1)
    throw IOError(op + ": " + in_quotes(labels_path) + " holds " + std::string(dtype_name(labels.dtype())) +
                  " of shape " + shape_string(labels.shape()) + " but labels are uint8 of shape (N,). Check that " +
                  "this is the labels file, or download it again.");
  if (labels.shape()[0] != images.shape()[0])
    throw IOError(op + ": " + in_quotes(images_path) + " holds " + std::to_string(images.shape()[0]) + " images but " +
                  in_quotes(labels_path) + " holds " + std::to_string(labels.shape()[0]) +
                  " labels; they must match. One of the files is from another set or damaged: download both again.");
  Dataset d;
  d.x = images.reshape({images.shape()[0], 1, images.shape()[1], images.shape()[2]});
  d.y = labels_to_int64(labels, 10, op, labels_path);
  return d;
}

// ---- CIFAR ----

struct CifarLayout {
  std::string op, dataset, subfolder;
  std::int64_t label_bytes;  // 1 (CIFAR-10) or 2 (CIFAR-100: coarse, fine)
  std::int64_t label_index;  // which label byte is kept
  std::int64_t classes;
};
constexpr std::int64_t kCifarPixels = 3 * 32 * 32;

// `dir` itself or its subfolder, whichever holds `first`.
std::string cifar_folder(const CifarLayout& layout, const std::string& dir, const std::string& first,
                         const std::string& expected) {
  std::error_code ec;
  const fs::path sub = fs::path(dir) / layout.subfolder;
  if (fs::is_regular_file(fs::path(dir) / first, ec)) return dir;
  if (fs::is_regular_file(sub / first, ec)) return sub.string();
  check_folder(layout.op, dir, expected, layout.dataset);
  throw IOError(layout.op + ": no " + first + " in " + in_quotes(dir) + " nor in " + in_quotes(sub.string()) +
                "; the folder should hold " + expected + ". Download them with `symx data download " + layout.dataset +
                " --dir " + dir + "`.");
}

// Reads the records of one file into x and y from example `offset` on.
void read_cifar_records(const CifarLayout& layout, const std::string& path, std::int64_t records, Array& x, Array& y,
                        std::int64_t offset) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError(layout.op + ": cannot open " + in_quotes(path) + ": " + std::strerror(errno));
  const std::int64_t record = layout.label_bytes + kCifarPixels;
  constexpr std::int64_t kChunk = 1024;
  std::vector<unsigned char> buffer(static_cast<std::size_t>(kChunk * record));
  auto* pixels = x.data<std::uint8_t>();
  auto* labels = y.data<std::int64_t>();
  for (std::int64_t start = 0; start < records; start += kChunk) {
    const std::int64_t n = std::min(kChunk, records - start);
    in.read(reinterpret_cast<char*>(buffer.data()), static_cast<std::streamsize>(n * record));
    if (in.gcount() != n * record)
      throw IOError(layout.op + ": " + in_quotes(path) +
                    " became shorter while it was read. Do not change it meanwhile.");
    for (std::int64_t r = 0; r < n; ++r) {
      const unsigned char* rec = buffer.data() + r * record;
      const std::int64_t i = offset + start + r;
      const unsigned label = rec[layout.label_index];
      if (label >= layout.classes)
        throw IOError(layout.op + ": " + in_quotes(path) + ": record " + std::to_string(start + r) + " has label " +
                      std::to_string(label) + ", outside 0.." + std::to_string(layout.classes - 1) +
                      ". The file is damaged, or from another data set: download it again.");
      labels[i] = label;
      std::memcpy(pixels + i * kCifarPixels, rec + layout.label_bytes, kCifarPixels);
    }
  }
}

Dataset load_cifar(const CifarLayout& layout, const std::vector<std::string>& names, bool all_required,
                   const std::string& dir, const std::string& expected) {
  const std::string folder = cifar_folder(layout, dir, names.front(), expected);
  const std::int64_t record = layout.label_bytes + kCifarPixels;
  std::vector<std::pair<std::string, std::int64_t>> files;
  std::int64_t total = 0;
  for (const std::string& name : names) {
    const fs::path p = fs::path(folder) / name;
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) {
      if (all_required)
        throw IOError(layout.op + ": no " + name + " in " + in_quotes(folder) + "; the folder should hold " + expected +
                      ".");
      continue;
    }
    const std::uint64_t size = checked_file_size(p.string(), layout.op);
    if (size == 0 || size % static_cast<std::uint64_t>(record) != 0)
      throw IOError(layout.op + ": " + in_quotes(p.string()) + " has " + bytes_text(size) + ", which is not a whole " +
                    "number of " + std::to_string(record) + "-byte records (" + std::to_string(layout.label_bytes) +
                    " label byte" + (layout.label_bytes > 1 ? "s" : "") +
                    " and 3072 pixel bytes each): " + std::to_string(size / static_cast<std::uint64_t>(record)) +
                    " records and " + bytes_text(size % static_cast<std::uint64_t>(record)) +
                    " left over. The file is truncated or damaged: download it again.");
    files.emplace_back(p.string(), static_cast<std::int64_t>(size / static_cast<std::uint64_t>(record)));
    total += files.back().second;
  }
  Dataset d;
  d.x = make_array({total, 3, 32, 32}, DType::u8, layout.op, folder);
  d.y = Array::empty({total}, DType::i64);
  std::int64_t offset = 0;
  for (const auto& [path, records] : files) {
    read_cifar_records(layout, path, records, d.x, d.y, offset);
    offset += records;
  }
  return d;
}

}  // namespace

Dataset load_mnist(const std::string& dir, const std::string& split) {
  return load_idx_pair("load_mnist", dir, split, "mnist");
}

Dataset load_fashion_mnist(const std::string& dir, const std::string& split) {
  return load_idx_pair("load_fashion_mnist", dir, split, "fashion-mnist");
}

Dataset load_cifar10(const std::string& dir, const std::string& split) {
  check_split("load_cifar10", split);
  const CifarLayout layout{"load_cifar10", "cifar10", "cifar-10-batches-bin", 1, 0, 10};
  if (split == "test") return load_cifar(layout, {"test_batch.bin"}, true, dir, "test_batch.bin");
  return load_cifar(layout,
                    {"data_batch_1.bin", "data_batch_2.bin", "data_batch_3.bin", "data_batch_4.bin",
                     "data_batch_5.bin"},
                    false, dir, "data_batch_1.bin .. data_batch_5.bin");
}

Dataset load_cifar100(const std::string& dir, const std::string& split, const std::string& labels) {
  check_split("load_cifar100", split);
  if (labels != "fine" && labels != "coarse")
    throw ValueError("load_cifar100: labels " + in_quotes(labels) +
                     " is neither 'fine' nor 'coarse'. Pass \"fine\" "
                     "(100 classes) or \"coarse\" (20 superclasses).");
  const bool fine = labels == "fine";
  const CifarLayout layout{"load_cifar100", "cifar100", "cifar-100-binary", 2, fine ? 1 : 0, fine ? 100 : 20};
  const std::string name = split + ".bin";
  return load_cifar(layout, {name}, true, dir, name);
}

Dataset load_arrays(const std::string& path, const std::string& x_key, const std::string& y_key) {
  checked_file_size(path, "load_arrays");
  const std::string ext = fs::path(path).extension().string();
  Dataset d;
  d.y = Array::empty({0}, DType::i64);
  if (ext == ".npy") {
    d.x = Array::load_npy(path);
  } else if (ext == ".npz") {
    std::map<std::string, Array> arrays = load_npz(path);
    std::string keys;
    for (const auto& [k, v] : arrays) keys += (keys.empty() ? "" : ", ") + in_quotes(k);
    auto find = [&](const std::string& key) -> const Array& {
      auto it = arrays.find(key);
      if (it == arrays.end())
        throw IOError("load_arrays: " + in_quotes(path) + " has no array " + in_quotes(key) + "; it holds " +
                      (keys.empty() ? std::string("none") : keys) + ". Pass x_key and y_key to choose others.");
      return it->second;
    };
    d.x = find(x_key);
    if (!y_key.empty()) d.y = find(y_key);
  } else {
    throw IOError("load_arrays: " + in_quotes(path) + " ends in " + in_quotes(ext) +
                  " but load_arrays reads .npz (arrays " +
                  "x and y) or .npy (examples only). Save the data with numpy.savez or numpy.save.");
  }
  if (d.x.ndim() == 0)
    throw IOError("load_arrays: " + in_quotes(path) +
                  ": the examples are a scalar; they need a first axis of examples.");
  if (!y_key.empty() && ext == ".npz") {
    if (d.y.ndim() != 1 || !(is_integer(d.y.dtype()) || d.y.dtype() == DType::b8))
      throw IOError("load_arrays: " + in_quotes(path) + ": labels " + in_quotes(y_key) + " are " +
                    std::string(dtype_name(d.y.dtype())) + " of shape " + shape_string(d.y.shape()) +
                    " but labels are integers of shape (N,). Pass y_key=\"\" for data without labels.");
    if (d.y.shape()[0] != d.x.shape()[0])
      throw IOError("load_arrays: " + in_quotes(path) + ": " + std::to_string(d.x.shape()[0]) + " examples in " +
                    in_quotes(x_key) + " but " + std::to_string(d.y.shape()[0]) + " labels in " + in_quotes(y_key) +
                    "; they must match.");
    d.y = d.y.astype(DType::i64);
  }
  return d;
}

}  // namespace symx::data
