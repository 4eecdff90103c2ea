// Jupyter notebooks (.ipynb, nbformat 4) read as one Python module, as ruff reads them.
//
// The analysed text is the code cells' sources joined in notebook order (as Jupyter runs them),
// each cell ended by a line break and followed by one blank separator line. Byte ranges into that
// text stay the only coordinates of the pipeline; cells appear only here, at the boundary:
//   - reading: `parse_notebook` builds the joined text and its CellLayout;
//   - reporting: `locate` turns an offset into (cell, line in the cell, column);
//   - writing: `notebook_bytes` splits a fixed text back into cells and rewrites, in the original
//     JSON, only the "source" values of the cells that changed: every other byte (metadata,
//     outputs, other cells, indentation, key order, the final newline) is kept.
// IPython syntax is no Python: a cell of IPython is left out (a cell magic whose body is not Python,
// `%%bash`; an automagic line, `pip install x`, with a warning), but `%%time`'s and `%%capture`'s
// body is analysed; a cell indented as a whole is left out with a warning (IPython dedents it);
// a line magic, shell escape or help line (`%time f()`, `!pip install x`, `x = !ls`, `obj?`)
// is masked by a neutral expression of the same byte length, so offsets stay put, and restored
// when the notebook is written. A fix that would change a masked line or a cell boundary is not
// applied (`touches_protected`).
// Cells are numbered from 1 over all cells, markdown and raw included, as Jupyter shows them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "graphmend/source/text.h"

namespace graphmend::source {

// Where the analysed cells stand in a module text: the joined text as read, or as fixes moved it.
struct CellLayout {
  // Per analysed code cell, in notebook order: the offset of the blank separator line after it.
  std::vector<uint32_t> separators;
  // The masked IPython lines, in order, as they stand in the text.
  std::vector<TextRange> masked;

  friend bool operator==(const CellLayout&, const CellLayout&) = default;
};

struct CellPlace {
  uint32_t cell = 1;    // 1-based over all cells of the notebook
  uint32_t line = 1;    // 1-based in the cell
  uint32_t column = 1;  // 1-based, in code points
};

struct NotebookCell {
  uint32_t number = 0;           // 1-based over all cells
  TextRange json_source;         // the cell's "source" value in the notebook's JSON
  bool source_is_list = false;   // a list of lines (the usual form) rather than one string
  bool newline_added = false;    // the join added the line break that ends it
  std::string source;            // decoded
};

struct Notebook {
  std::string json;                  // the file's bytes
  std::vector<NotebookCell> cells;   // the analysed code cells, in order
  std::vector<std::string> masked_lines;  // the original bytes of each CellLayout::masked range
  // Warnings, "cell 3:2: ...", for code cells left out that a reader would expect checked (an
  // automagic line, a cell indented as a whole); a cell magic's cell (`%%bash`) is left out silently.
  std::vector<std::string> left_out;
  std::string joined;                // the module text
  CellLayout layout;                 // of `joined`
  // The kernel's language when it is not Python: nothing is analysed.
  std::optional<std::string> other_language;
};

// Parses a notebook's bytes; an error is one clear sentence (without the path).
std::variant<Notebook, std::string> parse_notebook(std::string json);

// Whether `path` names a notebook (its extension is .ipynb).
bool is_notebook_path(std::string_view path);

// The cell, line and column of `offset` in `text`, whose cells are laid out as `cells`.
CellPlace locate(const Notebook& notebook, std::string_view text, const CellLayout& cells, uint32_t offset);

// Each analysed cell's source in `text` (laid out as `cells`), masked lines restored: what the
// cell holds once written. Nullopt when the layout does not fit the text.
std::optional<std::vector<std::string>> cell_sources(const Notebook& notebook, std::string_view text,
                                                     const CellLayout& cells);

// The notebook's bytes with each analysed cell's source taken from `text` (laid out as `cells`);
// only changed cells' "source" values differ from `notebook.json`. Nullopt when the layout does
// not fit the text.
std::optional<std::string> notebook_bytes(const Notebook& notebook, std::string_view text, const CellLayout& cells);

// `text` (laid out as `cells`) with its masked IPython lines restored, as a reader of the cells sees
// it: the same length and offsets (a masked line's stand-in has its length). `text` itself when the
// layout does not fit it.
std::string shown_text(const Notebook& notebook, std::string_view text, const CellLayout& cells);

// Whether replacing `range` of a text laid out as `cells` would change a masked IPython line or a
// cell's separator.
bool touches_protected(const CellLayout& cells, TextRange range);

}  // namespace graphmend::source
