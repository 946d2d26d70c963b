// Intrinsics of the standard library that Einlang cannot express: file-system operations for
// std::io, checks that raise a chosen error code, and the operations whose result type is only
// known when they run (reshape to a shape held in an array, cast to a type named by a value).
//
// Paths are untrusted strings: every failure of the operating system is Fault E009 with its
// message; nothing throws past this file except Fault.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unistd.h>

#include "engine/interp/interp_impl.h"

namespace ein {

namespace fs = std::filesystem;

namespace {

const std::string& str_arg(const std::vector<Value>& args, size_t i, const char* what) {
  if (i >= args.size() || args[i].tag != Value::Tag::Str) fault("E002", std::string(what) + " must be a string");
  return args[i].str();
}

[[noreturn]] void io_fail(const std::string& what, const std::string& path, const std::error_code& ec) {
  fault("E009", "cannot " + what + " " + path + (ec ? ": " + ec.message() : std::string()));
}

std::string cwd() {
  std::error_code ec;
  fs::path p = fs::current_path(ec);
  if (ec) io_fail("read the working directory", "", ec);
  return p.string();
}

// os.path.abspath: joined to the working directory, then normalised lexically (".." removes
// the previous component, trailing '/' dropped), without resolving symbolic links.
std::string absolute(const std::string& path) {
  fs::path p = fs::path(path).is_absolute() ? fs::path(path) : fs::path(cwd()) / path;
  std::string s = p.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

Value fs_test(const std::string& op, const std::string& path) {
  std::error_code ec;
  if (op == "file") return Value::boolean(fs::is_regular_file(path, ec));
  if (op == "dir") return Value::boolean(fs::is_directory(path, ec));
  if (op == "exists") return Value::boolean(fs::exists(path, ec));
  fault("E006", "unknown file test `" + op + "`");
}

Value fs_str(const std::string& op, const std::string& path, const std::string& root_dir) {
  if (op == "cwd") return Value::string(cwd());
  if (op == "script_dir") return Value::string(absolute(root_dir.empty() ? "." : root_dir));
  if (op == "absolute") return Value::string(absolute(path));
  fault("E006", "unknown path query `" + op + "`");
}

void append_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  if (!out) fault("E009", "cannot append to " + path + ": " + std::strerror(errno));
  out << text;
  out.flush();
  if (!out) fault("E009", "cannot append to " + path + ": " + std::strerror(errno));
}

void fs_do(const std::string& op, const std::string& a, const std::string& b) {
  std::error_code ec;
  if (op == "append") return append_text(a, b);
  if (op == "delete") {
    // Only files: a directory is remove_dir's (a typo must not delete a tree).
    if (!fs::is_regular_file(fs::symlink_status(a, ec)) && !fs::is_symlink(fs::symlink_status(a, ec)))
      fault("E009", "cannot delete " + a + ": " + (fs::exists(a, ec) ? "not a file" : "no such file"));
    if (!fs::remove(a, ec)) io_fail("delete", a, ec);
    return;
  }
  if (op == "mkdir") {
    fs::create_directories(a, ec);
    if (ec || !fs::is_directory(a)) io_fail("create the directory", a, ec);
    return;
  }
  if (op == "rmdir") {
    if (!fs::is_directory(fs::symlink_status(a, ec)))
      fault("E009", "cannot remove " + a + ": " + (fs::exists(a, ec) ? "not a directory" : "no such directory"));
    fs::remove_all(a, ec);
    if (ec) io_fail("remove", a, ec);
    return;
  }
  if (op == "copy") {
    if (!fs::is_regular_file(a, ec)) fault("E009", "cannot copy " + a + ": not a file");
    fs::copy_file(a, b, fs::copy_options::overwrite_existing, ec);
    if (ec) io_fail("copy " + a + " to", b, ec);
    return;
  }
  if (op == "move") {
    if (!fs::exists(fs::symlink_status(a, ec))) fault("E009", "cannot move " + a + ": no such file");
    fs::rename(a, b, ec);
    if (ec == std::errc::cross_device_link) {  // another file system: copy, then delete
      ec.clear();
      fs::copy(a, b, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
      if (!ec) fs::remove_all(a, ec);
    }
    if (ec) io_fail("move " + a + " to", b, ec);
    return;
  }
  fault("E006", "unknown file operation `" + op + "`");
}

Value file_size(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) fault("E009", "cannot read the size of " + path + ": not a file");
  auto n = fs::file_size(path, ec);
  if (ec) io_fail("read the size of", path, ec);
  return Value::integer(static_cast<int64_t>(n), DType::I64);
}

// The integers of a shape argument: a 1-D integer array, a list or tuple of integers, or one
// integer.
std::vector<int64_t> int_list(const Value& v, const char* what) {
  std::vector<int64_t> out;
  if (v.tag == Value::Tag::Int) return {v.i};
  if (v.tag == Value::Tag::Tensor) {
    const Tensor& t = v.tensor_ref();
    if (t.rank() > 1 || !is_int(t.dtype())) fault("E002", std::string(what) + " must be a 1-D array of integers");
    for (int64_t k = 0; k < t.size(); ++k) out.push_back(t.get_i64(k));
    return out;
  }
  if (v.tag == Value::Tag::List || v.tag == Value::Tag::Tuple) {
    for (auto& x : v.items()) {
      if (x.tag != Value::Tag::Int) fault("E002", std::string(what) + " must hold integers");
      out.push_back(x.i);
    }
    return out;
  }
  fault("E002", std::string(what) + " must be a 1-D array of integers");
}

// Reshape: one entry may be -1 (inferred). With `copy_zeros` (ONNX Reshape, allowzero = 0) a 0
// copies the input's extent on that axis; without it (every shape the library computes) a 0 is
// an empty axis: around_axis of a [3, 0] array is [1, 3, 0], constant_of_shape([2, 0]) is empty.
// Until session 16 every library reshape copied, so axis operations on arrays with an empty
// axis and constant_of_shape with a 0 were E004.
Value reshape(const Value& x, const Value& shape_v, bool copy_zeros) {
  std::vector<int64_t> shape = int_list(shape_v, "the shape");
  Tensor t = x.is_tensor() ? x.tensor_ref() : Tensor();
  if (!x.is_tensor()) {
    if (!x.is_scalar()) fault("E002", "reshape needs an array");
    DType dt = x.tag == Value::Tag::Bool ? DType::Bool : x.dt;
    t = Tensor::alloc(dt, {1});
    tensor_set(t, 0, x);
  }
  int64_t total = t.size(), known = 1;
  int infer = -1;
  for (size_t a = 0; a < shape.size(); ++a) {
    if (shape[a] == 0 && copy_zeros) {
      if (static_cast<int>(a) >= t.rank()) fault("E004", "reshape: a 0 extent copies an axis the input does not have");
      shape[a] = t.dim(static_cast<int>(a));
    }
    if (shape[a] == -1) {
      if (infer >= 0) fault("E004", "reshape: more than one extent is -1");
      infer = static_cast<int>(a);
      continue;
    }
    if (shape[a] < 0) fault("E004", "reshape: negative extent " + std::to_string(shape[a]));
    if (shape[a] != 0 && known > std::numeric_limits<int64_t>::max() / shape[a])
      fault("E004", "reshape: the shape is too large");
    known *= shape[a];
  }
  if (infer >= 0) {
    if (known == 0 || total % known != 0)
      fault("E004", "reshape: cannot infer the -1 extent of " + std::to_string(total) + " elements");
    shape[static_cast<size_t>(infer)] = total / known;
    known = total;
  }
  if (known != total)
    fault("E004", "reshape: " + std::to_string(total) + " elements do not fit the shape (" +
                      std::to_string(known) + " elements)");
  if (shape.empty()) return tensor_get(t, 0);
  return Value::tensor(t.copy().reshaped(shape));
}

// The element type a cast target names: ONNX TensorProto numbers or type names.
DType cast_target(const Value& to) {
  if (to.tag == Value::Tag::Int) {
    if (auto d = cast_type_from_onnx(to.i)) return *d;
    fault("E006", "cast: unsupported ONNX type number " + std::to_string(to.i));
  }
  if (to.tag != Value::Tag::Str) fault("E002", "cast: the target type must be a name or an ONNX type number");
  if (auto d = cast_type_from_name(to.str())) return *d;
  fault("E006", "cast: unknown type `" + to.str() + "`");
}

// ONNX Split: the parts of x along `axis` with the given extents (a tuple of arrays; their
// count is a run-time value). A single integer n is ONNX 18's num_outputs: parts of
// ceil(extent / n), the last one smaller when n does not divide the extent (7 into 3: 3, 3, 1;
// 4 into 3: 2, 2, 0), E004 when even the last part would be negative (1 into 3).
Value split(const Value& x, const Value& sizes_v, const Value& axis_v) {
  if (!x.is_tensor()) fault("E002", "split needs an array");
  const Tensor& t = x.tensor_ref();
  int64_t axis = axis_v.as_i64();
  if (axis < 0) axis += t.rank();
  if (axis < 0 || axis >= t.rank()) fault("E004", "split: axis " + std::to_string(axis_v.as_i64()) + " is out of range");
  int64_t n = t.dim(static_cast<int>(axis));
  std::vector<int64_t> sizes;
  if (sizes_v.tag == Value::Tag::Int) {
    int64_t k = sizes_v.i;
    int64_t part = k > 0 ? (n + k - 1) / k : 0;
    if (k <= 0 || part * (k - 1) > n)
      fault("E004", "split: an axis of " + std::to_string(n) + " does not split into " + std::to_string(k) +
                        " parts (ONNX: parts of ceil(" + std::to_string(n) + " / " + std::to_string(k) +
                        "), the last one what is left)");
    sizes.assign(static_cast<size_t>(k), part);
    sizes.back() = n - part * (k - 1);
  } else {
    sizes = int_list(sizes_v, "the split sizes");
  }
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0) fault("E004", "split: negative part size");
    total += s;
  }
  if (total != n) fault("E004", "split: the parts add up to " + std::to_string(total) + ", the axis has " + std::to_string(n));
  int64_t outer = 1, inner = 1;
  for (int a = 0; a < t.rank(); ++a) {
    if (a < axis) outer *= t.dim(a);
    if (a > axis) inner *= t.dim(a);
  }
  Tensor src = t.copy();
  std::vector<Value> parts;
  int64_t start = 0;
  for (int64_t s : sizes) {
    std::vector<int64_t> shp = t.shape();
    shp[static_cast<size_t>(axis)] = s;
    Tensor p = Tensor::alloc(t.dtype(), shp);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < s * inner; ++k) {
        int64_t from = (o * n + start) * inner + k, to = o * s * inner + k;
        if (is_float(t.dtype())) p.set_f64(to, src.get_f64(from));
        else p.set_i64(to, src.get_i64(from));
      }
    parts.push_back(Value::tensor(p));
    start += s;
  }
  return Value::tuple(std::move(parts));
}

}  // namespace

Value std_builtin(Builtin b, std::vector<Value>& args, const std::string& root_dir,
                  const std::atomic<bool>* interrupt) {
  switch (b) {
    case Builtin::Check: {
      if (args.size() != 3 || args[0].tag != Value::Tag::Bool) fault("E002", "__check(cond, code, message)");
      if (!args[0].b) {
        std::string code = str_arg(args, 1, "the error code");
        if (code.size() != 4 || code[0] != 'E') code = "E007";
        fault(code, str_arg(args, 2, "the message"));
      }
      return Value::unit();
    }
    case Builtin::FsTest: return fs_test(str_arg(args, 0, "the operation"), str_arg(args, 1, "the path"));
    case Builtin::FsStr: return fs_str(str_arg(args, 0, "the operation"), str_arg(args, 1, "the path"), root_dir);
    case Builtin::FsDo:
      fs_do(str_arg(args, 0, "the operation"), str_arg(args, 1, "the path"), str_arg(args, 2, "the second argument"));
      return Value::unit();
    case Builtin::FileSize: return file_size(str_arg(args, 0, "the path"));
    case Builtin::Reshape: {
      const bool copy_zeros = args.size() == 4 && args[3].tag == Value::Tag::Bool && args[3].b;
      Value y = reshape(args[0], args[1], copy_zeros);
      // The rank the caller promised, which its static type may rely on.
      int64_t rank = y.is_tensor() ? y.tensor_ref().rank() : 0;
      if (args.size() >= 3 && args[2].as_i64() >= 0 && args[2].as_i64() != rank)
        fault("E004", "reshape: the shape gives rank " + std::to_string(rank) + ", the caller promised " +
                          std::to_string(args[2].as_i64()));
      return y;
    }
    case Builtin::Cast: return cast_value(args[0], cast_target(args[1]));
    case Builtin::Einsum:
      return einsum(str_arg(args, 0, "the equation"), args[1], interrupt, args.size() > 2 && args[2].tag == Value::Tag::Bool && args[2].b);
    case Builtin::Convert: {
      const Value& like = args[1];
      DType to = like.is_tensor() ? like.tensor_ref().dtype() : like.tag == Value::Tag::Bool ? DType::Bool : like.dt;
      if (!like.is_tensor() && !like.is_scalar()) fault("E002", "__convert: the model must be a number or an array");
      return cast_value(args[0], to);
    }
    case Builtin::Split: return split(args[0], args[1], args[2]);
    case Builtin::Promote: {
      // Reached only for a run-time typed x (a static one is rewritten by type_infer): the same
      // rule on the value's element type.
      const Value& x = args[0];
      DType d = x.is_tensor() ? x.tensor_ref().dtype() : x.tag == Value::Tag::Bool ? DType::Bool : x.dt;
      if (!x.is_tensor() && !x.is_scalar()) fault("E002", "__promote: expected a number or an array");
      bool to_float = str_arg(args, 1, "the mode") == "float";
      if (to_float && !is_float(d)) return cast_value(x, DType::F64);
      if (!to_float && d == DType::Bool) return cast_value(x, DType::I32);
      return x;
    }
    case Builtin::IsInt:
    case Builtin::IsBool: {
      // Reached only for a run-time typed x (a static one decides its `if` in type_infer).
      const Value& x = args[0];
      DType d = x.is_tensor() ? x.tensor_ref().dtype() : x.tag == Value::Tag::Bool ? DType::Bool : x.dt;
      if (!x.is_tensor() && !x.is_scalar() && x.tag != Value::Tag::Bool)
        fault("E002", "__is_int / __is_bool: expected a number, a bool or an array");
      return Value::boolean(b == Builtin::IsInt ? is_int(d) : d == DType::Bool);
    }
    case Builtin::Argsort:
      if (args.size() < 3) fault("E002", "__argsort(x, axis, descending[, k])");
      return argsort_value(args[0], args[1], args[2], args.size() > 3 ? &args[3] : nullptr, interrupt);
    default: fault("E011", std::string("`") + builtin_info(b).name + "` is not a library intrinsic");
  }
}

}  // namespace ein
