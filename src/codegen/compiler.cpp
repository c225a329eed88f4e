// The compiler driver; see compiler.hpp for the cache protocol.
#include "codegen/compiler.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "symx/error.hpp"

extern char** environ;

namespace symx::codegen {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// SHA-256 (FIPS 180-4).

namespace {

class Sha256 {
 public:
  void update(const void* data, std::size_t size) {
    const auto* p = static_cast<const unsigned char*>(data);
    length_ += size;
    while (size > 0) {
      std::size_t n = std::min(size, std::size_t{64} - fill_);
      std::memcpy(block_.data() + fill_, p, n);
      fill_ += n;
      p += n;
      size -= n;
      if (fill_ == 64) {
        compress(block_.data());
        fill_ = 0;
      }
    }
  }

  std::string hex_digest() {
    std::uint64_t bits = length_ * 8;
    unsigned char pad = 0x80;
    update(&pad, 1);
    unsigned char zero = 0;
    while (fill_ != 56) update(&zero, 1);
    unsigned char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
    update(len, 8);
    static const char* digits = "0123456789abcdef";
    std::string out;
    for (std::uint32_t word : h_)
      for (int shift = 28; shift >= 0; shift -= 4) out += digits[(word >> shift) & 0xf];
    return out;
  }

 private:
  static std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

  void compress(const unsigned char* b) {
    static constexpr std::uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = std::uint32_t{b[4 * i]} << 24 | std::uint32_t{b[4 * i + 1]} << 16 |
             std::uint32_t{b[4 * i + 2]} << 8 | std::uint32_t{b[4 * i + 3]};
    for (int i = 16; i < 64; ++i) {
      std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = h_[0], bb = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
    for (int i = 0; i < 64; ++i) {
      std::uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = bb;
      bb = a;
      a = t1 + t2;
    }
    h_[0] += a;
    h_[1] += bb;
    h_[2] += c;
    h_[3] += d;
    h_[4] += e;
    h_[5] += f;
    h_[6] += g;
    h_[7] += h;
  }

  std::array<std::uint32_t, 8> h_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<unsigned char, 64> block_{};
  std::size_t fill_ = 0;
  std::uint64_t length_ = 0;
};

// SHA-256 of a file's contents, or nullopt when it cannot be read.
std::optional<std::string> sha256_of_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  Sha256 hasher;
  std::vector<char> buffer(1 << 16);
  for (;;) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    hasher.update(buffer.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  return hasher.hex_digest();
}

// ---------------------------------------------------------------------------------------------
// Small helpers: environment, files, processes.

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

[[noreturn]] void throw_io(const std::string& what) { throw IOError("codegen: " + what); }

void write_file(const std::string& path, std::string_view contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) throw_io("cannot write '" + path + "' (" + std::strerror(errno) + "). Check the disk space and the permissions of its directory.");
}

std::optional<std::string> read_small_file(const std::string& path, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string out(limit, '\0');
  in.read(out.data(), static_cast<std::streamsize>(limit));
  out.resize(static_cast<std::size_t>(in.gcount()));
  return out;
}

void rename_or_throw(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0)
    throw_io("cannot rename '" + from + "' to '" + to + "' (" + std::strerror(errno) + ")");
}

void create_directories_or_throw(const std::string& dir, const char* env_name) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw_io("cannot create the directory '" + dir + "' (" + (ec ? ec.message() : "not a directory") + "). Set " +
             env_name + " to a writable directory.");
}

struct ProcessResult {
  int spawn_error = 0;  // errno from posix_spawnp; 0 when the process ran
  int wait_status = 0;  // from waitpid
  std::string output;   // stdout and stderr together
};

// Runs argv (PATH lookup for argv[0]) with stdin from `stdin_path` and stdout + stderr captured.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdin_path = "/dev/null") {
  ProcessResult result;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    result.spawn_error = errno;
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, stdin_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    result.spawn_error = rc;
    return result;
  }
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    result.output.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  while (::waitpid(pid, &result.wait_status, 0) < 0) {
    if (errno != EINTR) {
      result.wait_status = -1;
      break;
    }
  }
  return result;
}

bool process_succeeded(const ProcessResult& r) {
  return r.spawn_error == 0 && r.wait_status != -1 && WIFEXITED(r.wait_status) && WEXITSTATUS(r.wait_status) == 0;
}

std::string describe_status(const ProcessResult& r) {
  if (r.spawn_error != 0) return std::string("could not be started: ") + std::strerror(r.spawn_error);
  if (r.wait_status == -1) return "its exit status is unknown";
  if (WIFEXITED(r.wait_status)) return "exit status " + std::to_string(WEXITSTATUS(r.wait_status));
  if (WIFSIGNALED(r.wait_status)) return "killed by signal " + std::to_string(WTERMSIG(r.wait_status));
  return "status " + std::to_string(r.wait_status);
}

// ---------------------------------------------------------------------------------------------
// The compiler, its version and the host.

// -fschedule-insns -fsched-pressure: the pre-register-allocation scheduler interleaves the long,
// independent dependency chains of fused elementwise math (e.g. tanh, sigmoid and exp of one
// element), ~6-10% faster for such kernels on Zen 3/4 and no slower elsewhere.
const char* const kFixedFlags =
    "-O3 -march=native -fopenmp -std=c++20 -shared -fPIC -fno-math-errno -fschedule-insns -fsched-pressure";

bool executable_on_path(const std::string& name) {
  std::string path = env_or_empty("PATH");
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    if (::access((dir + "/" + name).c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

// The compiler command words: $SYMX_CXX, else c++ or g++ from PATH.
std::vector<std::string> compiler_words() {
  auto words = split_whitespace(env_or_empty("SYMX_CXX"));
  if (!words.empty()) return words;
  for (const char* name : {"c++", "g++"})
    if (executable_on_path(name)) return {name};
  throw_io("no C++ compiler found: neither 'c++' nor 'g++' is on PATH. Install g++ or set SYMX_CXX to the compiler command.");
}

struct Registry {
  struct KeyState {
    std::mutex mutex;  // held while this key is loaded or compiled
    std::weak_ptr<Library> library;
  };
  std::mutex mutex;  // guards the two maps
  std::unordered_map<std::string, std::shared_ptr<KeyState>> keys;
  std::unordered_map<std::string, std::string> versions;  // compiler command -> version line
};

Registry& registry() {
  static Registry instance;
  return instance;
}

std::atomic<std::int64_t> g_compiles{0}, g_disk_hits{0}, g_memory_hits{0};

// The first line of `<compiler> --version`, once per process for each compiler command.
std::string compiler_version(const std::vector<std::string>& words) {
  std::string command = join(words);
  Registry& reg = registry();
  {
    std::lock_guard lock(reg.mutex);
    if (auto it = reg.versions.find(command); it != reg.versions.end()) return it->second;
  }
  auto argv = words;
  argv.push_back("--version");
  ProcessResult r = run_process(argv);
  if (!process_succeeded(r))
    throw_io("cannot run the C++ compiler '" + command + " --version' (" + describe_status(r) + "). Install g++ or set SYMX_CXX to a working compiler command." +
             (r.output.empty() ? "" : "\n" + r.output));
  std::string line = r.output.substr(0, r.output.find('\n'));
  std::lock_guard lock(reg.mutex);
  return reg.versions.emplace(command, line).first->second;
}

// The identifying lines of the first CPU in /proc/cpuinfo: the key depends on -march=native, so a
// cache shared by machines with different CPUs must not mix their kernels.
const std::string& host_cpu() {
  static const std::string description = [] {
    std::ifstream in("/proc/cpuinfo");
    std::string out, line;
    while (std::getline(in, line) && !line.empty()) {
      for (const char* field : {"vendor_id", "model name", "flags", "Features", "CPU implementer", "CPU part", "isa"})
        if (line.rfind(field, 0) == 0) out += line + "\n";
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

std::string cache_dir() {
  std::string dir = env_or_empty("SYMX_CACHE_DIR");
  if (dir.empty()) {
    std::string home = env_or_empty("HOME");
    if (!home.empty()) {
      dir = home + "/.cache/symx";
    } else {
      std::error_code ec;
      fs::path tmp = fs::temp_directory_path(ec);
      dir = (ec ? fs::path("/tmp") : tmp) / ("symx-cache-" + std::to_string(::getuid()));
    }
  }
  std::error_code ec;
  fs::path absolute = fs::absolute(dir, ec);
  if (!ec) dir = absolute.string();
  create_directories_or_throw(dir, "SYMX_CACHE_DIR");
  return dir;
}

void dump_source(const std::string& key, const std::string& source) {
  std::string dir = env_or_empty("SYMX_DUMP_DIR");
  if (dir.empty()) return;
  create_directories_or_throw(dir, "SYMX_DUMP_DIR");
  TempFiles temps;
  const std::string tmp = temps.add(dir + "/" + key + ".cpp.tmp." + unique_suffix());
  write_file(tmp, source);
  rename_or_throw(tmp, dir + "/" + key + ".cpp");
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
    : handle_(handle), path_(std::move(path)), key_(std::move(key)) {}

Library::~Library() {
  if (handle_) ::dlclose(handle_);
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

// The entry <dir>/<key>.so when its integrity file matches its contents and dlopen accepts it.
std::shared_ptr<Library> load_cached(const std::string& so_path, const std::string& hash_path, const std::string& key) {
  auto recorded = read_small_file(hash_path, 256);
  if (!recorded || recorded->size() < 64) return nullptr;  // missing: not there yet, or torn
  auto actual = sha256_of_file(so_path);
  if (!actual || recorded->compare(0, 64, *actual) != 0) return nullptr;  // corrupt or stale
  void* handle = ::dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) return nullptr;  // unloadable: rebuilt and overwritten by the caller
  return detail::LibraryAccess::make(handle, so_path, key);
}

std::shared_ptr<Library> compile_into_cache(const std::vector<std::string>& command, const std::string& source,
                                            const std::string& dir, const std::string& key,
                                            const std::string& so_path, const std::string& hash_path) {
  TempFiles temps;
  std::string suffix = unique_suffix();
  const std::string src_tmp = temps.add(dir + "/" + key + ".tmp." + suffix + ".cpp");
  const std::string so_tmp = temps.add(so_path + ".tmp." + suffix);
  const std::string hash_tmp = temps.add(hash_path + ".tmp." + suffix);
  write_file(src_tmp, source);

  // The source comes on stdin: a source file's name would be written into the object (its ELF
  // file symbol), so processes compiling the same key from their own temporary files would make
  // different bytes, and the .so of one with the .sha256 of another would read as corrupt.
  std::vector<std::string> argv = command;
  argv.insert(argv.end(), {"-o", so_tmp, "-x", "c++", "-"});
  g_compiles.fetch_add(1);
  ProcessResult r = run_process(argv, src_tmp);
  if (r.spawn_error != 0)
    throw_io("cannot run the C++ compiler '" + argv[0] + "' (" + describe_status(r) + "). Install g++ or set SYMX_CXX.");
  if (!process_succeeded(r)) {
    constexpr std::size_t kMaxOutput = 32 * 1024;
    std::string output = r.output;
    if (output.size() > kMaxOutput) output = output.substr(0, kMaxOutput) + "\n[... compiler output truncated]";
    std::string dump = env_or_empty("SYMX_DUMP_DIR");
    throw InternalError("codegen: the generated C++ code does not compile (" + describe_status(r) +
                        ").\ncommand: " + join(argv) + "\nsource: " +
                        (dump.empty() ? "set SYMX_DUMP_DIR=<dir> to keep it" : dump + "/" + key + ".cpp") +
                        "\ncompiler output:\n" + output);
  }
  auto hash = sha256_of_file(so_tmp);
  if (!hash)
    throw InternalError("codegen: the compiler reported success but wrote no readable '" + so_tmp + "'.\ncommand: " + join(argv) +
                        "\ncompiler output:\n" + r.output);
  write_file(hash_tmp, *hash + "  " + key + ".so\n");
  // The .so first, then its hash: a reader that sees the new .so with a missing or older hash
  // treats the entry as absent and compiles it itself.
  rename_or_throw(so_tmp, so_path);
  rename_or_throw(hash_tmp, hash_path);

  void* handle = ::dlopen(so_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    throw InternalError("codegen: cannot load the freshly compiled '" + so_path + "': " + (error ? error : "unknown error") +
                        "\ncommand: " + join(argv));
  }
  return detail::LibraryAccess::make(handle, so_path, key);
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  Sha256 hasher;
  hasher.update(data.data(), data.size());
  return hasher.hex_digest();
}

std::string compiler_command() { return join(compiler_words()) + " " + kFixedFlags; }

std::shared_ptr<Library> compile_and_load(const std::string& source, const CompileOptions& options) {
  std::vector<std::string> command = compiler_words();
  const std::string version = compiler_version(command);
  for (auto& flag : split_whitespace(kFixedFlags)) command.push_back(std::move(flag));
  for (auto& flag : split_whitespace(options.extra_flags)) command.push_back(std::move(flag));

  std::string material;
  append_field(material, "symx-codegen-cache-v1");
  append_field(material, join(command));
  append_field(material, version);
  append_field(material, host_cpu());
  append_field(material, source);
  const std::string key = sha256_hex(material);

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

  dump_source(key, source);
  const std::string dir = cache_dir();
  const std::string so_path = dir + "/" + key + ".so";
  const std::string hash_path = dir + "/" + key + ".sha256";
  std::shared_ptr<Library> library = load_cached(so_path, hash_path, key);
  if (library) {
    g_disk_hits.fetch_add(1);
  } else {
    library = compile_into_cache(command, source, dir, key, so_path, hash_path);
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
}

}  // namespace symx::codegen
