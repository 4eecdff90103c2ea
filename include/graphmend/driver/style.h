// The project's own formatting settings, so that what `fix` writes is what its formatter and
// import sorter would write: the line length generated statements wrap at, and the blank lines
// isort puts after the imports (before the runtime binding).
//
// Read as ruff finds its configuration: from the file's folder upwards, the first folder with a
// `.ruff.toml`, a `ruff.toml`, or a `pyproject.toml` with a `[tool.ruff]` table decides
// (`line-length`; `lint.isort.lines-after-imports`, or the older `isort.lines-after-imports`).
// Where no ruff configuration is found, black's and isort's are read the same way:
// `[tool.black] line-length` and `[tool.isort]` (`line_length`, `lines_after_imports`) in a
// pyproject.toml, or `[isort]` / `[flake8] max-line-length` in a setup.cfg (`[settings]` in an
// .isort.cfg). A file that cannot be parsed is skipped as if absent. `extend` chains are not
// followed: a setting only a base file holds keeps its default.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>

namespace graphmend::driver {

struct FormatterStyle {
  size_t line_length = 88;       // ruff's and black's default
  int lines_after_imports = -1;  // isort's default: one blank line before a statement that is no def or class
  std::filesystem::path source;  // the file the settings came from; empty: the defaults

  // The settings as text, for the result cache's key.
  [[nodiscard]] std::string key() const;
};

// The style of each file, looked up once per folder; safe to call from several threads.
class StyleFinder {
 public:
  FormatterStyle for_file(const std::filesystem::path& file);

 private:
  FormatterStyle for_folder(const std::filesystem::path& folder);

  std::mutex mutex_;
  std::map<std::filesystem::path, FormatterStyle> by_folder_;
};

}  // namespace graphmend::driver
