// The filter language (grammar at the top of include/flux/sweep/expr.hpp):
// a recursive-descent parser into a small tree, evaluated per point with
// checked 64-bit arithmetic. A left-associative chain (`a + b - c`, `x && y
// && z`) is one node with its operands in a list, folded left to right, so a
// flat sum of any length is a tree of depth 1; only parentheses and unary
// operators nest, and they are refused beyond kMaxFilterDepth levels. So the
// parser, the evaluator, collect_names and the tree's destructor recurse at
// most a few frames per level.
#include "flux/sweep/expr.hpp"

#include <cctype>
#include <charconv>
#include <vector>

#include "flux/core/error.hpp"

namespace flux::sweep {

struct Expr::Node {
  enum class Kind : std::uint8_t { kNumber, kString, kName, kUnary, kChain };
  Kind kind = Kind::kNumber;
  std::int64_t number = 0;
  std::string text;  ///< kString: the string; kName: the axis; kUnary: the operator
  /// kUnary: the operand; kChain: the operands, folded left to right with
  /// ops[i] between args[i] and args[i + 1].
  std::vector<std::shared_ptr<const Node>> args;
  std::vector<std::string> ops;
};

std::string shown(std::string_view text) {
  return core::printable(text, core::kMaxValueChars);
}

namespace {

using Node = Expr::Node;
using NodePtr = std::shared_ptr<const Node>;

class Parser {
 public:
  Parser(std::string_view text, const std::string& key) : text_(text), key_(key) {}

  NodePtr parse() {
    if (text_.size() > kMaxFilterLength) {
      throw core::InputError(
          "", key_, std::string(text_),
          "longer than " + std::to_string(kMaxFilterLength) + " characters, the limit of a filter");
    }
    NodePtr n = parse_or();
    skip_space();
    if (pos_ != text_.size()) fail("expected an operator or the end");
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    std::string rest = shown(text_.substr(pos_, 20));
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
  // One more level of parentheses or unary operators.
  void enter() {
    if (++depth_ > kMaxFilterDepth) {
      fail("nested deeper than " + std::to_string(kMaxFilterDepth) +
           " levels (parentheses and unary - and !)");
    }
  }
  template <class Next>
  NodePtr left_assoc(std::initializer_list<std::string_view> ops, Next next) {
    NodePtr first = (this->*next)();
    std::shared_ptr<Node> chain;
    for (bool more = true; more;) {
      more = false;
      for (std::string_view op : ops) {
        if (take(op)) {
          if (!chain) {
            chain = std::make_shared<Node>();
            chain->kind = Node::Kind::kChain;
            chain->args.push_back(std::move(first));
          }
          chain->ops.emplace_back(op);
          chain->args.push_back((this->*next)());
          more = true;
          break;
        }
      }
    }
    return chain ? NodePtr(chain) : first;
  }
  NodePtr parse_or() { return left_assoc({"||"}, &Parser::parse_and); }
  NodePtr parse_and() { return left_assoc({"&&"}, &Parser::parse_cmp); }
  NodePtr parse_cmp() {
    NodePtr n = parse_sum();
    for (std::string_view op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (take(op)) {
        auto c = std::make_shared<Node>();
        c->kind = Node::Kind::kChain;
        c->ops.emplace_back(op);
        c->args.push_back(std::move(n));
        c->args.push_back(parse_sum());
        return c;
      }
    }
    return n;
  }
  NodePtr parse_sum() { return left_assoc({"+", "-"}, &Parser::parse_prod); }
  NodePtr parse_prod() { return left_assoc({"*", "/", "%"}, &Parser::parse_unary); }
  NodePtr parse_unary() {
    for (std::string_view op : {"-", "!"}) {
      if (take(op)) {
        enter();
        auto n = std::make_shared<Node>();
        n->kind = Node::Kind::kUnary;
        n->text = std::string(op);
        n->args.push_back(parse_unary());
        --depth_;
        return n;
      }
    }
    skip_space();
    if (take("(")) {
      enter();
      NodePtr n = parse_or();
      if (!take(")")) fail("expected )");
      --depth_;
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
  std::size_t depth_ = 0;
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
        const std::int64_t a = number(eval(*n.args[0]), n.text);
        if (n.text == "!") return of(a == 0);
        if (a == INT64_MIN) fail("integer overflow in -");
        return of(-a);
      }
      case Node::Kind::kChain:
        break;
    }
    ExprValue v = eval(*n.args[0]);
    for (std::size_t i = 0; i < n.ops.size(); ++i) {
      const std::string& op = n.ops[i];
      if (op == "&&" || op == "||") {  // short-circuit
        const bool a = number(v, op) != 0;
        if (op == "&&" ? !a : a) return of(a);
        v = of(number(eval(*n.args[i + 1]), op) != 0);
        continue;
      }
      v = apply(op, v, eval(*n.args[i + 1]));
    }
    return v;
  }

 private:
  ExprValue apply(const std::string& op, const ExprValue& a, const ExprValue& b) const {
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
  static ExprValue of(std::int64_t v) { return ExprValue{false, v, {}}; }
  static ExprValue of(bool v) { return of(std::int64_t{v ? 1 : 0}); }
  static std::string type(const ExprValue& v) { return v.is_string ? "a string" : "an integer"; }
  std::int64_t number(const ExprValue& v, const std::string& op) const {
    if (v.is_string) fail("operator " + op + " on the string \"" + shown(v.text) + "\"");
    return v.number;
  }
  [[noreturn]] void fail(const std::string& problem) const {
    throw core::InputError("", key_, std::string(text_), problem);
  }

  const ExprLookup& lookup_;
  const std::string& key_;
  const std::string& text_;
};

void collect_names(const Node& n, std::vector<std::string>& out) {
  if (n.kind == Node::Kind::kName) out.push_back(n.text);
  for (const NodePtr& a : n.args) collect_names(*a, out);
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
      throw core::InputError("", key_, std::string(text_),
                             "unknown axis " + n + " (a filter names axes of the sweep)");
    }
  }
}

bool Expr::holds(const ExprLookup& lookup) const {
  const ExprValue v = Evaluator(lookup, key_, text_).eval(*root_);
  if (v.is_string)
    throw core::InputError("", key_, std::string(text_), "a string is not a condition");
  return v.number != 0;
}

}  // namespace flux::sweep
