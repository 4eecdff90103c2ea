// What [Defer] and [Trap] share: a statement keeps running as written in eager mode, while under
// torch.compile its effect (a call, a raise) runs from a generated "site helper" that an ordered
// custom op (chained through a sink tensor) calls back from inside the graph, with the values
// carried from the call point. This header builds the helpers: their names (SiteNamer), their copy
// of an expression (SiteRenderer), their text (site_helper), and the reasons a site gets none
// (cannot_run, tracing_may_fail). The code that calls them goes in through compile_gates.h.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "graphmend/analysis/context.h"
#include "graphmend/rewrite/decline.h"
#include "graphmend/source/edit.h"

namespace graphmend::rewrite {

using source::Fix;

// Names site helpers from their text, never reusing a name the module binds or an earlier site of
// this namer took, so that code copied between files (transformers' "Copied from") names the
// same helpers in each copy. Kinds: print, log, warn ([Defer]), raise ([Trap]).
class SiteNamer {
 public:
  explicit SiteNamer(const ir::Module& module) : module_(module) {}
  // A helper of one site only (a warning's: the warnings registry keys on the line it warns
  // from), `_graphmend_<kind>_<hash>_<n>`: the first free n for that text.
  std::string own(std::string_view kind, const std::string& signature);
  // The name of a helper shared by every site whose helper has this helper_signature: the
  // block's own helper with that text, one named earlier in this pass, or a new
  // `_graphmend_<kind>_<hash>`, named from the signature's text (with `_<n>` after it only
  // when another name in the module already took it).
  std::string shared(std::string_view kind, const std::string& signature);

 private:
  std::string fresh(const std::string& prefix);  // the first free `<prefix><n>`

  const ir::Module& module_;
  std::set<std::string> taken_;
  std::map<std::string, int> next_number_;  // per prefix: no smaller number is free
  std::map<std::string, std::string> by_signature_;  // this pass's and the block's shared helpers
  bool block_read_ = false;
};

// Renders expressions for a site helper: literals, f-string text and names the helper can
// evaluate itself stay verbatim; every other value becomes a parameter ("hole") whose value the
// graph carries from the call point.
class SiteRenderer {
 public:
  explicit SiteRenderer(const analysis::FileContext& ctx) : m_(ctx.module) {}

  // The helper's text for `value`, holes marked by placeholders; nullopt when it cannot be
  // carried (see declined()).
  std::optional<std::string> render(ir::Node value);

  // Makes plain string literals holes too (carried as constants), so that helpers depend only
  // on a call's shape and can be shared.
  void carry_string_literals() { carry_strings_ = true; }

  // A name the helper evaluates with the same result: a builtin warning or exception class, a
  // module-level class or import, sys.stdout / sys.stderr, a logging level.
  [[nodiscard]] bool is_stable_reference(ir::Node n) const;

  [[nodiscard]] const std::vector<ir::Node>& holes() const { return holes_; }
  [[nodiscard]] const std::optional<Decline>& declined() const { return declined_; }

  // Picks parameter names that no identifier in `source_text` uses.
  void choose_names(std::string_view source_text);
  // Replaces the placeholders in rendered text with parameter names.
  [[nodiscard]] std::string finish(std::string_view rendered) const;
  // The placeholder render() leaves for hole `i`.
  [[nodiscard]] static std::string hole_marker(size_t i);
  [[nodiscard]] std::string params() const;     // "a0, a1"
  [[nodiscard]] std::string hole_args() const;  // ", <hole 0's source>, <hole 1's source>"

 private:
  std::optional<std::string> decline(Decline reason);
  std::optional<std::string> hole(ir::Node value);
  std::optional<std::string> render_fstring(ir::Node value);
  [[nodiscard]] std::string param(size_t i) const;

  const ir::Module& m_;
  std::vector<ir::Node> holes_;
  std::optional<Decline> declined_;
  std::string prefix_ = "a";
  bool carry_strings_ = false;
};

// A string literal (or implicit concatenation) with no f-string replacement fields.
bool is_plain_string(ir::Node n);
bool is_literal(ir::Node n);
// A string literal of text (str), not bytes.
bool is_text_string(const ir::Module& m, ir::Node n);
// A literal the runtime carries into an op as it is: a str (no replacement fields), an int or
// float (signed), True, False or None. Not bytes, not a complex number.
bool is_carried_literal(const ir::Module& m, ir::Node n);

// Declined when `site` cannot run as written, so a fix would buy nothing and hide what it is:
// it sits under `if False:` or `while False:`, or it names a private `__name` inside a class,
// which Python mangles to `_Class__name`, when only the unmangled name is bound (at module level)
// and so evaluating it always raises NameError.
std::optional<Declined> cannot_run(const ir::Module& m, ir::Node site);

// Declined when the function holding `site`, or a compiled function that calls it (transitively),
// may make Dynamo fail while tracing (analysis::python_arithmetic_may_crash_tracing). The original
// breaks the graph at the site and runs it before Dynamo traces the rest; the fixed frame is traced
// whole first, so a failure there would lose the effect or the check. [Defer] and [Trap] sites ask
// this.
std::optional<Declined> tracing_may_fail(const analysis::FileContext& ctx, ir::Node site);

// A helper body's call, `callee(args)`, `lead` columns in (the body's indentation and anything
// before the callee): on one line when it fits and no argument spans lines; else one argument a
// line, each argument's continuation lines kept relative to its first (a multi-line string's lines
// are part of its value and stay), with a trailing comma when there are several.
std::string helper_call(const std::string& callee, const std::vector<std::string>& args, size_t lead);

// A site helper, a top-level function of the patched module: `def name(params): body`. The
// in-graph ops call it back by name (runtime/_graphmend_runtime.py).
source::Helper site_helper(const std::string& name, const std::string& params, const std::string& body);
// A helper's code with its name left out: equal for helpers that do the same thing.
std::string helper_signature(const source::Helper& helper);

}  // namespace graphmend::rewrite
