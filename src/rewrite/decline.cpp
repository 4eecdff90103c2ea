#include "graphmend/rewrite/decline.h"

#include <fmt/args.h>
#include <fmt/format.h>

namespace graphmend::rewrite {

std::string render(const Decline& reason) {
  // A reason read back from elsewhere (the cache) may lack fields: they render empty, never throw.
  fmt::dynamic_format_arg_store<fmt::format_context> args;
  for (const std::string& field : reason.fields) args.push_back(field);
  for (size_t i = reason.fields.size(); i < field_count(reason.code); ++i) args.push_back(std::string());
  return fmt::vformat(kDeclineTable[static_cast<size_t>(reason.code)].sentence, args);
}

std::string_view code_name(DeclineCode code) { return kDeclineTable[static_cast<size_t>(code)].name; }

std::optional<DeclineCode> code_named(std::string_view name) {
  for (const DeclineEntry& entry : kDeclineTable) {
    if (entry.name == name) return entry.code;
  }
  return std::nullopt;
}

}  // namespace graphmend::rewrite
