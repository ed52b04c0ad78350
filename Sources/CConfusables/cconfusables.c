// The toolchain's own ICU (lib_FoundationICU, which Foundation already loads; no header of it
// is installed): NFKC_Casefold and TR39's confusable skeleton. The prototypes are ICU's public
// C API. Swift 6.3's copy names them with a swift_ prefix; earlier ones (Debian's 6.2, the
// arm64 build) without: Package.swift says which (QUESTBOX_ICU_SWIFT_PREFIX).
#include "cconfusables.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>

#ifdef QUESTBOX_ICU_SWIFT_PREFIX
#define ICU(name) swift_##name
#else
#define ICU(name) name
#endif

typedef uint16_t UChar;
typedef int UErrorCode;
typedef struct USpoofChecker USpoofChecker;
typedef struct UNormalizer2 UNormalizer2;

USpoofChecker *ICU(uspoof_open)(UErrorCode *status);
int32_t ICU(uspoof_getSkeleton)(const USpoofChecker *sc, uint32_t type, const UChar *id, int32_t length, UChar *dest,
                                int32_t destCapacity, UErrorCode *status);
const UNormalizer2 *ICU(unorm2_getNFKCCasefoldInstance)(UErrorCode *status);
int32_t ICU(unorm2_normalize)(const UNormalizer2 *norm2, const UChar *src, int32_t length, UChar *dest, int32_t capacity,
                              UErrorCode *status);
UChar *ICU(u_strFromUTF8)(UChar *dest, int32_t destCapacity, int32_t *destLength, const char *src, int32_t srcLength,
                          UErrorCode *status);
char *ICU(u_strToUTF8)(char *dest, int32_t destCapacity, int32_t *destLength, const UChar *src, int32_t srcLength,
                       UErrorCode *status);

#define U_FAILURE(x) ((x) > 0)
// A name is at most a few hundred bytes; NFKC may grow a text up to 18 times (U+FDFA).
enum { maximum_input = 1024, units = maximum_input * 18 };

// One checker for the process: opening one reads the confusables table; getSkeleton only
// reads it, so threads share it.
static USpoofChecker *checker;
static const UNormalizer2 *casefold;
static pthread_once_t opened = PTHREAD_ONCE_INIT;

static void open_once(void) {
    UErrorCode status = 0;
    checker = ICU(uspoof_open)(&status);
    if (U_FAILURE(status)) checker = NULL;
    status = 0;
    casefold = ICU(unorm2_getNFKCCasefoldInstance)(&status);
    if (U_FAILURE(status)) casefold = NULL;
}

int32_t questbox_name_skeleton(const char *utf8, int32_t length, char *out, int32_t capacity) {
    if (utf8 == NULL || out == NULL || length < 0 || length > maximum_input || capacity < 1) return -1;
    pthread_once(&opened, open_once);
    if (checker == NULL || casefold == NULL) return -1;
    // On the heap, per call: a name is short, and no thread keeps buffers it rarely uses.
    UChar *text = malloc(sizeof(UChar) * 3 * units);
    if (text == NULL) return -1;
    UChar *folded = text + units, *skeleton = folded + units;
    int32_t result = -1, n = 0, written = 0;
    UErrorCode status = 0;
    ICU(u_strFromUTF8)(text, units, &n, utf8, length, &status);
    if (U_FAILURE(status)) goto done;
    n = ICU(unorm2_normalize)(casefold, text, n, folded, units, &status);
    if (U_FAILURE(status)) goto done;
    n = ICU(uspoof_getSkeleton)(checker, 0, folded, n, skeleton, units, &status);
    if (U_FAILURE(status)) goto done;
    ICU(u_strToUTF8)(out, capacity, &written, skeleton, n, &status);
    if (U_FAILURE(status) || written >= capacity) goto done;
    out[written] = '\0';
    result = written;
done:
    free(text);
    return result;
}
