// Node kinds and field names of tree-sitter-python as named constants. A misspelt kind or field
// does not compile, and a test compares the grammar's symbol and field ids instead of strings.
// Names that are C++ keywords carry a trailing underscore (kind::true_, kind::in_,
// field::operator_); those with a space, an underscore instead (kind::is_not).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace graphmend::syntax {

// Every symbol of the grammar named `name` (a name can have several: aliases), resolved once.
class Kind {
 public:
  explicit Kind(std::string_view name);
  // One bit test: Node::is runs for nearly every node a rule or the analysis looks at.
  [[nodiscard]] bool matches(uint16_t symbol) const {
    return symbol < kMaxSymbols && (members_[symbol / 64] >> (symbol % 64) & 1u) != 0;
  }
  [[nodiscard]] std::string_view name() const { return name_; }
  [[nodiscard]] std::span<const uint16_t> symbols() const { return {symbols_.data(), count_}; }

 private:
  static constexpr uint16_t kMaxSymbols = 512;  // tree-sitter-python 0.23.6 has 275, aliases included
  std::array<uint64_t, kMaxSymbols / 64> members_{};
  std::array<uint16_t, 6> symbols_{};
  uint8_t count_ = 0;
  std::string_view name_;
};

// The grammar's field `name` (`function` of a call, `left` of a binary operator), resolved once.
class Field {
 public:
  explicit Field(std::string_view name);
  [[nodiscard]] uint8_t id() const { return id_; }
  [[nodiscard]] std::string_view name() const { return name_; }

 private:
  uint8_t id_ = 0;
  std::string_view name_;
};

}  // namespace graphmend::syntax

namespace graphmend::kind {

inline const syntax::Kind aliased_import{"aliased_import"};
inline const syntax::Kind argument_list{"argument_list"};
inline const syntax::Kind as_pattern{"as_pattern"};
inline const syntax::Kind as_pattern_target{"as_pattern_target"};
inline const syntax::Kind assert_statement{"assert_statement"};
inline const syntax::Kind assignment{"assignment"};
inline const syntax::Kind attribute{"attribute"};
inline const syntax::Kind async{"async"};  // the keyword of `async def`, `async for`, `async with`
inline const syntax::Kind augmented_assignment{"augmented_assignment"};
inline const syntax::Kind await{"await"};
inline const syntax::Kind binary_operator{"binary_operator"};
inline const syntax::Kind block{"block"};
inline const syntax::Kind boolean_operator{"boolean_operator"};
inline const syntax::Kind break_statement{"break_statement"};
inline const syntax::Kind call{"call"};
inline const syntax::Kind case_clause{"case_clause"};
inline const syntax::Kind case_pattern{"case_pattern"};
inline const syntax::Kind class_definition{"class_definition"};
inline const syntax::Kind comment{"comment"};
inline const syntax::Kind concatenated_string{"concatenated_string"};
inline const syntax::Kind conditional_expression{"conditional_expression"};
inline const syntax::Kind continue_statement{"continue_statement"};
inline const syntax::Kind decorated_definition{"decorated_definition"};
inline const syntax::Kind decorator{"decorator"};
inline const syntax::Kind default_parameter{"default_parameter"};
inline const syntax::Kind delete_statement{"delete_statement"};
inline const syntax::Kind dictionary{"dictionary"};
inline const syntax::Kind dictionary_comprehension{"dictionary_comprehension"};
inline const syntax::Kind dictionary_splat{"dictionary_splat"};
inline const syntax::Kind dictionary_splat_pattern{"dictionary_splat_pattern"};
inline const syntax::Kind dotted_name{"dotted_name"};
inline const syntax::Kind elif_clause{"elif_clause"};
inline const syntax::Kind ellipsis{"ellipsis"};
inline const syntax::Kind else_clause{"else_clause"};
inline const syntax::Kind except_clause{"except_clause"};
inline const syntax::Kind except_group_clause{"except_group_clause"};
inline const syntax::Kind expression_list{"expression_list"};
inline const syntax::Kind expression_statement{"expression_statement"};
inline const syntax::Kind false_{"false"};
inline const syntax::Kind finally_clause{"finally_clause"};
inline const syntax::Kind float_{"float"};
inline const syntax::Kind for_in_clause{"for_in_clause"};
inline const syntax::Kind for_statement{"for_statement"};
inline const syntax::Kind format_expression{"format_expression"};
inline const syntax::Kind format_specifier{"format_specifier"};
inline const syntax::Kind function_definition{"function_definition"};
inline const syntax::Kind future_import_statement{"future_import_statement"};
inline const syntax::Kind generator_expression{"generator_expression"};
inline const syntax::Kind generic_type{"generic_type"};
inline const syntax::Kind global_statement{"global_statement"};
inline const syntax::Kind identifier{"identifier"};
inline const syntax::Kind if_clause{"if_clause"};
inline const syntax::Kind if_statement{"if_statement"};
inline const syntax::Kind import_from_statement{"import_from_statement"};
inline const syntax::Kind import_prefix{"import_prefix"};
inline const syntax::Kind import_statement{"import_statement"};
inline const syntax::Kind in_{"in"};
inline const syntax::Kind integer{"integer"};
inline const syntax::Kind interpolation{"interpolation"};
inline const syntax::Kind is_{"is"};
inline const syntax::Kind is_not{"is not"};
inline const syntax::Kind keyword_argument{"keyword_argument"};
inline const syntax::Kind keyword_pattern{"keyword_pattern"};
inline const syntax::Kind keyword_separator{"keyword_separator"};
inline const syntax::Kind lambda{"lambda"};
inline const syntax::Kind list{"list"};
inline const syntax::Kind list_comprehension{"list_comprehension"};
inline const syntax::Kind list_pattern{"list_pattern"};
inline const syntax::Kind list_splat{"list_splat"};
inline const syntax::Kind list_splat_pattern{"list_splat_pattern"};
inline const syntax::Kind match_statement{"match_statement"};
inline const syntax::Kind module_{"module"};
inline const syntax::Kind named_expression{"named_expression"};
inline const syntax::Kind none{"none"};
inline const syntax::Kind nonlocal_statement{"nonlocal_statement"};
inline const syntax::Kind pair{"pair"};
inline const syntax::Kind comparison_operator{"comparison_operator"};
inline const syntax::Kind not_in{"not in"};
inline const syntax::Kind not_operator{"not_operator"};
inline const syntax::Kind parenthesized_expression{"parenthesized_expression"};
inline const syntax::Kind pattern_list{"pattern_list"};
inline const syntax::Kind positional_separator{"positional_separator"};
inline const syntax::Kind raise_statement{"raise_statement"};
inline const syntax::Kind relative_import{"relative_import"};
inline const syntax::Kind return_statement{"return_statement"};
inline const syntax::Kind set{"set"};
inline const syntax::Kind set_comprehension{"set_comprehension"};
inline const syntax::Kind slice{"slice"};
inline const syntax::Kind splat_pattern{"splat_pattern"};
inline const syntax::Kind string{"string"};
inline const syntax::Kind string_content{"string_content"};
inline const syntax::Kind line_continuation{"line_continuation"};
inline const syntax::Kind subscript{"subscript"};
inline const syntax::Kind true_{"true"};
inline const syntax::Kind try_statement{"try_statement"};
inline const syntax::Kind tuple{"tuple"};
inline const syntax::Kind tuple_pattern{"tuple_pattern"};
inline const syntax::Kind type{"type"};
inline const syntax::Kind type_conversion{"type_conversion"};
inline const syntax::Kind type_parameter{"type_parameter"};
inline const syntax::Kind typed_default_parameter{"typed_default_parameter"};
inline const syntax::Kind typed_parameter{"typed_parameter"};
inline const syntax::Kind unary_operator{"unary_operator"};
inline const syntax::Kind while_statement{"while_statement"};
inline const syntax::Kind with_clause{"with_clause"};
inline const syntax::Kind with_item{"with_item"};
inline const syntax::Kind with_statement{"with_statement"};
inline const syntax::Kind yield{"yield"};

}  // namespace graphmend::kind

namespace graphmend::field {

inline const syntax::Field alias{"alias"};
inline const syntax::Field alternative{"alternative"};
inline const syntax::Field argument{"argument"};
inline const syntax::Field arguments{"arguments"};
inline const syntax::Field attribute{"attribute"};
inline const syntax::Field body{"body"};
inline const syntax::Field cause{"cause"};
inline const syntax::Field condition{"condition"};
inline const syntax::Field consequence{"consequence"};
inline const syntax::Field definition{"definition"};
inline const syntax::Field function{"function"};
inline const syntax::Field left{"left"};
inline const syntax::Field module_name{"module_name"};
inline const syntax::Field name{"name"};
inline const syntax::Field object{"object"};
inline const syntax::Field operator_{"operator"};
inline const syntax::Field operators{"operators"};
inline const syntax::Field parameters{"parameters"};
inline const syntax::Field return_type{"return_type"};
inline const syntax::Field right{"right"};
inline const syntax::Field subject{"subject"};
inline const syntax::Field subscript{"subscript"};
inline const syntax::Field superclasses{"superclasses"};
inline const syntax::Field type{"type"};
inline const syntax::Field value{"value"};

}  // namespace graphmend::field
