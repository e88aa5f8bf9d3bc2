// Digests through OpenSSL: sha256 (data verification, tokenizer and corpus fingerprints) and git's
// blob id (SHA-1 of "blob <size>\0" + content), as lowercase hex.
#pragma once
#include <string>
#include <string_view>

namespace bb {

std::string sha256_hex(std::string_view bytes);
std::string git_blob_sha1_hex(std::string_view bytes);

}  // namespace bb
