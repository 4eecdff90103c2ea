#include "graphmend/driver/resolve.h"

#include <fmt/format.h>

#include <system_error>

namespace graphmend::driver {
namespace fs = std::filesystem;

namespace {

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += fmt::format("{}\"{}\"", i ? ", " : "", items[i]);
  return out + "]";
}

}  // namespace

void FileSettings::finish() {
  exclude_patterns_ = std::make_shared<const PathPatterns>(exclude, root);
  command_line_patterns_ = std::make_shared<const PathPatterns>(command_line_exclude, fs::path());
  ignore_patterns_.clear();
  for (const PerFileIgnore& p : per_file_ignores) ignore_patterns_.emplace_back(PathPatterns({p.pattern}, root), p.codes);
}

bool FileSettings::excludes_entry(const fs::path& path) const {
  return exclude_patterns_->matches_entry(path) || command_line_patterns_->matches_entry(path);
}

bool FileSettings::excludes_path(const fs::path& path) const {
  return exclude_patterns_->matches_path(path) || command_line_patterns_->matches_path(path);
}

std::vector<std::string> FileSettings::ignored_for(const fs::path& path) const {
  std::vector<std::string> out;
  for (const auto& [pattern, codes] : ignore_patterns_) {
    if (pattern.matches_path(path)) out.insert(out.end(), codes.begin(), codes.end());
  }
  return out;
}

std::string FileSettings::key() const {
  std::string k = fmt::format("config {}\nselect {}\nextend {}\nignore {}\n", config ? config->string() : "",
                              fmt::join(selection.select, ","), fmt::join(selection.extend_select, ","),
                              fmt::join(selection.ignore, ","));
  for (const PerFileIgnore& p : per_file_ignores) k += fmt::format("per-file {} {}\n", p.pattern, fmt::join(p.codes, ","));
  k += fmt::format("root {}\nfix-generated {} trap-async {}\n", root.string(), fix_generated, rule_options.trap_async);
  return k;
}

SettingsResolver::SettingsResolver(CommandLineSettings command_line, std::optional<Settings> fixed)
    : command_line_(std::move(command_line)) {
  defaults_ = from(Settings{}, std::nullopt);
  if (fixed) fixed_ = from(*fixed, fixed->files.empty() ? std::nullopt : std::optional<fs::path>(fixed->files.front()));
}

// ruff's order: the configuration, then the command line over it.
std::shared_ptr<const FileSettings> SettingsResolver::from(const Settings& s, const std::optional<fs::path>& file) {
  auto out = std::make_shared<FileSettings>();
  out->config = file;
  if (s.files.size() > 1) out->extended.assign(s.files.begin() + 1, s.files.end());
  out->root = s.root;
  const CommandLineSettings& c = command_line_;
  out->selection.select = c.select ? *c.select : s.select.value_or(std::vector<std::string>{});
  out->selection.extend_select = s.extend_select;
  out->selection.extend_select.insert(out->selection.extend_select.end(), c.extend_select.begin(), c.extend_select.end());
  out->selection.ignore = s.ignore.value_or(std::vector<std::string>{});
  out->selection.ignore.insert(out->selection.ignore.end(), c.ignore.begin(), c.ignore.end());
  out->per_file_ignores = s.per_file_ignores.value_or(std::vector<PerFileIgnore>{});
  out->per_file_ignores.insert(out->per_file_ignores.end(), s.extend_per_file_ignores.begin(),
                               s.extend_per_file_ignores.end());
  // --exclude replaces the defaults and every configuration's excludes; its patterns, and
  // --extend-exclude's, start at the working directory (as ruff's do).
  if (!c.exclude) {
    out->exclude = s.exclude.value_or(default_excludes());
    out->exclude.insert(out->exclude.end(), s.extend_exclude.begin(), s.extend_exclude.end());
  }
  out->command_line_exclude = c.exclude.value_or(std::vector<std::string>{});
  out->command_line_exclude.insert(out->command_line_exclude.end(), c.extend_exclude.begin(), c.extend_exclude.end());
  out->fix_generated = c.fix_generated.value_or(s.fix_generated.value_or(false));
  out->rule_options.trap_async = c.trap_async.value_or(s.trap_async.value_or(false));
  out->finish();
  return out;
}

std::shared_ptr<const FileSettings> SettingsResolver::for_path(const fs::path& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path.empty() ? fs::path(".") : path, ec).lexically_normal();
  return for_folder(fs::is_directory(absolute, ec) ? absolute : absolute.parent_path());
}

std::shared_ptr<const FileSettings> SettingsResolver::for_folder(const fs::path& folder) {
  if (fixed_) return fixed_;
  std::error_code ec;
  fs::path absolute = fs::absolute(folder.empty() ? fs::path(".") : folder, ec).lexically_normal();
  if (!absolute.has_filename()) absolute = absolute.parent_path();  // "a/b/" -> "a/b"
  return lookup(absolute);
}

// The folder's own configuration, else its parent's: each folder looked at once.
std::shared_ptr<const FileSettings> SettingsResolver::lookup(const fs::path& folder) {
  if (auto it = by_folder_.find(folder); it != by_folder_.end()) return it->second;
  std::shared_ptr<const FileSettings> found;
  if (std::optional<fs::path> file = config_in(folder)) {
    if (auto it = by_config_.find(*file); it != by_config_.end()) {
      found = it->second;
    } else {
      auto loaded = load_config(*file);
      if (auto* err = std::get_if<ConfigError>(&loaded)) {
        errors_.push_back(*err);
        found = defaults_;
      } else {
        found = from(std::get<Settings>(loaded), *file);
      }
      by_config_[*file] = found;
    }
  } else if (folder.empty() || folder == folder.parent_path()) {
    found = defaults_;
  } else {
    found = lookup(folder.parent_path());
  }
  by_folder_[folder] = found;
  return found;
}

std::string describe_settings(const FileSettings& s, const fs::path& path) {
  std::string out = fmt::format("Resolved settings for: {}\n", path.string());
  out += fmt::format("Configuration file: {}\n", s.config ? s.config->string() : "none (the defaults)");
  for (const fs::path& base : s.extended) out += fmt::format("  extends: {}\n", base.string());
  std::error_code ec;
  out += fmt::format("Project root: {}\n", (s.root.empty() ? fs::current_path(ec) : s.root).string());
  out += "\n# Per file (each file takes its nearest configuration)\n";
  out += fmt::format("select = {}\n", s.selection.select.empty() ? std::string("(default: every rule but GM903)")
                                                                  : quoted_list(s.selection.select));
  out += fmt::format("extend-select = {}\n", quoted_list(s.selection.extend_select));
  out += fmt::format("ignore = {}\n", quoted_list(s.selection.ignore));
  out += "per-file-ignores = {";
  for (size_t i = 0; i < s.per_file_ignores.size(); ++i) {
    out += fmt::format("{}\"{}\" = {}", i ? ", " : "", s.per_file_ignores[i].pattern,
                       quoted_list(s.per_file_ignores[i].codes));
  }
  out += "}\n";
  out += fmt::format("exclude = {}\n", quoted_list(s.exclude));
  out += fmt::format("command-line excludes = {}\n", quoted_list(s.command_line_exclude));
  out += fmt::format("fix-generated = {}\n", s.fix_generated);
  out += fmt::format("trap-async = {}\n", s.rule_options.trap_async);
  return out;
}

}  // namespace graphmend::driver
