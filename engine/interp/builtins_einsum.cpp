// np.einsum for std::ml::einsum: the equation is a run-time string, so the result's rank is only
// known when it runs (the value is dynamically typed, like load_npy's). Einlang's own Einstein
// declarations cover every fixed equation; this intrinsic exists for the string form.
//
// Supported: explicit (`ij,jk->ik`) and implicit (`ij,jk`: the labels that occur once, sorted)
// outputs, repeated labels within an operand (diagonals, `ii->i`), `...` broadcast over the
// unlabelled axes (right-aligned, extent 1 broadcasts). Operands come as a tuple, a list, or an
// array whose first axis stacks operands of one shape.
#include <algorithm>
#include <map>

#include "engine/interp/interp_impl.h"

namespace ein {

namespace {

constexpr int kEllipsisBase = 1000;  // label codes for the axes `...` stands for

struct Term {
  std::vector<int> labels;  // letters, or kEllipsisBase + k for ellipsis axis k (from the left)
  bool ellipsis = false;
  int ellipsis_at = 0;      // position of `...` among the labels
};

[[noreturn]] void bad(const std::string& eq, const std::string& why) {
  fault("E006", "einsum `" + eq + "`: " + why);
}

Term parse_term(const std::string& eq, const std::string& s) {
  Term t;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 3, "...") == 0) {
      if (t.ellipsis) bad(eq, "`...` twice in one operand");
      t.ellipsis = true;
      t.ellipsis_at = static_cast<int>(t.labels.size());
      i += 3;
    } else if (std::isalpha(static_cast<unsigned char>(s[i]))) {
      t.labels.push_back(static_cast<unsigned char>(s[i]));
      ++i;
    } else {
      bad(eq, std::string("unexpected character `") + s[i] + "`");
    }
  }
  return t;
}

std::vector<Tensor> operands(const Value& inputs, size_t n_terms, const Term& first) {
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
    bool direct = n_terms == 1 && (first.ellipsis ? t.rank() >= static_cast<int>(first.labels.size())
                                                  : t.rank() == static_cast<int>(first.labels.size()));
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

}  // namespace

Value einsum(const std::string& equation, const Value& inputs, const std::atomic<bool>* interrupt) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  size_t arrow = eq.find("->");
  std::string lhs = arrow == std::string::npos ? eq : eq.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t b = 0;;) {
    size_t e = lhs.find(',', b);
    terms.push_back(parse_term(equation, lhs.substr(b, e == std::string::npos ? std::string::npos : e - b)));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  std::vector<Tensor> ops = operands(inputs, terms.size(), terms[0]);
  if (ops.size() != terms.size())
    bad(equation, std::to_string(terms.size()) + " operands in the equation, " + std::to_string(ops.size()) + " given");
  DType dt = ops[0].dtype();
  for (auto& o : ops)
    if (o.dtype() != dt || dt == DType::Bool) fault("E002", "einsum: the operands must be numbers of one type");
  // Extents of each label; the ellipsis axes broadcast right-aligned.
  std::map<int, int64_t> extent;
  int ell_rank = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    int named = static_cast<int>(terms[k].labels.size());
    if (terms[k].ellipsis ? ops[k].rank() < named : ops[k].rank() != named)
      fault("E004", "einsum `" + equation + "`: operand " + std::to_string(k) + " has rank " +
                        std::to_string(ops[k].rank()) + ", the equation gives it " + std::to_string(named) + " axes");
    if (terms[k].ellipsis) ell_rank = std::max(ell_rank, ops[k].rank() - named);
  }
  // Expand each term's `...` into ellipsis labels (right-aligned: the last axes line up).
  for (size_t k = 0; k < terms.size(); ++k) {
    Term& t = terms[k];
    if (!t.ellipsis) continue;
    int m = ops[k].rank() - static_cast<int>(t.labels.size());
    std::vector<int> ls(t.labels.begin(), t.labels.begin() + t.ellipsis_at);
    for (int a = 0; a < m; ++a) ls.push_back(kEllipsisBase + ell_rank - m + a);
    ls.insert(ls.end(), t.labels.begin() + t.ellipsis_at, t.labels.end());
    t.labels = ls;
  }
  std::map<int, int> count;
  for (size_t k = 0; k < terms.size(); ++k) {
    for (size_t a = 0; a < terms[k].labels.size(); ++a) {
      int l = terms[k].labels[a];
      int64_t d = ops[k].dim(static_cast<int>(a));
      auto it = extent.find(l);
      if (it == extent.end() || (l >= kEllipsisBase && it->second == 1)) {
        extent[l] = d;
      } else if (it->second != d && !(l >= kEllipsisBase && d == 1)) {
        fault("E004", "einsum `" + equation + "`: " +
                          (l >= kEllipsisBase ? std::string("the `...` axes") : "label `" + std::string(1, static_cast<char>(l)) + "`") +
                          " has extents " + std::to_string(it->second) + " and " + std::to_string(d));
      }
      ++count[l];
    }
  }
  std::vector<int> out;
  if (arrow != std::string::npos) {
    Term o = parse_term(equation, eq.substr(arrow + 2));
    for (size_t a = 0; a < o.labels.size(); ++a) {
      if (o.ellipsis && static_cast<int>(a) == o.ellipsis_at)
        for (int e = 0; e < ell_rank; ++e) out.push_back(kEllipsisBase + e);
      if (!extent.count(o.labels[a])) bad(equation, std::string("output label `") + static_cast<char>(o.labels[a]) + "` is not an input label");
      if (std::count(out.begin(), out.end(), o.labels[a])) bad(equation, "an output label repeats");
      out.push_back(o.labels[a]);
    }
    if (o.ellipsis && o.ellipsis_at == static_cast<int>(o.labels.size()))
      for (int e = 0; e < ell_rank; ++e) out.push_back(kEllipsisBase + e);
    if (!o.ellipsis && ell_rank > 0) {
      // NumPy requires `...` in the output when the inputs broadcast over unlabelled axes,
      // unless they are all of extent 1 (summed away).
      for (int e = 0; e < ell_rank; ++e)
        if (extent[kEllipsisBase + e] != 1) bad(equation, "the output must contain `...`");
    }
  } else {
    for (int e = 0; e < ell_rank; ++e) out.push_back(kEllipsisBase + e);
    for (auto& [l, c] : count)
      if (l < kEllipsisBase && c == 1) out.push_back(l);
  }
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
    for (size_t a = 0; a < terms[k].labels.size(); ++a)
      if (ops[k].dim(static_cast<int>(a)) != 1 || extent[terms[k].labels[a]] == 1)
        stride[k][slot[terms[k].labels[a]]] += st[a];
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
    int64_t acci = 0;
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
      int64_t pi = 1;
      for (size_t k = 0; k < ops.size(); ++k) {
        int64_t off = 0;
        for (size_t a = 0; a < all.size(); ++a) off += idx[a] * stride[k][a];
        if (integer) pi = static_cast<int64_t>(static_cast<uint64_t>(pi) * static_cast<uint64_t>(ops[k].get_i64(off)));
        else pf *= ops[k].get_f64(off);
      }
      if (integer) acci = static_cast<int64_t>(static_cast<uint64_t>(acci) + static_cast<uint64_t>(pi));
      else accf += pf;
    }
    if (integer) res.set_i64(o, acci);
    else res.set_f64(o, accf);
  }
  if (oshape.empty()) return tensor_get(res, 0);
  return Value::tensor(res);
}

}  // namespace ein
