#include "io/files.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>

#include "symx/error.hpp"

namespace symx::io {
namespace {

bool is_hex(const std::string& text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The pid in a temporary file name "<target>.tmp-<pid>-<random hex>" of `target`, if it is one
// (also "<target>.tmp-<pid>" and "<target>.tmp-<pid>-<n>", the names of earlier versions).
std::optional<pid_t> temp_file_pid(const std::string& name, const std::string& target) {
  const std::string prefix = target + ".tmp-";
  if (name.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  std::string rest = name.substr(prefix.size());
  std::size_t dash = rest.find('-');
  std::string pid = rest.substr(0, dash);
  if (pid.empty() || pid.size() > 9 ||
      !std::all_of(pid.begin(), pid.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  if (dash != std::string::npos && !is_hex(rest.substr(dash + 1))) return std::nullopt;
  return static_cast<pid_t>(std::stol(pid));
}

// 16 hex digits from the kernel's random source: a temporary name nobody can guess in advance.
std::string random_suffix() {
  std::uint64_t bits = 0;
  char* out = reinterpret_cast<char*>(&bits);
  std::size_t got = 0;
  while (got < sizeof bits) {
    ssize_t n = ::getrandom(out + got, sizeof bits - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw IOError(std::string("cannot draw random bytes for a temporary file name: ") + std::strerror(errno));
    got += static_cast<std::size_t>(n);
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(bits));
  return text;
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

}  // namespace symx::io

namespace symx {

using io::FileDescriptor;

void write_file_atomically(const std::string& path, const char* what,
                           const std::function<void(int fd)>& write_contents) {
  io::remove_stale_temp_files(path);
  // Unpredictable, so that nobody can plant a file or link under the name in advance (O_EXCL would
  // refuse it, and the save would fail); the pid lets a later save recognise (and remove) the file
  // of a writer that died.
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" + io::random_suffix();
  auto fail = [&](const std::string& problem, const std::string& fix) {
    ::unlink(tmp.c_str());
    throw IOError(std::string(what) + ": cannot write '" + path + "': " + problem + "; the file was left as it was. " +
                  fix);
  };
  FileDescriptor file(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
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
  } catch (...) {
    ::unlink(tmp.c_str());  // the caller's own error: no half-written file stays behind
    throw;
  }
  const int closed = ::close(file.fd);
  file.fd = -1;
  if (closed != 0)
    fail("closing the temporary file '" + tmp + "' failed (" + std::strerror(errno) + ")",
         "Check the free disk space and permissions.");
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    fail("renaming '" + tmp + "' to it failed (" + std::strerror(errno) + ")",
         "Check that the path is a writable file location.");
  io::sync_folder(path);
}

void write_all_to(int fd, const std::string& bytes) { io::write_all(fd, bytes.data(), bytes.size()); }

int open_regular_file(const std::string& path, std::uint64_t max_bytes, const char* what, std::uint64_t* size) {
  // O_NONBLOCK: opening a FIFO without a writer must not wait; it is refused below. It does not
  // affect regular files, and is cleared before the descriptor is handed out.
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (file.fd < 0) {
    const int error = errno;
    throw IOError(std::string(what) + ": cannot open '" + path + "' for reading (" + std::strerror(error) +
                  "). Check the path.");
  }
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) {
    const int error = errno;
    throw IOError(std::string(what) + ": cannot inspect '" + path + "' (" + std::strerror(error) +
                  "). Check the path.");
  }
  if (!S_ISREG(info.st_mode))
    throw IOError(std::string(what) + ": '" + path + "' is " +
                  (S_ISDIR(info.st_mode) ? "a folder" : "a special file (a FIFO, device or socket)") +
                  ", not a regular file. Give the path of a regular file.");
  const auto bytes = static_cast<std::uint64_t>(info.st_size);
  if (bytes > max_bytes)
    throw IOError(std::string(what) + ": '" + path + "' holds " + std::to_string(bytes) + " bytes, more than the " +
                  std::to_string(max_bytes) +
                  " bytes such a file may hold. It is not a file symx wrote; check the path.");
  ::fcntl(file.fd, F_SETFL, ::fcntl(file.fd, F_GETFL) & ~O_NONBLOCK);
  if (size) *size = bytes;
  const int fd = file.fd;
  file.fd = -1;
  return fd;
}

std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, const char* what) {
  std::uint64_t size = 0;
  FileDescriptor file(open_regular_file(path, max_bytes, what, &size));
  std::string text;
  text.resize(static_cast<std::size_t>(size));
  std::size_t at = 0;
  // Reads until the end of the file, which may have changed since the check: a file that grew
  // past the limit meanwhile is refused, one that shrank is read as it now is.
  for (;;) {
    if (at == text.size()) {
      if (text.size() > max_bytes)
        throw IOError(std::string(what) + ": '" + path + "' grew past the " + std::to_string(max_bytes) +
                      " bytes such a file may hold while it was read. Read it again once its writer is done.");
      text.resize(std::min<std::uint64_t>(max_bytes + 1, text.size() + 4096));
    }
    ssize_t got = ::read(file.fd, text.data() + at, text.size() - at);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;
      throw IOError(std::string(what) + ": reading '" + path + "' failed (" + std::strerror(error) +
                    "). Check the file and the disk.");
    }
    if (got == 0) break;
    at += static_cast<std::size_t>(got);
  }
  text.resize(at);
  return text;
}

}  // namespace symx
