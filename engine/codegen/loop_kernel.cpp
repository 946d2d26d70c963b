// Loop kernels: a sequential loop whose body only resumes tensors allocated before it (the
// segment loops of a checkpointed gradient, lang/passes/checkpoint.h) becomes one native
// function that runs every iteration's clause kernels itself. Interpreted, each iteration paid
// the tree walk, argument binding and run-time checks of every clause (about 8 µs a call,
// measured: a 10^6-step gradient with checkpoints every 125 steps made 48 000 such calls).
//
// The clause kernels are the ordinary ones (gen_clause), kept as static functions of the same
// text; the driver binds each one's arguments once, from its own (the union of theirs), and only
// the loop variable changes between calls. The interpreter checks, before the first iteration,
// every argument against every clause's specialisation (native_runtime.cpp), so a clause cannot
// refuse its arguments half-way through a loop that already wrote memory.
#include <algorithm>

#include "engine/codegen/gen.h"
#include "engine/codegen/static_facts.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;

namespace {

// The statements of the loop body: resumed LTensors only (nested LSeqs flattened).
bool resumed_tensors(const NodeRef& n, std::vector<NodeRef>& out) {
  if (!n) return true;
  if (n->kind == Kind::LSeq) {
    for (auto& k : n->kids)
      if (!resumed_tensors(k, out)) return false;
    return true;
  }
  if (n->kind != Kind::LTensor || !n->has(ir::kResume)) return false;
  out.push_back(n);
  return true;
}

}  // namespace

bool is_resume_loop(const NodeRef& n) {
  if (!n || n->kind != Kind::LFor || !n->has(ir::kSequential)) return false;
  std::vector<NodeRef> ts;
  return resumed_tensors(ir::lfor_body(n), ts) && !ts.empty();
}

std::optional<Kernel> gen_loop(const CompileCtx& cx, const Unit& u, const NodeRef& loop, std::string* why) {
  Kernel k;
  k.kind = KernelKind::Loop;
  k.unit = &u;
  k.stmt = loop;
  k.strategy = "loop";
  try {
    std::vector<NodeRef> tensors;
    if (!resumed_tensors(ir::lfor_body(loop), tensors) || tensors.empty()) unsupported("a loop body that is not resumed tensors");
    auto lo = static_int(cx, u, ir::lfor_lo(loop)), hi = static_int(cx, u, ir::lfor_hi(loop));
    if (!lo || !hi) unsupported("a loop kernel with bounds known only at run time");
    if (loop->flags & ~(ir::kSequential | ir::kReverse)) unsupported("a loop with unknown flags");
    double work = 0;
    for (size_t ti = 0; ti < tensors.size(); ++ti) {
      const NodeRef& t = tensors[ti];
      if (ti + 1 < tensors.size())
        if (auto twin = gen_jammed(cx, u, t, tensors[ti + 1])) {
          work += twin->work > 0 ? twin->work * twin->interp_cost : 0;
          k.parts.push_back(std::move(*twin));
          ++ti;
          continue;
        }
      for (auto& c : ir::ltensor_stmts(t)) {
        if (c->kind == Kind::LCheck) unsupported("a check inside a loop kernel");
        std::string w;
        auto part = gen_clause(cx, u, t, c, FusionMap{}, &w);
        if (!part) unsupported(w);
        // Scratch blocks return to the pool only when the call ends: not once per iteration.
        if (part->source.find("rt->alloc") != std::string::npos) unsupported("a clause with scratch memory inside a loop kernel");
        work += part->work > 0 ? part->work * part->interp_cost : 0;  // already weighted
        k.parts.push_back(std::move(*part));
      }
    }
    // The union of the clauses' arguments, the loop variable excepted (the driver sets it).
    std::string src, drive;
    std::vector<std::vector<int>> bmap, smap;
    int loopvar_scalars = 0;
    for (size_t p = 0; p < k.parts.size(); ++p) {
      Kernel& part = k.parts[p];
      std::vector<int> bm, sm;
      for (auto& b : part.bufs) {
        auto it = std::find_if(k.bufs.begin(), k.bufs.end(), [&](const BufArg& x) { return x.def == b.def && x.slot == b.slot; });
        if (it == k.bufs.end()) {
          BufArg x = b;
          x.window = x.windowed ? -1 : 0;  // each clause checks its own window
          x.fixed.clear();
          x.reads = 0;
          k.bufs.push_back(x);
          it = k.bufs.end() - 1;
        } else if (it->dt != b.dt || it->rank != b.rank || it->windowed != b.windowed) {
          unsupported("a tensor bound differently by two clauses of a loop");
        }
        it->output = it->output || b.output;
        bm.push_back(static_cast<int>(it - k.bufs.begin()));
      }
      for (auto& s : part.scalars) {
        if (s.def == loop->def) {
          if (!is_int(s.dt)) unsupported("a loop variable of non-integer type");
          sm.push_back(-1);
          ++loopvar_scalars;
          continue;
        }
        auto it = std::find_if(k.scalars.begin(), k.scalars.end(), [&](const ScalarArg& x) { return x.def == s.def && x.slot == s.slot; });
        if (it == k.scalars.end()) {
          k.scalars.push_back(s);
          it = k.scalars.end() - 1;
        } else if (it->dt != s.dt) {
          unsupported("a scalar bound differently by two clauses of a loop");
        }
        sm.push_back(static_cast<int>(it - k.scalars.begin()));
      }
      bmap.push_back(bm);
      smap.push_back(sm);
      const std::string fn = "EIN_KERNEL_part" + std::to_string(p);
      src += "static int " + fn + part.entry_body + "\n";
      for (auto& site : part.sites) k.sites.push_back(site);
    }
    (void)loopvar_scalars;
    // The driver: one argument block per clause, bound once; per iteration only the loop
    // variable changes. A failing clause's site is renumbered into this kernel's table.
    std::string d = "EIN_EXPORT int EIN_KERNEL(ein_args* A) {\n";
    d += "  if (A->abi != EIN_ABI_VERSION || A->nbufs != " + std::to_string(k.bufs.size()) +
         " || A->nscalars != " + std::to_string(k.scalars.size()) + ") return EIN_MISMATCH;\n";
    d += "  int64_t sink[2] = {0, 0};\n";
    size_t site_off = 0;
    for (size_t p = 0; p < k.parts.size(); ++p) {
      std::string P = std::to_string(p);
      std::string bl, sl;
      for (int b : bmap[p]) bl += (bl.empty() ? "" : ", ") + std::string("A->bufs[") + std::to_string(b) + "]";
      for (int s : smap[p]) sl += (sl.empty() ? "" : ", ") + (s < 0 ? std::string("{0}") : "A->scalars[" + std::to_string(s) + "]");
      d += "  ein_buf pb" + P + "[" + std::to_string(std::max<size_t>(1, bmap[p].size())) + "] = {" + bl + "};\n";
      d += "  ein_scalar ps" + P + "[" + std::to_string(std::max<size_t>(1, smap[p].size())) + "] = {" + sl + "};\n";
      d += "  ein_args pa" + P + " = *A;\n";
      d += "  pa" + P + ".nbufs = " + std::to_string(bmap[p].size()) + "; pa" + P + ".bufs = pb" + P + ";\n";
      d += "  pa" + P + ".nscalars = " + std::to_string(smap[p].size()) + "; pa" + P + ".scalars = ps" + P + ";\n";
      d += "  pa" + P + ".progress = sink;\n";
    }
    const bool rev = loop->has(ir::kReverse);
    const std::string L = std::to_string(*lo) + "LL", H = std::to_string(*hi) + "LL";
    d += "  ein_progress_total(A, " + L + " < " + H + " ? " + H + " - " + L + " : 0);\n";
    d += rev ? "  for (int64_t v = " + H + " - 1; v >= " + L + "; --v) {\n" : "  for (int64_t v = " + L + "; v < " + H + "; ++v) {\n";
    d += "    if (ein_stop(A, INT64_MAX)) break;\n";
    d += "    ein_progress(A, " + (rev ? H + " - 1 - v" : "v - " + L) + ");\n";
    for (size_t p = 0; p < k.parts.size(); ++p) {
      std::string P = std::to_string(p);
      for (size_t s = 0; s < smap[p].size(); ++s)
        if (smap[p][s] < 0) d += "    ps" + P + "[" + std::to_string(s) + "].i = v;\n";
      d += "    { int rc = EIN_KERNEL_part" + P + "(&pa" + P + ");\n";
      // Arguments were checked against every clause before the call: a refusal now is a bug,
      // reported as one (E007), never skipped.
      d += "      if (rc == EIN_MISMATCH) { ein_fail(A, -1, 9, -1, 0, 0, 0); return A->err->code; }\n";
      d += "      if (rc != 0) { if (A->err->site >= 0) A->err->site += " + std::to_string(site_off) + "; return rc; } }\n";
      site_off += k.parts[p].sites.size();
    }
    d += "  }\n  return A->err->code;\n}\n";
    k.source = src + d;
    auto trip = static_trip(cx, u, ir::lfor_lo(loop), ir::lfor_hi(loop));
    k.work = trip ? *trip * work : -1;
    k.plan.push_back("loop kernel: " + std::to_string(k.parts.size()) + " clause kernel(s) called at each of " +
                     std::to_string(std::max<int64_t>(0, *hi - *lo)) + " iterations (`" + loop->name + "`" +
                     (rev ? ", reversed" : "") + "), arguments bound once");
  } catch (const Unsupported& e) {
    if (why) *why = e.why;
    return std::nullopt;
  }
  return k;
}

}  // namespace ein::codegen
