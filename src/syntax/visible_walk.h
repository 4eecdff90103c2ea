// A pre-order walk over the visible nodes of a tree-sitter tree, reading tree-sitter's own
// subtrees instead of stepping a TSTreeCursor: the cursor re-derives each node's visibility,
// alias and field by walking up its stack at every step, which cost syntax/tree.cpp's copy of a
// tree about a sixth of all the time `check` spent. The nodes, their order and every property
// are those the cursor and the ts_node_* functions give (tests/unit/tree_test.cpp holds each
// accessor against them on every fixture).
//
// C, because it includes the pinned runtime's internal headers (third_party/pins.cmake); only
// syntax/tree.cpp calls it.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include <tree_sitter/api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint32_t start;  // byte range, as ts_node_start_byte / ts_node_end_byte
  uint32_t end;
  uint16_t symbol;  // as ts_node_symbol (alias applied, public symbol)
  uint16_t field;   // as ts_tree_cursor_current_field_id; 0 for none
  bool named;       // ts_node_is_named
  bool error;       // ts_node_is_error
  bool missing;     // ts_node_is_missing
  bool has_error;   // ts_node_has_error
} GmVisibleNode;

typedef struct {
  void* context;
  void (*enter)(void* context, const GmVisibleNode* node);  // before the node's descendants
  void (*leave)(void* context);                             // after them
} GmVisibleVisitor;

// Visits the root, then every visible node in pre-order. Returns false only when its own stack
// could not be allocated (then the walk stopped part way). The visitor's calls must not unwind
// (C frames): a caller whose callbacks can throw catches inside them.
bool gm_walk_visible(const TSTree* tree, const GmVisibleVisitor* visitor);

#ifdef __cplusplus
}
#endif
