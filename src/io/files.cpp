#include "io/files.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>

#include "symx/error.hpp"

namespace symx::io {
namespace {

// The pid in a temporary file name "<target>.tmp-<pid>-<counter>" of `target`, if it is one.
std::optional<pid_t> temp_file_pid(const std::string& name, const std::string& target) {
  const std::string prefix = target + ".tmp-";
  if (name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  std::string rest = name.substr(prefix.size());
  std::size_t dash = rest.find('-');
  if (dash == 0 || dash == std::string::npos || dash > 9 || dash + 1 == rest.size()) return std::nullopt;
  if (!std::all_of(rest.begin(), rest.end(), [](char c) { return (c >= '0' && c <= '9') || c == '-'; }))
    return std::nullopt;
  return static_cast<pid_t>(std::stol(rest.substr(0, dash)));
}

// Removes the temporary files that writers of `path` left when they died (killed mid-save). A
// file is removed only when its writer's pid no longer exists and no process holds its lock (a
// live writer holds an exclusive flock on its temporary file for the whole save), so a concurrent
// save is never disturbed. Best effort: a failure here never fails the save.
void remove_stale_temp_files(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const std::string target = path.filename().string();
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::optional<pid_t> pid = temp_file_pid(name, target);
    if (!pid || *pid == ::getpid() || *pid <= 0 || ::kill(*pid, 0) == 0 || errno != ESRCH) continue;
    FileDescriptor file(::open(it->path().c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    if (file.fd < 0 || ::flock(file.fd, LOCK_EX | LOCK_NB) != 0) continue;
    // Remove the file we locked, not one that replaced it under the same name meanwhile.
    struct stat locked {
    }, named{};
    if (::fstat(file.fd, &locked) == 0 && ::lstat(it->path().c_str(), &named) == 0 && locked.st_ino == named.st_ino &&
        locked.st_dev == named.st_dev)
      ::unlink(it->path().c_str());
  }
}

// Syncs the folder that holds `path`, so that a rename in it survives a power loss. Best effort:
// some file systems do not support syncing a folder, and the file's data are already on disk.
void sync_folder(const std::filesystem::path& path) {
  std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  FileDescriptor dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.fd >= 0) ::fsync(dir.fd);
}

}  // namespace

void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t put = ::write(fd, data, std::min<std::size_t>(size, 1 << 30));
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) throw std::system_error(errno, std::generic_category());
    data += put, size -= static_cast<std::size_t>(put);
  }
}

void write_file_atomically(const std::string& path, const char* what,
                           const std::function<void(int fd)>& write_contents) {
  remove_stale_temp_files(path);
  // Unique per process and per call, so that concurrent saves never share a temporary file; the
  // pid lets a later save recognise (and remove) the file of a writer that died.
  static std::atomic<std::uint64_t> counter{0};
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  auto fail = [&](const std::string& problem, const std::string& fix) {
    ::unlink(tmp.c_str());
    throw IOError(std::string(what) + ": cannot write '" + path + "': " + problem + "; the file was left as it was. " +
                  fix);
  };
  FileDescriptor file(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666));
  if (file.fd < 0) {
    const int error = errno;
    throw IOError(std::string(what) + ": cannot write '" + path + "': cannot create the temporary file '" + tmp +
                  "' (" + std::strerror(error) +
                  "); the file was left as it was. Check that the folder exists and is writable.");
  }
  ::flock(file.fd, LOCK_EX);  // held until the file is closed: tells other writers this one is alive
  try {
    write_contents(file.fd);
    // The data must be on disk before the rename gives the file its name, or a power loss could
    // leave a renamed but empty file.
    if (::fsync(file.fd) != 0) throw std::system_error(errno, std::generic_category());
  } catch (const std::system_error& e) {
    fail("writing the temporary file '" + tmp + "' failed (" + e.code().message() + ")",
         "Check the free disk space and permissions.");
  }
  const int closed = ::close(file.fd);
  file.fd = -1;
  if (closed != 0)
    fail("closing the temporary file '" + tmp + "' failed (" + std::strerror(errno) + ")",
         "Check the free disk space and permissions.");
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    fail("renaming '" + tmp + "' to it failed (" + std::strerror(errno) + ")",
         "Check that the path is a writable file location.");
  sync_folder(path);
}

}  // namespace symx::io
