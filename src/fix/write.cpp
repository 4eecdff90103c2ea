#include "graphmend/fix/write.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <mutex>
#include <set>
#include <utility>
#include <variant>

namespace graphmend::fix {
namespace fs = std::filesystem;

namespace {

// Writes `bytes` to a temporary file beside `target`, gives it `mode`, syncs it and renames it
// over `target` (with `replace`) or into place only while nothing is there.
struct Ownership {
  mode_t mode;
  std::optional<std::pair<uid_t, gid_t>> owner;  // kept when set (a replaced file's)
};

std::optional<std::string> write_via_temporary(const fs::path& target, std::string_view bytes, const Ownership& keep,
                                               bool replace, const source::DiskStamp* expected) {
  static std::mutex cleaned_mutex;
  static std::set<fs::path> cleaned;  // folders already swept this run
  {
    std::lock_guard<std::mutex> lock(cleaned_mutex);
    if (cleaned.insert(target.parent_path()).second) remove_stale_temporaries(target.parent_path());
  }
  std::string tmpl = (target.parent_path() /
                      fmt::format(".{}.graphmend-{}-XXXXXX", target.filename().string(), ::getpid()))
                         .string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return fmt::format("cannot create a temporary file next to it: {}", std::strerror(errno));
  auto fail = [&](const char* what) {
    const std::string msg = fmt::format("{}: {}; not modified", what, std::strerror(errno));
    ::close(fd);
    ::unlink(tmpl.c_str());
    return msg;
  };
  size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("write failed");
    }
    written += static_cast<size_t>(n);
  }
  if (keep.owner && ::fchown(fd, keep.owner->first, keep.owner->second) != 0) {
    return fail("cannot keep its owner and group");
  }
  if (::fchmod(fd, keep.mode) != 0) return fail("cannot keep permissions");
  if (::fsync(fd) != 0) return fail("fsync failed");
  if (::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    return fmt::format("close failed: {}; not modified", std::strerror(errno));
  }
  // The last moment to notice text written to the file since it was read.
  if (replace && expected && !source::matches_disk(target, *expected)) {
    ::unlink(tmpl.c_str());
    return std::string("the file changed on disk while graphmend ran; not modified (run graphmend again)");
  }
  // link(2) fails when the name exists, so a file created meanwhile is never replaced.
  const int moved = replace ? ::rename(tmpl.c_str(), target.c_str()) : ::link(tmpl.c_str(), target.c_str());
  if (moved != 0) {
    const std::string msg = fmt::format("{} failed: {}; not modified", replace ? "rename" : "create", std::strerror(errno));
    ::unlink(tmpl.c_str());
    return msg;
  }
  if (!replace) ::unlink(tmpl.c_str());
  return std::nullopt;
}

}  // namespace

namespace {

struct Target {
  fs::path path;  // symlinks resolved
  Ownership keep;
};

// The file write_atomically would replace, or why it refuses to.
std::variant<Target, std::string> writable_target(const fs::path& path) {
  std::error_code ec;
  fs::path target = fs::canonical(path, ec);
  if (ec) return fmt::format("cannot resolve path: {}", ec.message());
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) return fmt::format("cannot stat: {}", std::strerror(errno));
  // Judged by the mode bits, not access(2): root may write anything, but a read-only file is
  // the owner's statement that it must not change.
  if ((st.st_mode & 0222) == 0 || ::access(target.c_str(), W_OK) != 0) {
    return std::string("file is read-only; not modified");
  }
  if (st.st_nlink > 1) {
    return fmt::format("the file has {} hard links, which replacing it would split; not modified (give it its "
                       "own copy first)",
                       st.st_nlink);
  }
  return Target{std::move(target), Ownership{st.st_mode & 07777, std::make_pair(st.st_uid, st.st_gid)}};
}

}  // namespace

std::optional<std::string> refusal(const fs::path& path) {
  auto target = writable_target(path);
  if (auto* why = std::get_if<std::string>(&target)) return *why;
  return std::nullopt;
}

std::optional<std::string> write_atomically(const fs::path& path, std::string_view bytes,
                                            const source::DiskStamp* expected) {
  auto target = writable_target(path);
  if (auto* why = std::get_if<std::string>(&target)) return *why;
  const Target& t = std::get<Target>(target);
  return write_via_temporary(t.path, bytes, t.keep, true, expected);
}

std::optional<std::string> create_atomically(const fs::path& path, std::string_view bytes) {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return write_via_temporary(fs::absolute(path), bytes, Ownership{0666 & ~mask, std::nullopt}, false, nullptr);
}

size_t remove_stale_temporaries(const fs::path& dir) {
  size_t removed = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with(".")) continue;
    const size_t mark = name.rfind(".graphmend-");
    if (mark == std::string::npos || mark == 0) continue;
    const std::string_view tail = std::string_view(name).substr(mark + 11);  // PID-XXXXXX or XXXXXX
    bool stale = false;
    if (const size_t dash = tail.find('-'); dash != std::string_view::npos) {
      const std::string_view pid_text = tail.substr(0, dash);
      if (tail.size() - dash - 1 != 6 || pid_text.empty() ||
          !std::all_of(pid_text.begin(), pid_text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        continue;
      }
      const auto pid = static_cast<pid_t>(std::stol(std::string(pid_text)));
      stale = pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH;
    } else if (tail.size() == 6) {
      std::error_code e2;
      const auto written = fs::last_write_time(it->path(), e2);
      stale = !e2 && now - written > std::chrono::hours(1);
    }
    if (stale && it->is_regular_file(ec) && ::unlink(it->path().c_str()) == 0) ++removed;
  }
  return removed;
}

}  // namespace graphmend::fix
