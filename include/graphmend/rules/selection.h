// Which rules run: --select / --extend-select / --ignore and the configuration's equivalents.
// Suppression comments are in suppression.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace graphmend::rules {

// Codes or prefixes ("GM1"), rule names, or ALL. An empty `select` is the default set: every rule
// but the opt-in ones (GM903), which run only when a selector names them.
struct Selection {
  std::vector<std::string> select;
  std::vector<std::string> extend_select;
  std::vector<std::string> ignore;

  [[nodiscard]] bool enabled(std::string_view code) const;
};

// True if `selector` is a code, a prefix of a code, a rule name or ALL.
bool valid_selector(std::string_view selector);

}  // namespace graphmend::rules
