// symx/io.hpp: saving and loading variables in the safetensors format, and the safe file plumbing
// that every reader and writer of symx and its toolkit uses.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "symx/tensor.hpp"

namespace symx {

// Writes the values of `vars` (default: every variable of the default graph) keyed by their
// scoped names. The write is atomic and durable: a temporary file in the same folder, synced to
// disk, renamed over `path`, then the folder synced. Temporary files left by writers of `path`
// that died are removed. A variable named "__metadata__" (reserved by the format) is a ValueError.
// Example: save_variables("model.safetensors")
void save_variables(const std::string& path, const std::vector<Tensor>& vars = {});
// Reads `path` and assigns each listed variable (default: every variable of the default graph)
// the value stored under its name. The whole file is validated first as the reference
// implementation does (a regular file; a UTF-8 JSON header of at most 100 MB without duplicate
// keys; known dtypes; offsets matching each shape and tiling the data section exactly), then every
// name, shape and dtype is checked: on any problem IOError is thrown and no variable changes.
// Example: load_variables("model.safetensors", variables("encoder/*"))
void load_variables(const std::string& path, const std::vector<Tensor>& vars = {});

// Replaces `path` atomically and durably with what write_contents(fd) writes to `fd` (short
// writes are the callback's to retry; write_all_to does). The bytes go to a temporary file in the
// same folder, "<path>.tmp-<pid>-<16 random hex digits>", created with O_CREAT | O_EXCL |
// O_NOFOLLOW (so a planted file or link of that name is never followed nor truncated: the create
// fails) and held under an exclusive flock while it is written; it is fsynced, renamed over `path`
// (a link at `path` is replaced, not followed), and the folder fsynced. A crash leaves the old file
// or the complete new one. Temporary files of `path` left by writers that died are removed first.
// A callback that throws std::system_error (e.g. from write_all_to) gets an IOError; any other
// exception passes through. On failure the temporary file is removed, `path` is unchanged, and the
// IOError's message starts with `what` (the caller's name, e.g. "save_checkpoint").
// Example: write_file_atomically("out.txt", "save_notes", [&](int fd) { write_all_to(fd, text); });
void write_file_atomically(const std::string& path, const char* what,
                           const std::function<void(int fd)>& write_contents);
// Writes all of `bytes` to `fd`, retrying short and interrupted writes; std::system_error on failure.
void write_all_to(int fd, const std::string& bytes);
// Reads the whole file `path` after checking that it is a regular file of at most `max_bytes`
// bytes: a FIFO, a device, a directory or a link to one is refused without blocking (the file is
// opened with O_NONBLOCK, then fstat), and so is a larger file, or one that grows past the limit
// while being read. IOError naming `what`, the path and the limit otherwise.
// Example: std::string text = read_regular_file(dir + "/state.json", 64 << 20, "read_checkpoint");
std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, const char* what);
// The same checks, returning an open read-only descriptor (blocking mode, close-on-exec; the
// caller closes it) and, in *size when given, the file's size at the check.
int open_regular_file(const std::string& path, std::uint64_t max_bytes, const char* what,
                      std::uint64_t* size = nullptr);

}  // namespace symx
