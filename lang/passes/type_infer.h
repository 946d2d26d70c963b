#pragma once
#include "lang/ir/node.h"
#include "lang/ir/type.h"

namespace ein {
struct CompileCtx;
struct Unit;

// Type inference with context-typed literals and monomorphisation (SPEC §3, §6; thesis §4.4.4,
// §4.5). Infers the cell unit; every call of a generic function or lambda creates (or reuses) a
// specialisation unit keyed by the callee and its argument types (element types and ranks, not
// extents), whose body is inferred in turn. Literals get the type their context demands and
// default to i32 / f32. Fills Unit::types, def_types, call_targets and rest_len; E002/E003/E004.
void type_infer(CompileCtx& cx);

// The analysis prefix every function body gets before its first specialisation
// (grouping, where classification); cached per function.
ir::NodeRef prepared_body(CompileCtx& cx, ir::DefId fn);

// Type denoted by an annotation node (TyPrim, TyArray, ...); E002 for unknown type names.
ir::TypeRef type_from_annotation(const ir::NodeRef& ty, CompileCtx& cx);

}  // namespace ein
