#include "graphmend/fix/runtime.h"

#include <fmt/format.h>

#include <map>
#include <system_error>

#include "graphmend/source/generated.h"

namespace graphmend::fix {
namespace fs = std::filesystem;

namespace {

constexpr std::string_view kVersionAssignment = "RUNTIME_VERSION = \"";
constexpr std::string_view kSectionMarker = "# graphmend-section: ";

// Which runtime section defines each name bind() hands out; the core (before the first section
// marker) and the closing section are always included.
const std::map<std::string, std::string, std::less<>> kSectionOf = {
    {"defer", "effects"},  {"check", "effects"}, {"deferred", "effects"}, {"call", "effects"},          {"equal", "equal"},
    {"assert_async", "assert_async"}, {"selectable", "where"}, {"where", "where"},
    {"allocating_module", "where"}, {"user_module", "where"}, {"plain_tensors", "where"}, {"numbers", "where"},
    {"buffer_slot", "buffer"}, {"unmoved", "buffer"}, {"scalar", "scalar"}, {"item_compare", "scalar"}};

// The source cut to the core, the sections named, and the closing section, in source order.
std::string runtime_sections(const std::set<std::string>& sections) {
  const std::string_view src = runtime_source();
  std::string out;
  bool keep = true;
  size_t pos = 0;
  while (pos < src.size()) {
    size_t eol = src.find('\n', pos);
    eol = eol == std::string_view::npos ? src.size() : eol + 1;
    const std::string_view line = src.substr(pos, eol - pos);
    if (line.starts_with(kSectionMarker)) {
      std::string_view name = line.substr(kSectionMarker.size());
      while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.remove_suffix(1);
      keep = name == "end" || sections.contains(std::string(name));
    }
    if (keep) out.append(line);
    pos = eol;
  }
  return out;
}

}  // namespace

std::optional<std::string> runtime_version_of(std::string_view text) {
  for (size_t pos = text.find(kVersionAssignment); pos != std::string_view::npos;
       pos = text.find(kVersionAssignment, pos + 1)) {
    if (pos != 0 && text[pos - 1] != '\n') continue;  // only a top-level assignment counts
    const size_t start = pos + kVersionAssignment.size();
    const size_t end = text.find('"', start);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(text.substr(start, end - start));
  }
  return std::nullopt;
}

std::string_view runtime_version() {
  static const std::string version = runtime_version_of(runtime_source()).value_or("");
  return version;
}

RuntimeLink runtime_link_for(const fs::path& file, const std::optional<fs::path>& package_root) {
  if (!package_root) return RuntimeLink::inline_source();
  // One level per package folder from the module's own up to the root, where the runtime lies:
  // counted on the folders themselves, whose names may hold dots (`pk.v2/sub/m.py`: 2).
  std::error_code ec;
  const fs::path folder = fs::absolute(file, ec).parent_path().lexically_normal();
  const fs::path relative = folder.lexically_relative(package_root->lexically_normal());
  int level = 1;
  for (const fs::path& part : relative) level += part != "." && !part.empty() ? 1 : 0;
  return RuntimeLink::package(level);
}

// The binding the source layer recognises names this runtime module.
static_assert(source::kRuntimeBindingStart.find(kRuntimeModule) != std::string_view::npos);

std::string runtime_binding(const RuntimeLink& link, const std::set<std::string>& used) {
  if (link.package_level) {
    return fmt::format("{}{}{}", source::kRuntimeBindingStart, *link.package_level, source::kRuntimeBindingEnd);
  }
  std::set<std::string> sections;
  for (const std::string& name : used) {
    if (auto it = kSectionOf.find(name); it != kSectionOf.end()) sections.insert(it->second);
  }
  // The runtime's own text, run as a module of its own: a loose script has no package to hold
  // the runtime file. The source never contains ''' (tests/runtime checks it).
  // Dynamo finds a traced function's globals by importing its module's name, so the inline
  // runtime is registered in sys.modules, as a submodule of the script's own name.
  // The call is laid out as ruff and black format it: the script still passes the formatter.
  return fmt::format(
      "_graphmend = __import__(\"types\").ModuleType(__name__ + \".{0}\")\n"
      "__import__(\"sys\").modules[_graphmend.__name__] = _graphmend\n"
      "exec(\n"
      "    compile(\n"
      "        r'''\n{1}''',\n"
      "        \"<graphmend runtime>\",\n"
      "        \"exec\",\n"
      "    ),\n"
      "    _graphmend.__dict__,\n"
      ")\n"
      "_graphmend = _graphmend.bind(globals())",
      kRuntimeModule, runtime_sections(sections));
}

}  // namespace graphmend::fix
