// SHA-256, from OpenSSL's libcrypto: the kernel cache's keys (compiler.cpp hashes the source with
// the compiler command, its version and the host CPU) and the integrity hash beside each cached .so.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace symx::codegen {

// SHA-256 of `data` as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

// SHA-256 of what is left to read from `fd` (64 lowercase hex digits), or nullopt when it cannot
// be read.
std::optional<std::string> sha256_of_fd(int fd);

// SHA-256 of a file's contents (64 lowercase hex digits), or nullopt when it cannot be read.
std::optional<std::string> sha256_of_file(const std::string& path);

}  // namespace symx::codegen
