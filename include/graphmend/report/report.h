// Emitting a run: human text with code frames, JSON (schema in docs/json-output.md), unified diffs.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

#include "graphmend/driver/run.h"

namespace graphmend::report {

enum class Format { Text, Concise, Json };

struct EmitOptions {
  Format format = Format::Text;
  bool show_summary = true;
  bool color = false;
  bool diff = false;  // print unified diffs of changed files
};

void emit(const driver::RunReport& run, const EmitOptions& options, std::ostream& out, std::ostream& err);

// Unified diff of two texts (empty when equal).
std::string unified_diff(std::string_view before, std::string_view after, std::string_view path);

// The summary line: files, findings by code, elapsed time.
std::string summary_line(const driver::RunReport& run);

}  // namespace graphmend::report
