// graphmend command line: check / fix / rule / version.
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <unistd.h>
#include <optional>
#include <thread>

#include "graphmend/driver/run.h"
#include "graphmend/report/report.h"
#include "graphmend/rules/registry.h"
#include "graphmend/rules/rule_docs.h"
#include "graphmend/source/source_file.h"
#include "graphmend/syntax/tree.h"

namespace {

using graphmend::driver::Options;

struct CommonArgs {
  std::vector<std::string> paths;
  std::string format = "text";
  std::vector<std::string> select;
  std::vector<std::string> ignore;
  bool exit_zero = false;
  bool no_summary = false;
  bool unsafe_fixes = false;
  bool diff = false;
  bool trap_async = false;
  unsigned jobs = 0;
  uint64_t max_file_size = 16ull * 1024 * 1024;
  std::string color = "auto";
};

// --color: `always` and `never` as said; `auto` colours a terminal unless NO_COLOR is set.
bool use_color(const std::string& mode) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  return ::isatty(STDOUT_FILENO) && (no_color == nullptr || *no_color == '\0');
}

// A progress line on stderr while a run that has taken over a second goes on, on a terminal only.
class Progress {
 public:
  Progress() : start_(std::chrono::steady_clock::now()), enabled_(::isatty(STDERR_FILENO) != 0) {}
  ~Progress() { finish(); }
  // Clears the line; nothing is shown after.
  void finish() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shown_) std::cerr << "\r\x1b[K" << std::flush;
    shown_ = false;
    enabled_ = false;
  }
  void operator()(std::string_view stage, size_t done, size_t total) {
    if (!enabled_) return;
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    shown_ = true;
    std::cerr << fmt::format("\r\x1b[Kgraphmend: {} {}/{} files", stage, done, total) << std::flush;
  }

 private:
  std::chrono::steady_clock::time_point start_, last_{};
  bool enabled_;
  bool shown_ = false;
  std::mutex mutex_;
};

void add_common(CLI::App* cmd, CommonArgs& a) {
  cmd->add_option("paths", a.paths, "Files or directories to check (default: .)");
  cmd->add_option("--output-format", a.format, "text (default), concise or json")
      ->check(CLI::IsMember({"text", "concise", "json"}));
  cmd->add_option("--select", a.select, "Only these rule codes or prefixes (e.g. GM1,GM201)")->delimiter(',')->allow_extra_args(false);
  cmd->add_option("--ignore", a.ignore, "Skip these rule codes or prefixes")->delimiter(',')->allow_extra_args(false);
  cmd->add_flag("--exit-zero", a.exit_zero, "Exit 0 even when findings remain (2 is still reported)");
  cmd->add_flag("--no-summary", a.no_summary, "Do not print the summary line");
  cmd->add_flag("--unsafe-fixes", a.unsafe_fixes, "Also apply fixes marked unsafe");
  cmd->add_flag("--trap-async", a.trap_async,
                "[Trap] opt-in tier: lower guards to torch._assert_async (changes exception class and timing)");
  cmd->add_option("-j,--jobs", a.jobs, "Worker threads (default: number of cores)");
  cmd->add_option("--max-file-size", a.max_file_size, "Skip files larger than this many bytes");
  cmd->add_option("--color", a.color, "Colour the text output: auto (a terminal, unless NO_COLOR is set), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
}

int run_check(CommonArgs& a, bool fix) {
  Options o;
  o.fix = fix || a.diff;
  o.diff = a.diff;
  o.unsafe_fixes = a.unsafe_fixes;
  o.selection.select = a.select;
  o.selection.ignore = a.ignore;
  o.jobs = a.jobs;
  o.read.max_bytes = a.max_file_size;
  o.rule_options.trap_async = a.trap_async;
  if (a.paths.empty()) a.paths.push_back(".");
  for (const std::string& s : a.select) {
    if (!graphmend::rules::find_rule(s) && !s.starts_with("GM") && s != "ALL") {
      std::cerr << fmt::format("error: unknown rule selector '{}'\n", s);
      return 2;
    }
  }
  Progress progress;
  o.progress = [&progress](std::string_view stage, size_t done, size_t total) { progress(stage, done, total); };
  const graphmend::driver::RunReport report = graphmend::driver::run(a.paths, o);
  progress.finish();  // before the report
  graphmend::report::EmitOptions e;
  e.format = a.format == "json"      ? graphmend::report::Format::Json
             : a.format == "concise" ? graphmend::report::Format::Concise
                                     : graphmend::report::Format::Text;
  e.show_summary = !a.no_summary;
  e.color = use_color(a.color);
  e.diff = a.diff;
  graphmend::report::emit(report, e, std::cout, std::cerr);
  const int code = graphmend::driver::exit_code(report);
  if (a.exit_zero && code == 1) return 0;
  return code;
}

// A document's title line: "# GM101 tensor-branch [Where]" -> "GM101 tensor-branch [Where]".
std::string_view title_of(std::string_view markdown) {
  std::string_view first = markdown.substr(0, markdown.find('\n'));
  while (first.starts_with('#') || first.starts_with(' ')) first.remove_prefix(1);
  return first;
}

int run_rule(const std::string& code, bool all) {
  const auto docs = graphmend::rules::rule_docs();
  if (all) {
    std::cout << "# graphmend rules\n\n";
    for (const auto& d : docs) std::cout << "- " << title_of(d.markdown) << "\n";
    std::cout << "\n";
    for (const auto& d : docs) std::cout << d.markdown << "\n";
    return 0;
  }
  std::string upper = code;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const graphmend::rules::Rule* r = graphmend::rules::find_rule(code);
  for (const auto& d : docs) {
    if (d.code == upper || (r && r->info().code == d.code)) {
      std::cout << d.markdown;
      return 0;
    }
  }
  std::cerr << fmt::format("error: unknown rule '{}'; see `graphmend rule --all`\n", code);
  return 2;
}

// Debug aid: prints the syntax tree of a file (named nodes, byte ranges).
int run_dump(const std::string& path) {
  auto r = graphmend::source::read_source(path, path);
  if (auto* err = std::get_if<graphmend::source::ReadError>(&r)) {
    std::cerr << fmt::format("error: {}: {}\n", path, err->message);
    return 2;
  }
  const auto& file = std::get<graphmend::source::SourceFile>(r);
  graphmend::syntax::Parser parser;
  auto tree = parser.parse(file.text);
  if (!tree) return 2;
  struct Frame {
    graphmend::syntax::Node node;
    int depth;
  };
  std::vector<Frame> stack{{tree->root(), 0}};
  while (!stack.empty()) {
    Frame f = stack.back();
    stack.pop_back();
    const auto n = f.node;
    std::string_view snippet = n.text(file.text).substr(0, 40);
    std::string flat(snippet);
    for (char& c : flat) c = (c == '\n' || c == '\r') ? ' ' : c;
    std::cout << fmt::format("{}{} [{}, {}) {}\n", std::string(static_cast<size_t>(f.depth) * 2, ' '),
                             n.type(), n.start(), n.end(), n.named_child_count() ? "" : flat);
    for (uint32_t i = n.named_child_count(); i > 0; --i) stack.push_back({n.named_child(i - 1), f.depth + 1});
  }
  return 0;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// `graphmend chekc x.py`: the command is named in the error, with the nearest of `app`'s own.
std::optional<std::string> unknown_command(CLI::App& app, int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const std::string_view given = argv[1];
  if (given.empty() || given.starts_with('-')) return std::nullopt;
  std::string_view nearest;
  std::string listed;  // the commands --help shows
  size_t best = 3;     // suggest only close spellings
  for (const CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
    const std::string& name = command->get_name();
    if (name == given) return std::nullopt;
    if (const size_t d = edit_distance(given, name); d < best) {
      best = d;
      nearest = name;
    }
    if (!command->get_group().empty()) listed += (listed.empty() ? "" : ", ") + name;
  }
  std::string message = fmt::format("error: unknown command '{}'", given);
  if (!nearest.empty()) message += fmt::format("; did you mean '{}'?", nearest);
  return message + fmt::format(" (commands: {}; see `graphmend --help`)\n", listed);
}

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  CLI::App app{"graphmend: finds and fixes torch.compile graph breaks in Python source"};
  app.footer(
      "Exit codes: 0 nothing found, or everything fixed; 1 findings remain (or `fix --diff` has fixes to\n"
      "write); 2 an input could not be processed, or a usage error.\n"
      "Rule documents: `graphmend rule CODE`, `graphmend rule --all`.");
  app.require_subcommand(1);
  app.set_version_flag("--version", GRAPHMEND_VERSION);

  CommonArgs check_args;
  CLI::App* check = app.add_subcommand("check", "Report graph-break sites in compiled code");
  add_common(check, check_args);
  bool check_fix = false;
  check->add_flag("--fix", check_fix, "Apply fixes in place (atomic writes)");
  check->add_flag("--diff", check_args.diff, "Print the fixes as a unified diff; write nothing");

  CommonArgs fix_args;
  CLI::App* fix = app.add_subcommand("fix", "Apply fixes in place (same as `check --fix`)");
  add_common(fix, fix_args);
  fix->add_flag("--diff", fix_args.diff, "Print the fixes as a unified diff; write nothing");

  std::string rule_code;
  bool rule_all = false;
  CLI::App* rule = app.add_subcommand("rule", "Explain a rule (what, why, example, fix safety)");
  rule->add_option("code", rule_code, "Rule code or name, e.g. GM101");
  rule->add_flag("--all", rule_all, "Print every rule's document");

  CLI::App* version = app.add_subcommand("version", "Print the version");

  std::string dump_path;
  CLI::App* dump = app.add_subcommand("dump-tree", "Print a file's syntax tree (debugging aid)");
  dump->add_option("file", dump_path)->required();
  dump->group("");

  if (auto error = unknown_command(app, argc, argv)) {
    std::cerr << *error;
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    if (*check) return run_check(check_args, check_fix);
    if (*fix) return run_check(fix_args, true);
    if (*rule) {
      if (rule_code.empty() && !rule_all) {
        std::cerr << "error: give a rule code or --all\n";
        return 2;
      }
      return run_rule(rule_code, rule_all);
    }
    if (*version) {
      std::cout << "graphmend " << GRAPHMEND_VERSION << "\n";
      return 0;
    }
    if (*dump) return run_dump(dump_path);
  } catch (const std::exception& e) {
    std::cerr << fmt::format("error: internal error: {}\n", e.what());
    return 2;
  }
  return 2;
}
