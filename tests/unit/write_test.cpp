#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graphmend/fix/write.h"
#include "test_support.h"

namespace graphmend::testing {
namespace {

TEST(WriteAtomically, ReplacesContentAndKeepsPermissions) {
  TempDir dir;
  auto p = dir.write("m.py", "old\n");
  ::chmod(p.c_str(), 0750);
  EXPECT_FALSE(fix::write_atomically(p, "new\n").has_value());
  EXPECT_EQ(read_bytes(p), "new\n");
  struct stat st {};
  ::stat(p.c_str(), &st);
  EXPECT_EQ(st.st_mode & 0777, 0750u);
  // No temporary file is left behind.
  size_t entries = 0;
  for (auto& e : std::filesystem::directory_iterator(dir.path)) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, 1u);
}

TEST(WriteAtomically, RefusesReadOnlyFilesEvenForRoot) {
  TempDir dir;
  auto p = dir.write("ro.py", "keep\n");
  ::chmod(p.c_str(), 0444);
  auto err = fix::write_atomically(p, "changed\n");
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->find("read-only"), std::string::npos);
  EXPECT_EQ(read_bytes(p), "keep\n");
}

TEST(WriteAtomically, WritesThroughASymlinkAndKeepsTheLink) {
  TempDir dir;
  auto target = dir.write("real.py", "a\n");
  auto link = dir.path / "link.py";
  ::symlink(target.c_str(), link.c_str());
  EXPECT_FALSE(fix::write_atomically(link, "b\n").has_value());
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(read_bytes(target), "b\n");
}

TEST(WriteAtomically, ReportsAnUnwritableFolder) {
  TempDir dir;
  std::filesystem::create_directories(dir.path / "locked");
  auto p = dir.write("locked/m.py", "a\n");
  ::chmod((dir.path / "locked").c_str(), 0555);
  if (::geteuid() == 0) {
    // Root can create files in a 0555 folder; the refusal is then only by the file's own mode.
    ::chmod(p.c_str(), 0444);
  }
  auto err = fix::write_atomically(p, "b\n");
  EXPECT_TRUE(err.has_value());
  EXPECT_EQ(read_bytes(p), "a\n");
}

}  // namespace
}  // namespace graphmend::testing
