#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <fstream>

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

// What graphmend stamps a file with when it reads it.
source::DiskStamp stamp_of_file(const std::filesystem::path& p) {
  return *std::get<source::SourceFile>(source::read_source(p, p.string())).disk;
}

TEST(WriteAtomically, RefusesWhenTheFileChangedSinceItWasRead) {
  TempDir dir;
  auto p = dir.write("m.py", "x = 1\n");
  const source::DiskStamp read = stamp_of_file(p);
  std::ofstream(p, std::ios::app) << "y = 2\n";  // an editor saves while graphmend runs
  auto err = fix::write_atomically(p, "x = 10\n", &read);
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->find("changed on disk"), std::string::npos);
  EXPECT_EQ(read_bytes(p), "x = 1\ny = 2\n");
  // Unchanged since read: written.
  const source::DiskStamp now = stamp_of_file(p);
  EXPECT_FALSE(fix::write_atomically(p, "z = 3\n", &now).has_value());
  EXPECT_EQ(read_bytes(p), "z = 3\n");
}

TEST(WriteAtomically, RefusesAFileWithOtherHardLinks) {
  TempDir dir;
  auto p = dir.write("m.py", "x = 1\n");
  ASSERT_EQ(::link(p.c_str(), (dir.path / "other.py").c_str()), 0);
  auto err = fix::write_atomically(p, "x = 2\n");
  ASSERT_TRUE(err.has_value());
  EXPECT_NE(err->find("2 hard links"), std::string::npos);
  EXPECT_EQ(read_bytes(dir.path / "other.py"), "x = 1\n");
}

TEST(WriteAtomically, KeepsOwnerAndGroup) {
  if (::geteuid() != 0) GTEST_SKIP() << "changing a file's owner needs root";
  TempDir dir;
  auto p = dir.write("m.py", "x = 1\n");
  ASSERT_EQ(::chown(p.c_str(), 4321, 8765), 0);
  EXPECT_FALSE(fix::write_atomically(p, "x = 2\n").has_value());
  struct stat st {};
  ::stat(p.c_str(), &st);
  EXPECT_EQ(st.st_uid, 4321u);
  EXPECT_EQ(st.st_gid, 8765u);
}

TEST(WriteAtomically, RemovesStaleTemporariesOfDeadRuns) {
  TempDir dir;
  auto p = dir.write("m.py", "x = 1\n");
  // A run killed with -9 (a PID no process has), an older-format leftover, a live run's file,
  // and a user's file that only looks similar.
  auto dead = dir.write(".m.py.graphmend-999999999-AbC123", "partial");
  auto live = dir.write(fmt::format(".m.py.graphmend-{}-XyZ789", ::getppid()), "partial");
  auto user = dir.write(".m.py.graphmend-notes", "mine");
  EXPECT_EQ(fix::remove_stale_temporaries(dir.path), 1u);
  EXPECT_FALSE(std::filesystem::exists(dead));
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_TRUE(std::filesystem::exists(user));
  (void)p;
}

}  // namespace
}  // namespace graphmend::testing
