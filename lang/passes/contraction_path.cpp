#include "lang/passes/contraction_path.h"

#include <algorithm>
#include <functional>

#include "lang/ir/visitor.h"

namespace ein {

using ir::DefId;
using ir::Kind;
using ir::NodeRef;

namespace {

bool contains(const std::vector<DefId>& v, DefId d) { return std::find(v.begin(), v.end(), d) != v.end(); }

}  // namespace

bool factor_path(ContractionPlan& p, std::unordered_map<DefId, double> size) {
  const auto& ops = p.c.operands;
  const size_t n = ops.size();
  if (n > 8) return false;
  const uint32_t full = (1u << n) - 1;
  auto vars_of = [&](uint32_t set) {
    std::vector<DefId> out;
    for (size_t i = 0; i < n; ++i)
      if (set & (1u << i))
        for (DefId d : ops[i].axes)
          if (d.valid() && !contains(out, d)) out.push_back(d);
    return out;
  };
  // The indices a partial product keeps: those of the output and those another operand needs.
  auto kept = [&](uint32_t set) {
    std::vector<DefId> out, rest = vars_of(full & ~set);
    for (DefId d : vars_of(set))
      if (contains(p.c.free, d) || contains(rest, d)) out.push_back(d);
    return out;
  };
  auto volume = [&](const std::vector<DefId>& v) {
    double c = 1;
    for (DefId d : v) c *= size[d];
    return c;
  };
  std::vector<double> cost(full + 1, 0);
  std::vector<uint32_t> split(full + 1, 0);
  for (uint32_t s = 1; s <= full; ++s) {
    if ((s & (s - 1)) == 0) continue;  // one operand
    cost[s] = -1;
    const uint32_t low = s & (~s + 1);
    for (uint32_t a = (s - 1) & s; a; a = (a - 1) & s) {
      if (!(a & low)) continue;  // each pairing once
      uint32_t b = s & ~a;
      std::vector<DefId> touched = kept(a);
      for (DefId d : kept(b))
        if (!contains(touched, d)) touched.push_back(d);
      double c = cost[a] + cost[b] + volume(touched);
      if (cost[s] < 0 || c < cost[s]) {
        cost[s] = c;
        split[s] = a;
      }
    }
  }
  std::vector<DefId> all = vars_of(full);
  p.naive_cost = volume(all);
  p.path_cost = cost[full];
  // Steps in post-order; a result's layout is the kept indices of its first operand, then
  // of its second, each in that operand's order (a matrix product's [m.., n..]).
  std::vector<std::vector<DefId>> layout;
  for (auto& o : ops) {
    layout.emplace_back();
    for (DefId d : o.axes)
      if (d.valid()) layout.back().push_back(d);
  }
  p.path.clear();
  // What the steps cost counting a BLAS step's multiply-adds at a quarter; a step is BLAS when
  // step_gemm (the matcher codegen's steps follow) takes its operands' layouts.
  double weighted = 0;
  bool blas = false;
  std::function<int(uint32_t)> build = [&](uint32_t s) -> int {
    if ((s & (s - 1)) == 0) {
      int i = 0;
      while (!(s & (1u << i))) ++i;
      return i;
    }
    int a = build(split[s]), b = build(s & ~split[s]);
    std::vector<DefId> keep = kept(s), ordered;
    for (int x : {a, b})
      for (DefId d : layout[static_cast<size_t>(x)])
        if (contains(keep, d) && !contains(ordered, d)) ordered.push_back(d);
    PairStep st;
    st.a = a;
    st.b = b;
    st.keep = ordered;
    for (int x : {a, b})
      for (DefId d : layout[static_cast<size_t>(x)])
        if (!contains(keep, d) && !contains(st.sum, d)) st.sum.push_back(d);
    std::vector<DefId> touched = kept(split[s]);
    for (DefId d : kept(s & ~split[s]))
      if (!contains(touched, d)) touched.push_back(d);
    // The last step writes the tensor in its own order when in place, else its own `keep`.
    const bool gemm = step_gemm(layout[static_cast<size_t>(a)], layout[static_cast<size_t>(b)], st.sum,
                                s == full && p.in_place ? &p.dest : nullptr)
                          .has_value();
    blas = blas || gemm;
    weighted += volume(touched) / (gemm ? 4.0 : 1.0);
    p.path.push_back(st);
    layout.push_back(ordered);
    return static_cast<int>(layout.size()) - 1;
  };
  build(full);
  // Worth it when the multiply-adds drop at least 4x (scratch and the lost fusion cost
  // something), or — when some step is one BLAS call — when they drop 2x counting a BLAS
  // step's multiply-adds at a quarter: OpenBLAS runs them several times faster than the fused
  // loop (a bilinear form x_b^T A y_b: the same 4000·256² multiply-adds as the loop, but
  // 256² of them per sample as one GEMM X·A, then a row-wise dot).
  if (p.path_cost * 4 > p.naive_cost && (!blas || weighted * 2 > p.naive_cost)) {
    p.path.clear();
    return false;
  }
  return true;
}

// The core's axes are the m summed variables, each paired by exactly one matrix operand with
// the result's axis of the same position (ContractionPlan::chain).
void mode_chain(ContractionPlan& p) {
  const auto& ops = p.c.operands;
  const auto& summed = p.c.summed;
  const size_t m = summed.size();
  if (m < 2 || ops.size() != m + 1 || p.dest.size() != m) return;
  int core = -1;
  for (size_t i = 0; i < ops.size(); ++i) {
    const auto& ax = ops[i].axes;
    bool all = ax.size() == m;
    for (size_t a = 0; a < ax.size() && all; ++a)
      all = ax[a].valid() && contains(summed, ax[a]) && std::count(ax.begin(), ax.end(), ax[a]) == 1;
    if (all) core = static_cast<int>(i);
  }
  if (core < 0) return;
  std::vector<int> chain;
  for (size_t a = 0; a < m; ++a) {
    const DefId s = ops[static_cast<size_t>(core)].axes[a];
    int hit = -1, count = 0;
    for (size_t i = 0; i < ops.size(); ++i) {
      const auto& ax = ops[i].axes;
      if (static_cast<int>(i) == core || ax.size() != 2 || !ax[0].valid() || !ax[1].valid()) continue;
      if (ax[0] == s || ax[1] == s) {
        hit = static_cast<int>(i);
        ++count;
      }
    }
    if (count != 1) return;
    const auto& ax = ops[static_cast<size_t>(hit)].axes;
    const DefId o = ax[0] == s ? ax[1] : ax[0];
    if (contains(summed, o) || o != p.dest[a]) return;
    chain.push_back(hit);
  }
  p.chain_core = core;
  p.chain = std::move(chain);
}

// Which steps of a Factorised plan are one GEMM/GEMV: a step's operands are laid out as their
// reads' variables (fixed subscripts aside) or as an earlier step's `keep` (a GEMM lays its result
// out [M.., N..], which is `keep` already), and the last step writes the plan's dest.
void plan_step_gemms(ContractionPlan& p) {
  std::vector<std::vector<DefId>> layout;
  for (auto& o : p.c.operands) {
    layout.emplace_back();
    for (DefId d : o.axes)
      if (d.valid()) layout.back().push_back(d);
  }
  for (size_t i = 0; i < p.path.size(); ++i) {
    PairStep& s = p.path[i];
    const bool last = i + 1 == p.path.size();
    s.gemm = step_gemm(layout[static_cast<size_t>(s.a)], layout[static_cast<size_t>(s.b)], s.sum,
                       last ? &p.dest : nullptr);
    layout.push_back(last ? p.dest : s.keep);
  }
}

std::string names(const std::vector<DefId>& ds, const VarNames& nm) {
  std::string out;
  for (DefId d : ds) {
    auto it = nm.find(d);
    out += (out.empty() ? "" : ",") + (it == nm.end() ? std::string("?") : it->second);
  }
  return out;
}

// The source names of the contraction's variables, from the operands' subscripts.
VarNames variable_names(const Contraction& c) {
  VarNames nm;
  for (auto& o : c.operands)
    for (const NodeRef& r : operand_reads(o))
      for (const NodeRef& ix : ir::index_args(r))
        ir::for_each_node(ix, [&](const NodeRef& x) {
          if (x->kind == Kind::Name) nm[x->def] = x->name;
        });
  return nm;
}

std::string describe_path(const ContractionPlan& p) {
  const auto nm = variable_names(p.c);
  // Operands by name, results of earlier steps as (1), (2), ...
  auto term = [&](int i) {
    return i < static_cast<int>(p.c.operands.size()) ? ir::index_base(p.c.operands[static_cast<size_t>(i)].read)->name
                                                      : "(" + std::to_string(i - static_cast<int>(p.c.operands.size()) + 1) + ")";
  };
  std::string how = "factorised into " + std::to_string(p.path.size()) + " pairwise steps";
  for (size_t i = 0; i < p.path.size(); ++i)
    how += std::string(i ? ", " : " ") + "(" + std::to_string(i + 1) + ") = " + term(p.path[i].a) + "·" +
           term(p.path[i].b) + " over [" + names(p.path[i].sum, nm) + "]" +
           (!p.path[i].gemm ? "" : p.path[i].gemm->gemv() ? " as GEMV" : " as GEMM");
  return how;
}

}  // namespace ein
