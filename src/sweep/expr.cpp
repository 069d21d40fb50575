// The filter language (grammar at the top of include/flux/sweep/expr.hpp):
// a recursive-descent parser into a small tree, evaluated per point with
// checked 64-bit arithmetic.
#include "flux/sweep/expr.hpp"

#include <cctype>
#include <charconv>
#include <vector>

#include "flux/core/error.hpp"

namespace flux::sweep {

struct Expr::Node {
  enum class Kind : std::uint8_t { kNumber, kString, kName, kUnary, kBinary };
  Kind kind = Kind::kNumber;
  std::int64_t number = 0;
  std::string text;  ///< kString: the string; kName: the axis; else the operator
  std::shared_ptr<const Node> lhs, rhs;
};

namespace {

using Node = Expr::Node;
using NodePtr = std::shared_ptr<const Node>;

class Parser {
 public:
  Parser(std::string_view text, const std::string& key) : text_(text), key_(key) {}

  NodePtr parse() {
    NodePtr n = parse_or();
    skip_space();
    if (pos_ != text_.size()) fail("expected an operator or the end");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    std::string rest(text_.substr(pos_, 20));
    if (rest.empty()) rest = "(end)";
    throw core::InputError(
        "", key_, std::string(text_),
        problem + " at \"" + rest + "\" (character " + std::to_string(pos_ + 1) + ")");
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  // Consumes `op` if it comes next (and is not the start of a longer one).
  bool take(std::string_view op) {
    skip_space();
    if (text_.substr(pos_, op.size()) != op) return false;
    const char next = pos_ + op.size() < text_.size() ? text_[pos_ + op.size()] : '\0';
    if ((op == "<" || op == ">" || op == "!") && next == '=') return false;
    pos_ += op.size();
    return true;
  }
  static NodePtr binary(std::string op, NodePtr a, NodePtr b) {
    auto n = std::make_shared<Node>();
    n->kind = Node::Kind::kBinary;
    n->text = std::move(op);
    n->lhs = std::move(a);
    n->rhs = std::move(b);
    return n;
  }
  template <class Next>
  NodePtr left_assoc(std::initializer_list<std::string_view> ops, Next next) {
    NodePtr n = (this->*next)();
    for (bool more = true; more;) {
      more = false;
      for (std::string_view op : ops) {
        if (take(op)) {
          n = binary(std::string(op), n, (this->*next)());
          more = true;
          break;
        }
      }
    }
    return n;
  }
  NodePtr parse_or() { return left_assoc({"||"}, &Parser::parse_and); }
  NodePtr parse_and() { return left_assoc({"&&"}, &Parser::parse_cmp); }
  NodePtr parse_cmp() {
    NodePtr n = parse_sum();
    for (std::string_view op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (take(op)) return binary(std::string(op), n, parse_sum());
    }
    return n;
  }
  NodePtr parse_sum() { return left_assoc({"+", "-"}, &Parser::parse_prod); }
  NodePtr parse_prod() { return left_assoc({"*", "/", "%"}, &Parser::parse_unary); }
  NodePtr parse_unary() {
    for (std::string_view op : {"-", "!"}) {
      if (take(op)) {
        auto n = std::make_shared<Node>();
        n->kind = Node::Kind::kUnary;
        n->text = std::string(op);
        n->lhs = parse_unary();
        return n;
      }
    }
    skip_space();
    if (take("(")) {
      NodePtr n = parse_or();
      if (!take(")")) fail("expected )");
      return n;
    }
    if (pos_ >= text_.size()) fail("expected a value");
    auto n = std::make_shared<Node>();
    const char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      const char* first = text_.data() + pos_;
      const char* last = text_.data() + text_.size();
      auto [p, ec] = std::from_chars(first, last, n->number);
      if (ec != std::errc()) fail("integer out of range");
      if (p != last && (std::isalpha(static_cast<unsigned char>(*p)) || *p == '.')) {
        fail("expected an integer");
      }
      pos_ += static_cast<std::size_t>(p - first);
      return n;
    }
    if (c == '"' || c == '\'') {
      const std::size_t end = text_.find(c, pos_ + 1);
      if (end == std::string_view::npos) fail("unterminated string");
      n->kind = Node::Kind::kString;
      n->text = std::string(text_.substr(pos_ + 1, end - pos_ - 1));
      pos_ = end + 1;
      return n;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      const std::size_t start = pos_;
      while (pos_ < text_.size() &&
             (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
        ++pos_;
      }
      n->kind = Node::Kind::kName;
      n->text = std::string(text_.substr(start, pos_ - start));
      return n;
    }
    fail("expected a value");
  }

  std::string_view text_;
  const std::string& key_;
  std::size_t pos_ = 0;
};

class Evaluator {
 public:
  Evaluator(const ExprLookup& lookup, const std::string& key, const std::string& text)
      : lookup_(lookup), key_(key), text_(text) {}

  ExprValue eval(const Node& n) const {
    switch (n.kind) {
      case Node::Kind::kNumber:
        return ExprValue{false, n.number, {}};
      case Node::Kind::kString:
        return ExprValue{true, 0, n.text};
      case Node::Kind::kName: {
        std::optional<ExprValue> v = lookup_(n.text);
        if (!v) fail("unknown axis " + n.text);
        return *v;
      }
      case Node::Kind::kUnary: {
        const std::int64_t a = number(eval(*n.lhs), n.text);
        if (n.text == "!") return of(a == 0);
        if (a == INT64_MIN) fail("integer overflow in -");
        return of(-a);
      }
      case Node::Kind::kBinary:
        break;
    }
    const std::string& op = n.text;
    if (op == "&&" || op == "||") {  // short-circuit
      const bool a = number(eval(*n.lhs), op) != 0;
      if (op == "&&" ? !a : a) return of(a);
      return of(number(eval(*n.rhs), op) != 0);
    }
    const ExprValue a = eval(*n.lhs);
    const ExprValue b = eval(*n.rhs);
    if (a.is_string || b.is_string) {
      if (a.is_string != b.is_string || (op != "==" && op != "!=")) {
        fail("operator " + op + " between " + type(a) + " and " + type(b));
      }
      return of((a.text == b.text) == (op == "=="));
    }
    const std::int64_t x = a.number, y = b.number;
    std::int64_t r = 0;
    if (op == "+" && !__builtin_add_overflow(x, y, &r)) return of(r);
    if (op == "-" && !__builtin_sub_overflow(x, y, &r)) return of(r);
    if (op == "*" && !__builtin_mul_overflow(x, y, &r)) return of(r);
    if (op == "/" || op == "%") {
      if (y == 0) fail("division by zero");
      if (x == INT64_MIN && y == -1) fail("integer overflow in " + op);
      return of(op == "/" ? x / y : x % y);
    }
    if (op == "==") return of(x == y);
    if (op == "!=") return of(x != y);
    if (op == "<") return of(x < y);
    if (op == "<=") return of(x <= y);
    if (op == ">") return of(x > y);
    if (op == ">=") return of(x >= y);
    fail("integer overflow in " + op);
  }

 private:
  static ExprValue of(std::int64_t v) { return ExprValue{false, v, {}}; }
  static ExprValue of(bool v) { return of(std::int64_t{v ? 1 : 0}); }
  static std::string type(const ExprValue& v) { return v.is_string ? "a string" : "an integer"; }
  std::int64_t number(const ExprValue& v, const std::string& op) const {
    if (v.is_string) fail("operator " + op + " on the string \"" + v.text + "\"");
    return v.number;
  }
  [[noreturn]] void fail(const std::string& problem) const {
    throw core::InputError("", key_, text_, problem);
  }

  const ExprLookup& lookup_;
  const std::string& key_;
  const std::string& text_;
};

void collect_names(const Node& n, std::vector<std::string>& out) {
  if (n.kind == Node::Kind::kName) out.push_back(n.text);
  if (n.lhs) collect_names(*n.lhs, out);
  if (n.rhs) collect_names(*n.rhs, out);
}

}  // namespace

Expr Expr::parse(std::string_view text, const std::string& key) {
  Expr e;
  e.key_ = key;
  e.text_ = std::string(text);
  e.root_ = Parser(text, key).parse();
  return e;
}

void Expr::check_names(const ExprLookup& lookup) const {
  std::vector<std::string> names;
  collect_names(*root_, names);
  for (const std::string& n : names) {
    if (!lookup(n)) {
      throw core::InputError("", key_, text_,
                             "unknown axis " + n + " (a filter names axes of the sweep)");
    }
  }
}

bool Expr::holds(const ExprLookup& lookup) const {
  const ExprValue v = Evaluator(lookup, key_, text_).eval(*root_);
  if (v.is_string) throw core::InputError("", key_, text_, "a string is not a condition");
  return v.number != 0;
}

}  // namespace flux::sweep
