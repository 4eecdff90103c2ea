// The parse arena (syntax/parse_arena.h): tree-sitter's allocator while a scope lives, plain
// malloc outside one.
#include "graphmend/syntax/parse_arena.h"

#include <gtest/gtest.h>

#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include "graphmend/syntax/tree.h"

namespace graphmend::syntax {
namespace {

bool aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

TEST(ParseArena, BlocksAreAlignedAsMallocsAre) {
  const ArenaScope scope;
  for (size_t bytes : {1u, 3u, 16u, 17u, 100u}) {
    void* p = arena::allocate(bytes);
    ASSERT_NE(p, nullptr);
    EXPECT_TRUE(aligned(p)) << bytes;
    std::memset(p, 0xab, bytes);
  }
}

TEST(ParseArena, ZeroedAllocationIsZero) {
  const ArenaScope scope;
  auto* dirty = static_cast<unsigned char*>(arena::allocate(64));
  std::memset(dirty, 0xff, 64);
  auto* p = static_cast<unsigned char*>(arena::allocate_zeroed(8, 8));
  for (int i = 0; i < 64; ++i) EXPECT_EQ(p[i], 0) << i;
}

TEST(ParseArena, TheNewestBlockGrowsInPlace) {
  const ArenaScope scope;
  void* p = arena::allocate(32);
  std::memset(p, 7, 32);
  EXPECT_EQ(arena::reallocate(p, 4096), p);
  EXPECT_EQ(static_cast<unsigned char*>(p)[31], 7);
}

TEST(ParseArena, AnOlderBlockMovesWithItsContent) {
  const ArenaScope scope;
  auto* p = static_cast<char*>(arena::allocate(16));
  std::memcpy(p, "fifteen letters", 16);
  (void)arena::allocate(16);  // p is no longer the newest
  auto* q = static_cast<char*>(arena::reallocate(p, 1000));
  EXPECT_NE(q, p);
  EXPECT_TRUE(aligned(q));
  EXPECT_STREQ(q, "fifteen letters");
  // Shrinking keeps the prefix too.
  auto* r = static_cast<char*>(arena::reallocate(q, 8));
  EXPECT_EQ(std::string(r, 8), "fifteen ");
  EXPECT_EQ(arena::reallocate(nullptr, 24) != nullptr, true);
}

TEST(ParseArena, AFreedBlockIsHandedOutAgainForItsSize) {
  const ArenaScope scope;
  void* p = arena::allocate(48);
  (void)arena::allocate(16);  // p is not the newest block
  arena::release(p);
  EXPECT_EQ(arena::allocate(40), p);  // 40 and 48 bytes round to the same class
  EXPECT_NE(arena::allocate(40), p);
}

TEST(ParseArena, AMovedBlockIsFreedForReuse) {
  const ArenaScope scope;
  void* p = arena::allocate(64);
  (void)arena::allocate(16);
  void* q = arena::reallocate(p, 128);  // moves: p is not the newest
  ASSERT_NE(q, p);
  EXPECT_EQ(arena::allocate(64), p);
}

TEST(ParseArena, ABlockLargerThanAChunkGetsOneOfItsOwn) {
  const ArenaScope scope;
  const size_t big = 64u << 20;
  auto* p = static_cast<unsigned char*>(arena::allocate(big));
  ASSERT_NE(p, nullptr);
  p[0] = 1;
  p[big - 1] = 2;
  EXPECT_GE(ArenaScope::held_bytes(), big);
}

TEST(ParseArena, AScopeGivesBackAllButOneSmallChunk) {
  {
    const ArenaScope scope;
    for (int i = 0; i < 10000; ++i) (void)arena::allocate(1000);
    EXPECT_GE(ArenaScope::held_bytes(), 10000u * 1000u);
  }
  EXPECT_LE(ArenaScope::held_bytes(), 512u << 10);
}

TEST(ParseArena, AnInnerScopeLeavesTheOuterOnesMemory) {
  const ArenaScope outer;
  auto* p = static_cast<char*>(arena::allocate(16));
  std::memcpy(p, "kept", 5);
  { const ArenaScope inner; }
  EXPECT_STREQ(p, "kept");
  EXPECT_GE(ArenaScope::held_bytes(), 16u);
}

TEST(ParseArena, OutsideAScopeMemoryIsMallocs) {
  void* p = arena::allocate(100);
  ASSERT_NE(p, nullptr);
  p = arena::reallocate(p, 10000);
  ASSERT_NE(p, nullptr);
  arena::release(p);  // a real free: the sanitizers and leak checkers see it
  void* z = arena::allocate_zeroed(4, 4);
  EXPECT_EQ(static_cast<unsigned char*>(z)[15], 0);
  arena::release(z);
}

// tree-sitter never checks for a null result, so memory upstream cannot give stops the program with
// a message, inside a scope (a chunk) and outside one.
void* no_malloc(size_t) { return nullptr; }
void* no_calloc(size_t, size_t) { return nullptr; }
void* no_realloc(void*, size_t) { return nullptr; }

TEST(ParseArenaDeathTest, MemoryUpstreamCannotGiveStopsWithAMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  const auto exhaust = [](auto allocation) {
    arena::set_upstream({no_malloc, no_calloc, no_realloc, std::free});
    allocation();
  };
  const char* message = "graphmend: tree-sitter could not allocate";
  EXPECT_DEATH(exhaust([] { (void)arena::allocate(100); }), message);
  EXPECT_DEATH(exhaust([] { (void)arena::allocate_zeroed(4, 25); }), message);
  EXPECT_DEATH(exhaust([] { (void)arena::reallocate(nullptr, 100); }), message);
  if (kParseArena) {
    EXPECT_DEATH(exhaust([] {
                   ArenaScope scope;
                   (void)arena::allocate(1u << 20);  // more than the first chunk kept
                 }),
                 message);
  }
}

// Parses side by side leave nothing behind, and give the same tree each time.
TEST(ParseArena, ParsesGiveTheSameTreeAndLeaveOneChunk) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "def f" + std::to_string(i) + "(x):\n    return [x * k for k in range(3)]\n";
  Parser parser;
  const std::optional<Tree> first = parser.parse(text);
  const std::optional<Tree> second = parser.parse(text);
  ASSERT_TRUE(first && second);
  ASSERT_EQ(first->node_count(), second->node_count());
  EXPECT_EQ(std::memcmp(first->root().tree_data()->nodes.data(), second->root().tree_data()->nodes.data(),
                        first->node_count() * sizeof(detail::NodeData)),
            0);
  EXPECT_LE(ArenaScope::held_bytes(), 512u << 10);
}

// What the arena takes from upstream, at most, while it parses text full of syntax errors. Error
// recovery frees and allocates over and over; with every free ignored, such text took 10-25 times
// the memory malloc did (random tokens: 1.05 GB for 0.9 MB, against 96 MB).
size_t g_held = 0;
size_t g_peak = 0;
Upstream g_counted{};
void* counting_malloc(size_t n) {
  void* p = g_counted.malloc_fn(n);
  g_held += malloc_usable_size(p);
  g_peak = std::max(g_peak, g_held);
  return p;
}
void counting_free(void* p) {
  if (p != nullptr) g_held -= malloc_usable_size(p);
  g_counted.free_fn(p);
}

TEST(ParseArena, TextFullOfSyntaxErrorsStaysWithinMallocsMemory) {
  const char* tokens[] = {"(", ")", "[", "]", "{", "}", ":", "=", "if", "def", "x", "1", "'s'", ",", "\n",
                          "    ", "lambda", "for", "in", "*", "**", "f'{", "}'", "\"\"\""};
  std::mt19937 random(1);
  std::string text;
  while (text.size() < (200u << 10)) {
    text += tokens[random() % std::size(tokens)];
    text += ' ';
  }
  g_counted = arena::set_upstream({counting_malloc, nullptr, nullptr, counting_free});
  Parser parser;
  const std::optional<Tree> tree = parser.parse(text);
  arena::set_upstream(g_counted);
  ASSERT_TRUE(tree && tree->has_error());
  // malloc's own peak for this text is about 100 bytes a byte of text; without reuse, about 1,000.
  EXPECT_LT(g_peak, 300 * text.size()) << g_peak;
}

}  // namespace
}  // namespace graphmend::syntax
