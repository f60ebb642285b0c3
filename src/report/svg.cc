#include "report/svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/parse.h"

namespace frontier::report {
namespace {

std::string F(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", v);
  return b;
}

std::string Label(double v) {
  char b[32];
  if (std::abs(v) >= 10000) {
    std::snprintf(b, sizeof b, "%.0fk", v / 1000);
  } else if (v == std::floor(v)) {
    std::snprintf(b, sizeof b, "%.0f", v);
  } else {
    return FormatSignificant(v);
  }
  return b;
}

// Round tick values covering [lo, hi]: steps of 1, 2 or 5 x 10^k.
std::vector<double> NiceTicks(double lo, double hi, int target) {
  if (!(hi > lo)) hi = lo + 1;
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  std::vector<double> t;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) t.push_back(v);
  return t;
}

}  // namespace

std::string HtmlEscape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}

std::string PaletteColor(size_t i) {
  static const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                  "#9467bd", "#8c564b", "#e377c2", "#17becf"};
  return kColors[i % 8];
}

namespace {

// The plot area inside the chart, the data ranges it shows and the ticks.
struct ChartFrame {
  double left = 70, right = 20, top = 34, bottom = 48;
  double pw = 0, ph = 0;  // the plot area's width and height
  double xmin = 0, xmax = 0, ymin = 0, ymax = 0;
  bool x_log2 = false;
  std::vector<double> xt, yt;  // ticks

  double X(double x) const {
    const double f = x_log2 ? (std::log2(x) - std::log2(xmin)) / (std::log2(xmax) - std::log2(xmin))
                            : (x - xmin) / (xmax - xmin);
    return left + f * pw;
  }
  double Y(double y) const { return top + (1 - (y - ymin) / (ymax - ymin)) * ph; }
};

// The ranges that hold every marker (with its error bars and band), line and
// area point, widened to ticks.
ChartFrame FitFrame(const std::vector<ChartSeries>& series, const ChartOptions& o) {
  ChartFrame fr;
  fr.x_log2 = o.x_log2;
  fr.pw = o.width - fr.left - fr.right;
  fr.ph = o.height - fr.top - fr.bottom;
  double xmin = std::numeric_limits<double>::infinity(), xmax = -xmin, ymin = xmin, ymax = -xmin;
  auto see = [&](double x, double y, double xe, double ye) {
    if (!std::isfinite(x) || !std::isfinite(y) || (o.x_log2 && x <= 0)) return;
    xmin = std::min(xmin, x - xe);
    xmax = std::max(xmax, x + xe);
    ymin = std::min(ymin, y - ye);
    ymax = std::max(ymax, y + ye);
  };
  for (const auto& s : series) {
    for (const auto& m : s.markers) {
      see(m.x, m.y, o.x_log2 ? 0 : m.x_err, m.y_err);
      if (m.y_band_hi > m.y_band_lo) {
        see(m.x, m.y_band_lo, 0, 0);
        see(m.x, m.y_band_hi, 0, 0);
      }
    }
    for (const auto& [x, y] : s.line) see(x, y, 0, 0);
    for (const auto& a : s.area) {
      see(a.x, a.lo, 0, 0);
      see(a.x, a.hi, 0, 0);
    }
  }
  if (!std::isfinite(xmin)) {
    xmin = 0;
    xmax = 1;
    ymin = 0;
    ymax = 1;
  }
  if (o.y_from_zero) ymin = std::min(ymin, 0.0);
  if (o.x_from_zero && !o.x_log2) xmin = std::min(xmin, 0.0);
  if (ymax <= ymin) ymax = ymin + 1;
  ymax += (ymax - ymin) * 0.05;
  if (o.x_log2) {
    const double lo = std::floor(std::log2(std::max(xmin, 1e-9))), hi = std::ceil(std::log2(xmax));
    xmin = std::pow(2, lo);
    xmax = std::pow(2, std::max(hi, lo + 1));
    for (double e = lo; e <= hi; ++e) fr.xt.push_back(std::pow(2, e));
  } else {
    if (xmax <= xmin) xmax = xmin + 1;
    xmax += (xmax - xmin) * 0.03;
    fr.xt = NiceTicks(xmin, xmax, 8);
  }
  fr.yt = NiceTicks(ymin, ymax, 6);
  fr.xmin = xmin;
  fr.xmax = xmax;
  fr.ymin = ymin;
  fr.ymax = ymax;
  return fr;
}

// The title, the plot's box, the x bands, the grid with its ticks and the axis labels.
void DrawFrame(const ChartFrame& fr, const ChartOptions& o, std::string* out) {
  std::string& svg = *out;
  const double left = fr.left, top = fr.top, pw = fr.pw, ph = fr.ph;
  svg += "<text x=\"" + F(left) + "\" y=\"20\" class=\"ctitle\">" + HtmlEscape(o.title) + "</text>\n";
  svg += "<rect x=\"" + F(left) + "\" y=\"" + F(top) + "\" width=\"" + F(pw) + "\" height=\"" + F(ph) +
         "\" class=\"plot\"/>\n";
  for (const auto& b : o.x_bands) {
    if (!std::isfinite(b.from) || !std::isfinite(b.to) || b.to <= b.from || (o.x_log2 && b.from <= 0)) continue;
    const double x0 = std::max(left, fr.X(b.from)), x1 = std::min(left + pw, fr.X(b.to));
    if (x1 <= x0) continue;
    svg += "<rect class=\"band\" x=\"" + F(x0) + "\" y=\"" + F(top) + "\" width=\"" + F(x1 - x0) + "\" height=\"" +
           F(ph) + "\"><title>" + HtmlEscape(b.label) + "</title></rect>\n<text class=\"tick\" x=\"" +
           F((x0 + x1) / 2) + "\" y=\"" + F(top + 12) + "\" text-anchor=\"middle\">" + HtmlEscape(b.label) +
           "</text>\n";
  }
  for (double t : fr.xt) {
    if (t < fr.xmin - 1e-9 || t > fr.xmax + 1e-9) continue;
    svg += "<line class=\"grid\" x1=\"" + F(fr.X(t)) + "\" x2=\"" + F(fr.X(t)) + "\" y1=\"" + F(top) +
           "\" y2=\"" + F(top + ph) + "\"/><text class=\"tick\" x=\"" + F(fr.X(t)) + "\" y=\"" +
           F(top + ph + 16) + "\" text-anchor=\"middle\">" + Label(t) + "</text>\n";
  }
  for (double t : fr.yt) {
    if (t < fr.ymin - 1e-9 || t > fr.ymax + 1e-9) continue;
    svg += "<line class=\"grid\" x1=\"" + F(left) + "\" x2=\"" + F(left + pw) + "\" y1=\"" + F(fr.Y(t)) +
           "\" y2=\"" + F(fr.Y(t)) + "\"/><text class=\"tick\" x=\"" + F(left - 6) + "\" y=\"" +
           F(fr.Y(t) + 4) + "\" text-anchor=\"end\">" + Label(t) + "</text>\n";
  }
  svg += "<text class=\"axis\" x=\"" + F(left + pw / 2) + "\" y=\"" + F(o.height - 8.0) +
         "\" text-anchor=\"middle\">" + HtmlEscape(o.x_label) + "</text>\n";
  svg += "<text class=\"axis\" transform=\"translate(16," + F(top + ph / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + HtmlEscape(o.y_label) + "</text>\n";
}

// A marker: its band, its error bars and its circle (with its tip).
void DrawMarker(const ChartFrame& fr, const ChartOptions& o, const ChartSeries& s, const Marker& m,
                std::string* out) {
  std::string& svg = *out;
  const double cx = fr.X(m.x), cy = fr.Y(m.y);
  if (m.y_band_hi > m.y_band_lo) {
    svg += "<rect class=\"pband\" fill=\"" + s.color + "\" x=\"" + F(cx - 5) + "\" y=\"" + F(fr.Y(m.y_band_hi)) +
           "\" width=\"10\" height=\"" + F(fr.Y(m.y_band_lo) - fr.Y(m.y_band_hi)) + "\"/>\n";
  }
  if (m.y_err > 0) {
    svg += "<path class=\"err\" stroke=\"" + s.color + "\" d=\"M" + F(cx) + "," + F(fr.Y(m.y - m.y_err)) +
           "V" + F(fr.Y(m.y + m.y_err)) + "M" + F(cx - 3) + "," + F(fr.Y(m.y - m.y_err)) + "h6M" +
           F(cx - 3) + "," + F(fr.Y(m.y + m.y_err)) + "h6\"/>\n";
  }
  if (m.x_err > 0 && !o.x_log2) {
    svg += "<path class=\"err\" stroke=\"" + s.color + "\" d=\"M" + F(fr.X(m.x - m.x_err)) + "," + F(cy) +
           "H" + F(fr.X(m.x + m.x_err)) + "M" + F(fr.X(m.x - m.x_err)) + "," + F(cy - 3) + "v6M" +
           F(fr.X(m.x + m.x_err)) + "," + F(cy - 3) + "v6\"/>\n";
  }
  svg += "<circle";
  if (!m.id.empty()) svg += " id=\"" + HtmlEscape(m.id) + "\"";
  if (!m.css_class.empty()) svg += " class=\"" + HtmlEscape(m.css_class) + "\"";
  svg += " cx=\"" + F(cx) + "\" cy=\"" + F(cy) + "\" r=\"" + F(m.radius) + "\" stroke=\"" + s.color +
         "\" fill=\"" + (m.hollow ? std::string("white") : s.color) + "\" data-tip=\"" +
         HtmlEscape(m.tip) + "\"><title>" + HtmlEscape(m.tip) + "</title></circle>\n";
}

// A series: its area, its line, then its markers.
void DrawSeries(const ChartFrame& fr, const ChartOptions& o, const ChartSeries& s, std::string* out) {
  std::string& svg = *out;
  if (s.area.size() > 1) {
    // Upper edge left to right, lower edge back: one closed polygon.
    std::string pts;
    for (const auto& a : s.area)
      if (!o.x_log2 || a.x > 0) pts += F(fr.X(a.x)) + "," + F(fr.Y(a.hi)) + " ";
    for (auto it = s.area.rbegin(); it != s.area.rend(); ++it)
      if (!o.x_log2 || it->x > 0) pts += F(fr.X(it->x)) + "," + F(fr.Y(it->lo)) + " ";
    svg += "<polygon class=\"pband\" fill=\"" + s.color + "\" points=\"" + pts + "\"/>\n";
  }
  if (s.line.size() > 1) {
    std::string pts;
    for (const auto& [x, y] : s.line) {
      if (o.x_log2 && x <= 0) continue;
      pts += F(fr.X(x)) + "," + F(fr.Y(y)) + " ";
    }
    svg += "<polyline fill=\"none\" stroke=\"" + s.color + "\" stroke-width=\"2\"" +
           (s.dashed ? " stroke-dasharray=\"5,4\"" : "") + " points=\"" + pts + "\"/>\n";
  }
  for (const auto& m : s.markers) {
    if (!std::isfinite(m.x) || !std::isfinite(m.y) || (o.x_log2 && m.x <= 0)) continue;
    DrawMarker(fr, o, s, m, out);
  }
}

}  // namespace

std::string RenderChart(const std::vector<ChartSeries>& series, const ChartOptions& o) {
  const ChartFrame fr = FitFrame(series, o);
  std::string svg = "<svg class=\"chart\" viewBox=\"0 0 " + std::to_string(o.width) + " " +
                    std::to_string(o.height) + "\" width=\"" + std::to_string(o.width) +
                    "\" height=\"" + std::to_string(o.height) + "\" role=\"img\">\n";
  DrawFrame(fr, o, &svg);
  for (const auto& s : series) DrawSeries(fr, o, s, &svg);
  // Legend, top right inside the plot.
  double ly = fr.top + 14;
  for (const auto& s : series) {
    if (s.name.empty()) continue;
    svg += "<rect x=\"" + F(fr.left + fr.pw - 190) + "\" y=\"" + F(ly - 9) +
           "\" width=\"10\" height=\"10\" fill=\"" + s.color + "\"/><text class=\"legend\" x=\"" +
           F(fr.left + fr.pw - 175) + "\" y=\"" + F(ly) + "\">" + HtmlEscape(s.name) + "</text>\n";
    ly += 16;
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace frontier::report
