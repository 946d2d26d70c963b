// libFuzzer target: the front end and the analysis passes (lexer, parser, name resolution, type
// inference, range/shape analysis, Einstein lowering, ...) on arbitrary bytes. Everything a
// program meets before it runs, in the same conditions as in `ein`: on a thread with a large
// stack (the session's), with the standard library available to `use`. A crash, a sanitizer
// report, an uncaught exception or a timeout (-timeout) is a finding. Built and run by
// tests/fuzz/libfuzzer.sh (clang -fsanitize=fuzzer,address,undefined).
#include <pthread.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <string>

#include "lang/diag/diag.h"
#include "lang/passes/context.h"
#include "lang/passes/driver.h"
#include "lang/resolve/resolver.h"
#include "lang/syntax/parser.h"

namespace {

// No earlier cells: nothing is known about globals.
struct NoEnv : ein::GlobalEnvView {
  ein::ir::TypeRef type_of(ein::ir::DefId) const override { return nullptr; }
  std::optional<std::vector<int64_t>> shape_of(ein::ir::DefId) const override { return std::nullopt; }
  std::optional<int64_t> int_value(ein::ir::DefId) const override { return std::nullopt; }
};

std::string share_dir() {
  const char* e = std::getenv("EIN_SHARE_DIR");
  return e && *e ? e : EIN_FUZZ_SHARE_DIR;
}

void analyse(const std::string* text) {
  using namespace ein;
  SourceMap sm;
  Resolver resolver(sm, ResolverOptions{share_dir(), "."});
  uint32_t fid = sm.add("fuzz.ein", *text);
  ParseResult pr = parse_program(sm, fid);
  if (!pr.diags.empty()) return;
  DiagSink diags;
  ir::NodeRef resolved = resolver.resolve_cell(pr.program, diags);
  if (diags.has_errors()) return;
  NoEnv env;
  CompileCtx cx(sm, resolver, diags, env);
  cx.opt.whole_program = true;
  PipelineOptions popt;
  run_pipeline(cx, resolved, popt);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > (1u << 16)) return 0;  // large inputs are the mutation fuzzer's (tests/fuzz/mutate.py)
  std::string text(reinterpret_cast<const char*>(data), size);
  // The session compiles on a thread with a 1 GiB stack (engine/session); so do we, so that
  // nesting depth behaves as it does in ein.
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, size_t(1) << 30);
  pthread_t th;
  auto body = [](void* p) -> void* {
    analyse(static_cast<const std::string*>(p));  // an exception escaping here terminates: a finding
    return nullptr;
  };
  if (pthread_create(&th, &attr, body, &text) == 0) pthread_join(th, nullptr);
  pthread_attr_destroy(&attr);
  return 0;
}
