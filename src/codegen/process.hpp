// Running a child process with a deadline (the compiler driver's runs of the host compiler): the
// child gets a process group of its own, so that a timeout or a failure stops it together with
// everything it started; its stdout and stderr are collected together (the first MiB).
#pragma once

#include <string>
#include <vector>

namespace symx::codegen {

struct ProcessResult {
  int spawn_error = 0;     // errno from posix_spawnp; 0 when the process ran
  int wait_status = 0;     // from waitpid
  bool timed_out = false;  // stopped (with its process group) at the deadline
  std::string output;      // stdout and stderr together, the first MiB
};

struct ProcessOptions {
  std::string stdin_path = "/dev/null";
  std::vector<std::string> environment;  // "NAME=value" entries that replace the inherited ones
  double timeout_seconds = 300;
};

// Runs argv (PATH lookup for argv[0]) until it exits or options.timeout_seconds pass. A process that
// timed out, failed or was killed is killed with its whole process group before it is reaped.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options);

// Whether the process ran, in time, and exited with status 0.
bool process_succeeded(const ProcessResult& r);

// "SIGKILL (Killed)".
std::string signal_name(int signal);

// How the process ended, for messages: "exit status 1", "timed out", "killed by signal SIGKILL (Killed)", ...
std::string describe_status(const ProcessResult& r);

}  // namespace symx::codegen
