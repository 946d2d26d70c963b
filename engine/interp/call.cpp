// Calls: statically resolved specialisations, closures, builtins and std intrinsics.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <limits>

#include "engine/interp/interp_impl.h"
#include "lang/diag/call_site.h"
#include "engine/interp/safe_file.h"

namespace ein {

using ir::Kind;
using ir::NodeRef;

Value Interpreter::Impl::fn_value(ir::DefId d) {
  auto c = std::make_shared<Closure>();
  c->def = d;
  c->name = cx.resolver.info(d).name;
  c->kind = builtin_of(d) ? Closure::Kind::Builtin : Closure::Kind::Fn;
  return Value::func(c);
}

Value Interpreter::Impl::make_lambda(const NodeRef& l) {
  auto c = std::make_shared<Closure>();
  c->kind = Closure::Kind::Lambda;
  c->lambda = l;
  auto lc = cx.sm.start(l->span);
  c->name = "lambda@" + std::to_string(lc.line) + ":" + std::to_string(lc.col);
  c->capture_defs = cx.resolver.captures(l->id);
  for (auto& d : c->capture_defs) {
    auto it = unit->slot_of.find(d);
    if (it != unit->slot_of.end()) {
      c->captures.push_back((*frame)[static_cast<size_t>(it->second)]);
    } else if (auto g = env.globals.find(d); g != env.globals.end()) {
      c->captures.push_back(g->second);
    } else {
      c->captures.push_back(Value::unit());
    }
  }
  return Value::func(c);
}

Value Interpreter::Impl::call_unit(Unit* spec, std::vector<Value>& args, const Value* callee) {
  if (depth >= opt.max_depth) {
    depth_exceeded = true;
    fault("E007", "recursion limit exceeded (" + std::to_string(opt.max_depth) + " nested calls)");
  }
  check_interrupt();
  std::vector<Value> f(static_cast<size_t>(spec->frame_size));
  for (size_t i = 0; i < spec->params.size() && i < args.size(); ++i) {
    auto it = spec->slot_of.find(spec->params[i]);
    if (it != spec->slot_of.end()) f[static_cast<size_t>(it->second)] = std::move(args[i]);
  }
  if (callee && callee->tag == Value::Tag::Func) {
    const auto& c = static_cast<const Closure&>(callee->func_ref());
    for (size_t i = 0; i < c.capture_defs.size() && i < c.captures.size(); ++i) {
      auto it = spec->slot_of.find(c.capture_defs[i]);
      if (it != spec->slot_of.end()) f[static_cast<size_t>(it->second)] = c.captures[i];
    }
  }
  Unit* saved_unit = unit;
  std::vector<Value>* saved_frame = frame;
  uint64_t saved_gen = frame_gen;
  unit = spec;
  frame = &f;
  frame_gen = ++frames_made;  // never reused, unlike the frame's address
  ++depth;
  struct Restore {
    Impl& s;
    Unit* u;
    std::vector<Value>* f;
    uint64_t g;
    size_t memo_mark;
    ~Restore() {
      s.drop_invariants(memo_mark);  // kept for this frame only: its number is never reused
      s.unit = u;
      s.frame = f;
      s.frame_gen = g;
      --s.depth;
    }
  } restore{*this, saved_unit, saved_frame, saved_gen, invariant_log.size()};
  return eval(spec->lowered);
}

Value Interpreter::Impl::call(const NodeRef& e) {
  if (e->has(ir::kInvariantCall)) {
    // Its value depends on fewer loop variables than the point (lang/passes/memo_plan.h).
    std::vector<Value> key = memo_key(e);
    if (const Value* v = memo_find(e, key)) return *v;
    Value v = call_uncached(e);
    memo_keep(e, std::move(key), v);
    return v;
  }
  return call_uncached(e);
}

Value Interpreter::Impl::call_uncached(const NodeRef& e) {
  Value callee = eval(ir::call_callee(e));
  std::vector<Value> args;
  args.reserve(ir::call_args_count(e));
  for (const NodeRef& a : ir::call_args(e)) args.push_back(eval(a));
  if (callee.tag != Value::Tag::Func) fault("E002", "called value is not a function");
  const auto& c = static_cast<const Closure&>(callee.func_ref());
  if (c.kind == Closure::Kind::Builtin) return builtin(*builtin_of(c.def), e, args);
  auto it = unit->call_targets.find(e->id);
  if (it == unit->call_targets.end()) fault("E011", "no compiled target for this call");
  Unit* spec = it->second;
  bool into_library = spec->fn.crate == ir::kStdCrate && unit->fn.crate != ir::kStdCrate;
  if (depth > 0 && !into_library) return call_unit(spec, args, &callee);
  if (depth == 0) depth_exceeded = false;
  try {
    return call_unit(spec, args, &callee);
  } catch (DiagError& err) {
    Diagnostic& d = err.diags.front();
    if (into_library && d.primary.valid() && d.primary.file != e->span.file) {
      // An error inside the standard library is the caller's to fix: point at the call and
      // keep the library line as a note (issue: library frames).
      point_at_call(d, e->span, spec->name, cx.sm);
      throw;
    }
    if (depth > 0) throw;
    // The outermost call of a runaway recursion is where the user can act: report it there and
    // keep the innermost call as a label.
    if (depth_exceeded && d.code == "E007" && d.primary.valid() &&
        d.secondary.empty()) {
      d.secondary.push_back(Label{d.primary, "the limit was reached here"});
      d.primary = e->span;
      d.primary_label = "this call recurses too deeply";
      d.help = "make sure the recursion reaches a base case";
    }
    throw;
  }
}

// A literal argument of a two-argument intrinsic beside a value whose type was only known at
// run time (std::io::load_npy, unannotated) takes that value's element type, as it would have at
// compile time: `relu(x)` is `__max2(x, 0)`, and 0 is a float beside a float array (as
// np.maximum(x, 0)). Typed code never reaches here with differing types.
void adapt_literal_args(const NodeRef& call, std::vector<Value>& args) {
  ir::Kids nodes = ir::call_args(*call);
  if (args.size() != 2 || nodes.size() != 2) return;
  auto literal = [](const NodeRef& n) {
    const NodeRef& m = n->kind == Kind::Unary ? ir::unary_operand(*n) : n;
    return m->kind == Kind::IntLit || m->kind == Kind::FloatLit;
  };
  auto elem = [](const Value& v) -> std::optional<DType> {
    if (v.tag == Value::Tag::Int || v.tag == Value::Tag::Float) return v.dt;
    if (v.tag == Value::Tag::Tensor) return v.tensor_ref().dtype();
    return std::nullopt;
  };
  auto da = elem(args[0]), db = elem(args[1]);
  if (!da || !db || *da == *db || *da == DType::Bool || *db == DType::Bool) return;
  if (literal(nodes[1]) && !literal(nodes[0]) && (is_float(*da) || !is_float(*db))) args[1] = cast_value(args[1], *da);
  else if (literal(nodes[0]) && !literal(nodes[1]) && (is_float(*db) || !is_float(*da))) args[0] = cast_value(args[0], *db);
}

// A load the compiler typed from the file or from a save in the same cell
// (lang/passes/type_infer_npy.cpp) must find that type: a file changed since is an error, never
// an array of another type read as if it had the compiled one.
void Interpreter::Impl::check_loaded_type(const NodeRef& e, const Value& v, const std::string& path) {
  auto it = unit->types.find(e->id);
  if (it == unit->types.end() || !it->second || it->second->k == ir::Type::K::Unknown) return;
  const ir::TypeRef& t = it->second;
  const ir::TypeRef el = ir::elem_of(t);
  const int have_rank = v.tag == Value::Tag::Tensor ? v.tensor_ref().rank() : 0;
  const std::optional<DType> have = value_dtype(v);
  if (el && el->k == ir::Type::K::Scalar && have && *have == el->dtype && have_rank == ir::rank_of(t)) return;
  fault("E002", path + " holds " + type_string(v) + ", but it held " + ir::type_name(t) +
                    " when the program was compiled (the file changed in between)");
}

Value Interpreter::Impl::builtin(Builtin b, const NodeRef& e, std::vector<Value>& args) {
  if (is_math_intrinsic(b)) {
    MathFn f = math_fn_of(b);
    if (is_binary_math_intrinsic(b)) {
      adapt_literal_args(e, args);
      return math2(f, args[0], args[1]);
    }
    return math1(f, args[0]);
  }
  switch (b) {
    case Builtin::Print: {
      std::string line;
      for (size_t i = 0; i < args.size(); ++i) line += (i ? " " : "") + format_value(args[i]);
      line += "\n";
      if (opt.out) opt.out(line);
      return Value::unit();
    }
    case Builtin::Assert:
      if (args[0].tag != Value::Tag::Bool || !args[0].b)
        fault("E007", "assertion failed" + (args.size() > 1 ? ": " + args[1].str() : std::string()));
      return Value::unit();
    case Builtin::Len: {
      const Value& a = args[0];
      if (a.tag == Value::Tag::Tensor) {
        if (a.tensor_ref().rank() == 0) fault("E002", "len() of a scalar");
        return Value::integer(a.window.rows > 0 ? a.window.logical0 : a.tensor_ref().dim(0), DType::I32);
      }
      if (a.tag == Value::Tag::List) return Value::integer(static_cast<int64_t>(a.items().size()), DType::I32);
      if (a.tag == Value::Tag::Str) {
        int64_t n = 0;
        for (unsigned char ch : a.str()) n += (ch & 0xC0) != 0x80;
        return Value::integer(n, DType::I32);
      }
      fault("E002", "len() needs an array or a string, found " + type_string(a));
    }
    case Builtin::Shape: {
      const Value& a = args[0];
      std::vector<Value> dims;
      if (a.tag == Value::Tag::Tensor) {
        for (int i = 0; i < a.tensor_ref().rank(); ++i)
          dims.push_back(Value::integer(i == 0 && a.window.rows > 0 ? a.window.logical0 : a.tensor_ref().dim(i), DType::I32));
      } else if (a.tag == Value::Tag::List) {
        dims.push_back(Value::integer(static_cast<int64_t>(a.items().size()), DType::I32));
      } else if (!a.is_scalar()) {
        fault("E002", "shape() needs an array, found " + type_string(a));
      }  // a scalar has shape [] (rank 0), as in NumPy
      return make_array(dims, DType::I32);
    }
    case Builtin::Typeof: return Value::string(type_string(args[0]));
    case Builtin::ArrayAppend: {
      const Value& a = args[0];
      MemoryHold hold;  // the copies below are checked against the limit before they are made
      if (a.tag == Value::Tag::List) {
        hold.grow_to(static_cast<int64_t>((a.items().size() + 1) * sizeof(Value)), "array_append");
        std::vector<Value> items;
        items.reserve(a.items().size() + 1);
        items = a.items();
        items.push_back(args[1]);
        return Value::list(std::move(items));
      }
      if (a.tag != Value::Tag::Tensor) fault("E002", "array_append needs an array");
      const Tensor& t = a.tensor_ref();
      if (t.rank() == 1 && args[1].is_scalar()) {
        // The common case without a Value per element: a copy one element longer (E008 from
        // Tensor::alloc when it does not fit).
        Tensor out = Tensor::alloc(t.dtype(), {t.dim(0) + 1});
        std::memcpy(out.data(), t.data(), static_cast<size_t>(t.dim(0) * dtype_storage_bytes(t.dtype())));
        tensor_set(out, t.dim(0), args[1]);
        return Value::tensor(std::move(out));
      }
      hold.grow_to(static_cast<int64_t>((t.dim(0) + 1) * sizeof(Value)), "array_append");
      std::vector<Value> rows;
      for (int64_t i = 0; i < t.dim(0); ++i)
        rows.push_back(t.rank() == 1 ? tensor_get(t, i) : Value::tensor(t.row(i)));
      rows.push_back(args[1]);
      return make_array(rows, t.dtype());
    }
    case Builtin::Sum:
    case Builtin::Prod:
    case Builtin::Max:
    case Builtin::Min: {
      using ir::ReduceOp;
      ReduceOp op = b == Builtin::Sum ? ReduceOp::Sum : b == Builtin::Prod ? ReduceOp::Prod
                  : b == Builtin::Max ? ReduceOp::Max : ReduceOp::Min;
      if (args.size() == 2) {
        bool gt = values_equal(args[0], args[0]) && binary_op(ir::BinOp::Gt, args[0], args[1]).b;
        return (b == Builtin::Max) == gt ? args[0] : args[1];
      }
      return reduce_all(op, args[0]);
    }
    case Builtin::Inf:
    case Builtin::Nan:
    case Builtin::Eps:
    case Builtin::MaxFloat:
    case Builtin::MinFloat: {
      DType dt = dtype_of(e, DType::F32);
      bool f64 = dt == DType::F64;
      double v = 0;
      switch (b) {
        case Builtin::Inf: v = std::numeric_limits<double>::infinity(); break;
        case Builtin::Nan: v = std::numeric_limits<double>::quiet_NaN(); break;
        case Builtin::Eps: v = f64 ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon(); break;
        case Builtin::MaxFloat: v = f64 ? std::numeric_limits<double>::max() : std::numeric_limits<float>::max(); break;
        default: v = f64 ? std::numeric_limits<double>::min() : std::numeric_limits<float>::min(); break;
      }
      return Value::floating(v, dt);
    }
    case Builtin::ReadFile: return Value::string(read_regular_file(args[0].str()));
    case Builtin::WriteFile: {
      int fd = open_for_write(args[0].str());
      struct Closer {
        int fd;
        ~Closer() { close(fd); }
      } closer{fd};
      write_all(fd, args[1].str().data(), args[1].str().size(), args[0].str());
      return Value::unit();
    }
    case Builtin::FileExists: {
      std::error_code ec;
      return Value::boolean(std::filesystem::exists(args[0].str(), ec));
    }
    case Builtin::ListDir: {
      std::error_code ec;
      std::vector<std::string> names;
      for (auto& ent : std::filesystem::directory_iterator(args[0].str(), ec))
        names.push_back(ent.path().filename().string());
      if (ec) fault("E009", "cannot list " + args[0].str() + ": " + ec.message());
      std::sort(names.begin(), names.end());
      std::vector<Value> vals;
      for (auto& n : names) vals.push_back(Value::string(n));
      return Value::list(std::move(vals));
    }
    case Builtin::LoadNpy: {
      Value v = io_builtin(b, args);
      check_loaded_type(e, v, args[0].str());
      return v;
    }
    case Builtin::SaveNpy: return io_builtin(b, args);
    case Builtin::Check:
    case Builtin::FsTest:
    case Builtin::FsStr:
    case Builtin::FsDo:
    case Builtin::FileSize:
    case Builtin::Reshape:
    case Builtin::Cast:
    case Builtin::Einsum:
    case Builtin::Convert:
    case Builtin::Split:
    case Builtin::Promote:
    case Builtin::IsInt:
    case Builtin::IsBool:
    case Builtin::Argsort: return std_builtin(b, args, cx.resolver.root_dir(), opt.interrupt);
    default: fault("E011", std::string("builtin `") + builtin_info(b).name + "` is not available");
  }
}

}  // namespace ein
