// Saving and loading variables in the safetensors format
// (https://huggingface.co/docs/safetensors): an 8-byte little-endian header length N, N bytes of
// JSON describing each tensor ({"dtype", "shape", "data_offsets": [begin, end]} relative to the
// data section, plus "__metadata__"), then the raw little-endian data.
//
// Loading validates a file as the reference implementation (huggingface/safetensors, tensor.rs)
// does, before any variable changes: a header length within the file and at most 100 MB, a UTF-8
// JSON object without duplicate keys, every entry with a known dtype, a shape whose byte size
// does not overflow and data_offsets of exactly that length, the entries' offsets contiguous from
// 0 and ending exactly at the end of the file. Only regular files are read, with reads bounded by
// what the header and the file size allow.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/files.hpp"
#include "symx/io.hpp"

namespace symx {
namespace {

using Fd = io::FileDescriptor;
using io::write_all;

static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes a little-endian host");

using ordered_json = nlohmann::ordered_json;

// The reference implementation's limit on the header length.
constexpr std::uint64_t max_header_bytes = 100'000'000;
const char* const format_fix = " Save the file with save_variables (or safetensors' save_file).";

const char* st_dtype(DType dtype) {
  switch (dtype) {
    case DType::b8: return "BOOL";
    case DType::u8: return "U8";
    case DType::i32: return "I32";
    case DType::i64: return "I64";
    case DType::f32: return "F32";
    case DType::f64: return "F64";
    case DType::c64: return "C64";  // safetensors' complex64; it has no complex128
    case DType::c128: return "";
  }
  return "";
}

std::optional<DType> parse_st_dtype(const std::string& name) {
  for (DType d : {DType::b8, DType::u8, DType::i32, DType::i64, DType::f32, DType::f64, DType::c64})
    if (name == st_dtype(d)) return d;
  return std::nullopt;
}

// Bits per element of every safetensors dtype, so that the layout of a file can be checked even
// for tensors of dtypes symx does not load.
std::optional<std::uint64_t> st_dtype_bits(const std::string& name) {
  static const std::map<std::string, std::uint64_t> bits = {
      {"BOOL", 8}, {"U8", 8},   {"I8", 8},    {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"I16", 16},
      {"U16", 16}, {"F16", 16}, {"BF16", 16}, {"I32", 32},    {"U32", 32},    {"F32", 32},    {"C64", 64},
      {"F64", 64}, {"I64", 64}, {"U64", 64},  {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6}};
  auto it = bits.find(name);
  if (it == bits.end()) return std::nullopt;
  return it->second;
}

std::string type_string(const Shape& shape, DType dtype) {
  return shape_string(shape) + " " + std::string(dtype_name(dtype));
}

std::vector<Tensor> resolve(const std::vector<Tensor>& vars, const char* what) {
  std::vector<Tensor> out;
  for (const Tensor& v : vars.empty() ? default_graph().variables() : vars) {
    if (v.op() != OpKind::Variable)
      throw ValueError(std::string(what) + ": '" + v.label() + "' is a " + op_name(v.op()) +
                       ", not a variable. Pass only variables (e.g. from variables()).");
    bool seen = false;
    for (const Tensor& o : out) {
      if (o == v) seen = true;
      else if (o.name() == v.name())
        throw ValueError(std::string(what) + ": two different variables are both named '" + v.name() +
                         "'. Give variables distinct names (use Scope) so that each has its own entry in the file.");
    }
    if (!seen) out.push_back(v);
  }
  return out;
}

std::string errno_text(int error) { return std::strerror(error); }

// ---------------------------------------------------------------------------------------------
// Bounded reading of a regular file.

// Opens `path` for reading and returns its size; anything but a regular file is an IOError
// (a FIFO would block, /dev/zero never ends, a directory cannot be read).
std::uint64_t open_regular_file(const std::string& path, const std::string& context, Fd& file) {
  // O_NONBLOCK: opening a FIFO without a writer must not block; it does not affect regular files.
  file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (file.fd < 0)
    throw IOError(context + ": cannot open the file for reading (" + errno_text(errno) + "). Check the path.");
  struct stat st {};
  if (::fstat(file.fd, &st) != 0)
    throw IOError(context + ": cannot inspect the file (" + errno_text(errno) + "). Check the path.");
  if (S_ISDIR(st.st_mode))
    throw IOError(context + ": expected a safetensors file but found a directory. Pass the path of a file.");
  if (!S_ISREG(st.st_mode))
    throw IOError(context +
                  ": expected a safetensors file but found a special file, not a regular file. "
                  "Pass the path of a regular file.");
  return static_cast<std::uint64_t>(st.st_size);
}

// Reads exactly `size` bytes at `offset`; a short read (the file shrank) is an IOError.
void read_at(const Fd& file, std::uint64_t offset, char* out, std::uint64_t size, const std::string& context) {
  while (size > 0) {
    ssize_t got = ::pread(file.fd, out, static_cast<std::size_t>(std::min<std::uint64_t>(size, 1 << 30)),
                          static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0)
      throw IOError(context + ": reading the file failed (" + errno_text(errno) + "). Check the file and the disk.");
    if (got == 0)
      throw IOError(context + ": the file is truncated: it ended at byte " + std::to_string(offset) +
                    " while being read (was it changed during the load?). Save the file again.");
    out += got, offset += static_cast<std::uint64_t>(got), size -= static_cast<std::uint64_t>(got);
  }
}

// ---------------------------------------------------------------------------------------------
// Header text: UTF-8 and JSON without duplicate keys.

// Printable ASCII as is, every other byte as \xNN, so that a message stays readable and valid UTF-8.
std::string escape_bytes(std::string_view bytes) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7f && c != '\\') out += static_cast<char>(c);
    else out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
  }
  return out;
}

// The offset of the first byte that is not part of a valid UTF-8 sequence, if any.
std::optional<std::size_t> invalid_utf8_at(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len == 0 || i + len > s.size()) return i;
    std::uint32_t cp = len == 1 ? c : c & (0x7f >> len);
    for (std::size_t k = 1; k < len; ++k) {
      auto d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 0x2) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    // Overlong encodings, surrogates and code points past U+10FFFF are invalid.
    static constexpr std::uint32_t min_cp[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return i;
    i += len;
  }
  return std::nullopt;
}

constexpr int kMaxHeaderDepth = 64;

// The start of `value` as JSON text, at most 80 characters: enough to recognise it in a message
// that must stay short whatever the file holds.
std::string excerpt(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return text.size() <= 80 ? text : text.substr(0, 77) + "...";
}

nlohmann::json parse_header_json(const std::string& text, const std::string& context) {
  if (auto bad = invalid_utf8_at(text)) {
    std::size_t from = *bad < 20 ? 0 : *bad - 20;
    throw IOError(context + ": the header is not valid UTF-8: byte " + std::to_string(*bad) + " of the header, in '" +
                  escape_bytes(std::string_view(text).substr(from, 40)) + "'." + format_fix);
  }
  // nlohmann::json keeps one of two equal keys; the reference rejects them, and so do we, since
  // which entry a reader sees would be arbitrary.
  std::vector<std::set<std::string>> open_objects;
  std::optional<std::string> duplicate;
  auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    // A deeply nested header would overflow the stack of the recursive copies and dumps that
    // follow; a safetensors header nests three levels (header, entry, shape).
    if ((event == E::object_start || event == E::array_start) && depth >= kMaxHeaderDepth)
      throw IOError(context + ": the header nests JSON objects and lists more than " + std::to_string(kMaxHeaderDepth) +
                    " levels deep; a safetensors header nests 3." + format_fix);
    if (event == E::object_start) open_objects.emplace_back();
    else if (event == E::object_end && !open_objects.empty()) open_objects.pop_back();
    else if (event == E::key && !open_objects.empty() &&
             !open_objects.back().insert(parsed.get<std::string>()).second && !duplicate)
      duplicate = parsed.get<std::string>();
    return true;
  };
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(text, callback);
  } catch (const nlohmann::json::exception& e) {
    std::string why = escape_bytes(e.what());  // quotes the token it stopped at, which may be long
    if (why.size() > 200) why = why.substr(0, 197) + "...";
    throw IOError(context + ": the header is not valid JSON (" + why + ")." + format_fix);
  }
  if (duplicate)
    throw IOError(context + ": the header names '" + *duplicate +
                  "' twice in the same JSON object; every tensor "
                  "name and every field must appear once." +
                  format_fix);
  if (!header.is_object())
    throw IOError(context + ": the header is not a JSON object (it is a JSON " + std::string(header.type_name()) +
                  ")." + format_fix);
  return header;
}

// ---------------------------------------------------------------------------------------------
// Header validation.

// One tensor of the file, as its header describes it.
struct Entry {
  std::string name;
  std::string st_dtype;
  Shape shape;
  std::uint64_t begin = 0, end = 0;
  std::string offsets() const { return "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "]"; }
};

// The byte size of `shape` elements of `bits` bits each, or nullopt on overflow.
std::optional<std::uint64_t> byte_size(const Shape& shape, std::uint64_t bits) {
  std::uint64_t count = 1;
  for (std::int64_t d : shape)
    if (__builtin_mul_overflow(count, static_cast<std::uint64_t>(d), &count)) return std::nullopt;
  if (__builtin_mul_overflow(count, bits, &count) || count % 8 != 0) return std::nullopt;
  return count / 8;
}

Shape parse_shape(const std::string& where, const nlohmann::json& entry) {
  auto sh = entry.find("shape");
  if (sh == entry.end() || !sh->is_array()) throw IOError(where + "no \"shape\" list." + format_fix);
  Shape shape;
  for (const auto& d : *sh) {
    if (!d.is_number_unsigned() || d.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      throw IOError(where + "\"shape\" is " + excerpt(*sh) + ", expected a list of non-negative integers." +
                    format_fix);
    shape.push_back(d.get<std::int64_t>());
  }
  return shape;
}

// Checks one entry on its own (dtype, shape, offsets of the right length).
Entry parse_entry(const std::string& name, const nlohmann::json& entry, const std::string& context) {
  std::string where = context + ": tensor '" + name + "': ";
  if (!entry.is_object())
    throw IOError(where + "the entry is not a JSON object (found " + excerpt(entry) + ")." + format_fix);
  Entry e{name, "", {}, 0, 0};
  auto dt = entry.find("dtype");
  if (dt == entry.end() || !dt->is_string()) throw IOError(where + "no \"dtype\" string." + format_fix);
  e.st_dtype = dt->get<std::string>();
  std::optional<std::uint64_t> bits = st_dtype_bits(e.st_dtype);
  if (!bits)
    throw IOError(where + "unknown dtype '" + e.st_dtype + "' (expected a safetensors dtype such as F32)." +
                  format_fix);
  e.shape = parse_shape(where, entry);
  std::optional<std::uint64_t> nbytes = byte_size(e.shape, *bits);
  if (!nbytes)
    throw IOError(where + "the byte size of shape " + shape_string(e.shape) + " and dtype " + e.st_dtype +
                  " overflows 64 bits (or is not a whole number of bytes)." + format_fix);
  auto off = entry.find("data_offsets");
  if (off == entry.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
      !(*off)[1].is_number_unsigned())
    throw IOError(where + "\"data_offsets\" is not a pair of non-negative integers." + format_fix);
  e.begin = (*off)[0].get<std::uint64_t>(), e.end = (*off)[1].get<std::uint64_t>();
  if (e.begin > e.end || e.end - e.begin != *nbytes)
    throw IOError(where + e.offsets() + " but shape " + shape_string(e.shape) + " and dtype " + e.st_dtype + " need " +
                  std::to_string(*nbytes) + " bytes (expected end - begin = " + std::to_string(*nbytes) + ")." +
                  format_fix);
  return e;
}

void check_metadata(const nlohmann::json& metadata, const std::string& context) {
  if (metadata.is_null()) return;
  std::string problem = "\"__metadata__\" must map strings to strings, but ";
  if (!metadata.is_object()) throw IOError(context + ": " + problem + "it is " + excerpt(metadata) + "." + format_fix);
  for (const auto& [key, value] : metadata.items())
    if (!value.is_string())
      throw IOError(context + ": " + problem + "'" + key + "' is " + excerpt(value) + "." + format_fix);
}

// The entries sorted by offsets must tile [0, data_size) exactly: no overlap, no gap, no stray bytes.
void check_layout(const std::vector<Entry>& sorted, std::uint64_t data_size, const std::string& context) {
  std::uint64_t covered = 0;
  const Entry* previous = nullptr;
  for (const Entry& e : sorted) {
    std::string after = previous ? "tensor '" + previous->name + "' (which ends at " + std::to_string(covered) + ")"
                                 : "the start of the data section (offset 0)";
    if (e.begin < covered)
      throw IOError(context + ": tensor '" + e.name + "' has " + e.offsets() + ", which overlap " + after +
                    "; expected it to start at " + std::to_string(covered) + "." + format_fix);
    if (e.begin > covered)
      throw IOError(context + ": tensor '" + e.name + "' has " + e.offsets() + ", leaving a gap after " + after +
                    "; expected it to start at " + std::to_string(covered) + "." + format_fix);
    covered = e.end, previous = &e;
  }
  if (covered > data_size)
    throw IOError(context + ": the file is truncated: tensor '" + previous->name + "' has " + previous->offsets() +
                  " but the data section has only " + std::to_string(data_size) +
                  " bytes. Save the file again; it was probably cut off while being written or copied.");
  if (covered < data_size)
    throw IOError(context + ": the data section has " + std::to_string(data_size) + " bytes but the tensors' " +
                  "data_offsets cover " + std::to_string(covered) + " bytes: the file has stray bytes or its header " +
                  "does not match its data." + format_fix);
}

// Reads and validates the whole header; returns the entries by name.
std::map<std::string, Entry> read_header(const Fd& file, std::uint64_t file_size, const std::string& context,
                                         std::uint64_t& data_start) {
  if (file_size < 8)
    throw IOError(context + ": the file is truncated: it has " + std::to_string(file_size) +
                  " bytes, fewer than the 8-byte header length." + format_fix);
  unsigned char len[8];
  read_at(file, 0, reinterpret_cast<char*>(len), 8, context);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  if (n > max_header_bytes)
    throw IOError(context + ": the header length is " + std::to_string(n) + " bytes, more than the limit of " +
                  std::to_string(max_header_bytes) + " bytes; this is not a safetensors file." + format_fix);
  if (n > file_size - 8)
    throw IOError(context + ": the file is truncated or not a safetensors file: the header length is " +
                  std::to_string(n) + " bytes but only " + std::to_string(file_size - 8) + " bytes follow." +
                  format_fix);
  std::string text(n, '\0');
  read_at(file, 8, text.data(), n, context);
  nlohmann::json header = parse_header_json(text, context);

  std::map<std::string, Entry> entries;
  std::vector<Entry> sorted;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      check_metadata(value, context);
      continue;
    }
    sorted.push_back(parse_entry(name, value, context));
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const Entry& a, const Entry& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  data_start = 8 + n;
  check_layout(sorted, file_size - data_start, context);
  for (Entry& e : sorted) entries.emplace(e.name, std::move(e));
  return entries;
}

// The variable's entry matched against the file: empty when it fits, else the problem.
std::string match_problem(const Tensor& v, const std::map<std::string, Entry>& entries) {
  const std::string expected = type_string(v.shape(), v.dtype());
  auto it = entries.find(v.name());
  if (it == entries.end()) return "variable '" + v.name() + "' (" + expected + ") is missing from the file";
  const Entry& e = it->second;
  std::optional<DType> dtype = parse_st_dtype(e.st_dtype);
  if (!dtype)
    return "variable '" + v.name() + "' is stored with dtype " + e.st_dtype +
           ", which symx does not support (expected " + st_dtype(v.dtype()) + ")";
  if (e.shape != v.shape() || *dtype != v.dtype())
    return "variable '" + v.name() + "' is " + expected + " in the graph but " + type_string(e.shape, *dtype) +
           " in the file";
  return "";
}

Array read_value(const Fd& file, std::uint64_t data_start, const Entry& e, DType dtype, const std::string& context) {
  Array value(e.shape, dtype);
  const std::uint64_t nbytes = e.end - e.begin;
  if (dtype == DType::b8) {
    std::string bytes(nbytes, '\0');
    read_at(file, data_start + e.begin, bytes.data(), nbytes, context);
    bool* out = value.data<bool>();
    for (std::uint64_t i = 0; i < nbytes; ++i) out[i] = bytes[i] != 0;
  } else if (nbytes > 0) {
    read_at(file, data_start + e.begin, static_cast<char*>(value.raw_data()), nbytes, context);
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Writing.

// The header text of the file for `list`, padded so that the data section starts 8-byte aligned
// (as the reference implementation does).
std::string header_text(const std::vector<Tensor>& list) {
  ordered_json header = ordered_json::object();
  header["__metadata__"] = {{"format", "symx"}};
  std::uint64_t offset = 0;
  for (const Tensor& v : list) {
    const Array& value = v.value();
    if (*st_dtype(value.dtype()) == '\0')
      throw DTypeError("save_variables: variable '" + v.name() + "' is " + std::string(dtype_name(value.dtype())) +
                       ", which the safetensors format has no dtype for (it has C64, complex64, but no complex128)."
                       " Save it as complex64 (astype(complex64)), as two float64 variables, or in an .npz file.");
    std::uint64_t end = offset + value.nbytes();
    header[v.name()] = {{"dtype", st_dtype(value.dtype())}, {"shape", value.shape()}, {"data_offsets", {offset, end}}};
    offset = end;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  return text;
}

// Writes the whole file to `fd`.
void write_file(int fd, const std::string& text, const std::vector<Tensor>& list) {
  std::uint64_t n = text.size();
  char len[8];
  for (int i = 0; i < 8; ++i) len[i] = static_cast<char>(n >> (8 * i));
  write_all(fd, len, 8);
  write_all(fd, text.data(), text.size());
  for (const Tensor& v : list) {
    const Array& value = v.value();
    if (value.dtype() == DType::b8) {
      // One byte per bool, 0 or 1.
      std::vector<char> bytes(static_cast<std::size_t>(value.size()));
      for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = value.data<bool>()[i] ? 1 : 0;
      write_all(fd, bytes.data(), bytes.size());
    } else if (value.nbytes() > 0) {
      write_all(fd, static_cast<const char*>(value.raw_data()), value.nbytes());
    }
  }
}

}  // namespace

// True for a path whose extension is NumPy's (.npy, .npz, any case): SymJAX's save_variables wrote
// .npz, so such a name would get a safetensors file that NumPy cannot read.
static bool names_numpy_format(const std::string& path) {
  std::string tail = path.size() >= 4 ? path.substr(path.size() - 4) : path;
  for (char& c : tail) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return tail == ".npz" || tail == ".npy";
}

void save_variables(const std::string& path, const std::vector<Tensor>& vars) {
  if (names_numpy_format(path))
    throw ValueError("save_variables: '" + path +
                     "' has NumPy's extension, but save_variables writes the safetensors format (which "
                     "NumPy cannot read). Name the file '.safetensors' (load_variables reads it back), or "
                     "write NumPy's archive with save_npz (Python: sx.save_npz(path, {v.name: v.value for v in "
                     "sx.variables()})).");
  std::vector<Tensor> list = resolve(vars, "save_variables");
  for (const Tensor& v : list)
    if (v.name() == "__metadata__")
      throw ValueError(
          "save_variables: a variable is named '__metadata__', which is reserved by the safetensors "
          "format for the file's metadata. Give the variable another name.");
  const std::string text = header_text(list);
  io::write_file_atomically(path, "save_variables", [&](int fd) { write_file(fd, text, list); });
}

void load_variables(const std::string& path, const std::vector<Tensor>& vars) {
  std::vector<Tensor> list = resolve(vars, "load_variables");
  const std::string context = "load_variables: '" + path + "'";

  Fd file(-1);
  const std::uint64_t file_size = open_regular_file(path, context, file);
  std::uint64_t data_start = 0;
  const std::map<std::string, Entry> entries = read_header(file, file_size, context, data_start);

  std::vector<std::string> problems;
  for (const Tensor& v : list)
    if (std::string problem = match_problem(v, entries); !problem.empty()) problems.push_back(problem);
  if (!problems.empty()) {
    std::string message = context + ": " + std::to_string(problems.size()) +
                          (problems.size() == 1 ? " problem" : " problems") + "; no variable was changed:";
    for (const auto& p : problems) message += "\n  - " + p;
    message +=
        "\nLoad a file saved from a graph with the same variables (names, shapes and dtypes), or pass the "
        "variables to load explicitly: load_variables(path, {w, b}).";
    throw IOError(message);
  }
  // Every value is read before any is assigned, so that a failure changes nothing.
  std::vector<Array> values;
  for (const Tensor& v : list) values.push_back(read_value(file, data_start, entries.at(v.name()), v.dtype(), context));
  for (std::size_t i = 0; i < list.size(); ++i) list[i].assign(values[i]);
}

}  // namespace symx
