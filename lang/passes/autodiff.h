#pragma once

#include <vector>

#include "lang/syntax/source.h"

namespace ein {
struct CompileCtx;

// Compile-time automatic differentiation (SPEC §7, thesis ch. 6). Runs after type, range and
// shape analysis of the cell, on its high-level IR. Requests are local expressions (thesis
// §2.3): the scope walk (ad_scope.cpp) finds them in every scope of the cell and of every
// function or closure specialisation, with the definitions visible there; a specialisation's
// rewritten body is used when the cell is analysed again (CompileCtx::ad_bodies). Indexed
// requests `@h[t, j] / @theta[j]` choose a mode per request (ad_indexed.cpp).
//  - `@y / @x` becomes ordinary IR computing ∂y/∂x with shape shape(y) ++ shape(x): the
//    definitions between x and y (this cell, earlier cells, inlined functions) form a tape; a
//    reverse sweep writes each adjoint as an Einstein declaration (adjoints of recurrences are
//    reverse recurrences). A Jacobian read only at constant rows or only at constant columns
//    stays lazy: each `J[r]` is one VJP, each `J[i.., c]` one JVP placed before the statement;
//    a target point `@h[t] / @x` is a scalar target. A Jacobian observed whole is built by
//    forward mode (ad_jvp.cpp: tangent declarations in definition order, tangent recurrences
//    run forward; one sweep per element of x) when both sizes are known and x has fewer
//    elements than y, else row by row in reverse mode. A scalar parameter of a scalar target
//    through a wide, long f64 recurrence affine in its own rows (at most two such parameters per
//    target) also takes forward mode: its tangent runs in the primal's time loop (the
//    checkpoint pass), so the reverse sweep of the other parameters needs no row of the primal
//    (ad_request.cpp `tangent_first`).
//  - custom rules (`@fn`) and every math intrinsic have derivative rules; integer and bool
//    bindings have zero derivative.
//  - anything else (an unnamed target, a comprehension, ...) is E013 naming the construct.
// After a rewrite the driver analyses the cell again (and differentiates again while requests
// wait for facts of this round's rewrites); check_no_autodiff_left() then verifies structurally
// that no `@` node survived in any unit or nested scope (E013 naming where it stands).
void autodiff(CompileCtx& cx);
void check_no_autodiff_left(CompileCtx& cx);
// The spans of every derivative request in the cell and its function specialisations, taken
// before autodiff runs; an error a later pass reports inside one of them (E002, E004, E012 in
// the generated derivative code) becomes the request's E013, the original kept in a note.
std::vector<Span> request_spans(const CompileCtx& cx);
void blame_requests(CompileCtx& cx, const std::vector<Span>& requests);

}  // namespace ein
