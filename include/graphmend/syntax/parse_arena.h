// Where tree-sitter's memory comes from while graphmend parses one text.
//
// A parse makes millions of small allocations over a tree of files (tree-sitter's subtrees, its
// stack's nodes and arrays), and freeing the tree afterwards walks all of it again. Yet nothing of
// that memory outlives the parse: Parser copies the tree flat and drops it at once. So each parse
// takes its memory from an arena of its thread: an allocation bumps a pointer (or takes a freed
// block of its size back), a free keeps the block for reuse, and the whole arena is released when
// the parse ends, tree and parser included (measured: docs/incremental.md).
//
// Lifetimes: an arena is active on the thread that constructs an ArenaScope, for that scope's life.
// Every tree-sitter object made inside the scope (a TSParser, a TSTree) must be made and dropped
// inside it, never deleted after it: its memory is gone with the scope. Outside any scope,
// tree-sitter allocates through the upstream functions (plain malloc, or what use_allocator set).
#pragma once

#include <cstddef>

namespace graphmend::syntax {

// Under AddressSanitizer (or MemorySanitizer) tree-sitter keeps malloc, so that the sanitizer sees
// each of its blocks: an ArenaScope does nothing, and Parser frees the parser and tree itself.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kParseArena = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
inline constexpr bool kParseArena = false;
#else
inline constexpr bool kParseArena = true;
#endif
#else
inline constexpr bool kParseArena = true;
#endif

// The allocation functions the arena draws its chunks from, and tree-sitter uses outside any arena.
struct Upstream {
  void* (*malloc_fn)(size_t);
  void* (*calloc_fn)(size_t, size_t);
  void* (*realloc_fn)(void*, size_t);
  void (*free_fn)(void*);
};

// The thread's arena, active while this lives. A scope made while another is active on the thread
// does nothing: the outer one keeps the memory until it ends.
class ArenaScope {
 public:
  ArenaScope();
  ~ArenaScope();
  ArenaScope(const ArenaScope&) = delete;
  ArenaScope& operator=(const ArenaScope&) = delete;

  // Bytes the thread's arena holds now, in chunks from upstream (for tests).
  [[nodiscard]] static size_t held_bytes();

 private:
  bool outermost_;
};

namespace arena {
// tree-sitter's allocator (ts_set_allocator installs these once): the thread's arena while an
// ArenaScope lives, else upstream. Every result is aligned to 16 bytes, as malloc's are. Where
// upstream has no memory they stop the program with a message, as tree-sitter's own allocator does:
// tree-sitter never checks for a null result.
void* allocate(size_t bytes);
void* allocate_zeroed(size_t count, size_t bytes);
void* reallocate(void* p, size_t bytes);
void release(void* p);

// Sets where chunks (and allocations outside an arena) come from, and returns what it replaces;
// the default is malloc and co. Called during static initialisation, before any thread parses
// (and by tests, between parses).
Upstream set_upstream(const Upstream& upstream);
// Makes the functions above tree-sitter's (done by the first ArenaScope too).
void install();
}  // namespace arena

}  // namespace graphmend::syntax
