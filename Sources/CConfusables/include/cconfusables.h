#ifndef QUESTBOX_CCONFUSABLES_H
#define QUESTBOX_CCONFUSABLES_H

#include <stdint.h>

/// Unicode TR39's skeleton of a name after NFKC_Casefold (compatibility forms, case and
/// default-ignorable characters folded away), as UTF-8 into `out` with a closing NUL.
/// Returns the skeleton's length in bytes, or -1 when the text is not UTF-8, is longer
/// than the shim takes (1,024 bytes), or does not fit `capacity`.
int32_t questbox_name_skeleton(const char *utf8, int32_t length, char *out, int32_t capacity);

#endif
