#include "graphmend/server/server.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>

#include "graphmend/rules/rule_docs.h"
#include "graphmend/source/notebook.h"
#include "graphmend/server/analysis.h"
#include "graphmend/server/documents.h"
#include "graphmend/server/jsonrpc.h"

namespace graphmend::server {
namespace {

constexpr std::string_view kSafeFixKind = "quickfix";
constexpr std::string_view kUnsafeFixKind = "quickfix.unsafe.graphmend";
constexpr std::string_view kFixAllKind = "source.fixAll.graphmend";
constexpr int kSeverityError = 1;
constexpr int kSeverityWarning = 2;
constexpr int kSeverityInformation = 3;
constexpr int kMessageInfo = 3;

json position_json(Position p) { return {{"line", p.line}, {"character", p.character}}; }

Position position_of(const json& p) { return {p.at("line").get<uint32_t>(), p.at("character").get<uint32_t>()}; }

json range_json(const LineMap& lines, uint32_t start, uint32_t end, PositionEncoding encoding) {
  return {{"start", position_json(lines.position(start, encoding))}, {"end", position_json(lines.position(end, encoding))}};
}

// Whether a code action of `kind` is asked for by `only` (absent: every kind): a kind asks for
// itself and the kinds below it ("source" asks for "source.fixAll.graphmend").
bool wanted(const json& only, std::string_view kind) {
  if (!only.is_array()) return true;
  return std::any_of(only.begin(), only.end(), [&](const json& o) {
    if (!o.is_string()) return false;
    const std::string& prefix = o.get_ref<const std::string&>();
    return kind == prefix || (kind.starts_with(prefix) && kind.size() > prefix.size() && kind[prefix.size()] == '.');
  });
}

class Server {
 public:
  explicit Server(Connection& connection) : connection_(connection) {
    dispatcher_.on_request("initialize", [this](const json& p) { return initialize(p); });
    dispatcher_.on_request("shutdown", [this](const json&) {
      shut_down_ = true;
      return json(nullptr);
    });
    dispatcher_.on_request("textDocument/codeAction", [this](const json& p) { return code_actions(p); });
    dispatcher_.on_request("codeAction/resolve", [this](const json& p) { return resolve_code_action(p); });
    dispatcher_.on_request("textDocument/hover", [this](const json& p) { return hover(p); });
    dispatcher_.on_notification("textDocument/didOpen", [this](const json& p) { did_open(p); });
    dispatcher_.on_notification("textDocument/didChange", [this](const json& p) { did_change(p); });
    dispatcher_.on_notification("textDocument/didSave", [this](const json&) { did_save(); });
    dispatcher_.on_notification("textDocument/didClose", [this](const json& p) { did_close(p); });
    // Anything else (initialized, $/cancelRequest once its request is answered, settings) needs nothing.
  }

  // The lifecycle: nothing but `initialize` before it, nothing after `shutdown` but `exit`.
  int run() {
    while (true) {
      Incoming item = connection_.next();
      if (std::holds_alternative<EndOfInput>(item)) return shut_down_ ? 0 : 1;
      if (const auto* bad = std::get_if<BadMessage>(&item)) {
        connection_.respond_error(bad->id, bad->code, bad->reason);
        continue;
      }
      const Message& m = std::get<Message>(item);
      if (m.method == "exit") return shut_down_ ? 0 : 1;
      if (m.method.empty()) continue;  // a response: this server sends no requests
      if (!m.is_request()) {
        if (!initialized_ || shut_down_) continue;  // dropped, as the protocol asks
        if (std::optional<std::string> error = dispatcher_.take(m)) log(fmt::format("{}: {}", m.method, *error));
      } else if (!initialized_ && m.method != "initialize") {
        connection_.respond_error(*m.id, ErrorCode::ServerNotInitialized, "the server has not been initialized");
      } else if (shut_down_) {
        connection_.respond_error(*m.id, ErrorCode::InvalidRequest, "the server is shutting down");
      } else {
        dispatcher_.answer(connection_, m);
      }
    }
  }

 private:
  json initialize(const json& params) {
    if (initialized_) throw RequestError{ErrorCode::InvalidRequest, "initialize was already called"};
    const json capabilities = params.value("capabilities", json::object());
    const json encodings = capabilities.value("general", json::object()).value("positionEncodings", json::array());
    if (std::find(encodings.begin(), encodings.end(), "utf-8") != encodings.end()) encoding_ = PositionEncoding::Utf8;
    const json edit = capabilities.value("workspace", json::object()).value("workspaceEdit", json::object());
    const json operations = edit.value("resourceOperations", json::array());
    creates_files_ = std::find(operations.begin(), operations.end(), "create") != operations.end();
    // Resource operations exist only in `documentChanges`: a client that names them takes those
    // (Neovim 0.11 announces `create` without `documentChanges: true`).
    document_changes_ = edit.value("documentChanges", false) || creates_files_;
    const json resolvable = capabilities.value("textDocument", json::object())
                                .value("codeAction", json::object())
                                .value("resolveSupport", json::object())
                                .value("properties", json::array());
    resolves_edits_ = std::find(resolvable.begin(), resolvable.end(), "edit") != resolvable.end();
    if (const json options = params.value("initializationOptions", json::object()); options.is_object()) {
      unsafe_fixes_ = options.value("unsafeFixes", true);
    }
    enter_workspace(params);
    initialized_ = true;
    return {{"capabilities",
             {{"positionEncoding", encoding_ == PositionEncoding::Utf8 ? "utf-8" : "utf-16"},
              {"textDocumentSync", {{"openClose", true}, {"change", 2 /* incremental */}, {"save", {{"includeText", false}}}}},
              {"codeActionProvider",
               {{"codeActionKinds", {kSafeFixKind, kUnsafeFixKind, kFixAllKind}}, {"resolveProvider", true}}},
              {"hoverProvider", true}}},
            {"serverInfo", {{"name", "graphmend"}, {"version", GRAPHMEND_VERSION}}}};
  }

  // Paths are reported and relative patterns read from the workspace's root, as `graphmend
  // check` run there would.
  static void enter_workspace(const json& params) {
    std::optional<std::filesystem::path> root;
    if (const json folders = params.value("workspaceFolders", json()); folders.is_array() && !folders.empty()) {
      root = path_of_uri(folders.front().value("uri", ""));
    } else if (const json uri = params.value("rootUri", json()); uri.is_string()) {
      root = path_of_uri(uri.get<std::string>());
    }
    std::error_code ec;
    if (root && std::filesystem::is_directory(*root, ec)) std::filesystem::current_path(*root, ec);
  }

  void did_open(const json& params) {
    const json& doc = params.at("textDocument");
    Document* d = documents_.open(doc.at("uri").get<std::string>(), doc.at("version").get<int64_t>(),
                                  doc.at("text").get<std::string>());
    if (!d) return;
    if (checked(*d)) {
      publish(*d);
    } else {
      connection_.notify("window/logMessage",
                         {{"type", kMessageInfo},
                          {"message", fmt::format("graphmend: {} is not checked in the editor: notebooks are checked "
                                                  "by `graphmend check` and fixed by `graphmend fix`", d->path.string())}});
    }
  }

  // Whether the server checks `doc`. A notebook is analysed as its joined code cells, whose findings
  // and fixes do not stand at the same places in the notebook's JSON that the editor shows.
  static bool checked(const Document& doc) { return !source::is_notebook_path(doc.path.string()); }

  // The moment to take in what changed on disk meanwhile (a branch checked out, `graphmend fix`
  // run in a terminal): every open document is analysed again.
  void did_save() {
    analyses_.clear();
    for (Document* d : documents_.all()) {
      if (checked(*d)) publish(*d);
    }
  }

  void did_close(const json& params) {
    const std::string uri = params.at("textDocument").at("uri").get<std::string>();
    documents_.close(uri);
    analyses_.erase(uri);
    connection_.notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
  }

  // The changes apply all or none: one that cannot be read leaves the document as it was.
  void did_change(const json& params) {
    const json& id = params.at("textDocument");
    Document* doc = documents_.find(id.at("uri").get<std::string>());
    if (!doc) return;
    Document changed = *doc;
    changed.version = id.at("version").get<int64_t>();
    for (const json& change : params.at("contentChanges")) {
      std::optional<std::pair<Position, Position>> range;
      if (const auto r = change.find("range"); r != change.end()) {
        range = {position_of(r->at("start")), position_of(r->at("end"))};
      }
      if (!Documents::replace(changed, range, change.at("text").get<std::string>(), encoding_)) {
        throw RequestError{ErrorCode::InvalidParams, "a change's range ends before it starts"};
      }
    }
    *doc = std::move(changed);
    if (!checked(*doc)) return;
    // A later change to the same document is already waiting: analyse after that one instead.
    if (connection_.queued([&](const Message& next) {
          return (next.method == "textDocument/didChange" || next.method == "textDocument/didClose") &&
                 next.params.is_object() && next.params.value("textDocument", json::object()).value("uri", "") == doc->uri;
        })) {
      return;
    }
    publish(*doc);
  }

  // The analysis of `doc`'s current version (made now if the last one is older).
  const FileAnalysis& fresh_analysis(const Document& doc) {
    const auto it = analyses_.find(doc.uri);
    if (it != analyses_.end() && it->second.version == doc.version && it->second.text == doc.text) return it->second;
    return analyses_[doc.uri] = analyzer_.analyse(doc, documents_);
  }

  void publish(const Document& doc) {
    const FileAnalysis& analysis = fresh_analysis(doc);
    const LineMap lines(analysis.text);
    json diagnostics = json::array();
    if (!analysis.problem.empty()) {
      diagnostics.push_back({{"range", range_json(lines, 0, 0, encoding_)},
                             {"severity", kSeverityError},
                             {"source", "graphmend"},
                             {"message", fmt::format("graphmend could not check this file: {}", analysis.problem)}});
    }
    if (analysis.file) {
      for (const rules::Diagnostic& d : analysis.file->diagnostics) diagnostics.push_back(diagnostic_json(analysis, lines, d));
      for (const std::string& warning : analysis.file->warnings) diagnostics.push_back(warning_json(lines, warning));
    }
    connection_.notify("textDocument/publishDiagnostics",
                       {{"uri", doc.uri}, {"version", doc.version}, {"diagnostics", std::move(diagnostics)}});
  }

  json diagnostic_json(const FileAnalysis& analysis, const LineMap& lines, const rules::Diagnostic& d) const {
    return {{"range", range_json(lines, d.range.start + analysis.bom, d.range.end + analysis.bom, encoding_)},
            {"severity", kSeverityWarning},
            {"code", std::string(d.rule->code)},
            {"source", "graphmend"},
            {"message", d.message}};
  }

  // A warning the CLI prints on stderr ("<line>: <text>": a suppression comment naming no rule, a
  // generated file whose fixes are withheld, a damaged generated block), on its line.
  json warning_json(const LineMap& lines, std::string_view warning) const {
    uint32_t line = 1;
    const auto [end, error] = std::from_chars(warning.data(), warning.data() + warning.size(), line);
    const std::string_view rest(end, static_cast<size_t>(warning.data() + warning.size() - end));
    if (error == std::errc() && rest.starts_with(": ")) {
      warning = rest.substr(2);
    } else {
      line = 1;
    }
    const Position start{line > 0 ? line - 1 : 0, 0};
    const uint32_t from = lines.offset(start, encoding_);
    const uint32_t to = lines.offset({start.line, std::numeric_limits<uint32_t>::max()}, encoding_);
    return {{"range", range_json(lines, from, to, encoding_)},
            {"severity", kSeverityInformation},
            {"source", "graphmend"},
            {"message", std::string(warning)}};
  }

  Document& document_of(const json& params) {
    Document* doc = documents_.find(params.at("textDocument").at("uri").get<std::string>());
    if (!doc) throw RequestError{ErrorCode::InvalidParams, "the document is not open"};
    return *doc;
  }

  json code_actions(const json& params) {
    Document& doc = document_of(params);
    json actions = json::array();
    if (!checked(doc)) return actions;
    const FileAnalysis& analysis = fresh_analysis(doc);
    if (!analysis.file) return actions;
    const LineMap lines(doc.text);
    const uint32_t from = lines.offset(position_of(params.at("range").at("start")), encoding_);
    const uint32_t to = lines.offset(position_of(params.at("range").at("end")), encoding_);
    const json only = params.value("context", json::object()).value("only", json());
    std::unordered_set<const source::Fix*> offered;  // the arms of a chain share one fix
    bool any_safe = false;       // in the document
    bool any_safe_here = false;  // in the range asked about
    for (const rules::Diagnostic& d : analysis.file->diagnostics) {
      if (!d.fix) continue;
      const bool safe = d.fix->applies(source::Applicability::Safe);
      any_safe |= safe;
      const std::string_view kind = safe ? kSafeFixKind : kUnsafeFixKind;
      if (!d.fix->applies(source::Applicability::Unsafe) || (!safe && !unsafe_fixes_) || !wanted(only, kind)) continue;
      const uint32_t start = d.range.start + analysis.bom;
      const uint32_t end = d.range.end + analysis.bom;
      if (start > to || end < from) continue;
      any_safe_here |= safe;
      if (!offered.insert(d.fix.get()).second) continue;
      const std::optional<DocumentFix> fix = analyzer_.fix_one(analysis, *d.fix);
      std::optional<json> edit = fix ? workspace_edit(doc, *fix) : std::nullopt;
      if (!edit) continue;
      actions.push_back({{"title", fmt::format("Fix {}: {}{}", d.rule->code, d.fix->title, safe ? "" : " (unsafe)")},
                         {"kind", kind},
                         {"diagnostics", {diagnostic_json(analysis, lines, d)}},
                         {"isPreferred", safe},
                         {"edit", std::move(*edit)}});
    }
    // Every safe fix at once: asked for by kind (editors' fix-all on save), or offered beside the
    // fixes. It takes a whole `fix` run, so a client that resolves actions gets its edit only when
    // it picks the action; another is offered it beside a finding's own fix, not at every cursor move.
    if (wanted(only, kFixAllKind) && (only.is_array() || (resolves_edits_ ? any_safe : any_safe_here))) {
      json action = {{"title", "Fix all safe graphmend findings"},
                     {"kind", kFixAllKind},
                     {"data", {{"uri", doc.uri}}}};
      if (resolves_edits_ || resolve_fix_all(action)) actions.push_back(std::move(action));
    }
    return actions;
  }

  // `codeAction/resolve`: the fix-all action's edit, for the document as it is now.
  json resolve_code_action(json action) {
    if (action.value("kind", "") != kFixAllKind || action.contains("edit")) return action;
    resolve_fix_all(action);
    return action;
  }

  // Adds the edit of every safe fix to a fix-all action; false when there is nothing to fix.
  bool resolve_fix_all(json& action) {
    Document* doc = documents_.find(action.at("data").at("uri").get<std::string>());
    if (!doc) throw RequestError{ErrorCode::InvalidParams, "the document is not open"};
    if (!checked(*doc)) return false;
    const std::optional<DocumentFix> all = analyzer_.fix_all(*doc, documents_);
    std::optional<json> edit = all && !all->edits.empty() ? workspace_edit(*doc, *all) : std::nullopt;
    if (!edit) return false;
    action["edit"] = std::move(*edit);
    return true;
  }

  // The fix as a WorkspaceEdit: the document's edits, and the runtime file created or replaced
  // whole when the fix needs it. Nullopt when the client cannot make the edit (it cannot create
  // the runtime file a fix needs).
  std::optional<json> workspace_edit(const Document& doc, const DocumentFix& fix) const {
    const LineMap lines(doc.text);
    json edits = json::array();
    for (const source::Edit& e : fix.edits) {
      edits.push_back({{"range", range_json(lines, e.range.start, e.range.end, encoding_)}, {"newText", e.replacement}});
    }
    json runtime_edit;  // the runtime file's one edit: all of its old text (none when new) replaced
    std::string runtime_uri;
    if (fix.runtime_file) {
      if (!fix.runtime_file->before && !creates_files_) return std::nullopt;
      const std::string before = fix.runtime_file->before.value_or("");
      const LineMap old(before);
      runtime_uri = uri_of_path(std::filesystem::absolute(fix.runtime_file->path).lexically_normal());
      runtime_edit = {{"range", range_json(old, 0, static_cast<uint32_t>(before.size()), encoding_)},
                      {"newText", fix.runtime_file->after}};
    }
    if (!document_changes_) {
      json changes = {{doc.uri, std::move(edits)}};
      if (fix.runtime_file) changes[runtime_uri] = json::array({std::move(runtime_edit)});
      return json{{"changes", std::move(changes)}};
    }
    json changes = json::array();
    if (fix.runtime_file && !fix.runtime_file->before) {
      // Neither overwrite nor ignoreIfExists: a file of that name made since the analysis fails
      // the edit rather than be overwritten or prepended to.
      changes.push_back({{"kind", "create"}, {"uri", runtime_uri}});
    }
    if (fix.runtime_file) {
      changes.push_back({{"textDocument", {{"uri", runtime_uri}, {"version", nullptr}}}, {"edits", {std::move(runtime_edit)}}});
    }
    changes.push_back({{"textDocument", {{"uri", doc.uri}, {"version", doc.version}}}, {"edits", std::move(edits)}});
    return json{{"documentChanges", std::move(changes)}};
  }

  // The document of each rule with a finding under the cursor.
  json hover(const json& params) {
    Document& doc = document_of(params);
    if (!checked(doc)) return nullptr;
    const FileAnalysis& analysis = fresh_analysis(doc);
    if (!analysis.file) return nullptr;
    const LineMap lines(doc.text);
    const uint32_t at = lines.offset(position_of(params.at("position")), encoding_);
    std::string markdown;
    std::set<std::string_view> shown;
    std::optional<json> range;
    for (const rules::Diagnostic& d : analysis.file->diagnostics) {
      const uint32_t start = d.range.start + analysis.bom;
      const uint32_t end = d.range.end + analysis.bom;
      if (at < start || at > end || !shown.insert(d.rule->code).second) continue;
      for (const rules::RuleDoc& rule : rules::rule_docs()) {
        if (rule.code != d.rule->code) continue;
        markdown += fmt::format("{}{}", markdown.empty() ? "" : "\n\n---\n\n", rule.markdown);
        if (!range) range = range_json(lines, start, end, encoding_);
      }
    }
    if (markdown.empty()) return nullptr;
    return {{"contents", {{"kind", "markdown"}, {"value", std::move(markdown)}}}, {"range", std::move(*range)}};
  }

  void log(std::string_view message) {
    connection_.notify("window/logMessage", {{"type", 1 /* error */}, {"message", fmt::format("graphmend: {}", message)}});
  }

  Connection& connection_;
  Dispatcher dispatcher_;
  Documents documents_;
  Analyzer analyzer_;
  std::map<std::string, FileAnalysis> analyses_;  // by URI, the latest of each open document
  PositionEncoding encoding_ = PositionEncoding::Utf16;
  bool initialized_ = false;
  bool shut_down_ = false;
  bool unsafe_fixes_ = true;
  bool document_changes_ = false;  // the client takes WorkspaceEdit.documentChanges
  bool creates_files_ = false;     // ... and CreateFile among them
  bool resolves_edits_ = false;    // the client asks for a code action's edit when it is picked
};

}  // namespace

int serve(std::istream& in, std::ostream& out) {
  Connection connection(in, out);
  return Server(connection).run();
}

}  // namespace graphmend::server
