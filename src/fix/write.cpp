#include "graphmend/fix/write.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <variant>

namespace graphmend::fix {
namespace fs = std::filesystem;

namespace {

// Writes `bytes` to a temporary file beside `target`, gives it `mode`, syncs it and renames it
// over `target` (with `replace`) or into place only while nothing is there.
std::optional<std::string> write_via_temporary(const fs::path& target, std::string_view bytes, mode_t mode,
                                               bool replace) {
  std::string tmpl = (target.parent_path() / ("." + target.filename().string() + ".graphmend-XXXXXX")).string();
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
  if (::fchmod(fd, mode) != 0) return fail("cannot keep permissions");
  if (::fsync(fd) != 0) return fail("fsync failed");
  if (::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    return fmt::format("close failed: {}; not modified", std::strerror(errno));
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
  mode_t mode;
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
  return Target{std::move(target), st.st_mode & 07777};
}

}  // namespace

std::optional<std::string> refusal(const fs::path& path) {
  auto target = writable_target(path);
  if (auto* why = std::get_if<std::string>(&target)) return *why;
  return std::nullopt;
}

std::optional<std::string> write_atomically(const fs::path& path, std::string_view bytes) {
  auto target = writable_target(path);
  if (auto* why = std::get_if<std::string>(&target)) return *why;
  const Target& t = std::get<Target>(target);
  return write_via_temporary(t.path, bytes, t.mode, true);
}

std::optional<std::string> create_atomically(const fs::path& path, std::string_view bytes) {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return write_via_temporary(fs::absolute(path), bytes, 0666 & ~mask, false);
}

}  // namespace graphmend::fix
