// Shared by the detection rules: the truth-test analyses they use, and building a diagnostic.
#pragma once

#include <memory>
#include <variant>

#include "graphmend/analysis/truth.h"
#include "graphmend/rewrite/site.h"
#include "graphmend/rules/rule.h"

namespace graphmend::rules {

using analysis::callee_name;
using analysis::classify_truth;
using analysis::compile_dead_ranges;
using analysis::inside_branch_condition;
using analysis::is_compiling_check;
using analysis::is_validation_guard;
using analysis::Truth;
using analysis::TruthKind;

// A plan whose fix several diagnostics may share (the arms of one if/elif chain).
using SharedPlan = std::variant<std::shared_ptr<const source::Fix>, rewrite::Declined>;
SharedPlan share(std::variant<source::Fix, rewrite::Declined> plan);

// Gives `d` the planned fix, or the reason it was declined.
void attach_plan(Diagnostic& d, const SharedPlan& plan);
void attach_plan(Diagnostic& d, std::variant<source::Fix, rewrite::Declined> plan);

Diagnostic make_diagnostic(const RuleInfo& info, ir::Node site, std::string message, std::string help = {});

// True if `expr` is bound only to the result of logging.getLogger / *.get_logger / *.getLogger,
// here or, through an import, in another analysed module.
bool is_logger(const RuleContext& ctx, const ir::Module& m, ir::Node expr);

}  // namespace graphmend::rules
