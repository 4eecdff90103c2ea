// Finding the Python files to check.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace graphmend::driver {

struct DiscoveredFile {
  std::filesystem::path path;  // as reachable from the working directory
  std::string display;         // what reports print
  std::string module_name;     // dotted import name (package root found via __init__.py)
  std::optional<std::filesystem::path> package_root;  // the outermost package holding it; none: a script
  bool explicit_arg = false;   // named on the command line
};

struct DiscoveryError {
  std::string display;
  std::string message;
};

struct Discovery {
  std::vector<DiscoveredFile> files;  // sorted by display path, unique by canonical path
  std::vector<DiscoveryError> errors;
};

// Walks directories for *.py (skipping hidden folders, virtual environments, __pycache__);
// never follows directory symlinks while walking, so symlink loops cannot trap it.
Discovery discover(const std::vector<std::string>& paths);

// Where a file sits among packages, from one walk up its `__init__.py` files: its dotted module
// name and the outermost package's directory (none for a loose script).
struct PackagePlace {
  std::string module_name;
  std::optional<std::filesystem::path> package_root;
};
PackagePlace package_place_of(const std::filesystem::path& file);

}  // namespace graphmend::driver
