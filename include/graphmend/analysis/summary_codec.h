// A module's summary as bytes and back, so that it can be kept between runs (docs/incremental.md).
//
// The bytes are compact (integers as variable-length numbers, each string once in the summary's
// table) and read without trust: decode() checks every length against the bytes left, every enum
// against its values, and every index a fact holds against the table it points into, so damaged
// bytes give nullopt, never a summary that would send a reader out of range. Whoever stores them
// (driver/cache.h) adds a header with a checksum and the key.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "graphmend/analysis/summary.h"

namespace graphmend::analysis {

// The summary's facts as bytes, in field order. The layout changes whenever a field of
// ModuleSummary does; kSummaryFormat is bumped with it.
inline constexpr int kSummaryFormat = 1;
std::string encode(const ModuleSummary& summary);

// The summary that `bytes` encode, if they are exactly one summary that encode() could have
// written of a consistent summary (every index in range, every table sorted as its lookup needs);
// nullopt otherwise.
std::optional<ModuleSummary> decode(std::string_view bytes);

// True if every index in `summary` points into its table and each table that is looked up by
// name is sorted by name: what a reader of a summary takes for granted.
bool is_consistent(const ModuleSummary& summary);

}  // namespace graphmend::analysis
