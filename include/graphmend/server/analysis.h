// The graphmend side of the language server: a document's findings and fixes, made by the same
// run as `graphmend check - --stdin-filename PATH` and `graphmend fix -` (driver/run.h), with the
// configuration that path takes (driver/resolve.h), the rest of its project read from disk for
// cross-file facts, and the other open documents' unsaved text in place of their files.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graphmend/analysis/call_evidence.h"
#include "graphmend/driver/run.h"
#include "graphmend/server/documents.h"
#include "graphmend/source/edit.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::server {

// One analysis of a document at one version.
struct FileAnalysis {
  int64_t version = 0;
  std::string text;  // the document's text it was made from
  // The file's report: its findings, in the coordinates of its decoded text (after a BOM). None
  // when nothing was checked: the configuration excludes the file, or `problem` says why.
  std::optional<driver::FileReport> file;
  std::string problem;  // a configuration that cannot be read, text that cannot be decoded, ...
  uint32_t bom = 0;     // the BOM's bytes at the start of `text`, before what the findings index
};

// A fix as an editor applies it: edits to the document and, when the fix needs the package's
// runtime file and it is missing or stale, that file's whole new text.
struct DocumentFix {
  std::vector<source::Edit> edits;  // sorted, non-overlapping, in the document's bytes
  std::optional<driver::GeneratedFile> runtime_file;
};

// Keeps the project's parsed files between runs: a keystroke re-parses the document, not the
// project (driver::ParsedFiles); and the call evidence, so that it types again only the compiled
// callers the change reaches (analysis::EvidenceMemo).
class Analyzer {
 public:
  // The findings of `doc`'s current text, with `open`'s other documents as unsaved buffers.
  FileAnalysis analyse(const Document& doc, const Documents& open);
  // What `graphmend fix` makes of the analysed text with `fix` alone (nullopt: it would not apply).
  std::optional<DocumentFix> fix_one(const FileAnalysis& analysis, const source::Fix& fix);
  // What `graphmend fix -` makes of the document: every safe fix, to a fixpoint (no edits when
  // there is nothing to fix; nullopt when the file cannot be analysed).
  std::optional<DocumentFix> fix_all(const Document& doc, const Documents& open);

 private:
  syntax::Parser parser_;
  std::shared_ptr<driver::ParsedFiles> parsed_ = std::make_shared<driver::ParsedFiles>();
  std::shared_ptr<analysis::EvidenceMemo> evidence_ = std::make_shared<analysis::EvidenceMemo>();
};

}  // namespace graphmend::server
