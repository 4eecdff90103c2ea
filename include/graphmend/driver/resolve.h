// Which configuration each file takes, as ruff resolves it: the nearest configuration file at or
// above the file's folder (config.h's find_config), unless --config or --isolated fixes one for
// every file. The command line's own settings override every file's configuration.
//
// Per file: the rule selection (select, extend-select, ignore), per-file-ignores, the excludes
// (matched from the folder of the configuration that holds them), fix-generated and trap-async.
// The rest (output format, jobs, cache, budgets, unsafe-fixes, force-exclude, .gitignore, project
// context) are the run's, read by the CLI from the run's configuration.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graphmend/driver/config.h"
#include "graphmend/driver/discover.h"
#include "graphmend/rules/rule.h"
#include "graphmend/rules/selection.h"

namespace graphmend::driver {

// What one configuration (with the command line over it) decides for the files it covers.
struct FileSettings {
  std::optional<std::filesystem::path> config;  // the configuration file; none: the defaults
  std::vector<std::filesystem::path> extended;  // the files `extend` chained to, nearest first
  std::filesystem::path root;                   // where its relative patterns start; empty: the cwd
  rules::Selection selection;
  std::vector<PerFileIgnore> per_file_ignores;  // relative to `root`
  std::vector<std::string> exclude;             // the configuration's (or the defaults), relative to `root`
  std::vector<std::string> command_line_exclude;  // --exclude / --extend-exclude, relative to the cwd
  bool fix_generated = false;
  rules::RuleOptions rule_options;

  // An entry met while walking a folder / a path named on the command line (discover.h's
  // PathPatterns::matches_entry / matches_path), against both lists of excludes.
  [[nodiscard]] bool excludes_entry(const std::filesystem::path& path) const;
  [[nodiscard]] bool excludes_path(const std::filesystem::path& path) const;
  // The codes `path` ignores by per-file-ignores.
  [[nodiscard]] std::vector<std::string> ignored_for(const std::filesystem::path& path) const;
  // Everything the findings depend on, as text (the result cache's key).
  [[nodiscard]] std::string key() const;

  // Built by finish(): the patterns, compiled once.
  void finish();

 private:
  std::shared_ptr<const PathPatterns> exclude_patterns_, command_line_patterns_;
  std::vector<std::pair<PathPatterns, std::vector<std::string>>> ignore_patterns_;
};

// The command line's settings, over every configuration.
struct CommandLineSettings {
  std::optional<std::vector<std::string>> select, exclude;  // replace the configuration's
  std::vector<std::string> extend_select, ignore, extend_exclude;  // added to it
  std::optional<bool> fix_generated, trap_async;
};

// Looks up and loads each folder's configuration once. Not thread-safe: used while discovering
// and before a run's parallel stages.
class SettingsResolver {
 public:
  // `fixed`: every file takes these settings (--config, or --isolated with empty settings);
  // nullopt: each file the nearest configuration above it.
  SettingsResolver(CommandLineSettings command_line, std::optional<Settings> fixed);

  // A file takes its folder's settings; a folder its own (a configuration inside it included).
  std::shared_ptr<const FileSettings> for_path(const std::filesystem::path& path);
  std::shared_ptr<const FileSettings> for_folder(const std::filesystem::path& folder);

  // Configurations that could not be read (a run that met one stops with exit 2).
  [[nodiscard]] const std::vector<ConfigError>& errors() const { return errors_; }

 private:
  std::shared_ptr<const FileSettings> from(const Settings& settings, const std::optional<std::filesystem::path>& file);
  std::shared_ptr<const FileSettings> lookup(const std::filesystem::path& absolute_folder);

  CommandLineSettings command_line_;
  std::shared_ptr<const FileSettings> fixed_;
  std::shared_ptr<const FileSettings> defaults_;
  std::map<std::filesystem::path, std::shared_ptr<const FileSettings>> by_folder_, by_config_;
  std::vector<ConfigError> errors_;
};

// The resolved settings of `path` as `--show-settings` prints them.
std::string describe_settings(const FileSettings& settings, const std::filesystem::path& path);

}  // namespace graphmend::driver
