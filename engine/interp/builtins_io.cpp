// NumPy .npy reading and writing for std::io (format: numpy/lib/format.py, versions 1.0-3.0).
//
// Loading maps NumPy dtypes onto the language's element types without losing values: b1 -> bool,
// i1 -> i8, i2/i4/u1/u2 -> i32, i8/u4/u8 -> i64 (a u8 value above i64's range is E006),
// f2 -> f16, f4 -> f32, f8 -> f64. Either byte order and C or Fortran order are accepted; the
// result is always a C-ordered tensor (a 0-d array gives a scalar). Saving writes version 1.0,
// little endian, C order: bool |b1, i8 |i1, i32 <i4, i64 <i8, f16 <f2, f32 <f4, f64 <f8, and bf16
// (which NumPy has no dtype for) widened exactly to <f4.
//
// Every input is untrusted: a malformed header, an unsupported dtype or too little data is Fault
// E006, a shape too large to allocate E008 (Tensor::alloc, checked before the data is read), an
// unreadable or unwritable file E009.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unistd.h>

#include "engine/interp/interp_impl.h"
#include "engine/interp/safe_file.h"

namespace ein {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
// NumPy itself refuses headers above 10000 bytes unless told otherwise; anything bigger here is
// either hostile or not an .npy file, and reading it would only waste memory.
constexpr uint32_t kMaxHeader = 1u << 20;
constexpr size_t kMaxRank = 64;

[[noreturn]] void malformed(const std::string& path, const std::string& why) {
  fault("E006", "malformed .npy file " + path + ": " + why);
}

// ---- header dictionary ------------------------------------------------------------------------
// The header is a Python dict literal written by repr(); parse just that grammar: strings,
// True/False, integers (py2 files may carry an `L` suffix) and tuples of integers.

struct Header {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
};

class DictParser {
 public:
  DictParser(const std::string& text, const std::string& path) : s_(text), path_(path) {}

  Header parse() {
    Header h;
    bool seen_descr = false, seen_fortran = false, seen_shape = false;
    expect('{');
    while (true) {
      skip_ws();
      if (peek() == '}') break;
      std::string key = string_lit();
      expect(':');
      if (key == "descr") {
        skip_ws();
        if (peek() == '[') malformed(path_, "structured dtypes are not supported");
        h.descr = string_lit();
        seen_descr = true;
      } else if (key == "fortran_order") {
        h.fortran = boolean();
        seen_fortran = true;
      } else if (key == "shape") {
        h.shape = shape_tuple();
        seen_shape = true;
      } else {
        malformed(path_, "unexpected header key '" + key + "'");
      }
      skip_ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      skip_ws();
      if (peek() != '}') malformed(path_, "expected ',' or '}' in the header");
    }
    ++i_;
    if (!seen_descr || !seen_fortran || !seen_shape)
      malformed(path_, "the header needs the keys 'descr', 'fortran_order' and 'shape'");
    skip_ws();
    if (i_ != s_.size()) malformed(path_, "unexpected text after the header dictionary");
    return h;
  }

 private:
  const std::string& s_;
  const std::string& path_;
  size_t i_ = 0;

  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void skip_ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }
  void expect(char c) {
    skip_ws();
    if (peek() != c) malformed(path_, std::string("expected '") + c + "' in the header");
    ++i_;
  }
  std::string string_lit() {
    skip_ws();
    char q = peek();
    if (q != '\'' && q != '"') malformed(path_, "expected a quoted string in the header");
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\\') malformed(path_, "escape sequences are not expected in the header");
      out += s_[i_++];
    }
    if (i_ >= s_.size()) malformed(path_, "unterminated string in the header");
    ++i_;
    return out;
  }
  bool boolean() {
    skip_ws();
    if (s_.compare(i_, 4, "True") == 0) {
      i_ += 4;
      return true;
    }
    if (s_.compare(i_, 5, "False") == 0) {
      i_ += 5;
      return false;
    }
    malformed(path_, "'fortran_order' must be True or False");
  }
  int64_t extent() {
    skip_ws();
    if (peek() < '0' || peek() > '9') malformed(path_, "shape entries must be non-negative integers");
    int64_t v = 0;
    bool overflow = false;
    while (peek() >= '0' && peek() <= '9') {
      if (!overflow && (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, peek() - '0', &v)))
        overflow = true;
      ++i_;
    }
    if (peek() == 'L') ++i_;
    if (overflow) fault("E008", "the shape in " + path_ + " has an extent too large to allocate");
    return v;
  }
  std::vector<int64_t> shape_tuple() {
    expect('(');
    std::vector<int64_t> dims;
    while (true) {
      skip_ws();
      if (peek() == ')') break;
      dims.push_back(extent());
      if (dims.size() > kMaxRank) malformed(path_, "more than 64 dimensions");
      skip_ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() != ')') malformed(path_, "expected ',' or ')' in the shape");
    }
    ++i_;
    return dims;
  }
};

// ---- element decoding -------------------------------------------------------------------------

// What the file's elements are: kind 'b' 'i' 'u' 'f', size in bytes, and whether they must be
// byte-swapped to read them on this machine.
struct FileType {
  char kind = 0;
  int size = 0;
  bool swap = false;
};

FileType parse_descr(const std::string& d, const std::string& path) {
  if (d.size() < 2) malformed(path, "unsupported dtype '" + d + "'");
  char order = d[0];
  std::string rest = d.substr(1);
  if (order != '<' && order != '>' && order != '|' && order != '=') {
    order = '|';
    rest = d;
  }
  if (rest == "O") fault("E006", "cannot load " + path + ": Python objects are not supported");
  if (rest.size() < 2) malformed(path, "unsupported dtype '" + d + "'");
  FileType t;
  t.kind = rest[0];
  int size = 0;
  for (size_t i = 1; i < rest.size(); ++i) {
    if (rest[i] < '0' || rest[i] > '9' || size > 1000)
      malformed(path, "unsupported dtype '" + d + "'");
    size = size * 10 + (rest[i] - '0');
  }
  t.size = size;
  bool ok = (t.kind == 'b' && size == 1) || ((t.kind == 'i' || t.kind == 'u') &&
                                             (size == 1 || size == 2 || size == 4 || size == 8)) ||
            (t.kind == 'f' && (size == 2 || size == 4 || size == 8));
  if (!ok) {
    std::string what = t.kind == 'c' ? "complex numbers" : t.kind == 'U' || t.kind == 'S' ? "strings"
                       : t.kind == 'O' ? "Python objects" : t.kind == 'M' || t.kind == 'm' ? "dates"
                       : "dtype '" + d + "'";
    fault("E006", "cannot load " + path + ": " + what + " are not supported (bool, integers and "
                  "floats are)");
  }
  bool big = order == '>' || (order == '=' && std::endian::native == std::endian::big);
  bool little = order == '<' || (order == '=' && std::endian::native == std::endian::little);
  t.swap = size > 1 && ((big && std::endian::native == std::endian::little) ||
                        (little && std::endian::native == std::endian::big));
  return t;
}

DType dtype_for(const FileType& t) {
  switch (t.kind) {
    case 'b': return DType::Bool;
    case 'f': return t.size == 2 ? DType::F16 : t.size == 4 ? DType::F32 : DType::F64;
    case 'i': return t.size == 1 ? DType::I8 : t.size == 8 ? DType::I64 : DType::I32;
    default: return t.size <= 2 ? DType::I32 : DType::I64;  // 'u'
  }
}

float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t man = h & 0x3FFu;
  if (exp == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (man << 13));
  if (exp == 0) {  // zero or subnormal: man * 2^-24
    float v = std::ldexp(static_cast<float>(man), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t float_to_half(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  if (std::isnan(f)) return sign | 0x7E00u;
  float a = std::fabs(f);
  if (a >= 65520.0f) return sign | 0x7C00u;  // rounds to infinity
  if (a < std::ldexp(1.0f, -14)) {
    // Subnormal half: a multiple of 2^-24, rounded to nearest even by nearbyint.
    return sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(a, 24)));
  }
  int e = 0;
  float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  // 11 significant bits: the integer part of m * 2^11, rounded to nearest even.
  uint32_t sig = static_cast<uint32_t>(std::nearbyint(std::ldexp(m, 11)));
  if (sig == 2048) {
    sig = 1024;
    ++e;
  }
  uint32_t exp = static_cast<uint32_t>(e - 1 + 15);
  if (exp >= 31) return sign | 0x7C00u;
  return sign | static_cast<uint16_t>((exp << 10) | (sig & 0x3FFu));
}

void byteswap(unsigned char* p, int n) { std::reverse(p, p + n); }

template <class T> T load_raw(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// Decodes one file element and stores it at flat index `at` of `t`.
void store_element(Tensor& t, int64_t at, const FileType& ft, unsigned char* p,
                   const std::string& path) {
  if (ft.swap) byteswap(p, ft.size);
  switch (ft.kind) {
    case 'b': t.data_as<uint8_t>()[at] = *p != 0; return;
    case 'f':
      if (ft.size == 2) t.data_as<float>()[at] = half_to_float(load_raw<uint16_t>(p));
      else if (ft.size == 4) t.data_as<float>()[at] = load_raw<float>(p);
      else t.data_as<double>()[at] = load_raw<double>(p);
      return;
    case 'i':
      switch (ft.size) {
        case 1: t.data_as<int8_t>()[at] = static_cast<int8_t>(*p); return;
        case 2: t.data_as<int32_t>()[at] = load_raw<int16_t>(p); return;
        case 4: t.data_as<int32_t>()[at] = load_raw<int32_t>(p); return;
        default: t.data_as<int64_t>()[at] = load_raw<int64_t>(p); return;
      }
    default:
      switch (ft.size) {
        case 1: t.data_as<int32_t>()[at] = *p; return;
        case 2: t.data_as<int32_t>()[at] = load_raw<uint16_t>(p); return;
        case 4: t.data_as<int64_t>()[at] = load_raw<uint32_t>(p); return;
        default: {
          uint64_t v = load_raw<uint64_t>(p);
          if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            fault("E006", "cannot load " + path + ": the uint64 value " + std::to_string(v) +
                              " does not fit in i64");
          t.data_as<int64_t>()[at] = static_cast<int64_t>(v);
          return;
        }
      }
  }
}

// Walks the C-order flat offsets of the elements in Fortran (first axis fastest) order.
class FortranWalk {
 public:
  explicit FortranWalk(const std::vector<int64_t>& shape) : shape_(shape), idx_(shape.size(), 0) {
    stride_.assign(shape.size(), 1);
    for (size_t k = shape.size(); k-- > 1;) stride_[k - 1] = stride_[k] * shape[k];
  }
  int64_t offset() const { return off_; }
  void next() {
    for (size_t k = 0; k < shape_.size(); ++k) {
      if (++idx_[k] < shape_[k]) {
        off_ += stride_[k];
        return;
      }
      off_ -= (idx_[k] - 1) * stride_[k];
      idx_[k] = 0;
    }
  }

 private:
  std::vector<int64_t> shape_, idx_, stride_;
  int64_t off_ = 0;
};

Value scalar_of(const Tensor& t) { return tensor_get(t, 0); }

Header read_header(InFile& in, const std::string& path) {
  char pre[kMagicLen + 2];
  if (in.read(pre, sizeof pre) != sizeof pre || std::memcmp(pre, kMagic, kMagicLen) != 0)
    malformed(path, "not an .npy file (missing the \\x93NUMPY magic)");
  int major = static_cast<unsigned char>(pre[kMagicLen]);
  if (major < 1 || major > 3) malformed(path, "unsupported format version " + std::to_string(major));
  unsigned char lenbuf[4] = {0, 0, 0, 0};
  int lenbytes = major == 1 ? 2 : 4;
  if (in.read(lenbuf, static_cast<size_t>(lenbytes)) != static_cast<size_t>(lenbytes))
    malformed(path, "truncated header");
  uint32_t hlen = lenbuf[0] | (lenbuf[1] << 8) | (static_cast<uint32_t>(lenbuf[2]) << 16) |
                  (static_cast<uint32_t>(lenbuf[3]) << 24);
  if (hlen > kMaxHeader) malformed(path, "header of " + std::to_string(hlen) + " bytes is too large");
  std::string text(hlen, '\0');
  if (in.read(text.data(), hlen) != hlen) malformed(path, "truncated header");
  return DictParser(text, path).parse();
}

Value load_npy(const std::string& path) {
  InFile in(path);  // regular files only: E009 for a directory, FIFO or device
  Header h = read_header(in, path);
  FileType ft = parse_descr(h.descr, path);

  // Tensor::alloc accepts any extents next to a zero one, but the engine later multiplies all
  // extents (size(), strides): refuse shapes whose nonzero extents overflow even then.
  int64_t nonzero = 1;
  for (int64_t d : h.shape)
    if (d != 0 && __builtin_mul_overflow(nonzero, d, &nonzero))
      fault("E008", "the shape in " + path + " is too large to allocate");
  Tensor t = Tensor::alloc(dtype_for(ft), h.shape);  // E008 for shapes too large
  const int64_t n = t.size();
  constexpr int64_t kChunk = 1 << 16;
  std::vector<unsigned char> buf(static_cast<size_t>(std::min<int64_t>(n, kChunk) * ft.size));
  FortranWalk walk(h.shape);
  for (int64_t done = 0; done < n;) {
    int64_t m = std::min(kChunk, n - done);
    const int64_t got = static_cast<int64_t>(in.read(buf.data(), static_cast<size_t>(m * ft.size)));
    if (got != m * ft.size)
      malformed(path, "the data is truncated (" + std::to_string(n) + " elements expected, " +
                          std::to_string(done + got / ft.size) + " present)");
    for (int64_t i = 0; i < m; ++i) {
      int64_t at = done + i;
      if (h.fortran) {
        at = walk.offset();
        walk.next();
      }
      store_element(t, at, ft, buf.data() + i * ft.size, path);
    }
    done += m;
  }
  if (t.rank() == 0) return scalar_of(t);
  return Value::tensor(std::move(t));
}

// ---- saving -----------------------------------------------------------------------------------

std::string descr_for(DType d) {
  switch (d) {
    case DType::Bool: return "|b1";
    case DType::I8: return "|i1";
    case DType::I32: return "<i4";
    case DType::I64: return "<i8";
    case DType::F16: return "<f2";
    case DType::BF16:
    case DType::F32: return "<f4";
    case DType::F64: return "<f8";
  }
  return "<f8";
}

int file_size_of(DType d) {
  switch (d) {
    case DType::Bool: case DType::I8: return 1;
    case DType::F16: return 2;
    case DType::I64: case DType::F64: return 8;
    default: return 4;
  }
}

template <class T> void put_le(unsigned char* p, T v) {
  std::memcpy(p, &v, sizeof v);
  if constexpr (std::endian::native == std::endian::big) byteswap(p, sizeof v);
}

// A file opened for writing with safe_file's rules, closed (and checked) at the end.
class FdOut {
 public:
  explicit FdOut(const std::string& path) : path_(path), fd_(open_for_write(path)) {}
  ~FdOut() { close(fd_); }
  void write(const void* p, size_t n) { write_all(fd_, static_cast<const char*>(p), n, path_); }

 private:
  std::string path_;
  int fd_;
};

void save_npy(const std::string& path, const Value& v) {
  Tensor t;
  if (v.tag == Value::Tag::Tensor) {
    t = v.tensor_ref();
  } else if (v.is_scalar()) {
    DType d = v.tag == Value::Tag::Bool ? DType::Bool : v.dt;
    t = Tensor::alloc(d, {});
    tensor_set(t, 0, v);
  } else {
    fault("E002", "save_npy needs an array or a number, found " + type_string(v));
  }
  std::string shape = "(";
  for (int k = 0; k < t.rank(); ++k) shape += std::to_string(t.dim(k)) + (t.rank() == 1 ? "," : k + 1 < t.rank() ? ", " : "");
  shape += ")";
  std::string dict = "{'descr': '" + descr_for(t.dtype()) + "', 'fortran_order': False, 'shape': " +
                     shape + ", }";
  // NumPy pads with spaces so that the data starts at a multiple of 64 bytes, ending in '\n'.
  size_t total = kMagicLen + 2 + 2 + dict.size() + 1;
  size_t pad = (64 - total % 64) % 64;
  dict += std::string(pad, ' ') + "\n";
  if (dict.size() > 65535) fault("E006", "cannot save: the array has too many dimensions");

  std::string head(kMagic, kMagicLen);
  head += '\x01';
  head += '\x00';
  head += static_cast<char>(dict.size() & 0xFF);
  head += static_cast<char>(dict.size() >> 8);
  head += dict;
  FdOut out(path);
  out.write(head.data(), head.size());

  const int es = file_size_of(t.dtype());
  const int64_t n = t.size();
  constexpr int64_t kChunk = 1 << 16;
  std::vector<unsigned char> buf(static_cast<size_t>(std::min<int64_t>(n, kChunk) * es));
  for (int64_t done = 0; done < n;) {
    int64_t m = std::min(kChunk, n - done);
    for (int64_t i = 0; i < m; ++i) {
      unsigned char* p = buf.data() + i * es;
      int64_t at = done + i;
      switch (t.dtype()) {
        case DType::Bool: *p = t.data_as<uint8_t>()[at] ? 1 : 0; break;
        case DType::I8: *p = static_cast<unsigned char>(t.data_as<int8_t>()[at]); break;
        case DType::I32: put_le(p, t.data_as<int32_t>()[at]); break;
        case DType::I64: put_le(p, t.data_as<int64_t>()[at]); break;
        case DType::F16: put_le(p, float_to_half(t.data_as<float>()[at])); break;
        case DType::BF16:
        case DType::F32: put_le(p, t.data_as<float>()[at]); break;
        case DType::F64: put_le(p, t.data_as<double>()[at]); break;
      }
    }
    out.write(reinterpret_cast<char*>(buf.data()), static_cast<size_t>(m * es));
    done += m;
  }
}

}  // namespace

ir::TypeRef npy_file_type(const std::string& path) {
  try {
    InFile in(path);
    Header h = read_header(in, path);
    const DType dt = dtype_for(parse_descr(h.descr, path));
    if (h.shape.empty()) return ir::t_scalar(dt);  // a 0-d array loads as a scalar
    return ir::t_array(ir::t_scalar(dt), static_cast<int>(h.shape.size()));
  } catch (const Fault&) {
    return nullptr;  // missing or malformed: the load reports it when it runs
  }
}

Value io_builtin(Builtin b, std::vector<Value>& args) {
  auto path_arg = [&]() -> const std::string& {
    if (args.empty() || args[0].tag != Value::Tag::Str) fault("E002", "the path must be a string");
    return args[0].str();
  };
  switch (b) {
    case Builtin::LoadNpy: return load_npy(path_arg());
    case Builtin::SaveNpy:
      if (args.size() != 2) fault("E002", "save_npy takes a path and an array");
      save_npy(path_arg(), args[1]);
      return Value::unit();
    default: fault("E011", std::string("`") + builtin_info(b).name + "` is not an I/O builtin");
  }
}

}  // namespace ein
