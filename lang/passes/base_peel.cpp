#include "lang/passes/base_peel.h"

#include <optional>
#include <vector>

#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/passes/int_fold.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/point_nest.h"

namespace ein {

using ir::BinOp;
using ir::DefId;
using ir::Kind;
using ir::NodeRef;

namespace {

bool reads(const NodeRef& n, DefId self) { return ir::mentions(n, self); }

// A branch as a store value: a block that is only its tail is that tail.
NodeRef branch_value(const NodeRef& b) {
  if (b->kind == Kind::Block && b->has(ir::kHasTail) && b->kids.size() == 1) return b->kids[0];
  return b;
}

class Peeler : public ir::Mutator {
 public:
  Peeler(CompileCtx& cx, Unit& u) : cx_(cx), u_(u) {}

 protected:
  NodeRef post(const NodeRef& n) override {
    if (n->kind != Kind::LTensor || n->has(ir::kReverse) || n->has(ir::kAdjoint)) return n;
    NodeRef t = n;
    // Each peel leaves a clause that may peel again (`else if t == T - 1`); every peel removes
    // a point from a constant range, so this ends.
    for (bool again = true; again;) {
      again = false;
      for (const NodeRef& s : ir::ltensor_stmts(t))
        if (auto r = peel(t, s)) {
          t = *r;
          again = true;
          break;
        }
    }
    return t;
  }

 private:
  NodeRef typed_like(NodeRef n, const NodeRef& like) {
    if (auto it = u_.types.find(like->id); it != u_.types.end()) u_.types[n->id] = it->second;
    return n;
  }

  // `n` with every read of the variable `d` replaced by the literal `c`.
  NodeRef substituted(const NodeRef& n, DefId d, int64_t c) {
    struct Sub : ir::Mutator {
      Peeler* self;
      DefId d;
      int64_t c;
      NodeRef pre(const NodeRef& x) override {
        if (x->kind == Kind::Name && x->def == d) return self->typed_like(irb::lit(c), x);
        return nullptr;
      }
    } sub;
    sub.self = this;
    sub.d = d;
    sub.c = c;
    return sub.mutate(n);
  }

  // The tensor with clause `s` peeled, or nullopt when the rule does not apply.
  std::optional<NodeRef> peel(const NodeRef& t, const NodeRef& s) {
    std::vector<NodeRef> loops;
    NodeRef cur = s;
    for (; cur->kind == Kind::LFor; cur = ir::lfor_body(cur)) loops.push_back(cur);
    if (loops.empty() || cur->kind != Kind::LStore || cur->def != t->def) return std::nullopt;
    const NodeRef store = cur, value = ir::lstore_value(store);
    if (value->kind != Kind::If || !ir::if_else(value)) return std::nullopt;
    const NodeRef cond = ir::if_cond(value);
    if (cond->kind != Kind::Binary || static_cast<BinOp>(cond->ival) != BinOp::Eq) return std::nullopt;
    NodeRef var = ir::bin_lhs(cond), other = ir::bin_rhs(cond);
    if (var->kind != Kind::Name) std::swap(var, other);
    if (var->kind != Kind::Name) return std::nullopt;
    // d must be a loop of this nest, stored at as itself (the declaration index).
    size_t ax = loops.size();
    for (size_t a = 0; a < loops.size(); ++a)
      if (loops[a]->def == var->def) ax = a;
    if (ax == loops.size()) return std::nullopt;
    bool stored_at = false;
    for (const NodeRef& i : ir::lstore_index(store)) stored_at = stored_at || (i->kind == Kind::Name && i->def == var->def);
    if (!stored_at) return std::nullopt;
    auto c = fold_int(cx_, u_, other), lo = fold_int(cx_, u_, ir::lfor_lo(loops[ax])),
         hi = fold_int(cx_, u_, ir::lfor_hi(loops[ax]));
    if (!c || !lo || !hi || *hi <= *lo || (*c != *lo && *c != *hi - 1)) return std::nullopt;
    // Another loop's bounds naming d (a triangular nest) would have to change with the peel.
    for (const NodeRef& l : loops)
      if (l != loops[ax] && (reads(ir::lfor_lo(l), var->def) || reads(ir::lfor_hi(l), var->def))) return std::nullopt;
    const NodeRef a = branch_value(ir::if_then(value)), b = branch_value(ir::if_else(value));
    // A base case reading the tensor would have to run in the time loop's order; a branch that
    // is not a recurrence gains nothing from the peel.
    if (reads(a, t->def) || !reads(b, t->def)) return std::nullopt;
    auto vt = u_.types.find(value->id), at = u_.types.find(a->id), bt = u_.types.find(b->id);
    if (vt == u_.types.end() || at == u_.types.end() || bt == u_.types.end() ||
        !ir::type_equal(vt->second, at->second) || !ir::type_equal(vt->second, bt->second))
      return std::nullopt;

    // The base clause: the nest without d, A stored at d = c.
    NodeRef base = ir::with_kids(store, [&] {
      std::vector<NodeRef> k{substituted(a, var->def, *c)};
      for (const NodeRef& i : ir::lstore_index(store)) k.push_back(substituted(i, var->def, *c));
      return k;
    }());
    for (size_t l = loops.size(); l-- > 0;)
      if (l != ax) base = ir::with_kids(loops[l], {substituted(ir::lfor_lo(loops[l]), var->def, *c),
                                                   substituted(ir::lfor_hi(loops[l]), var->def, *c), base});
    std::vector<NodeRef> out{copy_with_facts(u_, base)};
    // The step clause: B over the rest of d's range (nothing when c was its only value).
    if (*hi - *lo > 1) {
      NodeRef step = ir::with_kids(store, [&] {
        std::vector<NodeRef> k{b};
        for (const NodeRef& i : ir::lstore_index(store)) k.push_back(i);
        return k;
      }());
      for (size_t l = loops.size(); l-- > 0;) {
        NodeRef from = ir::lfor_lo(loops[l]), to = ir::lfor_hi(loops[l]);
        if (l == ax) (*c == *lo ? from : to) = typed_like(irb::lit(*c == *lo ? *lo + 1 : *hi - 1), ir::lfor_lo(loops[l]));
        step = ir::with_kids(loops[l], {from, to, step});
      }
      out.push_back(step);
    }
    return clause_replaced(t, s, out,
                           "peeled: the inline base case at `" + var->name + "` = " + std::to_string(*c) +
                               " is a clause of its own");
  }

  CompileCtx& cx_;
  Unit& u_;
};

}  // namespace

void base_peel(CompileCtx& cx) { rewrite_lowered<Peeler>(cx); }

}  // namespace ein
