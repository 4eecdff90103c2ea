// Atomic file replacement: temp file in the same folder, fsync, rename; permissions kept.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace graphmend::fix {

// Returns an error message, or nullopt on success. A symlink is resolved and its target written.
// A file without write permission is refused rather than replaced.
std::optional<std::string> write_atomically(const std::filesystem::path& path, std::string_view bytes);

// Why write_atomically would refuse `path` before writing anything (missing, read-only), or
// nullopt when it may be written.
std::optional<std::string> refusal(const std::filesystem::path& path);

// Creates a file that does not exist yet the same way (mode 0666 less the umask); refuses when
// the path exists by then.
std::optional<std::string> create_atomically(const std::filesystem::path& path, std::string_view bytes);

}  // namespace graphmend::fix
