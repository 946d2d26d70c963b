// Expressions: every value is computed exactly as engine/value computes it (SPEC §3-4), at the
// operand's own precision, with integer arithmetic wrapping and checked division.
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"
#include "lang/ir/member_field.h"
#include "lang/ir/visitor.h"
#include "lang/passes/context.h"

namespace ein::codegen {

using ir::BinOp;
using ir::Kind;
using ir::NodeRef;

namespace {

// Smallest b with |v| < 2^b.
int magnitude_bits(int64_t v) {
  if (v == 0) return 0;
  const uint64_t m = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return 64 - __builtin_clzll(m);
}

std::string float_lit(double v, DType dt) {
  char buf[64];
  if (dt == DType::F64) {
    if (std::isnan(v)) return "__builtin_nan(\"\")";
    if (std::isinf(v)) return v > 0 ? "__builtin_inf()" : "(-__builtin_inf())";
    std::snprintf(buf, sizeof buf, "%a", v);
    return v < 0 ? std::string("(") + buf + ")" : buf;
  }
  float f = static_cast<float>(v);
  if (std::isnan(f)) return "__builtin_nanf(\"\")";
  if (std::isinf(f)) return f > 0 ? "__builtin_inff()" : "(-__builtin_inff())";
  std::snprintf(buf, sizeof buf, "%af", static_cast<double>(f));
  return f < 0 ? std::string("(") + buf + ")" : buf;
}

std::string int_lit(int64_t v, DType dt) {
  switch (dt) {
    case DType::I8: return "((i8)" + std::to_string(static_cast<int8_t>(v)) + ")";
    case DType::I32: return "((i32)" + std::to_string(static_cast<int32_t>(v)) + ")";
    case DType::Bool: return v ? "true" : "false";
    default:
      if (v == INT64_MIN) return "INT64_MIN";
      return "((i64)" + std::to_string(v) + "LL)";
  }
}

const char* unsigned_of(DType dt) {
  switch (dt) {
    case DType::I8: return "uint8_t";
    case DType::I32: return "uint32_t";
    default: return "uint64_t";
  }
}

}  // namespace

DType Gen::dtype_of(const NodeRef& e) const {
  if (e->dt >= 0) return static_cast<DType>(e->dt);
  ir::TypeRef t = unit->type(e);
  ir::TypeRef el = ir::elem_of(t);
  if (el && el->k == ir::Type::K::Scalar && ir::rank_of(t) == 0) return el->dtype;
  unsupported(std::string("a value of unknown or non-scalar type (") + ir::kind_name(e->kind) + ")");
}

bool Gen::int_ir(const NodeRef& e) const {
  if (e->kind == Kind::IMin || e->kind == Kind::IMax || e->kind == Kind::DimOf) return true;
  if (e->dt >= 0) return false;
  ir::TypeRef t = unit->type(e);
  if (t && ir::rank_of(t) == 0 && ir::elem_of(t) && ir::elem_of(t)->k == ir::Type::K::Scalar) return false;
  if (e->kind == Kind::IntLit) return true;
  if (e->kind == Kind::Unary) return int_ir(ir::unary_operand(*e));
  if (e->kind == Kind::Binary) {
    auto op = static_cast<BinOp>(e->ival);
    return (op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul) && (int_ir(ir::bin_lhs(*e)) || int_ir(ir::bin_rhs(*e)));
  }
  return false;
}

Val Gen::convert(const Val& v, DType to) {
  if (!kernel_dtype(to) || !kernel_dtype(v.dt)) unsupported("f16/bf16 values");
  DType from = v.index ? DType::I64 : v.dt;
  if (from == to && !v.index) return v;
  std::string x = v.c, e;
  if (from == DType::Bool) {
    e = to == DType::Bool ? x : std::string("((") + ctype(to) + ")(" + x + " ? 1 : 0))";
  } else if (to == DType::Bool) {
    e = "(" + x + " != 0)";
  } else if (is_int(from)) {
    e = std::string("((") + ctype(to) + ")" + x + ")";  // int->int wraps; int->float rounds once
  } else if (is_int(to)) {
    e = std::string("ein_f2") + ctype(to) + "((double)" + x + ")";
  } else {
    e = std::string("((") + ctype(to) + ")" + x + ")";
  }
  Val r = em.define(to, ctype(to), e, v.level, Motion::Cheap);
  return r;
}

const Val* Gen::lookup(ir::DefId d) const {
  for (size_t i = env_.size(); i-- > 0;)
    if (env_[i].first == d) return &env_[i].second;
  return nullptr;
}

Val Gen::value(const NodeRef& e) {
  if (!clamp_at_.empty())
    if (auto it = clamp_at_.find(e->id); it != clamp_at_.end()) return convert(clamp_value(it->second), dtype_of(e));
  if (!row_terms_.empty() && !keeping_)
    if (auto rt = row_terms_.find(e->id); rt != row_terms_.end()) return row_read(e, rt->second);
  auto g = unit->common.find(e->id);
  if (g == unit->common.end()) return compute(e);
  // The group and what its names and reads stand for here: a fused producer's body or an inlined
  // function is printed once per use with other bindings, a register tile's body once per row
  // with other values of its reads (read_subst_).
  std::string key = "cse#" + std::to_string(g->second);
  ir::for_each_node(e, [&](const NodeRef& x) {
    if (x->kind == Kind::Index)
      if (auto sub = read_subst_.find(x->id); sub != read_subst_.end()) key += "|=" + sub->second.c;
    if (x->kind != Kind::Name) return;
    const Val* v = lookup(x->def);
    key += "|" + (v ? v->c : std::string());
  });
  if (const Val* hit = em.planned(key)) return *hit;
  Val v = compute(e);
  em.keep(key, v);
  return v;
}

Val Gen::compute(const NodeRef& e) {
  switch (e->kind) {
    case Kind::IntLit: {
      DType dt = dtype_of(e);
      if (is_float(dt)) return literal(float_lit(static_cast<double>(e->ival), dt), dt);
      Val v = literal(int_lit(e->ival, dt), dt);
      v.is_const = true;
      v.ival = e->ival;
      return v;
    }
    case Kind::FloatLit: {
      DType dt = dtype_of(e);
      if (!is_float(dt)) unsupported("a float literal in integer context");
      return literal(float_lit(e->fval, dt), dt);
    }
    case Kind::BoolLit: return literal(e->ival ? "true" : "false", DType::Bool);
    case Kind::Name: {
      if (local_of(e->def) || is_local_def(e->def)) unsupported("a block-local array used whole");
      if (const Val* v = lookup(e->def)) {
        if (!v->index) return *v;
        // Loop variables made by passes may carry no type: index variables are i32 values.
        DType dt = DType::I32;
        if (e->dt >= 0) dt = static_cast<DType>(e->dt);
        else if (auto it = unit->def_types.find(e->def); it != unit->def_types.end() && ir::is_scalar(it->second))
          dt = it->second->dtype;
        return convert(*v, dt);
      }
      if (buf_alias.count(def_key(e->def)) || fusion.producers.count(e->def))
        unsupported("a whole tensor used as a value");
      return scalar_of(e);
    }
    case Kind::Binary: return binary(e);
    case Kind::Unary: return unary(e);
    case Kind::Cast: return cast(e);
    case Kind::Call: return call(e);
    case Kind::Index: return load(e);
    case Kind::Member: return member(e);
    case Kind::If: return if_expr(e);
    case Kind::Block: return block(e);
    case Kind::LReduce: {
      if (auto sub = read_subst_.find(e->id); sub != read_subst_.end()) return sub->second;  // a tile's sum
      auto pre = precomputed_.find(e->id);
      if (pre != precomputed_.end()) return load_precomputed(e, pre->second);
      return reduce(e);
    }
    case Kind::LLetIn: {
      size_t m = mark();
      bind(e->def, value(ir::lletin_value(*e)));
      Val v = value(ir::lletin_body(*e));
      unbind_to(m);
      return v;
    }
    case Kind::DimOf:
    case Kind::IMin:
    case Kind::IMax: {
      Val i = index(e);
      return convert(i, e->dt >= 0 ? static_cast<DType>(e->dt) : DType::I64);
    }
    default: unsupported(std::string("`") + ir::kind_name(e->kind) + "` in a kernel");
  }
}

Val Gen::index(const NodeRef& e) {
  if (!clamp_at_.empty())
    if (auto it = clamp_at_.find(e->id); it != clamp_at_.end()) return clamp_value(it->second);
  auto idx = [&](const std::string& c, int level, int bits) {
    Val v = em.define(DType::I64, "int64_t", c, level, Motion::Cheap);
    v.index = true;
    v.bits = bits;
    return v;
  };
  // Index and bound arithmetic is exact, as in the interpreter: when the magnitudes known for
  // the operands cannot reach 2^63 (loop variables, extents, literals, i32 values) it is plain
  // signed C, which keeps `x[i + 1]` affine for the vectoriser; otherwise the whole expression
  // is computed in 128 bits and narrowed once, a result outside i64 stopping the kernel with
  // E006 (it may fail, so it is not moved). `n + n - n` is n, as in the interpreter.
  auto is_arith = [](const NodeRef& x) {
    if (x->kind == Kind::Unary) return static_cast<ir::UnOp>(x->ival) == ir::UnOp::Neg;
    if (x->kind != Kind::Binary) return false;
    auto op = static_cast<BinOp>(x->ival);
    return op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul;
  };
  if (is_arith(e) && index_bits(e) > 63) {
    int st = site(e->span, "E006", "integer overflow: an index or bound is outside the range of i64");
    Val v = em.define(DType::I64, "int64_t",
                      "ein_narrow(A, " + std::to_string(st) + ", " + ord() + ", " + wide_index(e, st) + ")",
                      em.depth(), Motion::Pinned);
    v.index = true;
    return v;
  }
  switch (e->kind) {
    case Kind::IntLit: {
      Val v = literal(e->ival == INT64_MIN ? "INT64_MIN" : std::to_string(e->ival) + "LL", DType::I64);
      v.index = true;
      v.bits = magnitude_bits(e->ival);
      return v;
    }
    case Kind::Name: {
      if (const Val* v = lookup(e->def))
        if (v->index) return *v;
      break;
    }
    case Kind::Binary: {
      auto op = static_cast<BinOp>(e->ival);
      if (op != BinOp::Add && op != BinOp::Sub && op != BinOp::Mul) break;
      Val a = index(ir::bin_lhs(*e)), b = index(ir::bin_rhs(*e));
      const char* o = op == BinOp::Add ? " + " : op == BinOp::Sub ? " - " : " * ";
      return idx("(" + a.c + o + b.c + ")", std::max(a.level, b.level),
                 op == BinOp::Mul ? a.bits + b.bits : std::max(a.bits, b.bits) + 1);
    }
    case Kind::Unary:
      if (static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg) {
        Val a = index(ir::unary_operand(*e));
        return idx("(-(" + a.c + "))", a.level, a.bits);
      }
      break;
    case Kind::IMin:
    case Kind::IMax: {
      Val a = index(ir::iminmax_a(e)), b = index(ir::iminmax_b(e));
      return idx(std::string(e->kind == Kind::IMin ? "ein_imin(" : "ein_imax(") + a.c + ", " + b.c + ")",
                 std::max(a.level, b.level), std::max(a.bits, b.bits));
    }
    case Kind::DimOf: {
      if (ir::dimof_tensor(*e)->kind != Kind::Name) unsupported("the extent of a computed value");
      return dim_of(ir::dimof_tensor(*e), static_cast<int>(e->ival));
    }
    default: break;
  }
  Val v = value(e);
  if (is_float(v.dt)) unsupported("a float used as an index");
  Val r = convert(v, DType::I64);
  r.index = true;
  r.bits = v.dt == DType::I32 ? 31 : v.dt == DType::I8 ? 7 : v.dt == DType::Bool ? 1 : 64;
  return r;
}

int Gen::index_bits(const NodeRef& e) {
  switch (e->kind) {
    case Kind::IntLit: return magnitude_bits(e->ival);
    case Kind::Name:
      if (const Val* v = lookup(e->def))
        if (v->index) return v->bits;
      break;
    case Kind::Binary: {
      auto op = static_cast<BinOp>(e->ival);
      if (op == BinOp::Add || op == BinOp::Sub) return std::max(index_bits(ir::bin_lhs(*e)), index_bits(ir::bin_rhs(*e))) + 1;
      if (op == BinOp::Mul) return std::min(128, index_bits(ir::bin_lhs(*e)) + index_bits(ir::bin_rhs(*e)));
      break;
    }
    case Kind::Unary:
      if (static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg) return index_bits(ir::unary_operand(*e));
      break;
    case Kind::IMin:
    case Kind::IMax: return std::max(index_bits(ir::iminmax_a(e)), index_bits(ir::iminmax_b(e)));
    case Kind::DimOf: return kExtentBits;
    default: break;
  }
  DType dt = dtype_of(e);
  return dt == DType::I32 ? 31 : dt == DType::I8 ? 7 : dt == DType::Bool ? 1 : 64;
}

std::string Gen::wide_index(const NodeRef& e, int site) {
  const std::string pre = "(A, " + std::to_string(site) + ", " + ord() + ", ";
  if (e->kind == Kind::Binary) {
    auto op = static_cast<BinOp>(e->ival);
    if (op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul)
      return std::string(op == BinOp::Add ? "ein_wadd" : op == BinOp::Sub ? "ein_wsub" : "ein_wmul") + pre +
             wide_index(ir::bin_lhs(*e), site) + ", " + wide_index(ir::bin_rhs(*e), site) + ")";
  }
  if (e->kind == Kind::Unary && static_cast<ir::UnOp>(e->ival) == ir::UnOp::Neg)
    return "ein_wsub" + pre + "0, " + wide_index(ir::unary_operand(*e), site) + ")";
  return "(__int128)" + index(e).c;
}

Val Gen::dim_of(const NodeRef& base, int axis) {
  if (const Local* L = local_of(base->def)) {
    if (axis < 0 || axis >= static_cast<int>(L->ext.size())) unsupported("axis out of rank");
    Val v = literal(L->ext[static_cast<size_t>(axis)], DType::I64);
    v.index = true;
    v.bits = kExtentBits;
    return v;
  }
  auto fp = fusion.producers.find(base->def);
  if (fp != fusion.producers.end()) {
    const ir::Kids extents = ir::lshape_extents(ir::ltensor_shape(fp->second));
    if (axis < 0 || axis >= static_cast<int>(extents.size())) unsupported("axis out of rank");
    return index(extents[static_cast<size_t>(axis)]);
  }
  int b = buffer_of(base);
  BufArg& B = k.bufs[static_cast<size_t>(b)];
  if (axis < 0 || axis >= B.rank) unsupported("axis out of rank");
  // Small extents known before the run (a 3x3 filter) become constants, so loops over them
  // unroll; the kernel checks them at entry and declines other sizes.
  auto shape = static_shape(cx, *unit, base->def);
  if (shape && axis < static_cast<int>(shape->size()) && !(axis == 0 && B.windowed)) {
    int64_t n = (*shape)[static_cast<size_t>(axis)];
    if (n >= 0 && n <= 64) {
      B.fixed.resize(static_cast<size_t>(B.rank), -1);
      B.fixed[static_cast<size_t>(axis)] = n;
      Val v = literal(std::to_string(n) + "LL", DType::I64);
      v.index = true;
      v.bits = kExtentBits;
      return v;
    }
  }
  Val v = literal(extent(b, axis), DType::I64);
  v.index = true;
  v.bits = kExtentBits;  // extents of allocated tensors
  return v;
}

Val Gen::binary(const NodeRef& e) {
  auto op = static_cast<BinOp>(e->ival);
  if (op == BinOp::And || op == BinOp::Or) return logic(e, op == BinOp::And);
  if (op == BinOp::In) unsupported("`in` in a kernel");
  const bool compare = op == BinOp::Eq || op == BinOp::Ne || op == BinOp::Lt || op == BinOp::Le ||
                       op == BinOp::Gt || op == BinOp::Ge;
  // Comparisons of integer IR built by passes (range and base-case checks: untyped literals,
  // IMin/IMax/DimOf) compare exact index values, as the interpreter's checks do.
  const NodeRef& lhs = ir::bin_lhs(*e);
  const NodeRef& rhs = ir::bin_rhs(*e);
  if (compare && (int_ir(lhs) || int_ir(rhs))) {
    Val a = index(lhs), b = index(rhs);
    const char* c = op == BinOp::Eq ? "==" : op == BinOp::Ne ? "!=" : op == BinOp::Lt ? "<"
                  : op == BinOp::Le ? "<=" : op == BinOp::Gt ? ">" : ">=";
    return em.define(DType::Bool, "bool", "(" + a.c + " " + c + " " + b.c + ")", std::max(a.level, b.level),
                     Motion::Cheap);
  }
  Val a = value(lhs), b = value(rhs);
  int level = std::max(a.level, b.level);
  const char* cmp = nullptr;
  switch (op) {
    case BinOp::Eq: cmp = "=="; break;
    case BinOp::Ne: cmp = "!="; break;
    case BinOp::Lt: cmp = "<"; break;
    case BinOp::Le: cmp = "<="; break;
    case BinOp::Gt: cmp = ">"; break;
    case BinOp::Ge: cmp = ">="; break;
    default: break;
  }
  if (cmp) {
    if (a.dt != b.dt) {
      DType common = (is_float(a.dt) || is_float(b.dt)) ? DType::F64 : DType::I64;
      a = convert(a, common);
      b = convert(b, common);
    }
    return em.define(DType::Bool, "bool", "(" + a.c + " " + cmp + " " + b.c + ")", level,
                     Motion::Cheap);
  }
  return arith(op, a, b, dtype_of(e), e);
}

Val Gen::arith(BinOp op, const Val& a, const Val& b, DType dt, const NodeRef& e) {
  int level = std::max(a.level, b.level);
  const std::string T = ctype(dt);
  if (op == BinOp::Pow) {
    if (is_float(a.dt) && a.dt == dt && e && e->kind == Kind::Binary && ir::bin_rhs(e)->kind == Kind::IntLit &&
        ir::bin_rhs(e)->ival == 2) {
      // x ** 2 below: the double square of a float is exact (48 significant bits), so its one
      // rounding gives the float square bit for bit — and a float multiply vectorises at full
      // width where pow's double round trip runs at half width with two conversions. (A double
      // square is what GCC makes of pow(x, 2.0) anyway.)
      return em.define(dt, T, "(" + a.c + " * " + a.c + ")", level, Motion::Cheap);
    }
    if (is_float(a.dt) && is_int(b.dt)) {
      // engine/value: float ** int is computed in double and rounded once.
      return em.define(dt, T, "((" + T + ")pow((double)" + a.c + ", (double)" + b.c + "))", level,
                       Motion::Costly);
    }
    if (is_float(a.dt) && a.dt == b.dt)
      return em.define(dt, T, std::string(dt == DType::F32 ? "powf(" : "pow(") + a.c + ", " + b.c + ")",
                       level, Motion::Costly);
    if (is_int(a.dt) && is_int(b.dt)) {
      int s = site(e->span);
      return em.define(dt, T, "ein_ipow_" + T + "(A, " + std::to_string(s) + ", " + ord() + ", " + a.c +
                                  ", (int64_t)" + b.c + ")",
                       em.depth(), Motion::Pinned);
    }
    unsupported("`**` on these types");
  }
  if (a.dt != dt || b.dt != dt) unsupported("mixed operand types");
  if (is_float(dt)) {
    const char* o = op == BinOp::Add ? "+" : op == BinOp::Sub ? "-" : op == BinOp::Mul ? "*"
                  : op == BinOp::Div ? "/" : nullptr;
    if (o) return em.define(dt, T, "(" + a.c + " " + o + " " + b.c + ")", level, Motion::Cheap);
    if (op == BinOp::Mod)
      return em.define(dt, T, std::string(dt == DType::F32 ? "fmodf(" : "fmod(") + a.c + ", " + b.c + ")",
                       level, Motion::Costly);
    unsupported("this float operator");
  }
  if (!is_int(dt)) unsupported("arithmetic on bool");
  if (op == BinOp::Div || op == BinOp::Mod) {
    // A literal divisor other than 0 and -1 cannot fail or overflow: plain C, freely moved.
    if (b.is_const && b.ival != 0 && b.ival != -1 && b.ival == static_cast<int64_t>(static_cast<int32_t>(b.ival)))
      return em.define(dt, T, "((" + T + ")(" + a.c + (op == BinOp::Div ? " / " : " % ") + b.c + "))", level,
                       Motion::Cheap);
    // A divisor the entry test found to be neither 0 nor -1 (gen_check.cpp): plain C too, but
    // never above the test.
    if (e && e->kind == Kind::Binary && safe_divisor(ir::bin_rhs(e)))
      return em.define(dt, T, "((" + T + ")(" + a.c + (op == BinOp::Div ? " / " : " % ") + b.c + "))",
                       std::max(level, assume_level_), Motion::Cheap);
    int s = site(e->span);
    std::string f = std::string(op == BinOp::Div ? "ein_div_" : "ein_rem_") + T;
    return em.define(dt, T, f + "(A, " + std::to_string(s) + ", " + ord() + ", " + a.c + ", " + b.c + ")",
                     em.depth(), Motion::Pinned);
  }
  const char* o = op == BinOp::Add ? "+" : op == BinOp::Sub ? "-" : op == BinOp::Mul ? "*" : nullptr;
  if (!o) unsupported("this integer operator");
  std::string U = unsigned_of(dt);
  std::string x = dt == DType::I8 ? "((i8)((int)" + a.c + " " + o + " (int)" + b.c + "))"
                                  : "((" + T + ")((" + U + ")" + a.c + " " + o + " (" + U + ")" + b.c + "))";
  return em.define(dt, T, x, level, Motion::Cheap);
}

Val Gen::logic(const NodeRef& e, bool is_and) {
  // Short circuit: the right operand may fail (e.g. `i > 0 && x[i - 1] > 0`), so it is
  // evaluated only when needed; its pure parts may still be hoisted.
  Val a = value(ir::bin_lhs(*e));
  std::string r = em.fresh("c");
  em.line("bool " + r + " = " + a.c + ";");
  em.open(std::string("if (") + (is_and ? "" : "!") + r + ") {", true);
  Val b = value(ir::bin_rhs(*e));
  em.line(r + " = " + b.c + ";");
  em.close();
  return Val{r, DType::Bool, em.depth()};
}

Val Gen::unary(const NodeRef& e) {
  Val a = value(ir::unary_operand(*e));
  if (static_cast<ir::UnOp>(e->ival) == ir::UnOp::Not)
    return em.define(DType::Bool, "bool", "(!" + a.c + ")", a.level, Motion::Cheap);
  DType dt = a.dt;
  const std::string T = ctype(dt);
  if (is_float(dt)) return em.define(dt, T, "(-" + a.c + ")", a.level, Motion::Cheap);
  if (!is_int(dt)) unsupported("negation of a bool");
  if (dt == DType::I8) return em.define(dt, T, "((i8)(-(int)" + a.c + "))", a.level, Motion::Cheap);
  std::string U = unsigned_of(dt);
  return em.define(dt, T, "((" + T + ")((" + U + ")0 - (" + U + ")" + a.c + "))", a.level, Motion::Cheap);
}

Val Gen::cast(const NodeRef& e) {
  const NodeRef& type = ir::cast_type(*e);
  auto to = dtype_from_name(type->kind == Kind::TyPrim ? type->name : "");
  if (!to) unsupported("a cast to a non-scalar type");
  return convert(value(ir::cast_expr(*e)), *to);
}

Val Gen::if_expr(const NodeRef& e) {
  if (!ir::if_else(*e)) unsupported("`if` without `else` as a value");
  DType dt = dtype_of(e);
  // Decided before the loops (unswitch.cpp): only the branch this copy of them takes.
  if (auto f = forced_if_.find(e->id); f != forced_if_.end())
    return convert(value(f->second ? ir::if_then(*e) : ir::if_else(*e)), dt);
  Val c = value(ir::if_cond(*e));
  std::string r = em.fresh("v");
  em.line(std::string(ctype(dt)) + " " + r + " = 0;");
  em.open("if (" + c.c + ") {", true);
  Val a = convert(value(ir::if_then(*e)), dt);
  em.line(r + " = " + a.c + ";");
  em.close();
  // Not `else`: values hoisted out of the branch land between the two scopes.
  em.open("if (!" + c.c + ") {", true);
  Val b = convert(value(ir::if_else(*e)), dt);
  em.line(r + " = " + b.c + ";");
  em.close();
  return Val{r, dt, em.depth()};
}

Val Gen::block(const NodeRef& e) {
  if (!e->has(ir::kHasTail) || e->kids.empty()) unsupported("a block without a value");
  size_t m = mark();
  std::vector<std::string> filled;  // block-local arrays: gone with the block
  for (const NodeRef& s : ir::block_stmts(e).first(e->kids.size() - 1)) {
    if (!s || s->kind == Kind::LNop) continue;
    if (s->kind == Kind::LCheck) {
      // Run-time checks passes put in blocks (recurrence_cover's base cases): the same code.
      emit_check(s);
      continue;
    }
    if (s->kind == Kind::LTensor) {
      local_tensor(s);  // gen_local.cpp
      filled.push_back(def_key(s->def));
      continue;
    }
    if (s->kind != Kind::Let || ir::let_pattern(*s)->kind != Kind::PBind)
      unsupported(std::string("a `") + ir::kind_name(s->kind) + "` statement in a kernel block");
    bind(ir::let_pattern(*s)->def, value(ir::let_value(*s)));
  }
  Val v = value(e->kids.back());
  unbind_to(m);
  for (const std::string& key : filled) locals_.erase(key);
  return v;
}

Val Gen::member(const NodeRef& e) {
  const NodeRef& base = ir::member_base(*e);
  if (base->kind != Kind::Name) unsupported("a member of a computed value");
  const ir::MemberField field = ir::member_field(e);
  if (field != ir::MemberField::Length && field != ir::MemberField::Size && field != ir::MemberField::Rank)
    unsupported("member ." + e->name);
  if (const Local* L = local_of(base->def)) {
    std::string x = field == ir::MemberField::Rank ? std::to_string(L->ext.size()) : L->ext[0];
    if (field == ir::MemberField::Size)
      for (size_t a = 1; a < L->ext.size(); ++a) x = "ein_imul(" + x + ", " + L->ext[a] + ")";
    return em.define(DType::I32, "i32", "((i32)" + x + ")", L->level, Motion::Cheap);
  }
  int b = buffer_of(base);
  int rank = k.bufs[static_cast<size_t>(b)].rank;
  std::string x;
  if (field == ir::MemberField::Rank) {
    x = std::to_string(rank);
  } else if (field == ir::MemberField::Length) {
    x = rank == 0 ? "1" : extent(b, 0);
  } else {
    x = "1";
    for (int a = 0; a < rank; ++a) x = "ein_imul(" + x + ", " + extent(b, a) + ")";
  }
  return em.define(DType::I32, "i32", "((i32)" + x + ")", 0, Motion::Cheap);
}

}  // namespace ein::codegen
