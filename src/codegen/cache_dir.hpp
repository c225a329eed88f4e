// Where compiled kernels are cached, and the checks that keep other users' code out of the cache.
//
// Trust model: a cached kernel is code that symx loads into the process, so the cache is exactly as
// trusted as the user's own files. Whoever can write the user's home (the user, root) can run code
// as the user anyway; the checks stop everybody else. A cache folder must be owned by the
// effective user and not writable by group or others (which also catches a POSIX ACL that grants
// write: its mask shows in the group bits); so must each .so and .sha256 in it, opened without
// following a symbolic link. The folders symx creates are 0700 and the files it publishes 0755
// (.so) and 0644 (.sha256), whatever the umask. The .sha256 beside a .so only detects accidents
// (a torn or truncated write): it is not a signature.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace symx::codegen {

// The folder to cache kernels in: $SYMX_CACHE_DIR, else $HOME/.cache/symx, created with mode
// 0700 (and any parents it creates) when missing. Returns the process's private folder instead
// (private_cache_dir) when there is no HOME, when the default folder cannot be created, or when
// the folder fails the checks above; the last two print one warning per process on stderr that
// says why and how to fix it. Throws IOError when $SYMX_CACHE_DIR cannot be created.
std::string trusted_cache_dir();

// A folder that only this process uses: mkdtemp("$TMPDIR/symx-private-XXXXXX"), mode 0700, made on
// first use (again if someone removed it) and removed when the process exits.
std::string private_cache_dir();

// Why a cache file with status `st` (from fstat of a descriptor opened with O_NOFOLLOW) must not
// be loaded; nullopt when it may be.
std::optional<std::string> untrusted_file_reason(const struct stat& st);

// Prints a warning about the refused cache file `path` (why: `reason`), once per process.
void warn_untrusted_file(const std::string& path, const std::string& reason);

// Creates `dir` and its missing parents with mode 0700. Throws IOError that names `env_name` as
// the setting to change.
void create_private_directories(const std::string& dir, const char* env_name);

// strerror(err), with a hint for a full disk or a read-only file system that names the setting
// (e.g. SYMX_CACHE_DIR) that moves the files elsewhere.
std::string describe_file_error(int err, const char* env_name);

// Removes what compiles of processes that died mid-compile (SIGKILL, out of memory, power loss)
// left in the cache folder `dir`: working folders "<key>.tmp.<pid>.<n>" (with the plain files and
// folders in them) and compiler-version memos "compiler-<hash>.version.tmp.<pid>.<n>", and only
// entries named exactly so. An entry is removed only when no process has its pid, it is owned by
// the user and over a minute old, and, for a working folder, no compile holds its flock (checked
// without following links); a link, and anything but plain files and folders, is never followed
// or removed. Best effort: failures are ignored. `compile_timeout` (seconds) is the age after
// which a working folder on a file system without flock counts as abandoned.
void remove_stale_compile_files(const std::string& dir, double compile_timeout);

// remove_stale_compile_files(dir, ...) the first time this process uses `dir`; later calls cost a
// set lookup, so the warm-cache lookup stays one readdir per process and folder, not per kernel.
void remove_stale_compile_files_once(const std::string& dir, double compile_timeout);

// Keeps the kernels in the cache folder `dir` (each "<64 hex>.so" with its ".sha256") at most
// `max_bytes` in all: while they are larger, removes the least recently used kernel (oldest mtime;
// compile_and_load sets it on every disk hit), its .sha256 first and then its .so, skipping those
// for which `in_use(key)` is true. Only files owned by the user and named exactly so, never
// following a link. A process that has a removed kernel loaded keeps it (its mapping stays); one
// that was about to load it finds the entry missing and compiles it again. Best effort: failures
// are ignored. Returns how many kernels were removed.
int evict_least_recently_used(const std::string& dir, std::uint64_t max_bytes,
                              const std::function<bool(const std::string& key)>& in_use);

// Test-only: the next refusal warns again.
void reset_cache_warnings_for_testing();

}  // namespace symx::codegen
