// Every EIN_* environment variable ein reads, in one table: its name, what it steers and its
// default (printed by `ein --help`, listed in docs/architecture.md). Values are read when asked,
// never cached here: tests and the kernel change them between runs in one process; a caller that
// wants one value per process keeps it itself.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace ein::config {

enum class Env : uint8_t {
  MaxMemory,     // bytes the tensors of a process may hold (E008 beyond)
  ShareDir,      // the standard library's directory
  Jit,           // never | auto | always
  JitThreshold,  // points above which `auto` compiles a clause
  JitKeep,       // set: keep the generated kernel sources
  JitTrace,      // set: print the native tier's plan, load times, why clauses stay interpreted
  Cxx,           // the C++ compiler for kernels
  CxxFlags,      // its flags
  CacheDir,      // the kernel cache
  CacheMax,      // the kernel cache's size limit
  Interp,        // vector | scalar | auto: whole-array evaluation in the interpreter
  Gnuplot,       // the gnuplot program for %plot
  History,       // the REPL's history file ("" keeps it in memory)
  AdMemory,      // bytes a gradient may store before its recurrences are checkpointed
  AdCheckpoint,  // a forced checkpoint spacing (steps) for every checkpointable gradient
  RowInline,     // on | never | trace: calls on rows inlined as declarations (row_inline)
  RowFuse,       // on | never: row declarations fused into their consumer's block (row_fuse)
};

struct EnvInfo {
  Env id;
  const char* name;
  const char* meaning;
  const char* fallback;  // what an unset (or empty) variable means
};

std::span<const EnvInfo> all();
const EnvInfo& info(Env e);

// The raw value: nullptr when unset (set-but-empty is "", which some variables distinguish).
const char* raw(Env e);
// The value when set and non-empty.
std::optional<std::string> value(Env e);
bool is_set(Env e);
// A size such as "1048576", "512M", "2g", "64KiB"; nullopt when unset or malformed, so a typo
// falls back to the default instead of meaning 0 bytes.
std::optional<int64_t> bytes(Env e);
std::optional<int64_t> parse_bytes(const char* s);
// A count such as "32768" (decimal digits, surrounding blanks allowed); nullopt when unset or
// malformed ("4k", "-1", "1e5"), so a typo means the default, never 0.
std::optional<int64_t> count(Env e);
std::optional<int64_t> parse_count(const char* s);

// `ein --help`'s "Environment" section.
std::string help_text();

}  // namespace ein::config
