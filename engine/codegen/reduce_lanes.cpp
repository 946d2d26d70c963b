// A point loop whose store reads a reduction with a run-time number of terms:
//
//     let R[.., ow] = sum[e in 0..k2](Xp[.., ow * s2 + e]);      // std pooling, k2 an argument
//     let Y[.., oh, ow] = sum[a in 0..k0](R[.., oh * s0 + a, ow]) / c[oh];
//
// A constant trip of a few terms is unrolled by the loop plan and the point loop is the vector
// loop (outer-loop simd). With a run-time trip the reduction's loop stays innermost: the point
// loop is scalar and each point's few terms are a strip-mined "vector" loop of three. Here the
// points go in blocks of kLanes: one accumulator per point, the reduction's loops outside, and
// inside them a vector loop over the block's points adding one term to each; then the store
// loop over the block reads the accumulators (a vector loop itself). Each point still adds its
// terms in the reduction's order, in its own accumulator of the same type (f64 for an f32
// sum), so the values are those of the scalar loop and of the interpreter, bit for bit.
// Not for a reduction along the contiguous axis of what it reads (a row sum: that one
// vectorises along its own loop, has_row_reduction), nor for one that could fail (an unproven
// read, a read of the tensor being written: the order of failures would change).
#include "engine/codegen/gen.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;
using Op = ir::ReduceOp;

namespace {

constexpr int kLanes = 256;
const std::string kPrefetch = "16LL";  // terms ahead (a C++ model of the embedding bag: 8 -> 3.6 ms, 16 -> 3.1, none 7.0)

}  // namespace

// Whether the point loop s has the form reduce_lanes takes: r is its one reduction, items the
// reduction's variables.
bool Gen::lanes_form(const NodeRef& s, NodeRef& r, std::vector<NodeRef>& items) {
  if (in_simd || s->has(ir::kSequential) || s->has(ir::kReverse) || !s->has(ir::kParallel)) return false;
  if (innermost(s)) return false;  // the point loop is already the vector loop
  const NodeRef& st = ir::lfor_body(s);
  if (st->kind != Kind::LStore || st->def != out_def) return false;
  const LoopSpec sp = loop_spec(s);
  // The loop that opens the thread team keeps its own shape.
  if ((sp.parallel && !in_parallel) || sp.omp_for) return false;
  // Exactly one reduction, not nested in another.
  int count = 0;
  ir::for_each_node(ir::lstore_value(st), [&](const NodeRef& x) {
    if (x->kind == Kind::LReduce) {
      ++count;
      r = x;
    }
  });
  for (const NodeRef& i : ir::lstore_index(st))
    if (has_loop(i)) return false;
  if (count != 1 || precomputed_.count(r->id) || !mentions_def(r, s->def)) return false;
  auto op = ir::reduce_op_from_name(r->name);
  if (!op || (*op != Op::Sum && *op != Op::Max && *op != Op::Min)) return false;
  const DType rdt = dtype_of(r);
  if (!is_float(rdt) || !kernel_dtype(rdt)) return false;
  items.clear();
  for (const NodeRef& it : ir::lreduce_items(r)) {
    if (it->kind != Kind::LoopVar || mentions_def(ir::loopvar_lo(*it), s->def) || mentions_def(ir::loopvar_hi(*it), s->def)) return false;
    items.push_back(it);
  }
  const NodeRef& body = ir::lreduce_body(r);
  // No statements in the body: a block only as the value of an if's branch (`if v < 0 { 0 }
  // else ..`, a clamp written in place), one tail and nothing else.
  bool plain = true;
  ir::for_each_node(body, [&](const NodeRef& x) {
    const bool wrapper = x->kind == Kind::Block && x->has(ir::kHasTail) && x->kids.size() == 1;
    plain = plain && x->kind != Kind::LGuard && x->kind != Kind::LLetIn && (x->kind != Kind::Block || wrapper) &&
            x->kind != Kind::Lambda;
  });
  return !items.empty() && plain && !may_fail(body, *unit, 0) && !has_row_reduction(st, s->def);
}

bool Gen::reduce_lanes(const NodeRef& s) {
  NodeRef r;
  std::vector<NodeRef> items;
  if (!lanes_form(s, r, items)) return false;
  LoopSpec sp = loop_spec(s);
  const NodeRef& st = ir::lfor_body(s);
  const NodeRef& body = ir::lreduce_body(r);
  const auto op = ir::reduce_op_from_name(r->name);
  const DType rdt = dtype_of(r);
  const bool wide = *op == Op::Sum && rdt == DType::F32;
  const DType lt = wide ? DType::F64 : rdt;
  const std::string LT = ctype(lt), B = std::to_string(kLanes) + "LL";
  Val lo = index(sp.lo), hi = index(sp.hi);
  const int bits = std::max(lo.bits, hi.bits);
  auto index_val = [&](const std::string& c, int b) {
    Val v{c, DType::I64, em.depth(), true};
    v.bits = b;
    return v;
  };
  const size_t m0 = mark();
  const std::string jb = em.fresh("jb"), je = jb + "e", acc = em.fresh("lane");
  em.open("for (int64_t " + jb + " = " + lo.c + "; " + jb + " < " + hi.c + "; " + jb + " += " + B + ") {", false);
  em.line(stop_check());
  em.line("const int64_t " + je + " = ((uint64_t)" + hi.c + " - (uint64_t)" + jb + " > " + B + ") ? " + jb + " + " + B +
          " : " + hi.c + ";");
  em.line(LT + " " + acc + "[" + std::to_string(kLanes) + "];");
  em.line("for (int64_t q = 0; q < " + je + " - " + jb + "; ++q) " + acc + "[q] = " + identity(*op, lt) + ";");
  // Rows read through an index tensor, one per term (`T[idx[b, l], d]`: an embedding bag, a
  // sum over a graph's neighbours): each term's row is a cache miss whose address is known
  // only once the index is read, so the loop waits for one row at a time. The rows of the
  // first kPrefetch terms are prefetched before the reduction's loop, and each term prefetches
  // the row of the term kPrefetch later (clamped to the last term: every index read stays one
  // the reduction makes; a prefetch never faults). Single-variable reductions only.
  std::vector<NodeRef> rows;
  if (items.size() == 1)
    ir::for_each_node(body, [&](const NodeRef& x) {
      if (x->kind != Kind::Index || x->has(ir::kWindowed) || ir::index_base(x)->kind != Kind::Name) return;
      const auto& subs = ir::index_args(x);
      if (subs.size() < 2 || subs.back()->kind != Kind::Name || subs.back()->def != s->def) return;
      bool indirect = false;
      for (size_t a = 0; a + 1 < subs.size(); ++a) {
        if (mentions_def(subs[a], s->def)) return;
        ir::for_each_node(subs[a], [&](const NodeRef& y) {
          indirect = indirect || (y->kind == Kind::Index && mentions_def(y, items[0]->def));
        });
      }
      if (indirect) rows.push_back(x);
    });
  auto prefetch = [&](const std::string& at, int at_bits) {
    const size_t m = mark();
    bind(items[0]->def, index_val(at, at_bits));
    for (const NodeRef& x : rows) {
      const int b = buffer_of(ir::index_base(x));
      std::vector<std::string> xs;
      const auto& subs = ir::index_args(x);
      for (size_t a = 0; a + 1 < subs.size(); ++a) xs.push_back(index(subs[a]).c);
      xs.push_back(jb);
      const std::string bytes = std::to_string(dtype_storage_bytes(k.bufs[static_cast<size_t>(b)].dt));
      em.line("for (int64_t q = 0; q < (" + je + " - " + jb + ") * " + bytes + "; q += 64) __builtin_prefetch((const char*)(b" +
              std::to_string(b) + " + " + flat(b, xs, false) + ") + q);");
    }
    unbind_to(m);
  };
  // The reduction's loops, its variables bound to their values.
  for (const NodeRef& it : items) {
    Val a = index(ir::loopvar_lo(*it)), b = index(ir::loopvar_hi(*it));
    const int vbits = std::max(a.bits, b.bits);
    if (!rows.empty()) {
      const std::string pv = em.fresh("pv");
      em.open("for (int64_t " + pv + " = " + a.c + "; " + pv + " < " + b.c + " && " + pv + " - " + a.c + " < " + kPrefetch +
                  "; ++" + pv + ") {",
              false);
      prefetch(pv, vbits);
      em.close();
    }
    const std::string v = em.fresh("kv");
    em.open("for (int64_t " + v + " = " + a.c + "; " + v + " < " + b.c + "; ++" + v + ") {", false);
    bind(it->def, index_val(v, vbits));
    if (!rows.empty()) prefetch("ein_imin(ein_iadd(" + v + ", " + kPrefetch + "), ein_isub(" + b.c + ", 1))", vbits);
  }
  // The vector loop over the points [from, to) of the block, adding one term to each.
  auto vector_loop = [&](const std::string& from, const std::string& to) {
    const std::string j = em.fresh("ix");
    em.open("#pragma omp simd\nfor (int64_t " + j + " = " + from + "; " + j + " < " + to + "; ++" + j + ") {", false);
    const bool saved_simd = in_simd;
    in_simd = true;
    const size_t mj = mark();
    bind(s->def, index_val(j, bits));
    Val term = convert(value(body), lt);
    const std::string lane = acc + "[" + j + " - " + jb + "]";
    em.line(lane + " = " + combine(*op, lt, lane, term.c) + ";");
    unbind_to(mj);
    in_simd = saved_simd;
    em.close();
  };
  // A clamped read along the points (`X[.., clampi(ow * s + b - p, 0, W - 1)]`: std max_pool's
  // edge padding): the points whose value lies between the bounds read it as it is (clamp_split).
  ClampSplit cs;
  if (clamp_split(s, body, bits, cs)) {
    const std::string m1 = em.fresh("cm"), m2 = m1 + "b";
    em.line("const int64_t " + m1 + " = ein_imin(ein_imax(" + cs.first + ", " + jb + "), " + je + ");");
    em.line("const int64_t " + m2 + " = ein_imin(ein_imax(" + cs.last1 + ", " + m1 + "), " + je + ");");
    vector_loop(jb, m1);
    clamp_at_[cs.clamp->id] = ClampAt{cs.coef, cs.rest, s->def};
    vector_loop(m1, m2);
    clamp_at_.erase(cs.clamp->id);
    vector_loop(m2, je);
  } else {
    vector_loop(jb, je);
  }
  for (size_t i = 0; i < items.size(); ++i) em.close();
  unbind_to(m0);
  // The store loop over the block, the reduction read from its accumulator.
  precomputed_[r->id] = Dest{"(" + acc + " - " + jb + ")", {s->def}, {"1LL"}};
  LoopSpec fs = sp;
  fs.lo_c = jb;
  fs.hi_c = je;
  fs.bits = bits;
  fs.loop = nullptr;
  fs.innermost = true;
  fs.simd = true;
  fs.parallel = false;
  open_loop(fs);
  stmt(st);
  close_loop();
  precomputed_.erase(r->id);
  em.close();
  if (!rows.empty())
    k.plan.push_back("prefetch: the rows of " + std::to_string(rows.size()) + " read(s) through an index, " + kPrefetch.substr(0, 2) +
                     " terms ahead");
  if (cs.clamp)
    k.plan.push_back("clamp split: the points of `" + s->name + "` whose clamped index is inside its bounds read it unclamped");
  k.plan.push_back("lanes: " + r->name + " over " + std::to_string(items.size()) + " index(es) outside the point loop, " +
                   std::to_string(kLanes) + " points of `" + s->name + "` at a time in vector lanes");
  return true;
}

}  // namespace ein::codegen
