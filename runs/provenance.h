// What computed a file: the build's git revision ("-dirty" when built from uncommitted changes)
// and the time, for result headers, perplexity files and run.json's sessions.
#pragma once
#include <string>

namespace bb {

// `git describe`-style revision of the source this binary was built from (cmake/GitRevision.cmake).
std::string build_revision();
// Now, in UTC, as 2026-12-07T09:13:57Z.
std::string utc_now();

}  // namespace bb
