// The command line of the bench's small C++ tools: `[-j N] PATH`.
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

struct JobsAndPath {
  unsigned jobs = 1;
  std::filesystem::path path;
};

// The jobs and the path, or nullopt after printing `usage` when no path was given.
inline std::optional<JobsAndPath> parse_jobs_and_path(int argc, char** argv, const char* usage) {
  JobsAndPath out;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-j" && i + 1 < argc) {
      out.jobs = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
    } else {
      out.path = arg;
    }
  }
  if (out.path.empty()) {
    std::fprintf(stderr, "usage: %s\n", usage);
    return std::nullopt;
  }
  return out;
}
