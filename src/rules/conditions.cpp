#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

void attach_plan(Diagnostic& d, std::variant<source::Fix, rewrite::Declined> plan) {
  if (auto* fix = std::get_if<source::Fix>(&plan)) {
    d.fix = std::make_shared<const source::Fix>(std::move(*fix));
  } else {
    d.decline_reason = std::move(std::get<rewrite::Declined>(plan).reason);
  }
}

Diagnostic make_diagnostic(const RuleInfo& info, ir::Node site, std::string message, std::string help) {
  Diagnostic d;
  d.code = info.code;
  d.range = site.range();
  d.message = std::move(message);
  d.graph_break_id = info.graph_break_id;
  d.help = std::move(help);
  return d;
}

}  // namespace graphmend::rules
