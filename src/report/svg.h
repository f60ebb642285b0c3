// svg.h: small inline-SVG charts for the HTML report (no external library).
//
// A chart has linear or log2 axes, series of markers with optional error bars
// (both directions) and prediction bands (a wide, pale bar: how sure a
// simulated point is), optional polylines with an optional shaded area
// around them (a simulated frontier's band), and a tooltip text per marker
// (rendered as a data-tip attribute that the report's inline script shows
// on hover, and as an SVG <title> for viewers without script).
//
// Thread safety: values.
#pragma once

#include <string>
#include <vector>

namespace frontier::report {

struct Marker {
  double x = 0, y = 0;
  double x_err = 0, y_err = 0;  // half-widths; 0: none
  // A prediction band on y: drawn from y_band_lo to y_band_hi as a wide pale
  // bar behind the marker (class "pband"); none when both are 0.
  double y_band_lo = 0, y_band_hi = 0;
  double radius = 4;
  bool hollow = false;
  std::string id;               // element id ("" for none)
  std::string css_class;
  std::string tip;              // tooltip text (plain; escaped when written)
};

struct ChartSeries {
  std::string name;
  std::string color;
  std::vector<Marker> markers;
  std::vector<std::pair<double, double>> line;  // polyline points (e.g. the frontier)
  // A shaded area around the line (class "pband"): each entry (x, lower,
  // upper), in x order; e.g. a simulated frontier at +/- its band.
  struct AreaPoint {
    double x = 0, lo = 0, hi = 0;
  };
  std::vector<AreaPoint> area;
  bool dashed = false;
};

struct ChartOptions {
  std::string title, x_label, y_label;
  bool x_log2 = false;
  int width = 640, height = 400;
  bool y_from_zero = true;
  bool x_from_zero = true;
  // Shaded spans of x behind the series (e.g. a run's steady state), each with a label.
  struct Band {
    double from = 0, to = 0;
    std::string label;
  };
  std::vector<Band> x_bands;
};

std::string RenderChart(const std::vector<ChartSeries>& series, const ChartOptions& options);

// Escapes &, <, >, " and ' for HTML text and attributes.
std::string HtmlEscape(const std::string& s);

// A colour of a fixed palette (distinct for the first eight indices).
std::string PaletteColor(size_t index);

}  // namespace frontier::report
