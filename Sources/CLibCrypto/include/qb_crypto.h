#ifndef QB_CRYPTO_H
#define QB_CRYPTO_H
// The three hashes the store and the web app need (SHA-256, HMAC-SHA-256, scrypt), from
// OpenSSL's libcrypto (libssl3 on bookworm, libssl3t64 on trixie and Raspberry Pi OS), opened
// at the first call instead of linked: the box's daemon never hashes, and a linked libcrypto
// costs every process ~0.4 MB of relocated tables at start. Its own prototypes (OpenSSL 3's
// stable ABI), so no -dev package is needed to build.
#include <stddef.h>
#include <stdint.h>

/// 0 once libcrypto.so.3 is loaded with every function needed (the first call loads it).
int qb_crypto_load(void);
/// Why it could not be loaded (one line).
const char *qb_crypto_load_error(void);
/// 0 on success; `digest` receives 32 bytes.
int qb_crypto_sha256(const void *data, size_t count, uint8_t digest[32]);
int qb_crypto_hmac_sha256(const void *key, size_t key_count, const void *data, size_t count, uint8_t code[32]);
/// RFC 7914 scrypt; `max_memory` bounds N·r·128 plus its buffers (bytes).
int qb_crypto_scrypt(const void *password, size_t password_count, const void *salt, size_t salt_count,
                     uint64_t n, uint64_t r, uint64_t p, uint64_t max_memory, uint8_t *key, size_t key_count);

#endif
