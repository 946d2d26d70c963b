// The tile plan (a pass after fusion_plan, on the lowered IR): which two-deep parallel nests
// native code walks in square cache blocks instead of row by row. In `S[i, j] = A[i, j] +
// A[j, i]` the inner loop over j walks `A[j, i]` a whole row per element: every read touches a
// new cache line. Walking (i, j) in 64 × 64 tiles keeps the tile's rows of S and the transposed
// columns of A in cache, so each line fetched is used 16 times (f32) instead of once.
//
// The rule is the loop structure, not the program: an LFor flagged parallel (and nothing else)
// whose body is one parallel LFor around one store into the clause's tensor, contiguous in the
// inner variable with the outer one just before it, inner bounds not moving with the outer, no
// reduction or block in the stored value, and some read — not of a producer fused into this
// tensor (fusion_plan), which is computed at the point, not loaded — with the outer variable on
// its last axis and the inner one before it. Nests known to be under 128 on either side fit in
// cache whole. Codegen prints the blocked nest (engine/codegen/gen_block.cpp) where it may open
// a parallel loop; the interpreter ignores the plan. %ir shows it on the loop's line.
#pragma once
#include <cstdint>
#include <string>

namespace ein {

struct CompileCtx;

// Unit::tiles, keyed by the outer LFor's node id.
struct TileFact {
  int64_t size = 64;    // the tile's side, in points
  std::string read;     // the tensor read transposed (for %ir)
};

void tile_plan(CompileCtx& cx);

}  // namespace ein
