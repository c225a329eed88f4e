// The kernel cache's folder and its checks; see cache_dir.hpp for the trust model.
#include "codegen/cache_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "symx/error.hpp"

namespace symx::codegen {

namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_warned_folder{false}, g_warned_file{false};

void warn_once(std::atomic<bool>& warned, const std::string& message) {
  if (warned.exchange(true)) return;
  std::fprintf(stderr, "symx: warning: %s\n", message.c_str());
  std::fflush(stderr);
}

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

// "owned by uid 1000 with mode 0777": what a refusal found.
std::string describe_owner_and_mode(const struct stat& st) {
  return "owned by uid " + std::to_string(st.st_uid) + " with mode " + octal_mode(st.st_mode);
}

// Why the folder `dir` must not hold kernels; nullopt when it may. A symbolic link is followed
// only when the user or root made it (anybody else could point it elsewhere later).
std::optional<std::string> untrusted_folder_reason(const std::string& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return std::string("it cannot be examined (") + std::strerror(errno) + ")";
  if (S_ISLNK(st.st_mode)) {
    if (st.st_uid != ::geteuid() && st.st_uid != 0) return "it is a symbolic link " + describe_owner_and_mode(st);
    if (::stat(dir.c_str(), &st) != 0) return std::string("it cannot be examined (") + std::strerror(errno) + ")";
  }
  if (!S_ISDIR(st.st_mode)) return std::string("it is not a folder");
  if (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0) return "it is " + describe_owner_and_mode(st);
  return std::nullopt;
}

std::string temp_base() {
  const char* tmpdir = std::getenv("TMPDIR");
  return tmpdir && tmpdir[0] == '/' ? tmpdir : "/tmp";
}

std::mutex g_private_mutex;
std::string g_private_dir;  // guarded by g_private_mutex
pid_t g_private_owner = 0;  // the process that made it (a forked child must not remove it)

void remove_private_dir_at_exit() {
  std::lock_guard lock(g_private_mutex);
  if (g_private_dir.empty() || g_private_owner != ::getpid()) return;
  std::error_code ec;
  fs::remove_all(g_private_dir, ec);  // loaded kernels stay mapped: unlinking them is harmless
}

bool usable_private_dir(const std::string& dir) {
  struct stat st {};
  return !dir.empty() && ::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() &&
         (st.st_mode & 077) == 0;
}

}  // namespace

std::string describe_file_error(int err, const char* env_name) {
  std::string text = std::strerror(err);
  if (err == ENOSPC || err == EDQUOT)
    text += "; the disk (or your quota) is full: free some space, or set " + std::string(env_name) +
            " to a folder on another disk";
  else if (err == EROFS || err == EACCES || err == EPERM)
    text += "; set " + std::string(env_name) + " to a folder you can write";
  return text;
}

void create_private_directories(const std::string& dir, const char* env_name) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return;  // the common case: one call
  fs::path prefix;
  for (const fs::path& part : fs::path(dir)) {
    prefix /= part;
    if (prefix == prefix.root_path()) continue;
    if (::mkdir(prefix.c_str(), 0700) == 0) {
      ::chmod(prefix.c_str(), 0700);  // mkdir's mode went through the umask, which may drop owner bits
    } else if (errno != EEXIST) {
      throw IOError("codegen: cannot create the folder '" + prefix.string() + "' (" +
                    describe_file_error(errno, env_name) + "). Set " + env_name + " to a folder you can write.");
    }
  }
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw IOError("codegen: cannot create the folder '" + dir + "' (a file of that name is in the way). Set " +
                  env_name + " to a folder you can write.");
}

std::string private_cache_dir() {
  std::lock_guard lock(g_private_mutex);
  if (usable_private_dir(g_private_dir)) return g_private_dir;
  std::string pattern = temp_base() + "/symx-private-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw IOError("codegen: cannot create a private folder for compiled kernels in '" + temp_base() + "' (" +
                  describe_file_error(errno, "SYMX_CACHE_DIR") + "). Set SYMX_CACHE_DIR to a folder of your own.");
  static const bool registered = std::atexit(remove_private_dir_at_exit) == 0;
  (void)registered;
  g_private_dir = pattern;
  g_private_owner = ::getpid();
  return g_private_dir;
}

namespace {

// The private folder, after a warning (once per process) that says why the cache is not used.
std::string fall_back_from(const std::string& why) {
  std::string fallback = private_cache_dir();
  warn_once(g_warned_folder, why + " Kernels are compiled into the private folder '" + fallback +
                                 "' for this process instead, and not kept after it.");
  return fallback;
}

}  // namespace

std::string trusted_cache_dir() {
  const char* configured = std::getenv("SYMX_CACHE_DIR");
  const char* home = std::getenv("HOME");
  const bool explicit_dir = configured && configured[0];
  // Without HOME there is no per-user place; a guessable name under /tmp could be made first by
  // somebody else, so such a process caches privately (and quietly: nothing is wrong).
  if (!explicit_dir && !(home && home[0])) return private_cache_dir();
  std::string dir = explicit_dir ? std::string(configured) : std::string(home) + "/.cache/symx";
  std::error_code ec;
  fs::path absolute = fs::absolute(dir, ec);
  if (!ec) dir = absolute.string();
  try {
    create_private_directories(dir, "SYMX_CACHE_DIR");
  } catch (const IOError& e) {
    if (explicit_dir) throw;  // the user asked for this folder: say that it does not work
    return fall_back_from(e.what());
  }
  if (auto reason = untrusted_folder_reason(dir)) {
    const std::string uid = std::to_string(::geteuid());
    return fall_back_from("not using the kernel cache folder '" + dir + "': " + *reason +
                          ", but it must be owned by you (uid " + uid +
                          ") and not writable by group or others, because whoever can write it can run code in this "
                          "process. To fix: chmod 700 '" +
                          dir + "' (and chown " + uid + " '" + dir +
                          "' if it is not yours), or set SYMX_CACHE_DIR to a folder of your own.");
  }
  return dir;
}

std::optional<std::string> untrusted_file_reason(const struct stat& st) {
  if (!S_ISREG(st.st_mode)) return std::string("it is not a regular file");
  if (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0) return "it is " + describe_owner_and_mode(st);
  return std::nullopt;
}

void warn_untrusted_file(const std::string& path, const std::string& reason) {
  warn_once(g_warned_file, "not loading the cached kernel '" + path + "': " + reason +
                               ", but it must be a file owned by you (uid " + std::to_string(::geteuid()) +
                               ") and not writable by group or others, because whoever can "
                               "write it can run code in this process. It is compiled again and replaced (further such "
                               "files are replaced without a warning). Check who else can write that folder.");
}

namespace {

// A compile's temporary names end in "<pid>.<counter>" (unique_suffix in compiler.cpp).
constexpr double kGraceSeconds = 60;  // a compile takes its lock within microseconds of making its folder
constexpr int kMaxFolderDepth = 8;    // deeper than any compiler's temporary files

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }

bool all_of(std::string_view text, bool (*ok)(char)) {
  return !text.empty() && std::all_of(text.begin(), text.end(), ok);
}

// The pid in "<prefix><pid>.<counter>" when `name` is exactly that, with a pid > 0 and no
// leading zeros (as unique_suffix writes it).
std::optional<pid_t> pid_after(std::string_view name, std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  std::string_view rest = name.substr(prefix.size());
  std::size_t dot = rest.find('.');
  if (dot == std::string_view::npos || dot > 9 || rest.size() - dot - 1 > 20) return std::nullopt;
  std::string_view pid_text = rest.substr(0, dot), counter = rest.substr(dot + 1);
  if (!all_of(pid_text, is_digit) || pid_text[0] == '0' || !all_of(counter, is_digit)) return std::nullopt;
  pid_t pid = 0;
  std::from_chars(pid_text.data(), pid_text.data() + pid_text.size(), pid);
  return pid > 0 ? std::optional<pid_t>(pid) : std::nullopt;
}

struct TempName {
  bool work_folder;  // else a version memo being written
  pid_t pid;
};

// "<64 hex>.tmp.<pid>.<n>": a compile's working folder; "compiler-<16 hex>.version.tmp.<pid>.<n>":
// a compiler-version memo before its rename (compiler.cpp makes both). Nothing else.
std::optional<TempName> parse_temp_name(std::string_view name) {
  if (name.size() > 64 && all_of(name.substr(0, 64), is_lower_hex))
    if (auto pid = pid_after(name.substr(64), ".tmp.")) return TempName{true, *pid};
  constexpr std::string_view memo = "compiler-";
  if (name.size() > 25 && name.substr(0, 9) == memo && all_of(name.substr(9, 16), is_lower_hex))
    if (auto pid = pid_after(name.substr(25), ".version.tmp.")) return TempName{false, *pid};
  return std::nullopt;
}

// No process has `pid`, or it is this process's own: whose compiles are all under way (locked and
// recent), so an old unlocked entry with its pid was left by an earlier holder of the pid (before a
// reboot), and would make this process's own mkdir of that name fail.
bool process_is_gone(pid_t pid) { return pid == ::getpid() || (::kill(pid, 0) != 0 && errno == ESRCH); }

// Names in the folder open as `fd`, without "." and "..".
std::vector<std::string> names_in_folder(int fd) {
  std::vector<std::string> names;
  int copy = ::dup(fd);
  DIR* dir = copy >= 0 ? ::fdopendir(copy) : nullptr;
  if (dir == nullptr) {
    if (copy >= 0) ::close(copy);
    return names;
  }
  ::rewinddir(dir);
  while (const dirent* entry = ::readdir(dir))
    if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0)
      names.emplace_back(entry->d_name);
  ::closedir(dir);
  return names;
}

// Removes the regular files and the folders of them inside the folder open as `fd`, `depth` levels
// deep, never following a link (a link and anything else stays); true when nothing is left.
bool empty_folder(int fd, int depth) {
  bool empty = true;
  for (const std::string& name : names_in_folder(fd)) {
    struct stat st {};
    if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      empty = false;
    } else if (S_ISREG(st.st_mode)) {
      empty = ::unlinkat(fd, name.c_str(), 0) == 0 && empty;
    } else if (S_ISDIR(st.st_mode) && depth > 0) {
      int sub = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      bool emptied = sub >= 0 && empty_folder(sub, depth - 1);
      if (sub >= 0) ::close(sub);
      empty = emptied && ::unlinkat(fd, name.c_str(), AT_REMOVEDIR) == 0 && empty;
    } else {
      empty = false;
    }
  }
  return empty;
}

// Removes the working folder `name` (status `named`, `age` seconds old) of a dead process unless a
// compile still holds its lock (WorkDir in compiler.cpp holds an exclusive flock on the folder).
void remove_abandoned_work_folder(int dir_fd, const std::string& name, const struct stat& named, double age,
                                  double compile_timeout) {
  int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  struct stat opened {};
  const bool same = ::fstat(fd, &opened) == 0 && opened.st_dev == named.st_dev && opened.st_ino == named.st_ino;
  bool unlocked = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
  // Where flock is not supported (some network file systems) only age says no compile still runs.
  if (!unlocked && errno != EWOULDBLOCK) unlocked = age > compile_timeout + kGraceSeconds;
  if (same && unlocked && empty_folder(fd, kMaxFolderDepth)) ::unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR);
  ::close(fd);
}

}  // namespace

void remove_stale_compile_files(const std::string& dir, double compile_timeout) {
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return;
  const std::time_t now = std::time(nullptr);
  for (const std::string& name : names_in_folder(dir_fd)) {
    std::optional<TempName> temp = parse_temp_name(name);
    struct stat st {};
    if (!temp || !process_is_gone(temp->pid) || ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        st.st_uid != ::geteuid())
      continue;
    const double age = std::difftime(now, st.st_mtime);
    if (age < kGraceSeconds) continue;  // its process may be in another pid namespace, just starting
    if (temp->work_folder && S_ISDIR(st.st_mode)) remove_abandoned_work_folder(dir_fd, name, st, age, compile_timeout);
    if (!temp->work_folder && S_ISREG(st.st_mode)) ::unlinkat(dir_fd, name.c_str(), 0);
  }
  ::close(dir_fd);
}

void remove_stale_compile_files_once(const std::string& dir, double compile_timeout) {
  static std::mutex mutex;
  static std::unordered_set<std::string> done;  // guarded by mutex
  {
    std::lock_guard lock(mutex);
    if (!done.insert(dir).second) return;
  }
  remove_stale_compile_files(dir, compile_timeout);
}

namespace {

struct CachedKernel {
  std::string key;
  std::uint64_t bytes = 0;  // the .so and its .sha256
  struct timespec used {};  // the .so's mtime
};

// The kernels in the folder open as `dir_fd`: "<64 hex>.so" regular files owned by the user.
std::vector<CachedKernel> cached_kernels(int dir_fd) {
  std::vector<CachedKernel> kernels;
  for (const std::string& name : names_in_folder(dir_fd)) {
    if (name.size() != 67 || name.compare(64, 3, ".so") != 0 ||
        !all_of(std::string_view(name).substr(0, 64), is_lower_hex))
      continue;
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != ::geteuid())
      continue;
    CachedKernel kernel{name.substr(0, 64), static_cast<std::uint64_t>(st.st_size), st.st_mtim};
    struct stat hash {};
    if (::fstatat(dir_fd, (kernel.key + ".sha256").c_str(), &hash, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(hash.st_mode))
      kernel.bytes += static_cast<std::uint64_t>(hash.st_size);
    kernels.push_back(std::move(kernel));
  }
  return kernels;
}

}  // namespace

int evict_least_recently_used(const std::string& dir, std::uint64_t max_bytes,
                              const std::function<bool(const std::string& key)>& in_use) {
  int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return 0;
  std::vector<CachedKernel> kernels = cached_kernels(dir_fd);
  std::uint64_t total = 0;
  for (const CachedKernel& k : kernels) total += k.bytes;
  int removed = 0;
  if (total > max_bytes) {
    std::sort(kernels.begin(), kernels.end(), [](const CachedKernel& a, const CachedKernel& b) {
      return std::pair(a.used.tv_sec, a.used.tv_nsec) < std::pair(b.used.tv_sec, b.used.tv_nsec);
    });
    for (const CachedKernel& k : kernels) {
      if (total <= max_bytes) break;
      if (in_use(k.key)) continue;
      // The hash first: a reader that finds the .so without it treats the entry as absent.
      ::unlinkat(dir_fd, (k.key + ".sha256").c_str(), 0);
      if (::unlinkat(dir_fd, (k.key + ".so").c_str(), 0) == 0 || errno == ENOENT) {
        total -= k.bytes;
        ++removed;
      }
    }
  }
  ::close(dir_fd);
  return removed;
}

void reset_cache_warnings_for_testing() {
  g_warned_folder.store(false);
  g_warned_file.store(false);
}

}  // namespace symx::codegen
