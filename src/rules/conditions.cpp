#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

SharedPlan share(std::variant<source::Fix, rewrite::Declined> plan) {
  if (auto* fix = std::get_if<source::Fix>(&plan)) return std::make_shared<const source::Fix>(std::move(*fix));
  return std::get<rewrite::Declined>(std::move(plan));
}

void attach_plan(Diagnostic& d, const SharedPlan& plan) {
  if (const auto* fix = std::get_if<std::shared_ptr<const source::Fix>>(&plan)) {
    d.fix = *fix;
  } else {
    d.decline_reason = std::get<rewrite::Declined>(plan).reason;
  }
}

void attach_plan(Diagnostic& d, std::variant<source::Fix, rewrite::Declined> plan) {
  attach_plan(d, share(std::move(plan)));
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
