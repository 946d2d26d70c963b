// What the reverse sweep reads from the primal instead of recomputing it (see ad_sweep.h): a
// clause's stored output where a `@fn` rule recomputes its own result, and a primal
// intermediate `pre_Z` for a summing argument an activation's rule needs.
#include <cstring>
#include <functional>

#include "lang/passes/ad_sweep.h"
#include "lang/passes/ir_build.h"

namespace ein::ad {

using ir::Kind;

// The primal's stored value at the clause's point, when it is exactly the clause value (a
// scalar point of an f32/f64 tensor: narrower types round on store).
NodeRef Sweeper::stored_value(const Entry& c, const Clause& cl) const {
  if (c.dt != DType::F32 && c.dt != DType::F64) return nullptr;
  if (cl.value->kind != Kind::Call || facts_.float_dtype(cl.value) != c.dt) return nullptr;
  std::vector<NodeRef> kids{name(c.name, c.def)};
  for (auto& s : cl.slots) {
    if (s->kind == Kind::IdxLit)
      kids.push_back(irb::lit(s->ival));
    else if (s->kind == Kind::IdxVar || s->kind == Kind::IdxIn)
      kids.push_back(name(s->name, s->def));
    else
      return nullptr;
  }
  if (static_cast<int>(kids.size()) - 1 != c.rank) return nullptr;
  if (c.rank == 0) return kids[0];
  return ir::make({.kind = Kind::Index, .kids = std::move(kids)});
}

namespace {

// Binders whose names a stored argument may contain (the same ones nested_arg looks for). A
// block-local declaration (`{ let u[i in 0..3] = h[t - 1] * x[t + i]; nrm(u) }`) binds too: an
// argument reading u, stored over the clause's ranges, read whichever u was computed last.
bool binds(const ir::Node& n) {
  return n.kind == Kind::IdxVar || n.kind == Kind::IdxIn || n.kind == Kind::PBind || n.kind == Kind::WBind ||
         n.kind == Kind::WDerived || n.kind == Kind::CompGen || n.kind == Kind::CompLet ||
         n.kind == Kind::EinGroup || n.kind == Kind::EinDecl;
}

// a and b equal up to the names of what they bind (`sum[k](W[j, k] * x[t, k])` written twice
// in one clause, a GRU's update gate): first the binders are paired, then every name compared.
bool same_up_to_binders(const NodeRef& a, const NodeRef& b, std::unordered_map<DefId, DefId>& to, bool names) {
  if (!a || !b) return a == b;
  if (a->kind != b->kind || a->name != b->name || a->aux != b->aux || a->ival != b->ival ||
      a->flags != b->flags || a->kids.size() != b->kids.size() ||
      std::memcmp(&a->fval, &b->fval, sizeof(double)) != 0)
    return false;
  if (binds(*a) && !names) to[a->def] = b->def;
  if (names && a->def != b->def) {
    auto it = to.find(a->def);
    if (it == to.end() || it->second != b->def) return false;
  }
  for (size_t i = 0; i < a->kids.size(); ++i)
    if (!same_up_to_binders(a->kids[i], b->kids[i], to, names)) return false;
  return true;
}

// Is `target` inside `root` evaluated wherever root is? Not in a branch of an `if` or a `match`,
// the right of `&&`/`||`, under a `where` guard or in a lambda: an intermediate over the whole
// clause would evaluate it where the primal did not (`if j < 2 { R[j, k] .. }`: out of bounds).
bool unconditional(const NodeRef& root, const ir::Node* target) {
  bool found = false, under = false;
  std::function<void(const NodeRef&, bool)> walk = [&](const NodeRef& n, bool cond) {
    if (!n || found) return;
    if (n.get() == target) {
      found = true;
      under = cond;
      return;
    }
    bool guarded = n->kind == Kind::Lambda || n->kind == Kind::Match;
    if (n->kind == Kind::Where)
      for (auto& k : n->kids) guarded = guarded || k->kind == Kind::WGuard;
    bool lazy_rhs = n->kind == Kind::Binary && (static_cast<ir::BinOp>(n->ival) == ir::BinOp::And ||
                                                static_cast<ir::BinOp>(n->ival) == ir::BinOp::Or);
    for (size_t i = 0; i < n->kids.size(); ++i) {
      bool c = guarded || (n->kind == Kind::If && i > 0) || (lazy_rhs && i == 1);
      if (n->kind == Kind::Match && i == 0) c = false;  // the scrutinee
      walk(n->kids[i], cond || c);
    }
  };
  walk(root, false);
  return found && !under;
}

// n with every subtree `f` gives a replacement for (non-null) replaced, outermost first.
NodeRef replaced(const NodeRef& n, const std::function<NodeRef(const NodeRef&)>& f) {
  if (!n) return n;
  if (NodeRef v = f(n)) return v;
  std::vector<NodeRef> kids;
  bool changed = false;
  for (auto& k : n->kids) {
    kids.push_back(replaced(k, f));
    changed = changed || kids.back() != k;
  }
  return changed ? ir::with_kids(n, std::move(kids)) : n;
}

}  // namespace

// An argument of the clause's call (`gelu(sum[k](X[n, k] * W[j, k]))`) as a read of a primal
// intermediate `pre_Z[n, j]`, declared once over the clause's own ranges and computed after
// the primal (a contraction is one GEMM there, instead of one per partial). A recurrence's
// argument only within the budget (recurrence_budget).
bool Sweeper::nested_arg(const Clause& cl, const NodeRef& arg) {
  bool call_arg = false, sums = false;
  ir::for_each_node(cl.value, [&](const NodeRef& n) {
    if (n->kind == Kind::Call)
      for (const NodeRef& a : ir::call_args(n)) call_arg = call_arg || a == arg;
  });
  ir::for_each_node(arg, [&](const NodeRef& n) { sums = sums || n->kind == Kind::Reduce; });
  if (!call_arg || !sums || !unconditional(cl.value, arg.get())) return false;
  std::unordered_set<DefId> outside;
  std::function<void(const NodeRef&)> walk = [&](const NodeRef& n) {
    if (!n || n == arg) return;
    if (binds(*n)) outside.insert(n->def);
    for (auto& k : n->kids) walk(k);
  };
  walk(cl.value);
  bool free = true;
  ir::for_each_node(arg, [&](const NodeRef& n) {
    free = free && !(n->kind == Kind::Name && outside.count(n->def));
  });
  return free;
}

// A recurrence's argument (a gate `sigmoid(sum[l](U[j, l] * h[t - 1, l]) + ..)`) read from
// `pre_h[t, j]` costs one batched contraction after the primal instead of one per adjoint point
// (a GRU's gradient was O(H) primals), but pre_h reads every step of h: the checkpoint pass then
// keeps h and its adjoint whole. So only while h, its adjoint and the arguments stored so far fit
// the gradient's memory budget (EIN_AD_MEMORY), with extents known at compile time, and never
// under forced checkpoints (EIN_AD_CHECKPOINT); otherwise the sweep recomputes the argument.
bool Sweeper::recurrence_budget(const Entry& c, const Clause& cl, DType dt) {
  if (cx_.opt.ad_checkpoint > 0) return false;
  double points = 1;
  for (auto& s : cl.slots) {
    if (s->kind == Kind::IdxLit) continue;
    const RangeFact* rf = facts_.range(s->def);
    auto lo = rf && rf->lo ? facts_.fold(rf->lo) : std::nullopt;
    auto hi = rf && rf->hi ? facts_.fold(rf->hi) : std::nullopt;
    if (!lo || !hi || *hi < *lo) return false;
    points *= static_cast<double>(*hi - *lo);
  }
  double need = points * dtype_storage_bytes(dt);
  if (!budgeted_.count(c.def)) need += 2 * points * dtype_storage_bytes(c.dt);  // h and h̄
  if (stored_bytes_ + need > static_cast<double>(cx_.opt.ad_memory)) return false;
  budgeted_.insert(c.def);
  stored_bytes_ += need;
  return true;
}


// A previously stored expression of this clause equal to e up to binder names, or nullptr.
// (The read names this clause's indices: only an expression of the same clause shares it.)
NodeRef Sweeper::stored_before(const Clause& cl, const NodeRef& e) const {
  for (auto& [clause, other, read] : pre_args_) {
    std::unordered_map<DefId, DefId> to;
    if (clause == cl.value.get() && same_up_to_binders(other, e, to, false) &&
        same_up_to_binders(other, e, to, true))
      return read;
  }
  return nullptr;
}

// `pre_Z[slots] = e` over the clause's own ranges, emitted before the adjoints, and its read at
// the clause's point; nullptr when a slot is not an index with known bounds.
NodeRef Sweeper::store(const Entry& c, const Clause& cl, const NodeRef& e) {
  std::string nm = "pre_" + c.name;
  Copier cp(cx_, facts_);
  std::vector<NodeRef> slots, read{name(nm, DefId{})};
  for (auto& s : cl.slots) {
    if (s->kind == Kind::IdxLit) continue;  // (a clause of one row, `s[t, 0, j]`: over t, j)
    if (s->kind != Kind::IdxVar && s->kind != Kind::IdxIn) return nullptr;
    const RangeFact* rf = facts_.range(s->def);
    if (!rf || !rf->lo || !rf->hi) return nullptr;
    DefId nd = cx_.resolver.new_def(s->name, DefKind::Index, s->span);
    slots.push_back(idx_in(s->name, nd, rf->lo, rf->hi));
    cp.subst[s->def] = name(s->name, nd);
    read.push_back(name(s->name, s->def));
  }
  DefId pd = cx_.resolver.new_def(nm, DefKind::Local, cl.value->span);
  read[0] = name(nm, pd);
  std::vector<NodeRef> kids{cp.copy(e)};
  for (auto& s : slots) kids.push_back(s);
  NodeRef decl = ir::make({.kind = Kind::EinDecl, .kids = std::move(kids), .name = nm, .def = pd});
  pre_stmts.push_back(ir::make({.kind = Kind::EinGroup, .kids = {decl}, .name = nm, .def = pd}));
  NodeRef out = ir::make({.kind = Kind::Index, .kids = std::move(read)});
  pre_args_.emplace_back(cl.value.get(), e, out);
  return out;
}

bool Sweeper::stored_slots(const Clause& cl) const {
  bool any = false;
  for (auto& s : cl.slots) {
    if (s->kind == Kind::IdxLit) continue;
    any = true;
    if (s->kind != Kind::IdxVar && s->kind != Kind::IdxIn) return false;
    const RangeFact* rf = facts_.range(s->def);
    if (!rf || !rf->lo || !rf->hi) return false;
  }
  return any;
}

bool Sweeper::reads_itself(const Entry& c, const Clause& cl) {
  bool self_read = false;
  ir::for_each_node(cl.value, [&](const NodeRef& n) {
    self_read = self_read || (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name &&
                              ir::index_base(n)->def == c.def);
  });
  return self_read;
}

NodeRef Sweeper::stored_arg(const Entry& c, const Clause& cl, const NodeRef& arg) {
  auto hit = pre_reads_.find(arg.get());
  if (hit != pre_reads_.end()) return hit->second;
  if (NodeRef r = stored_before(cl, arg)) return pre_reads_[arg.get()] = r;
  NodeRef& out = pre_reads_[arg.get()];
  bool is_arg = false;
  if (cl.value->kind == Kind::Call)
    for (const NodeRef& a : ir::call_args(cl.value)) is_arg = is_arg || a == arg;
  // A call deeper in the value (a residual `X[n, j] + gelu(..)`, a gate `sigmoid(..) * h`)
  // when its argument sums (else storing costs more than it saves) and reads no index or
  // local the value binds outside the argument (a point of the clause determines it).
  if (!is_arg && nested_arg(cl, arg)) is_arg = true;
  if (!is_arg || !stored_slots(cl) || !facts_.float_dtype(arg)) return nullptr;
  if (reads_itself(c, cl) && !recurrence_budget(c, cl, *facts_.float_dtype(arg))) return nullptr;
  return out = store(c, cl, arg);
}

NodeRef Sweeper::reuse_args(const Entry& c, const Clause& cl, const NodeRef& partial) {
  std::unordered_set<const ir::Node*> args;
  ir::for_each_node(cl.value, [&](const NodeRef& n) {
    if (n->kind != Kind::Call) return;
    for (const NodeRef& a : ir::call_args(n)) {
      bool sums = false;
      ir::for_each_node(a, [&](const NodeRef& m) { sums = sums || m->kind == Kind::Reduce; });
      if (sums) args.insert(a.get());
    }
  });
  if (args.empty()) return partial;
  return replaced(partial, [&](const NodeRef& n) -> NodeRef {
    return args.count(n.get()) ? stored_arg(c, cl, n) : nullptr;
  });
}

// e with the reads of this clause's stored arguments replaced by the arguments themselves: a
// stored factor computes its gate arguments again rather than reading them, so its declaration
// sums like the primal's step and is tiered like it (a pointwise declaration below
// EIN_JIT_THRESHOLD points runs interpreted at ~1-3 us a point: 50-90 ms for a GRU's 25600).
NodeRef Sweeper::with_args(const Clause& cl, const NodeRef& e) const {
  return replaced(e, [&](const NodeRef& n) -> NodeRef {
    for (auto& [clause, arg, read] : pre_args_)
      if (clause == cl.value.get() && n == read) return arg;
    return nullptr;
  });
}

// In a recurrence's own adjoint, a read's term sums over the clause indices its subscript does
// not fix (`h[t - 1, l]` in `sum[l](U[j, l] * h[t - 1, l])` leaves j summed for each point of
// h̄), so the partial's factors that depend only on the clause's point (a gate's derivative
// `σ(pre[t, j]) (1 - σ(pre[t, j])) h[t - 1, j]`) would run once per summed point: H exps per
// point of h̄. Their product is stored once per point instead; each adjoint step is then stored
// values times the weights (a GEMV's shape). Same budget as stored arguments.
NodeRef Sweeper::stored_factors(const Entry& c, const Clause& cl, const Occurrence& occ, const NodeRef& partial) {
  if (c.def != bar_b_primal_ || occ.node->kind != Kind::Index || !stored_slots(cl)) return partial;
  std::unordered_set<DefId> point, fixed;
  for (auto& s : cl.slots)
    if (s->kind != Kind::IdxLit) point.insert(s->def);
  for (const NodeRef& i : ir::index_args(occ.node))
    ir::for_each_node(i, [&](const NodeRef& n) {
      if (n->kind == Kind::Name) fixed.insert(n->def);
    });
  bool summed = false;
  for (DefId d : point) summed = summed || !fixed.count(d);
  if (!summed) return partial;
  // Names the clause binds (reduction indices, where-bound locals): a factor naming one it does
  // not bind itself depends on more than the point.
  std::unordered_set<DefId> clause_binders;
  ir::for_each_node(cl.value, [&](const NodeRef& n) {
    if (binds(*n)) clause_binders.insert(n->def);
  });
  auto pointwise = [&](const NodeRef& f) {
    std::unordered_set<DefId> own;
    ir::for_each_node(f, [&](const NodeRef& n) {
      if (binds(*n)) own.insert(n->def);
    });
    bool ok = true, computed = false;
    ir::for_each_node(f, [&](const NodeRef& n) {
      if (n->kind == Kind::Call || n->kind == Kind::Block || n->kind == Kind::Reduce) computed = true;
      if (n->kind != Kind::Name || point.count(n->def)) return;
      // (A clause binder counts even when the factor binds it too: a rule's `let x = <arg>`
      // carries the argument's own reduction, whose index the partial also reads outside it.)
      if (clause_binders.count(n->def) || (!own.count(n->def) && cx_.resolver.info(n->def).kind == DefKind::Index))
        ok = false;
    });
    return std::pair{ok, computed};
  };
  std::function<NodeRef(const NodeRef&)> walk = [&](const NodeRef& e) -> NodeRef {
    if (e->kind == Kind::Binary && (static_cast<ir::BinOp>(e->ival) == ir::BinOp::Add ||
                                    static_cast<ir::BinOp>(e->ival) == ir::BinOp::Sub))
      return ir::with_kids(e, {walk(ir::bin_lhs(e)), walk(ir::bin_rhs(e))});
    if (e->kind == Kind::Unary && static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg)
      return ir::with_kids(e, {walk(ir::unary_operand(e))});
    std::vector<NodeRef> factors, at_point, rest;
    std::function<void(const NodeRef&)> split = [&](const NodeRef& f) {
      if (f->kind == Kind::Binary && static_cast<ir::BinOp>(f->ival) == ir::BinOp::Mul) {
        split(ir::bin_lhs(f));
        split(ir::bin_rhs(f));
      } else {
        factors.push_back(f);
      }
    };
    split(e);
    bool worth = false;
    for (auto& f : factors) {
      auto [ok, computed] = pointwise(f);
      bool reads = false;
      ir::for_each_node(f, [&](const NodeRef& n) { reads = reads || n->kind == Kind::Name; });
      (ok && reads ? at_point : rest).push_back(f);
      worth = worth || (ok && reads && computed);
    }
    if (!worth) return e;
    NodeRef g = at_point[0];
    for (size_t i = 1; i < at_point.size(); ++i) g = mul(g, at_point[i]);
    NodeRef r = stored_before(cl, g);
    if (!r && recurrence_budget(c, cl, c.dt)) r = store(c, cl, with_args(cl, g));
    if (!r) return e;
    for (auto& f : rest) r = mul(r, f);
    return r;
  };
  return walk(partial);
}

}  // namespace ein::ad
