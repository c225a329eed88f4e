// The compiler driver: compile, load, in-process and disk caches, integrity checks, concurrency.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "codegen/compiler.hpp"
#include "compiler_test_util.hpp"
#include "symx/error.hpp"
#include "test_util.hpp"

namespace cg = symx::codegen;
namespace fs = std::filesystem;

namespace {

using symx::testing::add_source;
using symx::testing::AddFn;
using symx::testing::call_add_one;

std::string read_file(const fs::path& path) { return symx::testing::read_bytes(path.string()); }

// Each test gets its own SYMX_CACHE_DIR (and a fresh in-process map), removed afterwards.
class CompilerCache : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "symx-compiler-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    cache_ = root_ / "cache";  // does not exist yet: compile_and_load creates it
    saved_.emplace(std::initializer_list<const char*>{"SYMX_CACHE_DIR", "SYMX_DUMP_DIR", "SYMX_CXX"});
    ::setenv("SYMX_CACHE_DIR", cache_.c_str(), 1);
    ::unsetenv("SYMX_DUMP_DIR");
    cg::clear_memory_cache_for_testing();
  }
  void TearDown() override {
    saved_.reset();
    cg::clear_memory_cache_for_testing();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // Names in the cache dir that end with `suffix` (or contain ".tmp." when suffix is ".tmp.").
  std::vector<std::string> cache_files(const std::string& pattern) const {
    std::vector<std::string> out;
    if (!fs::exists(cache_)) return out;
    for (const auto& entry : fs::directory_iterator(cache_)) {
      std::string name = entry.path().filename().string();
      bool match = pattern == ".tmp." ? name.find(".tmp.") != std::string::npos
                                      : name.size() >= pattern.size() &&
                                            name.compare(name.size() - pattern.size(), pattern.size(), pattern) == 0;
      if (match) out.push_back(name);
    }
    return out;
  }

  fs::path root_, cache_;
  std::optional<symx::testing::SavedEnvironment> saved_;
};

}  // namespace

TEST(CompilerHash, Sha256KnownVectors) {
  EXPECT_EQ(cg::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(cg::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(cg::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(cg::sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  // Lengths around the padding boundary (55, 56, 64 bytes) agree with a split update.
  for (std::size_t n : {55u, 56u, 63u, 64u, 65u, 119u, 120u})
    EXPECT_EQ(cg::sha256_hex(std::string(n, 'x')).size(), 64u) << n;
  EXPECT_NE(cg::sha256_hex(std::string(55, 'x')), cg::sha256_hex(std::string(56, 'x')));
}

TEST(CompilerCommand, HoldsTheFixedFlags) {
  std::string command = cg::compiler_command();
  for (const char* flag : {"-O3", "-march=native", "-fopenmp", "-std=c++20", "-shared", "-fPIC", "-fno-math-errno"})
    EXPECT_NE(command.find(flag), std::string::npos) << flag << " missing from " << command;
}

TEST_F(CompilerCache, CompilesLoadsAndReusesInProcess) {
  auto before = cg::compiler_stats();
  auto library = cg::compile_and_load(add_source("in-process"));
  ASSERT_TRUE(library);
  EXPECT_EQ(call_add_one(*library, 41), 42);
  auto after_first = cg::compiler_stats();
  EXPECT_EQ(after_first.compiles, before.compiles + 1);
  EXPECT_EQ(after_first.disk_hits, before.disk_hits);
  EXPECT_TRUE(fs::exists(library->path()));
  EXPECT_EQ(fs::path(library->path()).parent_path(), cache_);
  EXPECT_EQ(fs::path(library->path()).filename(), library->key() + ".so");
  EXPECT_EQ(library->key().size(), 64u);

  auto again = cg::compile_and_load(add_source("in-process"));
  EXPECT_EQ(again.get(), library.get());
  auto after_second = cg::compiler_stats();
  EXPECT_EQ(after_second.compiles, after_first.compiles);
  EXPECT_EQ(after_second.memory_hits, after_first.memory_hits + 1);

  // The integrity file holds the SHA-256 of the .so, in sha256sum's format.
  std::string recorded = read_file(cache_ / (library->key() + ".sha256"));
  EXPECT_EQ(recorded, cg::sha256_hex(read_file(library->path())) + "  " + library->key() + ".so\n");

  EXPECT_THROW(library->symbol("no_such_symbol"), symx::InternalError);
  EXPECT_TRUE(cache_files(".tmp.").empty());
}

TEST_F(CompilerCache, DiskHitAfterForgettingTheInProcessMap) {
  std::string source = add_source("disk-hit");
  std::string path;
  {
    auto library = cg::compile_and_load(source);
    EXPECT_EQ(call_add_one(*library, 1), 2);
    path = library->path();
  }
  cg::clear_memory_cache_for_testing();
  auto before = cg::compiler_stats();
  auto library = cg::compile_and_load(source);
  EXPECT_EQ(call_add_one(*library, 10), 11);
  EXPECT_EQ(library->path(), path);
  auto after = cg::compiler_stats();
  EXPECT_EQ(after.compiles, before.compiles);
  EXPECT_EQ(after.disk_hits, before.disk_hits + 1);
  EXPECT_EQ(after.memory_hits, before.memory_hits);
}

TEST_F(CompilerCache, ExpiredLibraryIsReloadedFromDisk) {
  // Without the test hook: once every holder dropped the Library, the next load goes to disk.
  std::string source = add_source("expired");
  cg::compile_and_load(source).reset();
  auto before = cg::compiler_stats();
  auto library = cg::compile_and_load(source);
  EXPECT_EQ(call_add_one(*library, 0), 1);
  EXPECT_EQ(cg::compiler_stats().disk_hits, before.disk_hits + 1);
  EXPECT_EQ(cg::compiler_stats().compiles, before.compiles);
}

TEST_F(CompilerCache, CorruptEntriesAreRebuiltNeverLoaded) {
  std::string source = add_source("corrupt", 5);
  std::string path, key;
  {
    auto library = cg::compile_and_load(source);
    path = library->path();
    key = library->key();
  }
  fs::path hash_path = cache_ / (key + ".sha256");
  std::string good = read_file(path);
  ASSERT_GT(good.size(), 1000u);

  auto reload_expecting_compile = [&](const char* what) {
    cg::clear_memory_cache_for_testing();
    auto before = cg::compiler_stats();
    auto library = cg::compile_and_load(source);
    EXPECT_EQ(call_add_one(*library, 1), 6) << what;
    EXPECT_EQ(cg::compiler_stats().compiles, before.compiles + 1) << what;
    EXPECT_EQ(cg::compiler_stats().disk_hits, before.disk_hits) << what;
    // The rebuilt entry is valid again.
    EXPECT_EQ(read_file(hash_path).substr(0, 64), cg::sha256_hex(read_file(path))) << what;
  };

  {  // Bytes overwritten in place.
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(good.size() / 2));
    f.write("\xde\xad\xbe\xef", 4);
  }
  reload_expecting_compile("overwritten bytes");

  fs::resize_file(path, fs::file_size(path) / 2);
  reload_expecting_compile("truncated");

  fs::resize_file(path, 0);
  reload_expecting_compile("empty");

  fs::remove(hash_path);
  reload_expecting_compile("missing hash file");

  { std::ofstream(hash_path, std::ios::trunc) << "not a hash\n"; }
  reload_expecting_compile("garbage hash file");

  {  // Hash matches, but dlopen rejects the file.
    std::string junk = "this is not an ELF file, but its hash is recorded correctly";
    { std::ofstream(path, std::ios::binary | std::ios::trunc) << junk; }
    { std::ofstream(hash_path, std::ios::trunc) << cg::sha256_hex(junk) << "  " << key << ".so\n"; }
  }
  reload_expecting_compile("unloadable .so");

  fs::remove(path);
  reload_expecting_compile("missing .so");

  EXPECT_TRUE(cache_files(".tmp.").empty());
  EXPECT_EQ(cache_files(".so").size(), 1u);
  EXPECT_EQ(cache_files(".sha256").size(), 1u);
}

TEST_F(CompilerCache, ExtraFlagsAreUsedAndKeyed) {
  std::string source =
      "#ifndef VALUE\n#error VALUE undefined\n#endif\nextern \"C\" int add_one(int x) { return x + VALUE; }\n";
  auto seven = cg::compile_and_load(source, {"-DVALUE=7"});
  auto eight = cg::compile_and_load(source, {" -DVALUE=8 "});
  EXPECT_NE(seven->key(), eight->key());
  EXPECT_EQ(call_add_one(*seven, 0), 7);
  EXPECT_EQ(call_add_one(*eight, 0), 8);
  // Whitespace in extra_flags does not change the key.
  auto before = cg::compiler_stats();
  auto eight_again = cg::compile_and_load(source, {"-DVALUE=8"});
  EXPECT_EQ(eight_again.get(), eight.get());
  EXPECT_EQ(cg::compiler_stats().memory_hits, before.memory_hits + 1);
}

TEST_F(CompilerCache, DumpDirReceivesTheSource) {
  fs::path dump = root_ / "dump" / "nested";
  ::setenv("SYMX_DUMP_DIR", dump.c_str(), 1);
  std::string source = add_source("dumped");
  auto library = cg::compile_and_load(source);
  EXPECT_EQ(read_file(dump / (library->key() + ".cpp")), source);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dump)) ++files;
  EXPECT_EQ(files, 1u);  // no temp file left next to it
}

TEST_F(CompilerCache, SyntaxErrorThrowsWithTheCompilerOutput) {
  fs::path dump = root_ / "dump";
  ::setenv("SYMX_DUMP_DIR", dump.c_str(), 1);
  std::string source = "extern \"C\" int broken_kernel(int x) { return x +* ; }\n";
  auto before = cg::compiler_stats();
  try {
    cg::compile_and_load(source);
    FAIL() << "expected an exception";
  } catch (const symx::InternalError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("does not compile"), std::string::npos) << message;
    EXPECT_NE(message.find("error"), std::string::npos) << message;          // the compiler's diagnostic
    EXPECT_NE(message.find("broken_kernel"), std::string::npos) << message;  // quoted from the source
    EXPECT_NE(message.find("-march=native"), std::string::npos) << message;  // the command
    EXPECT_NE(message.find(dump.string()), std::string::npos) << message;    // where the source is
  }
  EXPECT_EQ(cg::compiler_stats().compiles, before.compiles + 1);
  EXPECT_TRUE(fs::exists(dump));
  EXPECT_TRUE(cache_files(".tmp.").empty());
  EXPECT_TRUE(cache_files(".so").empty());
  EXPECT_TRUE(cache_files(".sha256").empty());
}

TEST_F(CompilerCache, MissingCompilerIsAnIOError) {
  ::setenv("SYMX_CXX", "/nonexistent/symx-no-such-compiler", 1);
  try {
    cg::compile_and_load(add_source("no-compiler"));
    FAIL() << "expected an exception";
  } catch (const symx::IOError& e) {
    EXPECT_NE(std::string(e.what()).find("symx-no-such-compiler"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("SYMX_CXX"), std::string::npos) << e.what();
  }
}

TEST_F(CompilerCache, SymxCxxMayCarryArguments) {
  ::setenv("SYMX_CXX", "g++ -DVIA_SYMX_CXX=3", 1);
  EXPECT_EQ(cg::compiler_command().rfind("g++ -DVIA_SYMX_CXX=3 -O3", 0), 0u) << cg::compiler_command();
  auto library = cg::compile_and_load("extern \"C\" int add_one(int x) { return x + VIA_SYMX_CXX; }\n");
  EXPECT_EQ(call_add_one(*library, 1), 4);
}

TEST_F(CompilerCache, ThreadsCompilingTheSameSourceShareOneLibrary) {
  std::string source = add_source("threads");
  auto before = cg::compiler_stats();
  constexpr int kThreads = 4;
  std::vector<std::shared_ptr<cg::Library>> results(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      try {
        results[i] = cg::compile_and_load(source);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    ASSERT_TRUE(errors[i].empty()) << errors[i];
    ASSERT_TRUE(results[i]);
    EXPECT_EQ(results[i].get(), results[0].get());
    EXPECT_EQ(call_add_one(*results[i], i), i + 1);
  }
  auto after = cg::compiler_stats();
  EXPECT_EQ(after.compiles, before.compiles + 1);
  EXPECT_EQ(after.memory_hits, before.memory_hits + kThreads - 1);
  EXPECT_TRUE(cache_files(".tmp.").empty());
}

TEST_F(CompilerCache, ThreadsCompilingDifferentSources) {
  constexpr int kThreads = 4;
  std::vector<int> values(kThreads, -1);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      try {
        auto library = cg::compile_and_load(add_source("different", i + 1));
        values[i] = call_add_one(*library, 100);
      } catch (...) {}
    });
  for (auto& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(values[i], 101 + i);
  EXPECT_EQ(cache_files(".so").size(), static_cast<std::size_t>(kThreads));
  EXPECT_TRUE(cache_files(".tmp.").empty());
}

// Two compiles of one source write the same bytes (nothing of the temporary file's name gets into
// the object), so concurrent writers of a key can never leave one's .so beside another's hash.
TEST_F(CompilerCache, CompilesAreByteIdentical) {
  std::string source = add_source("identical", 3);
  auto first = cg::compile_and_load(source);
  std::string key = first->key();
  fs::path other = root_ / "other-cache";
  ::setenv("SYMX_CACHE_DIR", other.c_str(), 1);
  cg::clear_memory_cache_for_testing();
  auto second = cg::compile_and_load(source);
  ASSERT_EQ(second->key(), key);
  std::string a = read_file(cache_ / (key + ".so")), b = read_file(other / (key + ".so"));
  EXPECT_FALSE(a.empty());
  EXPECT_TRUE(a == b) << "the two compiles of one source differ";
}

TEST_F(CompilerCache, ProcessesCompilingTheSameSourceShareTheCache) {
  std::string source = add_source("processes", 2);
  constexpr int kChildren = 3;
  int start[2];
  ASSERT_EQ(::pipe(start), 0);
  std::vector<pid_t> children;
  for (int i = 0; i < kChildren; ++i) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Child: wait for the start signal (the pipe closing), compile, check, exit. No gtest here.
      ::close(start[1]);
      char byte;
      while (::read(start[0], &byte, 1) > 0) {}
      int status = 1;
      try {
        auto library = cg::compile_and_load(source);
        status = call_add_one(*library, 40) == 42 ? 0 : 2;
      } catch (...) {
        status = 3;
      }
      ::_exit(status);
    }
    children.push_back(pid);
  }
  ::close(start[0]);
  ::close(start[1]);  // all children start together
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  // Exactly one valid entry, no temp files; this process loads it from disk.
  EXPECT_EQ(cache_files(".so").size(), 1u);
  EXPECT_EQ(cache_files(".sha256").size(), 1u);
  EXPECT_TRUE(cache_files(".tmp.").empty());
  auto before = cg::compiler_stats();
  auto library = cg::compile_and_load(source);
  EXPECT_EQ(call_add_one(*library, 0), 2);
  EXPECT_EQ(cg::compiler_stats().disk_hits, before.disk_hits + 1);
  EXPECT_EQ(cg::compiler_stats().compiles, before.compiles);
}

TEST_F(CompilerCache, UnwritableCacheDirIsAnIOError) {
  fs::path file = root_ / "a-file";
  { std::ofstream(file) << "x"; }
  ::setenv("SYMX_CACHE_DIR", (file / "cache").c_str(), 1);
  EXPECT_THROW(cg::compile_and_load(add_source("unwritable")), symx::IOError);
}

namespace {

void set_mtime(const std::string& path, std::time_t seconds) {
  struct timespec times[2] = {{seconds, 0}, {seconds, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0) << path;
}

std::uintmax_t entry_bytes(const std::string& so_path) {
  return fs::file_size(so_path) + fs::file_size(fs::path(so_path).replace_extension(".sha256"));
}

}  // namespace

TEST_F(CompilerCache, SizeBoundEvictsTheLeastRecentlyUsedKernelsNotLoaded) {
  symx::testing::SavedEnvironment saved({"SYMX_CACHE_MAX_MB"});
  ::unsetenv("SYMX_CACHE_MAX_MB");
  std::string a, b, c;
  {
    auto la = cg::compile_and_load(add_source("evict-a"));
    auto lb = cg::compile_and_load(add_source("evict-b"));
    a = la->path();
    b = lb->path();
  }
  // b is used (a disk hit marks it), a is not: a is the least recently used.
  set_mtime(a, 1000000000);
  set_mtime(b, 1000000000);
  cg::clear_memory_cache_for_testing();
  EXPECT_EQ(call_add_one(*cg::compile_and_load(add_source("evict-b")), 1), 2);
  EXPECT_GT(fs::last_write_time(b), fs::last_write_time(a));
  // Room for two kernels (entries of one source differ by a few bytes): adding c evicts a only.
  const double megabytes = static_cast<double>(entry_bytes(b) * 2 + entry_bytes(b) / 2) / (1024.0 * 1024.0);
  ::setenv("SYMX_CACHE_MAX_MB", std::to_string(megabytes).c_str(), 1);
  auto lc = cg::compile_and_load(add_source("evict-c"));
  c = lc->path();
  EXPECT_FALSE(fs::exists(a));
  EXPECT_FALSE(fs::exists(fs::path(a).replace_extension(".sha256")));
  EXPECT_TRUE(fs::exists(b));
  EXPECT_TRUE(fs::exists(c));
  // A bound smaller than any kernel: what this process has loaded stays (c), the rest goes (b).
  ::setenv("SYMX_CACHE_MAX_MB", "0.000001", 1);
  auto ld = cg::compile_and_load(add_source("evict-d"));
  EXPECT_FALSE(fs::exists(b));
  EXPECT_TRUE(fs::exists(c));
  EXPECT_TRUE(fs::exists(ld->path()));
  EXPECT_EQ(call_add_one(*lc, 1), 2);
  EXPECT_EQ(call_add_one(*ld, 1), 2);
  // An evicted kernel is compiled again when needed.
  auto before = cg::compiler_stats();
  lc.reset();
  auto la = cg::compile_and_load(add_source("evict-a"));
  EXPECT_EQ(call_add_one(*la, 5), 6);
  EXPECT_EQ(cg::compiler_stats().compiles, before.compiles + 1);
  EXPECT_FALSE(fs::exists(c));  // no longer loaded, so evicted by that compile
  EXPECT_TRUE(cache_files(".tmp.").empty());
}

TEST_F(CompilerCache, InvalidCacheBoundIsAValueError) {
  symx::testing::SavedEnvironment saved({"SYMX_CACHE_MAX_MB"});
  for (const char* bad : {"0", "-5", "lots", "nan"}) {
    ::setenv("SYMX_CACHE_MAX_MB", bad, 1);
    symx::testing::expect_error<symx::ValueError>([&] { cg::compile_and_load(add_source("bound")); },
                                                  {"SYMX_CACHE_MAX_MB='" + std::string(bad) + "'", "megabytes"});
  }
}
