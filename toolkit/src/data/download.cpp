// Downloads of the standard data sets (symx/data/download.hpp): libcurl for HTTP(S), a .part file
// resumed with Range requests, SHA-256 checks against pinned sums, atomic placement.
#include "symx/data/download.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "symx/error.hpp"
#include "symx/io.hpp"

namespace fs = std::filesystem;

namespace symx::data {

// ---- the pinned files ----

// Sizes and SHA-256 sums as recorded by TensorFlow Datasets for these same files
// (github.com/tensorflow/datasets, tensorflow_datasets/url_checksums/mnist.txt, fashion_mnist.txt,
// cifar10.txt and cifar100.txt: URL, size, sha256), and pinned with the same values by other
// projects (e.g. the sha256 tables of torchvision-style loaders found in public repositories).
// They were copied from those sources, not computed here: this machine has no internet access.
// URLs: MNIST from Google's CVDF mirror (the URLs TFDS uses) with PyTorch's ossci mirror as the
// second; Fashion-MNIST from its official S3 bucket through the bucket's HTTPS (REST) endpoint (the
// s3-website address TFDS uses serves plain HTTP only), then its GitHub repository; CIFAR from
// Alex Krizhevsky's page.
const std::vector<DatasetSource>& dataset_sources() {
  static const std::vector<DatasetSource> sources = {
      {"mnist",
       {"https://storage.googleapis.com/cvdf-datasets/mnist/", "https://ossci-datasets.s3.amazonaws.com/mnist/"},
       {{"train-images-idx3-ubyte.gz", 9912422, "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609", ""},
        {"train-labels-idx1-ubyte.gz", 28881, "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c", ""},
        {"t10k-images-idx3-ubyte.gz", 1648877, "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6", ""},
        {"t10k-labels-idx1-ubyte.gz", 4542, "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6", ""}}},
      {"fashion-mnist",
       {"https://fashion-mnist.s3.eu-central-1.amazonaws.com/",
        "https://raw.githubusercontent.com/zalandoresearch/fashion-mnist/master/data/fashion/"},
       {{"train-images-idx3-ubyte.gz", 26421880, "3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84",
         ""},
        {"train-labels-idx1-ubyte.gz", 29515, "a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845", ""},
        {"t10k-images-idx3-ubyte.gz", 4422102, "346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073", ""},
        {"t10k-labels-idx1-ubyte.gz", 5148, "67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5", ""}}},
      {"cifar10",
       {"https://www.cs.toronto.edu/~kriz/"},
       {{"cifar-10-binary.tar.gz", 170052171, "c4a38c50a1bc5f3a1c5537f2155ab9d68f9f25eb1ed8d9ddda3db29a59bca1dd",
         "cifar-10-batches-bin"}}},
      {"cifar100",
       {"https://www.cs.toronto.edu/~kriz/"},
       {{"cifar-100-binary.tar.gz", 168513733, "58a81ae192c23a4be8b1804d68e518ed807d710a4eb253b1f2a199162a40d8ec",
         "cifar-100-binary"}}},
  };
  return sources;
}

std::string default_data_dir() {
  if (const char* dir = std::getenv("SYMX_DATA_DIR"); dir && *dir) return dir;
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
    return (fs::path(cache) / "symx" / "data").string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (fs::path(home) / ".cache" / "symx" / "data").string();
  throw ValueError(
      "download: no folder given and neither SYMX_DATA_DIR nor HOME is set. Fix: pass a folder "
      "(--dir DIR, dir=...) or set SYMX_DATA_DIR.");
}

namespace {

// ---- what went wrong, and how to fix it ----

enum class Cause { Network, Tls, Http, Disk, Hash, Protocol };

struct Failure {
  std::string url;
  Cause cause;
  std::string text;
  long status = 0;  // the HTTP status, for Cause::Http
};

std::string fix_for(const Failure& f, const std::string& folder) {
  switch (f.cause) {
    case Cause::Network: return "check the network connection (a proxy is read from https_proxy)";
    case Cause::Tls:
      return "the server's certificate was not accepted: for a private mirror pass its certificate authority "
             "(--ca-file, ca_file=), else update the system's CA certificates";
    case Cause::Http:
      if (f.status == 404 || f.status == 403)
        return "the file is not at this URL: a mirror must hold the files as MIRROR/<data set>/<file> "
               "(check --mirror or SYMX_DATA_MIRROR)";
      return "the server refused or failed; try again later or use a mirror (--mirror)";
    case Cause::Disk: return "free some space in " + folder + " or choose another folder (--dir, dir=, SYMX_DATA_DIR)";
    case Cause::Hash:
      return "the server sent other bytes than expected (a wrong or outdated mirror, or a transfer "
             "corrupted on the way): try again or use another mirror; a mirror of other files needs its own "
             "sums (--checksums, checksums=)";
    case Cause::Protocol: return "the server answered the range request wrongly; try again or use another mirror";
  }
  return "";
}

[[noreturn]] void throw_failures(const std::string& set, const DatasetFile& file, const std::string& folder,
                                 const std::vector<Failure>& failures, const DatasetSource& source) {
  std::string message = "download " + set + ": cannot fetch " + file.name + " into " + folder + ":";
  std::set<std::string> fixes;
  std::string fix_text;
  for (const auto& f : failures) {
    message += "\n  " + f.url + ": " + f.text;
    std::string fix = fix_for(f, folder);
    if (fixes.insert(fix).second) fix_text += (fix_text.empty() ? "" : "; ") + fix;
  }
  std::string names;
  for (const auto& f : source.files) names += (names.empty() ? "" : ", ") + f.name;
  message += "\nFix: " + fix_text + ". Without network access here: download " + names + " on another machine (from " +
             source.urls.front() + ") and copy them into " + folder +
             "; their sums are checked and they are not fetched again.";
  throw IOError(message);
}

// ---- one HTTP(S) request into the part file ----

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};

// The state of one request: the part file's descriptor and size, what the server answered.
struct Request {
  CURL* curl = nullptr;
  int fd = -1;
  std::int64_t offset = 0;         // bytes in the part when the request was sent
  std::int64_t written = 0;        // bytes in the part now
  std::int64_t limit = -1;         // the file's size when known: more bytes than this is an error
  std::int64_t total = -1;         // for progress
  bool started = false;            // the first body bytes arrived
  bool restarted = false;          // the server ignored the range (200): the part was emptied
  std::int64_t range_start = -1;   // Content-Range start of the last response
  std::optional<Failure> failure;  // set by a callback that stopped the transfer
  std::exception_ptr callback_error;
  const std::string* name = nullptr;
  const DownloadProgress* progress = nullptr;
  std::chrono::steady_clock::time_point last_report{};
  std::string url;
  double seconds_left = 0;  // of the file's whole-transfer limit
};

std::int64_t parse_range_start(std::string_view line) {
  // "Content-Range: bytes 100-199/200"
  auto pos = line.find("bytes");
  if (pos == std::string_view::npos) return -1;
  pos += 5;
  while (pos < line.size() && line[pos] == ' ') ++pos;
  std::int64_t start = 0;
  bool digits = false;
  for (; pos < line.size() && line[pos] >= '0' && line[pos] <= '9'; ++pos, digits = true)
    start = start * 10 + (line[pos] - '0');
  return digits ? start : -1;
}

bool starts_with_nocase(std::string_view line, std::string_view prefix) {
  if (line.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(line[i])) != prefix[i]) return false;
  return true;
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto& r = *static_cast<Request*>(user);
  std::string_view line(data, size * count);
  if (starts_with_nocase(line, "http/")) r.range_start = -1;  // a new response (after a redirect)
  else if (starts_with_nocase(line, "content-range:")) r.range_start = parse_range_start(line);
  return size * count;
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// The first body bytes: checks the status and the range; empties the part when the server sends
// the whole file (200) instead of the range asked for.
bool begin_body(Request& r) {
  r.started = true;
  long status = 0;
  curl_easy_getinfo(r.curl, CURLINFO_RESPONSE_CODE, &status);
  curl_off_t length = -1;
  curl_easy_getinfo(r.curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
  if (status == 206) {
    if (r.range_start != r.offset) {
      r.failure = Failure{r.url, Cause::Protocol,
                          "asked for the bytes from " + std::to_string(r.offset) +
                              " on, the server answered a range "
                              "starting at " +
                              std::to_string(r.range_start)};
      return false;
    }
    if (r.total < 0 && length >= 0) r.total = r.offset + length;
    return true;
  }
  if (status == 200) {
    if (r.offset > 0) {
      if (::ftruncate(r.fd, 0) != 0 || ::lseek(r.fd, 0, SEEK_SET) != 0) {
        r.failure = Failure{r.url, Cause::Disk, std::string("cannot empty the part file: ") + std::strerror(errno)};
        return false;
      }
      r.restarted = true;
      r.offset = r.written = 0;
    }
    if (r.total < 0 && length >= 0) r.total = length;
    return true;
  }
  r.failure = Failure{r.url, Cause::Http, "HTTP status " + std::to_string(status), status};
  return false;
}

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto& r = *static_cast<Request*>(user);
  std::size_t bytes = size * count;
  if (!r.started && !begin_body(r)) return CURL_WRITEFUNC_ERROR;
  if (r.limit >= 0 && r.written + static_cast<std::int64_t>(bytes) > r.limit) {
    r.failure = Failure{r.url, Cause::Hash,
                        "the server sent more than the " + std::to_string(r.limit) + " bytes of " + *r.name};
    return CURL_WRITEFUNC_ERROR;
  }
  if (!write_all(r.fd, data, bytes)) {
    r.failure = Failure{r.url, Cause::Disk, std::string("cannot write the part file: ") + std::strerror(errno)};
    return CURL_WRITEFUNC_ERROR;
  }
  r.written += static_cast<std::int64_t>(bytes);
  return bytes;
}

// Reports progress at most ten times a second; an exception of the callback stops the transfer.
int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto& r = *static_cast<Request*>(user);
  if (!r.progress || !*r.progress) return 0;
  auto now = std::chrono::steady_clock::now();
  if (now - r.last_report < std::chrono::milliseconds(100)) return 0;
  r.last_report = now;
  try {
    (*r.progress)(*r.name, r.written, r.total);
  } catch (...) {
    r.callback_error = std::current_exception();
    return 1;
  }
  return 0;
}

// Whether a failed request is worth another attempt that resumes the part.
bool is_transient(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_TOO_MANY_REDIRECTS:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CONNECT_ERROR: return false;
    default: return true;
  }
}

Cause cause_of(CURLcode code) {
  switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CONNECT_ERROR: return Cause::Tls;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT: return Cause::Protocol;
    default: return Cause::Network;
  }
}

struct Outcome {
  bool complete = false;       // the body arrived in full
  bool range_refused = false;  // 416: the part may already hold the whole file
  bool retry = false;          // worth another attempt
  bool empty_part = false;     // the part holds wrong bytes: start over
  std::optional<Failure> failure;
};

void set_options(CURL* curl, Request& r, const DownloadOptions& options, char* error_buffer) {
  curl_easy_setopt(curl, CURLOPT_URL, r.url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "symx-data-download");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout * 1000));
  // Give up on a connection that delivers less than one byte a second for stall_timeout seconds.
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, std::max(1L, static_cast<long>(options.stall_timeout + 0.5)));
  // What is left of the file's whole-transfer limit (at least 1 ms: 0 would mean none).
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, std::max(1L, static_cast<long>(r.seconds_left * 1000)));
  if (!options.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options.ca_file.c_str());
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &r);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &r);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
}

// One GET of `r.url`, appending to the part (a Range request from its current size).
Outcome request_once(Request& r, const DownloadOptions& options) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) throw std::bad_alloc();
  r.curl = curl.get();
  char error_buffer[CURL_ERROR_SIZE] = {0};
  set_options(curl.get(), r, options, error_buffer);
  std::string range = std::to_string(r.offset) + "-";
  if (r.offset > 0) curl_easy_setopt(curl.get(), CURLOPT_RANGE, range.c_str());
  CURLcode code = curl_easy_perform(curl.get());
  if (r.callback_error) std::rethrow_exception(r.callback_error);
  Outcome out;
  if (r.failure) {
    out.failure = r.failure;
    out.retry = r.failure->cause == Cause::Protocol || (r.failure->cause == Cause::Http && r.failure->status >= 500);
    out.empty_part = r.failure->cause == Cause::Protocol || r.failure->cause == Cause::Hash;
    return out;
  }
  if (code != CURLE_OK) {
    std::string text = error_buffer[0] ? error_buffer : curl_easy_strerror(code);
    out.failure = Failure{r.url, cause_of(code), text + " (curl error " + std::to_string(code) + ")"};
    out.retry = is_transient(code);
    return out;
  }
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  if (status == 416 && r.offset > 0) {
    out.range_refused = true;
  } else if (!r.started && status != 200 && status != 206) {  // an error without a body
    out.failure = Failure{r.url, Cause::Http, "HTTP status " + std::to_string(status), status};
    out.retry = status >= 500;
  } else {
    out.complete = true;
  }
  return out;
}

// ---- one file: present, or fetched into its part, checked and renamed into place ----

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

void fsync_folder(const fs::path& folder) {
  int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

std::string human_bytes(std::int64_t n) {
  char buffer[32];
  if (n < 10000) std::snprintf(buffer, sizeof buffer, "%lld bytes", static_cast<long long>(n));
  else if (n < 10000000) std::snprintf(buffer, sizeof buffer, "%.1f kB", n / 1e3);
  else std::snprintf(buffer, sizeof buffer, "%.1f MB", n / 1e6);
  return buffer;
}

class FileFetcher {
 public:
  // `cap`: the most bytes accepted when the file's size is unknown (-1: no cap).
  FileFetcher(const DatasetFile& file, std::int64_t cap, const fs::path& folder, const DownloadOptions& options,
              const std::function<void(const std::string&)>& log)
      : file_(file),
        limit_(file.size >= 0 ? file.size : cap),
        timeout_(options.timeout > 0 ? options.timeout : default_transfer_timeout(file.size >= 0 ? file.size : cap)),
        folder_(folder),
        options_(options),
        log_(log),
        target_(folder / file.name),
        part_(folder / (file.name + ".part")) {}

  // Whether the file is already in place with the right sum.
  bool present() {
    std::error_code ec;
    if (!fs::is_regular_file(target_, ec)) return false;
    auto size = static_cast<std::int64_t>(fs::file_size(target_, ec));
    if (file_.size >= 0 && size != file_.size) {
      log_(target_.string() + " has " + std::to_string(size) + " bytes, expected " + std::to_string(file_.size) +
           ": fetching it again");
      return false;
    }
    std::string found = sha256_file(target_.string());
    if (found == file_.sha256) {
      log_(target_.string() + ": present, sha256 ok");
      report(size);
      return true;
    }
    log_(target_.string() + " has sha256 " + found + ", expected " + file_.sha256 + ": fetching it again");
    return false;
  }

  // Fetches the file from `url` into place, or returns what went wrong.
  std::optional<Failure> fetch(const std::string& url) {
    Fd part;
    part.fd = open_part();
    if (part.fd < 0) return Failure{url, Cause::Disk, "cannot create " + part_.string() + ": " + std::strerror(errno)};
    if (::flock(part.fd, LOCK_EX | LOCK_NB) != 0)
      throw IOError("download: another download is writing " + part_.string() +
                    ". Fix: wait for it to finish, or stop it and run this again.");
    for (int attempt = 0;; ++attempt) {
      if (seconds_left() <= 0) {
        if (part_size(part.fd) == 0) ::unlink(part_.c_str());
        return Failure{url, Cause::Network,
                       "the transfer took more than its limit of " + std::to_string(static_cast<long>(timeout_)) +
                           " s (--deadline, timeout=; the part is kept and resumed next time)"};
      }
      std::int64_t have = part_size(part.fd);
      if (limit_ >= 0 && have > limit_) have = empty(part.fd);
      Outcome out;
      if (file_.size >= 0 && have == file_.size) out.range_refused = true;  // complete already: check it
      else out = request(url, part.fd, have);
      if (out.complete || out.range_refused) {
        std::optional<Failure> bad = finish(url, part.fd, out.range_refused);
        if (!bad) return std::nullopt;
        if (!out.range_refused || attempt >= options_.retries) {
          ::unlink(part_.c_str());
          return bad;
        }
        continue;  // a complete-looking part with wrong bytes (emptied by finish): start over
      }
      if (out.empty_part) empty(part.fd);
      if (!out.retry || attempt >= options_.retries) {
        if (part_size(part.fd) == 0) ::unlink(part_.c_str());
        return out.failure;
      }
      log_(url + ": " + out.failure->text + "; trying again (" + std::to_string(attempt + 2) + " of " +
           std::to_string(options_.retries + 1) + ")");
      std::this_thread::sleep_for(std::chrono::milliseconds(200 * (attempt + 1)));
    }
  }

 private:
  double seconds_left() {
    const auto now = std::chrono::steady_clock::now();
    if (!started_) {
      started_ = true;
      start_ = now;
    }
    return timeout_ - std::chrono::duration<double>(now - start_).count();
  }

  // The part file, opened without following a link: one left by an earlier download of this user
  // is resumed; anything else in its place (a link, a FIFO, a file with other links or owner,
  // planted to make the download write elsewhere) is removed, and a new part is created with
  // O_EXCL, so that nothing but a file made here is ever written. -1 (errno) on failure.
  int open_part() {
    int fd = ::open(part_.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
      struct stat st {};
      if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 && st.st_uid == ::geteuid()) {
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        return fd;
      }
      ::close(fd);
    }
    if (fd >= 0 || errno == ELOOP || errno == ENXIO || errno == EISDIR || errno == EACCES) {
      log_(part_.string() + " is not a part file left by a download (a link or another kind of file): removed");
      std::error_code ec;
      fs::remove(part_, ec);  // a link itself, never its target
    }
    return ::open(part_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  }

  static std::int64_t part_size(int fd) {
    struct stat st {};
    return ::fstat(fd, &st) == 0 ? static_cast<std::int64_t>(st.st_size) : 0;
  }
  static std::int64_t empty(int fd) {
    if (::ftruncate(fd, 0) != 0) return part_size(fd);
    return 0;
  }

  Outcome request(const std::string& url, int fd, std::int64_t have) {
    if (::lseek(fd, 0, SEEK_END) < 0)
      return {false, false, false, false, Failure{url, Cause::Disk, std::strerror(errno)}};
    Request r;
    r.url = url;
    r.fd = fd;
    r.offset = r.written = have;
    r.limit = limit_;
    r.total = file_.size;
    r.seconds_left = seconds_left();
    r.name = &file_.name;
    r.progress = &options_.progress;
    if (have > 0) log_("resuming " + url + " at " + human_bytes(have) + " -> " + part_.string());
    else log_("fetching " + url + " -> " + target_.string());
    Outcome out = request_once(r, options_);
    if (r.restarted) log_(url + ": the server ignored the range request; fetched the whole file again");
    return out;
  }

  // Checks the complete part; renames it into place, or deletes it and says why.
  std::optional<Failure> finish(const std::string& url, int fd, bool was_complete) {
    if (::fsync(fd) != 0)
      return Failure{url, Cause::Disk, "cannot flush " + part_.string() + " to disk: " + std::strerror(errno)};
    std::string found = sha256_file(part_.string());
    if (found != file_.sha256) {
      empty(fd);
      return Failure{url, Cause::Hash,
                     std::string(was_complete ? "the part left by an earlier download" : "the file received") +
                         " has sha256 " + found + ", expected " + file_.sha256 + " (" +
                         (options_.checksums.empty() ? "pinned in symx" : "from " + options_.checksums) +
                         "); the part was deleted"};
    }
    if (::rename(part_.c_str(), target_.c_str()) != 0)
      return Failure{url, Cause::Disk,
                     "cannot rename " + part_.string() + " to " + target_.string() + ": " + std::strerror(errno)};
    fsync_folder(folder_);
    log_(target_.string() + ": " + human_bytes(part_size(fd)) + ", sha256 ok");
    report(part_size(fd));
    return std::nullopt;
  }

  void report(std::int64_t size) {
    if (options_.progress) options_.progress(file_.name, size, size);
  }

  const DatasetFile& file_;
  std::int64_t limit_;  // the most bytes accepted: the size, or the cap when it is unknown
  double timeout_;      // seconds for the whole transfer
  bool started_ = false;
  std::chrono::steady_clock::time_point start_{};
  fs::path folder_;
  const DownloadOptions& options_;
  const std::function<void(const std::string&)>& log_;
  fs::path target_, part_;
};

// ---- options: the sums, the URLs ----

const DatasetSource& find_source(const std::string& name) {
  std::string known;
  for (const auto& s : dataset_sources()) {
    if (s.name == name) return s;
    known += (known.empty() ? "" : ", ") + s.name;
  }
  throw ValueError("download: unknown data set '" + name + "'. Fix: choose one of " + known + ".");
}

bool is_hex_sum(const std::string& s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// Reads `SHA256  FILE` lines (sha256sum's output; "#" comments and blank lines are skipped).
std::map<std::string, std::string> read_checksums(const std::string& path) {
  // A regular file of at most 1 MiB (a FIFO would block; a device never end).
  std::istringstream in(read_regular_file(path, 1 << 20, "download: the checksums file"));
  std::map<std::string, std::string> sums;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    auto space = line.find_first_of(" \t", first);
    std::string sum = line.substr(first, space == std::string::npos ? std::string::npos : space - first);
    std::transform(sum.begin(), sum.end(), sum.begin(), [](char c) { return static_cast<char>(std::tolower(c)); });
    auto name_at = space == std::string::npos ? std::string::npos : line.find_first_not_of(" \t*", space);
    if (!is_hex_sum(sum) || name_at == std::string::npos)
      throw IOError("download: " + path + " line " + std::to_string(number) +
                    ": expected 'SHA256  FILE' (64 hex "
                    "digits, spaces, a file name, as sha256sum writes), found '" +
                    line + "'.");
    std::string name = line.substr(name_at);
    while (!name.empty() && (name.back() == '\r' || name.back() == ' ')) name.pop_back();
    sums[name] = sum;
  }
  return sums;
}

// The data set's files with the sums of the checksums file (sizes unknown), when one is given.
DatasetSource with_checksums(DatasetSource source, const std::string& path) {
  auto sums = read_checksums(path);
  std::string missing;
  for (auto& file : source.files) {
    auto it = sums.find(source.name + "/" + file.name);
    if (it == sums.end()) it = sums.find(file.name);
    if (it == sums.end()) {
      missing += (missing.empty() ? "" : ", ") + file.name;
      continue;
    }
    file.sha256 = it->second;
    file.size = -1;
  }
  if (!missing.empty())
    throw ValueError("download " + source.name + ": the checksums file " + path + " has no sum for " + missing +
                     ". Fix: add a line 'SHA256  FILE' for each (sha256sum FILE prints it).");
  return source;
}

// The base URLs: the mirror's folder for the data set, or the pinned ones.
std::vector<std::string> base_urls(const DatasetSource& source, const DownloadOptions& options) {
  std::string mirror = options.mirror;
  if (mirror.empty())
    if (const char* env = std::getenv("SYMX_DATA_MIRROR")) mirror = env;
  if (mirror.empty()) return source.urls;
  if (mirror.rfind("http://", 0) != 0 && mirror.rfind("https://", 0) != 0)
    throw ValueError("download: the mirror '" + mirror +
                     "' is not an http:// or https:// URL. Fix: give the base "
                     "URL of a mirror that holds MIRROR/" +
                     source.name + "/<file>.");
  while (!mirror.empty() && mirror.back() == '/') mirror.pop_back();
  return {mirror + "/" + source.name + "/"};
}

void extract_if_needed(const DatasetFile& file, const fs::path& folder,
                       const std::function<void(const std::string&)>& log) {
  if (file.extracts_to.empty() || fs::exists(folder / file.extracts_to)) return;
  log("extracting " + (folder / file.name).string() + " into " + folder.string());
  std::vector<std::string> entries = extract_archive((folder / file.name).string(), folder.string());
  if (!fs::exists(folder / file.extracts_to)) {
    std::string held;
    for (const auto& e : entries) held += (held.empty() ? "" : ", ") + e;
    throw IOError("download: " + (folder / file.name).string() + " does not hold the folder " + file.extracts_to +
                  " (it holds: " + held + "). Fix: check that the archive is the right file.");
  }
}

}  // namespace

double default_transfer_timeout(std::int64_t bytes) {
  return 300 + static_cast<double>(std::max<std::int64_t>(bytes, 0)) / 50e3;
}

std::string download(const std::string& name, const std::string& dir, const DownloadOptions& options) {
  if (!(options.timeout >= 0) || !std::isfinite(options.timeout))
    throw ValueError("download: timeout " + std::to_string(options.timeout) +
                     " is not a number of seconds >= 0 (0: the default for the file's size).");
  DatasetSource source = find_source(name);
  if (!options.checksums.empty()) source = with_checksums(source, options.checksums);
  std::vector<std::string> bases = base_urls(source, options);
  fs::path folder = fs::path(dir.empty() ? default_data_dir() : dir) / source.name;
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec)
    throw IOError("download " + name + ": cannot create the folder " + folder.string() + ": " + ec.message() +
                  ". Fix: choose a writable folder (--dir, dir=, SYMX_DATA_DIR).");
  std::function<void(const std::string&)> log = [&](const std::string& line) {
    if (options.log) options.log(line);
    else if (!options.quiet) std::fprintf(stderr, "symx: %s\n", line.c_str());
  };
  const DatasetSource& pinned = find_source(name);
  for (std::size_t i = 0; i < source.files.size(); ++i) {
    const DatasetFile& file = source.files[i];
    // With other sums the size is unknown, but bounded by the pinned one (a recompressed mirror
    // may differ a little; a stream without end may not).
    const std::int64_t cap = 2 * pinned.files[i].size + (std::int64_t{1} << 20);
    FileFetcher fetcher(file, cap, folder, options, log);
    if (fetcher.present()) continue;
    std::vector<Failure> failures;
    bool done = false;
    for (const auto& base : bases) {
      std::optional<Failure> failure = fetcher.fetch(base + file.name);
      if (!failure) {
        done = true;
        break;
      }
      failures.push_back(*failure);
    }
    if (!done) throw_failures(name, file, folder.string(), failures, source);
  }
  for (const auto& file : source.files) extract_if_needed(file, folder, log);
  return folder.string();
}

}  // namespace symx::data
