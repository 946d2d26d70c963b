// The types of builtin calls (Infer::builtin_call): per builtin, its result type from its
// arguments' types and, where a literal argument fixes it, that literal (an einsum equation, the
// sizes of a split).

#include "lang/passes/type_infer_impl.h"
#include "lang/syntax/einsum_eq.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;
using ir::Type;
using ir::TypeRef;

TypeRef Infer::builtin_call(Builtin b, const NodeRef& e, std::vector<TypeRef>& args) {
  const char* bname = builtin_info(b).name;
  auto arity = [&](size_t lo, size_t hi) {
    if (args.size() >= lo && args.size() <= hi) return true;
    std::string n = lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi);
    err("E002", std::string("`") + bname + "` takes " + n + " argument" + (hi == 1 ? "" : "s") +
                    " but " + std::to_string(args.size()) + " were given",
        e->span, "wrong number of arguments");
    return false;
  };
  auto arg_span = [&](size_t i) { return ir::call_args(e)[i]->span; };
  if (is_math_intrinsic(b)) {
    bool binary = is_binary_math_intrinsic(b);
    if (!arity(binary ? 2 : 1, binary ? 2 : 1)) return ir::t_unknown();
    TypeRef a = resolved(args[0]);
    TypeRef ea = ir::elem_of(a);
    bool ints_ok = b == Builtin::Abs || b == Builtin::Sign || b == Builtin::Min2 ||
                   b == Builtin::Max2 || b == Builtin::Fmod;
    if (!(ts.is_floatish(ea) || (ints_ok && ts.is_intish(ea)) || resolved(ea)->k == Type::K::Unknown ||
          (ts.is_var(ea) && ts.unify(ea, ts.fresh(ir::VarKind::Float))))) {
      err("E002", std::string("`") + (bname + 2) + "` needs floating-point values, found `" + show(args[0]) + "`",
          arg_span(0), "not a float", "convert with `as f32` or write a float literal such as `16.0`");
      return ir::t_unknown();
    }
    if (!binary) return args[0];
    TypeRef bb = resolved(args[1]);
    if (!ts.unify(ea, ir::elem_of(bb)))
      err("E002", std::string("`") + (bname + 2) + "` arguments have different types: `" +
                      show(args[0]) + "` and `" + show(args[1]) + "`",
          e->span);
    if (a->k == Type::K::Array) return args[0];
    // (A run-time typed first argument, `__max2(x, 0)` with an unannotated load_npy x: the
    // result is its kind of thing, unless the other argument is a known array.)
    if (a->k == Type::K::Unknown && bb->k != Type::K::Array) return ir::t_unknown();
    return args[1];
  }
  switch (b) {
    case Builtin::Print: return ir::t_unit();
    case Builtin::Assert:
      if (!arity(1, 2)) return ir::t_unit();
      expect(ir::t_bool(), args[0], arg_span(0), "an assertion");
      if (args.size() == 2) expect(ir::t_str(), args[1], arg_span(1), "an assertion message");
      return ir::t_unit();
    case Builtin::Len:
    case Builtin::Shape: {
      if (!arity(1, 1)) return ir::t_unknown();
      TypeRef a = resolved(args[0]);
      bool ok = a->k == Type::K::Array || a->k == Type::K::List || a->k == Type::K::Unknown ||
                (b == Builtin::Len && a->k == Type::K::Str) ||
                (b == Builtin::Shape && (a->k == Type::K::Scalar || a->k == Type::K::Var));
      if (!ok)
        err("E002", std::string("`") + bname + "` needs an array, found `" + show(args[0]) + "`",
            arg_span(0));
      return b == Builtin::Len ? ir::t_i32() : ir::t_array(ir::t_i32(), 1);
    }
    case Builtin::Typeof: arity(1, 1); return ir::t_str();
    case Builtin::ArrayAppend: {
      if (!arity(2, 2)) return ir::t_unknown();
      TypeRef a = resolved(args[0]);
      if (a->k == Type::K::Array) {
        TypeRef want = a->rank == 1 ? a->elem : ir::t_array(a->elem, a->rank - 1);
        if (a->rank >= 1 && !ts.unify(want, args[1]))
          err("E002", "`array_append` to `" + show(args[0]) + "` needs a `" + show(want) +
                          "`, found `" + show(args[1]) + "`",
              arg_span(1));
        return args[0];
      }
      if (a->k == Type::K::List) {
        ts.unify(a->elem, args[1]);
        return args[0];
      }
      if (a->k != Type::K::Unknown)
        err("E002", "`array_append` needs an array, found `" + show(args[0]) + "`", arg_span(0));
      return ir::t_unknown();
    }
    case Builtin::Sum:
    case Builtin::Prod:
    case Builtin::Max:
    case Builtin::Min: {
      if (args.size() == 2 && (b == Builtin::Max || b == Builtin::Min)) {
        if (!ts.unify(args[0], args[1]) || !ts.is_numeric(args[0]))
          err("E002", std::string("`") + bname + "` of two values needs two numbers of one type",
              e->span);
        return args[0];
      }
      if (!arity(1, 1)) return ir::t_unknown();
      TypeRef a = resolved(args[0]);
      if (a->k == Type::K::Array || a->k == Type::K::List) return a->elem;
      if (a->k == Type::K::Unknown) return ir::t_unknown();
      err("E002", std::string("`") + bname + "` needs an array, found `" + show(args[0]) + "`",
          arg_span(0), "", std::string("to reduce an expression write `") + bname + "[i](...)`");
      return ir::t_unknown();
    }
    case Builtin::Inf:
    case Builtin::Nan:
    case Builtin::Eps:
    case Builtin::MaxFloat:
    case Builtin::MinFloat: arity(0, 0); return ts.fresh(ir::VarKind::Float);
    case Builtin::LoadNpy:
      if (!arity(1, 1)) return ir::t_unknown();
      expect(ir::t_str(), args[0], arg_span(0), "a path");
      return npy_load(e);
    case Builtin::SaveNpy:
      if (!arity(2, 2)) return ir::t_unit();
      expect(ir::t_str(), args[0], arg_span(0), "a path");
      npy_save(e, args[1]);
      return ir::t_unit();
    case Builtin::ReadFile:
      if (arity(1, 1)) expect(ir::t_str(), args[0], arg_span(0), "a path");
      return ir::t_str();
    case Builtin::WriteFile:
      if (arity(2, 2)) {
        expect(ir::t_str(), args[0], arg_span(0), "a path");
        expect(ir::t_str(), args[1], arg_span(1), "the contents");
      }
      return ir::t_unit();
    case Builtin::FileExists:
      if (arity(1, 1)) expect(ir::t_str(), args[0], arg_span(0), "a path");
      return ir::t_bool();
    case Builtin::ListDir:
      if (arity(1, 1)) expect(ir::t_str(), args[0], arg_span(0), "a path");
      return ir::t_list(ir::t_str());
    case Builtin::Check:
      if (arity(3, 3)) {
        expect(ir::t_bool(), args[0], arg_span(0), "a condition");
        expect(ir::t_str(), args[1], arg_span(1), "an error code");
        expect(ir::t_str(), args[2], arg_span(2), "a message");
      }
      return ir::t_unit();
    case Builtin::FsTest:
    case Builtin::FsStr:
      if (arity(2, 2)) {
        expect(ir::t_str(), args[0], arg_span(0), "an operation");
        expect(ir::t_str(), args[1], arg_span(1), "a path");
      }
      return b == Builtin::FsTest ? ir::t_bool() : ir::t_str();
    case Builtin::FsDo:
      if (arity(3, 3))
        for (int i = 0; i < 3; ++i) expect(ir::t_str(), args[i], arg_span(i), "a string");
      return ir::t_unit();
    case Builtin::FileSize:
      if (arity(1, 1)) expect(ir::t_str(), args[0], arg_span(0), "a path");
      return ir::t_scalar(DType::I64);
    case Builtin::Reshape: {
      // The extents are run-time values, but a shape written as a literal (`[2, 3]`, `[-1, 4]`)
      // fixes the rank, and the elements keep their type: `relu(reshape(x, [2, 3]))` then types
      // relu's literal 0 as the element type (a dynamic result left it i32: E002 at run time).
      // A third argument is the rank the caller promises (checked when it runs): a library
      // function whose shape is computed (`squeeze(x, [0])`) states it in terms of ranks and of
      // literal axis lists, which are known per call.
      // A fourth argument `true` is ONNX Reshape's zero: it copies the input's extent.
      if (!arity(2, 4)) return ir::t_unknown();
      if (args.size() == 4) expect(ir::t_bool(), args[3], arg_span(3), "copy_zeros");
      TypeRef x = resolved(args[0]);
      NodeRef target = literal_arg(ir::call_args(e)[1]);
      if (x->k == Type::K::Array && target && target->kind == Kind::ArrayLit)
        return ir::t_array(x->elem, static_cast<int>(target->kids.size()));
      if (args.size() >= 3) {
        expect(ir::t_scalar(DType::I32), args[2], arg_span(2), "a rank");
        auto r = promised_rank(ir::call_args(e)[2], 0);
        if (x->k == Type::K::Array && r && *r >= 0 && *r <= 64)  // -1: no promise
          return *r == 0 ? x->elem : ir::t_array(x->elem, static_cast<int>(*r));
      }
      return ir::t_unknown();
    }
    case Builtin::Cast: {
      // The type is a run-time value, unless it is written as a name (`cast(x, "float64")`,
      // also passed on through the library's parameter): then x's rank with that type.
      if (!arity(2, 2)) return ir::t_unknown();
      TypeRef x = resolved(args[0]);
      NodeRef to = literal_arg(ir::call_args(e)[1]);
      if (NodeRef n = ir::call_args(e)[1]; !to && n->kind == Kind::IntLit) to = n;
      std::optional<DType> d = !to ? std::nullopt
                               : to->kind == Kind::StrLit ? cast_type_from_name(to->name)
                               : to->kind == Kind::IntLit ? cast_type_from_onnx(to->ival) : std::nullopt;
      if (!d) return ir::t_unknown();
      if (x->k == Type::K::Array) return ir::t_array(ir::t_scalar(*d), x->rank);
      if (ir::is_scalar(x)) return ir::t_scalar(*d);
      return ir::t_unknown();
    }
    case Builtin::Einsum: {
      if (!arity(2, 3)) return ir::t_unknown();
      expect(ir::t_str(), args[0], arg_span(0), "an equation");
      // A literal equation fixes the rank of the result: the letters after `->`, or (implicit
      // form) the letters that occur once. The element type is the operands' common one.
      NodeRef eq = literal_arg(ir::call_args(e)[0]);
      TypeRef ops = resolved(args[1]);
      // Operands written as an array literal (`[a]`, `[a, b]`, here or at the call of the
      // library's einsum) are a list: the run must not read `[a]` as one operand with an extent-1
      // leading axis, which a term with `...` would take (a wrong shape with exit 0 until session
      // 18). The decision reaches the run as a third argument `true` (type_infer.cpp's prune).
      NodeRef in = ir::call_args(e)[1];
      NodeRef listed = listed_operands(in);  // here, or bound by a `let` to a literal
      if (in->kind == Kind::Name && in->def.valid())
        if (auto it = u.literal_args.find(in->def); it != u.literal_args.end() && it->second->kind == Kind::ArrayLit)
          listed = it->second;
      if (listed && ops->k == Type::K::Array && ops->rank >= 1) {
        u.einsum_lists.insert(e->id);
        std::vector<TypeRef> each(listed->kids.size(), ir::t_array(ops->elem, ops->rank - 1));
        if (ops->rank == 1) each.assign(listed->kids.size(), ops->elem);
        ops = ir::t_tuple(each);
      }
      TypeRef el;
      if (ops->k == Type::K::Array) el = ops->elem;
      if (ops->k == Type::K::Tuple && !ops->elems.empty()) {
        for (auto& o : ops->elems) {
          TypeRef r = resolved(o);
          if (r->k != Type::K::Array || (el && !ts.unify(el, r->elem))) {
            el = nullptr;
            break;
          }
          el = r->elem;
        }
      }
      if (!eq || eq->kind != Kind::StrLit || !el) return ir::t_unknown();
      if (TypeRef r = resolved(el); !ir::is_scalar(r) && r->k != Type::K::Var) return ir::t_unknown();
      einsum_eq::Parsed parsed = einsum_eq::parse_einsum(eq->name);
      if (!parsed.eq) return ir::t_unknown();  // the run reports the malformed equation (E006)
      // `...` stands for the axes an operand has beyond its letters; the result has as many as
      // the operand with the most (right-aligned broadcasting), which the operands' ranks fix.
      int ell = 0;
      if (parsed.eq->has_ellipsis()) {
        std::vector<TypeRef> each;
        if (ops->k == Type::K::Tuple) {
          for (auto& o : ops->elems) each.push_back(resolved(o));
        } else {
          each.push_back(ops);
        }
        std::vector<int> ranks;
        for (const TypeRef& t : each) {
          if (t->k != Type::K::Array || t->rank < 0) return ir::t_unknown();
          ranks.push_back(t->rank);
        }
        einsum_eq::Labelled axes = einsum_eq::label_axes(*parsed.eq, ranks);
        if (!axes.axes) return ir::t_unknown();
        ell = axes.axes->ellipsis_rank;
      }
      int rank = parsed.eq->output_rank(ell);
      return rank == 0 ? el : ir::t_array(el, rank);
    }
    case Builtin::Split: {
      // Sizes written as a literal (`[4, 4, 8]`) fix the number of parts; each part keeps x's
      // rank and element type, so `let (q, k, v) = split(..)` feeds library calls statically.
      if (!arity(3, 3)) return ir::t_unknown();
      TypeRef x = resolved(args[0]);
      NodeRef sizes = literal_arg(ir::call_args(e)[1]);
      if (NodeRef n = ir::call_args(e)[1]; !sizes && n->kind == Kind::IntLit) sizes = n;
      if (x->k != Type::K::Array || !sizes) return ir::t_unknown();
      // A count of equal parts written as a literal (`split(x, 2, 1)`) fixes it too.
      size_t parts = sizes->kind == Kind::ArrayLit ? sizes->kids.size()
                     : sizes->kind == Kind::IntLit && sizes->ival > 0 && sizes->ival <= 4096 ? static_cast<size_t>(sizes->ival) : 0;
      if (!parts) return ir::t_unknown();
      return ir::t_tuple(std::vector<TypeRef>(parts, ir::t_array(x->elem, x->rank)));
    }
    case Builtin::Convert: {
      // x's rank with the element type of `like`: static, unlike a cast to a named type.
      if (!arity(2, 2)) return ir::t_unknown();
      TypeRef x = resolved(args[0]);
      TypeRef el = ir::elem_of(resolved(args[1]));
      // A float literal converted to like's type is written in that type: `conv(x_f64, w,
      // [0.3], ..)` adds the f64 0.3, not the f32 0.3 widened (a literal takes its context's
      // type; an unconstrained one would default to f32 first). Integer literals stay integers.
      if (TypeRef ex = ir::elem_of(x); ex && el && ts.is_var(ex) && ts.is_floatish(ex) && ts.is_floatish(el))
        ts.unify(ex, el);
      if (x->k == Type::K::Array) return ir::t_array(el, x->rank);
      if (x->k == Type::K::Unknown || !el) return ir::t_unknown();
      return el;
    }
    case Builtin::Argsort: {
      // __argsort(x, axis, descending[, k]): i32 indices of x's rank, the axis cut to its
      // first k positions when k is given (engine/interp/builtins_sort.cpp).
      if (!arity(3, 4)) return ir::t_unknown();
      expect(ir::t_scalar(DType::I32), args[1], arg_span(1), "an axis");
      expect(ir::t_bool(), args[2], arg_span(2), "the direction (descending)");
      if (args.size() == 4) expect(ir::t_scalar(DType::I32), args[3], arg_span(3), "a count k");
      TypeRef x = resolved(args[0]);
      if (x->k == Type::K::Array) return ir::t_array(ir::t_scalar(DType::I32), x->rank);
      return ir::t_unknown();
    }
    case Builtin::Promote: {
      // __promote(x, "float"): NumPy's float for an integer or bool x (np.mean, np.sqrt of ints
      // give float64), x itself when it is a float. __promote(x, "int"): bools as i32 (np.sum
      // and np.cumsum count them), x itself otherwise. Decided per specialisation from x's
      // static type; type_infer rewrites the call into x or `x as [T]`, so no later pass sees it.
      // A run-time typed x keeps the call (engine/interp/builtins_std.cpp).
      if (!arity(2, 2)) return ir::t_unknown();
      const NodeRef& m = ir::call_args(e)[1];
      bool to_float = m->kind == Kind::StrLit && m->name == "float";
      if (m->kind != Kind::StrLit || (!to_float && m->name != "int")) {
        err("E002", "`__promote` takes \"float\" or \"int\" as a literal", arg_span(1), "not a mode");
        return ir::t_unknown();
      }
      TypeRef x = resolved(args[0]);
      if (x->k != Type::K::Array && x->k != Type::K::Scalar && x->k != Type::K::Var) return ir::t_unknown();
      // Only a known integer or bool type converts, or integer literals already used as
      // integers (indices, ranges: IntOnly); a free integer literal (`sqrt(2)`) stays a literal,
      // which the float operation then types by its context (`x_f32 * sqrt(2)` is f32).
      TypeRef ex = resolved(ir::elem_of(x));
      bool known = ex && ex->k == Type::K::Scalar;
      bool is_bool = known && ex->dtype == DType::Bool;
      bool int_only = ex && ts.is_int_only(ex);
      TypeRef to;
      if (to_float && (int_only || (known && (is_bool || is_int(ex->dtype))))) to = ir::t_scalar(DType::F64);
      if (!to_float && is_bool) to = ir::t_scalar(DType::I32);
      u.promotes[e->id] = to;
      if (!to) return args[0];
      return x->k == Type::K::Array ? ir::t_array(to, x->rank) : to;
    }
    case Builtin::IsInt:
    case Builtin::IsBool:
      // __is_int(x): is x's element type an integer (not bool, not float)? __is_bool(x): is it
      // bool? A bool, decided statically in an `if` condition when the type is known
      // (Infer::static_bool).
      if (!arity(1, 1)) return ir::t_unknown();
      return ir::t_bool();
    default: return ir::t_unknown();
  }
}

}  // namespace ein
