// Hand-written recursive-descent parser (precedence climbing for binary operators) that turns
// Einlang source into the ir::Node tree of lang/ir/node.h. Syntax errors become E001
// diagnostics with panic-mode recovery at statement boundaries; the parser never throws to its
// caller, never crashes and bounds its own recursion. See lang/syntax/README.md.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lang/diag/diag.h"
#include "lang/ir/node.h"
#include "lang/syntax/lexer.h"
#include "lang/syntax/source.h"

namespace ein {

struct ParseResult {
  ir::NodeRef program;            // Kind::Program, always non-null (may contain Error nodes)
  std::vector<Diagnostic> diags;  // all independent syntax errors, E001 (at most 50)
  bool incomplete = false;        // the first error is "unexpected end of input": an unclosed
                                  // bracket/brace/string or a statement cut off at the end
};

ParseResult parse_program(const SourceMap& sm, uint32_t file_id);

// What an item of `use path::{...}` names, in the UseItem's `ival` (its `name` is the written
// path below the `use` path, without a trailing `self`): the resolver switches on this instead
// of looking for `::` or `self` in the name.
enum UseItemKind : int64_t {
  UseItemName = 0,  // `relu`: an item of the `use` path's module
  UseItemPath = 1,  // `activations::relu`: a path below the `use` path
  UseItemSelf = 2,  // `self` / `activations::self`: the module the path names ("" = the use path)
};

// For the REPL and Jupyter's is_complete: "complete" | "incomplete" | "invalid".
std::string completeness(const std::string& text);

// ---- implementation detail, shared by the parser_*.cpp files -----------------------------------
namespace syntax_detail {

// Unwinds to the innermost statement being parsed, which then resynchronises.
struct ParseAbort {};
// Stops the whole parse (diagnostic cap reached).
struct ParseStop {};

inline constexpr size_t kMaxDiags = 50;
inline constexpr int kMaxDepth = 512;       // parser recursion (nested brackets, unary chains)
inline constexpr int kMaxTreeDepth = 1000;  // depth of the produced tree (long operator chains)

// State of one parse, shared with the parsers of interpolation holes.
struct SharedState {
  std::vector<Diagnostic> diags;
  std::vector<bool> at_eof;    // per diagnostic: found at the end of input (=> incomplete)
  bool eof_reported = false;   // later end-of-input errors are consequences: not reported
  bool depth_reported = false; // only one "nesting too deep" per parse
  std::unordered_map<const ir::Node*, int> tree_depth;  // depth of every node made, see mk()
};

class Parser {
 public:
  Parser(std::string_view text, uint32_t file, std::vector<Token> toks, SharedState& ds,
         int depth, bool hole);

  ir::NodeRef program();          // the whole token stream as a Program
  ir::NodeRef hole_expression();  // the whole token stream as one expression (never throws)

 private:
  using NodeRef = ir::NodeRef;
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser);
    ~DepthGuard() { --p.depth_; }
  };

  // ---- tokens and errors (parser_core.cpp)
  const Token& peek(size_t k = 0) const;
  bool at(Tok k) const { return peek().kind == k; }
  bool eat(Tok k);
  const Token& advance();
  const Token& expect(Tok k, const char* context = nullptr);
  // `list`: the closer ends a comma-separated list, so the message says "expected `,` or `)`".
  const Token& expect_close(Tok closer, const Token& opener, bool list = false);
  std::string_view text_of(const Token& t) const;
  std::string describe(const Token& t) const;
  Span tok_span(const Token& t) const { return Span{file_, t.lo, t.hi}; }
  Span caret(const Token& t) const;
  Span span_from(uint32_t lo) const;
  uint32_t prev_hi() const;
  NodeRef mk(ir::NodeInit init);
  void report(Diagnostic d, bool at_eof);
  void one_tuple_error(uint32_t lo);
  [[noreturn]] void fail(Diagnostic d, const Token& found);
  [[noreturn]] void fail_expected(const std::string& what, const Token& found,
                                  const Token* opener = nullptr);
  void synchronize(size_t start);
  size_t matching(size_t open_idx) const;
  bool is_stmt_keyword(Tok k) const;

  // ---- statements and items (parser_stmt.cpp)
  void stmt_list(Tok end, bool allow_tail, std::vector<NodeRef>& out, bool& has_tail);
  NodeRef statement(Tok end, bool allow_tail, bool& is_tail);
  NodeRef expr_stmt(uint32_t lo, Tok end, bool allow_tail, bool& is_tail);
  void end_stmt();
  NodeRef let_stmt();
  NodeRef let_pattern(bool nested);
  NodeRef slot(bool in_decl);
  NodeRef const_stmt(uint32_t lo, bool pub);
  NodeRef param();
  NodeRef fn_item(uint32_t lo, bool pub, bool diff);
  NodeRef use_stmt(uint32_t lo, bool pub);
  void use_group(const ir::ModPath& prefix, std::vector<NodeRef>& items);
  NodeRef mod_item(uint32_t lo, bool pub);
  NodeRef skipped_decl(uint32_t lo, ir::Kind kind, bool pub);

  // ---- expressions (parser_expr.cpp)
  NodeRef expr();        // full expression without where clauses
  NodeRef expr_where();  // expression optionally followed by where clauses
  NodeRef binary(int min_prec);
  NodeRef binary_from(NodeRef lhs, uint32_t lo, int min_prec);
  NodeRef binary_loop(NodeRef lhs, uint32_t lo, int min_prec);
  NodeRef cast();
  NodeRef cast_tail(NodeRef e, uint32_t lo);
  NodeRef unary();
  NodeRef postfix(NodeRef e, uint32_t lo);
  NodeRef primary();
  NodeRef float_lit();
  [[gnu::noinline, gnu::cold]] void chain_error(const Token& first, bool range);
  [[gnu::noinline, gnu::cold, noreturn]] void field_error(const NodeRef& base);
  NodeRef ident_primary();
  NodeRef paren();
  NodeRef array_or_comp();
  NodeRef comp_clause();
  NodeRef reduce();

  // ---- blocks, control flow, strings (parser_control.cpp)
  NodeRef block();
  NodeRef block_like();
  NodeRef if_expr();
  NodeRef match_expr();
  NodeRef arm(bool& block_body);
  NodeRef lambda();
  NodeRef string_lit();
  NodeRef hole(const StrPiece& piece);

  // ---- types and patterns (parser_types.cpp)
  NodeRef type();
  NodeRef pattern();
  NodeRef pattern_atom();
  NodeRef literal_pattern_value();

  std::string_view text_;
  uint32_t file_;
  std::vector<Token> toks_;
  std::vector<size_t> match_;  // index of the matching closer for each opener (or npos)
  size_t pos_ = 0;
  SharedState& ds_;
  int depth_ = 0;
  bool hole_ = false;  // parsing an interpolation hole: its end is `}`, not end of input
  Tok cur_end_ = Tok::Eof;  // terminator of the statement list being parsed
};

}  // namespace syntax_detail
}  // namespace ein
