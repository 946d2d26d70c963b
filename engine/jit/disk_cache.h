// Internal to engine/jit: the on-disk kernel cache (trust model: docs/jit.md).
//
// An entry is `<key>.so`: the shared object followed by a 48-byte trailer (magic, length,
// HMAC-SHA256 of the object under the user's secret cache key). The key is 32 random bytes in
// `ein-cache.key` (mode 0600) inside the cache directory, made on first use; an entry whose
// HMAC does not verify was not written by this user's ein (or was damaged) and is deleted and
// rebuilt, never loaded. The directory itself must be a TrustedDir (ours, not writable by
// group/others), or the cache is refused with a warning and kernels live in memory only.
// One compiled translation unit may hold several kernels: its file gets one hard link per key,
// and link() never replaces an existing name, so a file another process has loaded is never
// overwritten. Recently used entries have recent mtimes; the oldest are evicted above the cap.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/jit/trusted_dir.h"

namespace ein::jit {

// Largest object file the cache reads (a cell's kernels compile to tens of kilobytes).
constexpr int64_t kMaxObjectBytes = int64_t{64} << 20;

struct DiskCache {
  std::unique_ptr<TrustedDir> dir;  // nullptr = no disk cache
  std::string mac_key;              // 32 secret bytes
  bool writable = false;
  int64_t cap = 0;
  std::string refused;              // why a configured directory is not used ("" = it is)
  std::string refused_path;

  static DiskCache from_env();
  bool enabled() const { return dir != nullptr; }
  std::string path() const { return dir ? dir->path() : ""; }

  static std::string entry_name(const std::string& key) { return key + ".so"; }
  std::string path_of(const std::string& key) const { return path() + "/" + entry_name(key); }

  // An entry's inode, when a regular file is there. A non-regular file (FIFO, symlink, ...)
  // under an entry's name is removed.
  std::optional<std::pair<dev_t, ino_t>> inode_of(const std::string& key) const;
  // The object of a verified entry (trailer stripped), with its inode. A file that fails any
  // check is removed (when writable) so that it is rebuilt.
  struct Object {
    std::string bytes;
    dev_t dev = 0;
    ino_t ino = 0;
  };
  std::optional<Object> load(const std::string& key) const;
  void touch(const std::string& key) const;
  void remove(const std::string& key) const;
  // The object followed by its authenticated trailer.
  std::string seal(const std::string& object) const;
  // Links a sealed file of `from` (a private subdirectory of this cache) under every key.
  void publish(const TrustedDir& from, const std::string& name, const std::vector<std::string>& keys) const;
  // Evicts least recently used entries until the cache is under its cap, and removes build
  // directories abandoned by killed processes.
  void evict() const;

  // Small authenticated records beside the entries (the compiler identity memo).
  std::optional<std::string> read_record(const std::string& name) const;
  void write_record(const std::string& name, const std::string& text) const;

  struct Usage {
    int64_t entries = 0, bytes = 0;
  };
  Usage usage() const;
  void clear() const;
};

// Bytes from $EIN_CACHE_MAX ("512M", "2G", plain bytes); default 256 MiB.
int64_t cache_cap_from_env();

}  // namespace ein::jit
