// Internal to engine/jit: the on-disk kernel cache.
//
// An entry is `<key>.so`: the shared object followed by a 48-byte trailer (magic, length,
// SHA-256 of the object), so truncated or corrupt files are detected before dlopen and rebuilt.
// One compiled translation unit may hold several kernels: its file gets one hard link per key.
// Files are written under a temporary name and linked into place (link() never replaces an
// existing name, so a file another process has loaded is never overwritten). Recently used
// entries have recent mtimes; the oldest are evicted above the size cap.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ein::jit {

struct DiskCache {
  std::string dir;        // "" = no disk cache
  bool writable = false;
  int64_t cap = 0;

  static DiskCache from_env();

  std::string path_of(const std::string& key) const { return dir + "/" + key + ".so"; }
  // Verifies the trailer; false (and the entry removed, when writable) if missing or corrupt.
  bool verify(const std::string& key) const;
  void touch(const std::string& key) const;
  void remove(const std::string& key) const;
  // Adds the trailer to a freshly compiled object (in place).
  static bool seal(const std::string& so_path);
  // Links a sealed object under every key (existing entries are kept).
  void publish(const std::string& so_path, const std::vector<std::string>& keys) const;
  // Evicts least recently used entries until the cache is under its cap.
  void evict() const;

  struct Usage {
    int64_t entries = 0, bytes = 0;
  };
  Usage usage() const;
  void clear() const;
};

// Bytes from $EIN_CACHE_MAX ("512M", "2G", plain bytes); default 256 MiB.
int64_t cache_cap_from_env();

}  // namespace ein::jit
