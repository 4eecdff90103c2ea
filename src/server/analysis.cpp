#include "graphmend/server/analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "graphmend/driver/config.h"
#include "graphmend/driver/resolve.h"
#include "graphmend/fix/apply.h"
#include "graphmend/report/report.h"

namespace graphmend::server {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// The run `graphmend check - --stdin-filename PATH` makes from PATH's folder: the nearest
// configuration's settings, as the command line reads them when it is given no flags.
std::variant<driver::Options, std::string> options_for(const Document& doc, const Documents& open,
                                                       std::shared_ptr<driver::ParsedFiles> parsed,
                                                       std::shared_ptr<analysis::EvidenceMemo> evidence) {
  driver::Settings settings;
  if (const std::optional<std::filesystem::path> file = driver::find_config(doc.path)) {
    auto loaded = driver::load_config(*file);
    if (auto* err = std::get_if<driver::ConfigError>(&loaded)) return err->message;
    settings = std::get<driver::Settings>(std::move(loaded));
  }
  driver::Options o;
  o.settings = std::make_shared<driver::SettingsResolver>(driver::CommandLineSettings{}, std::nullopt);
  driver::apply_settings(settings, o);
  o.discovery.stdin_filename = doc.path.string();
  o.stdin_text = doc.text;
  o.unsaved = open.unsaved_except(doc);
  o.parsed = std::move(parsed);
  o.evidence_memo = std::move(evidence);
  return o;
}

// Why a run checked nothing, or the empty string.
std::string problem_of(const driver::RunReport& report) {
  if (!report.config_errors.empty()) return report.config_errors.front().message;
  for (const driver::FileReport& f : report.files) {
    if (f.from_stdin && f.error) return f.error->message;
  }
  return {};
}

const driver::FileReport* document_report(const driver::RunReport& report) {
  for (const driver::FileReport& f : report.files) {
    if (f.from_stdin && !f.error) return &f;
  }
  return nullptr;
}

// One edit from `before` to `after`: what lies between their common prefix and suffix, cut at
// character boundaries (none when they are equal).
std::vector<source::Edit> difference(std::string_view before, std::string_view after) {
  if (before == after) return {};
  const auto continuation = [](char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; };
  size_t prefix = static_cast<size_t>(std::mismatch(before.begin(), before.end(), after.begin(), after.end()).first -
                                     before.begin());
  size_t suffix = 0;
  while (suffix < before.size() - prefix && suffix < after.size() - prefix &&
         before[before.size() - 1 - suffix] == after[after.size() - 1 - suffix]) {
    ++suffix;
  }
  while (prefix > 0 && prefix < before.size() && continuation(before[prefix])) --prefix;
  while (suffix > 0 && continuation(before[before.size() - suffix])) --suffix;
  return {{{static_cast<uint32_t>(prefix), static_cast<uint32_t>(before.size() - suffix)},
           std::string(after.substr(prefix, after.size() - suffix - prefix))}};
}

}  // namespace

FileAnalysis Analyzer::analyse(const Document& doc, const Documents& open) {
  FileAnalysis out;
  out.version = doc.version;
  out.text = doc.text;
  auto options = options_for(doc, open, parsed_, evidence_);
  if (auto* problem = std::get_if<std::string>(&options)) {
    out.problem = *problem;
    return out;
  }
  const driver::RunReport report = driver::run({"-"}, std::get<driver::Options>(options));
  out.problem = problem_of(report);
  if (const driver::FileReport* f = document_report(report)) {
    out.file = *f;
    out.bom = f->original->has_bom ? static_cast<uint32_t>(kBom.size()) : 0;
  }
  return out;
}

std::optional<DocumentFix> Analyzer::fix_one(const FileAnalysis& analysis, const source::Fix& fix) {
  if (!analysis.file) return std::nullopt;
  const driver::FileReport& f = *analysis.file;
  const std::string& text = f.original->text;
  const std::optional<syntax::Tree> tree = parser_.parse(text);
  if (!tree || tree->has_error()) return std::nullopt;
  std::optional<std::vector<source::Edit>> edits = report::whole_fix_edits(text, fix, parser_, f.link, tree->root());
  if (!edits) return std::nullopt;
  DocumentFix out;
  const source::Fix whole{*edits, {}, fix.applicability, fix.title, {}};
  if (f.package_root && f.link.package_level &&
      driver::binds_packaged_runtime(fix::apply_fixes(text, {&whole}).text)) {
    out.runtime_file = driver::runtime_file_to_write(*f.package_root);
  }
  for (source::Edit& e : *edits) {
    // Byte for byte the decoded text, but for the BOM before it and the lone CRs it reads as LF.
    if (f.original->cr_only) std::replace(e.replacement.begin(), e.replacement.end(), '\n', '\r');
    out.edits.push_back({{e.range.start + analysis.bom, e.range.end + analysis.bom}, std::move(e.replacement)});
  }
  return out;
}

std::optional<DocumentFix> Analyzer::fix_all(const Document& doc, const Documents& open) {
  auto options = options_for(doc, open, parsed_, evidence_);
  if (std::holds_alternative<std::string>(options)) return std::nullopt;
  driver::Options& o = std::get<driver::Options>(options);
  o.fix = true;
  o.diff = true;  // computed, never written: the editor applies the edit
  o.unsafe_fixes = false;
  const driver::RunReport report = driver::run({"-"}, o);
  const driver::FileReport* f = document_report(report);
  if (!f || !problem_of(report).empty()) return std::nullopt;
  DocumentFix out;
  out.edits = difference(doc.text, source::encode_for_write(*f->original, f->text(), f->lone_crs));
  for (const driver::GeneratedFile& g : report.runtime_files) {
    if (!g.write_error) out.runtime_file = g;
  }
  return out;
}

}  // namespace graphmend::server
