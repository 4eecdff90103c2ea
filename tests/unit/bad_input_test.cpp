// Bad input never crashes the tool or damages a file: each case checks the message, the exit
// code, and that the file is byte-identical afterwards.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_support.h"

namespace graphmend::testing {
namespace {

const std::string kBin = GM_BINARY;

const std::string kBreaking =
    "import torch\n\n@torch.compile\ndef f(x):\n    y = x + 1\n    print('hi')\n    return y\n";

TEST(BadInput, SyntaxErrorIsReportedWithLineColumnAndNeverModified) {
  TempDir dir;
  const std::string bytes = "import torch\n\n@torch.compile\ndef f(x:\n    print(x)\n";
  auto p = dir.write("broken.py", bytes);
  for (const char* verb : {"check", "fix"}) {
    auto r = gm(std::string(verb) + " " + quoted(p));
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find("GM901"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("broken.py:"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("syntax error"), std::string::npos) << r.out;
    EXPECT_EQ(read_bytes(p), bytes);
  }
}

TEST(BadInput, BinaryFileIsSkippedWithAClearMessage) {
  TempDir dir;
  const std::string bytes("\x7f" "ELF\0\0\x01\x02torch", 13);
  auto p = dir.write("blob.py", bytes);
  auto r = gm("fix " + quoted(p));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("blob.py: file looks binary"), std::string::npos) << r.out;
  EXPECT_EQ(read_bytes(p), bytes);
}

TEST(BadInput, NonUtf8FileIsSkippedWithTheOffendingByte) {
  TempDir dir;
  const std::string bytes = "import torch\nname = 'caf\xe9'\n";
  auto p = dir.write("latin.py", bytes);
  auto r = gm("fix " + quoted(p));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("not valid UTF-8 (byte 0xe9 at offset 24)"), std::string::npos) << r.out;
  EXPECT_EQ(read_bytes(p), bytes);
}

TEST(BadInput, DeclaredNonUtf8EncodingIsRefused) {
  TempDir dir;
  const std::string bytes = "# -*- coding: latin-1 -*-\nimport torch\nname = 'caf\xe9'\n";
  auto p = dir.write("declared.py", bytes);
  auto r = gm("check " + quoted(p));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("declared encoding 'latin-1' is not supported"), std::string::npos) << r.out;
  EXPECT_EQ(read_bytes(p), bytes);
}

TEST(BadInput, CrlfBomAndTabsAreAnalysedAndKept) {
  TempDir dir;
  const std::string bytes =
      "\xEF\xBB\xBFimport torch\r\n\r\n@torch.compile\r\ndef f(x):\r\n\ty = x + 1\r\n\tprint('hi')\r\n\treturn y\r\n";
  auto p = dir.write("windows.py", bytes);
  auto r = gm("check --output-format concise " + quoted(p));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("windows.py:6:2: GM201"), std::string::npos) << r.out;
  // The fix keeps the BOM, CRLF line endings and tab indentation, and touches nothing else.
  auto f = gm("fix " + quoted(p));
  EXPECT_EQ(f.exit_code, 0) << f.out;
  const std::string fixed = read_bytes(p);
  EXPECT_TRUE(fixed.starts_with("\xEF\xBB\xBFimport torch\r\n")) << fixed;
  EXPECT_EQ(fixed.find('\n', 0), fixed.find("\r\n") + 1);
  for (size_t i = fixed.find('\n'); i != std::string::npos; i = fixed.find('\n', i + 1)) {
    EXPECT_EQ(fixed[i - 1], '\r') << "a bare LF at byte " << i;
  }
  EXPECT_TRUE(fixed.ends_with(
      "\r\n@torch.compile\r\ndef f(x):\r\n\ty = x + 1\r\n"
      "\t_graphmend.call(print)('hi')\r\n\treturn y\r\n"))
      << fixed;
}

TEST(BadInput, HugeFileIsSkipped) {
  TempDir dir;
  std::string bytes = kBreaking;
  while (bytes.size() < 4096) bytes += "# padding line to make the file large\n";
  auto p = dir.write("huge.py", bytes);
  auto r = gm("check --max-file-size 1024 " + quoted(p));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("huge.py: file is"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--max-file-size"), std::string::npos) << r.out;
  EXPECT_EQ(read_bytes(p), bytes);
}

TEST(BadInput, MissingPathIsAnError) {
  auto r = gm("check /nonexistent/graphmend/model.py");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("no such file or directory"), std::string::npos) << r.out;
}

TEST(BadInput, UnreadableFileIsAnErrorAndOtherFilesAreStillChecked) {
  TempDir dir;
  auto secret = dir.write("secret.py", kBreaking);
  auto open = dir.write("open.py", kBreaking);
  ::chmod(secret.c_str(), 0);
  ::chmod(dir.path.c_str(), 0755);
  // Root reads anything: run as an unprivileged user so permissions apply.
  const std::string prefix = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  auto r = run_command(prefix + kBin + " check --output-format concise " + quoted(secret) + " " + quoted(open));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("secret.py: permission denied"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("open.py:6:5: GM201"), std::string::npos) << r.out;
  ::chmod(secret.c_str(), 0644);
  EXPECT_EQ(read_bytes(secret), kBreaking);
}

TEST(BadInput, SymlinkLoopIsReportedNotFollowed) {
  TempDir dir;
  ::symlink((dir.path / "b.py").c_str(), (dir.path / "a.py").c_str());
  ::symlink((dir.path / "a.py").c_str(), (dir.path / "b.py").c_str());
  std::filesystem::create_directories(dir.path / "pkg");
  ::symlink(dir.path.c_str(), (dir.path / "pkg" / "up").c_str());  // a directory cycle
  dir.write("pkg/model.py", kBreaking);
  auto explicit_loop = gm("check " + quoted(dir.path / "a.py"));
  EXPECT_EQ(explicit_loop.exit_code, 2) << explicit_loop.out;
  EXPECT_NE(explicit_loop.out.find("symbolic link loop"), std::string::npos) << explicit_loop.out;
  auto walk = gm("check --output-format concise " + quoted(dir.path));
  EXPECT_EQ(walk.exit_code, 2) << walk.out;  // the looping links are reported...
  EXPECT_NE(walk.out.find("symbolic link loop"), std::string::npos) << walk.out;
  EXPECT_NE(walk.out.find("model.py:6:5: GM201"), std::string::npos) << walk.out;  // ...and the walk finishes
}

TEST(BadInput, WalkSkipsHiddenFoldersVirtualEnvironmentsAndCaches) {
  TempDir dir;
  dir.write("src/model.py", kBreaking);
  dir.write(".hidden/model.py", kBreaking);
  dir.write("__pycache__/model.py", kBreaking);
  dir.write("env/pyvenv.cfg", "home = /usr\n");
  dir.write("env/lib/model.py", kBreaking);
  auto r = gm("check --output-format concise " + quoted(dir.path));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("src/model.py:6:5: GM201"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(".hidden"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("__pycache__"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("env/lib"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Checked 1 file: 1 finding (GM201: 1)"), std::string::npos) << r.out;
}

TEST(BadInput, EmptyFileAndCleanFileExitZero) {
  TempDir dir;
  dir.write("empty.py", "");
  dir.write("clean.py", "import torch\n\n@torch.compile\ndef f(x):\n    return x * 2\n");
  auto r = gm("check " + quoted(dir.path));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("no graph-break sites found"), std::string::npos) << r.out;
}

TEST(BadInput, UsageErrorsExitTwo) {
  EXPECT_EQ(gm("check --no-such-flag .").exit_code, 2);
  EXPECT_EQ(gm("").exit_code, 2);
  EXPECT_EQ(gm("rule GM999").exit_code, 2);
}

TEST(Cli, ExitZeroFlagAndJsonSchema) {
  TempDir dir;
  auto p = dir.write("m.py", kBreaking);
  EXPECT_EQ(gm("check --exit-zero " + quoted(p)).exit_code, 0);
  auto r = run_command(kBin + " check --output-format json " + quoted(p) + " 2>/dev/null");
  EXPECT_EQ(r.exit_code, 1);
  for (const char* key : {"\"schema_version\": 1", "\"code\": \"GM201\"", "\"graph_break_id\": \"GB0059\"",
                          "\"location\"", "\"row\": 6", "\"function\": \"f\"", "\"summary\"", "\"by_code\""}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key << "\n" << r.out;
  }
}

TEST(Cli, RuleDocumentsAreEmbedded) {
  auto r = gm("rule GM101");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("GM101"), std::string::npos);
  EXPECT_NE(r.out.find("## What it does"), std::string::npos) << r.out;
  auto by_name = gm("rule print-in-graph");
  EXPECT_NE(by_name.out.find("GM201"), std::string::npos);
}

TEST(Cli, NoqaSuppressesOneCode) {
  TempDir dir;
  auto p = dir.write("m.py",
                     "import torch\n\n@torch.compile\ndef f(x):\n    y = x + 1\n"
                     "    print('a')  # noqa: GM201\n    print('b')  # noqa: GM101\n    return y\n");
  auto r = gm("check --output-format concise " + quoted(p));
  EXPECT_EQ(r.out.find("m.py:6:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("m.py:7:5: GM201"), std::string::npos) << r.out;
}

// `--select CODE PATH`: the option takes one value per occurrence (comma-separated codes), so
// the path after it is a path, not a second selector.
TEST(Cli, SelectTakesOneValueBeforeThePaths) {
  TempDir dir;
  auto p = dir.write("model.py",
                     "import torch\n\n@torch.compile\ndef f(x):\n    print(x)\n    if x.sum() > 0:\n"
                     "        raise ValueError('positive')\n    return x\n");
  auto one = gm("check --output-format concise --select GM301 " + quoted(p));
  EXPECT_EQ(one.exit_code, 1) << one.out;
  EXPECT_NE(one.out.find("GM301"), std::string::npos) << one.out;
  EXPECT_EQ(one.out.find("GM201"), std::string::npos) << one.out;
  auto both = gm("check --output-format concise --select GM301,GM201 " + quoted(p));
  EXPECT_NE(both.out.find("GM201"), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("GM301"), std::string::npos) << both.out;
  auto ignored = gm("check --output-format concise --ignore GM2 " + quoted(p));
  EXPECT_EQ(ignored.out.find("GM201"), std::string::npos) << ignored.out;
}

}  // namespace
}  // namespace graphmend::testing

namespace graphmend::testing {
namespace {

namespace fs = std::filesystem;

std::string compiled_condition(const std::string& condition) {
  return "import torch\n\n\n@torch.compile\ndef g(x):\n    if " + condition + ":\n        print('hi', x)\n    return x\n";
}

std::string repeated(const std::string& piece, const std::string& separator, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += (i ? separator : "") + piece;
  return out;
}

TEST(BadInput, DeepNestingIsReportedNotACrash) {
  // These used to overflow the stack (SIGSEGV) and end the whole run.
  TempDir dir;
  const std::string long_and = compiled_condition(repeated("(x > 0).any()", " and ", 50000));
  std::string nots;
  for (int i = 0; i < 40000; ++i) nots += "not ";
  const std::string deep_not = compiled_condition(nots + "(x > 0).any()");
  std::string lambdas = "f = ";
  for (int i = 0; i < 20000; ++i) lambdas += "lambda: ";
  const fs::path a = dir.write("long_and.py", long_and);
  const fs::path b = dir.write("deep_not.py", deep_not);
  const fs::path c = dir.write("lambdas.py", "import torch\n" + lambdas + "1\n");
  const fs::path ok = dir.write("ok.py", std::string(kBreaking));
  auto r = gm("fix --output-format concise " + quoted(dir.path));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  for (const char* name : {"long_and.py:1:1: GM902", "deep_not.py:1:1: GM902", "lambdas.py:1:1: GM902"}) {
    EXPECT_NE(r.out.find(name), std::string::npos) << name << "\n" << r.out.substr(0, 2000);
  }
  EXPECT_EQ(read_bytes(a), long_and);
  EXPECT_EQ(read_bytes(b), deep_not);
  EXPECT_NE(read_bytes(ok), kBreaking) << "the other files are still fixed";
}

TEST(BadInput, NestingBelowTheLimitIsAnalysed) {
  TempDir dir;
  const fs::path p = dir.write("chain.py", compiled_condition(repeated("(x > 0).any()", " and ", 1500)));
  auto r = gm("check --output-format concise " + quoted(p));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("chain.py:6:8: GM101"), std::string::npos) << r.out.substr(0, 2000);
  EXPECT_NE(r.out.find("chain.py:7:9: GM201"), std::string::npos) << r.out.substr(0, 2000);
}

}  // namespace
}  // namespace graphmend::testing

namespace graphmend::testing {
namespace {

// Line 6 prints (fixable), line 8 an `.item()` (report only), line 10 a branch that may keep a
// view of an argument (an unsafe fix: the selection would be a new tensor).
const std::string kMixed =
    "import torch\n\n\n@torch.compile\ndef f(x: torch.Tensor, h: torch.Tensor):\n    print('x', x)\n"
    "    y = x * 2\n    s = y.sum().item()\n    z = h.view(-1)\n    if (z > 0).any():\n        z = z * 2\n"
    "    return z, s\n";

TEST(CliContract, DiffWithPendingFixesExitsOneWritesNothingAndReportsDiskLines) {
  TempDir dir;
  const fs::path p = dir.write("mixed.py", kMixed);
  auto r = gm("fix --diff " + quoted(p));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(read_bytes(p), kMixed);
  // The summary counts what the fix would leave: the `.item()` and the branch's unsafe fix.
  EXPECT_NE(r.out.find("would apply 1 fix: 2 findings would be left (GM101: 1, GM401: 1)"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("applied"), std::string::npos) << r.out;
  // The remaining findings are where they are in the file on disk, not in the patched text.
  EXPECT_NE(r.out.find("mixed.py:8:9: GM401"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mixed.py:10:8: GM101"), std::string::npos) << r.out;
  // Nothing pending: exit 0 when nothing is found.
  const fs::path clean = dir.write("clean.py", "import torch\n\n\ndef g(x):\n    return x\n");
  EXPECT_EQ(gm("fix --diff " + quoted(clean)).exit_code, 0);
}

TEST(CliContract, AFileThatCannotBeWrittenCountsNoFix) {
  TempDir dir;
  const fs::path p = dir.write("mixed.py", kMixed);
  ::chmod(p.c_str(), 0444);
  auto r = gm("fix " + quoted(p));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("read-only"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("applied"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("mixed.py:6:5: GM201"), std::string::npos) << "the unfixed print, on its line on disk\n"
                                                                   << r.out;
  EXPECT_EQ(read_bytes(p), kMixed);
}

TEST(CliContract, SummaryCountsWhatFixWouldDoAndFindingsNameTheirRule) {
  TempDir dir;
  const fs::path p = dir.write("mixed.py", kMixed);
  auto r = gm("check " + quoted(p));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("1 fixable with `graphmend fix`, 1 more with `--unsafe-fixes`"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("= rule: `graphmend rule GM201`"), std::string::npos) << r.out;
}

TEST(CliContract, CommandsAndRulesAreFoundAsUsersTypeThem) {
  auto typo = gm("chekc x.py");
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.out.find("unknown command 'chekc'; did you mean 'check'?"), std::string::npos) << typo.out;
  for (const char* spelling : {"gm101", "GM101", "TENSOR-BRANCH"}) {
    auto r = gm(std::string("rule ") + spelling);
    EXPECT_EQ(r.exit_code, 0) << spelling << r.out;
    EXPECT_TRUE(r.out.starts_with("# GM101 tensor-branch")) << spelling << r.out.substr(0, 200);
  }
  auto all = gm("rule --all");
  EXPECT_TRUE(all.out.starts_with("# graphmend rules\n\n- GM101 tensor-branch")) << all.out.substr(0, 200);
  auto help = gm("--help");
  EXPECT_NE(help.out.find("Exit codes: 0"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace graphmend::testing

namespace graphmend::testing {
namespace {

TEST(CliContract, ColourOnlyOnATerminalOrWhenAsked) {
  TempDir dir;
  const fs::path p = dir.write("mixed.py", kMixed);
  EXPECT_EQ(gm("check " + quoted(p)).out.find('\x1b'), std::string::npos) << "a pipe gets no colour";
  EXPECT_EQ(gm("check --color never " + quoted(p)).out.find('\x1b'), std::string::npos);
  EXPECT_NE(gm("check --color always " + quoted(p)).out.find("\x1b[1;31mGM201\x1b[0m"), std::string::npos);
  // On a terminal (script(1) gives the run one): coloured, unless NO_COLOR is set.
  const std::string on_tty = "script -qec \"" + kBin + " check " + quoted(p) + "\" /dev/null";
  EXPECT_NE(run_command(on_tty).out.find('\x1b'), std::string::npos);
  EXPECT_EQ(run_command("NO_COLOR=1 " + on_tty).out.find("\x1b[1;31m"), std::string::npos);
  EXPECT_EQ(gm("check --color rainbow " + quoted(p)).exit_code, 2);
}

TEST(CliContract, NoProgressLineOffATerminal) {
  TempDir dir;
  for (int i = 0; i < 30; ++i) dir.write("m" + std::to_string(i) + ".py", kMixed);
  EXPECT_EQ(gm("check " + quoted(dir.path)).out.find("graphmend: checking"), std::string::npos);
}

}  // namespace
}  // namespace graphmend::testing
