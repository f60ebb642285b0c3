// html.h: the report as one self-contained HTML file: inline CSS, inline SVG
// charts and a few lines of inline script for tooltips; it references no
// URL, font or file, so it opens offline and can be mailed or archived.
//
// Contents per workload: the Pareto charts (total and output tokens/s/GPU
// against tokens/s/user; every stored repetition as a small dot, the mean of
// each point with 95% error bars, the frontier as a line; hovering a marker
// shows its configuration and metrics), latency against load (median TTFT and
// TPOT), the iso-interactivity comparison, cost and energy, a table per
// series and, for each point stored with series over time, its output
// tokens/s per timeslice with the steady span shaded and the server's scraped
// KV-cache usage, running/waiting requests and prefix-cache hit rate
// (over_time.h); then provenance and a table of every stored point.
//
// Thread safety: pure function of the report.
#pragma once

#include <string>

#include "report/model.h"

namespace frontier::report {

std::string RenderHtml(const Report& report);

}  // namespace frontier::report
