#include "common/hash.h"

#include <openssl/evp.h>

#include "common/error.h"

namespace bb {

static std::string digest_hex(const EVP_MD* md, std::string_view prefix, std::string_view bytes) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  BB_CHECK(ctx, "OpenSSL: cannot allocate a digest context");
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  const bool ok = EVP_DigestInit_ex(ctx, md, nullptr) == 1 &&
                  EVP_DigestUpdate(ctx, prefix.data(), prefix.size()) == 1 &&
                  EVP_DigestUpdate(ctx, bytes.data(), bytes.size()) == 1 &&
                  EVP_DigestFinal_ex(ctx, out, &len) == 1;
  EVP_MD_CTX_free(ctx);
  BB_CHECK(ok, "OpenSSL: digest failed");
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (unsigned i = 0; i < len; ++i) {
    s += hex[out[i] >> 4];
    s += hex[out[i] & 15];
  }
  return s;
}

std::string sha256_hex(std::string_view bytes) { return digest_hex(EVP_sha256(), {}, bytes); }

std::string git_blob_sha1_hex(std::string_view bytes) {
  const std::string header = "blob " + std::to_string(bytes.size()) + std::string(1, '\0');
  return digest_hex(EVP_sha1(), header, bytes);
}

}  // namespace bb
