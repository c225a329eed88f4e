// SHA-256 of files and bytes (OpenSSL's libcrypto) and the atomic extraction of tar archives
// (libarchive) for symx/data/download.hpp.
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "symx/data/download.hpp"
#include "symx/error.hpp"

namespace fs = std::filesystem;

namespace symx::data {
namespace {

struct DigestDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new()) {
    if (!ctx_ || EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1)
      throw InternalError("sha256: OpenSSL could not start a SHA-256 digest");
  }
  void update(const void* data, std::size_t size) {
    if (EVP_DigestUpdate(ctx_.get(), data, size) != 1) throw InternalError("sha256: EVP_DigestUpdate failed");
  }
  std::string hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_DigestFinal_ex(ctx_.get(), digest, &length) != 1) throw InternalError("sha256: EVP_DigestFinal_ex failed");
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < length; ++i) {
      out += digits[digest[i] >> 4];
      out += digits[digest[i] & 15];
    }
    return out;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, DigestDeleter> ctx_;
};

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

[[noreturn]] void fail_archive(const std::string& archive, const std::string& problem) {
  throw IOError("extract_archive: " + archive + ": " + problem +
                ". Fix: download the archive again (delete it first) or extract it by hand.");
}

// The entry's path made relative and normalized ("./a//b/" -> "a/b"), or an IOError for an
// absolute path or a ".." component, which would write outside the folder.
std::string checked_entry_path(const std::string& path, const std::string& archive) {
  if (path.empty()) fail_archive(archive, "an entry has an empty path");
  if (path[0] == '/')
    fail_archive(archive, "the entry '" + path + "' has an absolute path; only paths inside the folder are extracted");
  std::string out;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    if (part == "..")
      fail_archive(archive,
                   "the entry '" + path + "' has a '..' component; only paths inside the folder are extracted");
    if (!part.empty() && part != ".") out += (out.empty() ? "" : "/") + part;
    start = end + 1;
  }
  return out;
}

void check_entry_type(archive_entry* entry, const std::string& path, const std::string& archive) {
  const char* kind = nullptr;
  if (archive_entry_hardlink(entry) != nullptr) kind = "a hard link";
  else if (archive_entry_filetype(entry) == AE_IFLNK) kind = "a symbolic link";
  else if (archive_entry_filetype(entry) != AE_IFREG && archive_entry_filetype(entry) != AE_IFDIR)
    kind = "a device or other special file";
  if (kind) fail_archive(archive, "the entry '" + path + "' is " + kind + "; only files and folders are extracted");
}

void write_entry_data(archive* reader, const std::string& target, const std::string& entry,
                      const std::string& archive) {
  Fd out(::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (out.fd < 0) {
    if (errno == EEXIST) fail_archive(archive, "the entry '" + entry + "' appears twice");
    throw IOError("extract_archive: cannot create " + target + ": " + std::strerror(errno) +
                  ". Fix: check that the folder is writable and has free space.");
  }
  char buffer[1 << 16];
  for (;;) {
    la_ssize_t n = archive_read_data(reader, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0)
      fail_archive(archive, "cannot read the entry '" + entry + "': the archive is truncated or damaged (" +
                                archive_error_string(reader) + ")");
    for (la_ssize_t done = 0; done < n;) {
      ssize_t w = ::write(out.fd, buffer + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0)
        throw IOError("extract_archive: cannot write " + target + ": " + std::strerror(errno) +
                      ". Fix: free some space in the folder or choose another one.");
      done += w;
    }
  }
  if (::fsync(out.fd) != 0)
    throw IOError("extract_archive: cannot flush " + target + " to disk: " + std::strerror(errno) + ".");
}

struct ReaderDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

// Extracts every entry of `archive` under `root` (a fresh folder).
void extract_into(const std::string& archive, const fs::path& root) {
  std::unique_ptr<::archive, ReaderDeleter> reader(archive_read_new());
  if (!reader) throw std::bad_alloc();
  archive_read_support_filter_gzip(reader.get());
  archive_read_support_format_tar(reader.get());
  if (archive_read_open_filename(reader.get(), archive.c_str(), 1 << 16) != ARCHIVE_OK)
    fail_archive(archive,
                 std::string("cannot open it as a tar or tar.gz archive: ") + archive_error_string(reader.get()));
  archive_entry* entry = nullptr;
  int status = ARCHIVE_OK;
  while ((status = archive_read_next_header(reader.get(), &entry)) == ARCHIVE_OK) {
    std::string raw = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    std::string path = checked_entry_path(raw, archive);
    check_entry_type(entry, raw, archive);
    if (path.empty()) continue;  // "./": the folder itself
    fs::path target = root / path;
    std::error_code ec;
    if (archive_entry_filetype(entry) == AE_IFDIR) {
      fs::create_directories(target, ec);
    } else {
      fs::create_directories(target.parent_path(), ec);
      if (!ec) write_entry_data(reader.get(), target.string(), raw, archive);
    }
    if (ec) throw IOError("extract_archive: cannot create " + target.string() + ": " + ec.message() + ".");
  }
  if (status != ARCHIVE_EOF)
    fail_archive(archive,
                 std::string("the archive is truncated or damaged (") + archive_error_string(reader.get()) + ")");
}

void fsync_path(const fs::path& path) {
  Fd dir(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.fd >= 0) ::fsync(dir.fd);
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  Sha256 digest;
  digest.update(bytes.data(), bytes.size());
  return digest.hex();
}

std::string sha256_file(const std::string& path) {
  Fd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.fd < 0) throw IOError("sha256_file: cannot open " + path + ": " + std::strerror(errno) + ".");
  Sha256 digest;
  std::vector<char> buffer(1 << 20);
  for (;;) {
    ssize_t n = ::read(in.fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw IOError("sha256_file: cannot read " + path + ": " + std::strerror(errno) + ".");
    if (n == 0) break;
    digest.update(buffer.data(), static_cast<std::size_t>(n));
  }
  return digest.hex();
}

std::vector<std::string> extract_archive(const std::string& archive, const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::string pattern = (fs::path(dir) / ".symx-extract-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw IOError("extract_archive: cannot create a temporary folder in " + dir + ": " + std::strerror(errno) +
                  ". Fix: check that the folder exists and is writable.");
  fs::path temp = pattern;
  try {
    extract_into(archive, temp);
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(temp)) names.push_back(entry.path().filename().string());
    for (const auto& name : names)
      if (fs::exists(fs::symlink_status(fs::path(dir) / name)))
        fail_archive(archive, "'" + (fs::path(dir) / name).string() + "' already exists; remove it to extract again");
    for (const auto& entry : fs::recursive_directory_iterator(temp))
      if (entry.is_directory()) fsync_path(entry.path());
    fsync_path(temp);
    for (const auto& name : names) {
      fs::rename(temp / name, fs::path(dir) / name, ec);
      if (ec)
        throw IOError("extract_archive: cannot move " + (temp / name).string() + " into " + dir + ": " + ec.message() +
                      ".");
    }
    fs::remove(temp, ec);
    fsync_path(dir);
    return names;
  } catch (...) {
    fs::remove_all(temp, ec);
    throw;
  }
}

}  // namespace symx::data
