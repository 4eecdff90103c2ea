#include "graphmend/driver/cache.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_set>
#include <nlohmann/json.hpp>

#include "graphmend/analysis/summary_codec.h"
#include "graphmend/rules/registry.h"
#include "graphmend/source/source_file.h"

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

// The binary's identity: a rebuild changes its modification time. Taken once per process.
const std::string& binary_identity() {
  static const std::string identity = [] {
    struct stat st {};
    if (::stat("/proc/self/exe", &st) != 0) return std::string("unknown");
    return fmt::format("{}:{}:{}:{}.{}", st.st_dev, st.st_ino, st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  }();
  return identity;
}

std::filesystem::path entry_path(const std::filesystem::path& dir, const std::string& key) {
  return dir / fmt::format("v{}", kFormat) / (key + ".json");
}

// Removes the temporaries of writers that did not finish (a run killed while writing): any an
// hour old. A live writer's is seconds old.
void remove_stale_temporaries(const std::filesystem::path& folder) {
  std::error_code ec;
  const auto stale = std::filesystem::file_time_type::clock::now() - std::chrono::hours(1);
  for (const auto& e : std::filesystem::directory_iterator(folder, ec)) {
    if (!e.path().filename().string().starts_with(".entry-")) continue;
    const auto when = e.last_write_time(ec);
    if (!ec && when < stale) std::filesystem::remove(e.path(), ec);
  }
}

// Writes `bytes` to `path` through a temporary file in its folder, so a reader sees the old
// entry or the new one, never part of one.
bool write_whole(const std::filesystem::path& path, const std::string& bytes) {
  remove_stale_temporaries(path.parent_path());
  std::string temp = (path.parent_path() / ".entry-XXXXXX").string();
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) return false;
  ::fchmod(fd, 0644);  // mkstemp's 0600 would keep a shared checkout's other users from the cache
  const bool ok = ::write(fd, bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size());
  ::close(fd);
  if (!ok || std::rename(temp.c_str(), path.c_str()) != 0) {
    ::unlink(temp.c_str());
    return false;
  }
  return true;
}

// Creates `dir` with a `.gitignore` that keeps it out of version control, and `folder` in it.
bool make_folder(const std::filesystem::path& dir, const std::filesystem::path& folder) {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) return false;
  if (!std::filesystem::exists(dir / ".gitignore", ec)) {
    std::ofstream(dir / ".gitignore") << "# Created by graphmend: its result cache, never to be committed.\n*\n";
  }
  return true;
}

// Two independent 64-bit hashes of `bytes`, as 32 hex digits.
std::string hash128(std::string_view bytes) {
  return fmt::format("{:016x}{:016x}", mix(std::hash<std::string_view>{}(bytes)), word_hash(bytes));
}

std::filesystem::path summaries_file(const std::filesystem::path& dir) {
  return dir / fmt::format("summaries-v{}", analysis::kSummaryFormat);
}

// The first line of a file the folder keeps of `what`, naming the version and binary that wrote it:
// another build's file is not this build's to read.
std::string file_header(std::string_view what) {
  return fmt::format("graphmend {} {}\n",
                     what, hash128(fmt::format("{}\n{}", GRAPHMEND_VERSION, binary_identity())).substr(0, 16));
}

// The summaries file's header; its entries follow.
std::string summaries_header() { return file_header("module summaries"); }

// One entry of such a file: `<key> <checksum> <length>\n` and its bytes.
struct FileEntry {
  std::string_view key;
  std::string_view checksum;  // hash128 of the payload, as written
  std::string_view payload;
};

void put_entry(std::string& out, std::string_view key, std::string_view checksum, std::string_view payload) {
  out += fmt::format("{} {} {}\n", key, checksum, payload.size());
  out += payload;
}

// The entry `rest` starts with, taken off it; nullopt where its header is damaged or its length
// runs past the end (the next entry's place is then not known).
std::optional<FileEntry> take_entry(std::string_view& rest) {
  const size_t end = rest.find('\n');
  if (end == std::string_view::npos) return std::nullopt;
  const std::string_view header = rest.substr(0, end);
  const size_t a = header.find(' ');
  const size_t b = a == std::string_view::npos ? a : header.find(' ', a + 1);
  if (b == std::string_view::npos) return std::nullopt;
  size_t length = 0;
  const char* digits_end = header.data() + header.size();
  const auto [at, error] = std::from_chars(header.data() + b + 1, digits_end, length);
  if (error != std::errc() || at != digits_end || length > rest.size() - end - 1) return std::nullopt;
  FileEntry entry{header.substr(0, a), header.substr(a + 1, b - a - 1), rest.substr(end + 1, length)};
  rest.remove_prefix(end + 1 + length);
  return entry;
}

// The whole file at `path`; empty where it cannot be read whole.
std::string read_whole(const std::filesystem::path& path) {
  return source::read_bytes(path, std::numeric_limits<uint64_t>::max()).value_or(std::string());
}

// Bumped when the layout of the evidence records (analysis/evidence_codec.cpp) changes.
constexpr int kEvidenceFormat = 1;

std::filesystem::path evidence_file(const std::filesystem::path& dir) {
  return dir / fmt::format("evidence-v{}", kEvidenceFormat);
}

// The evidence file: its header, then one entry, the records.
std::string evidence_header() { return file_header("call evidence"); }
constexpr std::string_view kEvidenceKey = "records";

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
  return hash128(fmt::format("{}\n{}\n{}", GRAPHMEND_VERSION, binary_identity(), material));
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
  const std::filesystem::path path = entry_path(dir, key);
  if (!make_folder(dir, path.parent_path())) return;
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

std::string summary_key(std::string_view module_name, bool package_init, std::string_view text) {
  const std::string head =
      fmt::format("{}\n{}\n{}\n{}\n", GRAPHMEND_VERSION, binary_identity(), module_name, package_init ? "init" : "module");
  return fmt::format("{}{}", hash128(head).substr(0, 16), hash128(text));
}

SummaryStore::SummaryStore(std::filesystem::path dir, Writer writer)
    : dir_(std::move(dir)), bytes_(read_whole(summaries_file(dir_))) {
  std::string_view rest = bytes_;
  const std::string first_line = summaries_header();
  if (writer == Writer::AnyBuild) {
    const std::string_view magic = std::string_view(first_line).substr(0, first_line.rfind(' ') + 1);
    if (!rest.starts_with(magic) || rest.find('\n') == std::string_view::npos) return;
    rest.remove_prefix(rest.find('\n') + 1);
  } else {
    if (!rest.starts_with(first_line)) return;
    rest.remove_prefix(first_line.size());
  }
  // Entry after entry; a damaged header ends the reading, since the next one's place is not known.
  while (!rest.empty()) {
    const std::optional<FileEntry> entry = take_entry(rest);
    if (!entry) return;
    if (index_.try_emplace(entry->key, Stored{entry->checksum, entry->payload}).second) order_.push_back(entry->key);
  }
}

std::optional<analysis::ModuleSummary> SummaryStore::find(std::string_view key) const {
  const auto it = index_.find(key);
  if (it == index_.end() || it->second.checksum != hash128(it->second.payload)) return std::nullopt;
  return analysis::decode(it->second.payload);
}

size_t SummaryStore::save(const RunSummaries& run, size_t keep) const {
  const size_t added = static_cast<size_t>(
      std::count_if(run.begin(), run.end(), [](const RunSummary& r) { return !r.found && r.summary; }));
  if (added == 0 || !make_folder(dir_, dir_)) return 0;
  std::string out = summaries_header();
  std::unordered_set<std::string_view> written;
  const auto put = [&](std::string_view key, std::string_view checksum, std::string_view payload) {
    if (!written.insert(key).second) return;  // two files of one name and text share a key
    put_entry(out, key, checksum, payload);
  };
  const size_t header_size = out.size();
  for (const RunSummary& r : run) {
    if (!r.summary) continue;
    if (r.found) {
      const Stored& e = index_.at(r.key);
      put(r.key, e.checksum, e.payload);
    } else {
      const std::string payload = analysis::encode(*r.summary);
      put(r.key, hash128(payload), payload);
    }
  }
  // The run's entries, each with its line; the others may take three times as much.
  const size_t run_end = out.size();
  const size_t others_limit = 3 * (run_end - header_size);
  for (const std::string_view key : order_) {
    const Stored& e = index_.at(key);
    const size_t size = fmt::formatted_size("{} {} {}\n", key, e.checksum, e.payload.size()) + e.payload.size();
    if (written.size() >= keep || out.size() - run_end + size > others_limit) break;
    put(key, e.checksum, e.payload);
  }
  return write_whole(summaries_file(dir_), out) ? added : 0;
}

std::string load_evidence(const std::filesystem::path& dir) {
  const std::string bytes = read_whole(evidence_file(dir));
  std::string_view rest = bytes;
  const std::string header = evidence_header();
  if (!rest.starts_with(header)) return {};
  rest.remove_prefix(header.size());
  const std::optional<FileEntry> entry = take_entry(rest);
  if (!entry || !rest.empty() || entry->key != kEvidenceKey || entry->checksum != hash128(entry->payload)) return {};
  return std::string(entry->payload);
}

void store_evidence(const std::filesystem::path& dir, std::string_view records) {
  if (!make_folder(dir, dir)) return;
  std::string out = evidence_header();
  put_entry(out, kEvidenceKey, hash128(records), records);
  write_whole(evidence_file(dir), out);
}

}  // namespace graphmend::driver::cache
