// libFuzzer target over the whole pipeline: parse -> IR -> rules -> fix (unsafe fixes included) ->
// re-parse, as `graphmend fix` runs on one module (of a package, or a loose script: see
// as_package_module). Invariants, checked on every input:
//   - no crash, no sanitizer report, no hang (libFuzzer's -timeout);
//   - when the input parses and CPython would accept it (no GM901), the output parses too;
//   - a second fix of the output changes nothing (idempotence);
//   - a file that is not processed (binary, not UTF-8, ...) or has a syntax error is not changed;
//   - Parser::parse_edited gives the whole parse's tree, node for node, for an edit the input
//     picks (where, how much it replaces, and with which of its own bytes);
//   - a module's summary comes back from its bytes as it was taken (analysis::encode, decode), and
//     the input's own bytes, read as a stored summary, give nothing or a consistent summary;
//   - the call evidence's records come back from their bytes (a gathering with them types
//     nothing and finds the same), and the input's own bytes, read as records naming the module,
//     never make a gathering crash or name a parameter the module lacks.
// Built by tests/fuzz/CMakeLists.txt with clang (-DGRAPHMEND_FUZZ=ON); run by scripts/fuzz.sh.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include <sys/stat.h>
#include <unistd.h>

#include "graphmend/analysis/call_evidence.h"
#include "graphmend/analysis/compile_regions.h"
#include "graphmend/analysis/summary_codec.h"
#include "graphmend/driver/run.h"
#include "graphmend/ir/module.h"
#include "graphmend/rules/registry.h"
#include "graphmend/syntax/tree.h"

namespace {

// A module of a package on disk (an empty `__init__.py` beside it), made once per process: fixed
// there, a file binds the runtime with one line instead of carrying it inline.
const std::string& package_module() {
  static const std::string path = [] {
    char dir[] = "/tmp/graphmend-fuzz-XXXXXX";
    if (::mkdtemp(dir) == nullptr) {
      std::perror("mkdtemp");
      std::abort();
    }
    const std::string root = std::string(dir) + "/pkg";
    ::mkdir(root.c_str(), 0700);
    if (std::FILE* init = std::fopen((root + "/__init__.py").c_str(), "w")) std::fclose(init);
    return root + "/fuzzed.py";
  }();
  return path;
}

// Inputs of even length run as a module of a package (the block binds the runtime file in one
// line), the others as a loose script (the runtime inline), so both emission forms are fuzzed; a
// finding replays the same way.
bool as_package_module(const std::string& input) { return input.size() % 2 == 0; }

graphmend::driver::FileReport fix_text(const std::string& text, bool in_package) {
  graphmend::driver::Options options;
  options.fix = true;
  options.diff = true;  // in memory: nothing is written
  options.unsafe_fixes = true;
  options.jobs = 1;
  options.stdin_text = text;
  options.discovery.stdin_filename = in_package ? package_module() : "fuzzed.py";
  options.discovery.project_context = false;
  options.discovery.respect_gitignore = false;
  graphmend::driver::RunReport report = graphmend::driver::run({"-"}, options);
  if (report.files.size() != 1) {
    std::fprintf(stderr, "invariant: one input gave %zu file reports\n", report.files.size());
    std::abort();
  }
  return std::move(report.files.front());
}

bool parses(const std::string& text) {
  graphmend::syntax::Parser parser;
  auto tree = parser.parse(text);
  return tree && !tree->has_error();
}

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "invariant violated: %s\n", what);
  std::abort();
}

// The input's first four bytes pick an edit of it: where it starts, how many bytes it replaces,
// and how many bytes of the input (from its middle) go in their place. One input in four is
// checked (the top bits of its third byte): three parses each would triple the run's time under
// ASan, and coverage still steers the fuzzer into parse_edited's paths.
void check_parse_edited(const std::string& input) {
  if (input.size() < 4) return;
  const auto* b = reinterpret_cast<const unsigned char*>(input.data());
  if ((b[2] >> 6) != 0) return;
  const size_t at = (b[0] | (size_t{b[1]} << 8)) % (input.size() + 1);
  const size_t length = std::min<size_t>(b[2] % 24, input.size() - at);
  const size_t take = std::min<size_t>(b[3] % 40, input.size() / 2);
  const graphmend::source::Edit edit{{static_cast<uint32_t>(at), static_cast<uint32_t>(at + length)},
                                     input.substr(input.size() / 2, take)};
  graphmend::syntax::Parser parser;
  const auto old = parser.parse(input);
  if (!old || old->has_error()) return;  // parse_edited parses such a text whole: nothing to compare
  std::string text = input;
  text.replace(at, length, edit.replacement);
  const auto edited = parser.parse_edited(text, old->root(), input, {&edit, 1});
  if (parser.last_parsed_bytes() >= text.size()) return;  // it parsed the whole text: nothing to compare
  const auto whole = parser.parse(text);
  if (!edited || !whole) {
    if (edited.has_value() != whole.has_value()) violated("parse_edited gave up where a whole parse did not");
    return;
  }
  const auto& x = edited->root().tree_data()->nodes;
  const auto& y = whole->root().tree_data()->nodes;
  if (x.size() != y.size()) violated("parse_edited's tree has another node count than the whole parse's");
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::memcmp(&x[i], &y[i], sizeof x[i]) != 0) violated("parse_edited's tree differs from the whole parse's");
  }
}

// The module's call evidence gathered with a memo, its records encoded and read back (each module
// of the one-module project named by one key), and the input read as records.
void check_evidence_records(const graphmend::ir::Module& module, const std::string& input) {
  namespace analysis = graphmend::analysis;
  analysis::Project project;
  project.add(&module);
  const analysis::CompileRegions regions(project);
  // The memo keeps its modules alive; this one outlives the memos, so none is owned.
  const std::shared_ptr<const graphmend::ir::Module> unowned(&module, [](const graphmend::ir::Module*) {});
  analysis::EvidenceMemo first;
  const analysis::ParameterEvidence evidence = first.gather(project, regions, 1, {unowned});
  const auto key_of = [](const graphmend::ir::Module&) { return std::string_view("the module"); };
  const auto module_of = [&](std::string_view key) { return key == "the module" ? &module : nullptr; };
  analysis::EvidenceMemo second;
  second.decode(first.encode(key_of), module_of);
  if (second.gather(project, regions, 1, {unowned}) != evidence || second.last_counts().typed != 0) {
    violated("the call evidence's records do not come back from their bytes");
  }
  analysis::EvidenceMemo from_input;
  from_input.decode(input, [&](std::string_view) { return &module; });
  for (const auto& [key, type] : from_input.gather(project, regions, 1, {unowned})) {
    const bool inside = key.module == &module && key.function >= 0 &&
                        static_cast<size_t>(key.function) < module.functions.size() && key.parameter >= 0 &&
                        static_cast<size_t>(key.parameter) < module.functions[static_cast<size_t>(key.function)].params.size();
    if (!inside) violated("records read from the input name a parameter the module lacks");
  }
}

// One input in four (the top bits of its last byte, independent of check_parse_edited's pick):
// a parse and a walk more would slow every run under ASan.
void check_summary_round_trip(const std::string& input) {
  if (const auto stored = graphmend::analysis::decode(input); stored && !graphmend::analysis::is_consistent(*stored)) {
    violated("bytes decoded to an inconsistent summary");
  }
  if (input.empty() || (static_cast<unsigned char>(input.back()) >> 6) != 0) return;
  graphmend::syntax::Parser parser;
  auto tree = parser.parse(input);
  if (!tree || tree->has_error()) return;
  // What the driver refuses to build an IR of (the nesting its walks' stack allows).
  const uint32_t limit = graphmend::rules::kMaxNesting;
  if (graphmend::syntax::nesting_depth(tree->root(), limit) > limit) return;
  graphmend::source::SourceFile file;
  file.path = "pkg/fuzzed.py";
  file.text = input;
  const graphmend::ir::Module module(file, std::move(*tree), "pkg.fuzzed");
  const graphmend::analysis::ModuleSummary summary = graphmend::analysis::summarize(module);
  if (!graphmend::analysis::is_consistent(summary)) violated("a module's summary is inconsistent");
  if (!graphmend::analysis::fits(summary, module)) violated("a module's summary does not fit it");
  if (graphmend::analysis::decode(graphmend::analysis::encode(summary)) != summary) {
    violated("a module's summary does not come back from its bytes");
  }
  check_evidence_records(module, input);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  check_parse_edited(input);
  check_summary_round_trip(input);
  const bool in_package = as_package_module(input);
  const graphmend::driver::FileReport first = fix_text(input, in_package);
  if (first.error || first.syntax_error) {
    if (first.changed()) violated("a skipped file or one with a syntax error was changed");
    return 0;
  }
  if (!first.changed()) return 0;
  // The fixed text is what would be written (line endings and BOM as the input's).
  if (parses(first.original->text) && !parses(first.text())) violated("the fixed text does not parse");
  const graphmend::driver::FileReport second = fix_text(first.text(), in_package);
  if (second.error || second.syntax_error) violated("the fixed text is rejected on a second run");
  if (second.text() != first.text()) violated("a second fix changed the text again");
  return 0;
}
