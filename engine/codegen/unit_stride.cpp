// Loop versioning on a run-time stride of one: the vector loop over v reads a tensor along its
// contiguous axis at `v * s + ..` with s an integer fixed before the loop (a kernel scalar),
//
//     let Xc[.., k, n, o] = Xp[n, c, o * s0 + k * d0];                 // std conv's im2col copy
//     let R[.., h, ow] = sum[b in 0..k1](Xp[n, c, h, ow * s1 + b]);    // std average_pool
//
// and is emitted three times: `if (s == 1)` with s bound to the literal 1, `if (s == 2)` with 2
// (pooling and strided convolutions that halve a row: two loads and a shuffle per vector), else
// as before. With a
// stride the compiler does not know, each vector of the loop is a gather (GCC 12 does not
// version on a symbolic stride itself); with 1 it is one contiguous load. A C++ model of
// average_pool's row pass (64 × 114 rows of 112 sums, f32 in f64 lanes, one thread): run-time
// stride 0.53 ms, stride known to be 1 0.25 ms. Library layers take strides as arguments, and
// most calls pass 1, so this is where their copies and window sums lose their vectors.
//
// Which loops: an innermost vector loop (the simd loop the body is printed in), or the point
// loop reduce_lanes will put in vector lanes (the reduction's loops outside it). Not inside
// another simd loop, not in the cold checked copy of a clause, and only loops whose body is
// small (small_vector_loop's bound; the lanes form: its reduction's body), since the nest is
// printed three times. The values are the same bits: the version for 1 (2) runs exactly when s
// is 1 (2). std max_pool 3x3 stride 2 on 64 x 112 x 112 f32, one thread, 200 calls (load 13):
// 1.50 ms a call with the versions for 1 only, 1.36 ms with 2 as well.
#include "engine/codegen/gen.h"

namespace ein::codegen {

using ir::Kind;
using ir::NodeRef;
using ir::BinOp;

namespace {

NodeRef strip_casts(NodeRef e) {
  while (e && e->kind == Kind::Cast) e = e->kids[0];
  return e;
}

}  // namespace

// The names s of the terms `v * s` / `s * v` in e's additive structure (v the loop's variable,
// possibly through a cast), s a scalar integer name fixed before the loop.
void Gen::stride_names(const NodeRef& loop, const NodeRef& e0, std::vector<NodeRef>& out) {
  const NodeRef e = strip_casts(e0);
  // A clamped index (std max_pool's edge padding): its interior points read at the value
  // itself (clamp_split.cpp).
  NodeRef v, lo, hi;
  if (e && (e->kind == Kind::If || e->kind == Kind::Call) && clamp_parts(e, v, lo, hi)) {
    stride_names(loop, v, out);
    return;
  }
  if (!e || e->kind != Kind::Binary) return;
  const auto op = static_cast<BinOp>(e->ival);
  if (op == BinOp::Add || op == BinOp::Sub) {
    stride_names(loop, ir::bin_lhs(*e), out);
    stride_names(loop, ir::bin_rhs(*e), out);
    return;
  }
  if (op != BinOp::Mul) return;
  for (int side = 0; side < 2; ++side) {
    const NodeRef v = strip_casts(side ? ir::bin_rhs(*e) : ir::bin_lhs(*e));
    const NodeRef c = strip_casts(side ? ir::bin_lhs(*e) : ir::bin_rhs(*e));
    if (!v || !c || v->kind != Kind::Name || v->def != loop->def || c->kind != Kind::Name) continue;
    const DType dt = dtype_of(c);
    if (!is_int(dt) || !fixed_before(loop, c)) continue;
    if (const Val* b = lookup(c->def); b && (b->index || b->is_const)) continue;  // a loop variable, or decided
    bool seen = false;
    for (const NodeRef& o : out) seen = seen || o->def == c->def;
    if (!seen) out.push_back(c);
  }
}

bool Gen::unit_stride(const NodeRef& loop) {
  if (in_simd || checked_copy_ || stride_busy_.count(loop->id) || loop->has(ir::kSequential) || loop->has(ir::kReverse))
    return false;
  NodeRef scan;  // what the vector loop over `loop`'s variable evaluates
  if (small_vector_loop(loop)) {
    scan = ir::lfor_body(loop);
  } else {
    NodeRef r;
    std::vector<NodeRef> items;
    if (!lanes_form(loop, r, items)) return false;
    scan = ir::lreduce_body(r);
    size_t nodes = 0;
    ir::for_each_node(scan, [&](const NodeRef&) { ++nodes; });
    if (nodes > 400) return false;
  }
  // Reads along the contiguous (last) axis of a tensor.
  std::vector<NodeRef> names;
  ir::for_each_node(scan, [&](const NodeRef& x) {
    if (x->kind != Kind::Index || ir::index_base(x)->kind != Kind::Name) return;
    const auto& subs = ir::index_args(x);
    if (subs.empty() || ir::rank_of(type_of_def(ir::index_base(x))) != static_cast<int>(subs.size())) return;
    stride_names(loop, subs.back(), names);
  });
  if (names.empty()) return false;
  const NodeRef c = names.front();  // one version per loop: the first such stride
  const DType dt = dtype_of(c);
  const std::string note = "stride: a read along the contiguous axis steps by a run-time `" + c->name +
                           "`; the vector loop has versions for " + c->name + " == 1 (contiguous loads) and 2";
  if (std::find(k.plan.begin(), k.plan.end(), note) == k.plan.end()) k.plan.push_back(note);
  const Val cv = value(c);
  const std::string u = em.fresh("us");
  em.line("const int64_t " + u + " = " + cv.c + ";");
  const bool saved = counting_;
  stride_busy_.insert(loop->id);
  // Versions for 1 and 2 (a stride of two: pooling and convolutions that halve a row, loads of
  // two vectors and a shuffle instead of a gather), then the general one.
  for (int one : {1, 2, 0}) {
    const std::string test = one ? u + " == " + std::to_string(one) : u + " != 1 && " + u + " != 2";
    em.open("if (" + test + ") {", true);
    const size_t m = mark();
    if (one) {
      Val lit = literal("((" + std::string(ctype(dt)) + ")" + std::to_string(one) + ")", dt);
      lit.is_const = true;
      lit.ival = one;
      bind(c->def, lit);
    }
    stmt(loop);
    unbind_to(m);
    em.close();
    counting_ = false;  // accesses are counted once, not per version
  }
  stride_busy_.erase(loop->id);
  counting_ = saved;
  return true;
}

}  // namespace ein::codegen
