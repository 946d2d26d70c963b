// SHA-256 (FIPS 180-4), for kernel cache keys, and HMAC-SHA256 for cache-entry authentication. Small and dependency
// free on purpose: the cache key must not change with a crypto library's build options.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ein::jit {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t n);
  void update(std::string_view s) { update(s.data(), s.size()); }
  // 32 raw bytes; the object must not be updated afterwards.
  std::string digest();
  std::string hex();

 private:
  void block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t used_ = 0;
  uint64_t bits_ = 0;
};

std::string sha256_hex(std::string_view s);

// HMAC-SHA256 (RFC 2104): 32 raw bytes. Authenticates cache entries with a per-user secret key.
std::string hmac_sha256(std::string_view key, std::string_view data);

// Compares two byte strings in time independent of where they differ.
bool same_bytes(std::string_view a, std::string_view b);

}  // namespace ein::jit
