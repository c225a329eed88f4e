// File plumbing shared by the savers and loaders of src/io (safetensors, .npy): a descriptor that
// closes itself and complete writes; the atomic write and bounded reads are public (symx/io.hpp).
#pragma once

#include <unistd.h>

#include <cstddef>
#include <functional>
#include <string>

#include "symx/io.hpp"

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

// The atomic, durable write of a whole file (public: symx/io.hpp), under its old name here.
using symx::write_file_atomically;

}  // namespace symx::io
