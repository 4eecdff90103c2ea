#include "graphmend/driver/budget.h"

#include <fmt/format.h>
#include <malloc.h>

#include <cstdlib>
#include <vector>

#include "graphmend/syntax/tree.h"

// Under a sanitizer, its own allocator stays (it checks new/delete pairing): budgets are then
// not enforced.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define GRAPHMEND_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define GRAPHMEND_SANITIZED 1
#endif

namespace graphmend::driver {
namespace {

// The calling thread's armed budget. Plain data: read on every allocation.
struct ThreadBudget {
  bool armed = false;
  uint64_t memory_limit = 0;  // 0: none
  int64_t balance = 0;        // bytes allocated minus freed since arming
  std::chrono::steady_clock::time_point deadline{};
  bool has_deadline = false;
  std::chrono::milliseconds time_limit{0};
  uint32_t until_clock = 0;   // allocations left before the next clock read
};

thread_local ThreadBudget t_budget;
thread_local std::vector<ThreadBudget> t_paused;  // the scopes around the innermost, paused


#ifndef GRAPHMEND_SANITIZED
constexpr uint32_t kAllocationsPerClockRead = 256;

void count_allocation(size_t bytes) {
  ThreadBudget& b = t_budget;
  if (!b.armed) return;
  b.balance += static_cast<int64_t>(bytes);
  if (b.memory_limit != 0 && b.balance > static_cast<int64_t>(b.memory_limit)) {
    b.armed = false;  // first: the message, the unwinding and the handler allocate
    throw BudgetExceeded(fmt::format("its analysis needed more than the per-file memory budget of {} MB (--max-file-memory)",
                       b.memory_limit >> 20));
  }
  if (b.has_deadline && b.until_clock-- == 0) {
    b.until_clock = kAllocationsPerClockRead;
    if (std::chrono::steady_clock::now() > b.deadline) {
      b.armed = false;
      throw BudgetExceeded(fmt::format("its analysis took longer than the per-file time budget of {} s (--max-file-time)",
                         std::chrono::duration<double>(b.time_limit).count()));
    }
  }
}

void count_free(void* p) {
  if (p != nullptr && t_budget.armed) t_budget.balance -= static_cast<int64_t>(malloc_usable_size(p));
}

void* allocate(size_t bytes) {
  count_allocation(bytes);
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}

void* allocate_aligned(size_t bytes, std::align_val_t align) {
  count_allocation(bytes);
  const size_t a = static_cast<size_t>(align);
  const size_t rounded = (bytes + a - 1) / a * a;
  if (void* p = std::aligned_alloc(a, rounded == 0 ? a : rounded)) return p;
  throw std::bad_alloc();
}

void release(void* p) noexcept {
  count_free(p);
  std::free(p);
}

// tree-sitter's allocations (its trees) count too: during a parse, the chunks of the parse's arena
// (syntax/parse_arena.h), tails not yet used included. C code cannot unwind, so these only record
// what they allocate; the thread's next C++ allocation, right after the parse returns, finds the
// balance over the limit and throws.
// A null result is the arena's to handle (it stops with a message, as tree-sitter would).
void note_tree_allocation(void* p) {
  if (p != nullptr && t_budget.armed) t_budget.balance += static_cast<int64_t>(malloc_usable_size(p));
}

void* tree_malloc(size_t bytes) {
  void* p = std::malloc(bytes);
  note_tree_allocation(p);
  return p;
}

void* tree_calloc(size_t count, size_t bytes) {
  void* p = std::calloc(count, bytes);
  note_tree_allocation(p);
  return p;
}

void* tree_realloc(void* old, size_t bytes) {
  count_free(old);
  void* p = std::realloc(old, bytes);
  note_tree_allocation(p);
  return p;
}

void tree_free(void* p) { release(p); }

const bool kTreesCounted = (syntax::use_allocator(tree_malloc, tree_calloc, tree_realloc, tree_free), true);
#endif  // GRAPHMEND_SANITIZED

}  // namespace

BudgetScope::BudgetScope(const Budget& budget, std::chrono::nanoseconds spent)
    : start_(std::chrono::steady_clock::now()) {
  ThreadBudget& b = t_budget;
  const ThreadBudget outer = b;
  b.armed = false;  // the push below counts for no one
  t_paused.push_back(outer);
  b.memory_limit = budget.memory_bytes;
  b.balance = 0;
  b.time_limit = budget.time;
  b.has_deadline = budget.time.count() > 0;
  b.deadline = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(budget.time - spent);
  b.until_clock = 0;  // read the clock at the first allocation: an earlier stage may have used it all
  b.armed = budget.memory_bytes != 0 || b.has_deadline;
}

BudgetScope::~BudgetScope() {
  ThreadBudget outer = t_paused.back();
  t_paused.pop_back();
  // The outer scope's clock stood still while this one ran.
  outer.deadline += std::chrono::duration_cast<std::chrono::steady_clock::duration>(elapsed());
  t_budget = outer;
}

std::chrono::nanoseconds BudgetScope::elapsed() const { return std::chrono::steady_clock::now() - start_; }

}  // namespace graphmend::driver

// The replaceable global allocation functions, counting for the armed budget. The nothrow forms
// report any failure, a budget's included, as nullptr.
#ifndef GRAPHMEND_SANITIZED
void* operator new(size_t bytes) { return graphmend::driver::allocate(bytes); }
void* operator new[](size_t bytes) { return graphmend::driver::allocate(bytes); }
void* operator new(size_t bytes, std::align_val_t align) { return graphmend::driver::allocate_aligned(bytes, align); }
void* operator new[](size_t bytes, std::align_val_t align) { return graphmend::driver::allocate_aligned(bytes, align); }
void* operator new(size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return graphmend::driver::allocate(bytes);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t bytes, const std::nothrow_t&) noexcept {
  try {
    return graphmend::driver::allocate(bytes);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { graphmend::driver::release(p); }
void operator delete[](void* p) noexcept { graphmend::driver::release(p); }
void operator delete(void* p, size_t) noexcept { graphmend::driver::release(p); }
void operator delete[](void* p, size_t) noexcept { graphmend::driver::release(p); }
void operator delete(void* p, std::align_val_t) noexcept { graphmend::driver::release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { graphmend::driver::release(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { graphmend::driver::release(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { graphmend::driver::release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { graphmend::driver::release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { graphmend::driver::release(p); }
#endif  // GRAPHMEND_SANITIZED
