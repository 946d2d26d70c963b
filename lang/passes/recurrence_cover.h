#pragma once

namespace ein {
struct CompileCtx;

// Coverage of recurrences (SPEC §5.5), on lowered LTensors before recurrence ordering. Every
// point a clause reads of its own tensor must be defined by some clause: a missing base case
// (`let x[t in 1..8] = x[t - 1] * 0.5;` alone reads x[0]) never reads a silent zero.
//  - The points a self-read can touch form a box (exact when the read is unconditional and each
//    axis is one loop variable plus an offset; else a hull from the loops' bounds). Reads
//    outside the allocation are left to the bounds checks (E005).
//  - A box provably inside the union of the clauses' domains needs nothing (box_cover.h works
//    with symbolic bounds like `n - 1`, so most recurrences over run-time extents are proven).
//  - Otherwise an exact read whose uncovered points are certain is E012 at compile time, with
//    the missing points named; one whose extents are only known at run time gets one LCheck
//    before the clauses run (points counted by inclusion-exclusion); any other read is checked
//    where it happens (a Block of an LCheck and the read).
//  - In a session, a top-level definition that could join the previous cell's definition of
//    its name (SPEC §11) is not reported: its name goes to CompileCtx::join_requests and the
//    driver compiles the cell again with the clauses joined (group_einstein).
void recurrence_cover(CompileCtx& cx);
}  // namespace ein
