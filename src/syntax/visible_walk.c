#include "visible_walk.h"

#include <stdlib.h>

#include "./language.h"
#include "./length.h"
#include "./subtree.h"
#include "./tree.h"

// The children of one node being walked: a visible node, or a hidden one whose visible
// descendants count as its nearest visible ancestor's children.
typedef struct {
  const Subtree* children;
  uint32_t child_count;
  uint32_t child_index;       // the next child
  uint32_t structural_index;  // the next non-extra child's index in the production
  const TSSymbol* aliases;    // by structural index; NULL for none
  const TSFieldMapEntry* fields;
  const TSFieldMapEntry* fields_end;
  TSFieldId inherited_field;  // a hidden node's own field, which its children take when they have none
  Length position;            // where the next child starts (after its padding)
  bool visible;
} Frame;

typedef struct {
  Frame* frames;
  uint32_t size;
  uint32_t capacity;
} Stack;

static bool push(Stack* stack, const TSLanguage* language, Subtree node, Length position, bool visible,
                 TSFieldId inherited_field) {
  if (stack->size == stack->capacity) {
    const uint32_t capacity = stack->capacity ? stack->capacity * 2 : 64;
    Frame* grown = realloc(stack->frames, capacity * sizeof(Frame));
    if (!grown) return false;
    stack->frames = grown;
    stack->capacity = capacity;
  }
  Frame* frame = &stack->frames[stack->size++];
  frame->children = ts_subtree_children(node);
  frame->child_count = node.ptr->child_count;
  frame->child_index = 0;
  frame->structural_index = 0;
  frame->aliases = ts_language_alias_sequence(language, node.ptr->production_id);
  ts_language_field_map(language, node.ptr->production_id, &frame->fields, &frame->fields_end);
  frame->inherited_field = inherited_field;
  frame->position = position;
  frame->visible = visible;
  return true;
}

static void describe(const TSLanguage* language, Subtree node, TSSymbol alias, Length position, TSFieldId field,
                     GmVisibleNode* out) {
  const TSSymbol symbol = ts_language_public_symbol(language, alias ? alias : ts_subtree_symbol(node));
  out->start = position.bytes;
  out->end = position.bytes + ts_subtree_size(node).bytes;
  out->symbol = symbol;
  out->field = field;
  out->named = alias ? ts_language_symbol_metadata(language, alias).named : ts_subtree_named(node);
  out->error = symbol == ts_builtin_sym_error;
  out->missing = ts_subtree_missing(node);
  out->has_error = ts_subtree_error_cost(node) > 0;
}

bool gm_walk_visible(const TSTree* tree, const GmVisibleVisitor* visitor) {
  const TSLanguage* language = tree->language;
  GmVisibleNode node;
  const Length root_position = ts_subtree_padding(tree->root);
  describe(language, tree->root, 0, root_position, 0, &node);
  visitor->enter(visitor->context, &node);
  if (ts_subtree_child_count(tree->root) == 0) {
    visitor->leave(visitor->context);
    return true;
  }
  Stack stack = {NULL, 0, 0};
  bool ok = push(&stack, language, tree->root, root_position, true, 0);
  while (ok && stack.size > 0) {
    Frame* frame = &stack.frames[stack.size - 1];
    if (frame->child_index == frame->child_count) {
      if (frame->visible) visitor->leave(visitor->context);
      --stack.size;
      continue;
    }
    const Subtree child = frame->children[frame->child_index++];
    const Length position = frame->position;
    frame->position = length_add(frame->position, ts_subtree_size(child));
    if (frame->child_index < frame->child_count) {
      frame->position = length_add(frame->position, ts_subtree_padding(frame->children[frame->child_index]));
    }
    // Visibility, alias and field as the cursor derives them: an extra node (a comment) has
    // neither alias nor field and takes no structural index.
    bool visible = ts_subtree_visible(child);
    TSSymbol alias = 0;
    TSFieldId field = 0;
    if (!ts_subtree_extra(child)) {
      if (frame->aliases) alias = frame->aliases[frame->structural_index];
      visible = visible || alias != 0;
      for (const TSFieldMapEntry* entry = frame->fields; entry < frame->fields_end; ++entry) {
        if (!entry->inherited && entry->child_index == frame->structural_index) {
          field = entry->field_id;
          break;
        }
      }
      if (!field) field = frame->inherited_field;
      ++frame->structural_index;
    }
    if (visible) {
      describe(language, child, alias, position, field, &node);
      visitor->enter(visitor->context, &node);
      if (ts_subtree_child_count(child) > 0) {
        ok = push(&stack, language, child, position, true, 0);
      } else {
        visitor->leave(visitor->context);
      }
    } else if (ts_subtree_visible_child_count(child) > 0) {
      ok = push(&stack, language, child, position, false, field);
    }
  }
  free(stack.frames);
  return ok;
}
