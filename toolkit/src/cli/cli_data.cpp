// `symx data download NAME` and `symx data list`: the data sets of symx/data/download.hpp from the
// command line, with a progress bar on a terminal and plain lines otherwise.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "commands.hpp"
#include "symx/data/download.hpp"

namespace symx::cli {
namespace {

std::string megabytes(std::int64_t n) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f MB", static_cast<double>(n) / 1e6);
  return buffer;
}

// The progress bar: one line redrawn in place on a terminal (stderr), nothing otherwise (the
// library's log lines say what is fetched and when each file is done).
class ProgressDisplay {
 public:
  explicit ProgressDisplay(bool terminal) : terminal_(terminal) {}

  void update(const std::string& file, std::int64_t done, std::int64_t total) {
    if (!terminal_) return;
    auto now = std::chrono::steady_clock::now();
    if (file != file_) {
      file_ = file;
      start_ = now;
      start_bytes_ = done;
    }
    if (total >= 0 && done >= total) {  // complete: the library's log line follows
      clear();
      return;
    }
    double seconds = std::chrono::duration<double>(now - start_).count();
    double rate = seconds > 0.2 ? static_cast<double>(done - start_bytes_) / seconds : 0;
    std::string line = "  " + file + "  " + megabytes(done);
    if (total > 0) {
      double fraction = static_cast<double>(done) / static_cast<double>(total);
      int width = 24, filled = static_cast<int>(width * fraction);
      char percent[16];
      std::snprintf(percent, sizeof percent, " %3d%%", static_cast<int>(100 * fraction));
      line = "  " + file + " [" + std::string(filled, '#') + std::string(width - filled, '.') + "]" + percent + "  " +
             megabytes(done) + " / " + megabytes(total);
    }
    if (rate > 0) line += "  " + megabytes(static_cast<std::int64_t>(rate)) + "/s";
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    drawn_ = true;
  }

  void log(const std::string& line) {
    clear();
    std::fprintf(stderr, "symx: %s\n", line.c_str());
  }

 private:
  void clear() {
    if (!drawn_) return;
    std::fprintf(stderr, "\r\033[K");
    drawn_ = false;
  }

  bool terminal_;
  bool drawn_ = false;
  std::string file_;
  std::chrono::steady_clock::time_point start_{};
  std::int64_t start_bytes_ = 0;
};

struct DownloadArgs {
  std::string name, dir, mirror, ca_file, checksums;
  double timeout = 60;
  double deadline = 0;
  int retries = 3;
  bool quiet = false;
};

void run_download(const DownloadArgs& args) {
  data::DownloadOptions options;
  options.mirror = args.mirror;
  options.ca_file = args.ca_file;
  options.checksums = args.checksums;
  options.connect_timeout = args.timeout;
  options.stall_timeout = args.timeout;
  options.retries = args.retries;
  options.timeout = args.deadline;
  options.quiet = args.quiet;
  auto display = std::make_shared<ProgressDisplay>(::isatty(STDERR_FILENO) == 1);
  if (!args.quiet) {
    options.progress = [display](const std::string& f, std::int64_t done, std::int64_t total) {
      display->update(f, done, total);
    };
    options.log = [display](const std::string& line) { display->log(line); };
  }
  std::string folder = data::download(args.name, args.dir, options);
  std::printf("%s\n", folder.c_str());
  std::fflush(stdout);
}

std::string known_names() {
  std::string names;
  for (const auto& s : data::dataset_sources()) names += (names.empty() ? "" : ", ") + s.name;
  return names;
}

void add_download(CLI::App& data) {
  auto args = std::make_shared<DownloadArgs>();
  CLI::App* cmd =
      data.add_subcommand("download",
                          "Download a data set into DIR/NAME, checked against pinned SHA-256 sums; prints the folder");
  cmd->add_option("name", args->name, "The data set: " + known_names())
      ->required()
      ->check(CLI::Validator(
          [](std::string& name) -> std::string {
            for (const auto& s : data::dataset_sources())
              if (s.name == name) return "";
            return "unknown data set '" + name + "'; choose one of " + known_names();
          },
          "NAME", "data set"));
  cmd->add_option("--dir", args->dir, "The download folder (default: $SYMX_DATA_DIR, else ~/.cache/symx/data)");
  cmd->add_option("--mirror", args->mirror,
                  "Base URL of a mirror holding MIRROR/NAME/<file> (default: $SYMX_DATA_MIRROR, else the "
                  "official URLs); its files are still checked against the pinned sums");
  cmd->add_option("--ca-file", args->ca_file, "PEM file of certificate authorities to trust (a private mirror)");
  cmd->add_option("--checksums", args->checksums,
                  "A file of 'SHA256  FILE' lines (sha256sum's output) to use instead of the pinned sums");
  cmd->add_option("--timeout", args->timeout, "Seconds to connect, and without data before giving up (default 60)");
  cmd->add_option("--deadline", args->deadline,
                  "Seconds for each file's whole transfer, retries included (default: 300 + 1 per 50 kB)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--retries", args->retries, "New attempts after a dropped connection, each resuming (default 3)");
  cmd->add_flag("--quiet,-q", args->quiet, "Print only the folder");
  cmd->callback([args] { run_download(*args); });
}

void add_list(CLI::App& data) {
  CLI::App* cmd = data.add_subcommand("list", "List the data sets `download` knows: files, sizes, SHA-256, URLs");
  cmd->callback([] {
    for (const auto& s : data::dataset_sources()) {
      std::printf("%s  (from %s)\n", s.name.c_str(), s.urls.front().c_str());
      for (const auto& f : s.files)
        std::printf("  %-28s %10lld bytes  sha256 %s\n", f.name.c_str(), static_cast<long long>(f.size),
                    f.sha256.c_str());
    }
  });
}

}  // namespace

void add_data_commands(CLI::App& app) {
  CLI::App* data = app.add_subcommand("data", "Data sets: download the standard ones, list them");
  data->require_subcommand(1);
  add_download(*data);
  add_list(*data);
}

}  // namespace symx::cli
