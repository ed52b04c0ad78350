#define _GNU_SOURCE
#include "qb_espeak.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define QB_ESPEAK_FUNCTIONS(X) \
    X(espeak_ng_InitializePath) X(espeak_Info) X(espeak_ng_Initialize) X(espeak_ng_ClearErrorContext) \
    X(espeak_ng_InitializeOutput) X(espeak_SetSynthCallback) X(espeak_ng_GetSampleRate) X(espeak_ng_Synthesize) \
    X(espeak_ng_SetVoiceByName) X(espeak_ng_SetParameter) X(espeak_ng_GetStatusCodeMessage)

static struct {
#define QB_FIELD(name) __typeof__(&name) name;
    QB_ESPEAK_FUNCTIONS(QB_FIELD)
#undef QB_FIELD
} fn;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;
static char problem[256] = "libespeak-ng.so.1 was not loaded";

static void load(void) {
    void *library = dlopen("libespeak-ng.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        snprintf(problem, sizeof problem, "eSpeak NG's library (libespeak-ng.so.1) cannot be loaded: %s", why ? why : "not found");
        return;
    }
#define QB_FIND(name) \
    if (!(fn.name = (__typeof__(&name))dlsym(library, #name))) { \
        snprintf(problem, sizeof problem, "eSpeak NG's library (libespeak-ng.so.1) has no %s", #name); \
        return; \
    }
    QB_ESPEAK_FUNCTIONS(QB_FIND)
#undef QB_FIND
    loaded = 0;
}

int qb_espeak_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *qb_espeak_load_error(void) { return problem; }

// Called only after qb_espeak_load() returned 0 (EspeakSpeech loads it first).
void qb_espeak_ng_InitializePath(const char *path) { fn.espeak_ng_InitializePath(path); }
const char *qb_espeak_Info(const char **path_data) { return fn.espeak_Info(path_data); }
espeak_ng_STATUS qb_espeak_ng_Initialize(espeak_ng_ERROR_CONTEXT *context) { return fn.espeak_ng_Initialize(context); }
void qb_espeak_ng_ClearErrorContext(espeak_ng_ERROR_CONTEXT *context) { fn.espeak_ng_ClearErrorContext(context); }
espeak_ng_STATUS qb_espeak_ng_InitializeOutput(espeak_ng_OUTPUT_MODE output_mode, int buffer_length, const char *device) {
    return fn.espeak_ng_InitializeOutput(output_mode, buffer_length, device);
}
void qb_espeak_SetSynthCallback(t_espeak_callback *callback) { fn.espeak_SetSynthCallback(callback); }
int qb_espeak_ng_GetSampleRate(void) { return fn.espeak_ng_GetSampleRate(); }
espeak_ng_STATUS qb_espeak_ng_Synthesize(const void *text, size_t size, unsigned int position, espeak_POSITION_TYPE position_type,
                                         unsigned int end_position, unsigned int flags, unsigned int *unique_identifier, void *user_data) {
    return fn.espeak_ng_Synthesize(text, size, position, position_type, end_position, flags, unique_identifier, user_data);
}
espeak_ng_STATUS qb_espeak_ng_SetVoiceByName(const char *name) { return fn.espeak_ng_SetVoiceByName(name); }
espeak_ng_STATUS qb_espeak_ng_SetParameter(espeak_PARAMETER parameter, int value, int relative) {
    return fn.espeak_ng_SetParameter(parameter, value, relative);
}
void qb_espeak_ng_GetStatusCodeMessage(espeak_ng_STATUS status, char *buffer, size_t length) {
    fn.espeak_ng_GetStatusCodeMessage(status, buffer, length);
}
