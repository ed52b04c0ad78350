#ifndef QB_PUSH_H
#define QB_PUSH_H
#include <stddef.h>

/* One HTTP POST through libcurl (curl_easy_setopt is variadic, out of Swift's reach): a text
 * body and a Title header, as ntfy takes it. Returns 0 with the HTTP status in *status, or -1
 * with libcurl's one-line reason in err. Never follows redirects; at most timeout_ms in all. */
int qb_push_post(const char *url, const char *title, const char *tags, const char *body, long timeout_ms, const char *ca_file,
                 long *status, char *err, size_t err_len);

#endif
