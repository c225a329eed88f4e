// Saving and loading variables in the safetensors format
// (https://huggingface.co/docs/safetensors): an 8-byte little-endian header length N, N bytes of
// JSON describing each tensor ({"dtype", "shape", "data_offsets": [begin, end]} relative to the
// data section, plus "__metadata__"), then the raw little-endian data.
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "symx/io.hpp"

namespace symx {
namespace {

static_assert(std::endian::native == std::endian::little, "safetensors I/O assumes a little-endian host");

using ordered_json = nlohmann::ordered_json;

const char* st_dtype(DType dtype) {
  switch (dtype) {
    case DType::b8: return "BOOL";
    case DType::u8: return "U8";
    case DType::i32: return "I32";
    case DType::i64: return "I64";
    case DType::f32: return "F32";
    case DType::f64: return "F64";
  }
  return "";
}

std::optional<DType> parse_st_dtype(const std::string& name) {
  for (DType d : {DType::b8, DType::u8, DType::i32, DType::i64, DType::f32, DType::f64})
    if (name == st_dtype(d)) return d;
  return std::nullopt;
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

}  // namespace

void save_variables(const std::string& path, const std::vector<Tensor>& vars) {
  std::vector<Tensor> list = resolve(vars, "save_variables");

  ordered_json header = ordered_json::object();
  header["__metadata__"] = {{"format", "symx"}};
  std::uint64_t offset = 0;
  for (const Tensor& v : list) {
    const Array& value = v.value();
    std::uint64_t end = offset + value.nbytes();
    header[v.name()] = {{"dtype", st_dtype(value.dtype())}, {"shape", value.shape()}, {"data_offsets", {offset, end}}};
    offset = end;
  }
  std::string text = header.dump();
  // Pad the header with spaces so that the data section starts 8-byte aligned (as the reference
  // implementation does).
  text.append((8 - text.size() % 8) % 8, ' ');

  namespace fs = std::filesystem;
  // Unique per process and per call, so that concurrent saves never share a temporary file.
  static std::atomic<std::uint64_t> counter{0};
  std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  auto fail = [&](const std::string& problem, const std::string& fix) {
    std::error_code ec;
    fs::remove(tmp, ec);
    throw IOError("save_variables: cannot write '" + path + "': " + problem + ". Nothing was written. " + fix);
  };
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      fail("cannot create the temporary file '" + tmp + "'",
           "Check that the folder exists and is writable.");
    std::uint64_t n = text.size();
    unsigned char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(n >> (8 * i));
    out.write(reinterpret_cast<const char*>(len), 8);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    for (const Tensor& v : list) {
      const Array& value = v.value();
      if (value.dtype() == DType::b8) {
        // One byte per bool, 0 or 1.
        std::vector<char> bytes(static_cast<std::size_t>(value.size()));
        for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = value.data<bool>()[i] ? 1 : 0;
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      } else {
        out.write(static_cast<const char*>(value.raw_data()), static_cast<std::streamsize>(value.nbytes()));
      }
    }
    out.flush();
    if (!out) fail("writing the temporary file '" + tmp + "' failed", "Check the free disk space and permissions.");
    out.close();
    if (!out) fail("closing the temporary file '" + tmp + "' failed", "Check the free disk space and permissions.");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) fail("renaming '" + tmp + "' to it failed (" + ec.message() + ")", "Check that the path is a writable file location.");
}

void load_variables(const std::string& path, const std::vector<Tensor>& vars) {
  std::vector<Tensor> list = resolve(vars, "load_variables");
  const std::string context = "load_variables: '" + path + "'";
  const std::string format_fix = " Save the file with save_variables (or safetensors' save_file).";

  std::ifstream in(path, std::ios::binary);
  if (!in) throw IOError(context + ": cannot open the file for reading. Check the path.");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw IOError(context + ": reading the file failed. Check the file and the disk.");

  if (bytes.size() < 8)
    throw IOError(context + ": the file is truncated: it has " + std::to_string(bytes.size()) +
                  " bytes, fewer than the 8-byte header length." + format_fix);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  if (n > bytes.size() - 8)
    throw IOError(context + ": the file is truncated or not a safetensors file: the header length is " +
                  std::to_string(n) + " bytes but only " + std::to_string(bytes.size() - 8) +
                  " bytes follow." + format_fix);
  const std::uint64_t data_start = 8 + n, data_size = bytes.size() - data_start;

  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + static_cast<std::ptrdiff_t>(data_start));
  } catch (const nlohmann::json::exception& e) {
    throw IOError(context + ": the header is not valid JSON (" + e.what() + ")." + format_fix);
  }
  if (!header.is_object()) throw IOError(context + ": the header is not a JSON object." + format_fix);

  // The whole data section the header describes must be present.
  std::uint64_t described = 0;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__" || !entry.is_object()) continue;
    auto it = entry.find("data_offsets");
    if (it != entry.end() && it->is_array() && it->size() == 2 && (*it)[1].is_number_unsigned())
      described = std::max(described, (*it)[1].get<std::uint64_t>());
  }
  if (described > data_size)
    throw IOError(context + ": the file is truncated: the header describes " + std::to_string(described) +
                  " bytes of data but only " + std::to_string(data_size) +
                  " are present. Save the file again; it was probably cut off while being written or copied.");

  std::vector<std::string> problems;
  std::vector<std::pair<Tensor, Array>> values;
  for (const Tensor& v : list) {
    const std::string& name = v.name();
    const std::string expected = type_string(v.shape(), v.dtype());
    auto it = header.find(name);
    if (name == "__metadata__" || it == header.end()) {
      problems.push_back("variable '" + name + "' (" + expected + ") is missing from the file");
      continue;
    }
    const auto& entry = *it;
    std::string bad = "the entry for variable '" + name + "' is malformed: ";
    if (!entry.is_object()) { problems.push_back(bad + "not a JSON object"); continue; }
    auto dt = entry.find("dtype");
    auto sh = entry.find("shape");
    auto off = entry.find("data_offsets");
    if (dt == entry.end() || !dt->is_string()) { problems.push_back(bad + "no \"dtype\" string"); continue; }
    std::optional<DType> dtype = parse_st_dtype(dt->get<std::string>());
    if (!dtype) {
      problems.push_back("variable '" + name + "' is stored with dtype " + dt->get<std::string>() +
                         ", which symx does not support (expected " + st_dtype(v.dtype()) + ")");
      continue;
    }
    if (sh == entry.end() || !sh->is_array()) { problems.push_back(bad + "no \"shape\" list"); continue; }
    Shape shape;
    bool shape_ok = true;
    for (const auto& d : *sh) {
      if (!d.is_number_unsigned()) { shape_ok = false; break; }
      shape.push_back(d.get<std::int64_t>());
    }
    if (!shape_ok) { problems.push_back(bad + "\"shape\" is not a list of non-negative integers"); continue; }
    if (shape != v.shape() || *dtype != v.dtype()) {
      problems.push_back("variable '" + name + "' is " + expected + " in the graph but " +
                         type_string(shape, *dtype) + " in the file");
      continue;
    }
    if (off == entry.end() || !off->is_array() || off->size() != 2 || !(*off)[0].is_number_unsigned() ||
        !(*off)[1].is_number_unsigned()) {
      problems.push_back(bad + "\"data_offsets\" is not a pair of non-negative integers");
      continue;
    }
    auto begin = (*off)[0].get<std::uint64_t>(), end = (*off)[1].get<std::uint64_t>();
    std::uint64_t nbytes = static_cast<std::uint64_t>(num_elements(shape)) * itemsize(*dtype);
    if (begin > end || end > data_size || end - begin != nbytes) {
      problems.push_back("variable '" + name + "' has data_offsets [" + std::to_string(begin) + ", " +
                         std::to_string(end) + "], but " + expected + " needs " + std::to_string(nbytes) +
                         " bytes within the data section of " + std::to_string(data_size) + " bytes");
      continue;
    }
    const char* data = bytes.data() + data_start + begin;
    Array value(shape, *dtype);
    if (*dtype == DType::b8) {
      bool* out = value.data<bool>();
      for (std::uint64_t i = 0; i < nbytes; ++i) out[i] = data[i] != 0;
    } else if (nbytes > 0) {
      std::memcpy(value.raw_data(), data, nbytes);
    }
    values.emplace_back(v, std::move(value));
  }

  if (!problems.empty()) {
    std::string message = context + ": " + std::to_string(problems.size()) +
                          (problems.size() == 1 ? " problem" : " problems") + "; no variable was changed:";
    for (const auto& p : problems) message += "\n  - " + p;
    message +=
        "\nLoad a file saved from a graph with the same variables (names, shapes and dtypes), or pass the "
        "variables to load explicitly: load_variables(path, {w, b}).";
    throw IOError(message);
  }
  for (const auto& [v, value] : values) v.assign(value);
}

}  // namespace symx
