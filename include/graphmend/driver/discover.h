// Finding the Python files to check.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace graphmend::driver {

struct DiscoveredFile {
  std::filesystem::path path;  // as reachable from the working directory
  std::string display;         // what reports print
  std::string module_name;     // dotted import name (package root found via __init__.py); "<nb.ipynb>" for a notebook
  std::optional<std::filesystem::path> package_root;  // the outermost package holding it; none: a script
  bool explicit_arg = false;   // named on the command line
  bool from_stdin = false;     // its text is read from standard input (`-`)
  // Analysed for cross-file facts only (the rest of the project of a file named on the command
  // line): never reported, never written.
  bool context_only = false;
  // The folder whose walk found it (canonical); a fix never writes outside it through a symlink.
  std::optional<std::filesystem::path> walk_root;
};

struct DiscoveryError {
  std::string display;
  std::string message;
};

struct Discovery {
  std::vector<DiscoveredFile> files;  // sorted by display path, unique by canonical path
  std::vector<DiscoveryError> errors;
  bool stdin_excluded = false;  // `-` was skipped: --force-exclude, and its --stdin-filename is excluded
};

// ruff's default `exclude` list, less the hidden folders graphmend always skips.
const std::vector<std::string>& default_excludes();

struct DiscoverOptions {
  // Glob patterns (fnmatch): one without '/' matches any path component's name; one with '/'
  // matches the path relative to `root`.
  std::vector<std::string> exclude = default_excludes();
  bool respect_gitignore = true;  // inside a git work tree, skip what git ignores (`git ls-files`)
  bool force_exclude = false;     // apply `exclude` to paths named on the command line too
  std::filesystem::path root;     // the project root that relative patterns start from; empty: cwd
  // A file named on the command line brings the rest of its project (found from the file: the
  // nearest folder with pyproject.toml, setup.cfg or .git) as context-only files.
  bool project_context = true;
  std::string stdin_filename;     // the name `-` is reported under
  // When set, decides in place of `exclude` and `root` (each folder's own configuration, resolve.h):
  // whether `path` (a folder when `is_dir`) is excluded, as an entry met while walking (`named`
  // false) or as a path named on the command line (`named`).
  std::function<bool(const std::filesystem::path& path, bool is_dir, bool named)> excluded;
};

// Walks directories for *.py and *.ipynb, skipping hidden folders, virtual environments, __pycache__ and the
// `exclude` patterns; never follows directory symlinks while walking, so symlink loops cannot trap it.
Discovery discover(const std::vector<std::string>& paths, const DiscoverOptions& options = {});

// The project a file belongs to: the nearest folder above it holding pyproject.toml, setup.cfg or
// .git; nullopt when there is none.
std::optional<std::filesystem::path> project_root_of(const std::filesystem::path& file);

// Glob patterns (fnmatch) over paths: one without '/' matches a file or folder name, one with '/'
// the path from `root` (empty: the working directory). Excludes and per-file-ignores.
class PathPatterns {
 public:
  PathPatterns(const std::vector<std::string>& patterns, const std::filesystem::path& root);

  // An entry met while walking a folder: its name, and its path for the patterns with '/'. The
  // folders above it were matched as the walk went through them.
  [[nodiscard]] bool matches_entry(const std::filesystem::path& path) const;
  // `path` itself or any folder above it, from the root down (from `/` outside the root): a path
  // named on the command line, a file against per-file-ignores.
  [[nodiscard]] bool matches_path(const std::filesystem::path& path) const;

 private:
  [[nodiscard]] bool matches(const std::string& name, const std::filesystem::path& relative) const;

  std::vector<std::string> plain_;     // no '/': names
  std::vector<std::string> anchored_;  // with '/': paths
  std::filesystem::path base_;         // the root, absolute
};

// Where a file sits among packages, from one walk up its `__init__.py` files: its dotted module
// name and the outermost package's directory (none for a loose script).
struct PackagePlace {
  std::string module_name;
  std::optional<std::filesystem::path> package_root;
};
PackagePlace package_place_of(const std::filesystem::path& file);

}  // namespace graphmend::driver
