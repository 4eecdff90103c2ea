// What reading the stored module summaries of a project costs, the step a check of a few files
// takes instead of parsing the rest (docs/incremental.md): every summary a `check` stored in a
// cache folder, read, checked and decoded as a check reads them, and held.
//   graphmend_summary_load -j 2 CACHE_DIR   ->   {"summaries": ..., "decoded": ..., "wall_s": ...}
// bench/incremental.py runs it after a full check of transformers.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "graphmend/analysis/summary_codec.h"
#include "graphmend/driver/cache.h"

#include "jobs_and_path.h"

int main(int argc, char** argv) {
  const std::optional<JobsAndPath> args = parse_jobs_and_path(argc, argv, "graphmend_summary_load [-j N] CACHE_DIR");
  if (!args) return 2;
  const unsigned jobs = args->jobs;
  const std::filesystem::path dir = args->path;
  const auto start = std::chrono::steady_clock::now();
  // graphmend wrote the file, not this tool: another binary.
  const graphmend::driver::cache::SummaryStore store(dir, graphmend::driver::cache::SummaryStore::Writer::AnyBuild);
  const auto& keys = store.keys();
  // Held to the end, as a check holds them: the peak RSS is theirs and the file's.
  std::vector<std::optional<graphmend::analysis::ModuleSummary>> summaries(keys.size());
  std::atomic<size_t> next{0}, decoded{0};
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < jobs; ++w) {
    threads.emplace_back([&] {
      for (size_t i = next++; i < keys.size(); i = next++) {
        summaries[i] = store.find(keys[i]);
        if (summaries[i]) ++decoded;
      }
    });
  }
  for (auto& t : threads) t.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(dir / ("summaries-v" + std::to_string(graphmend::analysis::kSummaryFormat)), ec);
  std::printf("{\"summaries\": %zu, \"decoded\": %zu, \"bytes\": %zu, \"wall_s\": %.3f}\n", keys.size(),
              decoded.load(), ec ? size_t{0} : static_cast<size_t>(bytes), wall);
  return !keys.empty() && decoded.load() == keys.size() ? 0 : 1;
}
