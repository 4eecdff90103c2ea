// What [Defer] and [Trap] share: a statement keeps running as written in eager mode, while under
// torch.compile its effect (a call, a raise) runs from a generated "site helper" that an ordered
// custom op (chained through a sink tensor) calls back from inside the graph, with the values carried from the call
// point. This header builds the pieces: helper names, the helper's copy of an expression, the
// if/else wrapper, and the runtime helpers of the module's generated block.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "graphmend/analysis/context.h"
#include "graphmend/rewrite/decline.h"
#include "graphmend/source/edit.h"

namespace graphmend::rewrite {

// The line length generated statements wrap at (88, ruff's and black's default, unless set): the
// project's formatter setting for the file being rewritten (driver/style.h). The driver sets it
// for one file's rules on the thread that runs them, so that the many layout helpers below need
// no extra parameter; an object of this class sets it for its lifetime.
[[nodiscard]] size_t generated_line_length();
class GeneratedLineLength {
 public:
  explicit GeneratedLineLength(size_t length);
  ~GeneratedLineLength();
  GeneratedLineLength(const GeneratedLineLength&) = delete;
  GeneratedLineLength& operator=(const GeneratedLineLength&) = delete;

 private:
  size_t previous_;
};

using source::Fix;

struct Declined {
  Decline reason;
};

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
  explicit SiteRenderer(const analysis::FileContext& ctx) : ctx_(ctx), m_(ctx.module) {}

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

  const analysis::FileContext& ctx_;
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
// Declined when the module binds `_graphmend` itself (graphmend's generated code needs the name),
// or when its generated block's markers are damaged (source::GeneratedMarkers::damage).
std::optional<Declined> runtime_unavailable(const ir::Module& m);

// Declined when `site` cannot run as written, so a fix would buy nothing and hide what it is:
// it sits under `if False:` or `while False:`, or it names a private `__name` inside a class,
// which Python mangles to `_Class__name`, when only the unmangled name is bound (at module level)
// and so evaluating it always raises NameError.
std::optional<Declined> cannot_run(const ir::Module& m, ir::Node site);

// Declined when the function holding `site`, or a compiled function that calls it (transitively),
// may make Dynamo fail while tracing (analysis::python_arithmetic_may_crash_tracing). The original
// breaks the graph at the site and
// runs it before Dynamo traces the rest; the fixed frame is traced whole first, so a failure
// there would lose the effect or the check. [Defer] and [Trap] sites ask this.
std::optional<Declined> tracing_may_fail(const analysis::FileContext& ctx, ir::Node site);

// Makes the call whose callee is `function` (a module-level name, or an attribute of one:
// `print`, `logger.warning_once`) defer itself under torch.compile, the callee still written as code:
//     _graphmend.call(print)(<arguments, as they were>)
//     _graphmend.call(logger).warning_once(<arguments, as they were>)
// on the callee's line, or split as ruff would split it when that line would pass the line length.
// Eager, `_graphmend.call(x)` is x itself; the call still starts on its line, so log records and
// warnings keep their line.
void call_through_runtime(const ir::Module& m, ir::Node function, source::Fix& fix);

// Makes `stmt` run only outside Dynamo and `compiled_code` run in its place under torch.compile:
//     if not _graphmend.compiling():
//         <stmt, its lines moved in one level>
//     else:
//         <compiled_code>
// Adds the edits to `fix`; declines a statement that shares its lines with other code.
// `guard` replaces `not _graphmend.compiling()` when the original must also run in other cases.
// `compiled_code` uses '\n' for a new line at the else-branch's indentation, kIndentStep for one
// more level and kRawNewline for a line break copied from the source (see copied/reindented).
std::optional<Declined> wrap_for_compile(const ir::Module& m, ir::Node stmt, std::string_view compiled_code,
                                         source::Fix& fix, std::string_view guard = "not _graphmend.compiling()");
// The same for the statements `first` to `last` of one block (siblings, in order, comments
// between them included): they move into the eager branch together.
std::optional<Declined> wrap_for_compile(const ir::Module& m, ir::Node first, ir::Node last,
                                         std::string_view compiled_code, source::Fix& fix,
                                         std::string_view guard = "not _graphmend.compiling()");

// The same for a loop whose iterations `compiled_code` does under torch.compile: the loop's lines
// stay where they are, and what it runs over is decided before it. When it runs over a name that
// the statement just before it binds (`first`), that statement moves into the eager branch:
//     if <guard>:
//         <first, its lines moved in one level>
//     else:
//         <compiled_code>
//         <the name> = ()
//     for <target> in <the name>:
//         <the original body, untouched>
// When `first` is the loop itself, its iterable is bound before it to kIteratedName, which
// replaces it in the loop's header:
//     if <guard>:
//         _graphmend_iterated = <the iterable, as written>
//     else:
//         <compiled_code>
//         _graphmend_iterated = ()
//     for <target> in _graphmend_iterated:
// Either way the iterable is evaluated where the original evaluates it, and under torch.compile
// the loop runs no iteration. analysis::compile_dead_ranges knows the form.
std::optional<Declined> compile_before_loop(const ir::Module& m, ir::Node first, ir::Node loop,
                                            std::string_view compiled_code, source::Fix& fix, std::string_view guard);
inline constexpr std::string_view kIteratedName = "_graphmend_iterated";

// The same for an `if` statement (with its elif and else arms), whose lines stay where they are:
// the code that takes its place under torch.compile goes before it, and only its `if` keyword
// changes, to `elif`, so that it runs only when that code did not do its work:
//     _graphmend_done = False
//     if <compiled_condition>:
//         <compiled_code, which sets _graphmend_done: True when it did the statement's work>
//     if _graphmend_done:
//         pass
//     elif <the original condition>:
//         <the original arms, untouched>
// `compiled_condition` is an `and` chain that holds only under torch.compile.
std::optional<Declined> select_before_if(const ir::Module& m, ir::Node if_statement, std::string_view compiled_code,
                                         source::Fix& fix, std::string_view compiled_condition);
// For a statement `compiled_code` replaces under torch.compile when `compiled_guard` holds:
//     if <compiled_guard>:
//         <compiled_code>
//     else:
//         <stmt, its lines moved in one level>
// (a guard that reads as it is, where `not compiling() or ...` would read as a puzzle).
std::optional<Declined> compile_before_statement(const ir::Module& m, ir::Node stmt, std::string_view compiled_guard,
                                                 std::string_view compiled_code, source::Fix& fix);
// The flag select_before_if's compiled code sets.
inline constexpr std::string_view kDoneFlag = "_graphmend_done";
// For an `if` that `compiled_code` always replaces under torch.compile (a guard checked in the
// graph): `if <compiled_guard>:` <compiled_code> `elif <the original condition>:` <its arms>.
std::optional<Declined> compile_before_if(const ir::Module& m, ir::Node if_statement, std::string_view compiled_guard,
                                          std::string_view compiled_code, source::Fix& fix);

inline constexpr char kIndentStep = '\x03';
inline constexpr char kRawNewline = '\x04';

// A rewrite's compiled code (for wrap_for_compile and the others above), built a line at a time;
// `level` counts steps below the indentation of the branch that holds it.
struct CompiledCode {
  std::string text;
  int level = 0;
  void line(std::string_view code);
};

// Where generated code goes around a statement of a block: its indentation, the file's line
// break, one indentation step as the block spells it, and the indentation one step in.
struct StatementLayout {
  std::string_view indent;
  bool starts_line = false;  // nothing but indentation before the statement on its line
  std::string newline;
  std::string unit;
  std::string inner;
};
StatementLayout layout_of(const ir::Module& m, ir::Node stmt);
// The offset where `n`'s line starts.
uint32_t line_start(const ir::Module& m, ir::Node n);



// `node`'s source for generated code, every line break kept as it is (kRawNewline).
std::string copied(const ir::Module& m, ir::Node node);
// `text` with every line break ("\r\n", "\r", "\n") as kRawNewline.
std::string with_raw_newlines(std::string_view text);
// `node`'s source for a block `levels` deeper than the compiled code's branch: each line after the
// first gets that branch's indentation plus `levels` steps on top of its own, except lines inside
// a multi-line string, which stay byte for byte.
std::string reindented(const ir::Module& m, ir::Node node, int levels);

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
