#include "graphmend/syntax/parse_arena.h"

#include <tree_sitter/api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

namespace graphmend::syntax {
namespace {

constexpr size_t kAlign = 16;               // malloc's alignment, which tree-sitter may rely on
constexpr size_t kHeader = kAlign;          // before each block: its size, for reallocate
constexpr size_t kFirstChunk = 256u << 10;  // kept between parses: most files need no more
constexpr size_t kLargestChunk = 16u << 20;
// Freed blocks up to this size are kept by size (16-byte classes) and handed out again: error
// recovery and the Python scanner free and allocate over and over, and without reuse a file full
// of syntax errors took 10-25 times the memory malloc did (2.3 GB for 3.2 MB of broken lines).
constexpr size_t kLargestReused = 64u << 10;
constexpr size_t kClasses = kLargestReused / kAlign + 1;
// tree-sitter never asks for this much; a larger request would overflow the arithmetic below.
constexpr size_t kLargestRequest = SIZE_MAX / 4;

constexpr size_t round_up(size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

void* plain_malloc(size_t n) { return std::malloc(n); }
void* plain_calloc(size_t c, size_t n) { return std::calloc(c, n); }
void* plain_realloc(void* p, size_t n) { return std::realloc(p, n); }
void plain_free(void* p) { std::free(p); }

// Constant-initialised: budget.cpp replaces it during static initialisation.
Upstream g_upstream{plain_malloc, plain_calloc, plain_realloc, plain_free};

struct Chunk {
  Chunk* older;
  size_t capacity;  // bytes of blocks after the chunk's own header
  size_t used;
};
constexpr size_t kChunkHeader = round_up(sizeof(Chunk));

char* blocks(Chunk* c) { return reinterpret_cast<char*>(c) + kChunkHeader; }

// A freed block, in its size class's list: the link lies in the block's own bytes.
struct FreeBlock {
  FreeBlock* next;
};

struct ThreadArena {
  bool active = false;
  Chunk* newest = nullptr;
  char* last_block = nullptr;  // the newest block: it can grow in place
  std::array<FreeBlock*, kClasses> freed{};  // by rounded size / kAlign

  ThreadArena() = default;
  ThreadArena(const ThreadArena&) = delete;
  ThreadArena& operator=(const ThreadArena&) = delete;
  enum class Keep { Nothing, FirstChunk };
  ~ThreadArena() { free_chunks(Keep::Nothing); }  // the chunk kept for the next parse goes with its thread

  // Gives the chunks back to upstream, newest first; with Keep::FirstChunk, not the oldest when it
  // is a first chunk's size.
  void free_chunks(Keep keep) {
    while (newest != nullptr &&
           !(keep == Keep::FirstChunk && newest->older == nullptr && newest->capacity <= kFirstChunk)) {
      Chunk* older = newest->older;
      g_upstream.free_fn(newest);
      newest = older;
    }
  }
};
thread_local ThreadArena t_arena;

size_t& size_of_block(void* p) { return *reinterpret_cast<size_t*>(static_cast<char*>(p) - kHeader); }

// tree-sitter does not check for a null result: like its own allocator, stop with a message.
[[noreturn]] void out_of_memory(size_t bytes) {
  std::fprintf(stderr, "graphmend: tree-sitter could not allocate %zu bytes\n", bytes);
  std::abort();
}

void* or_out_of_memory(void* p, size_t bytes) {
  if (p == nullptr && bytes > 0) out_of_memory(bytes);
  return p;
}

void* carve(ThreadArena& a, size_t bytes) {
  if (bytes > kLargestRequest) out_of_memory(bytes);
  const size_t rounded = round_up(std::max<size_t>(bytes, 1));
  if (rounded <= kLargestReused) {
    if (FreeBlock*& head = a.freed[rounded / kAlign]; head != nullptr) {
      FreeBlock* block = head;
      head = block->next;
      size_of_block(block) = bytes;
      return block;
    }
  }
  const size_t need = kHeader + rounded;
  if (a.newest == nullptr || a.newest->capacity - a.newest->used < need) {
    const size_t grown = a.newest ? std::min(a.newest->capacity * 2, kLargestChunk) : kFirstChunk;
    const size_t capacity = std::max(need, grown);
    auto* c = static_cast<Chunk*>(or_out_of_memory(g_upstream.malloc_fn(kChunkHeader + capacity), kChunkHeader + capacity));
    *c = Chunk{a.newest, capacity, 0};
    a.newest = c;
  }
  char* block = blocks(a.newest) + a.newest->used + kHeader;
  a.newest->used += need;
  size_of_block(block) = bytes;
  a.last_block = block;
  return block;
}

void give_back(ThreadArena& a, void* p) {
  if (p == nullptr) return;
  const size_t rounded = round_up(std::max<size_t>(size_of_block(p), 1));
  if (rounded > kLargestReused) return;  // rare: it stays until the scope ends
  auto* block = static_cast<FreeBlock*>(p);
  block->next = a.freed[rounded / kAlign];
  a.freed[rounded / kAlign] = block;
}

// Gives every chunk back to upstream but the oldest, emptied, when it is a first chunk's size.
void reset(ThreadArena& a) {
  a.free_chunks(ThreadArena::Keep::FirstChunk);
  if (a.newest != nullptr) a.newest->used = 0;
  a.last_block = nullptr;
  a.freed.fill(nullptr);
}

}  // namespace

void arena::install() {
  // Once: tree-sitter's allocator is process-wide, and threads start scopes side by side.
  static const bool installed =
      (ts_set_allocator(arena::allocate, arena::allocate_zeroed, arena::reallocate, arena::release), true);
  (void)installed;
}

ArenaScope::ArenaScope() : outermost_(kParseArena && !t_arena.active) {
  if (!outermost_) return;
  arena::install();
  t_arena.active = true;
}

ArenaScope::~ArenaScope() {
  if (!outermost_) return;
  reset(t_arena);
  t_arena.active = false;
}

size_t ArenaScope::held_bytes() {
  size_t held = 0;
  for (const Chunk* c = t_arena.newest; c != nullptr; c = c->older) held += kChunkHeader + c->capacity;
  return held;
}

namespace arena {

void* allocate(size_t bytes) {
  ThreadArena& a = t_arena;
  return a.active ? carve(a, bytes) : or_out_of_memory(g_upstream.malloc_fn(bytes), bytes);
}

void* allocate_zeroed(size_t count, size_t bytes) {
  if (bytes != 0 && count > SIZE_MAX / bytes) out_of_memory(SIZE_MAX);
  ThreadArena& a = t_arena;
  if (!a.active) return or_out_of_memory(g_upstream.calloc_fn(count, bytes), count * bytes);
  void* p = carve(a, count * bytes);
  std::memset(p, 0, count * bytes);
  return p;
}

void* reallocate(void* p, size_t bytes) {
  ThreadArena& a = t_arena;
  if (!a.active) return or_out_of_memory(g_upstream.realloc_fn(p, bytes), bytes);
  if (p == nullptr) return carve(a, bytes);
  const size_t old = size_of_block(p);
  // The newest block grows (or shrinks) in place while its chunk has room: an array pushed to
  // again and again, as tree-sitter's are.
  if (p == a.last_block) {
    Chunk* c = a.newest;
    const size_t start = static_cast<size_t>(static_cast<char*>(p) - blocks(c));
    if (bytes <= kLargestRequest && start + round_up(std::max<size_t>(bytes, 1)) <= c->capacity) {
      c->used = start + round_up(std::max<size_t>(bytes, 1));
      size_of_block(p) = bytes;
      return p;
    }
  }
  void* q = carve(a, bytes);
  std::memcpy(q, p, std::min(old, bytes));
  give_back(a, p);
  return q;
}

void release(void* p) {
  ThreadArena& a = t_arena;
  if (a.active) {
    give_back(a, p);
  } else {
    g_upstream.free_fn(p);
  }
}

Upstream set_upstream(const Upstream& upstream) { return std::exchange(g_upstream, upstream); }

}  // namespace arena
}  // namespace graphmend::syntax
