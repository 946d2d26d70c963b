// The primal tape of a derivative request: active definitions between the wrt leaf and the
// target, normalised to indexed clauses (array lets become clauses over fresh indices, whole-
// array reductions become indexed reductions, calls of functions over arrays are inlined).
#include <algorithm>

#include "lang/passes/ad_reverse.h"
#include "lang/passes/ir_build.h"
#include "lang/resolve/builtins.h"

namespace ein::ad {

using ir::Kind;

namespace {

// A value cheap to repeat at each of its reads: reads, arithmetic, casts and math intrinsics.
bool cheap_point_value(const NodeRef& e) {
  bool ok = true;
  ir::for_each_node(e, [&](const NodeRef& n) {
    switch (n->kind) {
      case Kind::Index: case Kind::Name: case Kind::Path: case Kind::IntLit: case Kind::FloatLit:
      case Kind::BoolLit: case Kind::Binary: case Kind::Unary: case Kind::Cast: case Kind::TyPrim:
        break;
      case Kind::Call:
        if (auto b = builtin_of(ir::call_callee(n)->def); !b || !is_math_intrinsic(*b)) ok = false;
        break;
      default: ok = false;
    }
  });
  return ok;
}

// Is every use of `d` in `n` a read of one point (`v[e1, .., er]`)?
bool point_reads_only(const NodeRef& n, DefId d, size_t rank) {
  if (!n) return true;
  if (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name && ir::index_base(n)->def == d) {
    if (ir::index_args_count(n) != rank) return false;
    for (const NodeRef& a : ir::index_args(n))
      if (!point_reads_only(a, d, rank)) return false;
    return true;
  }
  if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def == d) return false;
  for (const NodeRef& k : n->kids)
    if (!point_reads_only(k, d, rank)) return false;
  return true;
}

NodeRef replace_point_reads(Copier& cp, const NodeRef& n, DefId d, const std::vector<DefId>& slots,
                            const NodeRef& value) {
  if (!n) return n;
  std::vector<NodeRef> kids;
  bool changed = false;
  for (const NodeRef& k : n->kids) {
    kids.push_back(replace_point_reads(cp, k, d, slots, value));
    changed = changed || kids.back() != k;
  }
  NodeRef m = changed ? ir::with_kids(n, std::move(kids)) : n;
  if (m->kind != Kind::Index || ir::index_base(m)->kind != Kind::Name || ir::index_base(m)->def != d) return m;
  cp.subst.clear();
  for (size_t a = 0; a < slots.size(); ++a) cp.subst[slots[a]] = ir::index_args(m)[a];
  return cp.copy(value);
}

}  // namespace

// A block-local array defined point by point from other values and read only at points (`let
// v[i in 0..3] = x[k + i]; sum[i](v[i] * v[i])`, a window copied per output point): each read
// becomes the definition at that point, so the adjoint reads x through the reduction around
// the read (its index solved: one term per point) instead of testing every point of v against
// every adjoint point. (The primal still evaluates v, and checks the reads' bounds.)
// In a recurrence's step (`self` the recurrence) an array computed from its earlier point by
// reductions and calls (`let z[i] = sig(sum[k](W[i, k] * h[t - 1, k]));`, a gated cell written
// with locals) is inlined as well: lifted, it and the recurrence would read each other, and read
// only at points its reads are the same clause written out (each read repeats its reduction).
NodeRef Tape::inline_point_arrays(const NodeRef& e, DefId self) {
  if (!e || e->kind == Kind::Lambda) return e;
  std::vector<NodeRef> kids;
  bool changed = false;
  for (const NodeRef& k : e->kids) {
    kids.push_back(inline_point_arrays(k, self));
    changed = changed || kids.back() != k;
  }
  NodeRef n = changed ? ir::with_kids(e, std::move(kids)) : e;
  if (n->kind != Kind::Block || !n->has(ir::kHasTail)) return n;
  std::vector<NodeRef> stmts(ir::block_stmts(n).begin(), ir::block_stmts(n).end());
  bool any = false;
  for (size_t i = 0; i + 1 < stmts.size(); ++i) {
    const NodeRef& g = stmts[i];
    if (g && g->kind == Kind::Let && inline_slice_let(stmts, i)) {
      any = true;
      continue;
    }
    if (!g || g->kind != Kind::EinGroup || ir::group_clauses_count(g) != 1) continue;
    const NodeRef& c = ir::group_clauses(g)[0];
    if (c->kind != Kind::EinDecl) continue;
    // Only cheap values are written out where read. A reduction written out at every read is
    // repeated once per read, and reads of reads nest (a row softmax of a contraction of the
    // earlier row, then another softmax: J^5 work, 191 s for rows of 24); kept whole, the
    // array is computed once per point of the step and forward mode gives it a tangent
    // declaration (Forward::block; until session 23 a recurrence step's arrays were always
    // written out, the whole form being E013).
    if (!cheap_point_value(ir::ein_value(*c))) continue;
    std::vector<DefId> slots;
    for (const NodeRef& sl : ir::ein_slots(c))
      if (sl->kind == Kind::IdxIn || sl->kind == Kind::IdxVar) slots.push_back(sl->def);
    if (slots.empty() || slots.size() != ir::ein_slots_count(c)) continue;
    // Points below a range's start hold 0, not the definition (`let v[m] = x[m - 2];` has m in
    // 2..): a read there written out would compute the value (reading x[-2]).
    bool from_zero = true;
    for (DefId sl : slots) {
      const RangeFact* rf = facts_.range(sl);
      from_zero = from_zero && rf &&
                  ((rf->lo_const && *rf->lo_const == 0) || (rf->lo && rf->lo->kind == Kind::IntLit && rf->lo->ival == 0));
    }
    if (!from_zero) continue;
    bool only = true;
    for (size_t j = i + 1; j < stmts.size() && only; ++j) only = point_reads_only(stmts[j], g->def, slots.size());
    if (!only) continue;
    // Indices of the later statements whose range was inferred from v (`sum[i](v[i])`: i in
    // 0..dim(v)) keep v's extent, written out: inferred again from the inlined read
    // (`x[k + i]`) it would run as far as x allows, and the adjoint, which stands outside this
    // block, cannot read v's extent either.
    std::vector<NodeRef> extents = extents_of(slots);
    if (extents.size() != slots.size()) continue;
    for (size_t j = i + 1; j < stmts.size(); ++j) stmts[j] = explicit_ranges(stmts[j], g->def, extents);
    Copier cp(cx_, facts_);
    for (size_t j = i + 1; j < stmts.size(); ++j)
      stmts[j] = replace_point_reads(cp, stmts[j], g->def, slots, ir::ein_value(*c));
    stmts[i] = nullptr;
    any = true;
  }
  return any ? rebuilt_block(n, stmts) : n;
}

// `let a = R[t - 1];` (a slice or another name of an array) read only at points: each read
// `a[j]` becomes `R[t - 1, j]`. The reverse sweep solves reads of R point by point; a slice
// read whole had no partial of its own (the sweep read past its subscripts and the process
// died on `{ let a = R[t - 1]; a[j] * 2.0 }` in a recurrence's step).
bool Tape::inline_slice_let(std::vector<NodeRef>& stmts, size_t i) {
  const NodeRef& g = stmts[i];
  const NodeRef& pat = ir::let_pattern(*g);
  if (pat->kind != Kind::PBind || !pat->def.valid()) return false;
  const DefId a = pat->def;
  const int rank = ir::rank_of(facts_.def_type(a));
  NodeRef val = ir::let_value(*g);
  NodeRef base = val;
  std::vector<NodeRef> lead;
  if (val->kind == Kind::Index) {
    base = ir::index_base(val);
    for (const NodeRef& x : ir::index_args(val)) {
      TypeRef xt = facts_.type(x);
      if (!xt || xt->k != ir::Type::K::Scalar || !is_int(xt->dtype)) return false;  // ranges, rests
      lead.push_back(x);
    }
  }
  if (rank <= 0 || base->kind != Kind::Name || !base->def.valid()) return false;
  TypeRef bt = facts_.def_type(base->def);
  if (ir::rank_of(bt) != rank + static_cast<int>(lead.size())) return false;
  for (size_t j = i + 1; j < stmts.size(); ++j)
    if (!point_reads_only(stmts[j], a, static_cast<size_t>(rank))) return false;
  std::vector<DefId> slots;
  std::vector<NodeRef> kids{base}, extents;
  for (const NodeRef& x : lead) kids.push_back(x);
  for (int k = 0; k < rank; ++k) {
    DefId sl = cx_.resolver.new_def("s" + std::to_string(k), DefKind::Index, g->span);
    slots.push_back(sl);
    kids.push_back(name("s" + std::to_string(k), sl));
    extents.push_back(irb::dim_of(base, static_cast<int>(lead.size()) + k));
  }
  NodeRef point = ir::make({.kind = Kind::Index, .span = val->span, .kids = std::move(kids)});
  facts_.note_type(point->id, ir::elem_of(bt));
  for (size_t j = i + 1; j < stmts.size(); ++j) stmts[j] = explicit_ranges(stmts[j], a, extents);
  Copier cp(cx_, facts_);
  for (size_t j = i + 1; j < stmts.size(); ++j) stmts[j] = replace_point_reads(cp, stmts[j], a, slots, point);
  stmts[i] = nullptr;
  return true;
}

void Tape::add_visible(DefId d, NodeRef let) { visible_[d] = std::move(let); }

bool Tape::build(DefId target, const std::vector<DefId>& wrts) {
  wrts_.insert(wrts.begin(), wrts.end());
  if (wrts.size() == 1 && target == wrts[0]) return true;
  return visit(target);
}

// Constants for the derivative although nothing here defines them: values bound by an enclosing
// construct (their kinds, or the leaves the scope walk registered), and values of earlier cells
// when every parameter belongs to this one (an older value cannot depend on a newer one).
bool Tape::constant_leaf(DefId d) const {
  switch (cx_.resolver.info(d).kind) {
    case DefKind::Param: case DefKind::Index: case DefKind::Rest: case DefKind::Fn:
    case DefKind::Builtin: case DefKind::Const: case DefKind::Module: return true;
    default: break;
  }
  if (leaves_ && leaves_->count(d)) return true;
  // In a function body, a global read by a function it calls is as outer as one it reads.
  if (outer_ && (outer_->count(d) || cx_.resolver.info(d).kind == DefKind::Global)) {
    // By a top-level binding w (`@l / @gl` in a function body), a top-level binding defined
    // before w (an earlier statement or cell) cannot depend on it.
    const DefInfo& di = cx_.resolver.info(d);
    for (auto& w : wrts_) {
      if (!outer_->count(w)) continue;
      const DefInfo& wi = cx_.resolver.info(w);
      const bool before = di.kind == DefKind::Global && wi.kind == DefKind::Global && di.span.valid() &&
                          wi.span.valid() && d != w &&
                          std::make_pair(di.span.file, di.span.lo) < std::make_pair(wi.span.file, wi.span.lo);
      if (!before) return false;
    }
    return true;
  }
  if (!cx_.env.type_of(d)) return false;
  for (auto& w : wrts_)
    if (cx_.env.type_of(w)) return false;
  return true;
}

namespace {

// Whether a value of type t may hold floats somewhere (a tuple of them, a list of such tuples,
// or a value typed only at run time: `reshape(x, [2, 3])`, `split(x, 2, 1).1`).
bool carries_float(const TypeRef& t) {
  if (!t) return false;
  switch (t->k) {
    case ir::Type::K::Unknown:
    case ir::Type::K::Var: return true;
    case ir::Type::K::Scalar: return is_float(t->dtype);
    case ir::Type::K::Array:
    case ir::Type::K::List: return carries_float(t->elem);
    case ir::Type::K::Tuple:
      for (auto& e : t->elems)
        if (carries_float(e)) return true;
      return false;
    default: return false;
  }
}

// Does a block (or a block in its tail) bind an array or have an array value?
bool declares_arrays(const NodeRef& b, Facts& facts) {
  if (ir::rank_of(facts.type(b)) > 0) return true;
  ir::Kids stmts = ir::block_stmts(b);
  for (size_t i = 0; i < stmts.size(); ++i) {
    const NodeRef& s = stmts[i];
    if (!s) continue;
    if (s->kind == Kind::EinGroup) return true;
    if (s->kind == Kind::Let && ir::let_pattern(*s)->kind == Kind::PBind &&
        ir::rank_of(facts.def_type(ir::let_pattern(*s)->def)) > 0)
      return true;
    if (i + 1 == stmts.size() && b->has(ir::kHasTail) && s->kind == Kind::Block) return declares_arrays(s, facts);
  }
  return false;
}

// Does a block with a value bind scalars by let before it (`{ let d_l = 1.0; let d_r = ..;
// let d_s = .. d_r ..; d_s }`, a first derivative lowered in an earlier round)?
bool binds_scalars(const NodeRef& b) {
  if (b->kind != Kind::Block || !b->has(ir::kHasTail)) return false;
  ir::Kids stmts = ir::block_stmts(b);
  for (size_t i = 0; i + 1 < stmts.size(); ++i)
    if (stmts[i] && stmts[i]->kind == Kind::Let && ir::let_pattern(*stmts[i])->kind == Kind::PBind) return true;
  return false;
}

}  // namespace

// Whether the definition stmt of d reads an active value (names it binds are its own).
bool Tape::reads_active(const NodeRef& stmt, DefId d) {
  visiting_.insert(d);
  std::unordered_set<DefId> inner = binders_in(stmt);
  bool active = false;
  ir::for_each_node(stmt, [&](const NodeRef& n) {
    if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def.valid() && n->def != d &&
        !inner.count(n->def) && cx_.resolver.info(n->def).kind != DefKind::Fn && visit(n->def))
      active = true;
  });
  visiting_.erase(d);
  return active;
}

bool Tape::visit(DefId d) {
  if (wrts_.count(d) && wrts_.size() == 1) return true;
  if (auto m = memo_.find(d); m != memo_.end()) return m->second;
  if (visiting_.count(d)) return false;  // a recurrence reading itself
  NodeRef stmt;
  if (auto it = visible_.find(d); it != visible_.end()) {
    stmt = it->second;
  } else if (cx_.persist) {
    auto it2 = cx_.persist->defs.find(d);
    if (it2 != cx_.persist->defs.end()) {
      stmt = it2->second.stmt;
      facts_.add_unit(it2->second.unit.get());
      facts_.add_ranges(&it2->second.ranges);
    }
  }
  stmt = tuple_field_reads(stmt);
  if (stmt && !facts_.float_dtype_of_def(d) && carries_float(facts_.def_type(d))) {
    // Tuples (and lists of them) hold floats but are no float value: one that depends on the
    // parameter would otherwise count as a constant, a silent zero derivative.
    bool active = reads_active(stmt, d);
    TypeRef t = facts_.def_type(d);
    bool dynamic = !t || t->k == ir::Type::K::Unknown || t->k == ir::Type::K::Var ||
                   ((t->k == ir::Type::K::Array || t->k == ir::Type::K::List) && t->elem &&
                    (t->elem->k == ir::Type::K::Unknown || t->elem->k == ir::Type::K::Var));
    if (active)
      unsupported("`" + cx_.resolver.info(d).name +
                      (dynamic ? "`, a value typed only at run time that depends on the parameter"
                               : "`, a tuple-valued binding that depends on the parameter"),
                  stmt->span);
  }
  if (TypeRef lt = facts_.def_type(d); stmt && lt && lt->k == ir::Type::K::Lambda) {
    // A closure bound to a name is active when what it captures is: its calls are inlined
    // where they are (extract_calls), so it is never a value on the tape itself.
    bool active = reads_active(stmt, d);
    return memo_[d] = active;
  }
  if (!stmt || !facts_.float_dtype_of_def(d)) {
    // A float value whose definition cannot be seen from the request: following it is
    // impossible and assuming it constant could be a silent wrong answer.
    if (!stmt && !wrts_.count(d) && facts_.float_dtype_of_def(d) && !constant_leaf(d)) {
      const DefInfo& info = cx_.resolver.info(d);
      unsupported("`" + info.name + "`, whose definition is not visible where the derivative is requested",
                  info.span);
    }
    memo_[d] = wrts_.count(d) > 0;
    return memo_[d];
  }
  visiting_.insert(d);
  // Activity first, on the raw definition (plus what called functions read), so constants such
  // as array literals are never normalised. Names bound inside the definition are its own.
  bool active = false;
  std::unordered_set<DefId> seen_fns;
  std::function<void(const NodeRef&)> scan = [&](const NodeRef& root) {
    std::unordered_set<DefId> inner = binders_in(root);
    ir::for_each_node(root, [&](const NodeRef& n) {
      if ((n->kind != Kind::Name && n->kind != Kind::Path) || !n->def.valid() || n->def == d || inner.count(n->def))
        return;
      const DefInfo& info = cx_.resolver.info(n->def);
      if (info.kind == DefKind::Fn) {
        if (seen_fns.insert(n->def).second && info.node) scan(info.node);
        return;
      }
      if (visit(n->def)) active = true;
    });
  };
  scan(stmt);
  if (active && stmt->kind == Kind::Let && ir::let_pattern(*stmt)->kind != Kind::PBind) {
    NodeRef part = destructured_part(stmt, d);
    if (!part) {
      visiting_.erase(d);
      unsupported("tuple destructuring of a differentiated value", stmt->span);
    }
    stmt = part;
  }
  Entry e;
  if (active) e = normalise(d, stmt);
  if (active)
    for (auto& c : e.clauses) {  // inlined locals become entries of their own
      std::unordered_set<DefId> inner = binders_in(c.value);
      ir::for_each_node(c.value, [&](const NodeRef& n) {
        if ((n->kind == Kind::Name || n->kind == Kind::Path) && n->def.valid() && n->def != d && !inner.count(n->def))
          visit(n->def);
      });
    }
  visiting_.erase(d);
  memo_[d] = active || wrts_.count(d) > 0;
  if (active) entries_.push_back(std::move(e));
  return memo_[d];
}

Entry Tape::normalise(DefId d, const NodeRef& stmt) {
  // Calls in a statement of an inlined body resolve in that body's specialisation.
  const Unit* saved_within = within_;
  auto sw = stmt_within_.find(stmt->id);
  within_ = sw == stmt_within_.end() ? nullptr : sw->second;
  struct Restore {
    const Unit*& w;
    const Unit* v;
    ~Restore() { w = v; }
  } restore{within_, saved_within};
  Entry e;
  e.def = d;
  e.dt = facts_.float_dtype_of_def(d).value_or(DType::F32);
  if (stmt->kind == Kind::EinGroup) {
    e.name = stmt->name;
    e.flags = stmt->flags & ir::kReverse;
    for (auto& c : stmt->kids) {
      Clause cl;
      cl.slots.assign(c->kids.begin() + 1, c->kids.end());
      std::unordered_set<DefId> around = binders_in(c);
      bound_ = around;
      self_ = d;
      // `cols[j][i]`: a row read at a point (inv's column solves) is the element `cols[j, i]`.
      cl.value = whole_reductions(hoist_comps(
          match_bindings(flat_index(extract_calls(lift_local_arrays(inline_point_arrays(ir::ein_value(*c), d), cl.slots, d))), facts_), around));
      bound_.clear();
      self_ = {};
      for (auto& s : cl.slots)
        if (s->kind == Kind::IdxRest) unsupported("a rest pattern", s->span);
      e.rank = static_cast<int>(cl.slots.size());
      e.clauses.push_back(std::move(cl));
    }
    if (ir::rank_of(facts_.def_type(d)) != e.rank)
      unsupported("a tensor whose elements are arrays", stmt->span);
    return e;
  }
  const NodeRef& pat = ir::let_pattern(*stmt);
  e.name = pat->name;
  NodeRef raw = ir::let_value(*stmt);
  // Only the branch a constant condition takes is taped (its statements become tape statements).
  bool took = false;
  for (NodeRef br; (br = branch_taken(raw)); took = true) raw = br;
  // A block value that declares arrays (a derivative lowered in an earlier round: `let g = {
  // let d_f = 1.0; let d_w[m] = ..; d_w }`, so a gradient of a gradient; or a user's block
  // building an array) runs once where the let stands: its statements become tape statements,
  // each array an entry of its own, instead of one array expression nothing can index.
  // So does a block binding scalars: as one expression, each of its lets would be repeated in
  // the partial of every read of it (a second derivative of a small expression grew to
  // megabytes of IR and minutes of compilation); as tape entries each has one adjoint.
  if (took || (raw->kind == Kind::Block && raw->has(ir::kHasTail) && (declares_arrays(raw, facts_) || binds_scalars(raw))))
    raw = hoist_block(raw);
  bound_ = binders_in(raw);
  NodeRef v = match_bindings(flat_index(extract_calls(raw)), facts_);
  if (raw->kind == Kind::Call && v != raw) inlined_value_[d] = v;
  bound_.clear();
  if (v->kind == Kind::Comp) return comp_entry(d, e.name, v);
  v = whole_reductions(hoist_comps(v, binders_in(v)));
  int r = ir::rank_of(facts_.def_type(d));
  if (r < 0) unsupported("a value of unknown rank", stmt->span);
  e.rank = r;
  Clause cl;
  if (r == 0) {
    cl.value = name_reductions(v, e.name);
  } else {
    std::vector<NodeRef> idx;
    for (int a = 0; a < r; ++a) {
      std::string nm = e.name + "." + std::to_string(a);
      DefId m = cx_.resolver.new_def(nm, DefKind::Index, stmt->span);
      cl.slots.push_back(idx_in(nm, m, irb::lit(0), irb::dim_of(name(e.name, d), a)));
      idx.push_back(name(nm, m));
    }
    cl.value = reshaped_read(v, name(e.name, d), idx);
    if (!cl.value) cl.value = pointwise(v, idx);
  }
  e.clauses.push_back(std::move(cl));
  return e;
}

// A scalar statement's reductions that read nothing bound inside it (`l = s * s + c / (1 +
// sum[k](..) * sum[k](..))`) become tape entries of their own, computed once where the
// derivative is: as parts of one expression, each would be written out again in the partial of
// every read beside it (three copies per read here), and a second derivative repeats those
// copies per read again (megabytes of IR for one line). Only reductions every evaluation of the
// statement runs (not under a branch, a short-circuit or another reduction): hoisted from
// there, one could run where the program never runs it.
NodeRef Tape::name_reductions(const NodeRef& v, const std::string& stem) {
  if (!v || v->kind == Kind::Reduce) return v;
  const std::unordered_set<DefId> inner = binders_in(v);
  int made = 0;
  std::function<NodeRef(const NodeRef&)> walk = [&](const NodeRef& n) -> NodeRef {
    if (!n || n->kind == Kind::Lambda || n->kind == Kind::If || n->kind == Kind::Match || n->kind == Kind::Comp)
      return n;
    if (n->kind == Kind::Binary && (static_cast<ir::BinOp>(n->ival) == ir::BinOp::And ||
                                    static_cast<ir::BinOp>(n->ival) == ir::BinOp::Or))
      return n;
    if (n->kind == Kind::Reduce) {
      TypeRef t = facts_.type(n);
      if (!t || t->k != ir::Type::K::Scalar || !is_float(t->dtype)) return n;
      const std::unordered_set<DefId> own = binders_in(n);
      bool closed = true;
      ir::for_each_node(n, [&](const NodeRef& x) {
        if ((x->kind == Kind::Name || x->kind == Kind::Path) && inner.count(x->def) && !own.count(x->def)) closed = false;
      });
      if (!closed) return n;
      std::string nm = stem + ".s" + std::to_string(made++);
      DefId d = cx_.resolver.new_def(nm, DefKind::Local, n->span);
      facts_.note_def_type(d, t);
      NodeRef let = let_stmt(nm, d, n, t->dtype);
      visible_[d] = let;
      emits_.push_back(let);
      if (within_) stmt_within_[let->id] = within_;
      NodeRef ref = name(nm, d);
      facts_.note_type(ref->id, t);
      return ref;
    }
    std::vector<NodeRef> kids;
    bool changed = false;
    for (const NodeRef& k : n->kids) {
      kids.push_back(walk(k));
      changed = changed || kids.back() != k;
    }
    if (!changed) return n;
    NodeRef m = ir::rebuilt_fresh(n, std::move(kids));
    facts_.note_type(m->id, facts_.type(n));
    return m;
  };
  return walk(v);
}

// ---- elementwise array expressions ----------------------------------------------------------

NodeRef Tape::extent_of(const NodeRef& e, int axis) {
  NodeRef found;
  ir::for_each_node(e, [&](const NodeRef& n) {
    if (found) return;
    int r = ir::rank_of(facts_.type(n));
    if (r <= 0) return;
    if (n->kind == Kind::Name) found = irb::dim_of(n, axis);
    else if (n->kind == Kind::Index && ir::index_base(n)->kind == Kind::Name)
      found = irb::dim_of(ir::index_base(n), axis + static_cast<int>(ir::index_args_count(n)));
  });
  if (!found) unsupported("an array expression whose extent is unknown", e->span);
  return found;
}

NodeRef Tape::whole_reductions(const NodeRef& e) {
  if (!e || e->kind == Kind::Lambda) return e;
  std::vector<NodeRef> kids;
  for (auto& k : e->kids) kids.push_back(whole_reductions(k));
  NodeRef n = ir::with_kids(e, std::move(kids));
  if (ir::rank_of(facts_.type(e)) == 0)  // `einsum("i,i->", (a, b))`: a sum at no point
    if (NodeRef p = einsum_point(n, {})) return p;
  if (n->kind != Kind::Call || ir::call_args_count(n) != 1) return n;
  auto b = builtin_of(ir::call_callee(n)->def);
  if (!b || (*b != Builtin::Sum && *b != Builtin::Max && *b != Builtin::Min && *b != Builtin::Prod))
    return n;
  const NodeRef& a = ir::call_args(n)[0];
  const NodeRef& orig_a = ir::call_args(e)[0];  // as analysed: its type is recorded
  int r = ir::rank_of(facts_.type(orig_a));
  if (r <= 0) return n;
  std::vector<NodeRef> idx, slots;
  for (int k = 0; k < r; ++k) {
    std::string nm = "r" + std::to_string(k);
    DefId d = cx_.resolver.new_def(nm, DefKind::Index, n->span);
    slots.push_back(idx_in(nm, d, irb::lit(0), extent_of(orig_a, k)));
    idx.push_back(name(nm, d));
  }
  const char* op = *b == Builtin::Sum ? "sum" : *b == Builtin::Max ? "max" : *b == Builtin::Min ? "min" : "prod";
  NodeRef red = ad::reduce(op, pointwise(a, idx), slots);
  facts_.note_type(red->id, ir::elem_of(facts_.type(orig_a)));
  return red;
}

NodeRef Tape::pointwise(const NodeRef& e, const std::vector<NodeRef>& idx) {
  TypeRef t = facts_.type(e);
  int r = ir::rank_of(t);
  if (NodeRef p = einsum_point(e, idx)) return p;
  if (r == 0) return e;
  if (NodeRef p = split_part(e, idx)) return p;
  if (r != static_cast<int>(idx.size())) {
    unsupported("an elementwise expression mixing arrays of different ranks", e->span);
  }
  auto indexed = [&](const NodeRef& base, ir::Kids lead) {
    std::vector<NodeRef> kids = ir::kid_list(base, lead);
    kids.insert(kids.end(), idx.begin(), idx.end());
    NodeRef n = ir::make({.kind = Kind::Index, .span = e->span, .kids = std::move(kids)});
    facts_.note_type(n->id, ir::elem_of(t));
    return n;
  };
  switch (e->kind) {
    case Kind::Name:
    case Kind::Path: return indexed(e, {});
    case Kind::Index: return indexed(ir::index_base(e), ir::index_args(e));
    case Kind::Unary:
    case Kind::Binary:
    case Kind::Cast: {
      std::vector<NodeRef> kids;
      // `a as [T; ..]` at one point is the scalar cast `a[i] as T` (the shape was asserted by
      // the primal); keeping the array type would give the point no derivative.
      for (auto& k : e->kids)
        kids.push_back(k->kind == Kind::TyPrim ? k : k->kind == Kind::TyArray ? ir::tyarray_elem(k) : pointwise(k, idx));
      NodeRef n = ir::make({.kind = e->kind, .span = e->span, .kids = std::move(kids), .name = e->name,
                            .ival = e->ival});
      facts_.note_type(n->id, ir::elem_of(t));
      return n;
    }
    case Kind::Call: {
      // Only elementwise math (and functions with a custom rule, applied per point) may be
      // indexed through; anything else over arrays would give a silently wrong derivative.
      const NodeRef& callee = ir::call_callee(e);
      ir::Kids args = ir::call_args(e);
      auto b = builtin_of(callee->def);
      TypeRef ct = facts_.type(callee);
      bool rule = ct && ct->k == ir::Type::K::FnItem && cx_.resolver.info(ct->def).diff_rule;
      bool math = b && ((*b >= Builtin::Abs && *b <= Builtin::Max2) ||
                        ((*b == Builtin::Max || *b == Builtin::Min) && args.size() == 2));
      // `__convert(a, like)` is `a` in like's element type: at a point, the scalar cast
      // `a[i] as T` (like only lends its type), which forward mode differentiates.
      if (b && *b == Builtin::Convert && args.size() == 2) {
        if (auto dt = facts_.float_dtype(args[1])) {
          NodeRef n = ir::make({.kind = Kind::Cast, .span = e->span,
                                .kids = {pointwise(args[0], idx),
                                         ir::make({.kind = Kind::TyPrim, .name = dtype_name(*dt)})}});
          facts_.note_type(n->id, ir::elem_of(t));
          return n;
        }
      }
      // `__cast(a, "float64")` with a statically typed float result: at a point, `a[i] as T`.
      if (b && *b == Builtin::Cast && args.size() == 2 && ir::elem_of(t) && ir::elem_of(t)->k == ir::Type::K::Scalar &&
          is_float(ir::elem_of(t)->dtype)) {
        NodeRef n = ir::make({.kind = Kind::Cast, .span = e->span,
                              .kids = {pointwise(args[0], idx),
                                       ir::make({.kind = Kind::TyPrim, .name = dtype_name(ir::elem_of(t)->dtype)})}});
        facts_.note_type(n->id, ir::elem_of(t));
        return n;
      }
      if (!rule && !math)
        unsupported("`" + cx_.sm.snippet(e->span) + "`, a call over arrays that is not elementwise", e->span);
      std::vector<NodeRef> kids{callee};
      for (const NodeRef& a : args) kids.push_back(pointwise(a, idx));
      NodeRef n = ir::make({.kind = Kind::Call, .span = e->span, .kids = std::move(kids)});
      facts_.note_type(n->id, ir::elem_of(t));
      facts_.note_origin(n->id, e->id);
      return n;
    }
    case Kind::If: {
      NodeRef n = ir::make({.kind = Kind::If, .span = e->span,
                            .kids = {ir::if_cond(e), pointwise(ir::if_then(e), idx),
                                     ir::if_else(e) ? pointwise(ir::if_else(e), idx) : nullptr}});
      facts_.note_type(n->id, ir::elem_of(t));
      return n;
    }
    case Kind::ArrayLit: {
      // `[e0, e1, ..][i, rest..]` is `if i == 0 { e0[rest..] } else if i == 1 { .. }`: each
      // element (of rank r - 1) read at the remaining indices.
      ir::Kids elems = ir::array_elems(e);
      if (elems.empty() || elems.size() > 256)
        unsupported("an array literal of this size in an elementwise expression", e->span);
      std::vector<NodeRef> rest(idx.begin() + 1, idx.end());
      NodeRef out = pointwise(elems.back(), rest);
      for (size_t k = elems.size() - 1; k-- > 0;) {
        NodeRef c = ir::make_binary(ir::BinOp::Eq, idx[0], ir::make_int(static_cast<int64_t>(k)));
        out = ir::make({.kind = Kind::If, .span = e->span,
                        .kids = {c, pointwise(elems[k], rest), out}});

        facts_.note_type(out->id, ir::elem_of(t));
      }
      return out;
    }
    default: unsupported("an array-valued expression that is not elementwise", e->span);
  }
}

}  // namespace ein::ad
