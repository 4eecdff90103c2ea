// What `fix` leaves in a package: one runtime file at the top-level package's root, written once
// and rewritten only for another runtime version; each patched module binds it with one line
// after its imports; nothing is written when the runtime cannot be.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <sys/stat.h>

#include "graphmend/fix/runtime.h"
#include "test_support.h"

namespace graphmend::testing {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kModel = R"(import torch

from ..util import describe


class Model(torch.nn.Module):
    def forward(self, x):
        print("forward", x.shape)
        return describe(x * 2)
)";

constexpr std::string_view kTorchHelper = R"(import torch


def describe(x):
    print("describe", x.sum())
    return x
)";

// pkg/__init__.py, pkg/util.py (helper), pkg/models/__init__.py, pkg/models/model.py
TempDir make_package(std::string_view helper) {
  TempDir dir;
  dir.write("pkg/__init__.py", "");
  dir.write("pkg/util.py", std::string(helper));
  dir.write("pkg/models/__init__.py", "");
  dir.write("pkg/models/model.py", std::string(kModel));
  return dir;
}

TEST(Emission, PackageGetsOneRuntimeFileAndOneBindingLinePerModule) {
  TempDir dir = make_package(kTorchHelper);
  auto r = gm("fix " + quoted(dir.path / "pkg"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(read_bytes(dir.path / "pkg/_graphmend_runtime.py"), fix::runtime_source());
  EXPECT_FALSE(fs::exists(dir.path / "pkg/models/_graphmend_runtime.py"));
  const std::string model = read_bytes(dir.path / "pkg/models/model.py");
  EXPECT_NE(model.find("\n_graphmend = __import__(\"_graphmend_runtime\", globals(), level=2).bind(globals())\n"),
            std::string::npos)
      << model;
  const std::string util = read_bytes(dir.path / "pkg/util.py");
  EXPECT_NE(util.find("level=1).bind(globals())"), std::string::npos) << util;
  // The runtime is never pasted into a module of a package.
  EXPECT_EQ(model.find("custom_op"), std::string::npos);
  // A second run changes nothing, the runtime file included.
  const auto stamp = fs::last_write_time(dir.path / "pkg/_graphmend_runtime.py");
  auto again = gm("fix --diff " + quoted(dir.path / "pkg"));
  EXPECT_EQ(again.exit_code, 0) << again.out;
  EXPECT_EQ(again.out.find("---"), std::string::npos) << again.out;
  EXPECT_EQ(fs::last_write_time(dir.path / "pkg/_graphmend_runtime.py"), stamp);
}

TEST(Emission, DiffShowsTheRuntimeFileAndWritesNothing) {
  TempDir dir = make_package(kTorchHelper);
  auto r = gm("fix --diff " + quoted(dir.path / "pkg"));
  EXPECT_NE(r.out.find("_graphmend_runtime.py"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("+RUNTIME_VERSION = "), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir.path / "pkg/_graphmend_runtime.py"));
  EXPECT_EQ(read_bytes(dir.path / "pkg/models/model.py"), kModel);
}

TEST(Emission, AnOlderRuntimeIsReplacedAndACurrentOneLeftAlone) {
  TempDir dir = make_package(kTorchHelper);
  const fs::path runtime = dir.path / "pkg/_graphmend_runtime.py";
  dir.write("pkg/_graphmend_runtime.py", "RUNTIME_VERSION = \"0\"\n");
  auto r = gm("fix " + quoted(dir.path / "pkg"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(read_bytes(runtime), fix::runtime_source());
  // Same version: graphmend never edits it, whatever it holds.
  const std::string edited = std::string(fix::runtime_source()) + "# a local edit\n";
  dir.write("pkg/_graphmend_runtime.py", edited);
  dir.write("pkg/models/other.py", std::string(kModel));
  r = gm("fix " + quoted(dir.path / "pkg"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(read_bytes(runtime), edited);
}

TEST(Emission, AForeignRuntimeFileBlocksThePackagesWrites) {
  TempDir dir = make_package(kTorchHelper);
  dir.write("pkg/_graphmend_runtime.py", "x = 1\n");
  auto r = gm("fix " + quoted(dir.path / "pkg"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("not graphmend's runtime"), std::string::npos) << r.out;
  EXPECT_EQ(read_bytes(dir.path / "pkg/_graphmend_runtime.py"), "x = 1\n");
  EXPECT_EQ(read_bytes(dir.path / "pkg/models/model.py"), kModel);
}

TEST(Emission, AHelperThatDoesNotImportTorchIsPatchedAndStillDoesNot) {
  // Reached from another file's forward: reported and fixed; the binding imports no torch (the
  // runtime uses torch only once the process has imported it: tests/runtime).
  const std::string helper = "def describe(x):\n    print(\"describe\", x.sum())\n    return x\n";
  TempDir dir = make_package(helper);
  auto check = gm("check --output-format concise " + quoted(dir.path / "pkg"));
  EXPECT_EQ(check.exit_code, 1) << check.out;
  EXPECT_NE(check.out.find("util.py:2:5: GM201"), std::string::npos) << check.out;
  auto r = gm("fix " + quoted(dir.path / "pkg"));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string util = read_bytes(dir.path / "pkg/util.py");
  EXPECT_NE(util.find("    _graphmend.call(print)(\"describe\", x.sum())\n"), std::string::npos) << util;
  EXPECT_EQ(util.find("import torch"), std::string::npos) << util;
}

TEST(Emission, NoRuntimeFileWhenNoModuleCanBeWritten) {
  TempDir dir = make_package(kTorchHelper);
  for (const char* name : {"pkg/util.py", "pkg/models/model.py"}) ::chmod((dir.path / name).c_str(), 0444);
  auto r = gm("fix " + quoted(dir.path / "pkg"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.out.find("read-only"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir.path / "pkg/_graphmend_runtime.py")) << "a failed run leaves the package as it was";
  // One writable module is enough: it gets its runtime.
  ::chmod((dir.path / "pkg/util.py").c_str(), 0644);
  r = gm("fix " + quoted(dir.path / "pkg"));
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_TRUE(fs::exists(dir.path / "pkg/_graphmend_runtime.py"));
  EXPECT_NE(read_bytes(dir.path / "pkg/util.py").find("_graphmend.call(print)"), std::string::npos);
  EXPECT_EQ(read_bytes(dir.path / "pkg/models/model.py"), kModel);
}

TEST(Emission, ALooseScriptGetsTheRuntimeInlineAndNoFile) {
  TempDir dir;
  const fs::path script = dir.write("script.py", "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n");
  auto r = gm("fix " + quoted(script));
  EXPECT_EQ(r.exit_code, 0) << r.out;
  const std::string text = read_bytes(script);
  EXPECT_NE(text.find("exec(\n    compile(\n        r'''\n"), std::string::npos) << text;
  EXPECT_NE(text.find("def _defer("), std::string::npos);
  EXPECT_EQ(text.find("def selectable("), std::string::npos) << "only the sections the script uses";
  EXPECT_FALSE(fs::exists(dir.path / "_graphmend_runtime.py"));
}

}  // namespace
}  // namespace graphmend::testing
