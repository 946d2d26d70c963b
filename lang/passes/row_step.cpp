// A call on a recurrence's own earlier row inlined into the step (row_copy.h `step_block`).
//
// `let h[t in 1..T, j] = softmax(h[t - 1])[j] + x[t, j];` cannot become declarations over the
// rows as row_inline.cpp makes them: they would read h and h would read them (a declaration
// runs whole before the next statement). The copy becomes a block in the step instead:
//   h[t, j] = { let m = max[k in 0..64](h[t - 1, k]);
//               let s = sum[k in 0..64](exp(h[t - 1, k] - m));
//               exp(h[t - 1, j] - m) / s } + x[t, j]
// Scalar lets (the callee's row reductions) read nothing of j: the native tier computes them
// once per step before the row's loop (engine/codegen gen_reduce.cpp, `earlier_row_read`), the
// interpreter's memo_plan keeps them per step. A declaration of the callee without a reduction
// (`e[j] = exp(f[j] - m)`) is substituted where it is read: its value at that point is the same
// operations on the same operands, so the same bits as the stored element. A declaration holding
// a reduction (a matrix-vector product inside the callee) would be recomputed at every read, and
// a block-local array is not a kernel: such a callee keeps its call (once per step, as before).
#include <functional>
#include <unordered_map>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/row_copy.h"

namespace ein::row_inline_detail {

namespace {

struct Decl {
  std::vector<DefId> vars;  // its index variables, in slot order
  NodeRef value;
};

class Substituter {
 public:
  Substituter(RowCopier& cp, Copy& c) : cp_(cp), c_(c) {}
  std::unordered_map<DefId, Decl> decls;

  // `e` with every read of a substituted declaration replaced by its value at the read's
  // subscripts (each read gets its own copy: fresh node ids).
  NodeRef apply(const NodeRef& e) {
    if (!e || !c_.ok) return e;
    if (e->kind == Kind::Index) {
      const NodeRef& base = ir::index_base(*e);
      auto it = base->kind == Kind::Name ? decls.find(base->def) : decls.end();
      if (it != decls.end()) {
        if (e->kids.size() - 1 != it->second.vars.size()) {
          cp_.fail(c_, "a partial read of a step declaration");
          return e;
        }
        std::unordered_map<DefId, NodeRef> at;
        for (size_t i = 0; i < it->second.vars.size(); ++i) at[it->second.vars[i]] = apply(e->kids[i + 1]);
        return instantiate(it->second.value, at);
      }
    }
    if ((e->kind == Kind::Name || e->kind == Kind::Path) && decls.count(e->def)) {
      cp_.fail(c_, "a step declaration used whole");
      return e;
    }
    std::vector<NodeRef> kids;
    bool changed = false;
    for (auto& k : e->kids) {
      kids.push_back(apply(k));
      changed = changed || kids.back() != k;
    }
    return changed ? remade(e, std::move(kids), e->def) : e;
  }

 private:
  RowCopier& cp_;
  Copy& c_;

  NodeRef instantiate(const NodeRef& v, const std::unordered_map<DefId, NodeRef>& at) {
    if (!v) return v;
    if (v->kind == Kind::Name)
      if (auto it = at.find(v->def); it != at.end()) return fresh(it->second);
    std::vector<NodeRef> kids;
    for (auto& k : v->kids) kids.push_back(instantiate(k, at));
    return remade(v, std::move(kids), v->def);
  }
  NodeRef fresh(const NodeRef& v) {
    if (!v) return v;
    std::vector<NodeRef> kids;
    for (auto& k : v->kids) kids.push_back(fresh(k));
    return remade(v, std::move(kids), v->def);
  }
};

bool has_reduce_or_binder(const NodeRef& e) {
  bool hit = false;
  ir::for_each_node(e, [&](const NodeRef& n) { hit = hit || n->kind == Kind::Reduce || binder_kind(n->kind); });
  return hit;
}

}  // namespace

NodeRef step_block(RowCopier& cp, Copy& c, const Meaning& result, const std::vector<NodeRef>& subs, Span at,
                   const CompileCtx& cx, const std::function<bool(DefId)>& bound_here, std::vector<NodeRef>& before) {
  Substituter sub(cp, c);
  std::vector<NodeRef> stmts;
  std::unordered_set<DefId> seen;
  std::unordered_set<DefId> inner;  // what the block binds
  auto reads_step = [&](const NodeRef& e) {
    for (DefId d : names_in(e))
      if (bound_here(d) || inner.count(d) || sub.decls.count(d)) return true;
    return false;
  };
  for (const NodeRef& s : c.out) {
    if (!c.ok) break;
    if (s->kind == Kind::Let && ir::let_pattern(*s)->kind == Kind::PBind) {
      NodeRef v = sub.apply(ir::let_value(*s));
      // Computed once per point of the step now (or once per step where it is hoisted): only
      // values without effects. One that reads nothing of the step (an attribute, a rank) is
      // computed once before the statement.
      if (!pure(cx, v, seen)) cp.fail(c, "a value with effects in a recurrence step");
      NodeRef let = ir::with_kids(s, {s->kids[0], s->kids[1], v});
      if (reads_step(v)) {
        inner.insert(ir::let_pattern(*s)->def);
        stmts.push_back(let);
      } else {
        before.push_back(let);
      }
      continue;
    }
    if (s->kind == Kind::ExprStmt) {
      // A check of the callee that reads nothing of the statement (layer_normalization's test
      // of ranks and axis): made once before the statement, as row_inline.cpp does for rows.
      bool reads = reads_step(s);
      const NodeRef& call = ir::stmt_expr(*s);
      for (const NodeRef& a : call->kind == Kind::Call ? ir::call_args(*call) : ir::Kids{})
        reads = reads || !pure(cx, a, seen);
      if (reads || call->kind != Kind::Call) cp.fail(c, "a check on the row's values in a recurrence step");
      before.push_back(s);
      continue;
    }
    if (s->kind != Kind::EinGroup || ir::group_clauses(s).size() != 1 || !ir::group_clauses(s)[0] ||
        ir::group_clauses(s)[0]->kind != Kind::EinDecl) {
      cp.fail(c, "a statement other than a let or a one-clause declaration in a recurrence step");
      break;
    }
    const NodeRef& cl = ir::group_clauses(s)[0];
    NodeRef v = sub.apply(ir::ein_value(cl));
    if (!pure(cx, v, seen)) cp.fail(c, "a value with effects in a recurrence step");
    ir::Kids slots = ir::ein_slots(cl);
    if (slots.empty()) {
      // A declaration of rank 0 (softmax's `m[..b]` on a vector): a scalar let.
      NodeRef pat = ir::make({.kind = Kind::PBind, .span = s->span, .name = s->name, .def = s->def});
      stmts.push_back(ir::make({.kind = Kind::Let, .span = s->span, .kids = {pat, nullptr, v}}));
      inner.insert(s->def);
      continue;
    }
    Decl d{.value = v};
    for (const NodeRef& sl : slots) {
      if (!sl || sl->kind != Kind::IdxVar || !sl->def.valid()) {
        cp.fail(c, "a step declaration with a ranged or guarded index");
        break;
      }
      d.vars.push_back(sl->def);
    }
    if (has_reduce_or_binder(v)) cp.fail(c, "a step declaration holding a reduction");
    sub.decls[s->def] = std::move(d);
  }
  if (!c.ok) return nullptr;
  NodeRef tail = sub.apply(cp.read(c, result, subs, at));
  if (!c.ok) return nullptr;
  if (stmts.empty()) return tail;
  return block(std::move(stmts), tail, at);
}

}  // namespace ein::row_inline_detail
