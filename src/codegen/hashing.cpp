// SHA-256 through OpenSSL's EVP interface: one-shot EVP_Digest for strings, a digest context fed
// chunk by chunk for files (a cached .so is read once, without holding all of it in memory).
#include "codegen/hashing.hpp"

#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <vector>

#include "symx/error.hpp"

namespace symx::codegen {
namespace {

std::string hex(const unsigned char* digest, unsigned int length) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    out += digits[digest[i] >> 4];
    out += digits[digest[i] & 0xf];
  }
  return out;
}

struct FreeContext {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};

}  // namespace

std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw InternalError("sha256_hex: OpenSSL's EVP_Digest failed");
  return hex(digest, length);
}

std::optional<std::string> sha256_of_fd(int fd) {
  std::unique_ptr<EVP_MD_CTX, FreeContext> context(EVP_MD_CTX_new());
  if (!context || EVP_DigestInit_ex(context.get(), EVP_sha256(), nullptr) != 1)
    throw InternalError("sha256_of_fd: OpenSSL could not start a SHA-256 digest");
  std::vector<char> buffer(1 << 16);
  for (;;) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    if (EVP_DigestUpdate(context.get(), buffer.data(), static_cast<std::size_t>(n)) != 1)
      throw InternalError("sha256_of_fd: OpenSSL's EVP_DigestUpdate failed");
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(context.get(), digest, &length) != 1)
    throw InternalError("sha256_of_fd: OpenSSL's EVP_DigestFinal_ex failed");
  return hex(digest, length);
}

std::optional<std::string> sha256_of_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<std::string> digest;
  try {
    digest = sha256_of_fd(fd);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return digest;
}

}  // namespace symx::codegen
