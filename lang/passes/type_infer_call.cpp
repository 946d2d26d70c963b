// Calls of functions and lambdas, and their monomorphisation (thesis §4.5); the types of builtin
// calls are in type_infer_builtin.cpp.
#include <functional>

#include "lang/diag/call_site.h"
#include "lang/ir/visitor.h"
#include "lang/passes/type_infer_impl.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;
using ir::Type;
using ir::TypeRef;

TypeRef Infer::call(const NodeRef& e) {
  TypeRef ct = expr(ir::call_callee(e));
  std::vector<TypeRef> args;
  for (const NodeRef& a : ir::call_args(e)) args.push_back(expr(a));
  TypeRef rc = resolved(ct);
  switch (rc->k) {
    case Type::K::Builtin: {
      auto b = builtin_of(rc->def);
      if (!b) return ir::t_unknown();
      return builtin_call(*b, e, args);
    }
    case Type::K::FnItem:
    case Type::K::Lambda: {
      // An argument whose type an error already made unknown (`add(x, [true, 2.0])`) would be
      // specialised afresh at every call inside the body: a std::ml function then spent
      // minutes before its limit (libFuzzer). The cell has failed; its calls stay unknown.
      if (cx.diags.has_errors())
        for (auto& a : args)
          if (mentions_unknown(a)) return ir::t_unknown();
      Unit* spec = specialize(rc, args, e);
      if (!spec) return ir::t_unknown();
      u.call_targets[e->id] = spec;
      if (spec->in_progress && ts.is_var(spec->ret_type)) {
        // A recursive call before the body has a type: dynamic for now; the body is typed
        // again once its result type is known (see specialize).
        sh.recursed.insert(spec);
        return ir::t_unknown();
      }
      return spec->ret_type;
    }
    case Type::K::Unknown: return ir::t_unknown();
    case Type::K::FnSig:
      err("E011", "calling a value through a function-type annotation is not supported",
          ir::call_callee(e)->span, "", "leave the parameter unannotated; it is specialised per call");
      return ir::t_unknown();
    default:
      err("E002", "this is not a function: it has type `" + show(ct) + "`", ir::call_callee(e)->span,
          "not callable");
      return ir::t_unknown();
  }
}

// Does t contain inference variables, all of them literal ones (no unconstrained Any)? The
// element of an empty literal `[]` counts as one: like a literal, the callee's body types it
// (`per_axis([], 2)` whose body makes `v[k]` and `1` one type has i32 elements).
bool Infer::only_literal_vars(const TypeRef& t0) {
  TypeRef t = ts.shallow(t0);
  if (!t) return false;
  if (t->k == Type::K::Var) return t->var_kind != ir::VarKind::Any;
  if (t->k == Type::K::Array || t->k == Type::K::List || t->k == Type::K::Range) {
    TypeRef e = ts.shallow(t->elem);
    return e && e->k == Type::K::Var && (e->var_kind != ir::VarKind::Any || t->k == Type::K::Array);
  }
  if (t->k == Type::K::Tuple) {
    bool any = false;
    for (auto& e : t->elems) {
      TypeRef r = ts.shallow(e);
      if (r->k == Type::K::Var && r->var_kind == ir::VarKind::Any) return false;
      any = any || only_literal_vars(e);
    }
    return any;
  }
  return false;
}

bool Infer::mentions_unknown(const TypeRef& t0, int depth) const {
  if (!t0 || depth > 64) return false;
  TypeRef t = ts.shallow(t0);
  if (t->k == Type::K::Unknown) return true;
  if (t->elem && mentions_unknown(t->elem, depth + 1)) return true;
  for (auto& e : t->elems)
    if (mentions_unknown(e, depth + 1)) return true;
  return false;
}

namespace {

// Nodes of a type counted as a tree (a tuple `(x, x)` counts x twice), stopping past `budget`:
// types shared as a DAG can describe exponentially large trees, which must be refused before
// anything expands them.
int64_t tree_size(TypeStore& ts, const TypeRef& t0, int64_t budget) {
  if (!t0 || budget <= 0) return 1;
  TypeRef t = ts.shallow(t0);
  int64_t n = 1;
  if (t->elem) n += tree_size(ts, t->elem, budget - n);
  for (auto& e : t->elems) {
    if (n > budget) break;
    n += tree_size(ts, e, budget - n);
  }
  return n;
}

// Argument types of one specialisation larger than this are an ever-growing type (reliability:
// `fn f(x) { f((x, x)) }` doubles its argument at every call).
constexpr int64_t kMaxArgTypeNodes = 4096;
constexpr int kMaxNestedSpecialisations = 256;

}  // namespace

// Whether a body passes parameter p on as the part count of `__split` or the type number of
// `__cast` (library wrappers such as `split(data, sizes, axis)`): an integer literal there
// fixes the result's type, so it specialises the call like a literal list. Other integer
// literals do not (one specialisation serves every value).
static bool counts_parts(const NodeRef& body, ir::DefId p) {
  bool uses = false;
  ir::for_each_node(body, [&](const NodeRef& n) {
    if (uses || n->kind != Kind::Call || ir::call_args_count(n) < 2) return;
    auto b = builtin_of(ir::call_callee(n)->def);
    const NodeRef& a = ir::call_args(n)[1];
    if (b && (*b == Builtin::Split || *b == Builtin::Cast) && a->kind == Kind::Name && a->def == p) uses = true;
  });
  return uses;
}

// Whether a body passes parameter p on as the operands of `__einsum` (std::ml::einsum): an array
// literal written there (`einsum("...ij->...ji", [a])`) is a list of operands, which the stacked
// array it evaluates to cannot say when one operand's term takes any rank.
static bool feeds_einsum(const NodeRef& body, ir::DefId p) {
  bool uses = false;
  ir::for_each_node(body, [&](const NodeRef& n) {
    if (uses || n->kind != Kind::Call || ir::call_args_count(n) != 2) return;
    auto b = builtin_of(ir::call_callee(n)->def);
    const NodeRef& a = ir::call_args(n)[1];
    if (b && *b == Builtin::Einsum && a->kind == Kind::Name && a->def == p) uses = true;
  });
  return uses;
}

// A literal shape (an array literal of integer literals, `-1` included) or a string literal,
// written at the call, bound by an unannotated `let` of this unit, or passed on from the
// caller's own literal parameter.
NodeRef Infer::literal_arg(const NodeRef& a) const {
  if (!a) return nullptr;
  if (a->kind == Kind::Name && a->def.valid()) {
    if (auto it = u.literal_args.find(a->def); it != u.literal_args.end()) return it->second;
    auto it = u.literal_lets.find(a->def);
    return it == u.literal_lets.end() ? nullptr : it->second;
  }
  if (a->kind == Kind::StrLit) return a;
  if (a->kind != Kind::ArrayLit || a->kids.empty()) return nullptr;
  for (auto& k : a->kids) {
    const NodeRef& x = k->kind == Kind::Unary && static_cast<ir::UnOp>(k->ival) == ir::UnOp::Neg ? ir::unary_operand(k) : k;
    if (x->kind != Kind::IntLit) return nullptr;
  }
  return a;
}

// A literal written out at a call: a number, string or boolean, or an array literal of them
// (negated numbers included), nested. Its type is the call's alone.
static bool written_literal(const NodeRef& a) {
  if (!a) return false;
  switch (a->kind) {
    case Kind::IntLit:
    case Kind::FloatLit:
    case Kind::StrLit:
    case Kind::BoolLit: return true;
    case Kind::Unary: return static_cast<ir::UnOp>(a->ival) == ir::UnOp::Neg && written_literal(ir::unary_operand(a));
    case Kind::ArrayLit:
      for (auto& k : a->kids)
        if (!written_literal(k)) return false;
      return true;
    default: return false;
  }
}

// The extents of a value known where it is written: an array literal (nested, rectangular)
// whose innermost elements are scalars (`[2, len(w) / 2]` has extent 2), a binding of this unit
// holding one or annotated with literal extents, or a parameter whose argument had them. Empty
// when any is unknown.
std::vector<int64_t> Infer::known_extents(const NodeRef& a) {
  if (!a) return {};
  if (a->kind == Kind::Name && a->def.valid()) {
    if (auto it = u.arg_extents.find(a->def); it != u.arg_extents.end()) return it->second;
    auto it = u.let_extents.find(a->def);
    return it == u.let_extents.end() ? std::vector<int64_t>{} : it->second;
  }
  if (a->kind != Kind::ArrayLit || a->kids.empty()) return {};
  std::vector<int64_t> inner;
  for (size_t i = 0; i < a->kids.size(); ++i) {
    const NodeRef& k = a->kids[i];
    const NodeRef& x = k->kind == Kind::Unary && static_cast<ir::UnOp>(k->ival) == ir::UnOp::Neg ? ir::unary_operand(k) : k;
    std::vector<int64_t> e;
    if (x->kind == Kind::ArrayLit) {
      e = known_extents(x);
      if (e.empty()) return {};
    } else if (x->kind != Kind::IntLit && x->kind != Kind::FloatLit && ir::rank_of(resolved(u.type(x))) != 0) {
      return {};  // a name may hold an array: the rank does not end here
    }
    if (i > 0 && e != inner) return {};
    inner = std::move(e);
  }
  inner.insert(inner.begin(), static_cast<int64_t>(a->kids.size()));
  return inner;
}

// Does a `__reshape` rank promise in the body read `shape(p)` or `len(p)`? Then the extents of
// p's argument specialise the call (gather_nd's result rank is its index tuples' length,
// reshape's the length of its target); other calls share one specialisation.
static bool promise_reads_shape(const NodeRef& body, ir::DefId p) {
  bool reads = false;
  ir::for_each_node(body, [&](const NodeRef& n) {
    if (reads || n->kind != Kind::Call || ir::call_args_count(n) < 3 || ir::call_callee(n)->def != builtin_def(Builtin::Reshape))
      return;
    ir::for_each_node(ir::call_args(n)[2], [&](const NodeRef& m) {
      if (m->kind == Kind::Call && ir::call_args_count(m) == 1 &&
          (ir::call_callee(m)->def == builtin_def(Builtin::Shape) || ir::call_callee(m)->def == builtin_def(Builtin::Len)) &&
          ir::call_args(m)[0]->kind == Kind::Name && ir::call_args(m)[0]->def == p)
        reads = true;
    });
  });
  return reads;
}

// The rank a library function promises `__reshape` (its third argument), folded from ranks,
// lengths of axis lists written at the call, extents known where they are written
// (`shape(indices)[len(shape(indices)) - 1]`), + - == `__max2` and `if`. Used for nothing else:
// branches stay decided by ranks alone (a recursive call reuses a specialisation made for a
// literal argument with other values, which the run-time check of the promise catches).
// -1 promises nothing.
std::optional<int64_t> Infer::promised_rank(const NodeRef& e, int depth) {
  if (!e || depth > 16) return std::nullopt;
  if (auto r = static_int(e)) return r;
  auto callee_is_of = [&](const NodeRef& n, Builtin b) {
    return n->kind == Kind::Call && ir::call_args_count(n) == 1 && ir::call_callee(n)->def == builtin_def(b);
  };
  auto callee_is = [&](Builtin b) { return e->kind == Kind::Call && ir::call_callee(e)->def == builtin_def(b); };
  if (callee_is(Builtin::Len) && ir::call_args_count(e) == 1) {
    if (NodeRef lit = literal_arg(ir::call_args(e)[0]); lit && lit->kind == Kind::ArrayLit)
      return static_cast<int64_t>(lit->kids.size());
    if (std::vector<int64_t> ext = known_extents(ir::call_args(e)[0]); !ext.empty() && ext[0] >= 0)
      return ext[0];
  }
  if (e->kind == Kind::Index && ir::index_args(e).size() == 1 && callee_is_of(ir::index_base(e), Builtin::Shape)) {
    std::vector<int64_t> ext = known_extents(ir::call_args(ir::index_base(e))[0]);
    auto a = promised_rank(ir::index_args(e)[0], depth + 1);
    if (a && *a >= 0 && *a < static_cast<int64_t>(ext.size()) && ext[*a] >= 0) return ext[*a];
    return std::nullopt;
  }
  if (e->kind == Kind::Unary && static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg) {
    auto a = promised_rank(ir::unary_operand(e), depth + 1);
    return a ? std::optional<int64_t>(-*a) : std::nullopt;
  }
  if (e->kind == Kind::If && ir::if_else(e)) {
    auto c = promised_rank(ir::if_cond(e), depth + 1);
    return c ? promised_rank(*c ? ir::if_then(e) : ir::if_else(e), depth + 1) : std::nullopt;
  }
  if (e->kind == Kind::Block && e->has(ir::kHasTail) && ir::block_stmts(e).size() == 1)
    return promised_rank(ir::tail_expr(*e), depth + 1);
  bool max = callee_is(Builtin::Max2) && ir::call_args_count(e) == 2;
  if (e->kind != Kind::Binary && !max) return std::nullopt;
  auto a = promised_rank(max ? ir::call_args(e)[0] : ir::bin_lhs(e), depth + 1);
  auto b = promised_rank(max ? ir::call_args(e)[1] : ir::bin_rhs(e), depth + 1);
  if (!a || !b || std::abs(*a) > 4096 || std::abs(*b) > 4096) return std::nullopt;
  if (max) return std::max(*a, *b);
  switch (static_cast<ir::BinOp>(e->ival)) {
    case ir::BinOp::Add: return *a + *b;
    case ir::BinOp::Sub: return *a - *b;
    case ir::BinOp::Eq: return *a == *b ? 1 : 0;
    default: return std::nullopt;
  }
}

Unit* Infer::specialize(const TypeRef& callee, std::vector<TypeRef> args, const NodeRef& call_node) {
  NodeRef fn_node, body, ret_ann;
  std::vector<NodeRef> params;
  std::string name, key;
  const Unit* parent = nullptr;
  if (callee->k == Type::K::FnItem) {
    fn_node = prepared_body(cx, callee->def);
    if (!fn_node) {
      err("E003", "function `" + cx.resolver.info(callee->def).name + "` has no body here",
          call_node->span);
      return nullptr;
    }
    for (const NodeRef& p : ir::fn_params(fn_node)) params.push_back(p);
    body = ir::fn_body(*fn_node);
    ret_ann = ir::fn_ret_type(*fn_node);
    name = fn_node->name;
    key = "fn" + std::to_string(callee->def.crate) + ":" + std::to_string(callee->def.index);
  } else {
    fn_node = callee->node;
    for (const NodeRef& p : ir::lambda_params(fn_node)) params.push_back(p);
    body = ir::lambda_body(*fn_node);
    parent = callee->unit;
    auto lc = cx.sm.start(fn_node->span);
    name = "lambda@" + std::to_string(lc.line) + ":" + std::to_string(lc.col);
    key = "lambda" + std::to_string(fn_node->id) + "@" + std::to_string(parent ? parent->id : -1);
  }
  if (args.size() != params.size()) {
    err("E002", "`" + name + "` takes " + std::to_string(params.size()) + " argument" +
                    (params.size() == 1 ? "" : "s") + " but " + std::to_string(args.size()) +
                    (args.size() == 1 ? " was" : " were") + " given",
        call_node->span, "wrong number of arguments");
    return nullptr;
  }
  for (size_t i = 0; i < args.size(); ++i)
    if (tree_size(ts, args[i], kMaxArgTypeNodes) > kMaxArgTypeNodes) {
      err("E002", "the type of argument " + std::to_string(i + 1) + " of `" + name + "` is too large to specialise",
          call_node->span, "this argument's type has more than " + std::to_string(kMaxArgTypeNodes) + " parts",
          "a generic function that calls itself with ever-growing argument types cannot be compiled");
      return nullptr;
    }
  std::vector<TypeRef> ptypes;
  for (size_t i = 0; i < params.size(); ++i) {
    const NodeRef& ann = ir::param_type(params[i]);
    TypeRef at = ann ? type_from_annotation(ann, cx) : nullptr;
    if (at && at->k != Type::K::FnSig) {
      if (!ts.unify(at, args[i])) {
        err("E002", "mismatched types: parameter `" + params[i]->name + "` of `" + name +
                        "` is `" + show(at) + "`, found `" + show(args[i]) + "`",
            ir::call_args(call_node)[i]->span, "expected `" + show(at) + "`",
            "convert explicitly with `as`");
      }
      ptypes.push_back(at);
    } else {
      if (at && ir::is_callable(resolved(args[i])) && resolved(args[i])->k != Type::K::FnSig)
        check_callable(at, args[i], ir::call_args(call_node)[i]);  // `f: (f32) -> f32`
      // A literal argument stays open (`clamp(x_f64, 0.0, 1.0)`): the specialisation's body
      // decides its type, as the literal's context would outside a function (SPEC §3).
      TypeRef open = ts.deep(args[i], false);
      ptypes.push_back(only_literal_vars(open) ? open : ts.deep(args[i], true));
    }
  }
  // Literal shapes and equations reach builtins inside the body (reshape(x, [2, 3]) has rank 2):
  // such a specialisation belongs to its call, so another literal never reuses it.
  std::unordered_map<ir::DefId, NodeRef> lits;
  for (size_t i = 0; i < params.size(); ++i)
    if (NodeRef lit = literal_arg(ir::call_args(call_node)[i])) lits[params[i]->def] = lit;
    else if (NodeRef n = ir::call_args(call_node)[i]; n->kind == Kind::IntLit && counts_parts(body, params[i]->def))
      lits[params[i]->def] = n;  // `split(x, 2, 1)`, `cast(x, 11)`: the count or type number
    else if (NodeRef l = listed_operands(n); l && feeds_einsum(body, params[i]->def))
      lits[params[i]->def] = l;  // `einsum(eq, [a])`, `let ops = [a]; einsum(eq, ops)`: a list of operands
                                 // (Einsum in type_infer_builtin)
  std::unordered_map<ir::DefId, std::vector<int64_t>> extents;
  for (size_t i = 0; i < params.size(); ++i)
    if (std::vector<int64_t> ext = known_extents(ir::call_args(call_node)[i]);
        !ext.empty() && promise_reads_shape(body, params[i]->def))
      extents[params[i]->def] = std::move(ext);
  std::string tnames;
  key += "(";
  for (size_t i = 0; i < ptypes.size(); ++i) {
    key += ir::type_key(ptypes[i]) + ",";
    tnames += (i ? ", " : "") + ir::type_name(ptypes[i]);
  }
  key += ")";
  // Specialisations of this signature: the shared one (owner ""), and those that belong to one
  // call (owner "#N").
  // A specialisation whose literal parameters or result are still open belongs to its own call
  // (`ln(2.0) / k_f64` and `ln(2.0) / k_f32` must not share the literal's type); a recursive
  // call reaches the one in progress.
  bool args_open = false;
  for (auto& p : ptypes) args_open = args_open || ts.is_var(p) || only_literal_vars(p);
  // A call with literal attributes (`average_pool(X, [3, 3], [1, 1], [1, 1, 1, 1])`) gets a
  // specialisation of its own, analysed, lowered and planned again at every call: ~10 ms CPU a
  // call of a std layer (docs/performance.md, "per-call cost"). When every argument whose type
  // is still open is a literal written at the call, its type variable is constrained by the
  // callee's body alone; another such call with the same signature, structurally equal literal
  // arguments and equal known extents would be analysed into the same facts, so it shares the
  // specialisation (the tie of the literals' variables only makes them default alike).
  bool literal_call = callee->k == Type::K::FnItem && (!lits.empty() || !extents.empty());
  for (size_t i = 0; i < ptypes.size() && literal_call; ++i)
    literal_call = !has_var(ptypes[i]) || written_literal(ir::call_args(call_node)[i]);
  auto same_literals = [&](const Unit& spec) {
    if (spec.literal_args.size() != lits.size() || spec.arg_extents != extents) return false;
    for (auto& [def, lit] : lits) {
      auto it = spec.literal_args.find(def);
      if (it == spec.literal_args.end() || !ir::structurally_equal(it->second, lit)) return false;
    }
    return true;
  };
  Unit* reuse = nullptr;
  bool taken = false;
  for (auto it = cx.specs.lower_bound({key, ""}); it != cx.specs.end() && it->first.first == key; ++it) {
    taken = taken || it->first.second.empty();
    if (it->second->in_progress) {
      reuse = it->second;
      break;
    }
    // Closed by its own body (`add(one, 2)`: the body makes the 2 an i32), it fits every call
    // of this signature; closed by its first caller's uses, only calls without open literals.
    if (!reuse && lits.empty() && extents.empty() && it->second->literal_args.empty() && it->second->arg_extents.empty() &&
        (sh.self_closed.count(it->second) || (!args_open && !is_open(*it->second))))
      reuse = it->second;
    if (!reuse && literal_call && it->second->shares_literals && same_literals(*it->second))
      reuse = it->second;
  }
  if (reuse) {
    for (size_t i = 0; i < args.size() && i < reuse->param_types.size(); ++i)
      ts.unify(args[i], reuse->param_types[i]);
    return reuse;
  }
  std::string owner = taken || !lits.empty() || !extents.empty() ? "#" + std::to_string(cx.units.size()) : "";
  // Specialisations being inferred right now form a chain of calls (f(T) is inferred while
  // inferring its caller). A long chain is a type that grows at every call, such as
  // `fn f(x) { f((x, 1)) }`; stop it before the chain and its type names get expensive.
  int nested = 0;
  for (auto& [k, unit] : cx.specs) nested += unit->in_progress ? 1 : 0;
  if (nested >= kMaxNestedSpecialisations) {
    err("E002", "specialisations of `" + name + "` nest more than " + std::to_string(kMaxNestedSpecialisations) +
                    " deep", call_node->span, "specialised again here",
        "a generic function that calls itself with ever-growing argument types cannot be compiled");
    return nullptr;
  }
  if (static_cast<int>(cx.specs.size()) >= cx.opt.max_specialisations) {
    err("E002", "too many specialisations of `" + name + "`", call_node->span,
        "specialised again here",
        "a generic function that calls itself with ever-growing argument types cannot be compiled");
    return nullptr;
  }
  // Autodiff rewrote the derivative requests of this specialisation's body (autodiff.cpp).
  if (auto ad = cx.ad_bodies.find(key + owner); ad != cx.ad_bodies.end()) {
    fn_node = ad->second;
    body = fn_node->kind == Kind::Lambda ? ir::lambda_body(*fn_node) : ir::fn_body(*fn_node);
  }
  Unit* unit = cx.new_unit(callee->k == Type::K::FnItem ? Unit::Kind::Fn : Unit::Kind::Lambda,
                           name + "(" + tnames + ")");
  unit->key = key + owner;
  unit->body = fn_node;
  unit->fn = callee->k == Type::K::FnItem ? callee->def : ir::DefId{};
  unit->parent = parent;
  unit->param_types = ptypes;
  unit->literal_args = std::move(lits);
  unit->arg_extents = std::move(extents);
  for (auto& p : params) unit->params.push_back(p->def);
  if (callee->k == Type::K::Lambda) unit->captures = cx.resolver.captures(fn_node->id);
  unit->ret_type = ret_ann ? type_from_annotation(ret_ann, cx) : ts.fresh(ir::VarKind::Any);
  cx.specs[{key, owner}] = unit;
  unit->in_progress = true;
  size_t units_before = cx.units.size();
  std::vector<Diagnostic> earlier = cx.diags.take();
  {
    Infer sub(cx, sh, *unit);
    sub.run_function(params, body, ret_ann);
  }
  if (sh.recursed.erase(unit) && !ts.is_var(unit->ret_type)) {
    // The body called itself before its result type was known (`let r = f(tail); ...`): that
    // typing pass treated the recursive result as dynamic. Now the result type is known from
    // the base case: forget the pass (its diagnostics and the specialisations it made) and
    // type the body again with it.
    cx.diags.clear();
    for (auto it = cx.specs.begin(); it != cx.specs.end();) {
      bool gone = it->second->id >= static_cast<int>(units_before);
      if (gone) sh.self_closed.erase(it->second);
      it = gone ? cx.specs.erase(it) : std::next(it);
    }
    cx.units.resize(units_before);
    unit->types.clear();
    unit->def_types.clear();
    unit->call_targets.clear();
    unit->rest_len.clear();
    unit->static_ifs.clear();
    unit->promotes.clear();
    unit->ret_type = ts.deep(unit->ret_type, false);
    Infer sub(cx, sh, *unit);
    sub.run_function(params, body, ret_ann);
    sh.recursed.erase(unit);
  }
  if (!is_open(*unit)) sh.self_closed.insert(unit);
  std::vector<Diagnostic> mine = cx.diags.take();
  if (callee->k == Type::K::FnItem && callee->def.crate == ir::kStdCrate &&
      !cx.resolver.is_library_file(call_node->span.file)) {
    // A type error inside the standard library comes from the user's arguments: point at the
    // user's call and keep the library line as a label (SPEC §6, issue 12 row 21).
    for (auto& d : mine) {
      if (d.primary.valid() && cx.resolver.is_library_file(d.primary.file))
        point_at_call(d, call_node->span, unit->name, cx.sm);
    }
  }
  for (auto& d : earlier) cx.diags.report(std::move(d));
  for (auto& d : mine) cx.diags.report(std::move(d));
  // Shared by later calls with equal literals only when the body alone closed the result: a
  // result the caller still decides (`first([3, 3])` as i64 here, i32 there) is the call's.
  unit->shares_literals = literal_call && !has_var(unit->ret_type);
  // Literal parameters the body left open stay open: the call's other uses decide (SPEC §3),
  // and the types are settled when the whole cell has been inferred.
  for (size_t i = 0; i < args.size() && i < unit->param_types.size(); ++i) ts.unify(args[i], unit->param_types[i]);
  unit->in_progress = false;
  return unit;
}

bool Infer::has_var(const TypeRef& t) {
  bool found = false;
  std::function<void(const TypeRef&)> visit = [&](const TypeRef& x0) {
    TypeRef x = ts.shallow(x0);
    if (!x || found) return;
    if (x->k == Type::K::Var) {
      found = true;
      return;
    }
    if (x->elem) visit(x->elem);
    for (auto& e : x->elems) visit(e);
  };
  visit(t);
  return found;
}

bool Infer::is_open(const Unit& spec) {
  if (spec.ret_type && has_var(spec.ret_type)) return true;
  for (auto& p : spec.param_types)
    if (has_var(p)) return true;
  return false;
}

}  // namespace ein
