#pragma once

namespace ein {
struct CompileCtx;

// Einstein lowering (thesis §5.3): every unit's analysed body becomes Unit::lowered, where
//  - an EinGroup is an LTensor: allocation shape (per-axis max of the clauses' extents), runtime
//    agreement checks (LCheck) for extents shape analysis could not decide, and one loop nest per
//    clause (LFor per index, literal slots as constant store indices) around where-lets (LLet),
//    guards (LIf, with the `else` value or the implicit 0) and the LStore of the value;
//  - a reduction is an LReduce over LoopVars whose body carries its where-lets (LLetIn) and
//    guards (LGuard: a skipped point contributes the identity);
//  - any other where becomes LLetIn / If around its value.
// Item statements (fn, use, ...) become LNop. Lambda bodies are lowered in their own units.
void lower_einstein(CompileCtx& cx);
}  // namespace ein
