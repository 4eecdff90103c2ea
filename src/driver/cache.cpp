#include "graphmend/driver/cache.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>

#include "graphmend/rules/registry.h"

namespace graphmend::driver::cache {

namespace {

using nlohmann::json;

// Bumped when the entry's layout changes.
constexpr int kFormat = 1;

uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

// A second 64-bit hash, independent of std::hash, eight bytes at a time: with it a digest is
// 128 bits, so two different trees sharing one is not a practical concern.
uint64_t word_hash(std::string_view bytes) {
  uint64_t h = 0x9e3779b97f4a7c15ULL ^ bytes.size();
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, bytes.data() + i, 8);
    h = (h ^ mix(w)) * 0x100000001b3ULL;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, bytes.data() + i, bytes.size() - i);
  return mix(h ^ mix(tail ^ (bytes.size() - i)));
}

json to_json(const source::Fix& fix) {
  json edits = json::array();
  for (const source::Edit& e : fix.edits) edits.push_back({e.range.start, e.range.end, e.replacement});
  json helpers = json::array();
  for (const source::Helper& h : fix.helpers) helpers.push_back({h.name, h.code});
  return {{"edits", edits}, {"helpers", helpers}, {"applicability", static_cast<int>(fix.applicability)},
          {"title", fix.title}, {"unsafe_code", fix.unsafe_code}};
}

source::Fix fix_from(const json& j) {
  source::Fix fix;
  for (const json& e : j.at("edits")) fix.edits.push_back({{e.at(0), e.at(1)}, e.at(2)});
  for (const json& h : j.at("helpers")) fix.helpers.push_back({h.at(0), h.at(1)});
  fix.applicability = static_cast<source::Applicability>(j.at("applicability").get<int>());
  fix.title = j.at("title");
  fix.unsafe_code = j.at("unsafe_code");
  return fix;
}

json to_json(const rules::Diagnostic& d) {
  json j = {{"code", d.rule->code},
            {"range", {d.range.start, d.range.end}},
            {"message", d.message},
            {"break", d.graph_break ? analysis::id_of(*d.graph_break) : std::string_view()},
            {"help", d.help},
            {"function", d.function},
            {"region", d.region_reason}};
  if (d.fix) j["fix"] = to_json(*d.fix);
  if (d.decline_reason) {
    j["declined"] = {{"code", rewrite::code_name(d.decline_reason->code)}, {"fields", d.decline_reason->fields}};
  }
  return j;
}

rules::Diagnostic diagnostic_from(const json& j) {
  rules::Diagnostic d;
  // An entry from another version may name a code or a break this one does not have.
  d.rule = rules::info_of_code(j.at("code").get<std::string>());
  if (!d.rule) throw std::runtime_error("unknown rule code in the cache");
  d.range = {j.at("range").at(0), j.at("range").at(1)};
  d.message = j.at("message");
  if (const std::string id = j.at("break"); !id.empty()) {
    d.graph_break = analysis::graph_break_with_id(id);
    if (!d.graph_break) throw std::runtime_error("unknown graph break id in the cache");
  }
  d.help = j.at("help");
  d.function = j.at("function");
  d.region_reason = j.at("region");
  if (j.contains("fix")) d.fix = std::make_shared<const source::Fix>(fix_from(j.at("fix")));
  if (j.contains("declined")) {
    const json& declined = j.at("declined");
    const auto code = rewrite::code_named(declined.at("code").get<std::string>());
    if (!code) throw std::runtime_error("unknown decline code in the cache");  // an entry from another version
    d.decline_reason = rewrite::Decline{*code, declined.at("fields").get<std::vector<std::string>>()};
  }
  return d;
}

// The binary's identity: a rebuild changes its modification time.
std::string binary_identity() {
  struct stat st {};
  if (::stat("/proc/self/exe", &st) != 0) return "unknown";
  return fmt::format("{}:{}:{}:{}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

std::filesystem::path entry_path(const std::filesystem::path& dir, const std::string& key) {
  return dir / fmt::format("v{}", kFormat) / (key + ".json");
}

// Writes `bytes` to `path` through a temporary file in its folder, so a reader sees the old
// entry or the new one, never part of one.
void write_whole(const std::filesystem::path& path, const std::string& bytes) {
  std::string temp = (path.parent_path() / ".entry-XXXXXX").string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return;
  ::fchmod(fd, 0644);  // mkstemp's 0600 would keep a shared checkout's other users from the cache
  const bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  ::close(fd);
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) ::unlink(temp.c_str());
}

// Keeps the newest kMaxEntries entries: each distinct set of paths and settings (a pre-commit run
// names other files each time) has an entry of its own, and the folder must not grow without end.
constexpr size_t kMaxEntries = 32;

void prune(const std::filesystem::path& folder) {
  std::error_code ec;
  std::vector<std::pair<std::filesystem::file_time_type, std::filesystem::path>> found;
  for (const auto& e : std::filesystem::directory_iterator(folder, ec)) {
    if (e.path().extension() != ".json") continue;
    const auto when = e.last_write_time(ec);
    if (!ec) found.emplace_back(when, e.path());
  }
  if (found.size() <= kMaxEntries) return;
  std::sort(found.begin(), found.end(), std::greater<>());
  for (size_t i = kMaxEntries; i < found.size(); ++i) std::filesystem::remove(found[i].second, ec);
}

}  // namespace

void TreeDigest::add(std::string_view display, std::string_view module_name, bool context_only, std::string_view text) {
  for (std::string_view field : {display, module_name, context_only ? std::string_view("c") : std::string_view("r"), text}) {
    a_ = mix(a_ ^ std::hash<std::string_view>{}(field)) + field.size();
    b_ = mix(b_ ^ word_hash(field)) + 0x9e3779b97f4a7c15ULL;
  }
  ++files_;
}

std::string TreeDigest::hex() const { return fmt::format("{:016x}{:016x}-{}", a_, b_, files_); }

std::string run_key(std::string_view material) {
  const std::string all = fmt::format("{}\n{}\n{}", GRAPHMEND_VERSION, binary_identity(), material);
  return fmt::format("{:016x}{:016x}", mix(std::hash<std::string_view>{}(all)), word_hash(all));
}

std::optional<Entry> load(const std::filesystem::path& dir, const std::string& key, const std::string& digest) {
  std::ifstream in(entry_path(dir, key), std::ios::binary);
  if (!in) return std::nullopt;
  try {
    const json j = json::parse(in);
    if (j.at("format") != kFormat || j.at("digest") != digest) return std::nullopt;
    Entry entry;
    entry.digest = digest;
    entry.compiled_functions = j.at("compiled_functions");
    for (const json& f : j.at("files")) {
      FileResult& r = entry.files.emplace_back();
      r.syntax_error = f.at("syntax_error");
      r.warnings = f.at("warnings").get<std::vector<std::string>>();
      for (const json& d : f.at("diagnostics")) r.diagnostics.push_back(diagnostic_from(d));
    }
    return entry;
  } catch (const std::exception&) {
    return std::nullopt;  // damaged or from another layout: the run re-checks and replaces it
  }
}

void store(const std::filesystem::path& dir, const std::string& key, const Entry& entry) {
  std::error_code ec;
  const std::filesystem::path path = entry_path(dir, key);
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) return;
  if (!std::filesystem::exists(dir / ".gitignore", ec)) {
    std::ofstream(dir / ".gitignore") << "# Created by graphmend: its result cache, never to be committed.\n*\n";
  }
  json files = json::array();
  for (const FileResult& f : entry.files) {
    json diagnostics = json::array();
    for (const rules::Diagnostic& d : f.diagnostics) diagnostics.push_back(to_json(d));
    files.push_back({{"syntax_error", f.syntax_error}, {"warnings", f.warnings}, {"diagnostics", diagnostics}});
  }
  const json j = {{"format", kFormat},
                  {"digest", entry.digest},
                  {"compiled_functions", entry.compiled_functions},
                  {"files", files}};
  std::string bytes;
  try {
    bytes = j.dump();
  } catch (const nlohmann::json::exception&) {
    return;  // text that is not UTF-8 cannot be stored as JSON; the next run analyses afresh
  }
  write_whole(path, bytes);
  prune(path.parent_path());
}

}  // namespace graphmend::driver::cache
