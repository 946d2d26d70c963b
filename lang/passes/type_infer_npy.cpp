// Static types for `load_npy` with a literal path (SPEC §3: a load is typed only at run time
// unless annotated). An unannotated load was dynamic, and everything computed from it: library
// functions written with rest patterns could not be typed (`mean(x)` was E004), gradients
// through it were E013, and nothing ran as a native kernel. When the path is a string literal
// (written at the call or passed on through library parameters, like einsum's equation) the
// array's type is known before the cell runs:
//   - from the latest `save_npy` of the same literal path typed so far in this cell: the type it
//     writes (bf16 is written as f32, a scalar as a 0-d array that loads as a scalar);
//   - else from the file's header on disk, unless this cell may write that file (a save, copy or
//     move naming it, or any such call whose path is not a literal).
// The element type and rank become static; extents stay run-time facts. The interpreter checks
// the loaded array against this type (engine/interp/call.cpp): a file changed between compiling
// and running is E002, never a value of another type read as this one.
#include "lang/passes/type_infer_impl.h"
#include "lang/ir/visitor.h"

#include <array>

namespace ein {

using ir::Kind;
using ir::NodeRef;
using ir::Type;
using ir::TypeRef;

namespace {

// Calls that write a file and the argument that names it.
struct Writer {
  const char* name;
  size_t path_arg;
};
constexpr std::array<Writer, 6> kWriters{{{"save_npy", 0}, {"__save_npy", 0}, {"write_file", 0},
                                          {"append_file", 0}, {"copy_file", 1}, {"move_file", 1}}};

// What a save of a value of type `t` reads back as, nullptr when that is not known yet.
TypeRef written_type(const TypeRef& t) {
  auto file_dtype = [](DType d) { return d == DType::BF16 ? DType::F32 : d; };
  if (!t) return nullptr;
  if (t->k == Type::K::Scalar) return ir::t_scalar(file_dtype(t->dtype));
  if (t->k != Type::K::Array || t->rank < 0 || !t->elem || t->elem->k != Type::K::Scalar) return nullptr;
  if (t->rank == 0) return ir::t_scalar(file_dtype(t->elem->dtype));
  return ir::t_array(ir::t_scalar(file_dtype(t->elem->dtype)), t->rank);
}

}  // namespace

TypeRef Infer::npy_load(const NodeRef& call) {
  NodeRef lit = literal_arg(ir::call_args(call)[0]);
  if (!lit || lit->kind != Kind::StrLit) return ir::t_unknown();
  const std::string& path = lit->name;
  if (auto it = cx.npy_saved.find(path); it != cx.npy_saved.end())
    return it->second ? it->second : ir::t_unknown();
  if (!cx.npy_written) {
    // Which files may this cell write? Its whole tree, functions it defines included.
    cx.npy_written.emplace();
    ir::for_each_node(cx.units[0]->body, [&](const NodeRef& n) {
      if (n->kind != Kind::Call) return;
      const NodeRef& callee = ir::call_callee(n);
      std::string_view name = callee->def.valid() && cx.resolver.info(callee->def).kind != DefKind::Local
                                  ? std::string_view(cx.resolver.info(callee->def).name)
                                  : callee->path.empty() ? std::string_view(callee->name)
                                                         : std::string_view(callee->path.back());
      for (const Writer& w : kWriters) {
        if (name != w.name) continue;
        ir::Kids args = ir::call_args(n);
        if (w.path_arg < args.size() && args[w.path_arg]->kind == Kind::StrLit) cx.npy_written->insert(args[w.path_arg]->name);
        else cx.npy_unnamed_writes = true;
      }
    });
  }
  if (cx.npy_unnamed_writes || cx.npy_written->count(path) || !cx.opt.npy_probe) return ir::t_unknown();
  TypeRef t = cx.opt.npy_probe(path);
  return t ? t : ir::t_unknown();
}

void Infer::npy_save(const NodeRef& call, const TypeRef& value) {
  NodeRef lit = literal_arg(ir::call_args(call)[0]);
  if (!lit || lit->kind != Kind::StrLit) return;
  // A value whose type is still open (a literal not yet fixed by its uses) or dynamic leaves the
  // file's type unknown to later loads; nullptr records that.
  cx.npy_saved[lit->name] = written_type(ts.deep(value, false));
}

}  // namespace ein
