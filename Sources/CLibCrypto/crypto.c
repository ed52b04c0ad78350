#define _GNU_SOURCE
#include "qb_crypto.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

// OpenSSL 3's functions as libcrypto.so.3 exports them; EVP_MD and ENGINE stay opaque.
typedef struct qb_evp_md qb_evp_md;
static struct {
    const qb_evp_md *(*EVP_sha256)(void);
    int (*EVP_Digest)(const void *data, size_t count, unsigned char *md, unsigned int *size, const qb_evp_md *type, void *engine);
    unsigned char *(*HMAC)(const qb_evp_md *md, const void *key, int key_len, const unsigned char *data, size_t data_len,
                           unsigned char *out, unsigned int *out_len);
    int (*EVP_PBE_scrypt)(const char *pass, size_t passlen, const unsigned char *salt, size_t saltlen, uint64_t N, uint64_t r,
                          uint64_t p, uint64_t maxmem, unsigned char *key, size_t keylen);
} fn;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;
static char problem[256] = "libcrypto.so.3 was not loaded";

static void load(void) {
    void *library = dlopen("libcrypto.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(problem, sizeof problem, "OpenSSL's library (libcrypto.so.3, package libssl3) cannot be loaded: %s", why ? why : "not found");
        return;
    }
#define QB_FIND(name) \
    if (!(*(void **)&fn.name = dlsym(library, #name))) { \
        snprintf(problem, sizeof problem, "OpenSSL's library (libcrypto.so.3) has no %s", #name); \
        return; \
    }
    QB_FIND(EVP_sha256) QB_FIND(EVP_Digest) QB_FIND(HMAC) QB_FIND(EVP_PBE_scrypt)
#undef QB_FIND
    loaded = 0;
}

int qb_crypto_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *qb_crypto_load_error(void) { return problem; }

int qb_crypto_sha256(const void *data, size_t count, uint8_t digest[32]) {
    if (qb_crypto_load() != 0) return -1;
    unsigned int size = 0;
    const qb_evp_md *md = fn.EVP_sha256();
    if (!md || fn.EVP_Digest(data, count, digest, &size, md, NULL) != 1 || size != 32) return -1;
    return 0;
}

int qb_crypto_hmac_sha256(const void *key, size_t key_count, const void *data, size_t count, uint8_t code[32]) {
    if (qb_crypto_load() != 0 || key_count > INT_MAX) return -1;
    unsigned int size = 0;
    const qb_evp_md *md = fn.EVP_sha256();
    // HMAC() reads a NULL key as "no key"; an empty key is a valid one.
    static const unsigned char none[1] = {0};
    if (!md || !fn.HMAC(md, key_count ? key : none, (int)key_count, data, count, code, &size) || size != 32) return -1;
    return 0;
}

int qb_crypto_scrypt(const void *password, size_t password_count, const void *salt, size_t salt_count,
                     uint64_t n, uint64_t r, uint64_t p, uint64_t max_memory, uint8_t *key, size_t key_count) {
    if (qb_crypto_load() != 0) return -1;
    static const unsigned char none[1] = {0};
    return fn.EVP_PBE_scrypt(password_count ? password : (const char *)none, password_count, salt_count ? salt : none, salt_count,
                             n, r, p, max_memory, key, key_count) == 1 ? 0 : -1;
}
