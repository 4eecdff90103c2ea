#include "graphmend/rewrite/unsafe.h"

#include <fmt/args.h>
#include <fmt/format.h>

namespace graphmend::rewrite {

std::string render(const Unsafe& reason) {
  // Reasons are built by unsafe<>(), which checks the field count when it compiles; a reason made
  // otherwise renders missing fields empty rather than throwing, as a decline does.
  fmt::dynamic_format_arg_store<fmt::format_context> args;
  for (const std::string& field : reason.fields) args.push_back(field);
  for (size_t i = reason.fields.size(); i < field_count(reason.code); ++i) args.push_back(std::string());
  return fmt::vformat(kUnsafeTable[static_cast<size_t>(reason.code)].sentence, args);
}

std::string_view code_name(UnsafeCode code) { return kUnsafeTable[static_cast<size_t>(code)].name; }

std::string mark_unsafe(source::Fix& fix, const Unsafe& reason) {
  fix.applicability = source::Applicability::Unsafe;
  fix.unsafe_code = std::string(code_name(reason.code));
  return render(reason);
}

}  // namespace graphmend::rewrite
