// Saving and loading: variables in safetensors files, arrays in .npy files.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_util.hpp"

namespace symx {
namespace {

namespace fs = std::filesystem;
using testing::expect_error;

// A fresh folder under the system temp directory, removed at the end of the test.
class IOTest : public ::testing::Test {
 protected:
  void SetUp() override {
    reset_default_graph();
    std::random_device rd;
    dir_ = fs::temp_directory_path() / ("symx_io_test_" + std::to_string(rd()) + "_" + std::to_string(rd()));
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    return out;
  }
  fs::path dir_;
};

using testing::read_bytes;
using testing::write_bytes;

// A few variables of every dtype and several shapes, two of them in a scope.
std::vector<Tensor> make_variables() {
  std::vector<Tensor> vars;
  {
    Scope s("layer1");
    vars.push_back(variable(testing::random_array({3, 4}, -1, 1, 1, DType::f32), "w"));
    vars.push_back(variable(testing::random_array({4}, -1, 1, 2, DType::f64), "b"));
  }
  vars.push_back(variable(Array::from_vector<std::int32_t>({1, -2, 3, 2147483647}, {2, 2}), "counts"));
  vars.push_back(variable(Array::scalar<std::int64_t>(-(std::int64_t{1} << 40)), "step", false));
  vars.push_back(variable(Array::from_vector<std::uint8_t>({0, 7, 255}, {3}), "bytes"));
  vars.push_back(variable(Array::from_vector<bool>({true, false, true, true, false, false}, {2, 1, 3}), "mask"));
  vars.push_back(variable(Array::zeros({0, 5}), "empty"));
  return vars;
}

std::vector<Array> values_of(const std::vector<Tensor>& vars) {
  std::vector<Array> out;
  for (const auto& v : vars) out.push_back(v.value().copy());
  return out;
}

// Sets every variable to a different value of its own shape and dtype.
void scramble(const std::vector<Tensor>& vars) {
  for (const auto& v : vars) {
    Array a(v.shape(), v.dtype());
    for (std::int64_t i = 0; i < a.size(); ++i)
      a.set_flat(i, v.dtype() == DType::b8 ? (i % 2 == 0) : 42 + static_cast<double>(i));
    v.assign(a);
  }
}

void expect_values(const std::vector<Tensor>& vars, const std::vector<Array>& expected) {
  ASSERT_EQ(vars.size(), expected.size());
  for (std::size_t i = 0; i < vars.size(); ++i)
    EXPECT_TRUE(vars[i].value().equals(expected[i]))
        << vars[i].name() << ": " << vars[i].value() << " vs " << expected[i];
}

TEST_F(IOTest, RoundTripOfAllDtypesAndScopedNames) {
  auto vars = make_variables();
  EXPECT_EQ(vars[0].name(), "layer1/w");
  auto saved = values_of(vars);
  save_variables(path("model.safetensors"));
  scramble(vars);
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (vars[i].size() > 0) {
      EXPECT_FALSE(vars[i].value().equals(saved[i])) << vars[i].name();
    }
  }
  load_variables(path("model.safetensors"));
  expect_values(vars, saved);
}

TEST_F(IOTest, ExplicitSubsetAndExtraEntriesInTheFile) {
  auto vars = make_variables();
  auto saved = values_of(vars);
  save_variables(path("all.safetensors"));
  scramble(vars);
  auto scrambled = values_of(vars);
  // Loading only two variables from a file with more entries is fine; the others stay.
  load_variables(path("all.safetensors"), {vars[0], vars[2]});
  EXPECT_TRUE(vars[0].value().equals(saved[0]));
  EXPECT_TRUE(vars[2].value().equals(saved[2]));
  EXPECT_TRUE(vars[1].value().equals(scrambled[1]));
  // Saving a subset writes only those.
  save_variables(path("part.safetensors"), {vars[1]});
  std::string bytes = read_bytes(path("part.safetensors"));
  std::uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  auto header = nlohmann::json::parse(bytes.substr(8, n));
  EXPECT_TRUE(header.contains("layer1/b"));
  EXPECT_FALSE(header.contains("layer1/w"));
}

TEST_F(IOTest, FileIsValidSafetensors) {
  auto vars = make_variables();
  save_variables(path("model.safetensors"));
  std::string bytes = read_bytes(path("model.safetensors"));
  ASSERT_GE(bytes.size(), 8u);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  ASSERT_LE(8 + n, bytes.size());
  nlohmann::json header = nlohmann::json::parse(bytes.substr(8, n));
  ASSERT_TRUE(header.is_object());
  EXPECT_EQ(header["__metadata__"]["format"], "symx");
  EXPECT_EQ(header.size(), vars.size() + 1);
  std::size_t data_start = 8 + n, data_size = bytes.size() - data_start;
  std::map<std::string, std::string> names = {{"float32", "F32"}, {"float64", "F64"}, {"int32", "I32"},
                                              {"int64", "I64"},   {"uint8", "U8"},    {"bool", "BOOL"}};
  // Offsets are in range, of the right length, and tile the data section without gaps.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (const auto& v : vars) {
    SCOPED_TRACE(v.name());
    ASSERT_TRUE(header.contains(v.name()));
    const auto& e = header[v.name()];
    EXPECT_EQ(e["dtype"], names.at(std::string(dtype_name(v.dtype()))));
    EXPECT_EQ(e["shape"].get<Shape>(), v.shape());
    auto begin = e["data_offsets"][0].get<std::uint64_t>(), end = e["data_offsets"][1].get<std::uint64_t>();
    EXPECT_LE(begin, end);
    EXPECT_LE(end, data_size);
    EXPECT_EQ(end - begin, v.value().nbytes());
    ranges.emplace_back(begin, end);
    // The data is the raw little-endian values.
    if (v.dtype() != DType::b8) {
      EXPECT_EQ(std::memcmp(bytes.data() + data_start + begin, v.value().raw_data(), v.value().nbytes()), 0);
    } else {
      for (std::int64_t i = 0; i < v.size(); ++i)
        EXPECT_EQ(bytes[data_start + begin + static_cast<std::size_t>(i)], v.value().data<bool>()[i] ? 1 : 0);
    }
  }
  std::sort(ranges.begin(), ranges.end());
  std::uint64_t covered = 0;
  for (const auto& [b, e] : ranges) {
    EXPECT_EQ(b, covered);
    covered = e;
  }
  EXPECT_EQ(covered, data_size);
}

TEST_F(IOTest, NoTemporaryFileIsLeftAndSaveOverwrites) {
  auto w = variable(Array({1.f, 2.f}), "w");
  save_variables(path("m.safetensors"));
  w.assign(Array({3.f, 4.f}));
  save_variables(path("m.safetensors"));
  EXPECT_EQ(files(), std::vector<std::string>{"m.safetensors"});
  w.assign(Array({0.f, 0.f}));
  load_variables(path("m.safetensors"));
  EXPECT_TRUE(w.value().equals(Array({3.f, 4.f})));
}

TEST_F(IOTest, SaveIntoMissingFolderFailsAndWritesNothing) {
  variable(Array({1.f}), "w");
  std::string target = (dir_ / "no_such_folder" / "m.safetensors").string();
  expect_error<IOError>([&] { save_variables(target); }, {"save_variables", target, "folder"});
  EXPECT_FALSE(fs::exists(dir_ / "no_such_folder"));
  EXPECT_TRUE(files().empty());
}

TEST_F(IOTest, TruncatedFileChangesNothing) {
  auto vars = make_variables();
  save_variables(path("m.safetensors"));
  std::string bytes = read_bytes(path("m.safetensors"));
  scramble(vars);
  auto before = values_of(vars);
  // Cut inside the data section, inside the header, and inside the length field.
  for (std::size_t keep : {bytes.size() - 3, std::size_t{20}, std::size_t{5}, std::size_t{0}}) {
    SCOPED_TRACE("kept " + std::to_string(keep) + " bytes");
    write_bytes(path("cut.safetensors"), bytes.substr(0, keep));
    expect_error<IOError>([&] { load_variables(path("cut.safetensors")); },
                          {"load_variables", path("cut.safetensors"), "truncated"});
    expect_values(vars, before);
  }
}

TEST_F(IOTest, BadJsonHeaderIsAnIOError) {
  auto w = variable(Array({1.f}), "w");
  std::string header = "{\"w\": {\"dtype\": \"F32\", ";
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(header.size());
  write_bytes(path("bad.safetensors"), bytes + header);
  expect_error<IOError>([&] { load_variables(path("bad.safetensors")); },
                        {"load_variables", "bad.safetensors", "JSON"});
  expect_error<IOError>([&] { load_variables(path("missing.safetensors")); },
                        {"load_variables", "missing.safetensors", "cannot open"});
  EXPECT_TRUE(w.value().equals(Array({1.f})));
}

TEST_F(IOTest, ShapeOrDtypeMismatchChangesNothing) {
  {
    Scope s("layer1");
    variable(Array::zeros({2, 3}), "w");
    variable(Array::zeros({3}), "b");
  }
  save_variables(path("m.safetensors"));
  reset_default_graph();
  Tensor w, b;
  {
    Scope s("layer1");
    w = variable(Array::ones({3, 2}), "w");           // wrong shape
    b = variable(Array::ones({3}, DType::f64), "b");  // wrong dtype
  }
  Tensor c = variable(Array::ones({3}), "c");  // not in the file
  try {
    load_variables(path("m.safetensors"));
    ADD_FAILURE() << "expected IOError";
  } catch (const IOError& e) {
    std::string m = e.what();
    // Every problem is reported at once, with the file, the variable, expected and found.
    for (const char* part : {"m.safetensors", "layer1/w", "(3, 2) float32", "(2, 3) float32", "layer1/b", "float64",
                             "'c'", "missing", "3 problems", "no variable was changed"})
      EXPECT_NE(m.find(part), std::string::npos) << "missing '" << part << "' in: " << m;
  }
  EXPECT_TRUE(w.value().equals(Array::ones({3, 2})));
  EXPECT_TRUE(b.value().equals(Array::ones({3}, DType::f64)));
  EXPECT_TRUE(c.value().equals(Array::ones({3})));
}

TEST_F(IOTest, MissingNameIsAnIOError) {
  auto a = variable(Array({1.f, 2.f}), "a");
  save_variables(path("m.safetensors"));
  auto extra = variable(Array({5.f}), "extra");
  a.assign(Array({9.f, 9.f}));
  expect_error<IOError>([&] { load_variables(path("m.safetensors")); }, {"m.safetensors", "'extra'", "missing"});
  EXPECT_TRUE(a.value().equals(Array({9.f, 9.f})));  // nothing assigned, not even the match
  // Listing only the variables in the file works.
  load_variables(path("m.safetensors"), {a});
  EXPECT_TRUE(a.value().equals(Array({1.f, 2.f})));
}

TEST_F(IOTest, OffsetsOutOfRangeAreReported) {
  auto w = variable(Array({1.f, 2.f}), "w");
  std::string header = R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [4, 8]}})";
  std::string bytes(8, '\0');
  bytes[0] = static_cast<char>(header.size());
  write_bytes(path("bad.safetensors"), bytes + header + std::string(8, '\0'));
  expect_error<IOError>([&] { load_variables(path("bad.safetensors")); }, {"'w'", "data_offsets [4, 8]", "8 bytes"});
  EXPECT_TRUE(w.value().equals(Array({1.f, 2.f})));
}

TEST_F(IOTest, NonVariablesAreRejected) {
  auto x = placeholder({2});
  expect_error<ValueError>([&] { save_variables(path("m.safetensors"), {x}); }, {"save_variables", "not a variable"});
  EXPECT_TRUE(files().empty());
}

// A safetensors file from its header text and data section (the length field is computed).
std::string st_file(const std::string& header, const std::string& data) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>(header.size() >> (8 * i));
  return bytes + header + data;
}

// The raw little-endian bytes of float32 values.
std::string f32_bytes(const std::vector<float>& values) {
  std::string out(values.size() * 4, '\0');
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

// Loading `bytes` as a file throws IOError naming the file and every one of `parts`, and changes
// no variable.
void expect_rejected(const std::string& file, const std::string& bytes, const std::vector<std::string>& parts) {
  write_bytes(file, bytes);
  auto vars = default_graph().variables();
  auto before = values_of(vars);
  std::vector<std::string> all = parts;
  all.push_back("load_variables");
  all.push_back(file);
  expect_error<IOError>([&] { load_variables(file); }, all);
  expect_values(vars, before);
}

TEST_F(IOTest, StrayByteInTheDataSectionIsRejected) {
  auto vars = make_variables();
  save_variables(path("m.safetensors"));
  std::string good = read_bytes(path("m.safetensors"));
  scramble(vars);
  // One extra byte at the end, or one inserted right after the header (which shifts every value).
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(good[static_cast<std::size_t>(i)]);
  std::string appended = good + "x";
  std::string inserted = good.substr(0, 8 + n) + "x" + good.substr(8 + n);
  expect_rejected(path("a.safetensors"), appended, {"data section", std::to_string(good.size() - 8 - n + 1)});
  expect_rejected(path("b.safetensors"), inserted, {"data section", std::to_string(good.size() - 8 - n + 1)});
}

TEST_F(IOTest, OverlappingOffsetsAreRejected) {
  auto a = variable(Array({1.f, 2.f}), "a");
  auto b = variable(Array({3.f, 4.f}), "b");
  std::string header = R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
                       R"( "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})";
  expect_rejected(path("m.safetensors"), st_file(header, f32_bytes({5, 6, 7})), {"'b'", "[4, 12]", "'a'", "overlap"});
}

TEST_F(IOTest, GapBetweenOffsetsIsRejected) {
  auto a = variable(Array({1.f, 2.f}), "a");
  auto b = variable(Array({3.f, 4.f}), "b");
  std::string header = R"({"b": {"dtype": "F32", "shape": [2], "data_offsets": [12, 20]},)"
                       R"( "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})";
  expect_rejected(path("m.safetensors"), st_file(header, f32_bytes({5, 6, 0, 7, 8})), {"'b'", "[12, 20]", "gap"});
}

TEST_F(IOTest, DuplicateNamesAreRejected) {
  auto w = variable(Array({1.f, 2.f}), "w");
  std::string header = R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
                       R"( "w": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}})";
  expect_rejected(path("m.safetensors"), st_file(header, f32_bytes({5, 6, 7, 8})), {"'w'", "twice"});
  // Inside an entry too.
  std::string field = R"({"w": {"dtype": "F32", "shape": [2], "shape": [1], "data_offsets": [0, 8]}})";
  expect_rejected(path("f.safetensors"), st_file(field, f32_bytes({5, 6})), {"'shape'", "twice"});
}

TEST_F(IOTest, OffsetsMustCoverTheDataSectionExactly) {
  auto w = variable(Array({1.f, 2.f}), "w");
  std::string header = R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})";
  expect_rejected(path("m.safetensors"), st_file(header, f32_bytes({5, 6, 7, 8})), {"data section", "16 bytes", "8"});
  // A tensor the caller does not load still counts.
  std::string other = R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
                      R"( "z": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}})";
  expect_rejected(path("o.safetensors"), st_file(other, f32_bytes({5, 6})), {"'z'", "[8, 12]"});
  // The length must match the shape and dtype, also for tensors that are not loaded.
  std::string size = R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},)"
                     R"( "z": {"dtype": "F64", "shape": [1], "data_offsets": [8, 12]}})";
  expect_rejected(path("s.safetensors"), st_file(size, f32_bytes({5, 6, 7})), {"'z'", "[8, 12]", "8 bytes"});
}

TEST_F(IOTest, MalformedEntriesAreRejected) {
  auto w = variable(Array({1.f, 2.f}), "w");
  auto with_z = [](const std::string& z) {
    return R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "z": )" + z + "}";
  };
  std::string data = f32_bytes({5, 6});
  expect_rejected(path("a.safetensors"),
                  st_file(with_z(R"({"dtype": "Q7", "shape": [0], "data_offsets": [8, 8]})"), data),
                  {"'z'", "dtype", "Q7"});
  expect_rejected(path("b.safetensors"),
                  st_file(with_z(R"({"dtype": "F32", "shape": [4294967296, 4294967296], "data_offsets": [8, 8]})"),
                          data),
                  {"'z'", "overflow"});
  expect_rejected(path("c.safetensors"),
                  st_file(with_z(R"({"dtype": "F32", "shape": [-1], "data_offsets": [8, 8]})"), data),
                  {"'z'", "shape"});
  expect_rejected(path("d.safetensors"),
                  st_file(with_z(R"({"dtype": "F32", "shape": [0], "data_offsets": [8, 4]})"), data),
                  {"'z'", "[8, 4]"});
  expect_rejected(path("e.safetensors"), st_file(with_z("[1, 2]"), data), {"'z'", "not a JSON object"});
  std::string meta = R"({"__metadata__": {"format": 3}, "w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})";
  expect_rejected(path("f.safetensors"), st_file(meta, data), {"__metadata__", "string"});
  expect_rejected(path("g.safetensors"), st_file("[]", ""), {"not a JSON object"});
}

TEST_F(IOTest, HugeHeaderLengthIsRejectedWithoutReading) {
  auto w = variable(Array({1.f, 2.f}), "w");
  std::string header = R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})";
  std::string bytes = st_file(header, f32_bytes({5, 6}));
  for (std::uint64_t n : {std::uint64_t{1} << 63, std::uint64_t{200'000'000}, std::uint64_t{1000}}) {
    SCOPED_TRACE(n);
    for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>(n >> (8 * i));
    expect_rejected(path("m.safetensors"), bytes, {"header length", std::to_string(n)});
  }
}

TEST_F(IOTest, SpecialFilesAreIOErrors) {
  auto w = variable(Array({1.f, 2.f}), "w");
  // Each would otherwise be read without end (/dev/zero), block forever (a FIFO) or fail to read.
  expect_error<IOError>([&] { load_variables("/dev/zero"); }, {"load_variables", "/dev/zero", "not a regular file"});
  expect_error<IOError>([&] { load_variables(dir_.string()); }, {"load_variables", dir_.string(), "directory"});
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  expect_error<IOError>([&] { load_variables(path("fifo")); }, {"load_variables", "fifo", "not a regular file"});
  EXPECT_TRUE(w.value().equals(Array({1.f, 2.f})));
}

TEST_F(IOTest, InvalidUtf8InTheHeaderIsEscapedInTheMessage) {
  auto w = variable(Array({1.f, 2.f}), "w");
  std::string header = "{\"w\xff\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}}";
  expect_rejected(path("m.safetensors"), st_file(header, f32_bytes({5, 6})), {"UTF-8", "\\xff"});
}

TEST_F(IOTest, DeeplyNestedHeaderIsRejectedWithoutOverflowingTheStack) {
  auto w = variable(Array({1.f, 2.f}), "w");
  // 200,000 levels: recursing through them (to copy or print the value) overflowed the stack.
  const std::string deep(200000, '[');
  for (const std::string& header : {"{\"w\": " + deep + "}", "{\"__metadata__\": " + deep + "}", deep})
    expect_rejected(path("m.safetensors"), st_file(header, f32_bytes({5, 6})), {"nests", "64 levels"});
  // 63 levels are accepted as JSON (and refused as a bad entry, quoted in at most 80 characters).
  expect_rejected(path("m.safetensors"),
                  st_file("{\"w\": " + std::string(62, '[') + std::string(62, ']') + "}", f32_bytes({5, 6})),
                  {"not a JSON object", "[[[["});
  write_bytes(path("m.safetensors"), st_file("{\"w\": [" + std::string(1000, '7') + "]}", f32_bytes({5, 6})));
  try {
    load_variables(path("m.safetensors"));
    FAIL() << "no error";
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find("..."), std::string::npos) << e.what();
    EXPECT_LT(std::string(e.what()).size(), 600u) << e.what();
  }
  EXPECT_TRUE(w.value().equals(Array({1.f, 2.f})));
}

TEST_F(IOTest, MetadataIsNotAVariableName) {
  variable(Array({1.f}), "__metadata__");
  expect_error<ValueError>([&] { save_variables(path("m.safetensors")); },
                           {"save_variables", "'__metadata__'", "reserved"});
  EXPECT_TRUE(files().empty());
}

// The pid of a process that has exited (and been reaped).
pid_t dead_pid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  return child;
}

TEST_F(IOTest, SaveRemovesTemporaryFilesOfDeadWriters) {
  variable(Array({1.f}), "w");
  std::string dead = "m.safetensors.tmp-" + std::to_string(dead_pid()) + "-0";
  std::string live = "m.safetensors.tmp-" + std::to_string(::getppid()) + "-0";      // a live process
  std::string other = "other.safetensors.tmp-" + std::to_string(dead_pid()) + "-0";  // another target
  std::string odd = "m.safetensors.tmp-notapid";
  for (const auto& f : {dead, live, other, odd}) write_bytes(path(f), "partial");
  save_variables(path("m.safetensors"));
  auto names = files();
  std::sort(names.begin(), names.end());
  std::vector<std::string> expected = {live, "m.safetensors", odd, other};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(names, expected);
}

// ---- the public file plumbing: write_file_atomically, read_regular_file, open_regular_file ----

TEST_F(IOTest, AtomicWriteUsesUnpredictableNamesAndNeverFollowsPlantedLinks) {
  // A victim outside the folder, and links planted under every name the old scheme used.
  fs::path victim = dir_ / "victim";
  write_bytes(victim.string(), "precious");
  fs::create_directory(dir_ / "run");
  for (const std::string& name :
       {"out.tmp-" + std::to_string(::getpid()), "out.tmp-" + std::to_string(::getpid()) + "-0",
        "out.tmp-" + std::to_string(::getpid()) + "-1"})
    fs::create_symlink(victim, dir_ / "run" / name);
  std::string target = (dir_ / "run" / "out").string();
  std::vector<std::string> seen;
  for (int i = 0; i < 2; ++i)
    write_file_atomically(target, "test", [&](int fd) {
      for (const auto& e : fs::directory_iterator(dir_ / "run"))
        if (!fs::is_symlink(e.symlink_status())) seen.push_back(e.path().filename().string());
      write_all_to(fd, "new contents");
    });
  EXPECT_EQ(read_bytes(victim.string()), "precious");
  EXPECT_EQ(read_bytes(target), "new contents");
  // Two calls, two different names "out.tmp-<pid>-<16 hex digits>".
  std::vector<std::string> temps;
  for (const auto& name : seen)
    if (name != "out") temps.push_back(name);
  ASSERT_EQ(temps.size(), 2u);
  EXPECT_NE(temps[0], temps[1]);
  const std::string prefix = "out.tmp-" + std::to_string(::getpid()) + "-";
  for (const auto& name : temps) {
    EXPECT_EQ(name.rfind(prefix, 0), 0u) << name;
    EXPECT_EQ(name.size(), prefix.size() + 16) << name;
  }
  // A link planted at the target itself is replaced, not written through.
  fs::remove(target);
  fs::create_symlink(victim, target);
  write_file_atomically(target, "test", [&](int fd) { write_all_to(fd, "x"); });
  EXPECT_FALSE(fs::is_symlink(fs::symlink_status(target)));
  EXPECT_EQ(read_bytes(victim.string()), "precious");
}

TEST_F(IOTest, AtomicWriteThatFailsLeavesTheOldFileAndNoTemporary) {
  std::string target = path("out");
  write_bytes(target, "old");
  expect_error<IOError>(
      [&] {
        write_file_atomically(target, "my_writer",
                              [](int) { throw std::system_error(ENOSPC, std::generic_category()); });
      },
      {"my_writer", target, "left as it was"});
  EXPECT_THROW(write_file_atomically(target, "my_writer", [](int) { throw ValueError("mine"); }), ValueError);
  EXPECT_EQ(read_bytes(target), "old");
  EXPECT_EQ(files(), std::vector<std::string>{"out"});
}

TEST_F(IOTest, AtomicWriteRemovesStaleTemporariesOfEveryNamingScheme) {
  const std::string dead = std::to_string(dead_pid());
  const std::vector<std::string> stale = {"curves.png.tmp-" + dead, "curves.png.tmp-" + dead + "-3",
                                          "curves.png.tmp-" + dead + "-0123456789abcdef"};
  const std::string live = "curves.png.tmp-" + std::to_string(::getppid()) + "-0123456789abcdef";
  for (const auto& f : stale) write_bytes(path(f), "partial");
  write_bytes(path(live), "partial");
  write_file_atomically(path("curves.png"), "plot_history", [](int fd) { write_all_to(fd, "png"); });
  auto names = files();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"curves.png", live}));
}

TEST_F(IOTest, ReadRegularFileRefusesSpecialAndOversizedFilesWithoutBlocking) {
  write_bytes(path("small"), "0123456789");
  EXPECT_EQ(read_regular_file(path("small"), 10, "reader"), "0123456789");
  EXPECT_EQ(read_regular_file(path("small"), 1000, "reader"), "0123456789");
  expect_error<IOError>([&] { read_regular_file(path("small"), 9, "reader"); },
                        {"reader", "small", "10 bytes", "9 bytes"});
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  expect_error<IOError>([&] { read_regular_file(path("fifo"), 100, "reader"); },
                        {"reader", "fifo", "not a regular file"});
  fs::create_symlink("/dev/zero", dir_ / "zero");
  expect_error<IOError>([&] { read_regular_file(path("zero"), 100, "reader"); },
                        {"reader", "zero", "not a regular file"});
  expect_error<IOError>([&] { read_regular_file(dir_.string(), 100, "reader"); }, {"reader", "a folder"});
  expect_error<IOError>([&] { read_regular_file(path("missing"), 100, "reader"); },
                        {"reader", "missing", "cannot open"});
  std::uint64_t size = 0;
  int fd = open_regular_file(path("small"), 100, "reader", &size);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(size, 10u);
  char first = 0;
  EXPECT_EQ(::read(fd, &first, 1), 1);
  EXPECT_EQ(first, '0');
  ::close(fd);
  expect_error<IOError>([&] { open_regular_file(path("fifo"), 100, "opener"); }, {"opener", "not a regular file"});
}

TEST_F(IOTest, NpyRoundTripForEachDtype) {
  std::vector<Array> arrays = {
      testing::random_array({2, 3}, -5, 5, 1, DType::f32),
      testing::random_array({4, 1, 2}, -5, 5, 2, DType::f64),
      Array::from_vector<std::int32_t>({-1, 0, 2147483647}, {3}),
      Array::from_vector<std::int64_t>({-(std::int64_t{1} << 50), 7}, {2, 1}),
      Array::from_vector<std::uint8_t>({0, 128, 255, 1}, {2, 2}),
      Array::from_vector<bool>({true, false, true}, {3}),
      Array::scalar<double>(3.25),
      Array::zeros({0, 3}, DType::i32),
  };
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    SCOPED_TRACE(arrays[i].repr());
    std::string p = path("a" + std::to_string(i) + ".npy");
    arrays[i].save_npy(p);
    Array back = Array::load_npy(p);
    EXPECT_EQ(back.dtype(), arrays[i].dtype());
    EXPECT_EQ(back.shape(), arrays[i].shape());
    EXPECT_TRUE(back.equals(arrays[i]));
  }
}

TEST_F(IOTest, NpyTruncatedAndMissingFilesFail) {
  Array a = testing::random_array({10, 10}, -1, 1, 3, DType::f64);
  a.save_npy(path("a.npy"));
  std::string bytes = read_bytes(path("a.npy"));
  write_bytes(path("cut.npy"), bytes.substr(0, bytes.size() - 16));
  expect_error<IOError>([&] { Array::load_npy(path("cut.npy")); }, {"load_npy", "cut.npy", "truncated"});
  write_bytes(path("cut_header.npy"), bytes.substr(0, 30));
  expect_error<IOError>([&] { Array::load_npy(path("cut_header.npy")); }, {"load_npy", "truncated"});
  write_bytes(path("junk.npy"), "not an npy file at all");
  expect_error<IOError>([&] { Array::load_npy(path("junk.npy")); }, {"load_npy", "junk.npy"});
  expect_error<IOError>([&] { Array::load_npy(path("none.npy")); }, {"load_npy", "none.npy"});
}

// A .npy file with `header` (the dict text, padded here) and `data`, in format version `major`.
std::string npy_bytes(const std::string& header, const std::string& data, int major = 1) {
  std::string h = header + "\n";
  std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) out += static_cast<char>((h.size() >> (8 * i)) & 0xff);
  return out + h + data;
}

std::string f64_bytes(const std::vector<double>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(double));
}

TEST_F(IOTest, NpyHeaderIsParsedAsNumPyDoes) {
  const std::string six = f64_bytes({0, 1, 2, 3, 4, 5});
  struct Bad {
    std::string header, field;
  };
  const std::vector<Bad> bad = {
      {"{'descr': '<f8', 'fortran_order': False, }", "no key 'shape'"},
      {"{'descr': '<f8', 'shape': (6,), }", "no key 'fortran_order'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': [2, 3], }", "'shape' is '[2, 3]'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (2 3), }", "'shape' is '(2 3)'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (6), }", "'shape' is '(6)'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (6.0,), }", "'shape' is '(6.0,)'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (+6,), }", "'shape' is '(+6,)'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (0x6,), }", "'shape' is '(0x6,)'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (-6,), }", "'shape' is '(-6,)'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (,), }", "'shape' is '(,)'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,), }",
       "'shape' is '(99999999999999999999,)'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", "64-bit integer"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (6,), } junk", "text after its closing"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (6,), 'extra': 1}", "unexpected key 'extra'"},
      {"{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (6,)}", "repeats the key 'descr'"},
      {"{'descr': '<f8' 'fortran_order': False, 'shape': (6,)}", "not separated by commas"},
      {"{'descr': '>f8', 'fortran_order': False, 'shape': (6,), }", "'descr' is '>f8'"},
      {"{'descr': '<f2', 'fortran_order': False, 'shape': (6,), }", "'descr' is '<f2'"},
      {"{'descr': '<f8', 'fortran_order': 0, 'shape': (6,), }", "'fortran_order' is '0'"},
      {"('descr', '<f8')", "does not start with '{'"},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (6,), ", "not a well-formed dict"},
  };
  for (const auto& b : bad) {
    SCOPED_TRACE(b.header);
    write_bytes(path("bad.npy"), npy_bytes(b.header, six));
    expect_error<IOError>([&] { Array::load_npy(path("bad.npy")); }, {"load_npy", "bad.npy", b.field});
  }
  // What NumPy accepts: either quote style, any key order, spaces, no trailing comma.
  write_bytes(path("ok.npy"), npy_bytes("{\"shape\": ( 2 ,3 ),'fortran_order':False,  'descr':\"<f8\"}", six));
  Array a = Array::load_npy(path("ok.npy"));
  EXPECT_EQ(a.shape(), (Shape{2, 3}));
  EXPECT_EQ(a.at<double>({1, 2}), 5.0);
}

TEST_F(IOTest, NpyDataSizeIsCheckedBeforeAllocating) {
  // A 144-byte file whose header claims 2^31 x 2^31 float32 elements (2^64 bytes, wrapping to 0).
  std::string huge = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648, 2147483648), }", "");
  huge.resize(144, ' ');
  write_bytes(path("huge.npy"), huge);
  expect_error<IOError>([&] { Array::load_npy(path("huge.npy")); }, {"load_npy", "huge.npy", "'shape'", "2^48"});
  // Within the limit but far beyond the file: refused without allocating 2^40 bytes.
  write_bytes(path("big.npy"),
              npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (262144, 1048576), }", "abcd"));
  expect_error<IOError>([&] { Array::load_npy(path("big.npy")); },
                        {"big.npy", "truncated data", "1099511627776 bytes", "the file has 4"});
  // A header length beyond the end of the file.
  std::string bytes = npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", f64_bytes({1}));
  bytes[8] = '\xff';
  bytes[9] = '\x7f';
  write_bytes(path("len.npy"), bytes);
  expect_error<IOError>([&] { Array::load_npy(path("len.npy")); }, {"len.npy", "truncated header", "32767 bytes"});
  expect_error<IOError>([&] { Array::load_npy(dir_.string()); }, {"load_npy", "not a regular file"});
  ASSERT_EQ(::mkfifo(path("fifo.npy").c_str(), 0600), 0);  // opening must not wait for a writer
  expect_error<IOError>([&] { Array::load_npy(path("fifo.npy")); }, {"fifo.npy", "not a regular file"});
  // Bytes after the data are ignored, as numpy.load ignores them.
  write_bytes(path("extra.npy"),
              npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", f64_bytes({1, 2}) + "tail"));
  EXPECT_EQ(Array::load_npy(path("extra.npy")).to_vector(), (std::vector<double>{1, 2}));
}

TEST_F(IOTest, NpyVersionsAndFortranOrder) {
  const std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
  const std::string data = f64_bytes({0, 1, 2, 3, 4, 5});
  for (int major : {2, 3}) {
    write_bytes(path("v.npy"), npy_bytes(header, data, major));
    EXPECT_EQ(Array::load_npy(path("v.npy")).to_vector(), (std::vector<double>{0, 1, 2, 3, 4, 5})) << major;
  }
  write_bytes(path("v4.npy"), npy_bytes(header, data, 4));
  expect_error<IOError>([&] { Array::load_npy(path("v4.npy")); }, {"v4.npy", "version 4.0"});
  // numpy.save(np.asfortranarray([[0, 1, 2], [3, 4, 5]])) stores the columns: 0 3 1 4 2 5.
  write_bytes(path("f.npy"),
              npy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", f64_bytes({0, 3, 1, 4, 2, 5})));
  EXPECT_EQ(Array::load_npy(path("f.npy")).to_vector(), (std::vector<double>{0, 1, 2, 3, 4, 5}));
}

TEST_F(IOTest, NpySaveIsAtomic) {
  Array a = Array::from_vector<float>({1, 2, 3}, {3});
  a.save_npy(path("a.npy"));
  Array::from_vector<float>({4, 5}, {2}).save_npy(path("a.npy"));  // replaces the file whole
  EXPECT_EQ(Array::load_npy(path("a.npy")).to_vector(), (std::vector<double>{4, 5}));
  EXPECT_EQ(files(), (std::vector<std::string>{"a.npy"}));  // no temporary file left behind
  // A temporary file of a writer that died mid-save is removed by the next save, a live one kept.
  std::string dead = "a.npy.tmp-" + std::to_string(dead_pid()) + "-0";
  std::string live = "a.npy.tmp-" + std::to_string(::getppid()) + "-0";
  for (const auto& f : {dead, live}) write_bytes(path(f), "partial");
  a.save_npy(path("a.npy"));
  EXPECT_FALSE(fs::exists(path(dead)));
  EXPECT_TRUE(fs::exists(path(live)));
  fs::remove(path(live));
  expect_error<IOError>([&] { a.save_npy(path("missing/a.npy")); }, {"save_npy", "missing/a.npy"});
  fs::create_directory(dir_ / "dir.npy");
  expect_error<IOError>([&] { a.save_npy(path("dir.npy")); }, {"save_npy", "dir.npy", "left as it was"});
  EXPECT_EQ(files().size(), 2u);
}

}  // namespace
}  // namespace symx
