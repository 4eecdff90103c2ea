// `graphmend server`: a language server over standard input and output. Diagnostics are
// published when a document is opened, changed and saved (cleared when it is closed); code
// actions offer each finding's fix (safe ones as `quickfix`, unsafe ones as
// `quickfix.unsafe.graphmend`) and every safe fix at once (`source.fixAll.graphmend`); hovering a
// finding shows its rule's document. See docs/editors.md.
//
// Settings (initializationOptions): `unsafeFixes` (default true): offer the unsafe fixes.
#pragma once

#include <istream>
#include <ostream>

namespace graphmend::server {

// Serves until `exit`, or until the input ends. Returns the process's exit code: 0 after a
// `shutdown` request, 1 otherwise (as the protocol asks).
int serve(std::istream& in, std::ostream& out);

}  // namespace graphmend::server
