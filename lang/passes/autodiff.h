#pragma once

namespace ein {
struct CompileCtx;

// Compile-time automatic differentiation (SPEC §7, thesis ch. 6). Runs after type, range and
// shape analysis of the cell, on its high-level IR:
//  - `@y / @x` becomes ordinary IR computing ∂y/∂x with shape shape(y) ++ shape(x): the
//    definitions between x and y (this cell, earlier cells, inlined functions) form a tape; a
//    reverse sweep writes each adjoint as an Einstein declaration (adjoints of recurrences are
//    reverse recurrences). A tensor target is materialised row by row (one VJP per row); a
//    target point `@h[t] / @x` is a scalar target.
//  - custom rules (`@fn`) and every math intrinsic have derivative rules; integer and bool
//    bindings have zero derivative.
//  - anything else (an unnamed target, a comprehension, ...) is E013 naming the construct.
// After a rewrite the driver analyses the cell again; check_no_autodiff_left() then verifies
// that no `@` node survived (the leak check).
void differentiate(CompileCtx& cx);
void check_no_autodiff_left(CompileCtx& cx);

}  // namespace ein
