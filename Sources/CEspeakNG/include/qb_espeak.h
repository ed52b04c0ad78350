#ifndef QB_ESPEAK_H
#define QB_ESPEAK_H
// libespeak-ng, loaded when the box first speaks (dlopen), not linked: linked, the daemon
// loaded it and the ~30 libraries it pulls in (PulseAudio, X11, D-Bus, codecs) at every start,
// some 4 MB of its memory, though only the voice process (`questbox voice serve`) renders.
// Types and constants come from eSpeak NG's own headers; each function is its namesake,
// prefixed `qb_`, called through the loaded library.
#include <stddef.h>
#include <espeak-ng/speak_lib.h>
#include <espeak-ng/espeak_ng.h>

/// Loads libespeak-ng.so.1 and finds its functions (once; later calls say how it went):
/// 0, or -1 with `qb_espeak_load_error()` saying why in one line.
int qb_espeak_load(void);
const char *qb_espeak_load_error(void);

void qb_espeak_ng_InitializePath(const char *path);
const char *qb_espeak_Info(const char **path_data);
espeak_ng_STATUS qb_espeak_ng_Initialize(espeak_ng_ERROR_CONTEXT *context);
void qb_espeak_ng_ClearErrorContext(espeak_ng_ERROR_CONTEXT *context);
espeak_ng_STATUS qb_espeak_ng_InitializeOutput(espeak_ng_OUTPUT_MODE output_mode, int buffer_length, const char *device);
void qb_espeak_SetSynthCallback(t_espeak_callback *callback);
int qb_espeak_ng_GetSampleRate(void);
espeak_ng_STATUS qb_espeak_ng_Synthesize(const void *text, size_t size, unsigned int position, espeak_POSITION_TYPE position_type,
                                         unsigned int end_position, unsigned int flags, unsigned int *unique_identifier, void *user_data);
espeak_ng_STATUS qb_espeak_ng_SetVoiceByName(const char *name);
espeak_ng_STATUS qb_espeak_ng_SetParameter(espeak_PARAMETER parameter, int value, int relative);
void qb_espeak_ng_GetStatusCodeMessage(espeak_ng_STATUS status, char *buffer, size_t length);

#endif
