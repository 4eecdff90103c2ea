#include "graphmend/rewrite/compile_gates.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "graphmend/fix/apply.h"
#include "graphmend/rewrite/python_layout.h"
#include "test_support.h"

namespace graphmend::rewrite {
namespace {

using testing::find_node;
using testing::parse_module;

using Gate = std::function<std::optional<Declined>(const ir::Module&, source::Fix&)>;

// The module's text after `gate` adds its edits, or the code of the reason it declined.
struct Gated {
  std::string text;
  std::optional<DeclineCode> declined;
};
Gated gated(const ir::Module& m, const Gate& gate) {
  source::Fix fix;
  if (std::optional<Declined> declined = gate(m, fix)) return {std::string(m.text()), declined->reason.code};
  return {fix::apply_fixes(m.text(), {&fix}).text, std::nullopt};
}

TEST(LayoutOf, ReadsTheStatementsIndentationStepAndLineBreak) {
  auto p = parse_module("def f():\n\tx = 1\n\ty = 2; z = 3\n");
  const StatementLayout x = layout_of(*p.module, find_node(*p.module, "expression_statement", "x = 1"));
  EXPECT_EQ(x.indent, "\t");
  EXPECT_EQ(x.unit, "\t");
  EXPECT_EQ(x.inner, "\t\t");
  EXPECT_EQ(x.newline, "\n");
  EXPECT_TRUE(x.starts_line);
  EXPECT_FALSE(layout_of(*p.module, find_node(*p.module, "expression_statement", "z = 3")).starts_line);
}

TEST(WrapForCompile, MovesTheStatementIntoTheEagerBranchAndTheCompiledCodeIntoElse) {
  auto p = parse_module(
      "def f(x):\n"
      "    print(x)\n"
      "    return x\n");
  const ir::Node print = find_node(*p.module, "expression_statement", "print(x)");
  const Gated out = gated(*p.module, [&](const ir::Module& m, source::Fix& fix) {
    return wrap_for_compile(m, print, "_graphmend_print(x)", fix);
  });
  EXPECT_EQ(out.text,
            "def f(x):\n"
            "    if not _graphmend.compiling():\n"
            "        print(x)\n"
            "    else:\n"
            "        _graphmend_print(x)\n"
            "    return x\n");
}

TEST(WrapForCompile, AStatementsLaterLinesMoveInButAMultiLineStringsLinesStay) {
  auto p = parse_module(
      "def f(x):\n"
      "    print(\n"
      "        x,\n"
      "        \"\"\"a\n"
      "b\"\"\",\n"
      "    )\n");
  const ir::Node print = find_node(*p.module, "expression_statement");
  const Gated out =
      gated(*p.module, [&](const ir::Module& m, source::Fix& fix) { return wrap_for_compile(m, print, "pass", fix); });
  EXPECT_EQ(out.text,
            "def f(x):\n"
            "    if not _graphmend.compiling():\n"
            "        print(\n"
            "            x,\n"
            "            \"\"\"a\n"
            "b\"\"\",\n"
            "        )\n"
            "    else:\n"
            "        pass\n");
}

TEST(WrapForCompile, AGuardTooLongForItsLineSplitsAtItsOr) {
  auto p = parse_module(
      "def f(x):\n"
      "    print(x)\n");
  const ir::Node print = find_node(*p.module, "expression_statement");
  const GeneratedLineLength narrow(40);
  const Gated out = gated(*p.module, [&](const ir::Module& m, source::Fix& fix) {
    return wrap_for_compile(m, print, "pass", fix, "not _graphmend.compiling() or x.dim() != 2");
  });
  EXPECT_EQ(out.text,
            "def f(x):\n"
            "    if (\n"
            "        not _graphmend.compiling()\n"
            "        or x.dim() != 2\n"
            "    ):\n"
            "        print(x)\n"
            "    else:\n"
            "        pass\n");
}

TEST(WrapForCompile, DeclinesAStatementThatSharesItsLine) {
  auto p = parse_module(
      "def f(x):\n"
      "    y = 1; print(x)\n");
  const ir::Node print = find_node(*p.module, "expression_statement", "print(x)");
  const Gated out =
      gated(*p.module, [&](const ir::Module& m, source::Fix& fix) { return wrap_for_compile(m, print, "pass", fix); });
  EXPECT_EQ(out.declined, DeclineCode::SharesLine);
}

TEST(RuntimeUnavailable, WhenTheModuleBindsTheRuntimesName) {
  auto p = parse_module(
      "_graphmend = 1\n"
      "def f(x):\n"
      "    print(x)\n");
  ASSERT_TRUE(runtime_unavailable(*p.module).has_value());
  EXPECT_EQ(runtime_unavailable(*p.module)->reason.code, DeclineCode::RuntimeNameTaken);
  const ir::Node print = find_node(*p.module, "expression_statement", "print(x)");
  const Gated out =
      gated(*p.module, [&](const ir::Module& m, source::Fix& fix) { return wrap_for_compile(m, print, "pass", fix); });
  EXPECT_EQ(out.declined, DeclineCode::RuntimeNameTaken);
  EXPECT_FALSE(runtime_unavailable(*parse_module("def f(x):\n    print(x)\n").module).has_value());
}

TEST(CompileBeforeStatement, PutsTheCompiledCodeFirstUnderAGuardThatReadsAsItIs) {
  auto p = parse_module(
      "def f(x):\n"
      "    check(x)\n");
  const ir::Node check = find_node(*p.module, "expression_statement");
  const Gated out = gated(*p.module, [&](const ir::Module& m, source::Fix& fix) {
    return compile_before_statement(m, check, "_graphmend.compiling()", "_graphmend_check(x)", fix);
  });
  EXPECT_EQ(out.text,
            "def f(x):\n"
            "    if _graphmend.compiling():\n"
            "        _graphmend_check(x)\n"
            "    else:\n"
            "        check(x)\n");
}

TEST(CompileBeforeLoop, BindsTheIterableBeforeTheLoopAndNoIterationsUnderCompile) {
  auto p = parse_module(
      "def f(xs):\n"
      "    for x in xs:\n"
      "        use(x)\n");
  const ir::Node loop = find_node(*p.module, "for_statement");
  const Gated out = gated(*p.module, [&](const ir::Module& m, source::Fix& fix) {
    return compile_before_loop(m, loop, loop, "batched(xs)", fix, "not _graphmend.compiling()");
  });
  EXPECT_EQ(out.text,
            "def f(xs):\n"
            "    if not _graphmend.compiling():\n"
            "        _graphmend_iterated = xs\n"
            "    else:\n"
            "        batched(xs)\n"
            "        _graphmend_iterated = ()\n"
            "    for x in _graphmend_iterated:\n"
            "        use(x)\n");
}

TEST(CompileBeforeLoop, MovesTheStatementThatBindsTheIterableIntoTheEagerBranch) {
  auto p = parse_module(
      "def f(m):\n"
      "    rows = m.rows()\n"
      "    for r in rows:\n"
      "        use(r)\n");
  const ir::Node rows = find_node(*p.module, "expression_statement", "rows = m.rows()");
  const ir::Node loop = find_node(*p.module, "for_statement");
  const Gated out = gated(*p.module, [&](const ir::Module& m, source::Fix& fix) {
    return compile_before_loop(m, rows, loop, "batched(m)", fix, "not _graphmend.compiling()");
  });
  EXPECT_EQ(out.text,
            "def f(m):\n"
            "    if not _graphmend.compiling():\n"
            "        rows = m.rows()\n"
            "    else:\n"
            "        batched(m)\n"
            "        rows = ()\n"
            "    for r in rows:\n"
            "        use(r)\n");
}

TEST(CompileBeforeIf, TheOriginalIfBecomesTheElifOfTheCompiledCode) {
  auto p = parse_module(
      "def f(x):\n"
      "    if x.sum() > 0:\n"
      "        raise ValueError(\"bad\")\n");
  const ir::Node guard = find_node(*p.module, "if_statement");
  const Gated out = gated(*p.module, [&](const ir::Module& m, source::Fix& fix) {
    return compile_before_if(m, guard, "_graphmend.compiling()", "_graphmend_check(x)", fix);
  });
  EXPECT_EQ(out.text,
            "def f(x):\n"
            "    if _graphmend.compiling():\n"
            "        _graphmend_check(x)\n"
            "    elif x.sum() > 0:\n"
            "        raise ValueError(\"bad\")\n");
}

TEST(SelectBeforeIf, TheOriginalIfRunsOnlyWhenTheCompiledCodeDidNotDoItsWork) {
  auto p = parse_module(
      "def f(x, y):\n"
      "    if x.any():\n"
      "        y = x\n"
      "    return y\n");
  const ir::Node branch = find_node(*p.module, "if_statement");
  const Gated out = gated(*p.module, [&](const ir::Module& m, source::Fix& fix) {
    return select_before_if(m, branch, "y = sel(x, y)\n_graphmend_done = True", fix, "_graphmend.compiling()");
  });
  EXPECT_EQ(out.text,
            "def f(x, y):\n"
            "    _graphmend_done = False\n"
            "    if _graphmend.compiling():\n"
            "        y = sel(x, y)\n"
            "        _graphmend_done = True\n"
            "    if _graphmend_done:\n"
            "        pass\n"
            "    elif x.any():\n"
            "        y = x\n"
            "    return y\n");
}

TEST(CallThroughRuntime, TheCalleeIsWrappedWhereItStands) {
  auto p = parse_module(
      "def f(x):\n"
      "    print(x)\n"
      "    logger.warning_once(x)\n");
  const Gated out = gated(*p.module, [&](const ir::Module& m, source::Fix& fix) {
    call_through_runtime(m, find_node(m, "identifier", "print"), fix);
    call_through_runtime(m, find_node(m, "attribute", "logger.warning_once"), fix);
    return std::nullopt;
  });
  EXPECT_EQ(out.text,
            "def f(x):\n"
            "    _graphmend.call(print)(x)\n"
            "    _graphmend.call(logger).warning_once(x)\n");
}

TEST(CallThroughRuntime, ACallPassingTheLineLengthPutsItsArgumentsOnALineOfTheirOwn) {
  auto p = parse_module(
      "def f(x):\n"
      "    logger.warning_once(aaaa, bbbb)\n");
  const GeneratedLineLength narrow(30);
  const Gated out = gated(*p.module, [&](const ir::Module& m, source::Fix& fix) {
    call_through_runtime(m, find_node(m, "attribute", "logger.warning_once"), fix);
    return std::nullopt;
  });
  EXPECT_EQ(out.text,
            "def f(x):\n"
            "    _graphmend.call(logger).warning_once(\n"
            "        aaaa, bbbb\n"
            "    )\n");
}

}  // namespace
}  // namespace graphmend::rewrite
