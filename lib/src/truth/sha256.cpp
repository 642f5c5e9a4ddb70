// SHA-256 through OpenSSL's libcrypto (Debian's libssl-dev), never by hand.
#include <openssl/evp.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "mmaemu/truth.hpp"

namespace mmaemu {
namespace {

struct DigestContext {
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx{EVP_MD_CTX_new(), &EVP_MD_CTX_free};
  DigestContext() { EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr); }
  void update(const void* data, size_t size) { EVP_DigestUpdate(ctx.get(), data, size); }
  std::string hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    EVP_DigestFinal_ex(ctx.get(), digest, &length);
    std::string out;
    char buffer[3];
    for (unsigned i = 0; i < length; ++i) {
      std::snprintf(buffer, sizeof buffer, "%02x", digest[i]);
      out += buffer;
    }
    return out;
  }
};

}  // namespace

std::string sha256_bytes(std::span<const uint8_t> bytes) {
  DigestContext d;
  d.update(bytes.data(), bytes.size());
  return d.hex();
}

Result<std::string> sha256_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(Errc::io, path.string() + ": cannot open");
  DigestContext d;
  std::vector<char> buffer(1 << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    d.update(buffer.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return Error(Errc::io, path.string() + ": read error");
  return d.hex();
}

}  // namespace mmaemu
