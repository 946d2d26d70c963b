// Type inference driver: units, statements, bindings, Einstein groups.
#include "lang/passes/type_infer.h"

#include "lang/ir/visitor.h"
#include "lang/passes/classify_where.h"
#include "lang/passes/group_einstein.h"
#include "lang/passes/inline_literals.h"
#include "lang/passes/ir_build.h"
#include "lang/passes/type_infer_impl.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;
using ir::Type;
using ir::TypeRef;


TypeRef type_from_annotation(const NodeRef& ty, CompileCtx& cx) {
  if (!ty) return nullptr;
  switch (ty->kind) {
    case Kind::TyPrim: {
      if (ty->name == "str") return ir::t_str();
      if (auto d = dtype_from_name(ty->name)) return ir::t_scalar(*d);
      cx.error("E002", "unknown type `" + ty->name + "`", ty->span, "not a type",
               "types are i8 i32 i64 f16 bf16 f32 f64 bool str, arrays [T; ...], tuples (T, U)");
      return ir::t_unknown();
    }
    case Kind::TyArray: {
      TypeRef e = type_from_annotation(ir::tyarray_elem(ty), cx);
      int rank = ty->has(ir::kAnyRank) ? -1 : std::max<int>(1, static_cast<int>(ty->kids.size()) - 1);
      if (!ir::is_scalar(e) && e->k != Type::K::Unknown) {
        // Arrays of strings, tuples, ... are lists of rows (as their literals are): `[str; 2]`
        // is a list of str, `[str; 2, 2]` a list of lists (SPEC §3: every element type).
        if (rank < 0) return ir::t_unknown();
        for (int i = 0; i < rank; ++i) e = ir::t_list(e);
        return e;
      }
      return ir::t_array(e, rank);
    }
    case Kind::TyJagged: {
      // jagged[T]: rows of T of different lengths (SPEC §3), i.e. a list of [T] rows.
      TypeRef e = type_from_annotation(ir::tyjagged_elem(ty), cx);
      return ir::t_list(ir::is_scalar(e) ? ir::t_array(e, 1) : e);
    }
    case Kind::TyTuple: {
      std::vector<TypeRef> es;
      for (auto& k : ty->kids) es.push_back(type_from_annotation(k, cx));
      return ir::t_tuple(std::move(es));
    }
    case Kind::TyFn: {
      std::vector<TypeRef> ps;
      for (const NodeRef& p : ir::tyfn_params(ty)) ps.push_back(type_from_annotation(p, cx));
      return ir::t_fn_sig(std::move(ps), type_from_annotation(ir::tyfn_ret(ty), cx));
    }
    default: return ir::t_unknown();
  }
}

NodeRef prepared_body(CompileCtx& cx, ir::DefId fn) {
  DefInfo& info = cx.resolver.info_mut(fn);
  if (!info.node) return nullptr;
  // The prepared form is cached on the DefInfo itself (a resolved Fn never changes), so every
  // specialisation of one function shares node ids.
  if (info.node->has(ir::kPrepared)) return info.node;
  NodeRef b = inline_literals(classify_where(group_einstein(info.node, cx), cx), cx);
  b = ir::edited(b, [](ir::Node& n) { n.flags |= ir::kPrepared; });
  info.node = b;
  return b;
}

// ---- units --------------------------------------------------------------------------------------

void Infer::run_cell() {
  const NodeRef& prog = u.body;
  bool tail = prog->has(ir::kHasTail);
  for (const NodeRef& s : prog->kids) {
    if (!s) continue;
    if (tail && &s == &prog->kids.back())
      u.ret_type = expr(s);
    else
      stmt(s);
  }
  if (!u.ret_type) u.ret_type = ir::t_unit();
}

void Infer::run_function(const std::vector<NodeRef>& params, const NodeRef& body,
                         const NodeRef& ret_annotation) {
  for (size_t i = 0; i < params.size(); ++i) set_def(params[i]->def, u.param_types[i], false);
  TypeRef bt = body->kind == Kind::Block ? block(body) : expr(body);
  set(body, bt);
  TypeRef rr = resolved(u.ret_type), rb = resolved(bt);
  if (rr->k == Type::K::FnSig && ir::is_callable(rb) && rb->k != Type::K::FnSig) {
    // `-> (f32) -> f32` returning a lambda: checked like an annotated let, typed as the lambda.
    Span at = body->kind == Kind::Block && body->has(ir::kHasTail) ? body->kids.back()->span : body->span;
    check_callable(rr, bt, ir::make({.kind = Kind::TupleLit, .span = at}));
    u.ret_type = bt;
    return;
  }
  if (!ts.unify(u.ret_type, bt)) {
    Span at = body->span;
    if (body->kind == Kind::Block && body->has(ir::kHasTail)) at = body->kids.back()->span;
    err("E002", "mismatched types: the body has type `" + show(bt) + "` but `" + show(u.ret_type) +
                    "` is declared",
        at, "expected `" + show(u.ret_type) + "`");
  }
  (void)ret_annotation;
}

TypeRef Infer::block(const NodeRef& b) {
  bool tail = b->has(ir::kHasTail);
  TypeRef t = ir::t_unit();
  for (const NodeRef& s : b->kids) {
    if (!s) continue;
    if (tail && &s == &b->kids.back())
      t = expr(s);
    else
      stmt(s);
  }
  return set(b, t);
}

void Infer::stmt(const NodeRef& s) {
  if (irb::is_item_decl(s->kind)) return;
  switch (s->kind) {
    case Kind::Let: let(s); break;
    case Kind::EinGroup: ein_group(s); break;
    case Kind::Const: const_type(s->def, s->span); break;
    case Kind::ExprStmt: expr(ir::stmt_expr(*s)); break;
    case Kind::Error: break;
    default: expr(s); break;
  }
}

void Infer::set_def(ir::DefId d, const TypeRef& t, bool global) {
  u.def_types[d] = t;
  if (global) cx.global_types[d] = t;
}

void Infer::let(const NodeRef& s) {
  const NodeRef& ann0 = ir::let_type(*s);
  const NodeRef& v0 = ir::let_value(*s);
  if (ann0 && ann0->kind == Kind::TyJagged && v0->kind == Kind::ArrayLit) {
    // An array literal annotated jagged is a list of rows, which may differ in length.
    TypeRef lt = type_from_annotation(ann0, cx);
    for (auto& k : v0->kids) {
      TypeRef kt = expr(k);
      if (!ts.unify(lt->elem, kt))
        err("E002", "a row of `" + show(lt) + "` must be `" + show(lt->elem) + "`, found `" + show(kt) + "`",
            k->span);
    }
    set(v0, lt);
    set(ann0, lt);
    bind_pattern(ir::let_pattern(*s), lt, v0->span);
    return;
  }
  TypeRef vt = expr(ir::let_value(*s));
  TypeRef t = vt;
  if (const NodeRef& ann = ir::let_type(*s)) {
    TypeRef at = type_from_annotation(ann, cx);
    TypeRef ra = resolved(at), rv = resolved(vt);
    if (ra->k == Type::K::FnSig && ir::is_callable(rv) && rv->k != Type::K::FnSig) {
      // A function-type annotation holds any callable of that signature (SPEC §3). The binding
      // keeps the callable's own type so that calls through it are specialised as usual.
      check_callable(at, vt, ir::let_value(*s));
      set(ann, at);
      bind_pattern(ir::let_pattern(*s), vt, ir::let_value(*s)->span);
      return;
    }
    if (ann->kind == Kind::TyArray) check_literal_extents(ann, ir::let_value(*s));
    bool rank_clash = ra->k == Type::K::Array && ra->rank >= 0 &&
                      ((rv->k == Type::K::Array && rv->rank >= 0 && rv->rank != ra->rank) ||
                       rv->k == Type::K::Scalar);
    if (rank_clash)
      err("E004", "rank mismatch: the annotation has rank " + std::to_string(ra->rank) +
                      ", the value has rank " + std::to_string(ir::rank_of(rv)),
          ir::let_value(*s)->span, "this value is `" + show(vt) + "`");
    else if (!ts.unify(at, vt))
      err("E002", "mismatched types: expected `" + show(at) + "`, found `" + show(vt) + "`",
          ir::let_value(*s)->span, "expected `" + show(at) + "`",
          "convert explicitly with `as` (there is no implicit widening)");
    t = at;
    set(ann, at);
  }
  // Inference is per compilation unit (SPEC §3): an unannotated binding of literals keeps its
  // literal type variable, so its uses in the rest of the cell decide (`let k = 0.5;` then
  // `k * x_f64` makes k an f64); what no use constrains defaults to i32 / f32 at the end. As in
  // Rust, a bound integer literal stays an integer (`let a = 1; a + 2.0` is E002); only a
  // literal written in place takes a float context (`x_f32 * 2`).
  else {
    ts.require_int(t, true);
  }
  bind_pattern(ir::let_pattern(*s), t, ir::let_value(*s)->span);
  // `let axes = [0, 2];` passed to squeeze, reshape, split or einsum types their result as
  // the literal written at the call would (gradients through them need the rank).
  const NodeRef& pat = ir::let_pattern(*s);
  if (!ir::let_type(*s) && pat && pat->kind == Kind::PBind && pat->def.valid())
    if (NodeRef lit = literal_arg(ir::let_value(*s))) u.literal_lets[pat->def] = lit;
  if (!ir::let_type(*s) && pat && pat->kind == Kind::PBind && pat->def.valid() &&
      ir::let_value(*s)->kind == Kind::ArrayLit && !ir::let_value(*s)->kids.empty())
    listed_lets[pat->def] = ir::let_value(*s);
  // Extents written in the program (a nested literal, an annotation's literal extents) reach
  // the ranks library functions promise (`gather_nd`'s depends on the index tuples' length).
  if (pat && pat->kind == Kind::PBind && pat->def.valid()) {
    std::vector<int64_t> ext = known_extents(ir::let_value(*s));
    if (const NodeRef& ann = ir::let_type(*s); ann && ann->kind == Kind::TyArray && !ann->has(ir::kAnyRank)) {
      std::vector<int64_t> written;
      for (size_t i = 1; i < ann->kids.size(); ++i) written.push_back(ann->kids[i]->ival);
      if (!written.empty()) ext = written;
    }
    if (!ext.empty()) u.let_extents[pat->def] = ext;
  }
}

void Infer::bind_pattern(const NodeRef& pat, const TypeRef& t, Span at) {
  if (!pat) return;
  if (pat->kind == Kind::PBind) {
    bool global = cx.resolver.info(pat->def).kind == DefKind::Global;
    set_def(pat->def, t, global);
    set(pat, t);
    return;
  }
  if (pat->kind == Kind::PTuple) {
    TypeRef r = resolved(t);
    if (r->k == Type::K::Var) {
      std::vector<TypeRef> es;
      for (size_t i = 0; i < pat->kids.size(); ++i) es.push_back(ts.fresh(ir::VarKind::Any));
      TypeRef tt = ir::t_tuple(es);
      ts.unify(r, tt);
      r = tt;
    }
    if (r->k != Type::K::Tuple || r->elems.size() != pat->kids.size()) {
      if (r->k != Type::K::Unknown)
        err("E002", "cannot destructure `" + show(t) + "` into " +
                        std::to_string(pat->kids.size()) + " names",
            at, "this is `" + show(t) + "`");
      for (auto& k : pat->kids) bind_pattern(k, ir::t_unknown(), at);
      return;
    }
    for (size_t i = 0; i < pat->kids.size(); ++i) bind_pattern(ir::ptuple_elems(pat)[i], r->elems[i], at);
  }
}

// Does `callee` (a lambda, function or builtin) accept the parameters of `sig` and return its
// result? Typed like a call with those argument types; E002 at `at` otherwise.
void Infer::check_callable(const TypeRef& sig0, const TypeRef& callee0, const NodeRef& at) {
  TypeRef sig = resolved(sig0), callee = resolved(callee0);
  if (callee->k == Type::K::Builtin) return;  // typed by its own rule at each call
  size_t nparams = callee->k == Type::K::Lambda
                       ? callee->node->kids.size() - ir::lambda_param_begin()
                       : 0;
  if (callee->k == Type::K::FnItem) {
    NodeRef fn = prepared_body(cx, callee->def);
    if (!fn) return;
    nparams = fn->kids.size() - ir::fn_param_begin();
  }
  if (nparams != sig->elems.size()) {
    err("E002", "mismatched types: expected `" + show(sig) + "`, found a function of " +
                    std::to_string(nparams) + " parameter" + (nparams == 1 ? "" : "s"),
        at->span, "expected `" + show(sig) + "`");
    return;
  }
  // A call node for the check only: its arguments carry the annotation's span.
  std::vector<NodeRef> kids{at};
  for (size_t i = 0; i < nparams; ++i) kids.push_back(ir::make({.kind = Kind::TupleLit, .span = at->span}));
  NodeRef call = ir::make({.kind = Kind::Call, .span = at->span, .kids = std::move(kids)});
  Unit* spec = specialize(callee, sig->elems, call);
  if (!spec) return;
  if (!ts.unify(sig->elem, spec->ret_type))
    err("E002", "mismatched types: expected `" + show(sig) + "`, found a function returning `" +
                    show(spec->ret_type) + "`",
        at->span, "this returns `" + show(spec->ret_type) + "`");
}

// `let a: [str; 2] = ["a", "b", "c"];`: the extents of an array annotation against the nesting
// of an array literal (numeric arrays are checked by shape analysis; lists of rows only here).
void Infer::check_literal_extents(const NodeRef& ann, const NodeRef& value) {
  if (ann->has(ir::kAnyRank)) return;
  NodeRef v = value;
  for (size_t axis = 1; axis < ann->kids.size(); ++axis) {
    if (!v || v->kind != Kind::ArrayLit) return;
    int64_t want = ir::tyarray_dims(ann)[axis - 1]->ival;
    if (want >= 0 && static_cast<int64_t>(v->kids.size()) != want) {
      err("E004", "shape mismatch: the annotation says " + std::to_string(want) + " on axis " +
                      std::to_string(axis - 1) + ", the value has " + std::to_string(v->kids.size()),
          v->span, "this has " + std::to_string(v->kids.size()) + " elements");
      return;
    }
    v = v->kids.empty() ? nullptr : ir::array_elems(v)[0];
  }
}

TypeRef Infer::const_type(ir::DefId d, Span at) {
  if (auto it = cx.global_types.find(d); it != cx.global_types.end()) return it->second;
  if (TypeRef t = cx.env.type_of(d)) return t;
  const DefInfo& info = cx.resolver.info(d);
  if (!info.node || info.node->kind != Kind::Const) return ir::t_unknown();
  if (sh.consts_typed.count(d)) return ir::t_unknown();  // cyclic const definition
  sh.consts_typed[d] = info.node;
  cx.global_types[d] = ir::t_unknown();
  Infer in_cell(cx, sh, cx.cell());
  TypeRef t = in_cell.expr(ir::const_value(info.node));
  if (const NodeRef& ann = ir::const_type(info.node)) {
    TypeRef a = type_from_annotation(ann, cx);
    if (!ts.unify(a, t))
      err("E002", "mismatched types: expected `" + show(a) + "`, found `" + show(t) + "`",
          ir::const_value(info.node)->span);
    t = a;
  }
  cx.global_types[d] = t;
  cx.consts.push_back(info.node);
  if (ir::const_value(info.node)->kind == Kind::IntLit) cx.const_ints[d] = ir::const_value(info.node)->ival;
  (void)at;
  return t;
}

TypeRef Infer::def_type(ir::DefId d, Span at) {
  if (!d.valid()) return ir::t_unknown();
  for (const Unit* p = &u; p; p = p->parent) {
    auto it = p->def_types.find(d);
    if (it != p->def_types.end()) return it->second;
  }
  if (auto it = cx.global_types.find(d); it != cx.global_types.end()) return it->second;
  const DefInfo& info = cx.resolver.info(d);
  switch (info.kind) {
    case DefKind::Fn: return ir::t_fn_item(d);
    case DefKind::Builtin: return ir::t_builtin(d);
    case DefKind::Const: return const_type(d, at);
    default: break;
  }
  if (TypeRef t = cx.env.type_of(d)) return t;
  return ir::t_unknown();
}

// ---- Einstein groups ----------------------------------------------------------------------------

TypeRef Infer::ein_group(const NodeRef& g) {
  ir::DefId def = g->def;
  bool global = cx.resolver.info(def).kind == DefKind::Global;
  // Clauses that do not read the tensor are typed first: they fix its element type before a
  // self-read reaches a generic call, which would otherwise default it (`h[t in 1..5] =
  // sin(h[t - 1]); h[0] = x_f64;` is f64 whatever the textual order of the clauses).
  std::vector<NodeRef> order, reading;
  for (auto& c : g->kids) {
    bool reads = false;
    ir::for_each_node(ir::ein_value(*c), [&](const NodeRef& n) {
      if (n->kind == Kind::Name && n->def == def) reads = true;
    });
    (reads ? reading : order).push_back(c);
  }
  bool self_ref = !reading.empty();
  order.insert(order.end(), reading.begin(), reading.end());
  TypeRef elem = ts.fresh(ir::VarKind::Any);
  if (self_ref) {
    // The tensor's rank must be known before its clauses are typed: rest patterns get their
    // length from an access of an array whose type is already known (e.g. a parameter).
    int n = 0;
    for (const NodeRef& s : ir::ein_slots(ir::group_clauses(g)[0])) {
      if (s->kind != Kind::IdxRest) {
        ++n;
        continue;
      }
      int len = prescan_rest(g, s->def);
      if (len < 0)
        err("E004", "cannot determine how many axes `.." + s->name + "` stands for", s->span,
            "rank unknown", "use `.." + s->name + "` in an access of an array whose rank is known");
      n += std::max(len, 0);
    }
    set_def(def, ir::t_array(elem, n), global);
  }
  int elem_rank = -2;
  int out_rank = -1;
  for (auto& c : order) {
    index_slots(ir::ein_slots(c));
    bool reads_self = std::find(reading.begin(), reading.end(), c) != reading.end();
    if (reads_self) {
      pending_elem_ = elem;
      pending_def_ = def;
      collect_tails(ir::ein_value(*c));
    }
    TypeRef bt = expr(ir::ein_value(*c));
    pending_elem_ = nullptr;
    pending_tails_.clear();
    TypeRef rb = resolved(bt);
    int r = 0;
    TypeRef e = rb;
    if (rb->k == Type::K::Array) {
      r = rb->rank;
      e = rb->elem;
    } else if (rb->k != Type::K::Scalar && rb->k != Type::K::Var && rb->k != Type::K::Unknown) {
      err("E002", "tensor elements must be numbers or bools, found `" + show(bt) + "`",
          ir::ein_value(*c)->span, "this is `" + show(bt) + "`",
          "an Einstein declaration builds a numeric tensor; build an array of strings with a "
          "comprehension (`[s[i] + \"x\" | i in 0..n]`), or a running string with a recursive function");
      continue;
    }
    if (self_ref && r != 0)
      err("E011", "recurrences with array-valued elements are not supported",
          ir::ein_value(*c)->span);
    if (elem_rank == -2) elem_rank = r;
    else if (elem_rank != r)
      err("E004", "clauses of `" + g->name + "` produce elements of different ranks",
          ir::ein_value(*c)->span);
    if (!ts.unify(elem, e))
      err("E002", "clauses of `" + g->name + "` have different element types: `" + show(elem) +
                      "` and `" + show(e) + "`",
          ir::ein_value(*c)->span, "this is `" + show(e) + "`");
    int n = 0;
    for (const NodeRef& s : ir::ein_slots(c)) {
      if (s->kind != Kind::IdxRest) {
        ++n;
        continue;
      }
      auto it = u.rest_len.find(s->def);
      if (it == u.rest_len.end()) {
        err("E004", "cannot determine how many axes `.." + s->name + "` stands for", s->span,
            "rank unknown", "use `.." + s->name + "` in an access of an array whose rank is known");
        n = -1000;
      } else {
        n += it->second;
      }
    }
    if (n >= 0) {
      if (out_rank >= 0 && out_rank != n)
        err("E004", "clauses of `" + g->name + "` have different ranks (" +
                        std::to_string(out_rank) + " and " + std::to_string(n) + ")",
            c->span, "this clause has rank " + std::to_string(n),
            "every clause of a piecewise definition indexes the same number of axes");
      else
        out_rank = n;
    }
  }
  if (elem_rank < 0) elem_rank = 0;
  TypeRef result = out_rank < 0 ? ir::t_unknown() : ir::t_array(elem, out_rank + elem_rank);
  if (out_rank + elem_rank == 0) result = elem;  // zero axes (a rest over a scalar): a scalar
  set_def(def, result, global);
  return set(g, result);
}

bool Infer::reads_pending(const NodeRef& e) const {
  bool reads = false;
  if (pending_elem_)
    ir::for_each_node(e, [&](const NodeRef& n) { reads = reads || (n->kind == Kind::Name && n->def == pending_def_); });
  return reads;
}

void Infer::collect_tails(const NodeRef& e) {
  if (!e) return;
  switch (e->kind) {
    case Kind::If:
      collect_tails(ir::if_then(e));
      collect_tails(ir::if_else(e));
      return;
    case Kind::Match:
      for (size_t i = 1; i < e->kids.size(); ++i)
        if (e->kids[i]->kind == Kind::Arm) collect_tails(ir::arm_body(e->kids[i]));
      return;
    case Kind::Block:
      if (e->has(ir::kHasTail) && !e->kids.empty()) collect_tails(e->kids.back());
      return;
    default:
      pending_tails_.insert(e->id);
  }
}

// Length of rest pattern `rest` from the first access `X[.., ..rest, ..]` whose X has a known rank.
int Infer::prescan_rest(const NodeRef& g, ir::DefId rest) {
  if (auto it = u.rest_len.find(rest); it != u.rest_len.end()) return it->second;
  int found = -1;
  ir::for_each_node(g, [&](const NodeRef& n) {
    if (found >= 0 || n->kind != Kind::Index || ir::index_base(n)->kind != Kind::Name) return;
    int rests = 0;
    bool mine = false;
    for (const NodeRef& k : ir::index_args(n))
      if (k->kind == Kind::RestIdx) {
        ++rests;
        mine = mine || k->def == rest;
      }
    if (!mine || rests != 1 || ir::index_base(n)->def == g->def) return;
    TypeRef t = resolved(def_type(ir::index_base(n)->def, n->span));
    if (t->k != Type::K::Array || t->rank < 0) return;
    int len = t->rank - static_cast<int>(n->kids.size() - 2);
    if (len >= 0) found = len;
  });
  if (found >= 0) u.rest_len[rest] = found;
  return found;
}

// ---- entry --------------------------------------------------------------------------------------

void type_infer(CompileCtx& cx) {
  InferShared sh;
  Unit& cell = cx.cell();
  {
    Infer inf(cx, sh, cell);
    inf.run_cell();
  }
  // Rank tests decided per specialisation: keep only the taken branch in each unit's body.
  for (auto& up : cx.units) {
    Unit& u = *up;
    if (u.static_ifs.empty() && u.promotes.empty() && u.einsum_lists.empty()) continue;
    struct Prune : ir::Mutator {
      Unit& u;
      explicit Prune(Unit& x) : u(x) {}
      NodeRef pre(const NodeRef& n) override {
        if (n->kind == Kind::Call) return promote(n);
        auto it = u.static_ifs.find(n->id);
        if (n->kind != Kind::If || it == u.static_ifs.end()) return nullptr;
        const NodeRef& b = it->second ? ir::if_then(n) : ir::if_else(n);
        if (b && ir::if_else(n)) return mutate(b);
        if (b) {
          // `if` without `else`: the branch runs for its effects, the value is unit.
          NodeRef stmt = ir::make({.kind = Kind::ExprStmt, .span = b->span, .kids = {mutate(b)}});
          NodeRef blk = ir::make({.kind = Kind::Block, .span = n->span, .kids = {stmt}});
          u.types[stmt->id] = ir::t_unit();
          u.types[blk->id] = ir::t_unit();
          return blk;
        }
        NodeRef unit = ir::make({.kind = Kind::TupleLit, .span = n->span});
        u.types[unit->id] = ir::t_unit();
        return unit;
      }
      // `__promote(x, mode)` as decided: x itself, or `x as [T]` (`x as T` for a scalar);
      // `__einsum(eq, [a, ..])` with its list flag.
      NodeRef promote(const NodeRef& n) {
        if (u.einsum_lists.count(n->id)) {
          NodeRef flag = ir::make_bool(true, n->span);
          u.types[flag->id] = ir::t_bool();
          return ir::edited(n, [&](ir::Node& m) {
            for (auto& k : m.kids) k = mutate(k);
            m.kids.push_back(flag);
          });
        }
        auto it = u.promotes.find(n->id);
        if (it == u.promotes.end()) return nullptr;
        NodeRef x = mutate(ir::call_args(n)[0]);
        if (!it->second) return x;
        TypeRef t = u.types[n->id];
        NodeRef prim = ir::make({.kind = Kind::TyPrim, .span = n->span, .name = dtype_name(it->second->dtype)});
        NodeRef ty = t && t->k == Type::K::Array ? ir::make({.kind = Kind::TyArray, .span = n->span, .kids = {prim}}) : prim;
        NodeRef c = ir::make({.kind = Kind::Cast, .span = n->span, .kids = {x, ty}});
        u.types[c->id] = t;
        return c;
      }
    } prune(u);
    u.body = prune.mutate(u.body);
  }
  // Zonk: every stored type becomes variable-free; unconstrained literals take their defaults.
  for (auto& up : cx.units) {
    Unit& u = *up;
    for (auto& [id, t] : u.types) t = sh.store.deep(t, true);
    for (auto& [d, t] : u.def_types) t = sh.store.deep(t, true);
    for (auto& t : u.param_types) t = sh.store.deep(t, true);
    if (u.ret_type) u.ret_type = sh.store.deep(u.ret_type, true);
  }
  for (auto& [d, t] : cx.global_types) t = sh.store.deep(t, true);
  // Literals and constant expressions must fit the type their context gave them.
  check_constant_ranges(cx);
}

}  // namespace ein
