#ifndef CAUDIO_H
#define CAUDIO_H
// The few libasound calls the sound engine makes, with the parameter dance done in C
// (ALSA's hw/sw parameter API is macro- and out-parameter-heavy).
#include <stdint.h>

typedef struct qa_pcm qa_pcm;

/// What the device agreed to.
typedef struct {
    unsigned rate;
    unsigned channels;
    unsigned long period_frames;
    unsigned long buffer_frames;
    /// 1 when the device does not pace writes itself (ALSA's `null` and `file` PCMs): the
    /// caller must keep real time, or it would spin.
    int needs_pacing;
    /// 1 when the stream may go unwritten while nothing plays (the driver plays silence)
    /// and be rejoined with `qa_pcm_rejoin`; 0 when it must be written every period.
    int can_park;
} qa_config;

/// Opens `name` for playback as S16_LE at exactly `rate` Hz (resampling allowed), `channels`
/// (or the nearest the device takes), a period near `period_us` and a buffer near
/// `buffer_us`. The software parameters make an idle stream unable to stop: it starts when
/// the buffer is full, never stops on underrun, and the driver fills what we did not write
/// with silence. Returns 0, or a negative errno with `stage` naming the step that failed.
int qa_pcm_open(const char *name, unsigned rate, unsigned channels, unsigned period_us, unsigned buffer_us,
                qa_pcm **out, qa_config *config, const char **stage);

/// Writes `frames` interleaved frames (blocking). Underruns and suspends are recovered in
/// place and counted in `*recovered`. On a hardware PCM (`hw:`, `plughw:`) a running stream
/// that never stops on underrun cannot report one, so `*late` is set to the frames the
/// hardware had already played past what was written when this write began (0 if none):
/// silence the listener heard in the middle of the stream. The write goes where it always
/// would (its first frames may land behind the card and go unheard; the writes that follow
/// do not wait until the buffer is full again), so a small lateness costs only itself.
/// `*queued` is what was still queued ahead of the hardware at that moment and
/// `*checked_at` the moment (CLOCK_MONOTONIC ns), or -1 and 0 where the device cannot tell:
/// the caller's clock sees the stalls longer than the buffer, for which ALSA's position
/// wraps and `*late` says too little. Returns 0, or a negative errno when the device is
/// gone or broken (the caller closes it and retries later).
int qa_pcm_write(qa_pcm *pcm, const int16_t *samples, unsigned long frames, unsigned *recovered,
                 unsigned long *late, long *queued, int64_t *checked_at);

/// After a pause in writing: moves the application pointer so that `lead` frames (already
/// silence) are queued ahead of the hardware, if fewer are. The next write then sounds after
/// `lead` frames instead of landing behind the hardware pointer. Returns 0 or a negative
/// errno.
int qa_pcm_rejoin(qa_pcm *pcm, unsigned long lead);

/// Drops what is queued and closes the device.
void qa_pcm_close(qa_pcm *pcm);

/// libasound's text for a negative error code.
const char *qa_strerror(int err);

/// Routes libasound's own stderr chatter nowhere: the engine logs one line per problem.
void qa_quiet_library_errors(void);

/// CPU time the calling thread has used, in ns.
int64_t qa_thread_cpu_ns(void);
/// Sleeps until the CLOCK_MONOTONIC time `at_ns`.
void qa_sleep_until(int64_t at_ns);
/// Asks for SCHED_FIFO at `priority` for the calling thread: 1 granted, 0 not permitted.
int qa_try_realtime(int priority);

/// Blocks SIGTERM, SIGINT and the other asynchronous signals in the calling thread, so they
/// reach the event loop's signalfd and never end the process from the audio thread.
void qa_block_async_signals(void);
/// Names the calling thread (at most 15 characters show) for ps, top and /proc.
void qa_name_current_thread(const char *name);

#endif
