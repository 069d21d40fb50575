#pragma once
// The filter language of a sweep file (docs/formats.md, "Sweep files"): a
// boolean expression over the point's axis values, e.g. `tp * pp * dp ==
// 1024 && scheduler != "bvn"`.
//
//   or   := and ('||' and)*          and := cmp ('&&' cmp)*
//   cmp  := sum (('=='|'!='|'<'|'<='|'>'|'>=') sum)?
//   sum  := prod (('+'|'-') prod)*   prod := unary (('*'|'/'|'%') unary)*
//   unary:= ('-'|'!') unary | INT | STRING | NAME | '(' or ')'
//
// Values are 64-bit integers (overflow is an error, / and % truncate as in
// C) or strings (== and != only); a comparison, && and || give 0 or 1.
//
// Limits (docs/formats.md, "Sweep files"): a filter is at most
// kMaxFilterLength characters, and parentheses and unary operators nest at
// most kMaxFilterDepth levels; a chain of binary operators (`a + b + ...`)
// is one node however long, so no input makes the parser, the evaluator or
// the tree's destructor recurse deeper than a few frames per level.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace flux::sweep {

/// Parentheses and unary operators (`-`, `!`) nested deeper are refused.
inline constexpr std::size_t kMaxFilterDepth = 256;
/// A longer filter is refused.
inline constexpr std::size_t kMaxFilterLength = 65536;

/// `text` for an error message: core::printable at the bound of a value
/// (control characters escaped, cut after 80 bytes with the length said).
std::string shown(std::string_view text);

/// An axis value as the filter sees it.
struct ExprValue {
  bool is_string = false;
  std::int64_t number = 0;
  std::string text;
};

/// Looks an axis name up; nullopt for an unknown name.
using ExprLookup = std::function<std::optional<ExprValue>(std::string_view name)>;

class Expr {
 public:
  /// Parses `text`. Throws core::InputError with field `key`, the offending
  /// part of the text as its value, and what was expected.
  static Expr parse(std::string_view text, const std::string& key);
  /// Checks every name with `lookup` (unknown names: core::InputError naming
  /// `key`), so a typo is reported before any point runs.
  void check_names(const ExprLookup& lookup) const;
  /// True when the expression is non-zero. Throws core::InputError naming
  /// `key` on a type mismatch, an overflow or a division by zero.
  [[nodiscard]] bool holds(const ExprLookup& lookup) const;
  /// The expression as written.
  [[nodiscard]] const std::string& text() const { return text_; }

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
  std::string key_;
  std::string text_;
};

}  // namespace flux::sweep
