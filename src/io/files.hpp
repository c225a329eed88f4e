// File plumbing shared by the savers and loaders of src/io (safetensors, .npy): a descriptor that
// closes itself, complete writes, and the atomic, durable write of a whole file.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <functional>
#include <string>

namespace symx::io {

// An open file descriptor (or -1), closed on scope exit.
struct FileDescriptor {
  int fd = -1;
  explicit FileDescriptor(int f = -1) : fd(f) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// Writes all `size` bytes to `fd`, retrying short writes; throws std::system_error on failure.
void write_all(int fd, const char* data, std::size_t size);

// Replaces `path` with the bytes `write_contents(fd)` writes (with write_all), atomically and
// durably: they go to a temporary file "<path>.tmp-<pid>-<n>" in the same folder, held under an
// exclusive flock while it is written (so other writers know it is alive), which is fsynced,
// renamed over `path`, and the folder fsynced, so that a crash or a power loss leaves the old file
// or the complete new one. Temporary files of `path` left by writers that died are removed first.
// On failure the temporary file is removed, `path` is left as it was, and IOError is thrown, its
// message starting with `what` (the caller's name, e.g. "save_npy").
void write_file_atomically(const std::string& path, const char* what,
                           const std::function<void(int fd)>& write_contents);

}  // namespace symx::io
