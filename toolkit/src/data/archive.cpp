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
#include "symx/io.hpp"

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

// The largest archive opened (CIFAR's are 170 MB).
constexpr std::uint64_t kMaxArchiveBytes = std::uint64_t{1} << 36;

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
  else if (archive_entry_sparse_count(entry) > 0) kind = "a sparse file (holes would be written out in full, or lost)";
  else if (archive_entry_filetype(entry) == AE_IFLNK) kind = "a symbolic link";
  else if (archive_entry_filetype(entry) != AE_IFREG && archive_entry_filetype(entry) != AE_IFDIR)
    kind = "a device or other special file";
  if (kind) fail_archive(archive, "the entry '" + path + "' is " + kind + "; only files and folders are extracted");
}

// What extraction may still write: the archive's budget of bytes and entries.
struct Budget {
  std::uint64_t bytes_left;
  std::uint64_t bytes_total;
  std::int64_t entries_left = 100000;
};

[[noreturn]] void fail_budget(const std::string& archive, const std::string& entry, const Budget& budget) {
  fail_archive(archive, "the entry '" + entry + "' would take the extracted data past " +
                            std::to_string(budget.bytes_total) +
                            " bytes, the limit for this archive (a crafted archive can expand without bound); "
                            "extract it by hand if it is genuine");
}

void write_entry_data(archive* reader, archive_entry* header, const std::string& target, const std::string& entry,
                      const std::string& archive, Budget& budget) {
  const std::int64_t announced = archive_entry_size_is_set(header) ? archive_entry_size(header) : -1;
  if (announced > 0 && static_cast<std::uint64_t>(announced) > budget.bytes_left) fail_budget(archive, entry, budget);
  Fd out(::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (out.fd < 0) {
    if (errno == EEXIST) fail_archive(archive, "the entry '" + entry + "' appears twice");
    throw IOError("extract_archive: cannot create " + target + ": " + std::strerror(errno) +
                  ". Fix: check that the folder is writable and has free space.");
  }
  char buffer[1 << 16];
  std::int64_t written = 0;
  for (;;) {
    la_ssize_t n = archive_read_data(reader, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0)
      fail_archive(archive, "cannot read the entry '" + entry + "': the archive is truncated or damaged (" +
                                archive_error_string(reader) + ")");
    if (static_cast<std::uint64_t>(n) > budget.bytes_left) fail_budget(archive, entry, budget);
    budget.bytes_left -= static_cast<std::uint64_t>(n);
    written += n;
    for (la_ssize_t done = 0; done < n;) {
      ssize_t w = ::write(out.fd, buffer + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0)
        throw IOError("extract_archive: cannot write " + target + ": " + std::strerror(errno) +
                      ". Fix: free some space in the folder or choose another one.");
      done += w;
    }
  }
  if (announced >= 0 && written != announced)
    fail_archive(archive, "the entry '" + entry + "' announces " + std::to_string(announced) + " bytes but holds " +
                              std::to_string(written));
  if (::fsync(out.fd) != 0)
    throw IOError("extract_archive: cannot flush " + target + " to disk: " + std::strerror(errno) + ".");
}

struct ReaderDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

// Extracts every entry of `archive` under `root` (a fresh folder), within `budget`.
void extract_into(const std::string& archive, const fs::path& root, Budget& budget) {
  // A regular file of bounded size: a FIFO or a device would block or never end.
  Fd in(open_regular_file(archive, kMaxArchiveBytes, "extract_archive"));
  std::unique_ptr<::archive, ReaderDeleter> reader(archive_read_new());
  if (!reader) throw std::bad_alloc();
  archive_read_support_filter_gzip(reader.get());
  archive_read_support_format_tar(reader.get());
  if (archive_read_open_fd(reader.get(), in.fd, 1 << 16) != ARCHIVE_OK)
    fail_archive(archive,
                 std::string("cannot open it as a tar or tar.gz archive: ") + archive_error_string(reader.get()));
  archive_entry* entry = nullptr;
  int status = ARCHIVE_OK;
  while ((status = archive_read_next_header(reader.get(), &entry)) == ARCHIVE_OK) {
    std::string raw = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    std::string path = checked_entry_path(raw, archive);
    check_entry_type(entry, raw, archive);
    if (--budget.entries_left < 0)
      fail_archive(archive, "it holds more than 100000 entries, the limit for an extracted archive");
    if (path.empty()) continue;  // "./": the folder itself
    fs::path target = root / path;
    std::error_code ec;
    if (archive_entry_filetype(entry) == AE_IFDIR) {
      fs::create_directories(target, ec);
    } else {
      fs::create_directories(target.parent_path(), ec);
      if (!ec) write_entry_data(reader.get(), entry, target.string(), raw, archive, budget);
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

std::uint64_t default_extract_budget(std::uint64_t archive_bytes) {
  return (std::uint64_t{64} << 20) + 4 * archive_bytes;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 digest;
  digest.update(bytes.data(), bytes.size());
  return digest.hex();
}

std::string sha256_file(const std::string& path) {
  Fd in(open_regular_file(path, kMaxArchiveBytes, "sha256_file"));
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

std::vector<std::string> extract_archive(const std::string& archive, const std::string& dir, std::uint64_t max_bytes) {
  std::error_code ec;
  if (max_bytes == 0) {
    std::uint64_t size = 0;
    ::close(open_regular_file(archive, kMaxArchiveBytes, "extract_archive", &size));
    max_bytes = default_extract_budget(size);
  }
  Budget budget{max_bytes, max_bytes};
  fs::create_directories(dir, ec);
  std::string pattern = (fs::path(dir) / ".symx-extract-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw IOError("extract_archive: cannot create a temporary folder in " + dir + ": " + std::strerror(errno) +
                  ". Fix: check that the folder exists and is writable.");
  fs::path temp = pattern;
  try {
    extract_into(archive, temp, budget);
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
