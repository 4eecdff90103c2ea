// Per-file budgets of time and memory. While a BudgetScope is alive on a thread, that thread's C++
// allocations are counted and its clock is read every few hundred allocations; going over either
// limit throws BudgetExceeded (a std::bad_alloc) from the allocation, so the file's work unwinds
// through RAII and becomes that one file's error, while other files go on. A real allocation
// failure is the same kind of error: it is caught per file too (driver/run.cpp).
//
// What is counted: bytes allocated by operator new and by tree-sitter (its trees), minus those
// freed, on this thread since the scope began (the peak of that balance is what the memory limit
// bounds). tree-sitter's C code cannot unwind: its allocations are recorded, and the thread's next
// C++ allocation, right after the parse, throws. Time is wall time, checked at allocations; code
// that does not allocate is not interrupted (every stage allocates as it goes). Under a
// sanitizer nothing is counted and budgets are not enforced.
#pragma once

#include <chrono>
#include <cstdint>
#include <new>
#include <string>

namespace graphmend::driver {

struct Budget {
  std::chrono::milliseconds time{0};  // 0: no limit
  uint64_t memory_bytes = 0;          // 0: no limit
};

class BudgetExceeded : public std::bad_alloc {
 public:
  explicit BudgetExceeded(std::string message) : message_(std::move(message)) {}
  [[nodiscard]] const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// Arms the calling thread's budget; disarms when destroyed (before any handler runs, so a
// handler may allocate freely). `spent` is time this file already used in earlier stages.
// A scope opened inside another counts for itself (another file's module, built where this
// file's analysis first reads it): the outer one's clock and memory pause until it closes.
class BudgetScope {
 public:
  BudgetScope(const Budget& budget, std::chrono::nanoseconds spent);
  ~BudgetScope();
  BudgetScope(const BudgetScope&) = delete;
  BudgetScope& operator=(const BudgetScope&) = delete;
  // Time spent in this scope so far.
  [[nodiscard]] std::chrono::nanoseconds elapsed() const;

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace graphmend::driver
