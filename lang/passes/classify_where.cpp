#include "lang/passes/classify_where.h"

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"

namespace ein {
namespace {

using ir::Kind;
using ir::NodeRef;

class Classifier : public ir::Mutator {
 public:
  explicit Classifier(CompileCtx& cx) : cx_(cx) {}

 protected:
  // An index expression: integer literals, index variables (or other derived indices), + - *.
  bool is_index_expr(const NodeRef& e, bool& mentions_index) {
    if (!e) return false;
    switch (e->kind) {
      case Kind::IntLit: return true;
      case Kind::Name: {
        DefKind k = cx_.resolver.info(e->def).kind;
        if (k == DefKind::Index || derived_.count(e->def)) {
          mentions_index = true;
          return true;
        }
        // A value fixed while the reduction runs (a let, a parameter, a comprehension
        // variable: `where p = g + i`) is an offset like a literal; an index must still appear.
        // Not a float: `x + i` with a float x is E002 either way (no implicit conversion).
        return k == DefKind::Local || k == DefKind::Global || k == DefKind::Param || k == DefKind::Const;
      }
      case Kind::Binary: {
        auto op = static_cast<ir::BinOp>(e->ival);
        if (op != ir::BinOp::Add && op != ir::BinOp::Sub && op != ir::BinOp::Mul) return false;
        return is_index_expr(ir::bin_lhs(e), mentions_index) &&
               is_index_expr(ir::bin_rhs(e), mentions_index);
      }
      case Kind::Unary:
        return static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg &&
               is_index_expr(ir::unary_operand(e), mentions_index);
      default: return false;
    }
  }

  NodeRef post(const NodeRef& n) override {
    if (n->kind != Kind::Where) return n;
    std::vector<NodeRef> kids{ir::where_expr(n)};
    for (const NodeRef& c : ir::where_clauses(n)) {
      kids.push_back(c);
      if (c->kind == Kind::WBind) {
        bool mentions = false;
        if (is_index_expr(ir::wbind_value(c), mentions) && mentions) {
          derived_.insert(c->def);
          kids.back() = ir::edited(c, [](ir::Node& m) { m.kind = Kind::WDerived; });
        }
      } else if (c->kind == Kind::WGuard) {
        const NodeRef& g = ir::wguard_cond(c);
        if (g && g->kind == Kind::Binary && static_cast<ir::BinOp>(g->ival) == ir::BinOp::In &&
            ir::bin_rhs(g)->kind == Kind::RangeLit && ir::bin_lhs(g)->kind == Kind::Name &&
            cx_.resolver.info(ir::bin_lhs(g)->def).kind == DefKind::Index) {
          std::string idx = ir::bin_lhs(g)->name;
          std::string range = cx_.sm.snippet(ir::bin_rhs(g)->span);
          cx_.error("E012", "index ranges are declared in brackets, not in `where`", g->span,
                    "range in a where clause",
                    "write the range where the index is introduced: `[" + idx + " in " + range +
                        "]`");
        }
      }
    }
    return ir::with_kids(n, std::move(kids));
  }

 private:
  CompileCtx& cx_;
  std::unordered_set<ir::DefId> derived_;
};

}  // namespace

NodeRef classify_where(const NodeRef& body, CompileCtx& cx) {
  Classifier c(cx);
  return c.mutate(body);
}

}  // namespace ein
