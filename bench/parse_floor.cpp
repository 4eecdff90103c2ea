// The floor under any check built on tree-sitter: read and parse every .py file below a folder
// with graphmend's own parser (tree-sitter, then the flat copy graphmend analyses), nothing else.
//   graphmend_parse_floor -j 2 PATH   ->   {"files": ..., "bytes": ..., "nodes": ..., "wall_s": ...}
// bench/speed.py runs it beside `graphmend check` and ruff on the same tree.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "graphmend/syntax/tree.h"

#include "jobs_and_path.h"

int main(int argc, char** argv) {
  const std::optional<JobsAndPath> args = parse_jobs_and_path(argc, argv, "graphmend_parse_floor [-j N] PATH");
  if (!args) return 2;
  const unsigned jobs = args->jobs;
  const std::filesystem::path root = args->path;
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ".py") files.push_back(entry.path());
  }
  std::atomic<size_t> next{0}, bytes{0}, nodes{0};
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < jobs; ++w) {
    threads.emplace_back([&] {
      graphmend::syntax::Parser parser;
      for (size_t i = next++; i < files.size(); i = next++) {
        std::ifstream in(files[i], std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        bytes += text.size();
        if (auto tree = parser.parse(text)) nodes += tree->node_count();
      }
    });
  }
  for (auto& t : threads) t.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("{\"files\": %zu, \"bytes\": %zu, \"nodes\": %zu, \"wall_s\": %.3f}\n", files.size(), bytes.load(),
              nodes.load(), wall);
  return 0;
}
