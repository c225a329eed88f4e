// The compiler driver: turns a generated C++ translation unit into a loaded shared object.
//
// compile_and_load() hashes the source together with the compiler command, the compiler's version
// line and the host CPU (the flags include -march=native) into a SHA-256 key, and then, in order:
//   1. returns the Library already loaded in this process for that key (a "memory hit");
//   2. loads <cache dir>/<key>.so when <key>.sha256 next to it holds the SHA-256 of its contents
//      and dlopen accepts it (a "disk hit");
//   3. otherwise runs the host compiler into a temporary file in the cache dir and renames the
//      result into place (<key>.so first, then <key>.sha256), so that processes sharing the cache
//      never load a partial file: a reader that finds no valid hash compiles the kernel itself, and
//      the loser of a race renames the same kernel over the winner's.
// A corrupt, truncated or unloadable entry is never loaded; it is rebuilt and overwritten.
//
// Environment:
//   SYMX_CXX        the compiler command (may hold arguments, split on whitespace); default: `c++`,
//                   else `g++`, found on PATH.
//   SYMX_CACHE_DIR  the disk cache; default $HOME/.cache/symx, or <tmp>/symx-cache-<uid> without
//                   HOME. Created when missing.
//   SYMX_DUMP_DIR   when set, every source that is loaded or compiled (not a memory hit) is also
//                   written there as <key>.cpp, before compiling, so failing sources can be read.
//
// Thread-safe. Loads of the same key are serialized (one compile, then memory hits); different
// keys compile concurrently. Do not fork while another thread is inside compile_and_load.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

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
};

// Compiles `source` (a complete C++ translation unit) into a shared object with the host compiler
// and loads it; or reuses it from the in-process or the disk cache. Throws InternalError with the
// compiler command and its output when the source does not compile (generated code that does not
// compile is a bug in symx), IOError when the compiler cannot be run or the cache dir cannot be
// written.
std::shared_ptr<Library> compile_and_load(const std::string& source, const CompileOptions& options = {});

// Counters, for tests: host compiler runs (failed ones included), loads from the disk cache, and
// loads answered by a Library already loaded in this process.
struct CompilerStats {
  std::int64_t compiles = 0, disk_hits = 0, memory_hits = 0;
};
CompilerStats compiler_stats();

// The compiler command and its fixed flags, without CompileOptions::extra_flags (part of the key).
std::string compiler_command();

// SHA-256 of `data` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

// Test-only: forgets the in-process key -> Library map, so that the next load of a key goes to the
// disk cache. Libraries still held stay loaded.
void clear_memory_cache_for_testing();

}  // namespace symx::codegen
