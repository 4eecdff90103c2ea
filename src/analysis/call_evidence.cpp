#include "graphmend/analysis/call_evidence.h"

namespace graphmend::analysis {
namespace {

constexpr int kMaxRounds = 4;  // call chains deeper than this add no evidence past it

}  // namespace

bool for_each_argument(const ir::Module& caller, ir::Node call, FunctionRef callee, bool receiver_bound,
                       const std::function<void(int, ir::Node)>& visit) {
  const auto& params = callee.module->functions[static_cast<size_t>(callee.function)].params;
  ir::Node args = call.field("arguments");
  if (!args || !args.is(kind::argument_list)) return false;
  size_t next = receiver_bound ? 1 : 0;
  bool positional_open = true, complete = true;
  for (ir::Node a : args.named_children()) {
    if (a.is(kind::comment)) continue;
    if (a.is(kind::list_splat) || a.is(kind::dictionary_splat)) {
      positional_open = complete = false;
      continue;
    }
    if (a.is(kind::keyword_argument)) {
      const auto name = caller.text(a.field("name"));
      for (size_t i = 0; i < params.size(); ++i) {
        if (params[i].name == name && params[i].kind != ir::Parameter::Kind::VarArgs &&
            params[i].kind != ir::Parameter::Kind::VarKeyword) {
          visit(static_cast<int>(i), a.field("value"));
        }
      }
      continue;
    }
    if (!positional_open) continue;
    if (next >= params.size() || params[next].kind != ir::Parameter::Kind::Regular) {
      positional_open = complete = false;
      continue;
    }
    visit(static_cast<int>(next++), a);
  }
  return complete;
}

ParameterEvidence gather_parameter_evidence(const Project& project, const CompileRegions& regions) {
  ParameterEvidence evidence;
  for (int round = 0; round < kMaxRounds; ++round) {
    TypeOracle types(project, &evidence);
    ParameterEvidence found = evidence;
    for (const CompiledCall& c : regions.calls()) {
      for_each_argument(*c.caller.module, c.call, c.callee, c.receiver_bound, [&](int parameter, ir::Node argument) {
        const ValueType t = types.type_of(*c.caller.module, argument);
        ValueType seen;
        if (t.tensor_like()) {
          seen = ValueType{ValueKind::LikelyTensor, false};
        } else if (t.kind == ValueKind::TensorTuple) {
          seen = t;
        } else {
          return;
        }
        const ParameterKey key{c.callee.module, c.callee.function, parameter};
        auto [it, inserted] = found.emplace(key, seen);
        if (!inserted && it->second.kind == ValueKind::TensorTuple && seen.kind == ValueKind::LikelyTensor) {
          it->second = seen;
        }
      });
    }
    if (found == evidence) break;
    evidence = std::move(found);
  }
  return evidence;
}

}  // namespace graphmend::analysis
