// symx/data/download.hpp without the network: SHA-256 against the FIPS 180-2 test vectors, the
// pinned table's shape, tar extraction (atomic; absolute paths, "..", links refused) on archives
// written byte by byte here, and one download from `python3 -m http.server` on 127.0.0.1 (a server
// that ignores Range requests, so a stale part is replaced) when python3 is installed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "../cpp/test_util.hpp"
#include "symx/data/download.hpp"

namespace fs = std::filesystem;
namespace data = symx::data;
using symx::testing::expect_error;
using symx::testing::read_bytes;
using symx::testing::write_bytes;

namespace {

using TempFolder = symx::testing::TempDir;

std::vector<std::string> listing(const fs::path& folder) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(folder)) names.insert(e.path().filename().string());
  return {names.begin(), names.end()};
}

// Writes a tar header's checksum (the byte sum with the checksum field as spaces, six octal digits).
void seal_tar_header(std::string& header) {
  header.replace(148, 8, "        ");
  unsigned sum = 0;
  for (unsigned char c : header) sum += c;
  char checksum[8];
  std::snprintf(checksum, sizeof checksum, "%06o", sum);
  header.replace(148, 7, std::string(checksum, 6) + '\0');
}

// One ustar entry: a 512-byte header (name, mode, size, type, checksum) and the data padded to 512.
std::string tar_entry(const std::string& name, const std::string& data, char type = '0', const std::string& link = "") {
  std::string header(512, '\0');
  header.replace(0, name.size(), name);
  header.replace(100, 7, type == '5' ? "0000755" : "0000644");
  header.replace(108, 7, "0000000");
  header.replace(116, 7, "0000000");
  char size[16];
  std::snprintf(size, sizeof size, "%011o", static_cast<unsigned>(data.size()));
  header.replace(124, 11, size);
  header.replace(136, 11, "00000000000");
  header[156] = type;
  header.replace(157, link.size(), link);
  header.replace(257, 6, std::string("ustar\0", 6));
  header.replace(263, 2, "00");
  seal_tar_header(header);
  std::string padded = data + std::string((512 - data.size() % 512) % 512, '\0');
  return header + padded;
}

std::string tar(const std::vector<std::string>& entries) {
  std::string out;
  for (const auto& e : entries) out += e;
  return out + std::string(1024, '\0');
}

}  // namespace

TEST(DataDownload, Sha256MatchesTheStandardTestVectors) {
  EXPECT_EQ(data::sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(data::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(data::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  TempFolder temp;
  std::string million_a = (temp.path / "a").string();
  write_bytes(million_a, std::string(1000000, 'a'));
  EXPECT_EQ(data::sha256_file(million_a), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  expect_error<symx::IOError>([&] { data::sha256_file((temp.path / "missing").string()); },
                              {"sha256_file: cannot open", "missing", "No such file"});
}

TEST(DataDownload, ThePinnedTableHasEveryDataSetWithWellFormedSums) {
  std::vector<std::string> names;
  for (const auto& source : data::dataset_sources()) {
    names.push_back(source.name);
    ASSERT_FALSE(source.urls.empty());
    for (const auto& url : source.urls) EXPECT_EQ(url.rfind("https://", 0), 0u) << url;
    for (const auto& file : source.files) {
      EXPECT_EQ(file.sha256.size(), 64u) << file.name;
      EXPECT_EQ(file.sha256.find_first_not_of("0123456789abcdef"), std::string::npos) << file.name;
      EXPECT_GT(file.size, 0) << file.name;
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"mnist", "fashion-mnist", "cifar10", "cifar100"}));
  expect_error<symx::ValueError>([] { data::download("svhn", "/nonexistent"); },
                                 {"unknown data set 'svhn'", "mnist, fashion-mnist, cifar10, cifar100"});
}

TEST(DataDownload, DefaultFolderFollowsTheEnvironment) {
  symx::testing::SavedEnvironment saved({"SYMX_DATA_DIR", "XDG_CACHE_HOME", "HOME"});
  ::setenv("SYMX_DATA_DIR", "/data/sets", 1);
  EXPECT_EQ(data::default_data_dir(), "/data/sets");
  ::unsetenv("SYMX_DATA_DIR");
  ::unsetenv("XDG_CACHE_HOME");
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(data::default_data_dir(), "/home/someone/.cache/symx/data");
}

TEST(DataDownload, ExtractsFilesAndFoldersIntoPlace) {
  TempFolder temp;
  std::string archive = (temp.path / "a.tar").string();
  write_bytes(archive, tar({tar_entry("./top/", "", '5'), tar_entry("./top/a.bin", "alpha"),
                            tar_entry("top/sub/b.bin", std::string(1300, 'b')), tar_entry("readme", "hi")}));
  fs::path out = temp.path / "out";
  auto entries = data::extract_archive(archive, out.string());
  EXPECT_EQ(std::set<std::string>(entries.begin(), entries.end()), (std::set<std::string>{"top", "readme"}));
  EXPECT_EQ(read_bytes((out / "top" / "a.bin").string()), "alpha");
  EXPECT_EQ(read_bytes((out / "top" / "sub" / "b.bin").string()), std::string(1300, 'b'));
  EXPECT_EQ(listing(out), (std::vector<std::string>{"readme", "top"}));  // no temporary folder left
  // Again into the same folder: the entries exist, so nothing is touched.
  write_bytes((out / "top" / "a.bin").string(), "kept");
  expect_error<symx::IOError>([&] { data::extract_archive(archive, out.string()); },
                              {"a.tar", "already exists; remove it to extract again"});
  EXPECT_EQ(read_bytes((out / "top" / "a.bin").string()), "kept");
  EXPECT_EQ(listing(out), (std::vector<std::string>{"readme", "top"}));
}

TEST(DataDownload, RefusesEntriesOutsideTheFolderAndLeavesNothingBehind) {
  TempFolder temp;
  std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {tar_entry("ok/../../escape.bin", "x"), {"'ok/../../escape.bin' has a '..' component"}},
      {tar_entry("/tmp/absolute.bin", "x"), {"'/tmp/absolute.bin' has an absolute path"}},
      {tar_entry("ok/link", "", '2', "/etc/passwd"), {"'ok/link' is a symbolic link"}},
      {tar_entry("ok/hard", "", '1', "ok/good.bin"), {"'ok/hard' is a hard link"}},
      {tar_entry("ok/device", "", '3'), {"'ok/device' is a device"}},
  };
  fs::path out = temp.path / "out";
  fs::create_directories(out);
  for (const auto& [bad, message] : cases) {
    std::string archive = (temp.path / "bad.tar").string();
    write_bytes(archive, tar({tar_entry("ok/good.bin", "good"), bad, tar_entry("ok/after.bin", "after")}));
    expect_error<symx::IOError>([&] { data::extract_archive(archive, out.string()); }, message);
    EXPECT_TRUE(listing(out).empty()) << message[0];  // not even ok/good.bin, read before the bad entry
  }
  EXPECT_FALSE(fs::exists(temp.path / "escape.bin"));
  std::string truncated = tar({tar_entry("ok/good.bin", std::string(5000, 'g'))}).substr(0, 2048);
  write_bytes((temp.path / "short.tar").string(), truncated);
  expect_error<symx::IOError>([&] { data::extract_archive((temp.path / "short.tar").string(), out.string()); },
                              {"short.tar", "truncated or damaged"});
  EXPECT_TRUE(listing(out).empty());
}

namespace {

// A GNU sparse entry ('S'): `stored` bytes on disk standing for the last bytes of a file of `real`
// bytes, the rest a hole (GNU tar's old sparse format: the map at 386, the real size at 483).
std::string gnu_sparse_entry(const std::string& name, const std::string& stored, std::uint64_t real) {
  std::string entry = tar_entry(name, stored, 'S');
  std::string header = entry.substr(0, 512);
  auto octal = [&](std::size_t at, std::uint64_t value) {
    char text[16];
    std::snprintf(text, sizeof text, "%011llo", static_cast<unsigned long long>(value));
    header.replace(at, 11, text);
  };
  octal(386, real - stored.size());  // the chunk's offset
  octal(398, stored.size());         // its length
  octal(483, real);
  header.replace(257, 8, std::string("ustar  \0", 8));  // GNU's magic
  seal_tar_header(header);
  return header + entry.substr(512);
}

}  // namespace

// The probe's archives: a 306 KB archive that expanded to 300 MB (now bounded by the extraction
// budget), a sparse 2 GiB entry written as a 0-byte file (now refused), a FIFO in place of the
// archive (refused without blocking).
TEST(DataDownload, ExtractionIsBoundedAndRefusesSparseEntries) {
  TempFolder temp;
  fs::path out = temp.path / "out";
  fs::create_directories(out);
  const std::string archive = (temp.path / "a.tar").string();
  write_bytes(archive, tar({tar_entry("top/a.bin", std::string(3000, 'a')), tar_entry("top/b.bin", "bb")}));
  expect_error<symx::IOError>([&] { data::extract_archive(archive, out.string(), 2500); },
                              {"a.tar", "the entry 'top/a.bin' would take the extracted data past 2500 bytes"});
  EXPECT_TRUE(listing(out).empty());
  write_bytes(archive,
              tar({tar_entry("top/a.bin", std::string(3000, 'a')), tar_entry("top/b.bin", std::string(600, 'b'))}));
  expect_error<symx::IOError>([&] { data::extract_archive(archive, out.string(), 3500); },
                              {"the entry 'top/b.bin' would take the extracted data past 3500 bytes"});
  EXPECT_TRUE(listing(out).empty());
  EXPECT_EQ(data::extract_archive(archive, out.string(), 3600), (std::vector<std::string>{"top"}));
  EXPECT_EQ(fs::file_size(out / "top" / "b.bin"), 600u);
  fs::remove_all(out / "top");
  // The default budget: 64 MiB plus 4 times the archive.
  EXPECT_EQ(data::default_extract_budget(1000), (std::uint64_t{64} << 20) + 4000);

  write_bytes(archive, tar({tar_entry("top/a.bin", "a"),
                            gnu_sparse_entry("top/sparse.bin", std::string(512, 's'), std::uint64_t{2} << 30)}));
  expect_error<symx::IOError>([&] { data::extract_archive(archive, out.string(), std::uint64_t{4} << 30); },
                              {"the entry 'top/sparse.bin' is a sparse file"});
  EXPECT_TRUE(listing(out).empty());

  const std::string fifo = (temp.path / "fifo.tar").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_error<symx::IOError>([&] { data::extract_archive(fifo, out.string()); }, {"fifo.tar", "not a regular file"});
}

namespace {

// `python3 -m http.server` serving `root` on a free port of 127.0.0.1, stopped when destroyed.
class PythonServer {
 public:
  explicit PythonServer(const fs::path& root) {
    port_ = free_port();
    pid_ = ::fork();
    if (pid_ == 0) {
      std::freopen("/dev/null", "w", stdout);
      std::freopen("/dev/null", "w", stderr);
      std::string port = std::to_string(port_), dir = root.string();
      ::execlp("python3", "python3", "-m", "http.server", port.c_str(), "--bind", "127.0.0.1", "--directory",
               dir.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 100 && !ready(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ~PythonServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  bool running() { return pid_ > 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0 && ready(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  static int free_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
    socklen_t length = sizeof address;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
    ::close(fd);
    return ntohs(address.sin_port);
  }
  bool ready() const {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(port_));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    ::close(fd);
    return ok;
  }
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace

TEST(DataDownload, FetchesFromALocalServerReplacingAStalePart) {
  TempFolder temp;
  fs::path mirror = temp.path / "mirror";
  fs::create_directories(mirror / "mnist");
  std::string sums;
  std::vector<std::string> names = {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                                    "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string bytes;
    for (std::size_t j = 0; j < 20000 + 977 * i; ++j) bytes += static_cast<char>((j * 31 + i * 7) % 251);
    write_bytes((mirror / "mnist" / names[i]).string(), bytes);
    sums += data::sha256_hex(bytes) + "  mnist/" + names[i] + "\n";
  }
  write_bytes((temp.path / "SHA256SUMS").string(), sums);
  PythonServer server(mirror);
  if (!server.running()) GTEST_SKIP() << "python3 -m http.server did not start (is python3 installed?)";
  symx::testing::SavedEnvironment saved({"no_proxy"});
  ::setenv("no_proxy", "127.0.0.1", 1);

  fs::path dest = temp.path / "data";
  fs::create_directories(dest / "mnist");
  write_bytes((dest / "mnist" / (names[0] + ".part")).string(), std::string(3000, 'z'));  // a stale part
  data::DownloadOptions options;
  options.mirror = server.url() + "/";
  options.checksums = (temp.path / "SHA256SUMS").string();
  options.connect_timeout = options.stall_timeout = 5;
  std::vector<std::string> log;
  options.log = [&](const std::string& line) { log.push_back(line); };
  std::int64_t last_done = -1;
  options.progress = [&](const std::string&, std::int64_t done, std::int64_t) { last_done = done; };
  EXPECT_EQ(data::download("mnist", dest.string(), options), (dest / "mnist").string());
  for (const auto& name : names)
    EXPECT_EQ(read_bytes((dest / "mnist" / name).string()), read_bytes((mirror / "mnist" / name).string())) << name;
  EXPECT_EQ(listing(dest / "mnist"), (std::vector<std::string>{names[2], names[3], names[0], names[1]}));
  EXPECT_EQ(last_done, 20000 + 977 * 3);
  ASSERT_GE(log.size(), 2u);
  EXPECT_EQ(log[0], "resuming " + server.url() + "/mnist/" + names[0] + " at 3000 bytes -> " +
                        (dest / "mnist" / (names[0] + ".part")).string());
  EXPECT_NE(log[1].find("ignored the range request"), std::string::npos) << log[1];

  fs::remove(mirror / "mnist" / names[3]);  // everything is in place: the server is not asked
  log.clear();
  EXPECT_NO_THROW(data::download("mnist", dest.string(), options));
  EXPECT_EQ(log.size(), 4u);
  fs::remove(dest / "mnist" / names[3]);
  expect_error<symx::IOError>([&] { data::download("mnist", dest.string(), options); },
                              {"download mnist: cannot fetch " + names[3],
                               server.url() + "/mnist/" + names[3] + ": HTTP status 404",
                               "copy them into " + (dest / "mnist").string()});
  EXPECT_FALSE(fs::exists(dest / "mnist" / (names[3] + ".part")));
}
