#include "graphmend/driver/discover.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <sys/stat.h>
#include <system_error>

namespace graphmend::driver {
namespace fs = std::filesystem;

namespace {

bool skip_directory(const fs::path& dir) {
  const std::string name = dir.filename().string();
  if (name.starts_with(".") && name != "." && name != "..") return true;
  if (name == "__pycache__" || name == "node_modules" || name == "venv" || name == "__pypackages__") {
    return true;
  }
  std::error_code ec;
  return fs::exists(dir / "pyvenv.cfg", ec);  // a virtual environment root
}

std::string stat_error(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) == 0) return {};
  const int err = errno;
  if (err == ELOOP) return "symbolic link loop";
  if (err == ENOENT) return "no such file or directory";
  if (err == EACCES) return "permission denied";
  return std::strerror(err);
}

}  // namespace

PackagePlace package_place_of(const fs::path& file) {
  std::error_code ec;
  fs::path abs = fs::absolute(file, ec);
  PackagePlace place;
  std::vector<std::string> parts;
  std::string stem = abs.stem().string();
  if (stem != "__init__") parts.push_back(stem);
  fs::path dir = abs.parent_path();
  while (!dir.empty() && fs::exists(dir / "__init__.py", ec) && dir != dir.parent_path()) {
    parts.push_back(dir.filename().string());
    place.package_root = dir;
    dir = dir.parent_path();
  }
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
    if (!place.module_name.empty()) place.module_name += ".";
    place.module_name += *it;
  }
  return place;
}

Discovery discover(const std::vector<std::string>& paths) {
  Discovery result;
  std::set<std::string> seen;  // canonical paths
  auto add = [&](const fs::path& p, bool explicit_arg) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(p, ec);
    const std::string key = ec ? p.lexically_normal().string() : canonical.string();
    if (!seen.insert(key).second) return;
    std::string display = p.lexically_normal().string();
    if (display.starts_with("./")) display.erase(0, 2);
    PackagePlace place = package_place_of(p);
    result.files.push_back({p, display, std::move(place.module_name), std::move(place.package_root), explicit_arg});
  };
  for (const std::string& arg : paths) {
    const fs::path p(arg);
    if (std::string err = stat_error(p); !err.empty()) {
      result.errors.push_back({arg, err});
      continue;
    }
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      add(p, true);
      continue;
    }
    fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec);
    if (ec) {
      result.errors.push_back({arg, ec.message()});
      continue;
    }
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) {
        result.errors.push_back({it->path().string(), ec.message()});
        ec.clear();
        continue;
      }
      const fs::directory_entry& entry = *it;
      std::error_code e2;
      if (entry.is_directory(e2) && !entry.is_symlink(e2)) {
        if (skip_directory(entry.path())) it.disable_recursion_pending();
        continue;
      }
      if (entry.path().extension() != ".py") continue;
      if (entry.is_symlink(e2)) {
        if (std::string err = stat_error(entry.path()); !err.empty()) {
          result.errors.push_back({entry.path().lexically_normal().string(), err});
          continue;
        }
      }
      add(entry.path(), false);
    }
  }
  std::sort(result.files.begin(), result.files.end(),
            [](const DiscoveredFile& a, const DiscoveredFile& b) { return a.display < b.display; });
  return result;
}

}  // namespace graphmend::driver
