#pragma once

namespace ein {
struct CompileCtx;

// Compile-time automatic differentiation (SPEC §7, thesis ch. 6). Runs after type, range and
// shape analysis of the cell, on its high-level IR:
//  - `@y / @x` becomes ordinary IR computing ∂y/∂x with shape shape(y) ++ shape(x): the
//    definitions between x and y (this cell, earlier cells, inlined functions) form a tape; a
//    reverse sweep writes each adjoint as an Einstein declaration (adjoints of recurrences are
//    reverse recurrences). A Jacobian read only at constant rows or only at constant columns
//    stays lazy: each `J[r]` is one VJP, each `J[i.., c]` one JVP placed before the statement;
//    a target point `@h[t] / @x` is a scalar target. A Jacobian observed whole is built by
//    forward mode (ad_jvp.cpp: tangent declarations in definition order, tangent recurrences
//    run forward; one sweep per element of x) when both sizes are known and x has fewer
//    elements than y, else row by row in reverse mode.
//  - custom rules (`@fn`) and every math intrinsic have derivative rules; integer and bool
//    bindings have zero derivative.
//  - anything else (an unnamed target, a comprehension, ...) is E013 naming the construct.
// After a rewrite the driver analyses the cell again; check_no_autodiff_left() then verifies
// that no `@` node survived (the leak check).
void differentiate(CompileCtx& cx);
void check_no_autodiff_left(CompileCtx& cx);

}  // namespace ein
