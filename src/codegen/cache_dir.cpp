// The kernel cache's folder and its checks; see cache_dir.hpp for the trust model.
#include "codegen/cache_dir.hpp"

#include <sys/types.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

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
std::string g_private_dir;   // guarded by g_private_mutex
pid_t g_private_owner = 0;   // the process that made it (a forked child must not remove it)

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
      throw IOError("codegen: cannot create the folder '" + prefix.string() + "' (" + describe_file_error(errno, env_name) +
                    "). Set " + env_name + " to a folder you can write.");
    }
  }
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw IOError("codegen: cannot create the folder '" + dir + "' (a file of that name is in the way). Set " + env_name +
                  " to a folder you can write.");
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
    return fall_back_from("not using the kernel cache folder '" + dir + "': " + *reason + ", but it must be owned by you (uid " +
                          uid + ") and not writable by group or others, because whoever can write it can run code in this "
                          "process. To fix: chmod 700 '" + dir + "' (and chown " + uid + " '" + dir +
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
  warn_once(g_warned_file, "not loading the cached kernel '" + path + "': " + reason + ", but it must be a file owned by you (uid " +
                               std::to_string(::geteuid()) + ") and not writable by group or others, because whoever can "
                               "write it can run code in this process. It is compiled again and replaced (further such "
                               "files are replaced without a warning). Check who else can write that folder.");
}

void reset_cache_warnings_for_testing() {
  g_warned_folder.store(false);
  g_warned_file.store(false);
}

}  // namespace symx::codegen
