#pragma once

namespace ein {
struct CompileCtx;

// Range analysis (SPEC §5.2, thesis §4.4.2). Every index variable of an Einstein clause or a
// reduction gets a [lo, hi) range as integer IR, keyed by its DefId (Unit::ranges):
//  - explicit `i in a..b` is taken as written and never narrowed;
//  - a plain use X[.., i, ..] gives 0..dim(X, axis); several plain uses must agree (AgreeFact,
//    checked by shape analysis at compile time or by a runtime check);
//  - an offset use X[i + c] (or a where-derived index p = o + k) narrows the range so the access
//    stays in bounds; multi-index offsets apply once the other indices have ranges;
//  - self-reads of a recurrence only raise the lower bound (x[t - 1] needs t >= 1).
// Accesses whose bounds follow from the inferred ranges are recorded in Unit::proven.
// An index with no range source is E004 with a help line.
void range_analysis(CompileCtx& cx);
}  // namespace ein
