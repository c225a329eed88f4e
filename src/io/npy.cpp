// NumPy's .npy format: Array::load_npy and Array::save_npy.
//
// The loader treats the file as untrusted. It parses the header the way numpy.lib.format does (a
// Python dict literal with exactly the keys 'descr', 'fortran_order' and 'shape'), checks the
// shape for overflow and the data size against the file size before allocating, and reports every
// problem as an IOError that names the file and the field.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "io/files.hpp"
#include "io/npy.hpp"
#include "symx/array.hpp"

namespace symx {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
// NumPy refuses headers over 10,000 bytes unless told otherwise; symx allows more (a 64-d shape of
// 20-digit sizes fits easily) but bounds what a hostile length field can make it read.
constexpr std::size_t kMaxHeaderBytes = 1 << 20;
// NumPy's limit on the number of dimensions (NPY_MAXDIMS).
constexpr std::size_t kMaxDims = 64;

using io::NpyOrigin;

[[noreturn]] void npy_fail(const NpyOrigin& origin, const std::string& problem) {
  throw IOError(origin.where + ": " + problem + ". " + origin.fix);
}

// Reads exactly `n` bytes (retrying short reads); false at end of file or on an error.
bool read_fully(int fd, void* out, std::size_t n) {
  auto* p = static_cast<char*>(out);
  while (n > 0) {
    ssize_t got = ::read(fd, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<std::size_t>(got);
  }
  return true;
}

// ---- header parsing ----

struct RawHeader {
  std::string descr, fortran_order, shape;  // each value's text as written, quotes included
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// A cursor over the header text; each take_* returns false when the text does not match.
struct HeaderCursor {
  std::string_view text;
  std::size_t at = 0;
  void skip_space() {
    while (at < text.size() && is_space(text[at])) ++at;
  }
  bool take(char c) {
    skip_space();
    if (at >= text.size() || text[at] != c) return false;
    ++at;
    return true;
  }
  bool done() {
    skip_space();
    return at == text.size();
  }
  // A quoted string ('x' or "x", no escapes: NumPy never writes them in these fields).
  bool take_string(std::string& out) {
    skip_space();
    if (at >= text.size() || (text[at] != '\'' && text[at] != '"')) return false;
    std::size_t end = text.find(text[at], at + 1);
    if (end == std::string_view::npos) return false;
    out = std::string(text.substr(at, end + 1 - at));
    at = end + 1;
    return true;
  }
  // A value: a string, a bracketed group (kept whole for the field's own check), or a bare word.
  bool take_value(std::string& out) {
    skip_space();
    if (at >= text.size()) return false;
    if (text[at] == '\'' || text[at] == '"') return take_string(out);
    std::size_t start = at;
    if (text[at] == '(' || text[at] == '[') {
      std::size_t end = text.find(text[at] == '(' ? ')' : ']', at);
      if (end == std::string_view::npos) return false;
      at = end + 1;
    } else {
      while (at < text.size() && text[at] != ',' && text[at] != '}') ++at;
    }
    out = std::string(text.substr(start, at - start));
    while (!out.empty() && is_space(out.back())) out.pop_back();
    return !out.empty();
  }
};

// Splits the dict literal into its three values; anything else (a missing, extra or repeated key,
// junk after the closing brace) is an error, as in numpy.lib.format.
RawHeader split_header(const NpyOrigin& origin, std::string_view text) {
  const std::string expected = "; expected a dict such as {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }";
  HeaderCursor c{text};
  if (!c.take('{')) npy_fail(origin, "the header does not start with '{'" + expected);
  RawHeader raw;
  std::string* slots[] = {&raw.descr, &raw.fortran_order, &raw.shape};
  const char* names[] = {"'descr'", "'fortran_order'", "'shape'"};
  int seen = 0;
  while (!c.take('}')) {
    std::string key, value;
    if (!c.take_string(key) || !c.take(':') || !c.take_value(value))
      npy_fail(origin, "the header is not a well-formed dict after byte " + std::to_string(c.at) + expected);
    if (key.front() == '"') key = "'" + key.substr(1, key.size() - 2) + "'";
    int slot = -1;
    for (int i = 0; i < 3; ++i)
      if (key == names[i]) slot = i;
    if (slot < 0) npy_fail(origin, "the header has an unexpected key " + key + expected);
    if (seen & (1 << slot)) npy_fail(origin, "the header repeats the key " + key + expected);
    seen |= 1 << slot;
    *slots[slot] = value;
    if (!c.take(',')) {
      if (!c.take('}')) npy_fail(origin, "the header's entries are not separated by commas" + expected);
      break;
    }
  }
  if (!c.done()) npy_fail(origin, "the header has text after its closing '}'" + expected);
  for (int i = 0; i < 3; ++i)
    if (!(seen & (1 << i))) npy_fail(origin, std::string("the header has no key ") + names[i] + expected);
  return raw;
}

DType parse_descr(const NpyOrigin& origin, const std::string& descr) {
  struct Known {
    const char* text;
    DType dtype;
  };
  // '|' (no byte order) and '<' (little-endian) are both what NumPy writes on these machines.
  static constexpr Known known[] = {{"'|b1'", DType::b8},   {"'<b1'", DType::b8},  {"'|u1'", DType::u8},
                                    {"'<u1'", DType::u8},   {"'<i4'", DType::i32}, {"'<i8'", DType::i64},
                                    {"'<f4'", DType::f32},  {"'<f8'", DType::f64}, {"'<c8'", DType::c64},
                                    {"'<c16'", DType::c128}};
  std::string d = descr;
  if (d.size() >= 2 && d.front() == '"' && d.back() == '"') d = "'" + d.substr(1, d.size() - 2) + "'";
  for (const auto& k : known)
    if (d == k.text) return k.dtype;
  npy_fail(origin, "the header's 'descr' is " + descr +
                       "; expected one of '|b1', '|u1', '<i4', '<i8', '<f4', '<f8', '<c8', '<c16' (little-endian "
                       "bool, uint8, int32, int64, float32, float64, complex64, complex128)");
}

bool parse_fortran_order(const NpyOrigin& origin, const std::string& value) {
  if (value == "False") return false;
  if (value == "True") return true;
  npy_fail(origin, "the header's 'fortran_order' is '" + value + "'; expected True or False");
}

// One dimension: decimal digits without sign or leading zeros; false when malformed or over int64.
bool parse_dim(std::string_view token, std::int64_t& out) {
  if (token.empty() || token.size() > 19 || (token.size() > 1 && token[0] == '0')) return false;
  out = 0;
  for (char ch : token) {
    if (ch < '0' || ch > '9') return false;
    if (__builtin_mul_overflow(out, 10, &out) || __builtin_add_overflow(out, ch - '0', &out)) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// A Python tuple of non-negative ints: "()", "(3,)", "(3, 4)" or "(3, 4,)"; "(3)" is an int, not a tuple.
Shape parse_shape(const NpyOrigin& origin, const std::string& text) {
  auto fail = [&] {
    npy_fail(origin, "the header's 'shape' is '" + text +
                         "'; expected a tuple of non-negative integers such as (3, 4), (3,) or ()");
  };
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') fail();
  std::string_view inner = trim(std::string_view(text).substr(1, text.size() - 2));
  Shape shape;
  bool trailing_comma = false;
  while (!inner.empty()) {
    std::size_t comma = inner.find(',');
    std::int64_t dim = 0;
    if (!parse_dim(trim(inner.substr(0, comma)), dim) || shape.size() >= kMaxDims) fail();
    shape.push_back(dim);
    trailing_comma = comma != std::string_view::npos;
    inner = comma == std::string_view::npos ? std::string_view() : trim(inner.substr(comma + 1));
  }
  if (shape.size() == 1 && !trailing_comma) fail();
  return shape;
}

// ---- reading ----

struct Preamble {
  int major = 0;
  std::size_t header_len = 0, data_offset = 0;
};

// Reads the next `n` bytes of the .npy (from a file or from memory); false when they are not there.
using ReadBytes = std::function<bool(void* out, std::size_t n)>;

Preamble read_preamble(const NpyOrigin& origin, const ReadBytes& read, std::uint64_t file_size) {
  unsigned char head[12] = {};
  if (file_size < 10 || !read(head, 10) || std::memcmp(head, kMagic, 6) != 0)
    npy_fail(origin, "not a .npy file (it does not start with \\x93NUMPY)");
  Preamble p;
  p.major = head[6];
  if (head[7] != 0 || p.major < 1 || p.major > 3)
    npy_fail(origin, "unsupported format version " + std::to_string(head[6]) + "." + std::to_string(head[7]) +
                         "; symx reads versions 1.0, 2.0 and 3.0");
  p.header_len = head[8] | (head[9] << 8);
  p.data_offset = 10;
  if (p.major >= 2) {
    if (file_size < 12 || !read(head + 10, 2)) npy_fail(origin, "truncated header length");
    p.header_len |= static_cast<std::size_t>(head[10]) << 16 | static_cast<std::size_t>(head[11]) << 24;
    p.data_offset = 12;
  }
  if (p.header_len > kMaxHeaderBytes || p.header_len > file_size - p.data_offset)
    npy_fail(origin, "truncated header: its length field says " + std::to_string(p.header_len) + " bytes but " +
                         std::to_string(file_size - p.data_offset) + " follow it" +
                         (p.header_len > kMaxHeaderBytes ? " (and symx reads at most 1 MiB of header)" : ""));
  p.data_offset += p.header_len;
  return p;
}

// Reorders data written in Fortran order into `out`'s C order (element by element; the reference
// path for a rare case, not a fast one).
Array fortran_to_c(const Array& column_major) {
  const Shape& shape = column_major.shape();
  Array out = Array::empty(shape, column_major.dtype());
  const std::size_t item = itemsize(out.dtype()), n = shape.size();
  std::vector<std::int64_t> index(n, 0), stride(n, 1);
  for (std::size_t d = 1; d < n; ++d) stride[d] = stride[d - 1] * shape[d - 1];
  const auto* src = static_cast<const char*>(column_major.raw_data());
  auto* dst = static_cast<char*>(out.raw_data());
  for (std::int64_t flat = 0; flat < out.size(); ++flat) {
    std::int64_t from = 0;
    for (std::size_t d = 0; d < n; ++d) from += index[d] * stride[d];
    std::memcpy(dst + static_cast<std::size_t>(flat) * item, src + static_cast<std::size_t>(from) * item, item);
    for (std::size_t d = n; d-- > 0;) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// ---- writing ----

std::string npy_descr(DType dtype) {
  switch (dtype) {
    case DType::b8: return "|b1";
    case DType::u8: return "|u1";
    case DType::i32: return "<i4";
    case DType::i64: return "<i8";
    case DType::f32: return "<f4";
    case DType::f64: return "<f8";
    case DType::c64: return "<c8";
    case DType::c128: return "<c16";
  }
  return "";
}

}  // namespace

std::string io::npy_preamble(const Shape& shape, DType dtype) {
  std::string shape_text = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) shape_text += (i ? ", " : "") + std::to_string(shape[i]);
  shape_text += shape.size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + npy_descr(dtype) + "', 'fortran_order': False, 'shape': " + shape_text + ", }";
  const bool v2 = header.size() + 11 + 64 > 65535;  // version 2.0 only when a 2-byte length cannot hold it
  const std::size_t preamble = v2 ? 12 : 10;
  header += std::string((64 - (preamble + header.size() + 1) % 64) % 64, ' ') + "\n";
  std::string out(kMagic, 6);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  for (std::size_t i = 0; i < (v2 ? 4u : 2u); ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header;
}

namespace {

// The whole .npy: preamble, header fields, then the data, each checked against `file_size`.
Array read_npy(const NpyOrigin& origin, const ReadBytes& read, std::uint64_t file_size) {
  const Preamble pre = read_preamble(origin, read, file_size);
  std::string header(pre.header_len, '\0');
  if (!read(header.data(), header.size())) npy_fail(origin, "truncated header");
  RawHeader raw = split_header(origin, header);
  const DType dtype = parse_descr(origin, raw.descr);
  const bool fortran = parse_fortran_order(origin, raw.fortran_order);
  Shape shape = parse_shape(origin, raw.shape);
  if (std::string problem = shape_problem(shape, dtype); !problem.empty())
    npy_fail(origin, "the header's 'shape' is not a valid array shape: " + problem);
  const auto bytes = static_cast<std::uint64_t>(num_elements(shape)) * itemsize(dtype);
  if (bytes > file_size - pre.data_offset)
    npy_fail(origin, "truncated data: the header's 'shape' " + shape_string(shape) + " of " +
                         std::string(dtype_name(dtype)) + " needs " + std::to_string(bytes) +
                         " bytes but the file has " + std::to_string(file_size - pre.data_offset) +
                         " after the header");
  Array out = Array::empty(shape, dtype);
  if (bytes && !read(out.raw_data(), bytes)) npy_fail(origin, "truncated data (the file shrank while read)");
  // A bool byte other than 0 or 1 would be undefined behaviour in C++; NumPy reads it as True.
  if (dtype == DType::b8) {
    auto* p = static_cast<unsigned char*>(out.raw_data());
    for (std::uint64_t i = 0; i < bytes; ++i) p[i] = p[i] != 0;
  }
  return fortran && shape.size() > 1 ? fortran_to_c(out) : out;
}

}  // namespace

Array io::parse_npy(const NpyOrigin& origin, const unsigned char* data, std::size_t size) {
  std::size_t at = 0;
  return read_npy(
      origin,
      [&](void* out, std::size_t n) {
        if (n > size - at) return false;
        std::memcpy(out, data + at, n);
        at += n;
        return true;
      },
      size);
}

Array Array::load_npy(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below as not a regular file.
  io::FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (file.fd < 0)
    throw IOError("load_npy: cannot open '" + path + "' for reading (" + std::strerror(errno) + "). Check the path.");
  const NpyOrigin origin{"load_npy: " + path,
                         "Write the file with numpy.save from an array of bool, uint8, int32, int64, float32, float64, "
                         "complex64 or complex128."};
  struct stat info {};
  if (::fstat(file.fd, &info) != 0 || !S_ISREG(info.st_mode)) npy_fail(origin, "not a regular file");
  return read_npy(
      origin, [&](void* out, std::size_t n) { return read_fully(file.fd, out, n); },
      static_cast<std::uint64_t>(info.st_size));
}

void Array::save_npy(const std::string& path) const {
  const std::string preamble = io::npy_preamble(shape_, dtype_);
  io::write_file_atomically(path, "save_npy", [&](int fd) {
    io::write_all(fd, preamble.data(), preamble.size());
    io::write_all(fd, static_cast<const char*>(data_), nbytes());
  });
}

}  // namespace symx
