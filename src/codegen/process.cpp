// See process.hpp.
#include "codegen/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <thread>

extern char** environ;

namespace symx::codegen {
namespace {

using Clock = std::chrono::steady_clock;

// This process's environment with the `overrides` ("NAME=value") in place of their names.
std::vector<std::string> environment_with(const std::vector<std::string>& overrides) {
  std::vector<std::string> out;
  for (char** entry = environ; entry && *entry; ++entry) {
    std::string_view item(*entry);
    bool replaced = false;
    for (const auto& override_entry : overrides)
      replaced = replaced || item.starts_with(override_entry.substr(0, override_entry.find('=') + 1));
    if (!replaced) out.emplace_back(item);
  }
  out.insert(out.end(), overrides.begin(), overrides.end());
  return out;
}

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (const auto& s : strings) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// Starts argv (PATH lookup for argv[0]) in a process group of its own, so that a timeout stops the
// compiler together with everything it started; stdout and stderr go to `output_fd`.
int spawn_process(const std::vector<std::string>& argv, const ProcessOptions& options, int output_fd, pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, options.stdin_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, output_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, output_fd, 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<std::string> environment = environment_with(options.environment);
  std::vector<char*> args = c_strings(argv), envp = c_strings(environment);
  int rc = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), envp.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  return rc;
}

// Appends what `fd` delivers to `output` until end of file; false when the deadline came first.
bool read_until_eof(int fd, Clock::time_point deadline, std::string& output) {
  constexpr std::size_t kKept = 1 << 20;  // a compiler that floods its output must not exhaust memory
  char buffer[4096];
  pollfd wait_for{fd, POLLIN, 0};
  for (;;) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    int ready = ::poll(&wait_for, 1, static_cast<int>(std::min<std::int64_t>(left, 60'000)));
    if (ready < 0 && errno != EINTR) return true;
    if (ready <= 0) continue;
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) return true;
    output.append(buffer, std::min(static_cast<std::size_t>(n), kKept - std::min(kKept, output.size())));
  }
}

// Waits until `pid` has exited or the deadline passed, without reaping it: while it is a zombie its
// process-group id cannot be reused, so the group can still be killed safely. False on timeout.
bool wait_for_exit(pid_t pid, Clock::time_point deadline, siginfo_t& info) {
  auto pause = std::chrono::microseconds(50);
  for (;;) {
    info = {};
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
      if (errno == EINTR) continue;
      return true;  // cannot wait: waitpid reports it
    }
    if (info.si_pid == pid) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(10'000));
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult result;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    result.spawn_error = errno;
    return result;
  }
  pid_t pid = 0;
  result.spawn_error = spawn_process(argv, options, fds[1], pid);
  ::close(fds[1]);
  if (result.spawn_error != 0) {
    ::close(fds[0]);
    return result;
  }
  const double seconds = std::min(options.timeout_seconds, 1e8);  // beyond: no deadline, without overflow
  const auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  siginfo_t info{};
  result.timed_out = !(read_until_eof(fds[0], deadline, result.output) && wait_for_exit(pid, deadline, info));
  ::close(fds[0]);
  // Whatever a failed or stopped compiler left running goes with it (before the reap; see above).
  if (result.timed_out || info.si_code != CLD_EXITED || info.si_status != 0) ::kill(-pid, SIGKILL);
  while (::waitpid(pid, &result.wait_status, 0) < 0) {
    if (errno != EINTR) {
      result.wait_status = -1;
      break;
    }
  }
  return result;
}

bool process_succeeded(const ProcessResult& r) {
  return r.spawn_error == 0 && !r.timed_out && r.wait_status != -1 && WIFEXITED(r.wait_status) &&
         WEXITSTATUS(r.wait_status) == 0;
}

// "SIGKILL (Killed)".
std::string signal_name(int signal) {
  const char* abbreviation = ::sigabbrev_np(signal);
  const char* description = ::sigdescr_np(signal);
  std::string name = abbreviation ? std::string("SIG") + abbreviation : "signal " + std::to_string(signal);
  return description ? name + " (" + description + ")" : name;
}

std::string describe_status(const ProcessResult& r) {
  if (r.spawn_error != 0) return std::string("could not be started: ") + std::strerror(r.spawn_error);
  if (r.timed_out) return "timed out";
  if (r.wait_status == -1) return "its exit status is unknown";
  if (WIFEXITED(r.wait_status)) return "exit status " + std::to_string(WEXITSTATUS(r.wait_status));
  if (WIFSIGNALED(r.wait_status)) return "killed by signal " + signal_name(WTERMSIG(r.wait_status));
  return "status " + std::to_string(r.wait_status);
}

}  // namespace symx::codegen
