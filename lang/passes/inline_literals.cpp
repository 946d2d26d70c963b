#include "lang/passes/inline_literals.h"

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/resolve/builtins.h"

namespace ein {
namespace {

using ir::Kind;
using ir::NodeRef;

bool is_literal(const NodeRef& n) {
  if (!n) return false;
  if (n->kind == Kind::IntLit || n->kind == Kind::FloatLit || n->kind == Kind::BoolLit) return true;
  return n->kind == Kind::Unary && static_cast<ir::UnOp>(n->ival) == ir::UnOp::Neg &&
         (ir::unary_operand(n)->kind == Kind::IntLit || ir::unary_operand(n)->kind == Kind::FloatLit);
}

class Inliner : public ir::Mutator {
 public:
  explicit Inliner(CompileCtx& cx) : cx_(cx) {}

 protected:
  // The literal a definition stands for, or null.
  NodeRef literal_of(ir::DefId d, int depth = 0) {
    if (!d.valid() || depth > 8) return nullptr;
    const DefInfo& info = cx_.resolver.info(d);
    if (info.kind == DefKind::Const && info.node && !ir::const_type(info.node)) {
      const NodeRef& v = ir::const_value(info.node);
      if (is_literal(v)) return v;
      if (v->kind == Kind::Name) return literal_of(v->def, depth + 1);
    }
    return nullptr;
  }

  NodeRef zero_arg_literal(ir::DefId d) {
    const DefInfo& info = cx_.resolver.info(d);
    if (info.kind != DefKind::Fn || !info.node || info.diff_rule) return nullptr;
    const NodeRef& fn = info.node;
    if (fn->kids.size() != ir::fn_param_begin() || ir::fn_ret_type(*fn)) return nullptr;
    const NodeRef& body = ir::fn_body(*fn);
    if (!body || body->kind != Kind::Block || !body->has(ir::kHasTail) || body->kids.size() != 1)
      return nullptr;
    const NodeRef& v = ir::tail_expr(*body);
    if (is_literal(v)) return v;
    if (v->kind == Kind::Name || v->kind == Kind::Path) return literal_of(v->def);
    // A float constant intrinsic (`__eps()`, `__inf()`) is typed by its context like a literal.
    if (v->kind == Kind::Call && v->kids.size() == 1) {
      auto b = builtin_of(ir::call_callee(v)->def);
      if (b && (*b == Builtin::Inf || *b == Builtin::Nan || *b == Builtin::Eps ||
                *b == Builtin::MaxFloat || *b == Builtin::MinFloat))
        return v;
    }
    return nullptr;
  }

  NodeRef copy_at(const NodeRef& lit, Span at) {
    NodeRef c = ir::fresh_copy(lit);
    return ir::edited(c, [&](ir::Node& m) { m.span = at; });
  }

  NodeRef pre(const NodeRef& n) override {
    if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def.valid())
      if (NodeRef lit = literal_of(n->def)) return copy_at(lit, n->span);
    if (n->kind == Kind::Call && n->kids.size() == 1 &&
        (ir::call_callee(n)->kind == Kind::Name || ir::call_callee(n)->kind == Kind::Path))
      if (NodeRef lit = zero_arg_literal(ir::call_callee(n)->def)) return copy_at(lit, n->span);
    return nullptr;
  }

 private:
  CompileCtx& cx_;
};

}  // namespace

NodeRef inline_literals(const NodeRef& body, CompileCtx& cx) {
  Inliner in(cx);
  return in.mutate(body);
}

}  // namespace ein
