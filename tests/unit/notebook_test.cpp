#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "graphmend/source/notebook.h"
#include "graphmend/source/source_file.h"

namespace graphmend::source {
namespace {

// A notebook as Jupyter writes it (indent 1, sources as lists of lines), with outputs and
// metadata that must survive a rewrite byte for byte.
const std::string kNotebook = R"nb({
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "# A model"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": 1,
   "metadata": {"tags": ["setup"]},
   "outputs": [{"name": "stdout", "output_type": "stream", "text": ["ok\n"]}],
   "source": [
    "%matplotlib inline\n",
    "import torch"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": "%%bash\nls -l"
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": [
    "def f(x):\n",
    "    files = !ls\n",
    "    print(x)"
   ]
  }
 ],
 "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
)nb";

Notebook parsed(const std::string& json) {
  std::variant<Notebook, std::string> r = parse_notebook(json);
  if (auto* error = std::get_if<std::string>(&r)) ADD_FAILURE() << *error;
  return std::get<Notebook>(std::move(r));
}

TEST(Notebook, CodeCellsJoinedInOrderWithMagicsMaskedAtTheirLength) {
  const Notebook nb = parsed(kNotebook);
  // The markdown cell and the `%%bash` cell are left out; cells 2 and 4 are joined, each ended by
  // a line break and a blank separator line.
  ASSERT_EQ(nb.cells.size(), 2u);
  EXPECT_EQ(nb.cells[0].number, 2u);
  EXPECT_EQ(nb.cells[1].number, 4u);
  EXPECT_EQ(nb.joined,
            "...               \n"
            "import torch\n"
            "\n"
            "def f(x):\n"
            "    files = ...\n"
            "    print(x)\n"
            "\n");
  EXPECT_EQ(nb.masked_lines, (std::vector<std::string>{"%matplotlib inline", "!ls"}));
  ASSERT_EQ(nb.layout.masked.size(), 2u);
  EXPECT_EQ(nb.joined.substr(nb.layout.masked[1].start, nb.layout.masked[1].length()), "...");
  EXPECT_EQ(nb.layout.separators, (std::vector<uint32_t>{32, 72}));
}

TEST(Notebook, OffsetsLocatedByCellLineAndColumn) {
  const Notebook nb = parsed(kNotebook);
  const uint32_t print_at = static_cast<uint32_t>(nb.joined.find("print"));
  const CellPlace p = locate(nb, nb.joined, nb.layout, print_at);
  EXPECT_EQ(p.cell, 4u);
  EXPECT_EQ(p.line, 3u);
  EXPECT_EQ(p.column, 5u);
  const CellPlace first = locate(nb, nb.joined, nb.layout, static_cast<uint32_t>(nb.joined.find("import")));
  EXPECT_EQ(first.cell, 2u);
  EXPECT_EQ(first.line, 2u);
  EXPECT_EQ(first.column, 1u);
}

TEST(Notebook, UnchangedTextWritesTheSameBytes) {
  const Notebook nb = parsed(kNotebook);
  const auto bytes = notebook_bytes(nb, nb.joined, nb.layout);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(*bytes, kNotebook);
}

TEST(Notebook, OnlyTheChangedCellsSourceIsRewrittenInItsOwnForm) {
  const Notebook nb = parsed(kNotebook);
  std::string text = nb.joined;
  const std::string print = "print(x)";
  text.replace(text.find(print), print.size(), "_emit(x)");
  const auto bytes = notebook_bytes(nb, text, nb.layout);
  ASSERT_TRUE(bytes.has_value());
  std::string expected = kNotebook;
  expected.replace(expected.find("\"    print(x)\""), 14, "\"    _emit(x)\"");
  EXPECT_EQ(*bytes, expected);  // the shell line `!ls` came back as it was
}

TEST(Notebook, TextInsertedAtACellStartGoesToThatCell) {
  const Notebook nb = parsed(kNotebook);
  // An insertion at the start of cell 4: the separator before it does not move.
  const uint32_t at = nb.layout.separators[0] + 1;
  std::string text = nb.joined;
  text.insert(at, "h = 0\n");
  CellLayout moved = nb.layout;
  moved.separators[1] += 6;
  moved.masked[1] = {moved.masked[1].start + 6, moved.masked[1].end + 6};
  const auto sources = cell_sources(nb, text, moved);
  ASSERT_TRUE(sources.has_value());
  EXPECT_EQ((*sources)[0], "%matplotlib inline\nimport torch");
  EXPECT_EQ((*sources)[1], "h = 0\ndef f(x):\n    files = !ls\n    print(x)");
  const auto bytes = notebook_bytes(nb, text, moved);
  ASSERT_TRUE(bytes.has_value());
  // A list source stays a list, one line an item, laid out as Jupyter laid it out.
  EXPECT_NE(bytes->find("   \"source\": [\n    \"h = 0\\n\",\n    \"def f(x):\\n\",\n"), std::string::npos);
  EXPECT_TRUE(nlohmann::json::accept(*bytes));
}

TEST(Notebook, AStringSourceStaysAString) {
  const std::string json =
      R"({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": "print(1)\n"}], )"
      R"("metadata": {}, "nbformat": 4, "nbformat_minor": 2})";
  const Notebook nb = parsed(json);
  EXPECT_EQ(nb.joined, "print(1)\n\n");
  std::string text = nb.joined;
  text.replace(0, 5, "shout");
  const auto bytes = notebook_bytes(nb, text, nb.layout);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_NE(bytes->find(R"("source": "shout(1)\n"})"), std::string::npos);
}

TEST(Notebook, MagicLinesAndCellBoundariesAreProtected) {
  const Notebook nb = parsed(kNotebook);
  const TextRange magic = nb.layout.masked[1];
  EXPECT_TRUE(touches_protected(nb.layout, {magic.start, magic.start + 1}));
  EXPECT_TRUE(touches_protected(nb.layout, {magic.end, magic.end}));  // appending to the line
  EXPECT_TRUE(touches_protected(nb.layout, {nb.layout.separators[0] - 1, nb.layout.separators[0] + 1}));
  EXPECT_FALSE(touches_protected(nb.layout, {nb.layout.separators[0], nb.layout.separators[0]}));
  const uint32_t print_at = static_cast<uint32_t>(nb.joined.find("print"));
  EXPECT_FALSE(touches_protected(nb.layout, {print_at, print_at + 5}));
}

TEST(Notebook, IPythonLineFormsAreMaskedAndPythonIsNot) {
  const std::string json =
      R"({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": [)"
      R"("!pip install torch\n", "torch.compile?\n", "x.sum??\n", "a, b = %who_ls\n", "%time f(\\\n", "  1)\n",)"
      R"("y = a % b\n", "z = a != b\n", "# why?\n", "s = 'q?'"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 2})";
  const Notebook nb = parsed(json);
  EXPECT_EQ(nb.masked_lines,
            (std::vector<std::string>{"!pip install torch", "torch.compile?", "x.sum??", "%who_ls", "%time f(\\", "  1)"}));
  EXPECT_NE(nb.joined.find("y = a % b\nz = a != b\n# why?\ns = 'q?'\n"), std::string::npos);
}

TEST(Notebook, OnlyLogicalLineStartsCanBeIPython) {
  // Inside a string, brackets or a backslash continuation a `%` or `!` line is Python, as IPython
  // reads it: masking it would let a fix copy the stand-in into new code.
  const std::string json =
      R"({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": [)"
      R"("doc = \"\"\"a\n", "%s items\n", "\"\"\"\n", "args = (\n", "!x)\n", "y = 1 + \\\n", "?z\n",)"
      R"("s = '%'  # (\n", "%who\n"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 2})";
  const Notebook nb = parsed(json);
  EXPECT_EQ(nb.masked_lines, (std::vector<std::string>{"%who"}));
}

TEST(Notebook, CellsOfIPythonAreLeftOutAndTransparentCellMagicsAnalysed) {
  const auto joined = [](std::vector<std::string> sources) {
    nlohmann::json doc = {{"cells", nlohmann::json::array()}, {"metadata", nlohmann::json::object()},
                          {"nbformat", 4}, {"nbformat_minor", 5}};
    for (std::string& s : sources) doc["cells"].push_back({{"cell_type", "code"}, {"source", std::move(s)}});
    return parsed(doc.dump()).joined;
  };
  EXPECT_EQ(joined({"%%bash\nls", "%%timeit\nf()", "pip install torch", "x = 1\ncd ~/data", "a = 1"}), "a = 1\n\n");
  EXPECT_EQ(joined({"%%time\ny = f()", "pip = 3\ncd = pip"}), "...   \ny = f()\n\npip = 3\ncd = pip\n\n");
}

// A notebook of code cells with these sources.
Notebook of_cells(std::vector<std::string> sources) {
  nlohmann::json doc = {{"cells", nlohmann::json::array()}, {"metadata", nlohmann::json::object()},
                        {"nbformat", 4}, {"nbformat_minor", 5}};
  for (std::string& s : sources) doc["cells"].push_back({{"cell_type", "code"}, {"source", std::move(s)}});
  return parsed(doc.dump());
}

TEST(Notebook, ABackslashContinuedIPythonLineIsMaskedWholeWithItsContinuations) {
  // IPython joins the continued lines into one command; an indented continuation is no Python block.
  const Notebook nb = of_cells({"!pip install torch \\\n    torchvision\nimport torch", "%time x = \\\n  1\ny = 2"});
  EXPECT_EQ(nb.joined, "...                 \n               \nimport torch\n\n...        \n   \ny = 2\n\n");
  EXPECT_EQ(nb.masked_lines,
            (std::vector<std::string>{"!pip install torch \\", "    torchvision", "%time x = \\", "  1"}));
}

TEST(Notebook, AutomagicIsOnlyAtALogicalLineStartAndItsCellIsLeftOutWithANote) {
  const Notebook in_string = of_cells({"HELP = \"\"\"\npip install torch\n\"\"\"\nx = 1"});
  EXPECT_EQ(in_string.joined, "HELP = \"\"\"\npip install torch\n\"\"\"\nx = 1\n\n");
  EXPECT_TRUE(in_string.left_out.empty());
  const Notebook automagic = of_cells({"import torch", "x = 1\npip install torch"});
  EXPECT_EQ(automagic.joined, "import torch\n\n");
  EXPECT_EQ(automagic.left_out,
            (std::vector<std::string>{"cell 2:2: the cell is left out: `pip install torch` is an IPython automagic "
                                      "command (as ruff reads it); write `%pip install torch` to have the cell checked"}));
}

TEST(Notebook, CellsAreReadAfterTheirLeadingBlankLinesAsIPythonReadsThem) {
  EXPECT_EQ(of_cells({"\n%%bash\necho hi\n", "  %%bash\necho hi", "a = 1"}).joined, "a = 1\n\n");
  EXPECT_EQ(of_cells({"\n%%time\nx = 1"}).joined, "\n...   \nx = 1\n\n");
  EXPECT_EQ(of_cells({"  # indented comment\nx = 1"}).joined, "  # indented comment\nx = 1\n\n");
  // IPython dedents a cell indented as a whole; its offsets could not stay the cell's: left out, said.
  const Notebook indented = of_cells({"\n    x = 1\n    y = x + 1\n"});
  EXPECT_EQ(indented.joined, "");
  EXPECT_EQ(indented.left_out, (std::vector<std::string>{"cell 1:2: the cell is left out: it is indented as a whole "
                                                         "(IPython dedents it); dedent it to have it checked"}));
}

TEST(Notebook, HelpOnSubscriptsAndWildcardsIsMasked) {
  const Notebook nb = of_cells({"x[0]?\ntorch.*cuda*?\nx.y[\"k\"].z??\nx[0] if y else z\n3?"});
  EXPECT_EQ(nb.masked_lines, (std::vector<std::string>{"x[0]?", "torch.*cuda*?", "x.y[\"k\"].z??"}));
}

TEST(Notebook, BadNotebooksAreClearErrors) {
  const auto error_of = [](const std::string& json) {
    std::variant<Notebook, std::string> r = parse_notebook(json);
    return std::holds_alternative<std::string>(r) ? std::get<std::string>(r) : std::string("(parsed)");
  };
  EXPECT_NE(error_of("{\"cells\": [").find("its JSON does not parse"), std::string::npos);
  EXPECT_NE(error_of(R"({"nbformat": 3, "worksheets": []})").find("nbformat 3 notebooks are not supported"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"nbformat": 4, "metadata": {}})").find("no `cells` list"), std::string::npos);
  EXPECT_NE(error_of(R"({"nbformat": 4, "cells": [{"cell_type": "code"}]})").find("cell 1 has no `source`"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"nbformat": 4, "cells": [{"cell_type": "code", "source": 3}]})").find("is not text"),
            std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("no object"), std::string::npos);
}

TEST(Notebook, OtherKernelLanguagesAreNotAnalysed) {
  const Notebook nb = parsed(R"({"cells": [{"cell_type": "code", "source": "x <- 1"}], )"
                             R"("metadata": {"kernelspec": {"language": "R"}}, "nbformat": 4, "nbformat_minor": 2})");
  EXPECT_EQ(nb.other_language, "R");
  EXPECT_EQ(nb.joined, "");
}

TEST(Notebook, DecodedByItsExtension) {
  ReadResult r = decode_source(kNotebook, "m.ipynb", "m.ipynb");
  ASSERT_TRUE(std::holds_alternative<SourceFile>(r));
  const SourceFile& f = std::get<SourceFile>(r);
  ASSERT_NE(f.notebook, nullptr);
  EXPECT_EQ(f.text, f.notebook->joined);
  ReadResult bad = decode_source("{", "m.ipynb", "m.ipynb");
  ASSERT_TRUE(std::holds_alternative<ReadError>(bad));
  EXPECT_EQ(std::get<ReadError>(bad).kind, ReadErrorKind::InvalidNotebook);
}

}  // namespace
}  // namespace graphmend::source
