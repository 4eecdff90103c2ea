// Compile gates: how a rewrite puts its compiled code in a statement's place under torch.compile
// while eager code runs exactly as written. The statement's own lines stay: moved one level into
// a branch of an inserted `if`/`else`, or left where they are behind an inserted `if` that turns
// their `if` into an `elif`; the gate's condition (`_graphmend.compiling()` and whatever the
// rewrite checks at trace time) chooses. Every form declines a statement that shares its lines
// with other code, and a module whose runtime name is taken or whose generated block is damaged.
// [Defer]'s lighter form, call_through_runtime, gates a call by rewriting only its callee.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graphmend/ir/module.h"
#include "graphmend/rewrite/decline.h"
#include "graphmend/source/edit.h"

namespace graphmend::rewrite {

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

// Declined when the module binds `_graphmend` itself (graphmend's generated code needs the name),
// or when its generated block's markers are damaged (source::GeneratedMarkers::damage).
std::optional<Declined> runtime_unavailable(const ir::Module& m);

// Makes `stmt` run only outside Dynamo and `compiled_code` run in its place under torch.compile:
//     if not _graphmend.compiling():
//         <stmt, its lines moved in one level>
//     else:
//         <compiled_code>
// Adds the edits to `fix`; declines a statement that shares its lines with other code.
// `guard` replaces `not _graphmend.compiling()` when the original must also run in other cases.
// `compiled_code` uses '\n' for a new line at the else-branch's indentation, kIndentStep for one
// more level and kRawNewline for a line break copied from the source (compiled_code.h).
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

// Makes the call whose callee is `function` (a module-level name, or an attribute of one:
// `print`, `logger.warning_once`) defer itself under torch.compile, the callee still written as code:
//     _graphmend.call(print)(<arguments, as they were>)
//     _graphmend.call(logger).warning_once(<arguments, as they were>)
// on the callee's line, or split as ruff would split it when that line would pass the line length.
// Eager, `_graphmend.call(x)` is x itself; the call still starts on its line, so log records and
// warnings keep their line.
void call_through_runtime(const ir::Module& m, ir::Node function, source::Fix& fix);

}  // namespace graphmend::rewrite
