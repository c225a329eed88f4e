// The compiler driver; see compiler.hpp for the cache protocol. The compiler runs through
// process.hpp; the keys and integrity hashes are SHA-256 (hashing.hpp).
#include "codegen/compiler.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "codegen/cache_dir.hpp"
#include "codegen/hashing.hpp"
#include "codegen/process.hpp"
#include "symx/error.hpp"

namespace symx::codegen {

namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------------------------------------
// Small helpers: environment and files.

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? std::string(value) : std::string();
}

std::vector<std::string> split_whitespace(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string token; in >> token;) out.push_back(token);
  return out;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : " ") + part;
  return out;
}

// A name unique in this process and across processes sharing a directory: "<pid>.<counter>".
std::string unique_suffix() {
  static std::atomic<std::uint64_t> counter{0};
  return std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
}

[[noreturn]] void throw_io(const std::string& what) { throw IOError("codegen: " + what); }

// Removes the listed files when it goes out of scope (after a rename they no longer exist).
class TempFiles {
 public:
  TempFiles() = default;
  TempFiles(const TempFiles&) = delete;
  TempFiles& operator=(const TempFiles&) = delete;
  ~TempFiles() {
    for (const auto& path : paths_) ::unlink(path.c_str());
  }
  std::string add(std::string path) {
    paths_.push_back(path);
    return path;
  }

 private:
  std::vector<std::string> paths_;
};

// A compile's working folder (mode 0700) in the cache folder: the source, the compiler's output and
// the compiler's own temporary files. Removed with everything in it on every path out. While it
// exists this process holds an exclusive flock on it, which tells remove_stale_compile_files
// (cache_dir.hpp) that the compile is alive even when its pid is not visible (another pid
// namespace); if this process is killed, the lock goes with it and a later process removes it.
class WorkDir {
 public:
  explicit WorkDir(std::string path) : path_(std::move(path)) {
    if (::mkdir(path_.c_str(), 0700) != 0)
      throw_io("cannot create the folder '" + path_ + "' (" + describe_file_error(errno, "SYMX_CACHE_DIR") + ")");
    lock_fd_ = ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (lock_fd_ >= 0) ::flock(lock_fd_, LOCK_EX | LOCK_NB);  // best effort: without it the sweep relies on pid and age
  }
  WorkDir(const WorkDir&) = delete;
  WorkDir& operator=(const WorkDir&) = delete;
  ~WorkDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
    if (lock_fd_ >= 0) ::close(lock_fd_);
  }
  std::string file(const char* name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int lock_fd_ = -1;
};

[[noreturn]] void throw_write_error(const std::string& path, int err, const char* env_name) {
  throw_io("cannot write '" + path + "' (" + describe_file_error(err, env_name) + ")");
}

// Writes `contents` to `path` with mode `mode` whatever the umask; errors (a full disk included)
// name the file and the setting that moves it.
void write_file(const std::string& path, std::string_view contents, mode_t mode, const char* env_name) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) throw_write_error(path, errno, env_name);
  int err = 0;
  for (std::size_t done = 0; done < contents.size() && err == 0;) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n >= 0) done += static_cast<std::size_t>(n);
    else if (errno != EINTR) err = errno;
  }
  if (err == 0 && ::fchmod(fd, mode) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) throw_write_error(path, err, env_name);
}

// Up to `limit` bytes from `fd`, or nullopt when it cannot be read.
std::optional<std::string> read_fd(int fd, std::size_t limit) {
  std::string out(limit, '\0');
  std::size_t size = 0;
  while (size < limit) {
    ssize_t n = ::read(fd, out.data() + size, limit - size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) break;
    size += static_cast<std::size_t>(n);
  }
  out.resize(size);
  return out;
}

void rename_or_throw(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0)
    throw_io("cannot rename '" + from + "' to '" + to + "' (" + describe_file_error(errno, "SYMX_CACHE_DIR") + ")");
}

// A file of the cache opened for reading without following a symbolic link, and checked
// (cache_dir.hpp). fd() < 0 with an empty refusal(): missing or unreadable, i.e. not cached yet.
class CacheFile {
 public:
  explicit CacheFile(const std::string& path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
      if (errno == ELOOP) refusal_ = "it is a symbolic link";
      return;
    }
    struct stat st {};
    std::optional<std::string> reason =
        ::fstat(fd_, &st) == 0 ? untrusted_file_reason(st) : std::string("fstat failed");
    if (reason) {
      refusal_ = *reason;
      ::close(fd_);
      fd_ = -1;
    }
  }
  CacheFile(const CacheFile&) = delete;
  CacheFile& operator=(const CacheFile&) = delete;
  ~CacheFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }
  const std::string& refusal() const { return refusal_; }

 private:
  int fd_ = -1;
  std::string refusal_;
};

// ---------------------------------------------------------------------------------------------
// The compiler, its version and the host.

// -fschedule-insns -fsched-pressure: the pre-register-allocation scheduler interleaves the long,
// independent dependency chains of fused elementwise math (e.g. tanh, sigmoid and exp of one
// element), ~6-10% faster for such kernels on Zen 3/4 and no slower elsewhere.
// -mprefer-vector-width=512: GCC 12 tunes the Intel CPUs it knows (and those it mistakes for
// them, such as newer Xeons it reads as Rocket Lake) for 256-bit vectors even with AVX-512;
// the kernels' math is compute-bound, and full-width vectors made the elementwise chain ~20% and
// the cross-entropy row kernels ~10% faster on such a Xeon. Without AVX-512 it changes nothing.
const char* const kFixedFlags =
    "-O3 -march=native -mprefer-vector-width=512 -fopenmp -std=c++20 -shared -fPIC -fno-math-errno -fschedule-insns "
    "-fsched-pressure";

constexpr double kDefaultCompileTimeout = 300;
constexpr double kDefaultCacheMegabytes = 1024;

// SYMX_CACHE_MAX_MB: megabytes the kernels in the cache folder may take, a number greater than 0
// (default 1024).
std::uint64_t cache_max_bytes() {
  const std::string text = env_or_empty("SYMX_CACHE_MAX_MB");
  double value = kDefaultCacheMegabytes;
  if (!text.empty()) {
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value <= 0 || value > 1e12)
      throw ValueError("codegen: SYMX_CACHE_MAX_MB='" + text +
                       "' is not a number of megabytes greater than 0. Set it to e.g. 4096, or unset it for the "
                       "default of 1024 MB.");
  }
  return static_cast<std::uint64_t>(value * 1024 * 1024);
}

// The keys of the libraries loaded in this process (one entry per live Library): the disk cache
// never evicts them.
struct LoadedKeys {
  std::mutex mutex;
  std::unordered_multiset<std::string> keys;
};

LoadedKeys& loaded_keys() {
  static LoadedKeys* instance = new LoadedKeys;  // never destroyed: Libraries may outlive statics
  return *instance;
}

bool loaded_in_this_process(const std::string& key) {
  LoadedKeys& loaded = loaded_keys();
  std::lock_guard lock(loaded.mutex);
  return loaded.keys.count(key) > 0;
}

// SYMX_COMPILE_TIMEOUT: seconds a compiler run may take, a number greater than 0 (default 300).
double compile_timeout_seconds() {
  const std::string text = env_or_empty("SYMX_COMPILE_TIMEOUT");
  if (text.empty()) return kDefaultCompileTimeout;
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value <= 0)
    throw ValueError(
        "codegen: SYMX_COMPILE_TIMEOUT='" + text +
        "' is not a number of seconds greater than 0. Set it to e.g. 600, or unset it for the default of 300 s.");
  return value;
}

// The path `word` runs: itself when it holds a '/', else the first executable of that name on PATH.
std::optional<std::string> find_executable(const std::string& word) {
  if (word.find('/') != std::string::npos)
    return ::access(word.c_str(), X_OK) == 0 ? std::optional<std::string>(word) : std::nullopt;
  std::string path = env_or_empty("PATH");
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + word;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return std::nullopt;
}

// The compiler command words: $SYMX_CXX, else c++ or g++ from PATH, else c++ (a compile then fails
// with a message that says what to install or set; a cached kernel loads all the same).
std::vector<std::string> compiler_words() {
  auto words = split_whitespace(env_or_empty("SYMX_CXX"));
  if (!words.empty()) return words;
  for (const char* name : {"c++", "g++"})
    if (find_executable(name)) return {name};
  return {"c++"};
}

// What a compiler's version line is remembered under: the path, device, inode, size and change
// time of each word of the command that is an executable file (a launcher such as ccache and the
// compiler behind it), so that an upgraded or another compiler is asked again. Costs a few stat
// calls, no process.
std::string compiler_identity(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& word : words) {
    if (word.empty() || word[0] == '-') continue;
    std::optional<std::string> path = find_executable(word);
    struct stat st {};
    if (!path || ::stat(path->c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    out += *path + " " + std::to_string(st.st_dev) + " " + std::to_string(st.st_ino) + " " +
           std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec) + ";";
  }
  return out;
}

struct VersionMemo {
  std::string identity;  // compiler_identity() when the version line was read
  std::string version;   // the first line of `<compiler> --version`
};

struct Registry {
  struct KeyState {
    std::mutex mutex;  // held while this key is loaded or compiled
    std::weak_ptr<Library> library;
  };
  std::mutex mutex;  // guards the two maps
  std::unordered_map<std::string, std::shared_ptr<KeyState>> keys;
  std::unordered_map<std::string, VersionMemo> versions;  // compiler command -> its version
};

Registry& registry() {
  static Registry instance;
  return instance;
}

std::atomic<std::int64_t> g_compiles{0}, g_disk_hits{0}, g_memory_hits{0};

// The memo file of a compiler command's version in the cache folder: "<identity>\n<version>\n".
std::string version_memo_path(const std::string& dir, const std::string& command) {
  return dir + "/compiler-" + sha256_hex(command).substr(0, 16) + ".version";
}

std::optional<VersionMemo> read_version_memo(const std::string& path) {
  CacheFile file(path);
  std::optional<std::string> text = file.fd() >= 0 ? read_fd(file.fd(), 1 << 16) : std::nullopt;
  std::size_t first = text ? text->find('\n') : std::string::npos;
  if (first == std::string::npos) return std::nullopt;
  std::size_t second = text->find('\n', first + 1);
  if (second == std::string::npos) return std::nullopt;  // torn
  return VersionMemo{text->substr(0, first), text->substr(first + 1, second - first - 1)};
}

// Best effort: without the memo the next process asks the compiler again, nothing worse.
void write_version_memo(const std::string& path, const VersionMemo& memo) {
  TempFiles temps;
  const std::string tmp = temps.add(path + ".tmp." + unique_suffix());
  try {
    write_file(tmp, memo.identity + "\n" + memo.version + "\n", 0644, "SYMX_CACHE_DIR");
    rename_or_throw(tmp, path);
  } catch (const IOError&) {}
}

std::optional<std::string> run_compiler_version(const std::vector<std::string>& words, double timeout) {
  auto argv = words;
  argv.push_back("--version");
  ProcessOptions options;
  options.timeout_seconds = timeout;
  ProcessResult r = run_process(argv, options);
  if (!process_succeeded(r)) return std::nullopt;
  return r.output.substr(0, r.output.find('\n'));
}

// The first line of `<compiler> --version`, part of the cache key. It is read from this process's
// memo or the memo file in the cache folder while the compiler's identity is unchanged, so a warm
// lookup runs no process. A compiler that cannot be run keeps the version last recorded for its
// command ("" when none), so that its cached kernels stay usable without it.
std::string compiler_version(const std::vector<std::string>& words, const std::string& dir, double timeout) {
  const std::string command = join(words);
  const std::string identity = compiler_identity(words);
  Registry& reg = registry();
  {
    std::lock_guard lock(reg.mutex);
    auto it = reg.versions.find(command);
    if (it != reg.versions.end() && it->second.identity == identity) return it->second.version;
  }
  const std::string memo_path = version_memo_path(dir, command);
  std::optional<VersionMemo> memo = read_version_memo(memo_path);
  std::string version;
  if (memo && memo->identity == identity) {
    version = memo->version;
  } else if (auto ran = run_compiler_version(words, timeout)) {
    version = *ran;
    write_version_memo(memo_path, {identity, version});
  } else if (memo) {
    version = memo->version;
  }
  std::lock_guard lock(reg.mutex);
  reg.versions[command] = {identity, version};
  return version;
}

// The identifying lines of the first CPU in /proc/cpuinfo: the key depends on -march=native, so a
// cache shared by machines with different CPUs must not mix their kernels.
const std::string& host_cpu() {
  static const std::string description = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string out, line;
    while (std::getline(in, line) && !line.empty()) {
      for (const char* field : {"vendor_id", "cpu family", "model", "flags", "Features", "CPU implementer",
                                "CPU architecture", "CPU part", "isa"})
        if (line.rfind(field, 0) == 0) {
          out += line + "\n";
          break;
        }
    }
    return out;
  }();
  return description;
}

void append_field(std::string& out, std::string_view field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
  out += ';';
}

// Everything that changes the compiled bytes, or whether they run on this CPU.
std::string cache_key(const std::vector<std::string>& command, const std::string& version, const std::string& source) {
  std::string material;
  append_field(material, "symx-codegen-cache-v2");
  append_field(material, join(command));
  append_field(material, version);
  append_field(material, host_cpu());
  append_field(material, source);
  return sha256_hex(material);
}

void dump_source(const std::string& key, const std::string& source, const std::string& ir_text) {
  std::string dir = env_or_empty("SYMX_DUMP_DIR");
  if (dir.empty()) return;
  create_private_directories(dir, "SYMX_DUMP_DIR");
  TempFiles temps;
  for (const auto& [ext, text] : {std::pair{".cpp", &source}, std::pair{".ir", &ir_text}}) {
    if (text->empty()) continue;
    const std::string tmp = temps.add(dir + "/" + key + ext + ".tmp." + unique_suffix());
    write_file(tmp, *text, 0644, "SYMX_DUMP_DIR");
    rename_or_throw(tmp, dir + "/" + key + ext);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Library.

namespace detail {
struct LibraryAccess {
  static std::shared_ptr<Library> make(void* handle, std::string path, std::string key) {
    return std::shared_ptr<Library>(new Library(handle, std::move(path), std::move(key)));
  }
};
}  // namespace detail

Library::Library(void* handle, std::string path, std::string key)
    : handle_(handle), path_(std::move(path)), key_(std::move(key)) {
  LoadedKeys& loaded = loaded_keys();
  std::lock_guard lock(loaded.mutex);
  loaded.keys.insert(key_);
}

Library::~Library() {
  if (handle_) ::dlclose(handle_);
  LoadedKeys& loaded = loaded_keys();
  std::lock_guard lock(loaded.mutex);
  if (auto it = loaded.keys.find(key_); it != loaded.keys.end()) loaded.keys.erase(it);
}

void* Library::symbol(const std::string& name) const {
  ::dlerror();
  void* address = ::dlsym(handle_, name.c_str());
  if (address == nullptr) {
    const char* error = ::dlerror();
    throw InternalError("codegen: the generated library '" + path_ + "' has no symbol '" + name + "'" +
                        (error ? std::string(" (") + error + ")" : std::string()));
  }
  return address;
}

// ---------------------------------------------------------------------------------------------
// The cache.

namespace {

struct CacheLookup {
  std::shared_ptr<Library> library;   // the entry, when it is valid and trusted
  std::string refused_path, refusal;  // a file of the entry that failed the checks, and why
};

// The entry <dir>/<key>.so when both of its files pass the checks of cache_dir.hpp, its
// integrity file holds the SHA-256 of its contents, and dlopen accepts it.
CacheLookup load_cached(const std::string& so_path, const std::string& hash_path, const std::string& key) {
  CacheLookup out;
  CacheFile hash_file(hash_path), so_file(so_path);
  for (const auto& [file, path] : {std::pair{&hash_file, &hash_path}, std::pair{&so_file, &so_path}})
    if (!file->refusal().empty()) {
      out.refused_path = *path;
      out.refusal = file->refusal();
      return out;
    }
  if (hash_file.fd() < 0 || so_file.fd() < 0) return out;  // missing: not there yet, or torn
  auto recorded = read_fd(hash_file.fd(), 256);
  if (!recorded || recorded->size() < 64) return out;
  auto actual = sha256_of_fd(so_file.fd());
  if (!actual || recorded->compare(0, 64, *actual) != 0) return out;  // corrupt or stale
  // dlopen takes the path: in a folder that passed the checks only the user (or root) could have
  // replaced the file since it was hashed.
  void* handle = ::dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return out;  // unloadable: rebuilt and overwritten by the caller
  ::futimens(so_file.fd(), nullptr);  // its mtime is its last use, for evict_least_recently_used
  out.library = detail::LibraryAccess::make(handle, so_path, key);
  return out;
}

std::string seconds_text(double seconds) {
  std::ostringstream out;
  out << seconds;
  return out.str();
}

bool mentions(const std::string& text, const char* what) { return text.find(what) != std::string::npos; }

// Reports a compiler run that failed as what it is: the surroundings (no compiler, a timeout, a
// signal, a full disk) as IOError, since the user can fix them and symx cannot; generated code
// that a working compiler rejects as InternalError, a bug in symx.
[[noreturn]] void throw_compile_failure(const ProcessResult& r, const std::vector<std::string>& argv,
                                        const std::string& key, double timeout) {
  constexpr std::size_t kMaxOutput = 32 * 1024;
  std::string output =
      r.output.size() > kMaxOutput ? r.output.substr(0, kMaxOutput) + "\n[... compiler output truncated]" : r.output;
  const std::string details = "\ncommand: " + join(argv) + (output.empty() ? "" : "\ncompiler output:\n" + output);
  if (r.spawn_error != 0)
    throw_io("cannot run the C++ compiler '" + argv[0] + "' (" + std::strerror(r.spawn_error) +
             "). Install g++ (e.g. apt-get install g++) or set SYMX_CXX to the compiler command.");
  if (r.timed_out)
    throw_io("the C++ compiler timed out after " + seconds_text(timeout) +
             " s and was stopped. A large function on a slow or "
             "busy machine can take longer: raise SYMX_COMPILE_TIMEOUT (seconds, default 300)." +
             details);
  if (r.wait_status != -1 && WIFSIGNALED(r.wait_status)) {
    const int signal = WTERMSIG(r.wait_status);
    throw_io("the C++ compiler was killed by signal " + signal_name(signal) + " before it finished. " +
             (signal == SIGKILL ? "That usually means that the machine ran out of memory: free some and try again."
                                : "Check the compiler named by SYMX_CXX (or install g++).") +
             details);
  }
  if (mentions(r.output, "No space left on device") || mentions(r.output, "Disk quota exceeded"))
    throw_io(
        "the C++ compiler could not write its output: the disk (or your quota) is full. Free some space, or set "
        "SYMX_CACHE_DIR to a folder on another disk." +
        details);
  if (mentions(r.output, "signal terminated program") || mentions(r.output, "Killed (program"))
    throw_io(
        "a process of the C++ compiler was killed by a signal before it finished (see its output); when that is "
        "SIGKILL (\"Killed\"), the machine usually ran out of memory." +
        details);
  std::string dump = env_or_empty("SYMX_DUMP_DIR");
  throw InternalError("codegen: the generated C++ code does not compile (" + describe_status(r) +
                      ").\ncommand: " + join(argv) +
                      "\nsource: " + (dump.empty() ? "set SYMX_DUMP_DIR=<dir> to keep it" : dump + "/" + key + ".cpp") +
                      "\ncompiler output:\n" + output);
}

// Loads the compiler's output from the working folder, before it is published: a file that does
// not load never enters the cache. The Library carries the path it will have there.
std::shared_ptr<Library> load_fresh(const std::string& so_tmp, const std::string& so_path, const std::string& key,
                                    const std::vector<std::string>& argv) {
  struct stat st {};
  if (::stat(so_tmp.c_str(), &st) != 0)
    throw_io("the C++ compiler reported success but wrote no library.\ncommand: " + join(argv) +
             "\nCheck SYMX_CXX: it must accept g++'s options and write the file named after -o.");
  void* handle = ::dlopen(so_tmp.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    throw_io(std::string("cannot load the freshly compiled kernel library (") + (error ? error : "unknown error") +
             "). It is not cached. When the folder '" + fs::path(so_path).parent_path().string() +
             "' is on a file system mounted noexec, set SYMX_CACHE_DIR to a folder on another one; else check the "
             "compiler.\ncommand: " +
             join(argv));
  }
  return detail::LibraryAccess::make(handle, so_path, key);
}

// Moves a loaded library into the cache: the .so first, then its hash, so that a reader that sees
// the new .so with a missing or older hash treats the entry as absent and compiles it itself.
void publish(const WorkDir& work, const std::string& so_path, const std::string& hash_path, const std::string& key) {
  const std::string so_tmp = work.file("kernel.so"), hash_tmp = work.file("kernel.sha256");
  if (::chmod(so_tmp.c_str(), 0755) != 0)
    throw_io("cannot set the mode of '" + so_tmp + "' (" + std::strerror(errno) + ")");
  auto hash = sha256_of_file(so_tmp);
  if (!hash) throw_io("cannot read back '" + so_tmp + "' (" + std::strerror(errno) + ")");
  write_file(hash_tmp, *hash + "  " + key + ".so\n", 0644, "SYMX_CACHE_DIR");
  rename_or_throw(so_tmp, so_path);
  rename_or_throw(hash_tmp, hash_path);
}

std::shared_ptr<Library> compile_into_cache(const std::vector<std::string>& command, const std::string& source,
                                            const std::string& dir, const std::string& key, double timeout,
                                            std::uint64_t max_bytes) {
  WorkDir work(dir + "/" + key + ".tmp." + unique_suffix());
  const std::string source_path = work.file("source.cpp"), so_tmp = work.file("kernel.so");
  write_file(source_path, source, 0600, "SYMX_CACHE_DIR");

  // The source comes on stdin: a source file's name would be written into the object (its ELF
  // file symbol), so processes compiling the same key from their own temporary files would make
  // different bytes, and the .so of one with the .sha256 of another would read as corrupt.
  std::vector<std::string> argv = command;
  argv.insert(argv.end(), {"-o", so_tmp, "-x", "c++", "-"});
  g_compiles.fetch_add(1);
  // The compiler's own temporary files go to the working folder too: removed even when it is killed.
  ProcessResult r = run_process(argv, {source_path, {"TMPDIR=" + work.path()}, timeout});
  if (!process_succeeded(r)) throw_compile_failure(r, argv, key, timeout);
  std::shared_ptr<Library> library = load_fresh(so_tmp, dir + "/" + key + ".so", key, argv);
  publish(work, dir + "/" + key + ".so", dir + "/" + key + ".sha256", key);
  evict_least_recently_used(dir, max_bytes, loaded_in_this_process);
  return library;
}

}  // namespace

std::string compiler_command() { return join(compiler_words()) + " " + kFixedFlags; }

std::shared_ptr<Library> compile_and_load(const std::string& source, const CompileOptions& options) {
  const std::vector<std::string> words = compiler_words();
  std::vector<std::string> command = words;
  for (auto& flag : split_whitespace(kFixedFlags)) command.push_back(std::move(flag));
  for (auto& flag : split_whitespace(options.extra_flags)) command.push_back(std::move(flag));
  const std::string dir = trusted_cache_dir();
  const double timeout = compile_timeout_seconds();
  const std::uint64_t max_bytes = cache_max_bytes();
  remove_stale_compile_files_once(dir, timeout);
  const std::string key = cache_key(command, compiler_version(words, dir, timeout), source);

  Registry& reg = registry();
  std::shared_ptr<Registry::KeyState> state;
  {
    std::lock_guard lock(reg.mutex);
    auto& slot = reg.keys[key];
    if (!slot) slot = std::make_shared<Registry::KeyState>();
    state = slot;
  }
  std::lock_guard key_lock(state->mutex);
  if (auto library = state->library.lock()) {
    g_memory_hits.fetch_add(1);
    return library;
  }

  dump_source(key, source, options.ir_text);
  const std::string so_path = dir + "/" + key + ".so";
  CacheLookup cached = load_cached(so_path, dir + "/" + key + ".sha256", key);
  std::shared_ptr<Library> library = cached.library;
  if (library) {
    g_disk_hits.fetch_add(1);
  } else {
    if (!cached.refusal.empty()) warn_untrusted_file(cached.refused_path, cached.refusal);
    library = compile_into_cache(command, source, dir, key, timeout, max_bytes);
  }
  state->library = library;
  return library;
}

CompilerStats compiler_stats() {
  CompilerStats stats;
  stats.compiles = g_compiles.load();
  stats.disk_hits = g_disk_hits.load();
  stats.memory_hits = g_memory_hits.load();
  return stats;
}

void clear_memory_cache_for_testing() {
  Registry& reg = registry();
  std::lock_guard lock(reg.mutex);
  reg.keys.clear();
  reg.versions.clear();
}

}  // namespace symx::codegen