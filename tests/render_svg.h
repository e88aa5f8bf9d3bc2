// Renders an SVG file to PNG in headless Chromium (Debian's chromium, installed by
// scripts/install-deps.sh), as the probe of this workplace starts it. Returns the PNG's bytes,
// or "" when it was not written; chromium_available() says whether the test can run at all.
#pragma once
#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/files.h"

namespace bb::test {

inline constexpr const char* kChromium = "/usr/bin/chromium";

inline bool chromium_available() { return std::filesystem::exists(kChromium); }

inline std::string render_svg(const std::filesystem::path& svg, const std::filesystem::path& work,
                              int size) {
  const std::filesystem::path png = std::filesystem::path(svg).replace_extension(".png");
  const std::string cmd = std::string(kChromium) +
      " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run "
      "--disable-background-networking --disable-component-update --disable-sync "
      "--user-data-dir=" + (work / "profile").string() + " --window-size=" +
      std::to_string(size) + "," + std::to_string(size) + " --screenshot=" + png.string() +
      " file://" + svg.string() + " > " + (work / "chromium.log").string() + " 2>&1";
  if (std::system(cmd.c_str()) != 0 || !std::filesystem::exists(png)) return "";
  return read_file(png);
}

}  // namespace bb::test
