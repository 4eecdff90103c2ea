#include "graphmend/rules/registry.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <vector>

#include "graphmend/rules/buffer_reassignment.h"
#include "graphmend/rules/comprehension_frame.h"
#include "graphmend/rules/data_dependent_loop.h"
#include "graphmend/rules/data_dependent_operator.h"
#include "graphmend/rules/disabled_call.h"
#include "graphmend/rules/dynamic_shape.h"
#include "graphmend/rules/expert_dispatch.h"
#include "graphmend/rules/logger_call.h"
#include "graphmend/rules/none_while_compiling.h"
#include "graphmend/rules/print_call.h"
#include "graphmend/rules/requires_grad_assignment.h"
#include "graphmend/rules/resumed_method_call.h"
#include "graphmend/rules/scalar_conversion.h"
#include "graphmend/rules/tensor_branch.h"
#include "graphmend/rules/tensor_item.h"
#include "graphmend/rules/tensor_size_argument.h"
#include "graphmend/rules/tensor_slice_bound.h"
#include "graphmend/rules/tensor_tolist.h"
#include "graphmend/rules/tensor_truthiness.h"
#include "graphmend/rules/untraceable_call.h"
#include "graphmend/rules/validation_guard.h"
#include "graphmend/rules/warnings_warn.h"

namespace graphmend::rules {

const RuleInfo kSyntaxErrorInfo{"GM901", "syntax-error", "the file does not parse; it is reported and never modified",
                                std::nullopt, RuleFamily::Meta, FixAvailability::None};

const RuleInfo kTooDeepInfo{"GM902", "too-deeply-nested",
                            "the file nests deeper than graphmend analyses; it is reported and never modified",
                            std::nullopt, RuleFamily::Meta, FixAvailability::None};

const RuleInfo kRuntimeFileInfo{"GM904", "runtime-file-missing",
                                "a patched module imports graphmend's runtime file, which is missing or outdated",
                                std::nullopt, RuleFamily::Meta, FixAvailability::Sometimes};

const RuleInfo kUnusedNoqaInfo{"GM903", "unused-noqa",
                               "a suppression comment names a graphmend code that suppressed nothing",
                               std::nullopt, RuleFamily::Meta, FixAvailability::Sometimes};

std::span<const Rule* const> all_rules() {
  static const TensorBranchRule tensor_branch;
  static const TensorTruthinessRule tensor_truthiness;
  static const PrintCallRule print_call;
  static const LoggerCallRule logger_call;
  static const WarningsWarnRule warnings_warn;
  static const ValidationGuardRule validation_guard;
  static const TensorItemRule tensor_item;
  static const TensorTolistRule tensor_tolist;
  static const ScalarConversionRule scalar_conversion;
  static const DynamicShapeRule dynamic_shape;
  static const DataDependentLoopRule data_dependent_loop;
  static const DataDependentOperatorRule data_dependent_operator;
  static const ExpertDispatchRule expert_dispatch;
  static const DisabledCallRule disabled_call;
  static const UntraceableCallRule untraceable_call;
  static const RequiresGradAssignmentRule requires_grad_assignment;
  static const TensorSizeArgumentRule tensor_size_argument;
  static const TensorSliceBoundRule tensor_slice_bound;
  static const ComprehensionFrameRule comprehension_frame;
  static const NoneWhileCompilingRule none_while_compiling;
  static const ResumedMethodCallRule resumed_method_call;
  static const BufferReassignmentRule buffer_reassignment;
  static const std::array<const Rule*, 22> kRules = {
      &tensor_branch,  &tensor_truthiness, &print_call,       &logger_call,
      &warnings_warn,  &validation_guard,  &tensor_item,      &tensor_tolist,
      &scalar_conversion, &dynamic_shape,  &data_dependent_loop, &data_dependent_operator,
      &expert_dispatch, &disabled_call,    &untraceable_call, &requires_grad_assignment,
      &tensor_size_argument, &tensor_slice_bound, &comprehension_frame, &none_while_compiling,
      &resumed_method_call, &buffer_reassignment};
  return kRules;
}

namespace {

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

const Rule* find_rule(std::string_view code_or_name) {
  for (const Rule* r : all_rules()) {
    if (same_ignoring_case(r->info().code, code_or_name) || same_ignoring_case(r->info().name, code_or_name)) {
      return r;
    }
  }
  return nullptr;
}

std::span<const RuleInfo* const> all_rule_infos() {
  static const std::vector<const RuleInfo*> kInfos = [] {
    std::vector<const RuleInfo*> v;
    for (const Rule* r : all_rules()) v.push_back(&r->info());
    v.push_back(&kSyntaxErrorInfo);
    v.push_back(&kTooDeepInfo);
    v.push_back(&kUnusedNoqaInfo);
    v.push_back(&kRuntimeFileInfo);
    std::sort(v.begin(), v.end(), [](const RuleInfo* a, const RuleInfo* b) { return a->code < b->code; });
    return v;
  }();
  return kInfos;
}

const RuleInfo* info_of_code(std::string_view code) {
  const auto infos = all_rule_infos();
  const auto it = std::lower_bound(infos.begin(), infos.end(), code,
                                   [](const RuleInfo* info, std::string_view key) { return info->code < key; });
  return it != infos.end() && (*it)->code == code ? *it : nullptr;
}

const RuleInfo* find_info(std::string_view code_or_name) {
  for (const RuleInfo* info : all_rule_infos()) {
    if (same_ignoring_case(info->code, code_or_name) || same_ignoring_case(info->name, code_or_name)) return info;
  }
  return nullptr;
}

bool is_code_or_prefix(std::string_view code) {
  return !code.empty() && std::any_of(all_rule_infos().begin(), all_rule_infos().end(),
                                      [&](const RuleInfo* info) { return info->code.starts_with(code); });
}

bool is_opt_in(std::string_view code) { return code == kUnusedNoqaInfo.code; }

}  // namespace graphmend::rules
