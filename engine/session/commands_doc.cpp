// %doc NAME, ?NAME, NAME?: signature and doc comment of a function, builtin, constant, binding
// or module.
#include "engine/session/commands.h"

#include <utility>

namespace ein::cmd {

const std::vector<BuiltinDoc>& builtin_docs() {
  static const std::vector<BuiltinDoc> table = {
      {"print", "print(a, b, ...) -> ()",
       "Writes its arguments separated by one space, then a newline. Strings print raw,\n"
       "floats as the shortest text that reads back to the same value."},
      {"assert", "assert(cond: bool) -> ()  |  assert(cond: bool, msg: str) -> ()",
       "Stops the program with error E007 (and the message, if given) when cond is false."},
      {"len", "len(a) -> i32",
       "Extent of an array's first axis, or the number of characters of a string."},
      {"shape", "shape(a) -> [i32]", "The extents of an array, one per axis."},
      {"typeof", "typeof(v) -> str",
       "The type of a value as text: \"i32\", \"[f32; 2, 3]\", \"(i32, str)\"."},
      {"array_append", "array_append(a: [T], v: T) -> [T]",
       "A new array with v added at the end; a itself is unchanged."},
      {"sum", "sum(a: [T; *]) -> T",
       "Sum of all elements (0 for an empty array). As sum[i](e) it is the reduction over i."},
      {"max", "max(a: [T; *]) -> T",
       "Largest element: -inf for an empty float array, error E006 for an empty integer array.\n"
       "As max[i](e) it is the reduction over i."},
      {"min", "min(a: [T; *]) -> T",
       "Smallest element: +inf for an empty float array, error E006 for an empty integer array.\n"
       "As min[i](e) it is the reduction over i."},
      {"prod", "prod(a: [T; *]) -> T",
       "Product of all elements (1 for an empty array). As prod[i](e) it is the reduction over i."},
  };
  return table;
}

namespace {

std::string type_text(const ir::NodeRef& t) {
  if (!t) return "?";
  switch (t->kind) {
    case ir::Kind::TyPrim: return t->name;
    case ir::Kind::TyJagged: return "jagged[" + type_text(ir::tyjagged_elem(t)) + "]";
    case ir::Kind::TyArray: {
      std::string s = "[" + type_text(ir::tyarray_elem(t));
      if (t->has(ir::kAnyRank)) return s + "; *]";
      const char* sep = "; ";
      for (const ir::NodeRef& d : ir::tyarray_dims(t)) {
        s += std::exchange(sep, ", ");
        s += d->ival >= 0 ? std::to_string(d->ival) : "?";
      }
      return s + "]";
    }
    case ir::Kind::TyTuple: {
      std::string s = "(";
      const char* sep = "";
      for (const ir::NodeRef& e : ir::tytuple_elems(t)) s += std::exchange(sep, ", ") + type_text(e);
      return s + ")";
    }
    case ir::Kind::TyFn: {
      std::string s = "(";
      const char* sep = "";
      for (const ir::NodeRef& p : ir::tyfn_params(t)) s += std::exchange(sep, ", ") + type_text(p);
      return s + ") -> " + type_text(ir::tyfn_ret(t));
    }
    default: return "?";
  }
}

std::string indent(const std::string& text) {
  std::string out = "    ";
  for (char ch : text) {
    out += ch;
    if (ch == '\n') out += "    ";
  }
  return out + "\n";
}

std::string first_line(const std::string& s) {
  size_t e = s.find('\n');
  return e == std::string::npos ? s : s.substr(0, e) + " ...";
}

}  // namespace

std::string signature_of(const ir::NodeRef& fn, const std::string& name) {
  if (!fn || (fn->kind != ir::Kind::Fn && fn->kind != ir::Kind::DiffFn)) return name;
  std::string s = "fn " + (fn->name.empty() ? name : fn->name) + "(";
  const char* sep = "";
  for (const ir::NodeRef& p : ir::fn_params(fn)) {
    s += std::exchange(sep, ", ") + p->name;
    if (const ir::NodeRef& ty = ir::param_type(p)) s += ": " + type_text(ty);
  }
  s += ")";
  if (const ir::NodeRef& ret = ir::fn_ret_type(fn)) s += " -> " + type_text(ret);
  return s;
}

void cmd_doc(Call& c) {
  std::string name = trim(c.args);
  int detail = 0;
  if (std::string q = help_query(name, &detail); !q.empty()) name = q;  // `%doc f??`
  auto path = ir::ModPath::parse(name);
  if (!path) throw Error("usage: %doc NAME   (or ?NAME, NAME?, NAME?\?)");
  c.out.text = doc_text(c.session, *path, detail);
}

std::string doc_text(Session& s, const ir::ModPath& path, int detail) {
  auto info = s.name_info(path);
  const std::string name = path.text();
  if (!info && path.size() == 1) {
    // A library function the session has not imported: its documentation, and the `use` that
    // brings it in (a teaching session asks `?relu` before it knows where relu lives).
    auto homes = s.std_homes(name);
    if (!homes.empty()) {
      std::string out = doc_text(s, homes[0] / name, detail);
      out += "not imported: `use " + (homes[0] / name).text() + ";`";
      if (homes.size() > 1) out += " (also in `" + homes[1].text() + "`)";
      return out + "\n";
    }
  }
  if (!info) {
    // Module paths are not bindings; their items say what they are.
    auto items = path.size() > 1 || path.is_std() ? s.module_children(path) : std::vector<std::string>{};
    if (items.empty()) throw Error("`" + name + "` is not defined in this session");
    Session::NameInfo m;
    m.name = name;
    m.kind = Session::NameKind::Module;
    info = m;
  }
  std::string out;
  if (info->kind == Session::NameKind::Builtin) {
    for (auto& b : builtin_docs())
      if (name == b.name) out = std::string(b.signature) + "\n" + indent(b.doc);
    if (out.empty()) out = name + ": builtin\n";
  } else if (info->kind == Session::NameKind::Fn) {
    out = signature_of(info->node, name) + "\n";
    if (!info->doc.empty()) out += indent(info->doc);
  } else if (info->kind == Session::NameKind::Module) {
    out = "module " + name + "\n";
    // Items wrapped to lines of about 72 columns.
    std::string text, line;
    for (auto& it : s.module_children(path)) {
      if (!line.empty() && line.size() + it.size() + 2 > 72) {
        text += line + ",\n";
        line.clear();
      }
      line += (line.empty() ? "" : ", ") + it;
    }
    if (!line.empty()) out += indent(text + line);
  } else {
    auto v = s.value_of(name);
    out = (info->kind == Session::NameKind::Const ? "const " : "") + name + (v ? ": " + type_string(*v) : "") + "\n";
    if (!info->doc.empty()) out += indent(info->doc);
  }
  if (detail > 0 && !info->source.empty()) {
    // NAME??: the whole defining source, as IPython shows it.
    out += "defined at " + info->source_name + ":" + std::to_string(info->line) + "\n" + info->source;
    if (info->source.back() != '\n') out += "\n";
  } else if (!info->source.empty() && info->kind != Session::NameKind::Fn) {
    out += "defined at " + info->source_name + ":" + std::to_string(info->line) + ": " +
           first_line(info->source) + "\n";
  } else if (!info->source_name.empty()) {
    out += "defined at " + info->source_name + ":" + std::to_string(info->line) + "\n";
  }
  return out;
}

}  // namespace ein::cmd
