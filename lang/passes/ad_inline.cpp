// Calls of functions over arrays on the primal tape. extract_calls walks a definition's value:
// a call over arrays is inlined (the callee's body with its parameters substituted, its
// statements hoisted onto the tape, the copied nodes typed by the specialisation they came
// from); a scalar call or one with a `@fn` rule stays a call, differentiated per point. A tuple
// let whose inlined value is a tuple literal becomes one let per name. ad_tape.cpp builds the
// tape and normalises each definition through these.
#include <algorithm>
#include <functional>
#include <utility>

#include "lang/passes/ad_reverse.h"
#include "lang/passes/ir_build.h"
#include "lang/resolve/builtins.h"

namespace ein::ad {

using ir::Kind;

namespace {

// e with other kids as a node of its own: ir::with_kids keeps e's id, so the element type noted
// for the read would become the type of the array expression e too.
NodeRef rebuilt(const NodeRef& e, std::vector<NodeRef> kids) { return ir::rebuilt_fresh(e, std::move(kids)); }

}  // namespace

NodeRef Tape::extract_calls(const NodeRef& e) {
  // The point this call's value is read at (set by the Index around it, for this call only).
  std::vector<NodeRef> site = std::exchange(site_, {});
  if (!e || e->kind == Kind::Lambda) return e;
  if (e->kind == Kind::Comp)
    if (NodeRef lit = unroll_rows(e)) return extract_calls(lit);
  // `{ let L = M(c); L(x) }`: a closure made by a call, bound in a block (closure_made_by_call).
  if (e->kind == Kind::Block)
    for (const NodeRef& st : e->kids)
      if (st && st->kind == Kind::Let && ir::let_pattern(*st)->kind == Kind::PBind &&
          ir::let_value(*st)->kind == Kind::Call) {
        TypeRef t = facts_.def_type(ir::let_pattern(*st)->def);
        if (t && t->k == ir::Type::K::Lambda) closure_lets_[ir::let_pattern(*st)->def] = st;
      }
  std::vector<NodeRef> kids;
  for (auto& k : e->kids) {
    if (e->kind == Kind::Index && k == e->kids.front() && k->kind == Kind::Call) {
      bool plain = true;  // scalar subscripts without calls of their own
      for (const NodeRef& a : ir::index_args(e))
        ir::for_each_node(a, [&](const NodeRef& x) { plain = plain && x->kind != Kind::Call && x->kind != Kind::RangeLit; });
      if (plain) site_.assign(ir::index_args(e).begin(), ir::index_args(e).end());
      site_taken_ = false;
      kids.push_back(extract_calls(k));
      site_.clear();
      if (std::exchange(site_taken_, false)) return kids.back();  // the value read at the point
      continue;
    }
    kids.push_back(extract_calls(k));
    // A comprehension of scalars inside an expression (`[flip(x[n - 1 - i]) | i in 0..n]` as
    // one row of an unrolled comprehension, an inlined call's value) has no entry of its own.
    if (kids.back() && kids.back()->kind == Kind::Comp)
      if (NodeRef lit = unroll_rows(kids.back(), true)) kids.back() = extract_calls(lit);
  }
  // Such a let whose every call was inlined is read no more: the block drops it (forward mode
  // has no tangent for a closure).
  if (e->kind == Kind::Block && !made_closures_.empty()) {
    std::vector<NodeRef> kept;
    for (size_t i = 0; i < kids.size(); ++i) {
      const NodeRef& st = kids[i];
      bool dead = st && st->kind == Kind::Let && ir::let_pattern(*st)->kind == Kind::PBind &&
                  made_closures_.count(ir::let_pattern(*st)->def) && made_closures_[ir::let_pattern(*st)->def] &&
                  i + 1 < kids.size();
      for (size_t j = i + 1; dead && j < kids.size(); ++j) dead = !ir::mentions(kids[j], ir::let_pattern(*st)->def);
      if (!dead) kept.push_back(st);
    }
    kids = std::move(kept);
  }
  NodeRef n = ir::with_kids(e, std::move(kids));
  // `f(v)[j]`, `tanh(v)[j]`: an inlined call's array value read at a point is a named statement
  // of the tape, read like any array (the reads of a whole-array expression at a point have no
  // partials of their own).
  if (n->kind == Kind::Index && ir::index_base(e)->kind == Kind::Call) {
    const NodeRef& b = ir::index_base(n);
    TypeRef bt = facts_.type(ir::index_base(e));
    bool point_local = false;
    ir::for_each_node(b, [&](const NodeRef& k) {
      point_local = point_local || ((k->kind == Kind::Name || k->kind == Kind::Path) && bound_.count(k->def));
    });
    // Read at a point of the enclosing clause (`F(R[t - 1])[j]` in a recurrence's step), an
    // elementwise value is the same expression at that point: `tanh(R[t - 1, j]) * 2.0`.
    if (point_local && b->kind != Kind::Name && b->kind != Kind::Path && ir::rank_of(bt) > 0)
      if (NodeRef at = index_elementwise(b, ir::index_args(n), 0)) return at;
    if (b->kind != Kind::Name && b->kind != Kind::Path && ir::rank_of(bt) > 0 && !point_local) {
      std::vector<NodeRef> k2 = n->kids;
      k2[0] = named_statement("called", b, bt, b->span);
      n = ir::with_kids(n, std::move(k2));
    }
  }
  // `f(..).0` of an inlined call whose value is a tuple literal (`topk(x, 2, 1).0`).
  if (n->kind == Kind::Member && ir::member_base(*n)->kind == Kind::TupleLit && n->has(ir::kTupleField)) {
    auto k = static_cast<size_t>(n->ival);
    ir::Kids elems = ir::tuple_elems(ir::member_base(*n));
    if (k < elems.size()) return elems[k];
  }
  if (n->kind != Kind::Call) return n;
  const NodeRef& callee = ir::call_callee(n);
  // The arguments as rewritten (n) and as analysed (e: their types are recorded there).
  ir::Kids args = ir::call_args(n), orig_args = ir::call_args(e);
  if (auto b = builtin_of(callee->def)) {
    // `__convert(c, X)` of a scalar c is `c as T` (X only lends its float type): the whole
    // array X must not look like a value the point reads.
    if (*b == Builtin::Convert && args.size() == 2 && ir::rank_of(facts_.type(orig_args[0])) == 0)
      if (auto dt = facts_.float_dtype(orig_args[1])) {
        NodeRef c = ir::make({.kind = Kind::Cast, .span = n->span,
                              .kids = {args[0], ir::make({.kind = Kind::TyPrim, .name = dtype_name(*dt)})}});
        facts_.note_type(c->id, facts_.type(e));
        return c;
      }
    return n;
  }
  // A tuple of arrays is arrays too (`einsum("i,i->", (a, b))` returns a number).
  auto has_array = [](const TypeRef& t) {
    if (ir::rank_of(t) > 0) return true;
    if (!t || t->k != ir::Type::K::Tuple) return false;
    for (auto& el : t->elems)
      if (ir::rank_of(el) > 0) return true;
    return false;
  };
  bool arrays = ir::rank_of(facts_.type(e)) > 0;
  for (const NodeRef& a : orig_args) arrays = arrays || has_array(facts_.type(a));
  // A closure called at a point is inlined there like an array call: forward mode would
  // differentiate it in its arguments only, not in the values it captures (`|u| -k * u`).
  TypeRef callee_t = facts_.type(ir::call_callee(e));
  bool closure = callee->kind == Kind::Lambda || (callee_t && callee_t->k == ir::Type::K::Lambda);
  // So is a call taking a closure (`twice(|u| a * u * u, x)`): inlined, the body's calls of the
  // parameter become the closure's body (Copier::beta), which forward mode can follow.
  for (const NodeRef& a : orig_args) {
    TypeRef at = facts_.type(a);
    closure = closure || a->kind == Kind::Lambda || (at && at->k == ir::Type::K::Lambda);
  }
  // So is a function whose body reads an active top-level binding (`fn F(a) { t[2] * a }`,
  // t made from x): forward mode differentiates a call in its arguments only, and the reads
  // inside the body would have no contribution: a silent 0.
  const bool global_reads = reads_active_global(callee);
  closure = closure || global_reads;
  if (!arrays && !closure) {  // a scalar call: differentiated per point by forward mode
    // Forward mode looks its target up without knowing which specialisation's body this call
    // was copied from (they share nodes: `flip(x[..])` is rank 1 -> 0 in one, 2 -> 1 in another).
    if (within_)
      if (const Unit* spec = facts_.call_target(n, within_)) facts_.pin_call_target(n->id, spec);
    return n;
  }
  TypeRef ct = facts_.type(callee);
  if (ct && ct->k == ir::Type::K::FnItem && cx_.resolver.info(ct->def).diff_rule) {
    // Its rule gives the derivative in the arguments only.
    if (global_reads)
      unsupported("`" + cx_.resolver.info(ct->def).name +
                      "`, a function with a custom derivative rule whose body reads a top-level value that depends on the parameter",
                  n->span);
    return n;  // elementwise with a custom rule: stays a call, applied per point
  }
  return inline_call(n, site);
}

// `e[idx]` with the read moved inside an elementwise array expression (arithmetic, casts, math
// intrinsics over arrays of e's rank and scalars); nullptr otherwise.
NodeRef Tape::index_elementwise(const NodeRef& e, ir::Kids idx, int depth) {
  if (!e || depth > 64) return nullptr;
  TypeRef t = facts_.type(e);
  const int rank = ir::rank_of(t);
  if (rank == 0) return t && t->k == ir::Type::K::Scalar ? e : nullptr;  // broadcast scalars
  if (rank != static_cast<int>(idx.size())) return nullptr;
  TypeRef el = ir::elem_of(t);
  auto typed = [&](NodeRef n) {
    facts_.note_type(n->id, el);
    return n;
  };
  switch (e->kind) {
    case Kind::Name:
    case Kind::Path:
      return typed(ir::make({.kind = Kind::Index, .span = e->span, .kids = ir::kid_list(e, idx)}));
    case Kind::Index: {  // a slice: its subscripts, then idx
      for (const NodeRef& a : ir::index_args(e)) {
        TypeRef at = facts_.type(a);
        if (!at || at->k != ir::Type::K::Scalar || !is_int(at->dtype)) return nullptr;
      }
      std::vector<NodeRef> kids = ir::kid_list(ir::index_base(e), ir::index_args(e));
      for (const NodeRef& i : idx) kids.push_back(i);
      return typed(ir::make({.kind = Kind::Index, .span = e->span, .kids = std::move(kids)}));
    }
    case Kind::Binary:
    case Kind::Unary:
    case Kind::Cast: {
      if (e->kind == Kind::Binary && static_cast<ir::BinOp>(e->ival) == ir::BinOp::In) return nullptr;
      std::vector<NodeRef> kids;
      for (size_t k = 0; k < e->kids.size(); ++k) {
        if (e->kind == Kind::Cast && k == 1) {
          if (e->kids[k]->kind != Kind::TyPrim) return nullptr;  // an array cast's type
          kids.push_back(e->kids[k]);
          continue;
        }
        NodeRef x = index_elementwise(e->kids[k], idx, depth + 1);
        if (!x) return nullptr;
        kids.push_back(x);
      }
      return typed(rebuilt(e, std::move(kids)));
    }
    case Kind::Call: {
      // A math intrinsic, or a function with a custom rule (elementwise: extract_calls keeps it
      // a call applied per point).
      auto b = builtin_of(ir::call_callee(e)->def);
      TypeRef ct = facts_.type(ir::call_callee(e));
      const bool ruled = ct && ct->k == ir::Type::K::FnItem && cx_.resolver.info(ct->def).diff_rule;
      if (!ruled && (!b || !is_math_intrinsic(*b))) return nullptr;
      std::vector<NodeRef> kids{ir::call_callee(e)};
      for (const NodeRef& a : ir::call_args(e)) {
        NodeRef x = index_elementwise(a, idx, depth + 1);
        if (!x) return nullptr;
        kids.push_back(x);
      }
      return typed(rebuilt(e, std::move(kids)));
    }
    default: return nullptr;
  }
}

// `value` as a statement of the tape (`let what = value;`), read through the returned name.
NodeRef Tape::named_statement(const std::string& what, const NodeRef& value, const TypeRef& t, Span at) {
  DefId d = cx_.resolver.new_def(what, DefKind::Local, at);
  facts_.note_def_type(d, t);
  NodeRef let = let_typed(what, d, value, t);
  if (within_) stmt_within_[let->id] = within_;
  visible_[d] = let;
  emits_.push_back(let);
  NodeRef nm = name(what, d);
  facts_.note_type(nm->id, t);
  return nm;
}

// A name bound to the closure a function call returns (`fn M(c) { |u| u * c }`, `let L =
// M(v[0]);`): the call inlined once (M's parameters become lets of the tape), giving the lambda
// literal with its captures bound to them; nullptr for anything else. The lambda's own type
// would give M's body, whose captures are M's parameters, unbound at the call of L.
NodeRef Tape::closure_made_by_call(const NodeRef& callee) {
  if ((callee->kind != Kind::Name && callee->kind != Kind::Path) || !callee->def.valid()) return nullptr;
  if (auto it = made_closures_.find(callee->def); it != made_closures_.end()) return it->second;
  NodeRef let;
  if (auto vis = visible_.find(callee->def); vis != visible_.end()) let = vis->second;
  if (auto bl = closure_lets_.find(callee->def); !let && bl != closure_lets_.end()) let = bl->second;
  if (!let || let->kind != Kind::Let || ir::let_pattern(*let)->kind != Kind::PBind) return nullptr;
  const NodeRef& v = ir::let_value(*let);
  TypeRef t = facts_.def_type(callee->def);
  if (v->kind != Kind::Call || !t || t->k != ir::Type::K::Lambda) return nullptr;
  NodeRef made = inline_call(v);
  made_closures_[callee->def] = made && made->kind == Kind::Lambda ? made : nullptr;
  return made_closures_[callee->def];
}

bool Tape::reads_active_global(const NodeRef& callee) {
  if ((callee->kind != Kind::Name && callee->kind != Kind::Path) || !callee->def.valid()) return false;
  std::unordered_set<DefId> seen;
  bool active = false;
  std::function<void(DefId)> scan = [&](DefId f) {
    const DefInfo& info = cx_.resolver.info(f);
    if (active || info.kind != DefKind::Fn || !info.node || !seen.insert(f).second) return;
    NodeRef body = info.node;  // a copy: visit() may add definitions and move the table
    ir::for_each_node(body, [&](const NodeRef& n) {
      if (active || (n->kind != Kind::Name && n->kind != Kind::Path) || !n->def.valid()) return;
      DefKind k = cx_.resolver.info(n->def).kind;
      if (k == DefKind::Fn) scan(n->def);
      else if (k == DefKind::Global && visit(n->def)) active = true;
    });
  };
  scan(callee->def);
  return active;
}

NodeRef Tape::inline_call(const NodeRef& call, const std::vector<NodeRef>& site) {
  if (++inline_depth_ > 32) unsupported("deeply nested or recursive calls", call->span);
  TypeRef ct = facts_.type(ir::call_callee(call));
  ir::Kids args = ir::call_args(call);
  NodeRef fn;
  const Unit* spec = facts_.call_target(call, within_);
  if (NodeRef made = closure_made_by_call(ir::call_callee(call))) {
    fn = made;  // `let L = M(c); L(x)`: the closure M returns, its captures bound here
    spec = nullptr;
  }
  if (!fn && spec && spec->body && (spec->body->kind == Kind::Fn || spec->body->kind == Kind::Lambda))
    fn = spec->body;  // the specialised body: rest patterns already expanded
  if (!fn && ct && ct->k == ir::Type::K::FnItem) fn = cx_.resolver.info(ct->def).node;
  if (!fn && ct && ct->k == ir::Type::K::Lambda) fn = ct->node;
  if (!fn && ir::call_callee(call)->kind == Kind::Lambda) fn = ir::call_callee(call);
  if (!fn) unsupported("a call whose function cannot be resolved statically", call->span);
  bool lambda = fn->kind == Kind::Lambda;
  ir::Kids params = lambda ? ir::lambda_params(*fn) : ir::fn_params(*fn);
  Copier cp(cx_, facts_);
  size_t emitted = emits_.size();
  auto mentions_bound = [&](const NodeRef& n) {
    bool any = false;
    ir::for_each_node(n, [&](const NodeRef& k) {
      any = any || ((k->kind == Kind::Name || k->kind == Kind::Path) && bound_.count(k->def));
    });
    return any;
  };
  for (size_t a = 0; a < params.size() && a < args.size(); ++a) {
    const NodeRef& p = params[a];
    // A tuple of names (einsum's operands `(A, B)`) stands in place: the body's builtin sees the
    // operands, and no tuple-valued binding stands between them and the derivative. So does a
    // string (the equation): re-analysis types the builtin from the literal.
    // A closure bound by a visible `let L = |u| ..` stands in as its literal: the body's calls
    // of the parameter are then beta-reduced (Copier::beta) where they are (`sum[n](f(x[n]))`);
    // called through the name, forward mode bound the argument `x[n]` outside the reduction
    // (E003 "`n` is used before it has a value").
    if (args[a]->kind == Kind::Name && args[a]->def.valid())
      if (auto vis = visible_.find(args[a]->def); vis != visible_.end() && vis->second->kind == Kind::Let &&
                                                  ir::let_value(*vis->second)->kind == Kind::Lambda) {
        cp.subst[p->def] = ir::let_value(*vis->second);
        continue;
      }
    bool names_tuple = args[a]->kind == Kind::TupleLit;
    for (const NodeRef& el : names_tuple ? ir::tuple_elems(args[a]) : ir::Kids{})
      names_tuple = names_tuple && (el->kind == Kind::Name || el->kind == Kind::Path);
    // So does a closure: its calls in the body are inlined in turn (extract_calls), reading
    // what it captures where they are.
    if (mentions_bound(args[a]) || names_tuple || args[a]->kind == Kind::StrLit || args[a]->kind == Kind::Lambda) {
      // An argument that varies per point of the enclosing clause or reduction (`f(v, n as
      // f64)` in `w[n in 3..6]`) cannot be a statement before it: the body reads it in place.
      cp.subst[p->def] = args[a];
      continue;
    }
    DefId pf = cx_.resolver.new_def(p->name, DefKind::Local, p->span);
    facts_.note_def_origin(pf, p->def);
    if (spec && fn == spec->body) pin_def_type(pf, p->def, spec);
    // The specialisation's parameter type is the argument's (a lookup by the argument's node
    // may find another specialisation's type: they share nodes).
    TypeRef at = facts_.type(args[a]);
    if (spec && fn == spec->body)
      if (auto it = spec->def_types.find(p->def); it != spec->def_types.end()) at = it->second;
    NodeRef let = let_typed(p->name, pf, args[a], at);
    visible_[pf] = let;
    emits_.push_back(let);
    cp.subst[p->def] = name(p->name, pf);
  }
  NodeRef body = cp.copy(lambda ? ir::lambda_body(*fn) : ir::fn_body(*fn));
  --inline_depth_;
  // The copied indices keep their ranges, with the names inside them copied too
  // (`j in 0..dim(e)` of the inlined `e`).
  // Specialisations of one function share its DefIds: a copy takes this one's types.
  if (spec && fn == spec->body) {
    for (auto& [orig, copy] : cp.renamed) pin_def_type(copy, orig, spec);
    pin_node_types(lambda ? ir::lambda_body(*fn) : ir::fn_body(*fn), body, spec);
  }
  copy_index_ranges(cx_, facts_, cp, [&](DefId orig) -> const RangeFact* {
    if (spec && fn == spec->body)
      if (auto it = spec->ranges.find(orig); it != spec->ranges.end()) return &it->second;
    return nullptr;
  });
  // The value may itself be a block (a branch chosen per specialisation leaves its block in
  // tail position) and may call further functions over arrays: both are unfolded here, or the
  // caller would treat a non-elementwise call as elementwise.
  const Unit* saved_within = within_;
  if (spec && fn == spec->body) within_ = spec;
  NodeRef v = tuple_field_reads(hoist_block(body));
  // Statements that read a per-point argument stay at the point: the value becomes a block
  // (scalar lets only; forward mode differentiates it per point).
  // Arrays among them (`softmax(X[q])[n]`: the row's max, exps and sum) are lifted to entries
  // over the indices they read instead.
  std::vector<NodeRef> local;
  size_t from = emits_.size();
  for (size_t i = emitted; i < emits_.size() && from == emits_.size(); ++i)
    if (mentions_bound(emits_[i])) from = i;
  bool scalars = true;
  for (size_t j = from; j < emits_.size(); ++j) {
    const NodeRef& st = emits_[j];
    scalars = scalars && st->kind == Kind::Let && ir::let_pattern(*st)->kind == Kind::PBind &&
              ir::rank_of(facts_.def_type(ir::let_pattern(*st)->def)) == 0;
  }
  if (!scalars) {
    v = lift_call_locals(call, from, v, site);
  } else {
    for (size_t j = from; j < emits_.size(); ++j) {
      visible_.erase(ir::let_pattern(*emits_[j])->def);
      local.push_back(emits_[j]);
    }
    emits_.resize(from);
  }
  if (!local.empty()) {
    local.push_back(v);
    TypeRef vt = facts_.type(v);
    v = ir::make({.kind = Kind::Block, .span = call->span, .kids = std::move(local), .flags = ir::kHasTail});
    facts_.note_type(v->id, vt);
  }
  ++inline_depth_;
  const bool taken = std::exchange(site_taken_, false);  // calls inside v are read at their own points
  v = extract_calls(v);
  site_taken_ = taken;
  --inline_depth_;
  within_ = saved_within;
  // A reshaped value (`expand(x, [2, 1, 3])` inside an expression) is read through its own
  // extents, so it becomes a named statement of the tape.
  auto b = v->kind == Kind::Call ? builtin_of(ir::call_callee(v)->def) : std::nullopt;
  if (b && *b == Builtin::Reshape && ir::rank_of(facts_.type(v)) > 0 && !mentions_bound(v)) {
    v = named_statement("reshaped", v, facts_.type(v), call->span);
  }
  return v;
}

// The statements of a block become tape statements; its value (through nested tail blocks)
// is returned.
NodeRef Tape::hoist_block(const NodeRef& body) {
  if (body->kind != Kind::Block) return body;
  bool tail = body->has(ir::kHasTail);
  ir::Kids stmts = ir::block_stmts(body);
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& s = stmts[i];
    if (!s) continue;
    if (tail && i + 1 == stmts.size()) {
      NodeRef t = s;
      for (NodeRef br; (br = branch_taken(t));) t = br;
      return hoist_block(t);
    }
    if (s->kind == Kind::Let && ir::let_pattern(*s)->kind == Kind::PTuple && split_tuple_let(s)) continue;
    if (s->kind == Kind::Let && ir::let_pattern(*s)->kind == Kind::PBind)
      visible_[ir::let_pattern(*s)->def] = s;
    else if (s->kind == Kind::EinGroup)
      visible_[s->def] = s;
    if (s->kind != Kind::Fn && s->kind != Kind::DiffFn && s->kind != Kind::Use) emits_.push_back(s);
    if (within_) stmt_within_[s->id] = within_;
  }
  return flit(0.0);  // a body without a value
}

void Tape::pin_def_type(DefId copy, DefId orig, const Unit* spec) {
  if (auto it = spec->def_types.find(orig); it != spec->def_types.end()) facts_.note_def_type(copy, it->second);
}

// Specialisations share the nodes of their function: a copied node's type is looked up in the
// specialisation it was inlined from, not in whichever one has the node first (`Y` of
// `lp_first` is rank 2 in one and rank 1 in another). The copy has the original's structure
// except where a parameter was substituted, which ends the walk of that subtree.
void Tape::pin_node_types(const NodeRef& orig, const NodeRef& copy, const Unit* spec) {
  if (!orig || !copy) return;
  if (auto it = spec->types.find(orig->id); it != spec->types.end()) facts_.note_type(copy->id, it->second);
  if (orig->kind != copy->kind || orig->kids.size() != copy->kids.size()) return;
  auto c = copy->kids.begin();  // a parallel walk of the two trees: every child alike
  for (const NodeRef& o : orig->kids) pin_node_types(o, *c++, spec);
}

// `let (x, y) = f(a, b);` whose value, once f is inlined, is a tuple literal `(e1, e2)`:
// `let x = e1; let y = e2;` (the library's `broadcast_pair`). False when the value is not a
// literal of the pattern's arity (the names stay undefined for the tape: E013).
bool Tape::split_tuple_let(const NodeRef& s) {
  const NodeRef& pat = ir::let_pattern(*s);
  ir::Kids names = ir::ptuple_elems(pat);
  for (auto& p : names)
    if (p->kind != Kind::PBind) return false;
  size_t emitted = emits_.size(), decided = decisions_.size();
  int depth = inline_depth_;
  NodeRef v;
  try {
    v = hoist_block(extract_calls(ir::let_value(*s)));
  } catch (const Unsupported&) {
    v = nullptr;  // the let stays whole: its names are E013 only if a derivative needs them
    inline_depth_ = depth;
  }
  // `let (a, b) = split(x, [2, 3], 1)`: the parts are `__split(..).0` and `.1`.
  auto lay = v ? split_layout(v) : std::nullopt;
  bool parts = lay && lay->first.size() == names.size();
  if (!parts && (!v || v->kind != Kind::TupleLit || ir::tuple_elems_count(v) != names.size())) {
    emits_.resize(emitted);
    decisions_.resize(decided);
    return false;
  }
  for (size_t k = 0; k < names.size(); ++k) {
    const NodeRef& p = names[k];
    NodeRef part = parts ? ir::make({.kind = Kind::Member, .span = v->span, .kids = {v},
                                     .ival = static_cast<int64_t>(k), .flags = ir::kTupleField})
                         : ir::tuple_elems(v)[k];
    if (parts) facts_.note_type(part->id, facts_.def_type(p->def));
    NodeRef let = let_typed(p->name, p->def, part, facts_.def_type(p->def));
    visible_[p->def] = let;
    emits_.push_back(let);
  }
  return true;
}

}  // namespace ein::ad
