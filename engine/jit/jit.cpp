// Kernel loading: memory cache -> disk cache -> one compiler run for all misses of a batch.
#include "engine/jit/jit.h"
#include "engine/jit/omp_wait.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>

#include "engine/codegen/codegen.h"
#include "engine/config/env.h"
#include "engine/jit/compiler.h"
#include "engine/jit/disk_cache.h"
#include "engine/jit/sha256.h"
#include "engine/jit/trusted_dir.h"

namespace ein::jit {

namespace {

struct State {
  std::mutex mu;
  bool configured = false;
  DiskCache disk;
  std::unique_ptr<TrustedDir> scratch;  // private build directory when there is no disk cache
  std::unordered_map<std::string, void*> loaded;  // key -> entry point
  // Kernel source -> its key. A cell that calls the same function again, or runs again, plans
  // the same kernel text again; its SHA-256 (prelude state, source, compiler identity) is the
  // same for the whole process, so it is computed once. Bounded: forgotten past kMemoBytes.
  std::unordered_map<std::string, std::pair<std::string, std::string>> key_of_source;  // (identity, key)
  size_t memo_bytes = 0;
  int64_t memo_hits = 0;
  // Objects loaded from the disk cache, by inode. The descriptor stays open so that the inode
  // cannot be freed and reused by another file while we remember it.
  std::map<std::pair<dev_t, ino_t>, std::pair<int, void*>> by_inode;
  int64_t hits = 0, misses = 0;
  double compile_ms = 0;

  ~State() {
    if (scratch) rmdir(scratch->path().c_str());  // empty between compilations
  }
};

State& state() {
  static State s;
  return s;
}

void configure(State& s) {
  if (s.configured) return;
  s.configured = true;
  s.disk = DiskCache::from_env();
  if (!s.disk.refused.empty()) {
    // Once per directory and process: the user should know their kernels are not kept.
    static std::set<std::string> warned;
    if (warned.insert(s.disk.refused_path).second) {
      std::fprintf(stderr, "warning: not using the kernel cache %s: %s; kernels are compiled for this process only\n",
                   s.disk.refused_path.c_str(), s.disk.refused.c_str());
      std::fflush(stderr);
    }
  }
  if (!s.disk.enabled() && !s.scratch) {
    std::string why, dir = scratch_dir();
    if (!dir.empty()) s.scratch = TrustedDir::open(dir, &why);
  }
}

const TrustedDir* work_dir(State& s) {
  if (s.disk.enabled() && s.disk.writable) return s.disk.dir.get();
  return s.scratch.get();
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
  return s;
}

// Loads an object from bytes that were verified (or just compiled) in memory. The copy the
// dynamic loader opens is written by us into a fresh private directory (0700, unpredictable
// name): nobody can swap it between the check and dlopen. (A memfd would do too, but glibc
// recognises loaded objects by path, and /proc/self/fd/N names repeat.) Handles are never
// closed: a kernel pointer may be in use by a running cell in another session, and a few
// kilobytes per distinct kernel are cheap.
void* load_object(State& s, const std::string& bytes, std::string* err) {
  // How the OpenMP workers of the kernels wait between regions: libgomp reads it once, when the
  // first kernel object loads it (omp_wait.cpp; docs/jit.md "Threads").
  apply_omp_wait();
  const TrustedDir* w = work_dir(s);
  std::unique_ptr<TrustedDir> sub = w ? w->make_private_subdir("ein-build-") : nullptr;
  if (!sub || !sub->write("k.so", bytes, true)) {
    *err = "no private directory to load the kernels from";
    if (sub) w->remove_subdir(sub->name());
    return nullptr;
  }
  void* h = dlopen((sub->path() + "/k.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) *err = std::string("cannot load the compiled kernels: ") + dlerror();
  w->remove_subdir(sub->name());  // the mapping keeps the inode
  return h;
}

constexpr size_t kMemoBytes = size_t{64} << 20;

std::string sha_key(const Compiler& c, const std::string& source);

std::string key_locked(State& s, const std::string& source) {
  const TrustedDir* w = work_dir(s);
  const Compiler& c = compiler(s.disk, w ? w->path() : "");
  // (The identity is part of the memo's entry: flags from the environment may change it.)
  auto it = s.key_of_source.find(source);
  if (it != s.key_of_source.end() && it->second.first == c.identity) {
    ++s.memo_hits;
    return it->second.second;
  }
  std::string key = sha_key(c, source);
  if (it != s.key_of_source.end()) {
    it->second = {c.identity, key};
    return key;
  }
  if (s.memo_bytes + source.size() > kMemoBytes) {
    s.key_of_source.clear();
    s.memo_bytes = 0;
  }
  s.memo_bytes += source.size();
  s.key_of_source.emplace(source, std::make_pair(c.identity, key));
  return key;
}

std::string sha_key(const Compiler& c, const std::string& source) {
  // The hash state after the ABI line and the prelude (17 KB) is the same for every kernel:
  // hashing it once per process instead of once per key took ~5 % of a gradient-heavy run.
  static const Sha256 after_prelude = [] {
    Sha256 p;
    p.update("ein-kernel-abi " + std::to_string(codegen::prelude_abi()) + "\n");
    p.update(codegen::prelude_text());
    return p;
  }();
  Sha256 h = after_prelude;
  h.update("\n--\n");
  h.update(source);
  h.update("\n--\n");
  h.update(c.identity);
  return h.hex();
}

// A kernel from the disk cache, or nullptr (absent, untrusted, or without the symbol).
void* from_disk(State& s, const std::string& key) {
  if (!s.disk.enabled()) return nullptr;
  const std::string sym = kernel_symbol(key);
  // One object is often linked under several keys (all kernels of a cell): each file is
  // verified and loaded once per process.
  if (auto ino = s.disk.inode_of(key)) {
    auto it = s.by_inode.find(*ino);
    if (it != s.by_inode.end()) return dlsym(it->second.second, sym.c_str());
  } else {
    return nullptr;
  }
  auto obj = s.disk.load(key);
  if (!obj) return nullptr;
  std::string err;
  void* h = load_object(s, obj->bytes, &err);
  void* fn = h ? dlsym(h, sym.c_str()) : nullptr;
  if (!fn) {
    s.disk.remove(key);  // authentic but unusable (another ABI): rebuild
    return nullptr;
  }
  // Pin the inode we verified (see State::by_inode); a bounded number of descriptors.
  if (s.by_inode.size() < 256) {
    int pin = openat(s.disk.dir->fd(), DiskCache::entry_name(key).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st {};
    if (pin >= 0 && fstat(pin, &st) == 0 && st.st_dev == obj->dev && st.st_ino == obj->ino)
      s.by_inode[{obj->dev, obj->ino}] = {pin, h};
    else if (pin >= 0)
      close(pin);
  }
  return fn;
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
  return s.disk.path();
}

void reset_for_tests() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  s.configured = false;
  s.loaded.clear();
  s.key_of_source.clear();  // the compiler identity may change with the environment
  s.memo_bytes = 0;
  s.memo_hits = 0;
  for (auto& [ino, pin] : s.by_inode) close(pin.first);
  s.by_inode.clear();
  s.scratch.reset();
  reset_compiler();
}

BatchResult load_kernels(const std::vector<std::string>& sources, const std::atomic<bool>* interrupt) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  configure(s);
  BatchResult r;
  r.fns.assign(sources.size(), nullptr);
  const TrustedDir* work = work_dir(s);
  const Compiler& cc = compiler(s.disk, work ? work->path() : "");
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
    if (void* fn = from_disk(s, keys[i])) {
      s.disk.touch(keys[i]);
      s.loaded[keys[i]] = fn;
      r.fns[i] = fn;
      ++r.hits;
      continue;
    }
    if (first_of.count(keys[i])) continue;
    first_of[keys[i]] = i;
    missing.push_back(i);
  }
  if (!missing.empty()) {
    std::unique_ptr<TrustedDir> build = work ? work->make_private_subdir("ein-build-") : nullptr;
    if (!build) {
      r.error = "no private directory for compiling kernels could be made";
      return r;
    }
    std::string tu = "#define EIN_KERNEL_TU 1\n";
    tu += codegen::prelude_text();
    tu += "\n";
    for (size_t i : missing) tu += "\n" + replace_all(sources[i], "EIN_KERNEL", kernel_symbol(keys[i]));
    const bool keep = config::is_set(config::Env::JitKeep);
    std::string src = build->path() + "/kernels.cpp", so = build->path() + "/kernels.so";
    if (!build->write("kernels.cpp", tu, true)) r.error = "cannot write the kernel source in " + build->path();
    std::vector<std::string> argv = {cc.path};
    for (auto& f : cc.flags) argv.push_back(f);
    argv.insert(argv.end(), {"-o", so, src});
    auto t0 = std::chrono::steady_clock::now();
    RunResult run = r.error.empty() ? run_process(argv, build->path(), interrupt, false) : RunResult{};
    r.compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    s.compile_ms += r.compile_ms;
    if (!r.error.empty()) {
      // reported below
    } else if (run.interrupted) {
      r.interrupted = true;
    } else if (!run.started || run.status != 0) {
      r.error = run.started ? "the C++ compiler failed:\n" + run.err.substr(0, 2000) : run.spawn_error;
      if (keep) r.error += "\n(source kept: " + src + ")";
      else r.error += "\n(set EIN_JIT_KEEP=1 to keep the generated source)";
    } else if (fchmodat(build->fd(), "kernels.so", 0600, 0), false) {
      // (the compiler created its output with the umask's mode; our private directory holds it)
    } else if (auto obj = build->read("kernels.so", kMaxObjectBytes); !obj || obj->empty()) {
      r.error = "cannot read the compiled kernels " + so;
    } else {
      // Load our own bytes first, then make them visible to other processes under each key.
      void* h = load_object(s, *obj, &r.error);
      std::vector<std::string> published;
      for (size_t i : missing) {
        void* fn = h ? dlsym(h, kernel_symbol(keys[i]).c_str()) : nullptr;
        if (!fn) continue;
        s.loaded[keys[i]] = fn;
        published.push_back(keys[i]);
        ++r.misses;
      }
      if (s.disk.enabled() && s.disk.writable && !published.empty() && build->write("sealed.so", s.disk.seal(*obj), true)) {
        s.disk.publish(*build, "sealed.so", published);
        s.disk.evict();
      }
    }
    if (!keep) work->remove_subdir(build->name());
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
  ci.dir = s.disk.path();
  auto u = s.disk.usage();
  ci.entries = u.entries;
  ci.bytes = u.bytes;
  ci.cap_bytes = s.disk.cap;
  ci.hits = s.hits;
  ci.misses = s.misses;
  ci.compile_ms = s.compile_ms;
  ci.key_memo_hits = s.memo_hits;
  return ci;
}

void cache_clear() {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  configure(s);
  s.disk.clear();
  s.loaded.clear();
  for (auto& [ino, pin] : s.by_inode) close(pin.first);
  s.by_inode.clear();
}

}  // namespace ein::jit
