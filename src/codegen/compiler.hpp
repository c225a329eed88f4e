// The compiler driver: turns a generated C++ translation unit into a loaded shared object.
//
// compile_and_load() hashes the source together with the compiler command, the compiler's version
// line and the host CPU (the flags include -march=native) into a SHA-256 key, and then, in order:
//   1. returns the Library already loaded in this process for that key (a "memory hit");
//   2. loads <cache dir>/<key>.so when it and <key>.sha256 pass the ownership and mode checks of
//      cache_dir.hpp, <key>.sha256 holds the SHA-256 of the .so's contents, and dlopen accepts it
//      (a "disk hit");
//   3. otherwise runs the host compiler in a working folder <cache dir>/<key>.tmp.<pid>.<n>/ (its
//      own temporary files included), loads the result from there, and only then renames it into
//      place (<key>.so first, then <key>.sha256), so that processes sharing the cache never load a
//      partial file: a reader that finds no valid hash compiles the kernel itself, and the loser
//      of a race renames the same kernel over the winner's. The working folder is removed on every
//      path (success, failure, timeout). Then, when the kernels in the folder take more than
//      SYMX_CACHE_MAX_MB, the least recently used ones not loaded in this process are removed
//      (evict_least_recently_used in cache_dir.hpp; a disk hit marks a kernel as used).
// A corrupt, truncated, unloadable or untrusted entry is never loaded; it is rebuilt and overwritten.
//
// The compiler is not run for a disk hit: its version line is remembered in
// <cache dir>/compiler-<hash of the command>.version together with the identity (path, inode,
// size, mtime) of the command's executables, and asked again only when that identity changes. A
// command whose compiler is missing or broken keeps its last recorded version, so kernels cached
// with it still load on a machine without a working compiler.
//
// Environment:
//   SYMX_CXX              the compiler command (may hold arguments, split on whitespace); default:
//                         `c++`, else `g++`, found on PATH.
//   SYMX_CACHE_DIR        the disk cache; default $HOME/.cache/symx. Created (mode 0700) when
//                         missing. Without HOME, or when the folder fails the checks of
//                         cache_dir.hpp, a private temporary folder of this process (see there).
//   SYMX_CACHE_MAX_MB     megabytes the kernels in the disk cache may take (default 1024); a value
//                         that is not a number greater than 0 is a ValueError.
//   SYMX_COMPILE_TIMEOUT  seconds a compiler run may take (default 300); the compiler and the
//                         processes it started are killed after it. A value that is not a number
//                         greater than 0 is a ValueError.
//   SYMX_DUMP_DIR         when set, every source that is loaded or compiled (not a memory hit) is
//                         also written there as <key>.cpp, before compiling, so failing sources can
//                         be read; with it the loop-nest IR the source spells (CompileOptions::ir_text)
//                         as <key>.ir.
//
// Thread-safe. Loads of the same key are serialized (one compile, then memory hits); different
// keys compile concurrently. Do not fork while another thread is inside compile_and_load.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "codegen/hashing.hpp"  // sha256_hex, the hash of the cache keys

namespace symx::codegen {

namespace detail {
struct LibraryAccess;
}

// A loaded shared object; dlclose on destruction.
class Library {
 public:
  ~Library();
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  // The address of the symbol `name` (an extern "C" function of the generated code). Throws
  // InternalError when it is missing.
  void* symbol(const std::string& name) const;
  // The path of the shared object in the cache dir.
  const std::string& path() const { return path_; }
  // The cache key (64 hex digits).
  const std::string& key() const { return key_; }

 private:
  friend struct detail::LibraryAccess;
  Library(void* handle, std::string path, std::string key);

  void* handle_;
  std::string path_;
  std::string key_;
};

struct CompileOptions {
  // Appended to the compiler flags, split on whitespace (no quoting); part of the cache key.
  std::string extra_flags;
  // The loop-nest IR listing of the source's kernels (codegen/loop_ir.hpp), not part of the key:
  // written as <key>.ir next to <key>.cpp under SYMX_DUMP_DIR.
  std::string ir_text{};
};

// Compiles `source` (a complete C++ translation unit) into a shared object with the host compiler
// and loads it; or reuses it from the in-process or the disk cache. Throws InternalError with the
// compiler command and its output when a working compiler rejects the source (generated code that
// does not compile is a bug in symx). Throws IOError for what the user's machine must fix: no
// compiler (it names SYMX_CXX and g++), a compiler that timed out (SYMX_COMPILE_TIMEOUT), was
// killed by a signal (named) or wrote nothing loadable, a full disk, a cache folder that cannot be
// created or written. Throws ValueError for an invalid SYMX_COMPILE_TIMEOUT or SYMX_CACHE_MAX_MB.
std::shared_ptr<Library> compile_and_load(const std::string& source, const CompileOptions& options = {});

// Counters, for tests: host compiler runs (failed ones included), loads from the disk cache, and
// loads answered by a Library already loaded in this process.
struct CompilerStats {
  std::int64_t compiles = 0, disk_hits = 0, memory_hits = 0;
};
CompilerStats compiler_stats();

// The compiler command and its fixed flags, without CompileOptions::extra_flags (part of the key).
std::string compiler_command();

// Test-only: forgets the in-process key -> Library map and compiler versions, as in a new process,
// so that the next load of a key goes to the disk cache. Libraries still held stay loaded.
void clear_memory_cache_for_testing();

}  // namespace symx::codegen
