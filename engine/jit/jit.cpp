// Kernel loading: memory cache -> disk cache -> one compiler run for all misses of a batch.
#include "engine/jit/jit.h"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <mutex>
#include <unordered_map>

#include "engine/codegen/codegen.h"
#include "engine/jit/compiler.h"
#include "engine/jit/disk_cache.h"
#include "engine/jit/sha256.h"

namespace ein::jit {

namespace {

struct State {
  std::mutex mu;
  bool configured = false;
  DiskCache disk;
  std::unordered_map<std::string, void*> loaded;  // key -> entry point
  int64_t hits = 0, misses = 0;
  double compile_ms = 0;
  uint64_t counter = 0;
};

State& state() {
  static State s;
  return s;
}

void configure(State& s) {
  if (s.configured) return;
  s.configured = true;
  s.disk = DiskCache::from_env();
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
  return s;
}

// Handles are never closed: a kernel pointer may be in use by a running cell in another
// session, and a few kilobytes per distinct kernel are cheap.
void* open_symbol(const std::string& path, const std::string& symbol) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) return nullptr;
  return dlsym(h, symbol.c_str());
}

std::string key_locked(State& s, const std::string& source) {
  const Compiler& c = compiler(s.disk.writable ? s.disk.dir : "");
  Sha256 h;
  h.update("ein-kernel-abi " + std::to_string(codegen::prelude_abi()) + "\n");
  h.update(codegen::prelude_text());
  h.update("\n--\n");
  h.update(source);
  h.update("\n--\n");
  h.update(c.identity);
  return h.hex();
}

}  // namespace

std::string kernel_symbol(const std::string& key) { return "ein_k_" + key.substr(0, 24); }

std::string kernel_key(const std::string& source) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  configure(s);
  return key_locked(s, source);
}

std::string cache_dir() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  configure(s);
  return s.disk.dir;
}

void reset_for_tests() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.configured = false;
  s.loaded.clear();
  reset_compiler();
}

BatchResult load_kernels(const std::vector<std::string>& sources, const std::atomic<bool>* interrupt) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  configure(s);
  BatchResult r;
  r.fns.assign(sources.size(), nullptr);
  const Compiler& cc = compiler(s.disk.writable ? s.disk.dir : "");
  if (!cc.error.empty()) {
    r.error = cc.error;
    return r;
  }
  std::vector<std::string> keys(sources.size());
  std::vector<size_t> missing;
  std::unordered_map<std::string, size_t> first_of;  // the same kernel twice in one batch
  for (size_t i = 0; i < sources.size(); ++i) {
    keys[i] = key_locked(s, sources[i]);
    auto it = s.loaded.find(keys[i]);
    if (it != s.loaded.end()) {
      r.fns[i] = it->second;
      ++r.hits;
      continue;
    }
    if (s.disk.verify(keys[i])) {
      if (void* fn = open_symbol(s.disk.path_of(keys[i]), kernel_symbol(keys[i]))) {
        s.disk.touch(keys[i]);
        s.loaded[keys[i]] = fn;
        r.fns[i] = fn;
        ++r.hits;
        continue;
      }
      s.disk.remove(keys[i]);  // verified but unloadable (e.g. another ABI): rebuild
    }
    if (first_of.count(keys[i])) continue;
    first_of[keys[i]] = i;
    missing.push_back(i);
  }
  if (!missing.empty()) {
    std::string tu = "#define EIN_KERNEL_TU 1\n";
    tu += codegen::prelude_text();
    tu += "\n";
    for (size_t i : missing) tu += "\n" + replace_all(sources[i], "EIN_KERNEL", kernel_symbol(keys[i]));
    std::string work = s.disk.writable ? s.disk.dir : scratch_dir();
    std::string base = work + "/ein-" + std::to_string(getpid()) + "-" + std::to_string(s.counter++) + "-" +
                       keys[missing[0]].substr(0, 8);
    std::string src = base + ".cpp", so = base + ".so.tmp";
    std::ofstream(src, std::ios::binary) << tu;
    std::vector<std::string> argv = {cc.path};
    for (auto& f : cc.flags) argv.push_back(f);
    argv.insert(argv.end(), {"-o", so, src});
    auto t0 = std::chrono::steady_clock::now();
    RunResult run = run_process(argv, work, interrupt, false);
    r.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    s.compile_ms += r.compile_ms;
    if (run.interrupted) {
      r.interrupted = true;
    } else if (!run.started || run.status != 0) {
      r.error = run.started ? "the C++ compiler failed:\n" + run.err.substr(0, 2000) : run.spawn_error;
      if (std::getenv("EIN_JIT_KEEP")) r.error += "\n(source kept: " + src + ")";
      else r.error += "\n(set EIN_JIT_KEEP=1 to keep the generated source)";
    } else if (!DiskCache::seal(so)) {
      r.error = "cannot read the compiled kernel " + so;
    } else {
      // Load our own file first, then make it visible to other processes under each key.
      void* h = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!h) r.error = std::string("cannot load the compiled kernels: ") + dlerror();
      std::vector<std::string> published;
      for (size_t i : missing) {
        void* fn = h ? dlsym(h, kernel_symbol(keys[i]).c_str()) : nullptr;
        if (!fn) continue;
        s.loaded[keys[i]] = fn;
        published.push_back(keys[i]);
        ++r.misses;
      }
      s.disk.publish(so, published);
      s.disk.evict();
    }
    if (!std::getenv("EIN_JIT_KEEP")) unlink(src.c_str());
    unlink(so.c_str());
    for (size_t i = 0; i < sources.size(); ++i)
      if (!r.fns[i]) {
        auto it = s.loaded.find(keys[i]);
        if (it != s.loaded.end()) r.fns[i] = it->second;
      }
  }
  s.hits += r.hits;
  s.misses += r.misses;
  return r;
}

CacheInfo cache_info() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  configure(s);
  CacheInfo ci;
  ci.dir = s.disk.dir;
  auto u = s.disk.usage();
  ci.entries = u.entries;
  ci.bytes = u.bytes;
  ci.cap_bytes = s.disk.cap;
  ci.hits = s.hits;
  ci.misses = s.misses;
  ci.compile_ms = s.compile_ms;
  return ci;
}

void cache_clear() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  configure(s);
  s.disk.clear();
  s.loaded.clear();
}

}  // namespace ein::jit
