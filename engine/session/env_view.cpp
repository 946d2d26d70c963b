#include "engine/session/env_view.h"

namespace ein {

ir::TypeRef type_of_value(const Value& v) {
  switch (v.tag) {
    case Value::Tag::Unit: return ir::t_unit();
    case Value::Tag::Bool: return ir::t_bool();
    case Value::Tag::Int:
    case Value::Tag::Float: return ir::t_scalar(v.dt);
    case Value::Tag::Str: return ir::t_str();
    case Value::Tag::Tensor: {
      const Tensor& t = v.tensor_ref();
      if (t.rank() == 0) return ir::t_scalar(t.dtype());
      return ir::t_array(ir::t_scalar(t.dtype()), t.rank());
    }
    case Value::Tag::Tuple: {
      std::vector<ir::TypeRef> es;
      for (auto& x : v.items()) es.push_back(type_of_value(x));
      return ir::t_tuple(std::move(es));
    }
    case Value::Tag::List:
      return ir::t_list(v.items().empty() ? ir::t_unknown() : type_of_value(v.items()[0]));
    case Value::Tag::Range: return ir::t_range(ir::t_i32());
    case Value::Tag::Func: {
      const auto& c = static_cast<const Closure&>(v.func_ref());
      switch (c.kind) {
        case Closure::Kind::Fn: return ir::t_fn_item(c.def);
        case Closure::Kind::Builtin: return ir::t_builtin(c.def);
        case Closure::Kind::Lambda: return ir::t_lambda(c.lambda, nullptr);
      }
      return ir::t_unknown();
    }
  }
  return ir::t_unknown();
}

const Value* EnvView::find(ir::DefId d) const {
  auto it = env_.globals.find(d);
  if (it != env_.globals.end()) return &it->second;
  // Variables captured by closures of earlier cells: their values live in the closures.
  for (auto& [def, v] : env_.globals) {
    if (v.tag != Value::Tag::Func) continue;
    const auto& c = static_cast<const Closure&>(v.func_ref());
    for (size_t i = 0; i < c.capture_defs.size() && i < c.captures.size(); ++i)
      if (c.capture_defs[i] == d) return &c.captures[i];
  }
  return nullptr;
}

ir::TypeRef EnvView::type_of(ir::DefId d) const {
  const Value* v = find(d);
  return v ? type_of_value(*v) : nullptr;
}

std::optional<std::vector<int64_t>> EnvView::shape_of(ir::DefId d) const {
  const Value* v = find(d);
  if (!v) return std::nullopt;
  if (v->tag == Value::Tag::Tensor) {
    std::vector<int64_t> s = v->tensor_ref().shape();
    if (v->window.rows > 0 && !s.empty()) s[0] = v->window.logical0;
    return s;
  }
  if (v->is_scalar()) return std::vector<int64_t>{};
  return std::nullopt;
}

std::optional<int64_t> EnvView::int_value(ir::DefId d) const {
  auto it = env_.globals.find(d);
  if (it == env_.globals.end() || it->second.tag != Value::Tag::Int) return std::nullopt;
  return it->second.i;
}

}  // namespace ein
