#include "lang/passes/memo_plan.h"

#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lang/ir/kid_families.h"
#include "lang/ir/visitor.h"
#include "lang/passes/context.h"
#include "lang/resolve/builtins.h"

namespace ein {
namespace {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

// The loop variables a value depends on.
struct Deps {
  std::unordered_set<DefId> vars;
  void add(const Deps& o) { vars.insert(o.vars.begin(), o.vars.end()); }
};

// A tensor being computed around a node, and what one statement (nest) of it writes: every store
// has the nest's outermost loop variable `v` at axis `pos` (pos < 0: no read of it is final).
struct Computing {
  DefId d;
  std::vector<DefId> v;  // the loop variable and the names a statement gives it (`LLet t = t'`)
  int pos = -1;
};

bool effectful(Builtin b) {
  switch (b) {
    // Effects, and reads of the file system (a write elsewhere in the statement changes them).
    case Builtin::Print: case Builtin::SaveNpy: case Builtin::WriteFile: case Builtin::FsDo:
    case Builtin::LoadNpy: case Builtin::ReadFile: case Builtin::FileExists: case Builtin::ListDir:
    case Builtin::FileSize: case Builtin::FsTest: case Builtin::FsStr:
      return true;
    default: return false;
  }
}

// `v + c` or `v - c` with a literal c ≠ 0, v one of `vs`.
bool offset_of(const NodeRef& a, const std::vector<DefId>& vs) {
  if (a->kind != Kind::Binary) return false;
  auto op = static_cast<ir::BinOp>(a->ival);
  const NodeRef& l = ir::bin_lhs(*a);
  const NodeRef& r = ir::bin_rhs(*a);
  auto is_v = [&](const NodeRef& x) {
    return x->kind == Kind::Name && std::find(vs.begin(), vs.end(), x->def) != vs.end();
  };
  auto nonzero = [](const NodeRef& x) { return x->kind == Kind::IntLit && x->ival != 0; };
  if (op == ir::BinOp::Sub) return is_v(l) && nonzero(r);
  if (op == ir::BinOp::Add) return (is_v(l) && nonzero(r)) || (is_v(r) && nonzero(l));
  return false;
}

class Planner {
 public:
  explicit Planner(CompileCtx& cx) : cx_(cx) {}

  void walk(const NodeRef& n) {
    if (!n) return;
    switch (n->kind) {
      case Kind::Lambda: return;  // its body is its own unit
      case Kind::LTensor: tensor(n); return;
      case Kind::LFor:
        walk(ir::lfor_lo(*n));
        walk(ir::lfor_hi(*n));
        loops_.push_back(n->def);
        walk(ir::lfor_body(*n));
        loops_.pop_back();
        return;
      case Kind::LReduce: {
        const ir::Kids items = ir::lreduce_items(*n);
        for (const NodeRef& it : items) walk(it);  // bounds and checks run before the terms
        size_t pushed = 0;
        for (const NodeRef& it : items)
          if (it->kind == Kind::LoopVar) loops_.push_back(it->def), ++pushed;
        walk(ir::lreduce_body(*n));
        loops_.resize(loops_.size() - pushed);
        return;
      }
      case Kind::LLet:
        walk(ir::llet_value(*n));
        local(n->def, deps(ir::llet_value(*n)));
        return;
      case Kind::LLetIn:
        walk(ir::lletin_value(*n));
        local(n->def, deps(ir::lletin_value(*n)));
        walk(ir::lletin_body(*n));
        return;
      case Kind::Let: let(n); return;
      case Kind::Call: call(n); return;
      case Kind::CompGen: case Kind::CompLet: case Kind::PBind: case Kind::PAt: case Kind::PRest:
        // Bound inside the loops by a comprehension or a match: how it varies is not tracked.
        if (n->def.valid() && !loops_.empty()) unknown_.insert(n->def);
        break;
      default: break;
    }
    for (const NodeRef& k : n->kids) walk(k);
  }

  std::unordered_set<uint32_t> marks() const {
    std::unordered_set<uint32_t> out;
    for (uint32_t id : marks_)
      if (!vetoed_.count(id)) out.insert(id);
    return out;
  }

 private:
  CompileCtx& cx_;
  std::vector<DefId> loops_;  // enclosing loop variables, outermost first
  std::unordered_map<DefId, Deps> locals_;  // locals bound inside the loops
  std::unordered_set<DefId> unknown_;
  std::vector<Computing> computing_;
  std::vector<const Deps*> marked_;  // dependences of the marked nodes around this one
  // A node reached twice (a clause copied by guard_split shares its subtrees) is marked only
  // when every occurrence allows it.
  std::unordered_set<uint32_t> marks_, vetoed_;

  void local(DefId d, Deps deps) {
    if (!loops_.empty() && d.valid()) locals_[d] = std::move(deps);
  }

  // False when `n` reads a local whose dependence is not tracked (then it depends on every loop).
  bool deps_of(const NodeRef& n, Deps& out) {
    bool known = true;
    ir::for_each_node(n, [&](const NodeRef& k) {
      if (k->kind != Kind::Name || !k->def.valid()) return;
      if (std::find(loops_.begin(), loops_.end(), k->def) != loops_.end()) out.vars.insert(k->def);
      else if (auto it = locals_.find(k->def); it != locals_.end()) out.add(it->second);
      else if (unknown_.count(k->def)) known = false;
    });
    return known;
  }

  Deps deps(const NodeRef& n) {
    Deps d;
    if (!deps_of(n, d))
      for (DefId v : loops_) d.vars.insert(v);
    return d;
  }

  void tensor(const NodeRef& t) {
    Deps d;
    if (!loops_.empty()) d = deps(t);
    const bool mark = !loops_.empty() && !t->has(ir::kResume) && consider(t, d);
    if (mark) marked_.push_back(&d);
    walk(ir::ltensor_shape(*t));  // evaluated before any store, in the context around
    for (const NodeRef& s : ir::ltensor_stmts(*t)) {
      computing_.push_back(nest(t->def, s));
      walk(s);
      computing_.pop_back();
    }
    if (mark) marked_.pop_back();
    local(t->def, std::move(d));
  }

  void let(const NodeRef& n) {
    const NodeRef& value = ir::let_value(*n);
    Deps d = deps(value);
    const NodeRef& pat = ir::let_pattern(*n);
    const bool mark = !loops_.empty() && (pat->kind == Kind::PBind || pat->kind == Kind::PTuple) &&
                      consider(n, d);
    if (mark) marked_.push_back(&d);
    walk(value);
    if (mark) marked_.pop_back();
    ir::for_each_node(pat, [&](const NodeRef& k) {
      if (k->def.valid()) local(k->def, d);
    });
  }

  void call(const NodeRef& n) {
    Deps d;
    bool mark = false;
    const NodeRef& callee = ir::call_callee(*n);
    if (!loops_.empty() && (callee->kind == Kind::Name || callee->kind == Kind::Path) && callee->def.valid()) {
      auto b = builtin_of(callee->def);
      // Elementwise math and shape queries cost less than a memo lookup; the vectorised
      // interpreter evaluates math intrinsics itself.
      const bool cheap = b && (is_math_intrinsic(*b) || *b == Builtin::Len || *b == Builtin::Shape ||
                               *b == Builtin::Typeof || *b == Builtin::IsInt || *b == Builtin::IsBool);
      if (!cheap && (b || cx_.resolver.info(callee->def).kind == DefKind::Fn)) {
        d = deps(n);
        mark = consider(n, d);
      }
    }
    if (mark) marked_.push_back(&d);
    for (const NodeRef& k : n->kids) walk(k);
    if (mark) marked_.pop_back();
  }

  // Records the decision for `n`; true when it is marked.
  bool consider(const NodeRef& n, const Deps& d) {
    bool ok = !d.vars.count(loops_.back());
    for (const Deps* m : marked_)
      if (m->vars == d.vars) ok = false;  // the node around it is reused exactly as often
    ok = ok && pure(n) && reads_final(n);
    (ok ? marks_ : vetoed_).insert(n->id);
    return ok;
  }

  // What one statement of tensor `d` writes.
  static Computing nest(DefId d, const NodeRef& stmt) {
    Computing c{d, {}, -1};
    if (stmt->kind != Kind::LFor) return c;
    std::vector<DefId> v{stmt->def};
    // recurrence_order runs a step as `LFor t' { LLet t = t'; ... }`: t is the same variable.
    ir::for_each_node(stmt, [&](const NodeRef& k) {
      if (k->kind == Kind::LLet && ir::llet_value(*k)->kind == Kind::Name &&
          std::find(v.begin(), v.end(), ir::llet_value(*k)->def) != v.end())
        v.push_back(k->def);
    });
    int pos = -1;
    bool ok = true;
    ir::for_each_node(stmt, [&](const NodeRef& k) {
      if ((k->kind != Kind::LStore && k->kind != Kind::LAccum) || k->def != d) return;
      int p = -1;
      for (size_t a = 1; a < k->kids.size(); ++a)
        if (k->kids[a]->kind == Kind::Name && std::find(v.begin(), v.end(), k->kids[a]->def) != v.end()) {
          p = static_cast<int>(a) - 1;
          break;
        }
      if (p < 0 || (pos >= 0 && p != pos)) ok = false;
      else pos = p;
    });
    if (ok && pos >= 0) c = Computing{d, std::move(v), pos};
    return c;
  }

  // Every read of the tensor being computed is of points its statement is not writing now.
  bool reads_final(const NodeRef& n) {
    if (computing_.empty()) return true;
    const Computing& c = computing_.back();
    bool ok = true;
    std::function<void(const NodeRef&)> visit = [&](const NodeRef& k) {
      if (!ok || !k) return;
      const bool named = !k->kids.empty() && k->kids[0]->kind == Kind::Name && k->kids[0]->def == c.d;
      if (k->kind == Kind::DimOf && named) return;  // extents are fixed before the first store
      if (k->kind == Kind::Index && named) {
        const ir::Kids args = ir::index_args(*k);
        if (c.pos < 0 || static_cast<size_t>(c.pos) >= args.size() || !offset_of(args[static_cast<size_t>(c.pos)], c.v))
          ok = false;
        for (const NodeRef& a : args) visit(a);
        return;
      }
      if (k->kind == Kind::Name && k->def == c.d) ok = false;
      for (const NodeRef& x : k->kids) visit(x);
    };
    visit(n);
    return ok;
  }

  // No lambda, and every call (through every function it reaches) has no effects and reads no
  // tensor being computed (a function reading the global `G` inside G's clauses).
  bool pure(const NodeRef& n) {
    bool ok = true;
    std::unordered_set<DefId> seen;
    ir::for_each_node(n, [&](const NodeRef& k) {
      if (!ok) return;
      if (k->kind == Kind::Lambda) ok = false;
      else if (k->kind == Kind::Call) ok = pure_callee(ir::call_callee(*k), seen, 0);
    });
    return ok;
  }

  bool pure_callee(const NodeRef& c, std::unordered_set<DefId>& seen, int depth) {
    if ((c->kind != Kind::Name && c->kind != Kind::Path) || !c->def.valid()) return false;
    if (auto b = builtin_of(c->def)) return !effectful(*b);
    if (cx_.resolver.info(c->def).kind != DefKind::Fn) return false;  // a function value
    return pure_fn(c->def, seen, depth);
  }

  bool pure_fn(DefId f, std::unordered_set<DefId>& seen, int depth) {
    if (!seen.insert(f).second) return true;
    const DefInfo& info = cx_.resolver.info(f);
    if (depth > 16 || !info.node) return false;
    bool ok = true;
    ir::for_each_node(info.node, [&](const NodeRef& k) {
      if (!ok) return;
      if (k->kind == Kind::Name || k->kind == Kind::Path)
        for (const Computing& c : computing_)
          if (k->def == c.d) ok = false;
      if (ok && k->kind == Kind::Call) ok = pure_callee(ir::call_callee(*k), seen, depth + 1);
    });
    return ok;
  }
};

class Marker : public ir::Mutator {
 public:
  explicit Marker(std::unordered_set<uint32_t> ids) : ids_(std::move(ids)) {}

 protected:
  NodeRef pre(const NodeRef& n) override {
    if (ids_.empty() || n->kind == Kind::Lambda) return n;
    return nullptr;
  }
  NodeRef post(const NodeRef& n) override {
    if (!ids_.count(n->id) || n->has(ir::kInvariantCall)) return n;
    return ir::edited(n, [](ir::Node& m) { m.flags |= ir::kInvariantCall; });
  }

 private:
  std::unordered_set<uint32_t> ids_;
};

}  // namespace

void memo_plan(CompileCtx& cx) {
  for (auto& u : cx.units) {
    if (!u->lowered) continue;
    Planner p(cx);
    p.walk(u->lowered);
    auto ids = p.marks();
    if (ids.empty()) continue;
    Marker m(std::move(ids));
    u->lowered = m.mutate(u->lowered);
  }
}

}  // namespace ein
