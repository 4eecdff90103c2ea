// A rule: static metadata plus one entry point over a file's IR. Rules do no I/O and keep no
// global state; everything they need arrives in the RuleContext.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "graphmend/analysis/context.h"
#include "graphmend/rules/diagnostic.h"

namespace graphmend::rules {

enum class FixAvailability { None, Sometimes };

enum class RuleFamily { Where, Defer, Trap, Report, Meta };

struct RuleInfo {
  std::string_view code;            // GM101
  std::string_view name;            // kebab-case
  std::string_view summary;         // one line
  std::string_view graph_break_id;  // the PyTorch registry id it corresponds to
  RuleFamily family;
  FixAvailability fix;
};

using RuleOptions = analysis::FixOptions;
using RuleContext = analysis::FileContext;
using analysis::walk_body;

class DiagnosticSink {
 public:
  void report(Diagnostic d) { diagnostics_.push_back(std::move(d)); }
  [[nodiscard]] std::vector<Diagnostic>& diagnostics() { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

class Rule {
 public:
  virtual ~Rule() = default;
  [[nodiscard]] virtual const RuleInfo& info() const = 0;
  virtual void check(const RuleContext& ctx, DiagnosticSink& sink) const = 0;
};

}  // namespace graphmend::rules
