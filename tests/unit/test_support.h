// Helpers shared by the unit tests: in-memory modules and running the CLI binary.
#pragma once

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>

#include "graphmend/ir/module.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::testing {

// Owns a parsed module built from a string.
struct ParsedModule {
  std::unique_ptr<source::SourceFile> file;
  std::unique_ptr<ir::Module> module;
};

inline ParsedModule parse_module(std::string text, std::string module_name = "m") {
  ParsedModule p;
  p.file = std::make_unique<source::SourceFile>();
  p.file->path = module_name + ".py";
  p.file->display_path = p.file->path.string();
  p.file->text = std::move(text);
  syntax::Parser parser;
  auto tree = parser.parse(p.file->text);
  p.module = std::make_unique<ir::Module>(*p.file, std::move(*tree), module_name);
  return p;
}

// First node of `type` whose text equals `text` (or any, if text is empty).
inline ir::Node find_node(const ir::Module& m, std::string_view type, std::string_view text = {}) {
  ir::Node found;
  syntax::walk(m.root(), [&](ir::Node n) {
    if (found) return false;
    if (n.type() == type && (text.empty() || m.text(n) == text)) {
      found = n;
      return false;
    }
    return true;
  });
  return found;
}

// The n-th (0-based) identifier `name` in document order.
inline ir::Node nth_identifier(const ir::Module& m, std::string_view name, int nth) {
  ir::Node found;
  int seen = 0;
  syntax::walk(m.root(), [&](ir::Node n) {
    if (found) return false;
    if (n.is(kind::identifier) && m.text(n) == name && seen++ == nth) found = n;
    return true;
  });
  return found;
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() / ("graphmend-test-" + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path, std::filesystem::perms::all, ec);
    std::filesystem::remove_all(path, ec);
  }
  std::filesystem::path write(const std::string& name, const std::string& bytes) const {
    auto p = path / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
};

inline std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout and stderr together
};

inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::string quoted(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// Runs the graphmend binary this build made (GM_BINARY) with `args`, already quoted for the shell.
inline CommandResult gm(const std::string& args) { return run_command(std::string(GM_BINARY) + " " + args); }

}  // namespace graphmend::testing
