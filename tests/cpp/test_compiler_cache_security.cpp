// The compiler driver under hostile or broken surroundings: a kernel cache that other users can
// write, no HOME, a missing, hanging, crashing or lying host compiler, a full disk.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "codegen/cache_dir.hpp"
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
void write_file(const fs::path& path, const std::string& text) { symx::testing::write_bytes(path.string(), text); }

// An executable shell script at `path`.
void write_script(const fs::path& path, const std::string& body) {
  write_file(path, "#!/bin/sh\n" + body);
  ::chmod(path.c_str(), 0755);
}

struct stat stat_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st;
}

unsigned mode_of(const fs::path& path) { return stat_of(path).st_mode & 07777; }

// Shell lines that set $out to the argument after -o (fake compilers write their "library" there).
const char* const kFindOutput =
    "out=''; prev=''\nfor a in \"$@\"; do [ \"$prev\" = -o ] && out=\"$a\"; prev=\"$a\"; done\n";

// A fake compiler: answers --version like a compiler, and runs `body` for a compile.
std::string fake_compiler(const std::string& body) {
  return std::string("if [ \"$1\" = --version ]; then echo 'fake-c++ 1.0'; exit 0; fi\n") + kFindOutput + body;
}

// Each test gets its own SYMX_CACHE_DIR, TMPDIR and a fresh in-process state; the environment
// and the umask are restored afterwards.
class CompilerSurroundings : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "symx-surroundings-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    cache_ = root_ / "cache";
    tmp_ = root_ / "tmp";
    fs::create_directories(tmp_);
    saved_.emplace(std::initializer_list<const char*>{"SYMX_CACHE_DIR", "SYMX_DUMP_DIR", "SYMX_CXX",
                                                      "SYMX_COMPILE_TIMEOUT", "HOME", "PATH", "TMPDIR"});
    ::setenv("SYMX_CACHE_DIR", cache_.c_str(), 1);
    ::unsetenv("SYMX_DUMP_DIR");
    ::unsetenv("SYMX_CXX");
    ::unsetenv("SYMX_COMPILE_TIMEOUT");
    ::setenv("TMPDIR", tmp_.c_str(), 1);
    saved_umask_ = ::umask(022);
    cg::clear_memory_cache_for_testing();
    cg::reset_cache_warnings_for_testing();
  }
  void TearDown() override {
    if (mounted_) ::umount2(cache_.parent_path().c_str(), MNT_DETACH);
    ::umask(saved_umask_);
    saved_.reset();
    cg::clear_memory_cache_for_testing();
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // Names in `dir` (the cache by default).
  std::vector<std::string> names_in(const fs::path& dir) const {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) out.push_back(entry.path().filename().string());
    return out;
  }
  // Names in the cache other than the compiler-version memo.
  std::vector<std::string> kernel_files() const {
    std::vector<std::string> out;
    for (auto& name : names_in(cache_))
      if (name.rfind("compiler-", 0) != 0) out.push_back(name);
    return out;
  }

  fs::path root_, cache_, tmp_;
  bool mounted_ = false;
  mode_t saved_umask_ = 022;
  std::optional<symx::testing::SavedEnvironment> saved_;
};

// Starts `argv` (searched on PATH); returns its pid.
pid_t spawn(std::vector<const char*> argv) {
  argv.push_back(nullptr);
  pid_t pid = 0;
  EXPECT_EQ(::posix_spawnp(&pid, argv[0], nullptr, nullptr, const_cast<char* const*>(argv.data()), environ), 0)
      << argv[0];
  return pid;
}

// The pid of a process that has exited and been reaped: no process has it (until it is reused).
pid_t dead_pid() {
  pid_t pid = spawn({"true"});
  ::waitpid(pid, nullptr, 0);
  return pid;
}

// Sets the modification time of `path` (not of a link's target) an hour back: older than any
// grace period for a compile that has just started.
void make_old(const fs::path& path) {
  struct timespec times[2] = {{0, UTIME_OMIT}, {::time(nullptr) - 3600, 0}};
  EXPECT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0) << path;
}

// A folder named like the working folder of a compile of process `pid`, with files like a
// compile's (and a subfolder like the compiler's own temporary files), made an hour old.
fs::path make_work_folder(const fs::path& cache, const std::string& seed, pid_t pid) {
  fs::path folder = cache / (cg::sha256_hex(seed) + ".tmp." + std::to_string(pid) + ".0");
  fs::create_directories(folder / "cc-temp");
  ::chmod(folder.c_str(), 0700);
  write_file(folder / "source.cpp", "int x;\n");
  write_file(folder / "kernel.so", "partial");
  write_file(folder / "cc-temp" / "ccA1b2.s", "partial");
  make_old(folder);
  return folder;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += name + " ";
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Point 1: the cache is as trusted as the user's own files, and no more.

TEST_F(CompilerSurroundings, CacheFolderAndItsParentsAreCreatedPrivate) {
  ::umask(0);  // the most permissive umask: the modes must not come from it
  fs::path nested = root_ / "a" / "b" / "cache";
  ::setenv("SYMX_CACHE_DIR", nested.c_str(), 1);
  auto library = cg::compile_and_load(add_source("private-folders"));
  EXPECT_EQ(call_add_one(*library, 1), 2);
  EXPECT_EQ(fs::path(library->path()).parent_path(), nested);
  for (const fs::path& dir : {root_ / "a", root_ / "a" / "b", nested}) EXPECT_EQ(mode_of(dir), 0700u) << dir;
  // The published files are not writable by group or others either, whatever the umask.
  EXPECT_EQ(mode_of(library->path()) & 022, 0u);
  EXPECT_EQ(mode_of(nested / (library->key() + ".sha256")) & 022, 0u);
}

TEST_F(CompilerSurroundings, WritableCacheFolderIsRefusedWithOneWarning) {
  fs::create_directories(cache_);
  ::chmod(cache_.c_str(), 0777);
  testing::internal::CaptureStderr();
  auto library = cg::compile_and_load(add_source("writable-folder", 2));
  std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_EQ(call_add_one(*library, 40), 42);
  // Compiled into a private folder, nothing written into the refused one.
  fs::path used = fs::path(library->path()).parent_path();
  EXPECT_NE(used, cache_);
  EXPECT_EQ(mode_of(used), 0700u);
  EXPECT_EQ(stat_of(used).st_uid, ::geteuid());
  EXPECT_TRUE(names_in(cache_).empty()) << joined(names_in(cache_));
  // The warning says which folder, what was found, what is expected and how to fix it.
  for (const std::string& part :
       {cache_.string(), std::string("0777"), std::string("chmod 700"), std::string("SYMX_CACHE_DIR"), used.string()})
    EXPECT_NE(warning.find(part), std::string::npos) << part << " missing from: " << warning;

  // Group-writable is refused as well, and the warning is not repeated in this process.
  ::chmod(cache_.c_str(), 0770);
  testing::internal::CaptureStderr();
  auto second = cg::compile_and_load(add_source("writable-folder-2", 3));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(call_add_one(*second, 1), 4);
  EXPECT_NE(fs::path(second->path()).parent_path(), cache_);
  EXPECT_TRUE(names_in(cache_).empty());
}

TEST_F(CompilerSurroundings, CacheFolderOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a folder to another user";
  fs::create_directories(cache_);
  ::chmod(cache_.c_str(), 0700);
  ASSERT_EQ(::chown(cache_.c_str(), 65534, 65534), 0);
  testing::internal::CaptureStderr();
  auto library = cg::compile_and_load(add_source("foreign-folder", 5));
  std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_EQ(call_add_one(*library, 1), 6);
  EXPECT_NE(fs::path(library->path()).parent_path(), cache_);
  EXPECT_TRUE(names_in(cache_).empty());
  EXPECT_NE(warning.find("65534"), std::string::npos) << warning;
  EXPECT_NE(warning.find(cache_.string()), std::string::npos) << warning;
}

// The .sha256 beside a .so only catches accidents: a foreign kernel with a matching hash is loaded
// exactly when the files are as trusted as the user's own.
TEST_F(CompilerSurroundings, KernelFilesOthersCouldWriteAreNotLoaded) {
  std::string source = add_source("victim", 1);
  std::string key, so_path;
  {
    auto victim = cg::compile_and_load(source);
    key = victim->key();
    so_path = victim->path();
  }
  std::string evil;
  {
    auto other = cg::compile_and_load(add_source("intruder", 666));
    evil = read_file(other->path());
  }
  fs::path hash_path = cache_ / (key + ".sha256");
  auto plant = [&](mode_t so_mode, mode_t hash_mode) {
    fs::remove(so_path);
    write_file(so_path, evil);
    write_file(hash_path, cg::sha256_hex(evil) + "  " + key + ".so\n");
    ::chmod(so_path.c_str(), so_mode);
    ::chmod(hash_path.c_str(), hash_mode);
  };
  auto expect_rebuilt = [&](const char* what) {
    cg::clear_memory_cache_for_testing();
    cg::reset_cache_warnings_for_testing();
    auto before = cg::compiler_stats();
    testing::internal::CaptureStderr();
    auto library = cg::compile_and_load(source);
    std::string warning = testing::internal::GetCapturedStderr();
    EXPECT_EQ(call_add_one(*library, 41), 42) << what << ": the planted kernel was loaded";
    EXPECT_EQ(cg::compiler_stats().compiles, before.compiles + 1) << what;
    EXPECT_EQ(cg::compiler_stats().disk_hits, before.disk_hits) << what;
    EXPECT_NE(warning.find(key), std::string::npos) << what << ": " << warning;
    // The entry was replaced by a trusted one.
    EXPECT_EQ(mode_of(so_path) & 022, 0u) << what;
    EXPECT_EQ(read_file(hash_path).substr(0, 64), cg::sha256_hex(read_file(so_path))) << what;
  };

  plant(0666, 0644);
  expect_rebuilt("world-writable .so");
  plant(0664, 0644);
  expect_rebuilt("group-writable .so");
  plant(0644, 0666);
  expect_rebuilt("world-writable .sha256");
  {  // A symbolic link in place of the .so.
    fs::path elsewhere = root_ / "elsewhere.so";
    write_file(elsewhere, evil);
    ::chmod(elsewhere.c_str(), 0644);
    plant(0644, 0644);
    fs::remove(so_path);
    fs::create_symlink(elsewhere, so_path);
    expect_rebuilt("symlinked .so");
  }
  if (::geteuid() == 0) {
    plant(0644, 0644);
    ASSERT_EQ(::chown(so_path.c_str(), 65534, 65534), 0);
    expect_rebuilt(".so owned by another user");
  }

  // The trust model: a file the user wrote is the user's own code, and is loaded.
  plant(0644, 0644);
  cg::clear_memory_cache_for_testing();
  auto library = cg::compile_and_load(source);
  EXPECT_EQ(call_add_one(*library, 0), 666);
}

TEST_F(CompilerSurroundings, WithoutHomeTheCacheIsPrivateAndUnpredictable) {
  ::unsetenv("SYMX_CACHE_DIR");
  ::unsetenv("HOME");
  testing::internal::CaptureStderr();
  auto library = cg::compile_and_load(add_source("no-home", 7));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");  // not a problem to warn about
  EXPECT_EQ(call_add_one(*library, 1), 8);
  fs::path used = fs::path(library->path()).parent_path();
  EXPECT_NE(used.filename().string(), "symx-cache-" + std::to_string(::getuid()));
  EXPECT_EQ(mode_of(used), 0700u);
  EXPECT_EQ(stat_of(used).st_uid, ::geteuid());
  EXPECT_EQ(stat_of(used).st_nlink, 2u) << "only the kernel files, no sub-folders";
}

TEST_F(CompilerSurroundings, UncreatableDefaultCacheFallsBackWithAWarning) {
  // A daemon account's HOME that does not exist (Debian's nobody has /nonexistent).
  fs::path file = root_ / "a-file";
  write_file(file, "x");
  ::unsetenv("SYMX_CACHE_DIR");
  ::setenv("HOME", (file / "home").c_str(), 1);
  testing::internal::CaptureStderr();
  auto library = cg::compile_and_load(add_source("bad-home", 9));
  std::string warning = testing::internal::GetCapturedStderr();
  EXPECT_EQ(call_add_one(*library, 1), 10);
  EXPECT_EQ(mode_of(fs::path(library->path()).parent_path()), 0700u);
  EXPECT_NE(warning.find((file / "home").string()), std::string::npos) << warning;
  EXPECT_NE(warning.find("SYMX_CACHE_DIR"), std::string::npos) << warning;
}

// ---------------------------------------------------------------------------------------------
// Point 6: the host compiler.

TEST_F(CompilerSurroundings, CachedKernelLoadsWithoutAWorkingCompiler) {
  std::string source = add_source("no-compiler-needed", 4);
  { cg::compile_and_load(source); }
  fs::path bin = root_ / "bin";
  fs::create_directories(bin);
  for (const char* variant : {"missing", "broken"}) {
    if (std::string(variant) == "broken")
      for (const char* name : {"c++", "g++"}) write_script(bin / name, "echo 'compiler is broken' >&2\nexit 1\n");
    ::setenv("PATH", bin.c_str(), 1);      // neither c++ nor g++ works now
    cg::clear_memory_cache_for_testing();  // as in a new process
    auto before = cg::compiler_stats();
    try {
      auto library = cg::compile_and_load(source);
      EXPECT_EQ(call_add_one(*library, 1), 5) << variant;
      EXPECT_EQ(cg::compiler_stats().disk_hits, before.disk_hits + 1) << variant;
      EXPECT_EQ(cg::compiler_stats().compiles, before.compiles) << variant;
    } catch (const std::exception& e) {
      ADD_FAILURE() << variant << ": " << e.what();
    }
  }
}

// The same through the public API: a function whose kernels are cached runs on a machine whose
// compiler is gone.
TEST_F(CompilerSurroundings, CachedFunctionRunsWithoutACompiler) {
  namespace sx = symx;
  auto run = [] {
    sx::reset_default_graph();
    auto x = sx::placeholder({4}, sx::f32, "x");
    auto f = sx::function({x}, {sx::exp(x) * 3 - 1}, {}, {sx::Backend::compiled});
    return f({sx::Array::zeros({4})})[0];
  };
  sx::testing::expect_close(run(), {2, 2, 2, 2});
  fs::path bin = root_ / "empty-bin";
  fs::create_directories(bin);
  ::setenv("PATH", bin.c_str(), 1);
  cg::clear_memory_cache_for_testing();
  auto before = cg::compiler_stats();
  try {
    sx::testing::expect_close(run(), {2, 2, 2, 2});
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
  EXPECT_EQ(cg::compiler_stats().compiles, before.compiles);
  EXPECT_GT(cg::compiler_stats().disk_hits, before.disk_hits);
}

TEST_F(CompilerSurroundings, WarmLookupRunsNoSubprocessAndNewCompilersChangeTheKey) {
  fs::path log = root_ / "compiler.log";
  fs::path wrapper = root_ / "wrapper-c++";
  auto write_wrapper = [&](const std::string& version) {
    write_script(wrapper, "echo \"$@\" >> '" + log.string() + "'\nif [ \"$1\" = --version ]; then echo '" + version +
                              "'; exit 0; fi\nexec g++ \"$@\"\n");
  };
  write_wrapper("wrapper 1.0");
  ::setenv("SYMX_CXX", wrapper.c_str(), 1);
  std::string source = add_source("warm-no-subprocess", 6);
  std::string key = cg::compile_and_load(source)->key();
  std::string after_cold = read_file(log);
  EXPECT_NE(after_cold.find("--version"), std::string::npos);

  cg::clear_memory_cache_for_testing();  // as in a new process
  auto library = cg::compile_and_load(source);
  EXPECT_EQ(call_add_one(*library, 1), 7);
  EXPECT_EQ(read_file(log), after_cold) << "the warm lookup ran the compiler";

  // Another compiler behind the same command (an upgrade) gets its own keys.
  write_wrapper("wrapper 2.0, upgraded");
  cg::clear_memory_cache_for_testing();
  auto before = cg::compiler_stats();
  auto upgraded = cg::compile_and_load(source);
  EXPECT_NE(upgraded->key(), key);
  EXPECT_EQ(cg::compiler_stats().compiles, before.compiles + 1);
  EXPECT_EQ(call_add_one(*upgraded, 1), 7);
}

TEST_F(CompilerSurroundings, HangingCompilerIsStoppedAtTheTimeout) {
  fs::path pid_file = root_ / "sleeper.pid";
  fs::path script = root_ / "hanging-c++";
  write_script(script, fake_compiler("sleep 20 &\necho $! > '" + pid_file.string() + "'\nwait\n"));
  ::setenv("SYMX_CXX", script.c_str(), 1);
  ::setenv("SYMX_COMPILE_TIMEOUT", "1", 1);
  auto start = std::chrono::steady_clock::now();
  try {
    cg::compile_and_load(add_source("hangs"));
    ADD_FAILURE() << "expected an exception";
  } catch (const symx::IOError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("1 s"), std::string::npos) << message;
    EXPECT_NE(message.find("SYMX_COMPILE_TIMEOUT"), std::string::npos) << message;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an IOError: " << e.what();
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);
  // The compiler's own children were stopped too (gone, or a zombie waiting for init). SIGKILL
  // reaches them asynchronously, so the test gives the kernel up to 5 s to deliver it (a sleeper
  // that was not killed would stay alive for 20 s).
  int sleeper = std::atoi(read_file(pid_file).c_str());
  ASSERT_GT(sleeper, 0);
  std::string state;
  for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
       std::chrono::steady_clock::now() < until;) {
    state = read_file("/proc/" + std::to_string(sleeper) + "/stat");
    if (state.empty() || state.find(") Z") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!state.empty()) {
    EXPECT_NE(state.find(") Z"), std::string::npos) << state;
  }
  EXPECT_TRUE(kernel_files().empty()) << joined(kernel_files());
}

TEST_F(CompilerSurroundings, InvalidCompileTimeoutIsAValueError) {
  for (const char* value : {"abc", "0", "-5", "nan", "inf", "1e999", "10s", " 5"}) {
    ::setenv("SYMX_COMPILE_TIMEOUT", value, 1);
    try {
      cg::compile_and_load(add_source(std::string("timeout-") + value));
      ADD_FAILURE() << value << ": expected an exception";
    } catch (const symx::ValueError& e) {
      std::string message = e.what();
      EXPECT_NE(message.find("SYMX_COMPILE_TIMEOUT"), std::string::npos) << message;
      EXPECT_NE(message.find(value), std::string::npos) << message;
    } catch (const std::exception& e) {
      ADD_FAILURE() << value << ": not a ValueError: " << e.what();
    }
  }
  ::setenv("SYMX_COMPILE_TIMEOUT", "120.5", 1);
  EXPECT_EQ(call_add_one(*cg::compile_and_load(add_source("timeout-ok")), 1), 2);
}

TEST_F(CompilerSurroundings, CompilerKilledBySignalIsReportedByName) {
  for (const char* signal : {"KILL", "SEGV"}) {
    fs::path script = root_ / (std::string("dies-of-") + signal);
    write_script(script, fake_compiler(std::string("echo 'partial' > \"$out\"\nkill -") + signal + " $$\n"));
    ::setenv("SYMX_CXX", script.c_str(), 1);
    try {
      cg::compile_and_load(add_source(std::string("killed-") + signal));
      ADD_FAILURE() << "expected an exception";
    } catch (const symx::IOError& e) {
      std::string message = e.what();
      EXPECT_NE(message.find(std::string("SIG") + signal), std::string::npos) << message;
      EXPECT_EQ(message.find("does not compile"), std::string::npos) << message;
    } catch (const std::exception& e) {
      ADD_FAILURE() << signal << ": not an IOError: " << e.what();
    }
    EXPECT_TRUE(kernel_files().empty()) << signal << ": " << joined(kernel_files());
  }
}

TEST_F(CompilerSurroundings, MissingDefaultCompilerSaysWhatToDo) {
  fs::path bin = root_ / "empty-bin";
  fs::create_directories(bin);
  ::setenv("PATH", bin.c_str(), 1);
  try {
    cg::compile_and_load(add_source("no-default-compiler"));
    ADD_FAILURE() << "expected an exception";
  } catch (const symx::IOError& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("SYMX_CXX"), std::string::npos) << message;
    EXPECT_NE(message.find("g++"), std::string::npos) << message;
  }
}

TEST_F(CompilerSurroundings, FailedCompilesLeaveNoTemporaryFiles) {
  // Fake compilers that leave a temporary file of their own in $TMPDIR, then fail in three ways.
  std::vector<std::pair<std::string, std::string>> endings = {{"exits", "exit 1\n"},
                                                              {"killed", "kill -KILL $$\n"},
                                                              {"times-out", "sleep 20\n"}};
  ::setenv("SYMX_COMPILE_TIMEOUT", "1", 1);
  for (const auto& [name, ending] : endings) {
    fs::path script = root_ / ("leaves-" + name);
    write_script(script, fake_compiler("echo x > \"${TMPDIR:-/tmp}/fake-compiler-temp.$$\"\necho partial > \"$out\"\n" +
                                       ending));
    ::setenv("SYMX_CXX", script.c_str(), 1);
    EXPECT_THROW(cg::compile_and_load(add_source("leftovers-" + name)), std::exception) << name;
    EXPECT_TRUE(kernel_files().empty()) << name << ": " << joined(kernel_files());
    EXPECT_TRUE(names_in(tmp_).empty()) << name << ": " << joined(names_in(tmp_));
  }
  // A real compiler failing on a syntax error leaves nothing either.
  ::unsetenv("SYMX_CXX");
  EXPECT_THROW(cg::compile_and_load("extern \"C\" int f( { }\n"), symx::InternalError);
  EXPECT_TRUE(kernel_files().empty()) << joined(kernel_files());
  EXPECT_TRUE(names_in(tmp_).empty()) << joined(names_in(tmp_));
}

// A process killed mid-compile (SIGKILL, out of memory, power loss) cannot remove its working
// folder; the next process that uses the cache folder does.
TEST_F(CompilerSurroundings, WorkFoldersOfDeadProcessesAreRemoved) {
  fs::create_directories(cache_);
  ::chmod(cache_.c_str(), 0700);
  const pid_t dead = dead_pid();
  fs::path folder = make_work_folder(cache_, "dead-compile", dead);
  // Left by an earlier process that had this process's pid (before a reboot): this process's own
  // compiles are recent and locked, so an old unlocked folder with its pid is not one of them.
  fs::path earlier = make_work_folder(cache_, "before-a-reboot", ::getpid());
  // A compiler-version memo that a dead process was writing when it was killed.
  fs::path memo = cache_ / ("compiler-0123456789abcdef.version.tmp." + std::to_string(dead) + ".3");
  write_file(memo, "partial");
  make_old(memo);
  auto library = cg::compile_and_load(add_source("after-a-killed-compile"));
  EXPECT_EQ(call_add_one(*library, 1), 2);
  EXPECT_FALSE(fs::exists(fs::symlink_status(folder))) << joined(names_in(cache_));
  EXPECT_FALSE(fs::exists(fs::symlink_status(earlier))) << joined(names_in(cache_));
  EXPECT_FALSE(fs::exists(fs::symlink_status(memo))) << joined(names_in(cache_));
}

TEST_F(CompilerSurroundings, LiveCompilesOtherNamesAndLinksAreKept) {
  fs::create_directories(cache_);
  ::chmod(cache_.c_str(), 0700);
  const pid_t dead = dead_pid();
  const std::string dead_text = std::to_string(dead);
  const std::string key = cg::sha256_hex("kept");
  // A live process's folder (its pid exists), although old and not locked.
  const pid_t sleeper = spawn({"sleep", "60"});
  fs::path live = make_work_folder(cache_, "live-compile", sleeper);
  // A folder locked as a compiling process locks it, under a pid this process cannot see (as from
  // another pid namespace sharing the cache folder).
  fs::path locked = make_work_folder(cache_, "locked-compile", dead);
  int lock_fd = ::open(locked.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(lock_fd, 0);
  ASSERT_EQ(::flock(lock_fd, LOCK_EX), 0);
  // A folder of a dead pid made just now: a compile that has not taken its lock yet may own it.
  fs::path recent = cache_ / (cg::sha256_hex("recent") + ".tmp." + dead_text + ".0");
  fs::create_directories(recent);
  // Names that are not symx's working folders exactly.
  std::vector<fs::path> others;
  for (const std::string& name :
       {"notes.tmp." + dead_text + ".0", key + ".tmp." + dead_text, key + ".tmp." + dead_text + ".0.bak",
        key.substr(1) + ".tmp." + dead_text + ".0", "X" + key.substr(1) + ".tmp." + dead_text + ".0"}) {
    others.push_back(cache_ / name);
    fs::create_directories(others.back());
    write_file(others.back() / "file", "mine");
    make_old(others.back());
  }
  // A link named like a dead process's working folder, and a dead process's working folder that
  // holds a link: neither link's target is touched.
  fs::path outside = root_ / "outside";
  fs::create_directories(outside);
  write_file(outside / "precious", "keep me");
  fs::path link = cache_ / (cg::sha256_hex("link") + ".tmp." + dead_text + ".0");
  fs::create_directory_symlink(outside, link);
  make_old(link);
  fs::path holder = make_work_folder(cache_, "holds-a-link", dead);
  fs::create_directory_symlink(outside, holder / "link");
  make_old(holder);

  auto library = cg::compile_and_load(add_source("beside-live-compiles"));
  EXPECT_EQ(call_add_one(*library, 1), 2);
  ::kill(sleeper, SIGKILL);
  ::waitpid(sleeper, nullptr, 0);
  ::close(lock_fd);
  for (const fs::path& kept : {live, locked})
    EXPECT_TRUE(fs::exists(kept / "source.cpp") && fs::exists(kept / "cc-temp" / "ccA1b2.s")) << kept;
  EXPECT_TRUE(fs::is_directory(recent));
  for (const fs::path& other : others) EXPECT_EQ(read_file(other / "file"), "mine") << other;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_symlink(holder / "link"));
  EXPECT_EQ(read_file(outside / "precious"), "keep me");
  EXPECT_EQ(names_in(outside).size(), 1u) << joined(names_in(outside));
}

// The folder is looked through once per process, not on every lookup of a cached kernel.
TEST_F(CompilerSurroundings, StaleWorkFoldersAreLookedForOncePerProcess) {
  auto library = cg::compile_and_load(add_source("first-use"));
  fs::path later = make_work_folder(cache_, "killed-later", dead_pid());
  cg::clear_memory_cache_for_testing();
  const cg::CompilerStats before = cg::compiler_stats();
  auto again = cg::compile_and_load(add_source("first-use"));
  EXPECT_EQ(cg::compiler_stats().disk_hits, before.disk_hits + 1) << "not a warm lookup";
  EXPECT_TRUE(fs::is_directory(later));
}

TEST_F(CompilerSurroundings, OutputThatDoesNotLoadIsNotPublished) {
  fs::path script = root_ / "writes-junk";
  write_script(script, fake_compiler("echo 'not an ELF file' > \"$out\"\nexit 0\n"));
  ::setenv("SYMX_CXX", script.c_str(), 1);
  try {
    cg::compile_and_load(add_source("junk-output"));
    ADD_FAILURE() << "expected an exception";
  } catch (const symx::IOError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot load"), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an IOError: " << e.what();
  }
  EXPECT_TRUE(kernel_files().empty()) << joined(kernel_files());
}

TEST_F(CompilerSurroundings, FullDiskIsReportedAsSuch) {
  fs::path disk = root_ / "disk";
  fs::create_directories(disk);
  if (::mount("tmpfs", disk.c_str(), "tmpfs", 0, "size=1m,mode=0700") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (" << std::strerror(errno) << ")";
  cache_ = disk / "cache";
  mounted_ = true;
  ::setenv("SYMX_CACHE_DIR", cache_.c_str(), 1);
  fs::create_directories(cache_);
  ::chmod(cache_.c_str(), 0700);
  {  // Fill the disk.
    std::ofstream filler(disk / "filler", std::ios::binary);
    std::string block(4096, 'x');
    while (filler.write(block.data(), static_cast<std::streamsize>(block.size()))) {}
  }
  auto expect_disk_full = [&](const char* what) {
    try {
      cg::compile_and_load(add_source(std::string("full-disk-") + what));
      ADD_FAILURE() << what << ": expected an exception";
    } catch (const symx::IOError& e) {
      std::string message = e.what();
      EXPECT_NE(message.find("No space left on device"), std::string::npos) << what << ": " << message;
      EXPECT_NE(message.find("SYMX_CACHE_DIR"), std::string::npos) << what << ": " << message;
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << ": not an IOError: " << e.what();
    }
    EXPECT_TRUE(kernel_files().empty()) << what << ": " << joined(kernel_files());
  };
  expect_disk_full("symx writes");
  // Room for the source, not for what the compiler writes.
  fs::resize_file(disk / "filler", fs::file_size(disk / "filler") - 8192);
  expect_disk_full("compiler writes");
}
