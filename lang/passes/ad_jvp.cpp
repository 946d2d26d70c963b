// The forward sweep (JVP): tangents of the tape's entries in definition order, seeded at the
// leaf. Each clause's tangent is Forward::tangent of its value with the tangents of the entries
// read so far (the same local partials the reverse sweep uses); clause and reduction indices get
// explicit ranges so the tangent never depends on reads that differentiate to zero.
#include "lang/passes/ad_reverse.h"
#include "lang/passes/ir_build.h"

namespace ein::ad {

using ir::Kind;

namespace {

// `i` -> `i in lo..hi` for every index whose range analysis knows; Unsupported otherwise.
NodeRef ranged(Facts& facts, const NodeRef& n) {
  if (!n) return n;
  if (n->kind == Kind::IdxVar) {
    const RangeFact* rf = facts.range(n->def);
    if (!rf || !rf->lo || !rf->hi) unsupported("an index whose range is unknown (`" + n->name + "`)", n->span);
    return idx_in(n->name, n->def, rf->lo, rf->hi);
  }
  if (n->kind == Kind::IdxRest) unsupported("a rest pattern", n->span);
  if (n->kind == Kind::Lambda) return n;
  std::vector<NodeRef> kids;
  bool changed = false;
  for (auto& k : n->kids) {
    kids.push_back(ranged(facts, k));
    changed = changed || kids.back() != k;
  }
  return changed ? ir::with_kids(n, std::move(kids)) : n;
}

// A tangent made of literals only gets the entry's float type (literals are context-typed).
NodeRef typed(const NodeRef& t, DType dt) {
  if (!t) return zero_of(dt);
  bool names = false;
  ir::for_each_node(t, [&](const NodeRef& n) { names = names || n->kind == Kind::Name || n->kind == Kind::Path; });
  if (names) return t;
  return ir::make({.kind = Kind::Cast, .kids = {t, ir::make({.kind = Kind::TyPrim, .name = dtype_name(dt)})}});
}

}  // namespace

Tangents forward_sweep(CompileCtx& cx, Facts& facts, const Tape& tape, DefId target, DefId wrt,
                       const NodeRef& seed) {
  Tangents out;
  out.stmts = tape.emits();
  Forward fwd(cx, facts);
  fwd.tangents[wrt] = seed;
  for (const Entry& e : tape.entries()) {
    if (e.def == wrt) continue;
    std::string nm = "t_" + e.name;
    DefId td = cx.resolver.new_def(nm, DefKind::Local);
    if (e.rank == 0) {
      if (e.clauses.size() != 1 || !e.clauses[0].slots.empty()) unsupported("a scalar with clauses", {});
      NodeRef t = typed(fwd.tangent(e.clauses[0].value), e.dt);
      Copier cp(cx, facts);
      out.stmts.push_back(let_stmt(nm, td, cp.copy(ranged(facts, t)), e.dt));
      fwd.tangents[e.def] = name(nm, td);
      continue;
    }
    fwd.tangents[e.def] = name(nm, td);  // a recurrence reads its own tangent
    std::vector<NodeRef> decls;
    for (const Clause& cl : e.clauses) {
      if (static_cast<int>(cl.slots.size()) != e.rank) unsupported("a clause of another rank", {});
      std::vector<NodeRef> kids{typed(fwd.tangent(cl.value), e.dt)};
      for (auto& s : cl.slots) kids.push_back(s);
      NodeRef decl = ir::make({.kind = Kind::EinDecl, .kids = std::move(kids), .name = nm, .def = td});
      Copier cp(cx, facts);
      decls.push_back(cp.copy(ranged(facts, decl)));
    }
    out.stmts.push_back(ir::make({.kind = Kind::EinGroup, .kids = std::move(decls), .name = nm, .def = td,
                                  .flags = e.flags}));
  }
  auto it = fwd.tangents.find(target);
  if (it == fwd.tangents.end() || !it->second) unsupported("a target without a tangent", {});
  out.result = ir::fresh_copy(it->second);
  return out;
}

}  // namespace ein::ad
