// The picture of the training curves (curves.png), drawn with Cairo: two panels, loss and
// accuracy per epoch, each with training and validation curves, axes with numbered ticks, a grid
// and a legend.
#include <cairo.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "symx/io.hpp"
#include "train_internal.hpp"

namespace symx::train {

namespace {

struct Rect {
  double x, y, w, h;
};

struct Series {
  std::string label;
  std::vector<double> values;  // one per epoch; NaN: missing
  double r, g, b;
};

// Ticks at 1, 2 or 5 times a power of ten, about `count` of them over [lo, hi]; none when the
// range is not finite or finer than the doubles can resolve (the ticks are drawn as k * step for
// whole k, so a step below the spacing of the doubles near lo can never loop without end).
std::vector<double> nice_ticks(double lo, double hi, int count) {
  double span = hi - lo;
  if (!std::isfinite(lo) || !std::isfinite(hi) || !std::isfinite(span) || !(span > 0)) return {};
  double raw = span / std::max(count, 1);
  double power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power * (raw / power < 1.5 ? 1 : raw / power < 3.5 ? 2 : raw / power < 7.5 ? 5 : 10);
  double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
  if (!(step > 0) || !std::isfinite(first) || !std::isfinite(last) || last - first > 4.0 * count + 10) return {};
  std::vector<double> ticks;
  for (double k = first; k <= last; k += 1) {
    double t = k * step;
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
  }
  return ticks;
}

std::string tick_label(double v, double step) {
  char buf[32];
  int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  std::snprintf(buf, sizeof buf, "%.*f", std::min(decimals, 6), v);
  return buf;
}

void text(cairo_t* cr, const std::string& s, double x, double y, double align_x, double align_y) {
  cairo_text_extents_t e;
  cairo_text_extents(cr, s.c_str(), &e);
  cairo_move_to(cr, x - e.width * align_x - e.x_bearing, y - e.height * align_y - e.y_bearing);
  cairo_show_text(cr, s.c_str());
}

void draw_panel(cairo_t* cr, Rect r, const std::string& title, const std::string& ylabel, std::vector<Series> series,
                std::size_t epochs, bool percent) {
  double lo = INFINITY, hi = -INFINITY;
  for (auto& s : series)
    for (double& v : s.values) {
      if (percent) v *= 100;
      if (std::abs(v) > 1e300) v = NAN;  // drawn as missing: the range's arithmetic would overflow
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    }
  if (!std::isfinite(lo)) lo = 0, hi = 1;
  // A flat curve (or one whose values differ by a few ulps: 1e4 and the next double) gets a range
  // the ticks can divide; relative to the values, since an absolute 1e-12 is below an ulp at 1e4.
  const double scale = std::max(std::abs(lo), std::abs(hi));
  if (hi - lo < std::max(1e-12, scale * 1e-9)) {
    const double half = std::max(0.5, scale * 1e-6);
    lo -= half, hi += half;
  }
  double pad = (hi - lo) * 0.08;
  lo -= pad, hi += pad;
  if (!percent && lo < 0 && lo + pad >= 0) lo = 0;
  double x_lo = 1, x_hi = std::max<double>(2, static_cast<double>(epochs));
  std::vector<double> xt = nice_ticks(x_lo, x_hi, 8);
  double x_pad = (x_hi - x_lo) * 0.03;  // room for the dots at the ends
  x_lo -= x_pad, x_hi += x_pad;
  auto px = [&](double e) { return r.x + (e - x_lo) / (x_hi - x_lo) * r.w; };
  auto py = [&](double v) { return r.y + r.h - (v - lo) / (hi - lo) * r.h; };

  // Grid and ticks.
  cairo_set_font_size(cr, 12);
  std::vector<double> yt = nice_ticks(lo, hi, 6);
  double ystep = yt.size() > 1 ? yt[1] - yt[0] : 1;
  for (double t : yt) {
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, r.x, py(t));
    cairo_line_to(cr, r.x + r.w, py(t));
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    text(cr, tick_label(t, ystep), r.x - 8, py(t), 1, 0.5);
  }
  for (double t : xt) {
    if (std::abs(t - std::round(t)) > 1e-9) continue;  // epochs are whole numbers
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, px(t), r.y);
    cairo_line_to(cr, px(t), r.y + r.h);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    text(cr, tick_label(t, 1), px(t), r.y + r.h + 8, 0.5, 0);
  }
  // Frame, titles.
  cairo_set_source_rgb(cr, 0.3, 0.3, 0.3);
  cairo_set_line_width(cr, 1);
  cairo_rectangle(cr, r.x, r.y, r.w, r.h);
  cairo_stroke(cr);
  cairo_set_font_size(cr, 13);
  text(cr, "epoch", r.x + r.w / 2, r.y + r.h + 30, 0.5, 0);
  cairo_save(cr);
  cairo_translate(cr, r.x - 52, r.y + r.h / 2);
  cairo_rotate(cr, -M_PI / 2);
  text(cr, ylabel, 0, 0, 0.5, 0.5);
  cairo_restore(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size(cr, 14);
  cairo_text_extents_t extents;
  cairo_text_extents(cr, title.c_str(), &extents);
  cairo_move_to(cr, r.x + r.w / 2 - extents.width / 2 - extents.x_bearing, r.y - 12);  // on a common baseline
  cairo_show_text(cr, title.c_str());
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

  // Curves with a dot per epoch, clipped to the frame.
  cairo_save(cr);
  cairo_rectangle(cr, r.x, r.y, r.w, r.h);
  cairo_clip(cr);
  cairo_set_line_width(cr, 2.2);
  for (const auto& s : series) {
    cairo_set_source_rgb(cr, s.r, s.g, s.b);
    bool pen = false;
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      if (!std::isfinite(s.values[i])) {
        pen = false;
        continue;
      }
      double X = px(static_cast<double>(i + 1)), Y = py(s.values[i]);
      if (pen) cairo_line_to(cr, X, Y);
      else cairo_move_to(cr, X, Y);
      pen = true;
    }
    cairo_stroke(cr);
    for (std::size_t i = 0; i < s.values.size(); ++i) {
      if (!std::isfinite(s.values[i])) continue;
      cairo_arc(cr, px(static_cast<double>(i + 1)), py(s.values[i]), 3.2, 0, 2 * M_PI);
      cairo_fill(cr);
    }
  }
  cairo_restore(cr);

  // Legend inside the frame, top right for losses (they fall), bottom right for accuracies (they rise).
  cairo_set_font_size(cr, 12);
  double legend_h = 12 + 20.0 * static_cast<double>(series.size());
  double lx = r.x + r.w - 130, ly = percent ? r.y + r.h - 10 - legend_h : r.y + 10;
  cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
  cairo_rectangle(cr, lx, ly, 120, legend_h);
  cairo_fill_preserve(cr);
  cairo_set_source_rgb(cr, 0.7, 0.7, 0.7);
  cairo_set_line_width(cr, 1);
  cairo_stroke(cr);
  for (std::size_t i = 0; i < series.size(); ++i) {
    double yy = ly + 16 + 20.0 * static_cast<double>(i);
    cairo_set_source_rgb(cr, series[i].r, series[i].g, series[i].b);
    cairo_set_line_width(cr, 2.2);
    cairo_move_to(cr, lx + 8, yy);
    cairo_line_to(cr, lx + 32, yy);
    cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.15, 0.15, 0.15);
    text(cr, series[i].label, lx + 40, yy, 0, 0.5);
  }
}

}  // namespace

void plot_history(const History& history, const std::string& path, const std::string& title) {
  const int width = 1100, height = 460;
  cairo_surface_t* surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  cairo_t* cr = cairo_create(surface);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
  cairo_set_font_size(cr, 17);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  text(cr, title, width / 2.0, 14, 0.5, 0);
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);

  std::vector<double> tl, vl, ta, va;
  for (const auto& m : history) {
    tl.push_back(m.train_loss), vl.push_back(m.val_loss);
    ta.push_back(m.train_accuracy), va.push_back(m.val_accuracy);
  }
  const double blue[3] = {0.12, 0.47, 0.71}, orange[3] = {1.0, 0.5, 0.05};
  draw_panel(cr, {80, 80, 420, 300}, "loss", "loss",
             {{"training", tl, blue[0], blue[1], blue[2]}, {"validation", vl, orange[0], orange[1], orange[2]}},
             history.size(), false);
  draw_panel(cr, {630, 80, 420, 300}, "accuracy", "accuracy (%)",
             {{"training", ta, blue[0], blue[1], blue[2]}, {"validation", va, orange[0], orange[1], orange[2]}},
             history.size(), true);
  cairo_destroy(cr);
  // PNG bytes in memory, then written atomically (an unguessable temporary name, never a planted
  // link's target; leftovers of killed writers removed).
  std::string png;
  auto append = [](void* closure, const unsigned char* data, unsigned int length) {
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
  };
  cairo_status_t status = cairo_surface_write_to_png_stream(surface, append, &png);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS)
    throw IOError("plot_history: cannot draw the plot '" + path + "': " + cairo_status_to_string(status) + ".");
  write_file_atomically(path, "plot_history", [&](int fd) { write_all_to(fd, png); });
}

}  // namespace symx::train
