// Atomic file replacement: temp file in the same folder, fsync, rename; mode, owner and group
// kept. Right before the rename the file is checked against what was read (size, mtime, content):
// text written to it meanwhile is never lost. A file with other hard links is refused (replacing
// it would split it from them). graphmend's own temporary files left by a killed run are removed.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "graphmend/source/source_file.h"

namespace graphmend::fix {

// Returns an error message, or nullopt on success. A symlink is resolved and its target written.
// A file without write permission is refused rather than replaced. With `expected`, a file that
// no longer matches it is refused.
std::optional<std::string> write_atomically(const std::filesystem::path& path, std::string_view bytes,
                                            const source::DiskStamp* expected = nullptr);

// Why write_atomically would refuse `path` before writing anything (missing, read-only), or
// nullopt when it may be written.
std::optional<std::string> refusal(const std::filesystem::path& path);

// Creates a file that does not exist yet the same way (mode 0666 less the umask); refuses when
// the path exists by then.
std::optional<std::string> create_atomically(const std::filesystem::path& path, std::string_view bytes);

// Removes graphmend's temporary files in `dir` whose writer is gone: `.NAME.graphmend-PID-XXXXXX`
// with no process PID, and the older `.NAME.graphmend-XXXXXX` form once an hour old. Returns how
// many were removed.
size_t remove_stale_temporaries(const std::filesystem::path& dir);

}  // namespace graphmend::fix
