// np.einsum for std::ml::einsum: the equation is a run-time string, so the result's rank is only
// known when it runs (the value is dynamically typed, like load_npy's). Einlang's own Einstein
// declarations cover every fixed equation; this intrinsic exists for the string form.
//
// Supported: explicit (`ij,jk->ik`) and implicit (`ij,jk`: the labels that occur once, sorted)
// outputs, repeated labels within an operand (diagonals, `ii->i`), `...` broadcast over the
// unlabelled axes (right-aligned, extent 1 broadcasts). Operands come as a tuple, a list, or an
// array whose first axis stacks operands of one shape.
#include <algorithm>
#include <cstdint>
#include <map>

#include "engine/interp/interp_impl.h"
#include "lang/syntax/einsum_eq.h"

namespace ein {

namespace {

using einsum_eq::kEllipsisBase;

[[noreturn]] void bad(const std::string& eq, const einsum_eq::Error& err) {
  fault(err.code, "einsum `" + eq + "`: " + err.why);
}

std::vector<Tensor> operands(const Value& inputs, size_t n_terms, const einsum_eq::Term& first, bool listed) {
  std::vector<Tensor> ops;
  auto take = [&](const Value& v) {
    if (v.is_tensor()) {
      ops.push_back(v.tensor_ref());
    } else if (v.is_scalar()) {
      Tensor t = Tensor::alloc(v.tag == Value::Tag::Bool ? DType::Bool : v.dt, {});
      tensor_set(t, 0, v);
      ops.push_back(t);
    } else {
      fault("E002", "einsum: every operand must be an array or a number");
    }
  };
  if (inputs.tag == Value::Tag::Tuple || inputs.tag == Value::Tag::List) {
    for (auto& v : inputs.items()) take(v);
  } else if (inputs.is_tensor()) {
    const Tensor& t = inputs.tensor_ref();
    // One operand given directly (its rank is what the term needs) or a stack of operands.
    bool direct = !listed && n_terms == 1 && first.fits(t.rank());
    if (direct) {
      ops.push_back(t);
    } else {
      if (t.rank() == 0) fault("E002", "einsum: the operands must be a tuple, a list or a stacked array");
      for (int64_t i = 0; i < t.dim(0); ++i) ops.push_back(t.row(i));
    }
  } else {
    fault("E002", "einsum: the operands must be a tuple, a list or a stacked array");
  }
  return ops;
}

// The range of integer type dt, and the E006 of an integer einsum past it.
__int128 int_max(DType dt) {
  return dt == DType::I8 ? INT8_MAX : dt == DType::I32 ? INT32_MAX : INT64_MAX;
}
__int128 int_min(DType dt) {
  return dt == DType::I8 ? INT8_MIN : dt == DType::I32 ? INT32_MIN : INT64_MIN;
}
[[noreturn]] void overflow(const std::string& eq, DType dt) {
  fault("E006", "einsum `" + eq + "`: the integer result does not fit " + dtype_name(dt) +
                    " (NumPy would wrap it); convert the operands first (`x as [i64]` or `x as [f64]`)");
}

}  // namespace

Value einsum(const std::string& equation, const Value& inputs, const std::atomic<bool>* interrupt, bool listed) {
  einsum_eq::Parsed parsed = einsum_eq::parse_einsum(equation);
  if (!parsed.eq) bad(equation, parsed.error);
  const einsum_eq::Equation& eq = *parsed.eq;
  std::vector<Tensor> ops = operands(inputs, eq.operands.size(), eq.operands[0], listed);
  std::vector<int> ranks;
  for (auto& o : ops) ranks.push_back(o.rank());
  // A wrong number of operands (E006) is reported before their types, a wrong rank (E004) after.
  einsum_eq::Labelled labelled = einsum_eq::label_axes(eq, ranks);
  if (!labelled.axes && ranks.size() != eq.operands.size()) bad(equation, labelled.error);
  DType dt = ops[0].dtype();
  for (auto& o : ops)
    if (o.dtype() != dt || dt == DType::Bool) fault("E002", "einsum: the operands must be numbers of one type");
  if (!labelled.axes) bad(equation, labelled.error);
  const std::vector<std::vector<int>>& labels = labelled.axes->operands;
  const std::vector<int>& out = labelled.axes->output;
  int ell_rank = labelled.axes->ellipsis_rank;
  // Extents of each label; the ellipsis axes broadcast right-aligned.
  std::map<int, int64_t> extent;
  for (size_t k = 0; k < labels.size(); ++k) {
    for (size_t a = 0; a < labels[k].size(); ++a) {
      int l = labels[k][a];
      int64_t d = ops[k].dim(static_cast<int>(a));
      auto it = extent.find(l);
      if (it == extent.end() || (l >= kEllipsisBase && it->second == 1)) {
        extent[l] = d;
      } else if (it->second != d && !(l >= kEllipsisBase && d == 1)) {
        fault("E004", "einsum `" + equation + "`: " +
                          (l >= kEllipsisBase ? std::string("the `...` axes") : "label `" + std::string(1, static_cast<char>(l)) + "`") +
                          " has extents " + std::to_string(it->second) + " and " + std::to_string(d));
      }
    }
  }
  // NumPy requires `...` in the output when the inputs broadcast over unlabelled axes, unless
  // they are all of extent 1 (summed away).
  if (!eq.output_ellipsis())
    for (int e = 0; e < ell_rank; ++e)
      if (extent[kEllipsisBase + e] != 1) bad(equation, {"E006", "the output must contain `...`"});
  std::vector<int> inner;
  for (auto& [l, d] : extent)
    if (!std::count(out.begin(), out.end(), l)) inner.push_back(l);
  // Strides of every label in every operand (a label repeated in one operand adds its strides;
  // an ellipsis axis of extent 1 broadcasts with stride 0).
  std::map<int, size_t> slot;
  std::vector<int> all = out;
  all.insert(all.end(), inner.begin(), inner.end());
  for (size_t s = 0; s < all.size(); ++s) slot[all[s]] = s;
  std::vector<std::vector<int64_t>> stride(ops.size(), std::vector<int64_t>(all.size(), 0));
  for (size_t k = 0; k < ops.size(); ++k) {
    auto st = ops[k].strides();
    for (size_t a = 0; a < labels[k].size(); ++a)
      if (ops[k].dim(static_cast<int>(a)) != 1 || extent[labels[k][a]] == 1)
        stride[k][slot[labels[k][a]]] += st[a];
  }
  std::vector<int64_t> oshape, dims;
  for (int l : out) oshape.push_back(extent[l]);
  for (int l : all) dims.push_back(extent[l]);
  Tensor res = Tensor::alloc(dt, oshape);
  int64_t n_out = res.size(), n_in = 1;
  for (int l : inner) n_in *= extent[l];
  bool integer = is_int(dt);
  std::vector<int64_t> idx(all.size());
  uint32_t polled = 0;
  for (int64_t o = 0; o < n_out; ++o) {
    if ((++polled & 0xFFFF) == 0 && interrupt && interrupt->load(std::memory_order_relaxed))
      fault("E007", "interrupted");
    int64_t rem = o;
    for (size_t a = out.size(); a-- > 0;) {
      idx[a] = dims[a] ? rem % dims[a] : 0;
      rem = dims[a] ? rem / dims[a] : 0;
    }
    double accf = 0;
    // Integers: exact in 128 bits, E006 past them or past dt when stored. np.einsum of int32
    // keeps int32 and wraps; a library function never prints a wrapped value
    // (docs/stdlib-notes.md, integer accumulation).
    __int128 acci = 0;
    for (int64_t q = 0; q < n_in; ++q) {
      // The work is the product of all extents, which no memory limit bounds: poll the
      // interrupt (E007) every 2^16 products, as the interpreter's loops do.
      if ((++polled & 0xFFFF) == 0 && interrupt && interrupt->load(std::memory_order_relaxed))
        fault("E007", "interrupted");
      int64_t r2 = q;
      for (size_t a = all.size(); a-- > out.size();) {
        idx[a] = r2 % dims[a];
        r2 /= dims[a];
      }
      double pf = 1;
      __int128 pi = 1;
      bool over = false;
      for (size_t k = 0; k < ops.size(); ++k) {
        int64_t off = 0;
        for (size_t a = 0; a < all.size(); ++a) off += idx[a] * stride[k][a];
        if (integer) over |= __builtin_mul_overflow(pi, static_cast<__int128>(ops[k].get_i64(off)), &pi);
        else pf *= ops[k].get_f64(off);
      }
      if (integer) over |= __builtin_add_overflow(acci, pi, &acci);
      else accf += pf;
      if (over) overflow(equation, dt);
    }
    if (integer) {
      if (acci < int_min(dt) || acci > int_max(dt)) overflow(equation, dt);
      res.set_i64(o, static_cast<int64_t>(acci));
    } else {
      res.set_f64(o, accf);
    }
  }
  if (oshape.empty()) return tensor_get(res, 0);
  return Value::tensor(res);
}

}  // namespace ein
