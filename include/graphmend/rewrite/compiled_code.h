// Compiled code: the text a rewrite runs in a statement's place under torch.compile, as planners
// build it and the compile gates (compile_gates.h) write it into the file. A planner writes it
// without knowing where it lands: '\n' starts a line at the branch's indentation, kIndentStep is
// one more level, kRawNewline is a line break copied from the original source; render_code turns
// that into file text at the branch's indentation and line break, each generated line wrapped at
// the line length (python_layout.h). copied and reindented bring the original's expressions and
// statements in, their multi-line strings byte for byte.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graphmend/ir/module.h"

namespace graphmend::rewrite {

inline constexpr char kIndentStep = '\x03';
inline constexpr char kRawNewline = '\x04';

// A rewrite's compiled code, built a line at a time; `level` counts steps below the indentation
// of the branch that holds it.
struct CompiledCode {
  std::string text;
  int level = 0;
  void line(std::string_view code);
};

// `node`'s source for generated code, every line break kept as it is (kRawNewline).
std::string copied(const ir::Module& m, ir::Node node);
// `text` with every line break ("\r\n", "\r", "\n") as kRawNewline.
std::string with_raw_newlines(std::string_view text);
// `node`'s source for a block `levels` deeper than the compiled code's branch: each line after the
// first gets that branch's indentation plus `levels` steps on top of its own, except lines inside
// a multi-line string, which stay byte for byte.
std::string reindented(const ir::Module& m, ir::Node node, int levels);

// Compiled code as file text: its first line follows text already on the line, `inner` wide
// (`else:` and the branch's indentation); each later line starts at `inner`, plus `unit` per
// kIndentStep; a generated line too long for the line length is wrapped (wrapped_line), unless it
// holds copied line breaks, which are written as `newline` with the copied indentation kept.
std::string render_code(std::string_view code, std::string_view newline, std::string_view inner,
                        std::string_view unit);

// The strings inside `node` that span lines: a line break in one is part of its value, so
// re-indenting never touches the line after it.
std::vector<source::TextRange> multiline_strings_in(const ir::Module& m, ir::Node node);
// True when `offset` lies strictly inside one of `ranges`.
bool inside_any(const std::vector<source::TextRange>& ranges, uint32_t offset);

}  // namespace graphmend::rewrite
