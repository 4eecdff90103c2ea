// [Trap] rewrite for GM301: a validation guard `if <tensor cond>: raise E(msg)` keeps running as
// written in eager mode; under torch.compile the test runs inside the graph (an ordered
// custom op) and raises the same exception class and message. Doc: rules/GM301.md.
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "graphmend/rewrite/site.h"

namespace graphmend::rewrite {

// The parts of a guard `if [not] <cond>: raise E(msg)` a rewrite needs.
struct GuardPlan {
  std::string exception;                      // the builtin exception class
  std::string raise_body;                     // `raise E(...)` for the site helper, holes named
  std::string params;                         // the site helper's parameters
  std::string hole_args;                      // ", <hole sources>" for the call
  std::vector<ir::Node> holes;                // message values carried from the call point
  std::optional<std::string> literal_message; // the message, when it is one literal
  // The exception's arguments when each is a literal (none for `raise E` and `raise E()`): the
  // check then names the class itself, `_graphmend.check(E, <cond>, <negate>, <arguments>)`,
  // and needs no site helper.
  std::optional<std::string> literal_args;
  ir::Node condition;                         // without a leading `not`
  std::string condition_text;                 // as passed to the check (torch.equal lowered)
  bool negate = false;                        // `if not <cond>:`
  bool uses_equal = false;
};

// A guard's exception and condition, or why it cannot run in the graph.
std::variant<GuardPlan, Declined> plan_guard(const analysis::FileContext& ctx, ir::Node if_statement);

// The rewrite of one guard, or why it is declined. ctx.options.trap_async selects the
// torch._assert_async tier.
std::variant<source::Fix, Declined> plan_trap(const analysis::FileContext& ctx, ir::Node if_statement, SiteNamer& names);

// [Trap] of `assert t.item()` or `assert t.item() <op> n` (GM401's second fixed form): under
// torch.compile the comparison is made on the tensor, exactly as Python makes it on the number
// (`_graphmend.item_compare`, which takes `.item()` itself where it cannot be exact), and tested
// in the graph; a failing input raises the assert's AssertionError. Doc: rules/GM401.md.
std::variant<source::Fix, Declined> plan_item_assert(const analysis::FileContext& ctx, ir::Node item_call,
                                                     SiteNamer& names);

// The `assert` statement whose whole condition, or a comparison in it, is `item_call`; or null.
ir::Node assert_testing_item(ir::Node item_call);

}  // namespace graphmend::rewrite
