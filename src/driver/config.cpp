#include "graphmend/driver/config.h"

// toml++ as a header-only library (here and in style.cpp): no shared library at run time.
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <set>
#include <toml++/toml.h>

#include "graphmend/rules/selection.h"

namespace graphmend::driver {
namespace fs = std::filesystem;

namespace {

constexpr int kMaxExtendDepth = 16;

struct Loaded {
  Settings settings;
  std::optional<fs::path> extend;
};

std::string where(const fs::path& file, const toml::source_region& region) {
  return fmt::format("{}:{}", file.string(), region.begin.line);
}

// The yes/no keys, and the setting each one sets.
std::optional<std::optional<bool> Settings::*> flag_member(std::string_view key) {
  static constexpr std::pair<std::string_view, std::optional<bool> Settings::*> kFlags[] = {
      {"unsafe-fixes", &Settings::unsafe_fixes},   {"trap-async", &Settings::trap_async},
      {"force-exclude", &Settings::force_exclude}, {"respect-gitignore", &Settings::respect_gitignore},
      {"show-fixes", &Settings::show_fixes},       {"project-context", &Settings::project_context},
      {"fix-generated", &Settings::fix_generated}};
  for (const auto& [name, member] : kFlags) {
    if (name == key) return member;
  }
  return std::nullopt;
}

class Reader {
 public:
  Reader(fs::path file, const toml::table& table) : file_(std::move(file)), table_(table) {}

  std::variant<Loaded, ConfigError> read() {
    Loaded out;
    for (auto&& [key, node] : table_) {
      const std::string k(key.str());
      const toml::source_region& at = key.source();
      std::optional<ConfigError> e;
      if (k == "select") {
        e = selectors(k, node, at, out.settings.select.emplace());
      } else if (k == "extend-select") {
        e = selectors(k, node, at, out.settings.extend_select);
      } else if (k == "ignore") {
        e = selectors(k, node, at, out.settings.ignore.emplace());
      } else if (k == "exclude") {
        e = strings(k, node, at, out.settings.exclude.emplace());
      } else if (k == "extend-exclude") {
        e = strings(k, node, at, out.settings.extend_exclude);
      } else if (k == "per-file-ignores") {
        e = per_file(k, node, at, out.settings.per_file_ignores.emplace());
      } else if (k == "extend-per-file-ignores") {
        e = per_file(k, node, at, out.settings.extend_per_file_ignores);
      } else if (auto flag = flag_member(k)) {
        e = boolean(k, node, at, out.settings.*(*flag));
      } else if (k == "output-format") {
        std::string value;
        if (!(e = string(k, node, at, value))) {
          const auto& names = output_format_names();
          if (std::find(names.begin(), names.end(), value) == names.end()) {
            e = error(at, k, fmt::format("`{}` is not an output format (one of: {})", value, fmt::join(names, ", ")));
          } else {
            out.settings.output_format = value;
          }
        }
      } else if (k == "cache-dir") {
        std::string value;
        if (!(e = string(k, node, at, value))) {
          if (value.empty()) {
            e = error(at, k, "expected a folder (relative paths start at this file's folder)");
          } else {
            out.settings.cache_dir = file_.parent_path() / value;
          }
        }
      } else if (k == "max-file-size") {
        int64_t v = 0;
        if (!(e = integer(k, node, at, 1, INT64_MAX, "expected a positive integer (bytes)", v))) {
          out.settings.max_file_size = static_cast<uint64_t>(v);
        }
      } else if (k == "max-file-time") {
        double v = 0;
        if (!(e = number(k, node, at, 0, 86400, "expected seconds from 0 (no limit) to 86400", v))) {
          out.settings.max_file_time = v;
        }
      } else if (k == "max-file-memory") {
        int64_t v = 0;
        if (!(e = integer(k, node, at, 0, 1 << 20, "expected megabytes from 0 (no limit) to 1048576", v))) {
          out.settings.max_file_memory = v;
        }
      } else if (k == "jobs") {
        int64_t v = 0;
        if (!(e = integer(k, node, at, 0, 1024, "expected an integer from 0 (one per core) to 1024", v))) {
          out.settings.jobs = static_cast<unsigned>(v);
        }
      } else if (k == "extend") {
        std::string value;
        if (!(e = string(k, node, at, value))) out.extend = file_.parent_path() / value;
      } else {
        e = error(at, k, "unknown key (see docs/configuration.md)");
      }
      if (e) return *e;
    }
    return out;
  }

 private:
  ConfigError error(const toml::source_region& at, std::string_view key, std::string_view problem) const {
    return {fmt::format("{}: {}: {}", where(file_, at), key, problem)};
  }

  std::optional<ConfigError> string(std::string_view key, const toml::node& node, const toml::source_region& at,
                                    std::string& out) const {
    if (!node.is_string()) return error(at, key, "expected a string");
    out = *node.value<std::string>();
    return std::nullopt;
  }

  std::optional<ConfigError> integer(std::string_view key, const toml::node& node, const toml::source_region& at,
                                     int64_t min, int64_t max, std::string_view problem, int64_t& out) const {
    const auto v = node.value<int64_t>();
    if (!node.is_integer() || !v || *v < min || *v > max) return error(at, key, problem);
    out = *v;
    return std::nullopt;
  }

  // An integer or a float: TOML keeps them apart, a user writing 0.5 or 2 means the same kind.
  std::optional<ConfigError> number(std::string_view key, const toml::node& node, const toml::source_region& at,
                                    double min, double max, std::string_view problem, double& out) const {
    const auto v = node.value<double>();
    if (!(node.is_integer() || node.is_floating_point()) || !v || !(*v >= min && *v <= max)) {
      return error(at, key, problem);
    }
    out = *v;
    return std::nullopt;
  }

  std::optional<ConfigError> boolean(std::string_view key, const toml::node& node, const toml::source_region& at,
                                     std::optional<bool>& out) const {
    if (!node.is_boolean()) return error(at, key, "expected true or false");
    out = *node.value<bool>();
    return std::nullopt;
  }

  std::optional<ConfigError> strings(std::string_view key, const toml::node& node, const toml::source_region& at,
                                     std::vector<std::string>& out) const {
    const toml::array* array = node.as_array();
    if (!array) return error(at, key, "expected a list of strings");
    for (const toml::node& item : *array) {
      if (!item.is_string()) return error(item.source(), key, "expected a list of strings");
      out.push_back(*item.value<std::string>());
    }
    return std::nullopt;
  }

  std::optional<ConfigError> selectors(std::string_view key, const toml::node& node, const toml::source_region& at,
                                       std::vector<std::string>& out) const {
    const size_t before = out.size();
    if (auto e = strings(key, node, at, out)) return e;
    for (size_t i = before; i < out.size(); ++i) {
      if (!rules::valid_selector(out[i])) {
        return error(at, key, fmt::format("`{}` is no rule code, prefix or name (see `graphmend rule --all`)", out[i]));
      }
    }
    return std::nullopt;
  }

  std::optional<ConfigError> per_file(std::string_view key, const toml::node& node, const toml::source_region& at,
                                      std::vector<PerFileIgnore>& out) const {
    const toml::table* table = node.as_table();
    if (!table) return error(at, key, "expected a table of glob pattern = [codes]");
    for (auto&& [pattern, codes] : *table) {
      PerFileIgnore entry{std::string(pattern.str()), {}};
      if (auto e = selectors(fmt::format("{}.\"{}\"", key, pattern.str()), codes, pattern.source(), entry.codes)) {
        return e;
      }
      out.push_back(std::move(entry));
    }
    return std::nullopt;
  }

  fs::path file_;
  const toml::table& table_;
};

std::variant<Loaded, ConfigError> load_one(const fs::path& file) {
  toml::parse_result parsed = toml::parse_file(file.string());
  if (!parsed) {
    const toml::parse_error& err = parsed.error();
    return ConfigError{fmt::format("{}: invalid TOML: {}", where(file, err.source()), err.description())};
  }
  const toml::table& table = parsed.table();
  if (file.filename() == "pyproject.toml") {
    const toml::node* section = table.at_path("tool.graphmend").node();
    if (!section) return Loaded{};
    const toml::table* t = section->as_table();
    if (!t) return ConfigError{fmt::format("{}: tool.graphmend: expected a table", where(file, section->source()))};
    return Reader(file, *t).read();
  }
  return Reader(file, table).read();
}

template <typename T>
void override_with(std::optional<T>& base, const std::optional<T>& top) {
  if (top) base = top;
}

// `top` over `base`: what `top` sets wins; the extend-* lists add up.
Settings merged(Settings base, const Settings& top) {
  override_with(base.select, top.select);
  override_with(base.ignore, top.ignore);
  override_with(base.exclude, top.exclude);
  override_with(base.per_file_ignores, top.per_file_ignores);
  base.extend_select.insert(base.extend_select.end(), top.extend_select.begin(), top.extend_select.end());
  base.extend_exclude.insert(base.extend_exclude.end(), top.extend_exclude.begin(), top.extend_exclude.end());
  base.extend_per_file_ignores.insert(base.extend_per_file_ignores.end(), top.extend_per_file_ignores.begin(),
                                      top.extend_per_file_ignores.end());
  override_with(base.unsafe_fixes, top.unsafe_fixes);
  override_with(base.trap_async, top.trap_async);
  override_with(base.force_exclude, top.force_exclude);
  override_with(base.respect_gitignore, top.respect_gitignore);
  override_with(base.show_fixes, top.show_fixes);
  override_with(base.project_context, top.project_context);
  override_with(base.fix_generated, top.fix_generated);
  override_with(base.output_format, top.output_format);
  override_with(base.cache_dir, top.cache_dir);
  override_with(base.max_file_size, top.max_file_size);
  override_with(base.max_file_time, top.max_file_time);
  override_with(base.max_file_memory, top.max_file_memory);
  override_with(base.jobs, top.jobs);
  return base;
}

bool has_graphmend_section(const fs::path& pyproject) {
  toml::parse_result parsed = toml::parse_file(pyproject.string());
  if (parsed) return parsed.table().at_path("tool.graphmend").node() != nullptr;
  // Broken TOML is graphmend's business only when it names the section; loading then reports it.
  std::ifstream in(pyproject);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return text.find("[tool.graphmend") != std::string::npos;
}

}  // namespace

const std::vector<std::string>& output_format_names() {
  static const std::vector<std::string> kNames = {"text",  "concise", "json",  "json-lines",
                                                  "sarif", "github",  "gitlab", "junit"};
  return kNames;
}

std::optional<fs::path> config_in(const fs::path& dir) {
  std::error_code ec;
  for (const char* name : {"graphmend.toml", ".graphmend.toml"}) {
    if (fs::is_regular_file(dir / name, ec)) return dir / name;
  }
  if (fs::is_regular_file(dir / "pyproject.toml", ec) && has_graphmend_section(dir / "pyproject.toml")) {
    return dir / "pyproject.toml";
  }
  return std::nullopt;
}

std::optional<fs::path> find_config(const fs::path& start) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec).lexically_normal();
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  while (!dir.empty()) {
    if (std::optional<fs::path> found = config_in(dir)) return found;
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return std::nullopt;
}

std::variant<Settings, ConfigError> load_config(const fs::path& file) {
  std::vector<Settings> chain;  // the found file first, its bases after
  std::set<fs::path> visited;
  std::optional<fs::path> next = file;
  while (next) {
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(*next, ec);
    if (!fs::is_regular_file(*next, ec)) {
      return ConfigError{fmt::format("{}: cannot read the configuration file{}", next->string(),
                                     chain.empty() ? "" : " named by `extend`")};
    }
    if (!visited.insert(canonical).second || chain.size() >= kMaxExtendDepth) {
      return ConfigError{fmt::format("{}: `extend` forms a cycle", next->string())};
    }
    auto loaded = load_one(*next);
    if (auto* err = std::get_if<ConfigError>(&loaded)) return *err;
    Loaded& l = std::get<Loaded>(loaded);
    l.settings.files.push_back(*next);
    chain.push_back(std::move(l.settings));
    next = l.extend;
  }
  Settings result;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) result = merged(std::move(result), *it);
  std::error_code ec;
  result.root = fs::absolute(file, ec).parent_path();
  result.files.clear();
  for (const Settings& s : chain) result.files.push_back(s.files.front());
  return result;
}

}  // namespace graphmend::driver
