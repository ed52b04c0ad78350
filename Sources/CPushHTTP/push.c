#include "qb_push.h"
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void init_curl(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

/* The answer's body is not kept: a push service's reply is read and dropped. */
static size_t discard(char *ptr, size_t size, size_t nmemb, void *user) {
    (void)ptr;
    (void)user;
    return size * nmemb;
}

int qb_push_post(const char *url, const char *title, const char *tags, const char *body, long timeout_ms, const char *ca_file,
                 long *status, char *err, size_t err_len) {
    pthread_once(&once, init_curl);
    char errbuf[CURL_ERROR_SIZE] = {0};
    CURL *curl = curl_easy_init();
    if (!curl) {
        snprintf(err, err_len, "libcurl: no memory");
        return -1;
    }
    struct curl_slist *headers = NULL;
    char line[1024];
    snprintf(line, sizeof line, "Title: %s", title);
    headers = curl_slist_append(headers, line);
    if (tags && *tags) {
        snprintf(line, sizeof line, "Tags: %s", tags);
        headers = curl_slist_append(headers, line);
    }
    headers = curl_slist_append(headers, "Content-Type: text/plain; charset=utf-8");
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "questbox-link");
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
    if (ca_file && *ca_file) curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file);
    CURLcode rc = curl_easy_perform(curl);
    int result = 0;
    if (rc == CURLE_OK) {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
    } else {
        snprintf(err, err_len, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
        result = -1;
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return result;
}
