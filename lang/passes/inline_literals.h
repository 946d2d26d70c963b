#pragma once
#include "lang/ir/node.h"

namespace ein {
struct CompileCtx;

// Literal constants take the type of their context (SPEC §3) at every use: a use of an
// unannotated `const PI = 3.14159...;` and a call of a zero-argument function whose value is a
// literal (std::math::pi()) are replaced by a copy of that literal, so an f64 program gets f64
// precision and an f32 program f32 from the same definition.
ir::NodeRef inline_literals(const ir::NodeRef& body, CompileCtx& cx);
}  // namespace ein
