// Project configuration: `[tool.graphmend]` in pyproject.toml, or a graphmend.toml (or
// .graphmend.toml) with the same keys at its top level. Each file takes the nearest one above it
// (resolve.h); `extend = "other.toml"` chains to a base whose settings it overrides. Keys are kebab-case,
// as on the command line, which overrides them. Parsed with toml++.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace graphmend::driver {

struct PerFileIgnore {
  std::string pattern;  // as `exclude` patterns: no '/': any path component; with '/': from the root
  std::vector<std::string> codes;
};

struct Settings {
  std::optional<std::vector<std::string>> select, ignore, exclude;
  std::vector<std::string> extend_select, extend_exclude;  // accumulate along `extend`
  std::optional<std::vector<PerFileIgnore>> per_file_ignores;
  std::vector<PerFileIgnore> extend_per_file_ignores;
  std::optional<bool> unsafe_fixes, trap_async, force_exclude, respect_gitignore, show_fixes, project_context,
      fix_generated;
  std::optional<std::string> output_format;
  std::optional<std::filesystem::path> cache_dir;  // `check`'s result cache; relative: to the file's folder
  std::optional<uint64_t> max_file_size;
  std::optional<double> max_file_time;     // seconds; 0: no limit
  std::optional<int64_t> max_file_memory;  // MB; 0: no limit
  std::optional<unsigned> jobs;
  std::filesystem::path root;                 // the folder of the file found (relative patterns start here)
  std::vector<std::filesystem::path> files;   // every file read, the found one first
};

// "<file>:<line>: <key>: <problem>"; the run stops with exit 2.
struct ConfigError {
  std::string message;
};

// The nearest configuration at or above `start` (a folder, or a file's folder): graphmend.toml,
// then .graphmend.toml, then a pyproject.toml that has [tool.graphmend]; nullopt when none.
std::optional<std::filesystem::path> find_config(const std::filesystem::path& start);

// The configuration file of `dir` itself, by the same rules; nullopt when it has none.
std::optional<std::filesystem::path> config_in(const std::filesystem::path& dir);

// Reads `file` (following `extend`), checking every key and value.
std::variant<Settings, ConfigError> load_config(const std::filesystem::path& file);

// The output formats a configuration or --output-format may name.
const std::vector<std::string>& output_format_names();

}  // namespace graphmend::driver
