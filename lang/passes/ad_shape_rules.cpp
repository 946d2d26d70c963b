// Tape rules for the builtins that only move or combine elements: `__reshape`, `__einsum` with
// a literal equation and a part of `__split` with literal sizes. Each becomes a read of its
// operands at the point of the result, so the reverse sweep scatters (a reshape, a split part)
// or contracts (an einsum) the adjoint with the machinery every indexed clause uses: the adjoint
// of a reshape is the adjoint read back at the input's run-time shape, a split part's adjoint
// fills its slice of the input (the parts together: their concatenation), an einsum's is an
// einsum per operand.
#include <map>

#include "lang/passes/ad_reverse.h"
#include "lang/passes/ir_build.h"
#include "lang/resolve/builtins.h"
#include "lang/syntax/einsum_eq.h"

namespace ein::ad {

using ir::Kind;

namespace {

NodeRef bin(ir::BinOp op, const NodeRef& a, const NodeRef& c) { return ir::make_binary(op, a, c); }

// Extents in the indices' type (i32), as the slots' index variables are.
NodeRef as_index(const NodeRef& n) {
  return ir::make({.kind = Kind::Cast, .span = n->span, .kids = {n, ir::make({.kind = Kind::TyPrim, .name = "i32"})}});
}

std::optional<Builtin> builtin_call(const NodeRef& e) {
  if (!e || e->kind != Kind::Call) return std::nullopt;
  return builtin_of(ir::call_callee(e)->def);
}

}  // namespace

// `let y = __reshape(x, shape)` with a statically ranked y (a literal shape): at a point of y,
// x read at the position with the same row-major offset. The map is a bijection, so the
// adjoint is that read's scatter. nullptr when v is not such a call.
NodeRef Tape::reshaped_read(const NodeRef& v, const NodeRef& y, const std::vector<NodeRef>& idx) {
  auto b = builtin_call(v);
  if (!b || *b != Builtin::Reshape || idx.empty() || ir::call_args_count(v) < 2) return nullptr;
  const NodeRef& x = ir::call_args(v)[0];
  int rx = ir::rank_of(facts_.type(x));
  if (rx < 1) unsupported("a reshape of a value of unknown rank", v->span);
  NodeRef flat = idx[0];
  for (size_t a = 1; a < idx.size(); ++a)
    flat = bin(ir::BinOp::Add, bin(ir::BinOp::Mul, flat, as_index(irb::dim_of(y, static_cast<int>(a)))), idx[a]);
  std::vector<NodeRef> at(static_cast<size_t>(rx));
  NodeRef stride;
  for (int a = rx - 1; a >= 0; --a) {
    NodeRef n = as_index(extent_of(x, a));
    NodeRef q = stride ? bin(ir::BinOp::Div, flat, stride) : flat;
    at[static_cast<size_t>(a)] = a == 0 ? q : bin(ir::BinOp::Mod, q, n);
    stride = stride ? bin(ir::BinOp::Mul, stride, n) : n;
  }
  return pointwise(x, at);
}

// The elements of a tuple an inlined parameter was bound to (`(A, B)`; or_array: also of an
// array literal, einsum's listed operands `[A, B]`), else empty.
ir::Kids Tape::tuple_elements(const NodeRef& e, bool or_array) const {
  NodeRef cur = e;
  for (int depth = 0; depth < 64 && (cur->kind == Kind::Name || cur->kind == Kind::Path); ++depth) {
    auto it = visible_.find(cur->def);
    if (it == visible_.end() || it->second->kind != Kind::Let || ir::let_pattern(*it->second)->kind != Kind::PBind)
      return {};
    cur = ir::let_value(*it->second);
  }
  if (or_array && cur->kind == Kind::ArrayLit) return ir::array_elems(cur);
  if (cur->kind != Kind::TupleLit) return {};
  return ir::tuple_elems(cur);
}

// `__einsum("ij,jk->ik", (A, B))` at the point idx of its result: the sum over the labels not
// in the output of the product of the operands at their labels' indices. nullptr when e is no
// einsum; E013 for an equation or operands only known at run time, or `...`.
NodeRef Tape::einsum_point(const NodeRef& e, const std::vector<NodeRef>& idx) {
  auto b = builtin_call(e);
  if (!b || *b != Builtin::Einsum || (ir::call_args_count(e) != 2 && ir::call_args_count(e) != 3)) return nullptr;
  ir::Kids args = ir::call_args(e);
  // A third argument: the operands were written as an array literal, a list (type_infer).
  bool listed = ir::call_args_count(e) == 3;
  std::optional<std::string> eq = fold_str(args[0], 0, nullptr);
  einsum_eq::Parsed parsed = eq ? einsum_eq::parse_einsum(*eq) : einsum_eq::Parsed{};
  ir::Kids elems = tuple_elements(args[1], listed);
  std::vector<NodeRef> ops(elems.begin(), elems.end());
  // One operand may be given directly (`einsum("ij->ji", A)`), not as a stack of operands.
  if (int rank = ir::rank_of(facts_.type(args[1]));
      !listed && ops.empty() && parsed.eq && parsed.eq->operands.size() == 1 && rank > 0 && parsed.eq->operands[0].fits(rank))
    ops.push_back(args[1]);
  if (!eq || ops.empty())
    unsupported("`" + cx_.sm.snippet(e->span) + "`: an einsum whose equation or operands are known only at run time "
                "(write the equation as a literal and the operands as a tuple)", e->span);
  if (!parsed.eq) unsupported("`" + *eq + "`: an einsum equation that is not well formed: " + parsed.error.why, e->span);
  std::vector<int> ranks;
  for (const NodeRef& o : ops) ranks.push_back(ir::rank_of(facts_.type(o)));
  einsum_eq::Labelled labelled = einsum_eq::label_axes(*parsed.eq, ranks);
  if (!labelled.axes) unsupported("`" + *eq + "`: an einsum whose operands do not match its equation: " + labelled.error.why, e->span);
  const einsum_eq::Axes& axes = *labelled.axes;
  if (axes.output.size() != idx.size())
    unsupported("`" + *eq + "`: an einsum whose result does not match its equation", e->span);
  // The axes `...` stands for are named by letters the equation does not use (index names
  // `es.A`, ...), the k-th such axis by the k-th unused letter.
  std::string fresh;
  for (char c : std::string("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"))
    if (static_cast<int>(fresh.size()) < axes.ellipsis_rank && eq->find(c) == std::string::npos) fresh += c;
  if (static_cast<int>(fresh.size()) < axes.ellipsis_rank) unsupported("`" + *eq + "`: an einsum with too many labels", e->span);
  auto letter = [&](int l) { return l < einsum_eq::kEllipsisBase ? static_cast<char>(l) : fresh[static_cast<size_t>(l - einsum_eq::kEllipsisBase)]; };
  // Each label's index: the result's for output labels, a new summed index for the others
  // (its extent from the first operand that has it; the primal checked the others agree).
  std::map<int, NodeRef> at;
  for (size_t k = 0; k < axes.output.size(); ++k) at[axes.output[k]] = idx[k];
  std::vector<NodeRef> slots;
  for (size_t t = 0; t < ops.size(); ++t) {
    for (size_t a = 0; a < axes.operands[t].size(); ++a) {
      int l = axes.operands[t][a];
      if (at.count(l)) continue;
      std::string nm = std::string("es.") + letter(l);
      DefId d = cx_.resolver.new_def(nm, DefKind::Index, e->span);
      slots.push_back(idx_in(nm, d, irb::lit(0), as_index(extent_of(ops[t], static_cast<int>(a)))));
      at[l] = name(nm, d);
    }
  }
  TypeRef el = ir::elem_of(facts_.type(e));
  NodeRef prod;
  for (size_t t = 0; t < ops.size(); ++t) {
    std::vector<NodeRef> pos;
    for (size_t a = 0; a < axes.operands[t].size(); ++a) {
      int l = axes.operands[t][a];
      // An axis `...` stands for broadcasts when its extent is 1: read it at `i % extent`.
      pos.push_back(l >= einsum_eq::kEllipsisBase ? bin(ir::BinOp::Mod, at[l], as_index(extent_of(ops[t], static_cast<int>(a))))
                                               : at[l]);
    }
    NodeRef r = pointwise(ops[t], pos);
    if (prod) {
      prod = bin(ir::BinOp::Mul, prod, r);
      facts_.note_type(prod->id, el);
    } else {
      prod = r;
    }
  }
  if (slots.empty()) return prod;
  NodeRef red = ad::reduce("sum", prod, slots);
  facts_.note_type(red->id, el);
  return red;
}

// The sizes of `__split(x, sizes, axis)` written as a literal (through the parameters it was
// passed by) and its axis, normalised; nullopt when either is known only at run time.
std::optional<std::pair<std::vector<int64_t>, int>> Tape::split_layout(const NodeRef& call) const {
  auto b = builtin_call(call);
  if (!b || *b != Builtin::Split || ir::call_args_count(call) != 3) return std::nullopt;
  ir::Kids args = ir::call_args(call);
  int r = ir::rank_of(facts_.type(args[0]));
  auto axis = fold_scalar(args[2], 0, nullptr);
  NodeRef sizes = through_renames(args[1]);
  if (sizes->kind == Kind::Name || sizes->kind == Kind::Path)
    if (auto it = visible_.find(sizes->def); it != visible_.end() && it->second->kind == Kind::Let)
      sizes = ir::let_value(*it->second);
  if (r < 1 || !axis) return std::nullopt;
  int a = static_cast<int>(*axis < 0 ? *axis + r : *axis);
  if (a < 0 || a >= r) return std::nullopt;
  std::vector<int64_t> s;
  if (sizes->kind == Kind::IntLit) {
    // n parts (`split(x, 2, 1)`) of ceil(extent / n), the last what is left (ONNX 18, as the
    // primal in builtins_std.cpp): the axis' extent must be known (else the primal's E004
    // leaves nothing to differentiate).
    auto ext = fold_extent(args[0], a);
    int64_t n = sizes->ival, part = n > 0 && ext ? (*ext + n - 1) / n : 0;
    if (!ext || n <= 0 || part * (n - 1) > *ext) return std::nullopt;
    s.assign(static_cast<size_t>(n), part);
    s.back() = *ext - part * (n - 1);
    return std::make_pair(s, a);
  }
  if (sizes->kind != Kind::ArrayLit) return std::nullopt;
  for (const NodeRef& k : ir::array_elems(sizes)) {
    auto v = fold_scalar(k, 0, nullptr);
    if (!v) return std::nullopt;
    s.push_back(*v);
  }
  return std::make_pair(s, a);
}

// `__split(x, [2, 3], axis).k` at a point: x at the same point shifted along the axis by the
// sizes of the parts before k.
NodeRef Tape::split_part(const NodeRef& e, const std::vector<NodeRef>& idx) {
  if (e->kind != Kind::Member || !e->has(ir::kTupleField)) return nullptr;
  const NodeRef& call = ir::member_base(*e);
  auto b = builtin_call(call);
  if (!b || *b != Builtin::Split) return nullptr;
  auto lay = split_layout(call);
  std::vector<NodeRef> at = idx;
  if (!lay) {
    // n parts written as a literal (the part count fixes the tuple's type) of an axis whose
    // extent is known only when it runs (inside a generic function): part k starts at
    // k * ceil(extent / n), computed then (the primal has checked the layout).
    ir::Kids args = ir::call_args(call);
    NodeRef n = through_renames(args[1]);
    if (n->kind == Kind::Name || n->kind == Kind::Path)
      if (auto it = visible_.find(n->def); it != visible_.end() && it->second->kind == Kind::Let)
        n = ir::let_value(*it->second);
    auto axis = fold_scalar(args[2], 0, nullptr);
    int r = ir::rank_of(facts_.type(args[0]));
    int a = axis ? static_cast<int>(*axis < 0 ? *axis + r : *axis) : -1;
    if (n->kind == Kind::IntLit && n->ival > 0 && e->ival >= 0 && e->ival < n->ival && a >= 0 && a < r &&
        idx.size() > static_cast<size_t>(a)) {
      if (e->ival == 0) return pointwise(args[0], at);
      NodeRef up = bin(ir::BinOp::Add, as_index(extent_of(args[0], a)), ir::make_int(n->ival - 1));
      NodeRef part = bin(ir::BinOp::Div, up, ir::make_int(n->ival));
      at[static_cast<size_t>(a)] = bin(ir::BinOp::Add, idx[static_cast<size_t>(a)], bin(ir::BinOp::Mul, ir::make_int(e->ival), part));
      return pointwise(args[0], at);
    }
  }
  if (!lay || e->ival < 0 || e->ival >= static_cast<int64_t>(lay->first.size()) ||
      idx.size() <= static_cast<size_t>(lay->second))
    unsupported("`" + cx_.sm.snippet(e->span) + "`: a part of a split whose sizes or axis are known only at run time",
                e->span);
  int64_t offset = 0;
  for (int64_t k = 0; k < e->ival; ++k) offset += lay->first[static_cast<size_t>(k)];
  if (offset) at[static_cast<size_t>(lay->second)] = bin(ir::BinOp::Add, idx[static_cast<size_t>(lay->second)], ir::make_int(offset));
  return pointwise(ir::call_args(call)[0], at);
}

// `let (a, b) = v;` seen from b: `let b = v.1;` (a split's part, a field of an inlined call's
// tuple), normalised like any let; nullptr for nested patterns.
NodeRef Tape::destructured_part(const NodeRef& let, DefId d) {
  ir::Kids names = ir::ptuple_elems(ir::let_pattern(*let));
  for (size_t k = 0; k < names.size(); ++k) {
    if (names[k]->kind != Kind::PBind || names[k]->def != d) continue;
    const NodeRef& v = ir::let_value(*let);
    NodeRef part = ir::make({.kind = Kind::Member, .span = v->span, .kids = {v}, .ival = static_cast<int64_t>(k),
                             .flags = ir::kTupleField});
    facts_.note_type(part->id, facts_.def_type(d));
    NodeRef one = let_typed(names[k]->name, d, part, facts_.def_type(d));
    one = ir::edited(one, [&](ir::Node& n) { n.span = let->span; });
    if (auto w = stmt_within_.find(let->id); w != stmt_within_.end()) stmt_within_[one->id] = w->second;
    return one;
  }
  return nullptr;
}

// `parts.1` of `let parts = split(v, ..)` (a tuple bound to one name, as NumPy users write
// `parts = np.split(..)`): each field read becomes a name of its own, defined like a
// destructuring let's (`let parts_1 = split(v, ..).1`), so the tape never follows the tuple.
NodeRef Tape::tuple_field_reads(const NodeRef& stmt) {
  if (!stmt) return stmt;
  std::vector<NodeRef> kids;
  bool changed = false;
  for (const NodeRef& k : stmt->kids) {
    kids.push_back(tuple_field_reads(k));
    changed = changed || kids.back() != k;
  }
  NodeRef n = changed ? ir::with_kids(stmt, std::move(kids)) : stmt;
  if (n->kind != Kind::Member || !n->has(ir::kTupleField) || n->ival < 0) return n;
  const NodeRef& base = ir::member_base(*n);
  if (base->kind != Kind::Name || !base->def.valid()) return n;
  TypeRef tt = facts_.def_type(base->def);
  auto vis = visible_.find(base->def);
  if (!tt || tt->k != ir::Type::K::Tuple || static_cast<size_t>(n->ival) >= tt->elems.size() ||
      vis == visible_.end() || vis->second->kind != Kind::Let || ir::let_pattern(*vis->second)->kind != Kind::PBind)
    return n;
  const auto key = std::make_pair(base->def, n->ival);
  auto it = tuple_fields_.find(key);
  if (it == tuple_fields_.end()) {
    const NodeRef& let = vis->second;
    const NodeRef& v = ir::let_value(*let);
    TypeRef ft = tt->elems[static_cast<size_t>(n->ival)];
    std::string nm = base->name + "_" + std::to_string(n->ival);
    DefId d = cx_.resolver.new_def(nm, DefKind::Local, let->span);
    facts_.note_def_type(d, ft);
    NodeRef part = ir::make({.kind = Kind::Member, .span = v->span, .kids = {v}, .ival = n->ival, .flags = ir::kTupleField});
    facts_.note_type(part->id, ft);
    NodeRef one = let_typed(nm, d, part, ft);
    one = ir::edited(one, [&](ir::Node& x) { x.span = let->span; });
    if (auto w = stmt_within_.find(let->id); w != stmt_within_.end()) stmt_within_[one->id] = w->second;
    visible_[d] = one;
    emits_.push_back(one);  // the program has no such binding: the derivative's code computes it
    it = tuple_fields_.emplace(key, d).first;
  }
  NodeRef r = name(cx_.resolver.info(it->second).name, it->second);
  r = ir::edited(r, [&](ir::Node& x) { x.span = n->span; });
  facts_.note_type(r->id, facts_.def_type(it->second));
  return r;
}

}  // namespace ein::ad
