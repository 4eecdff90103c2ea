# Pinned third-party sources. The build fetches each sdist from PyPI with pip (the ordinary
# package client), checks its SHA-256, and unpacks it under the build tree. Nothing here is vendored.
#
# Both are ABI 14. The runtime 0.23.2 reads grammar ABI 13..14, and its lib/src/{parser,array,alloc}.h
# are the grammar-facing headers that tree-sitter-python's parser.c and scanner.c include as
# tree_sitter/*.h (the grammar sdists do not ship them). tree-sitter-python 0.25.0 (ABI 15) is not
# usable from source: its sdist omits scanner.c.
#
# src/syntax/visible_walk.c reads the runtime's subtrees through its internal headers (lib/src).
# A new runtime version is taken only with tests/unit/tree_test.cpp passing: it holds every node
# the walk copies against tree-sitter's own cursor and node functions on every fixture.

set(GM_PIN_TREE_SITTER_NAME    "tree-sitter")
set(GM_PIN_TREE_SITTER_VERSION "0.23.2")
set(GM_PIN_TREE_SITTER_FILE    "tree-sitter-0.23.2.tar.gz")
set(GM_PIN_TREE_SITTER_SHA256  "66bae8dd47f1fed7bdef816115146d3a41c39b5c482d7bad36d9ba1def088450")

set(GM_PIN_TS_PYTHON_NAME      "tree-sitter-python")
set(GM_PIN_TS_PYTHON_VERSION   "0.23.6")
set(GM_PIN_TS_PYTHON_FILE      "tree_sitter_python-0.23.6.tar.gz")
set(GM_PIN_TS_PYTHON_SHA256    "354bfa0a2f9217431764a631516f85173e9711af2c13dbd796a8815acfe505d9")
