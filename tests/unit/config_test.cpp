// Project configuration: where it is found, what each key means, and that every mistake names
// its file, line and key.
#include <gtest/gtest.h>

#include "graphmend/driver/config.h"
#include "graphmend/driver/discover.h"
#include "graphmend/driver/resolve.h"
#include "graphmend/driver/run.h"
#include "test_support.h"

namespace graphmend::driver {
namespace {

using testing::TempDir;

Settings load_ok(const std::filesystem::path& file) {
  auto loaded = load_config(file);
  if (auto* e = std::get_if<ConfigError>(&loaded)) ADD_FAILURE() << e->message;
  return std::get_if<Settings>(&loaded) ? std::get<Settings>(loaded) : Settings{};
}

std::string load_error(const std::filesystem::path& file) {
  auto loaded = load_config(file);
  if (auto* e = std::get_if<ConfigError>(&loaded)) return e->message;
  ADD_FAILURE() << "expected an error from " << file;
  return {};
}

TEST(Config, ReadsEveryKeyFromPyproject) {
  TempDir dir;
  const auto file = dir.write("pyproject.toml", R"([project]
name = "x"

[tool.graphmend]
select = ["GM1", "GM2"]
extend-select = ["GM903"]
ignore = ["GM201"]
exclude = ["generated"]
extend-exclude = ["legacy/*.py"]
per-file-ignores = { "tests/*" = ["GM4"] }
unsafe-fixes = true
trap-async = false
force-exclude = true
respect-gitignore = false
show-fixes = true
project-context = false
output-format = "sarif"
max-file-size = 1000
jobs = 3
)");
  const Settings s = load_ok(file);
  EXPECT_EQ(s.select, (std::vector<std::string>{"GM1", "GM2"}));
  EXPECT_EQ(s.extend_select, (std::vector<std::string>{"GM903"}));
  EXPECT_EQ(s.ignore, (std::vector<std::string>{"GM201"}));
  EXPECT_EQ(s.exclude, (std::vector<std::string>{"generated"}));
  EXPECT_EQ(s.extend_exclude, (std::vector<std::string>{"legacy/*.py"}));
  ASSERT_TRUE(s.per_file_ignores);
  ASSERT_EQ(s.per_file_ignores->size(), 1u);
  EXPECT_EQ((*s.per_file_ignores)[0].pattern, "tests/*");
  EXPECT_EQ((*s.per_file_ignores)[0].codes, (std::vector<std::string>{"GM4"}));
  EXPECT_EQ(s.unsafe_fixes, true);
  EXPECT_EQ(s.trap_async, false);
  EXPECT_EQ(s.force_exclude, true);
  EXPECT_EQ(s.respect_gitignore, false);
  EXPECT_EQ(s.show_fixes, true);
  EXPECT_EQ(s.project_context, false);
  EXPECT_EQ(s.output_format, "sarif");
  EXPECT_EQ(s.max_file_size, 1000u);
  EXPECT_EQ(s.jobs, 3u);
  EXPECT_EQ(s.root, dir.path);
}

TEST(Config, NearestFileWinsAndPyprojectWithoutTheSectionIsSkipped) {
  TempDir dir;
  dir.write("graphmend.toml", "ignore = [\"GM1\"]\n");
  dir.write("pkg/pyproject.toml", "[project]\nname = \"pkg\"\n");
  dir.write("pkg/sub/x.py", "");
  EXPECT_EQ(find_config(dir.path / "pkg/sub/x.py"), dir.path / "graphmend.toml");
  dir.write("pkg/.graphmend.toml", "ignore = [\"GM2\"]\n");
  EXPECT_EQ(find_config(dir.path / "pkg/sub"), dir.path / "pkg/.graphmend.toml");
  dir.write("pkg/sub/pyproject.toml", "[tool.graphmend]\nignore = [\"GM3\"]\n");
  EXPECT_EQ(find_config(dir.path / "pkg/sub/x.py"), dir.path / "pkg/sub/pyproject.toml");
  TempDir empty;
  EXPECT_FALSE(find_config(empty.path).has_value() && find_config(empty.path)->parent_path() == empty.path);
}

TEST(Config, EachFolderTakesItsNearestConfigurationWithTheCommandLineOverIt) {
  TempDir dir;
  dir.write("graphmend.toml", "ignore = [\"GM1\"]\nfix-generated = true\n");
  dir.write("sub/pyproject.toml", "[tool.graphmend]\nignore = [\"GM2\"]\nextend-exclude = [\"gen/*.py\"]\n");
  dir.write("sub/deeper/x.py", "");
  CommandLineSettings command_line;
  command_line.ignore = {"GM4"};
  command_line.trap_async = true;
  SettingsResolver resolver(command_line, std::nullopt);
  const auto top = resolver.for_path(dir.path / "x.py");
  const auto deep = resolver.for_path(dir.path / "sub/deeper/x.py");
  ASSERT_TRUE(top->config && deep->config);
  EXPECT_EQ(*top->config, dir.path / "graphmend.toml");
  EXPECT_EQ(*deep->config, dir.path / "sub/pyproject.toml");
  EXPECT_EQ(deep, resolver.for_folder(dir.path / "sub"));  // loaded once
  EXPECT_EQ(top->selection.ignore, (std::vector<std::string>{"GM1", "GM4"}));
  EXPECT_EQ(deep->selection.ignore, (std::vector<std::string>{"GM2", "GM4"}));  // no inheritance
  EXPECT_TRUE(top->fix_generated);
  EXPECT_FALSE(deep->fix_generated);
  EXPECT_TRUE(top->rule_options.trap_async && deep->rule_options.trap_async);
  EXPECT_EQ(deep->root, dir.path / "sub");
  EXPECT_TRUE(deep->excludes_entry(dir.path / "sub/gen/y.py"));  // from the configuration's folder
  EXPECT_FALSE(top->excludes_entry(dir.path / "sub/gen/y.py"));
  EXPECT_TRUE(resolver.errors().empty());
  // --isolated: the defaults for every file.
  SettingsResolver isolated(CommandLineSettings{}, Settings{});
  EXPECT_FALSE(isolated.for_path(dir.path / "sub/deeper/x.py")->config.has_value());
  EXPECT_TRUE(isolated.for_path(dir.path / "sub/deeper/x.py")->selection.ignore.empty());
  // A broken nested configuration is an error of the run.
  dir.write("bad/graphmend.toml", "ignore = 3\n");
  SettingsResolver broken(CommandLineSettings{}, std::nullopt);
  broken.for_path(dir.path / "bad/x.py");
  ASSERT_EQ(broken.errors().size(), 1u);
  EXPECT_NE(broken.errors()[0].message.find("graphmend.toml:1: ignore"), std::string::npos);
}

TEST(Config, ExtendChainsOverridesAndAccumulates) {
  TempDir dir;
  dir.write("base/graphmend.toml", "select = [\"GM1\"]\nignore = [\"GM101\"]\nextend-exclude = [\"a\"]\nunsafe-fixes = true\n");
  const auto top = dir.write("proj/graphmend.toml",
                             "extend = \"../base/graphmend.toml\"\nselect = [\"GM2\"]\nextend-exclude = [\"b\"]\n");
  const Settings s = load_ok(top);
  EXPECT_EQ(s.select, (std::vector<std::string>{"GM2"}));       // overridden
  EXPECT_EQ(s.ignore, (std::vector<std::string>{"GM101"}));      // inherited
  EXPECT_EQ(s.extend_exclude, (std::vector<std::string>{"a", "b"}));  // accumulated
  EXPECT_EQ(s.unsafe_fixes, true);
  EXPECT_EQ(s.root, dir.path / "proj");
  EXPECT_EQ(s.files.size(), 2u);
}

TEST(Config, MistakesNameFileLineAndKey) {
  TempDir dir;
  const auto unknown = dir.write("a/graphmend.toml", "select = [\"GM1\"]\n\nselekt = [\"GM2\"]\n");
  const std::string e1 = load_error(unknown);
  EXPECT_NE(e1.find("a/graphmend.toml:3: selekt: unknown key"), std::string::npos) << e1;
  const auto bad_type = dir.write("b/graphmend.toml", "unsafe-fixes = \"yes\"\n");
  EXPECT_NE(load_error(bad_type).find("graphmend.toml:1: unsafe-fixes: expected true or false"), std::string::npos);
  const auto bad_code = dir.write("c/pyproject.toml", "[tool.graphmend]\nignore = [\"GM999\"]\n");
  EXPECT_NE(load_error(bad_code).find("pyproject.toml:2: ignore: `GM999` is no rule code"), std::string::npos);
  const auto bad_format = dir.write("d/graphmend.toml", "output-format = \"xml\"\n");
  EXPECT_NE(load_error(bad_format).find("output-format: `xml` is not an output format"), std::string::npos);
  const auto bad_toml = dir.write("e/graphmend.toml", "select = [\n");
  EXPECT_NE(load_error(bad_toml).find("invalid TOML"), std::string::npos);
  const auto cycle = dir.write("f/graphmend.toml", "extend = \"graphmend.toml\"\n");
  EXPECT_NE(load_error(cycle).find("cycle"), std::string::npos);
  const auto missing = dir.write("g/graphmend.toml", "extend = \"nowhere.toml\"\n");
  EXPECT_NE(load_error(missing).find("named by `extend`"), std::string::npos);
}

TEST(Discovery, ExcludePatternsPlainAndAnchored) {
  TempDir dir;
  dir.write("src/a.py", "");
  dir.write("src/generated/b.py", "");
  dir.write("src/legacy/c.py", "");
  dir.write("src/legacy/d.py", "");
  dir.write("dist/e.py", "");
  DiscoverOptions o;
  o.root = dir.path;
  o.respect_gitignore = false;
  o.exclude = default_excludes();
  o.exclude.push_back("generated");
  o.exclude.push_back("src/legacy/c.py");
  Discovery d = discover({dir.path.string()}, o);
  std::vector<std::string> names;
  for (const auto& f : d.files) names.push_back(f.path.filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"a.py", "d.py"}));
}

TEST(Discovery, ForceExcludeAppliesToNamedFiles) {
  TempDir dir;
  const auto f = dir.write("generated/x.py", "");
  DiscoverOptions o;
  o.root = dir.path;
  o.exclude = {"generated"};
  EXPECT_EQ(discover({f.string()}, o).files.size(), 1u);  // named: checked
  o.force_exclude = true;
  EXPECT_EQ(discover({f.string()}, o).files.size(), 0u);
}

TEST(Discovery, NamedFileBringsItsProjectAsContext) {
  TempDir dir;
  dir.write("proj/pyproject.toml", "");
  const auto util = dir.write("proj/pkg/util.py", "");
  dir.write("proj/pkg/model.py", "");
  DiscoverOptions o;
  o.respect_gitignore = false;
  Discovery d = discover({util.string()}, o);
  ASSERT_EQ(d.files.size(), 2u);
  for (const auto& f : d.files) EXPECT_EQ(f.context_only, f.path.filename() == "model.py") << f.path;
  o.project_context = false;
  EXPECT_EQ(discover({util.string()}, o).files.size(), 1u);
}

TEST(ApplySettings, TakesTheConfiguredRunKeysAndTheDefaultsOfTheOthers) {
  Options o;
  o.unsafe_fixes = true;  // not kept: the configuration, silent, means the default
  apply_settings(Settings{}, o);
  EXPECT_FALSE(o.unsafe_fixes);
  EXPECT_EQ(o.read.max_bytes, source::ReadOptions{}.max_bytes);
  EXPECT_EQ(o.budget.time, std::chrono::seconds(120));
  EXPECT_EQ(o.budget.memory_bytes, uint64_t{2048} << 20);
  EXPECT_TRUE(o.discovery.respect_gitignore);
  EXPECT_TRUE(o.discovery.project_context);

  Settings configured;
  configured.unsafe_fixes = true;
  configured.jobs = 3;
  configured.max_file_time = 0.0001;  // rounds up to a millisecond, not down to no limit
  configured.max_file_memory = 0;
  configured.respect_gitignore = false;
  configured.root = "/p";
  apply_settings(configured, o);
  EXPECT_TRUE(o.unsafe_fixes);
  EXPECT_EQ(o.jobs, 3u);
  EXPECT_EQ(o.budget.time, std::chrono::milliseconds(1));
  EXPECT_EQ(o.budget.memory_bytes, 0u);
  EXPECT_FALSE(o.discovery.respect_gitignore);
  EXPECT_EQ(o.discovery.root, std::filesystem::path("/p"));
  EXPECT_EQ(time_budget(0), std::chrono::milliseconds(0));
}

}  // namespace
}  // namespace graphmend::driver
