#include "graphmend/driver/discover.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fnmatch.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

extern char** environ;

namespace graphmend::driver {
namespace fs = std::filesystem;

namespace {

// Folders never walked, whatever `exclude` says: hidden ones, bytecode caches, virtual environments.
bool always_skipped_directory(const fs::path& dir) {
  const std::string name = dir.filename().string();
  if (name.starts_with(".") && name != "." && name != "..") return true;
  if (name == "__pycache__") return true;
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

bool glob_matches(const std::string& pattern, const std::string& candidate) {
  return ::fnmatch(pattern.c_str(), candidate.c_str(), 0) == 0;
}

// The files git does not ignore under `dir` (tracked, and untracked but not ignored), as
// canonical paths; nullopt when `dir` is not in a git work tree or git cannot be run.
std::optional<std::unordered_set<std::string>> git_visible_files(const fs::path& dir) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  const std::string dir_arg = dir.string();
  std::vector<std::string> args = {"git", "-C", dir_arg, "ls-files", "-z", "--cached", "--others", "--exclude-standard"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, "git", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    return std::nullopt;
  }
  std::string output;
  char buffer[65536];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    output.append(buffer, static_cast<size_t>(n));
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  std::unordered_set<std::string> files;
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(dir, ec);
  for (size_t start = 0; start < output.size();) {
    size_t end = output.find('\0', start);
    if (end == std::string::npos) end = output.size();
    files.insert((base / output.substr(start, end - start)).lexically_normal().string());
    start = end + 1;
  }
  return files;
}

}  // namespace

const std::vector<std::string>& default_excludes() {
  static const std::vector<std::string> kDefaults = {"__pypackages__", "_build", "buck-out", "dist",
                                                     "node_modules",   "site-packages", "venv"};
  return kDefaults;
}

PathPatterns::PathPatterns(const std::vector<std::string>& patterns, const fs::path& root) {
  for (const std::string& p : patterns) (p.find('/') == std::string::npos ? plain_ : anchored_).push_back(p);
  std::error_code ec;
  base_ = (root.empty() ? fs::current_path(ec) : fs::absolute(root, ec)).lexically_normal();
}

// `name` against the plain patterns; `relative` (from the root, or absolute) and the absolute
// path it stands for against the anchored ones.
bool PathPatterns::matches(const std::string& name, const fs::path& relative) const {
  for (const std::string& pattern : plain_) {
    if (glob_matches(pattern, name)) return true;
  }
  if (anchored_.empty()) return false;
  const std::string from_root = relative.string();
  const std::string absolute = (base_ / relative).lexically_normal().string();
  for (const std::string& pattern : anchored_) {
    if (glob_matches(pattern, from_root) || glob_matches(pattern, absolute)) return true;
  }
  return false;
}

bool PathPatterns::matches_entry(const fs::path& path) const {
  if (plain_.empty() && anchored_.empty()) return false;
  std::error_code ec;
  return matches(path.filename().string(), fs::absolute(path, ec).lexically_normal().lexically_relative(base_));
}

bool PathPatterns::matches_path(const fs::path& path) const {
  if (plain_.empty() && anchored_.empty()) return false;
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec).lexically_normal();
  const fs::path relative = absolute.lexically_relative(base_);
  const bool inside = !relative.empty() && *relative.begin() != "..";
  fs::path prefix;
  for (const fs::path& part : inside ? relative : absolute) {
    prefix /= part;
    if (part == "/" || part.empty()) continue;
    if (matches(part.string(), prefix)) return true;
  }
  return false;
}

std::optional<fs::path> project_root_of(const fs::path& file) {
  std::error_code ec;
  fs::path dir = fs::absolute(file, ec).parent_path();
  while (!dir.empty()) {
    for (const char* marker : {"pyproject.toml", "setup.cfg", ".git"}) {
      if (fs::exists(dir / marker, ec)) return dir;
    }
    if (dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return std::nullopt;
}

namespace {

// What one discovery asks of each folder, answered once: a project's files share a few hundred
// folders, and each answer costs a system call per path component.
class FolderFacts {
 public:
  // The file's path with links resolved: its folder's (asked once per folder) and its name, for a
  // file that exists and is no link itself; else weakly_canonical's answer.
  std::string canonical_key(const fs::path& p) {
    std::error_code ec;
    const fs::path name = p.filename();
    const fs::file_status status = fs::symlink_status(p, ec);
    if (!ec && !name.empty() && name != "." && name != ".." && fs::exists(status) && !fs::is_symlink(status)) {
      const fs::path parent = p.parent_path().empty() ? fs::path(".") : p.parent_path();
      auto [it, added] = canonical_folders_.try_emplace(parent.string());
      if (added) {
        std::error_code e2;
        const fs::path canonical = fs::weakly_canonical(parent, e2);
        it->second = e2 ? std::string() : canonical.string();
      }
      if (!it->second.empty()) return (fs::path(it->second) / name).string();
    }
    fs::path canonical = fs::weakly_canonical(p, ec);
    return ec ? p.lexically_normal().string() : canonical.string();
  }

  // The module name a file has in its packages (each folder up from it with an __init__.py),
  // and the outermost package's folder.
  PackagePlace package_place(const fs::path& file) {
    std::error_code ec;
    // `pkg/./model.py` is `pkg.model`, as `pkg/model.py` is.
    const fs::path abs = fs::absolute(file, ec).lexically_normal();
    const Packages& packages = packages_of(abs.parent_path());
    PackagePlace place;
    place.package_root = packages.root;
    for (auto it = packages.names.rbegin(); it != packages.names.rend(); ++it) {
      if (!place.module_name.empty()) place.module_name += ".";
      place.module_name += *it;
    }
    if (const std::string stem = abs.stem().string(); stem != "__init__") {
      if (!place.module_name.empty()) place.module_name += ".";
      place.module_name += stem;
    }
    return place;
  }

 private:
  struct Packages {
    std::vector<std::string> names;  // the folder's, then each enclosing package's
    std::optional<fs::path> root;    // the outermost package folder
  };
  // References stay valid as the map grows: its elements never move.
  const Packages& packages_of(const fs::path& dir) {
    if (const auto it = packages_.find(dir.string()); it != packages_.end()) return it->second;
    Packages out;
    std::error_code ec;
    if (!dir.empty() && dir != dir.parent_path() && fs::exists(dir / "__init__.py", ec)) {
      const Packages& up = packages_of(dir.parent_path());
      out.names.push_back(dir.filename().string());
      out.names.insert(out.names.end(), up.names.begin(), up.names.end());
      out.root = up.names.empty() ? std::optional<fs::path>(dir) : up.root;
    }
    return packages_.emplace(dir.string(), std::move(out)).first->second;
  }

  std::unordered_map<std::string, std::string> canonical_folders_;
  std::unordered_map<std::string, Packages> packages_;
};

}  // namespace

PackagePlace package_place_of(const fs::path& file) { return FolderFacts().package_place(file); }

Discovery discover(const std::vector<std::string>& paths, const DiscoverOptions& options) {
  Discovery result;
  const PathPatterns patterns(options.exclude, options.root);
  const auto excluded_entry = [&](const fs::path& path, bool is_dir) {
    return options.excluded ? options.excluded(path, is_dir, false) : patterns.matches_entry(path);
  };
  const auto excluded_named = [&](const fs::path& path) {
    std::error_code ec;
    return options.excluded ? options.excluded(path, fs::is_directory(path, ec), true) : patterns.matches_path(path);
  };
  std::set<std::string> seen;  // canonical paths
  // The file standard input stands for (--stdin-filename): its copy on disk is no context, since
  // it would be a second module of the same name, and the one an import resolved to would be
  // whichever came first.
  std::set<std::string> stdin_paths;
  FolderFacts folder_facts;
  auto add = [&](const fs::path& p, bool explicit_arg, bool context_only,
                 const std::optional<fs::path>& walk_root = std::nullopt) {
    const std::string key = folder_facts.canonical_key(p);
    if (context_only && stdin_paths.contains(key)) return;
    if (!seen.insert(key).second) return;
    std::string display = p.lexically_normal().string();
    if (display.starts_with("./")) display.erase(0, 2);
    PackagePlace place = folder_facts.package_place(p);
    DiscoveredFile f;
    f.path = p;
    // No import can name a notebook: its name is its path in angle brackets, as Python names code
    // that is no module ("<stdin>").
    f.module_name = p.extension() == ".ipynb" ? "<" + display + ">" : std::move(place.module_name);
    f.display = std::move(display);
    f.package_root = std::move(place.package_root);
    f.explicit_arg = explicit_arg;
    f.context_only = context_only;
    f.walk_root = walk_root;
    result.files.push_back(std::move(f));
  };
  // Walks a folder for *.py and *.ipynb files; `context_only` files (*.py) are found the same way.
  auto walk = [&](const fs::path& p, const std::string& shown, bool context_only) {
    std::error_code ec;
    const fs::path canonical_root = fs::weakly_canonical(p, ec);
    std::optional<std::unordered_set<std::string>> visible;
    if (options.respect_gitignore) {
      visible = git_visible_files(p);
      if (visible && visible->empty()) visible.reset();  // the folder itself is ignored: it was named
    }
    // Folder by folder, so that a folder that cannot be read (permissions, I/O) is an input error
    // like a file that cannot be read, named, never skipped in silence.
    std::vector<fs::path> folders{p};
    while (!folders.empty()) {
      const fs::path folder = std::move(folders.back());
      folders.pop_back();
      fs::directory_iterator it(folder, ec);
      if (ec) {
        if (!context_only) result.errors.push_back({folder == p ? shown : folder.lexically_normal().string(), fmt::format("cannot read the folder: {}", ec.message())});
        ec.clear();
        continue;
      }
      for (; it != fs::directory_iterator(); it.increment(ec)) {
        if (ec) break;
        const fs::directory_entry& entry = *it;
        std::error_code e2;
        if (entry.is_directory(e2) && !entry.is_symlink(e2)) {
          if (!always_skipped_directory(entry.path()) && !excluded_entry(entry.path(), true)) {
            folders.push_back(entry.path());
          }
          continue;
        }
        // Notebooks are checked as ruff checks them, but never imported: no context for others.
        const fs::path extension = entry.path().extension();
        if (extension != ".py" && (extension != ".ipynb" || context_only)) continue;
        if (excluded_entry(entry.path(), false)) continue;
        // git lists a symlink under its own path, so the entry is looked up unresolved.
        if (visible &&
            !visible->contains((canonical_root / entry.path().lexically_relative(p)).lexically_normal().string())) {
          continue;
        }
        if (entry.is_symlink(e2)) {
          if (std::string err = stat_error(entry.path()); !err.empty()) {
            if (!context_only) result.errors.push_back({entry.path().lexically_normal().string(), err});
            continue;
          }
        }
        add(entry.path(), false, context_only, canonical_root);
      }
      if (ec) {
        if (!context_only) {
          result.errors.push_back({folder.lexically_normal().string(), fmt::format("cannot read the folder: {}", ec.message())});
        }
        ec.clear();
      }
    }
  };
  std::set<fs::path> context_roots;
  for (const std::string& arg : paths) {
    if (arg == "-") {
      const std::string name = options.stdin_filename.empty() ? "-" : options.stdin_filename;
      if (!seen.insert("\x01stdin").second) continue;
      // As ruff: with --force-exclude, text whose --stdin-filename is excluded is not checked.
      if (options.force_exclude && !options.stdin_filename.empty() && excluded_named(name)) {
        result.stdin_excluded = true;
        continue;
      }
      PackagePlace place = options.stdin_filename.empty() ? PackagePlace{} : folder_facts.package_place(name);
      DiscoveredFile f;
      f.path = name;
      f.display = name;
      f.module_name = fs::path(name).extension() == ".ipynb" ? "<" + name + ">" : std::move(place.module_name);
      f.package_root = std::move(place.package_root);
      f.explicit_arg = true;
      f.from_stdin = true;
      result.files.push_back(std::move(f));
      if (!options.stdin_filename.empty()) stdin_paths.insert(folder_facts.canonical_key(name));
      if (options.project_context && !options.stdin_filename.empty()) {
        if (auto root = project_root_of(name)) context_roots.insert(*root);
      }
      continue;
    }
    const fs::path p(arg);
    if (std::string err = stat_error(p); !err.empty()) {
      result.errors.push_back({arg, err});
      continue;
    }
    if (options.force_exclude && excluded_named(p)) continue;
    std::error_code ec;
    if (!fs::is_directory(p, ec)) {
      add(p, true, false);
      if (options.project_context) {
        if (auto root = project_root_of(p)) context_roots.insert(*root);
      }
      continue;
    }
    walk(p, arg, false);
  }
  for (const fs::path& root : context_roots) walk(root, root.string(), true);
  std::sort(result.files.begin(), result.files.end(),
            [](const DiscoveredFile& a, const DiscoveredFile& b) { return a.display < b.display; });
  return result;
}

}  // namespace graphmend::driver
