// assets.h: the dashboard's front end, embedded in the binary at build time
// (cmake/EmbedAssets.cmake): web/src/ (index.html, app.js, style.css) and the
// charting library, uPlot, from web/node_modules at the version pinned in
// web/package-lock.json. Nothing is fetched at run time.
//
// Thread safety: immutable data.
#pragma once

#include <string_view>

namespace frontier::dashboard {

struct Asset {
  std::string_view path;          // "/assets/app.js"
  std::string_view content_type;
  std::string_view data;
};

// The asset served at `path`, or nullptr.
const Asset* FindAsset(std::string_view path);

}  // namespace frontier::dashboard
