// The Python runtime that patched code calls (runtime/_graphmend_runtime.py, embedded at build
// time), and how a patched module reaches it:
//   - inside a package, one `_graphmend_runtime.py` at the top-level package's root, written by
//     graphmend and rewritten only when its RUNTIME_VERSION differs; the module binds it with a
//     relative `__import__` after its imports (no import statement, so isort/E402 see nothing new);
//   - a loose script (no `__init__.py` beside it) gets the sections it uses inline.
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "graphmend/source/text.h"

namespace graphmend::fix {

inline constexpr std::string_view kRuntimeModule = "_graphmend_runtime";
inline constexpr std::string_view kRuntimeFileName = "_graphmend_runtime.py";

// The embedded runtime source, byte for byte.
std::string_view runtime_source();

// The RUNTIME_VERSION a runtime file's text declares; nullopt when it declares none (the file is
// not graphmend's).
std::optional<std::string> runtime_version_of(std::string_view text);

// The embedded runtime's version.
std::string_view runtime_version();

// How a module reaches the runtime: from its package (`level` dots up to the top-level package,
// where the runtime file lies) or inline.
struct RuntimeLink {
  std::optional<int> package_level;  // nullopt: a loose script
  // Blank lines between the imports and the binding: the project's isort `lines-after-imports`
  // (-1, isort's default: one, as the binding is no def or class).
  int lines_after_imports = -1;
  // A notebook (source/notebook.h): the first cell the fixes change, as it stands in the text
  // they apply to. Its cells run one by one, so a new block goes into that cell (after the
  // imports when they are in it, else at its top), never into a later one.
  std::optional<source::TextRange> first_fixed_cell;

  static RuntimeLink inline_source() { return {}; }
  static RuntimeLink package(int level) { return {level, -1, std::nullopt}; }
};

// The link for a file: inline for a loose script (no package root), else the relative level of
// the package root (the outermost folder with an `__init__.py`, as discovery found it).
RuntimeLink runtime_link_for(const std::filesystem::path& file, const std::optional<std::filesystem::path>& package_root);

// The Python that binds `_graphmend` in a patched module (no trailing newline). Inline, only the
// runtime sections that provide `used` (runtime attribute names, e.g. "where") are included.
std::string runtime_binding(const RuntimeLink& link, const std::set<std::string>& used);

}  // namespace graphmend::fix
