// The built-in callbacks: EarlyStopping and ProgressLogger (the progress bar and the log lines).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include "symx/train.hpp"

namespace symx::train {

namespace {

double monitored(const EpochMetrics& m, const std::string& monitor) {
  if (monitor == "val_loss") return m.val_loss;
  if (monitor == "val_accuracy") return m.val_accuracy;
  if (monitor == "train_loss") return m.train_loss;
  return m.train_accuracy;
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string format_seconds(double s) {
  char buf[32];
  if (!std::isfinite(s) || s < 0) return "?";
  if (s < 60) std::snprintf(buf, sizeof buf, "%.0fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, static_cast<int>(s) % 3600 / 60);
  return buf;
}

std::string format_value(double v, bool percent) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, percent ? "%.2f%%" : "%.4f", percent ? 100 * v : v);
  return buf;
}

}  // namespace

EarlyStopping::EarlyStopping(std::string monitor, std::int64_t patience, double min_delta, std::string mode)
    : monitor_(std::move(monitor)), patience_(patience), min_delta_(min_delta) {
  if (monitor_ != "val_loss" && monitor_ != "val_accuracy" && monitor_ != "train_loss" && monitor_ != "train_accuracy")
    throw ValueError("EarlyStopping: unknown monitor '" + monitor_ +
                     "'. Monitor one of val_loss, val_accuracy, train_loss, train_accuracy.");
  if (mode != "auto" && mode != "min" && mode != "max")
    throw ValueError("EarlyStopping: unknown mode '" + mode + "'. Use \"min\", \"max\" or \"auto\".");
  if (patience_ < 0 || !(min_delta_ >= 0))
    throw ValueError("EarlyStopping: patience (" + std::to_string(patience_) + ") and min_delta (" +
                     std::to_string(min_delta_) + ") must be at least 0.");
  maximize_ = mode == "max" || (mode == "auto" && monitor_.find("accuracy") != std::string::npos);
}

void EarlyStopping::on_epoch_end(const EpochMetrics& metrics, bool& stop) {
  double value = monitored(metrics, monitor_);
  if (!std::isfinite(value)) return;  // not measured (e.g. no validation data): never stops
  bool improved = best_epoch_ == 0 || (maximize_ ? value > best_ + min_delta_ : value < best_ - min_delta_);
  if (improved) {
    best_ = value;
    best_epoch_ = metrics.epoch;
    wait_ = 0;
    return;
  }
  if (++wait_ >= patience_) {
    stop = true;
    stopped_epoch_ = metrics.epoch;
  }
}

ProgressLogger::ProgressLogger(const std::string& mode) {
  if (mode != "auto" && mode != "bar" && mode != "lines" && mode != "quiet")
    throw ValueError("log mode '" + mode + "' is unknown. Use auto, bar, lines or quiet.");
  quiet_ = mode == "quiet";
  bar_ = mode == "bar" || (mode == "auto" && ::isatty(STDOUT_FILENO));
}

void ProgressLogger::on_epoch_begin(const Progress& progress) {
  last_ = progress;
  last_draw_ = -1;
}

void ProgressLogger::on_batch_end(const Progress& p) {
  last_ = p;
  if (!bar_ || quiet_) return;
  double t = wall_seconds();
  if (last_draw_ >= 0 && t - last_draw_ < 0.1 && p.batch < p.batches) return;  // redraw at most 10 times a second
  last_draw_ = t;
  const int width = 24;
  int filled = p.batches ? static_cast<int>(width * p.batch / p.batches) : 0;
  std::string bar(static_cast<std::size_t>(filled), '=');
  if (filled < width) bar += '>' + std::string(static_cast<std::size_t>(width - filled - 1), ' ');
  double eta =
      p.batch ? p.epoch_seconds / static_cast<double>(p.batch) * static_cast<double>(p.batches - p.batch) : NAN;
  std::printf("\repoch %lld/%lld [%s] %lld/%lld  %.0f items/s  loss %s  acc %s  ETA %s\033[K",
              static_cast<long long>(p.epoch), static_cast<long long>(p.epochs), bar.c_str(),
              static_cast<long long>(p.batch), static_cast<long long>(p.batches), p.items_per_second,
              format_value(p.running_loss, false).c_str(), format_value(p.running_accuracy, true).c_str(),
              format_seconds(eta).c_str());
  std::fflush(stdout);
}

void ProgressLogger::on_epoch_end(const EpochMetrics& m, bool& stop) {
  (void)stop;
  if (quiet_) return;
  std::printf("%sepoch %lld/%lld  train loss %s acc %s  val loss %s acc %s  %.1fs (steps %.1fs)  %.0f items/s  lr %g\n",
              bar_ ? "\r\033[K" : "", static_cast<long long>(m.epoch), static_cast<long long>(last_.epochs),
              format_value(m.train_loss, false).c_str(), format_value(m.train_accuracy, true).c_str(),
              format_value(m.val_loss, false).c_str(), format_value(m.val_accuracy, true).c_str(), m.seconds,
              m.step_seconds, m.items_per_second, m.lr);
  std::fflush(stdout);
}

}  // namespace symx::train
