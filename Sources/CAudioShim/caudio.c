#include "caudio.h"
#include <alsa/asoundlib.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct qa_pcm {
    snd_pcm_t *handle;
    unsigned channels;
    snd_pcm_uframes_t buffer;
    int detects_late;   /* a hardware stream: qa_pcm_write reports the hardware running ahead */
};

#define CHECK(call, name) do { err = (call); if (err < 0) { *stage = (name); goto fail; } } while (0)

int qa_pcm_open(const char *name, unsigned rate, unsigned channels, unsigned period_us, unsigned buffer_us,
                qa_pcm **out, qa_config *config, const char **stage) {
    snd_pcm_t *pcm = NULL;
    snd_pcm_hw_params_t *hw = NULL;
    snd_pcm_sw_params_t *sw = NULL;
    int err;
    int dir = 0;
    *out = NULL;
    CHECK(snd_pcm_open(&pcm, name, SND_PCM_STREAM_PLAYBACK, 0), "open");
    CHECK(snd_pcm_hw_params_malloc(&hw), "allocate hw params");
    CHECK(snd_pcm_hw_params_any(pcm, hw), "read hw params");
    CHECK(snd_pcm_hw_params_set_rate_resample(pcm, hw, 1), "allow resampling");
    CHECK(snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED), "interleaved access");
    CHECK(snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE), "format S16_LE");
    unsigned ch = channels;
    CHECK(snd_pcm_hw_params_set_channels_near(pcm, hw, &ch), "channels");
    CHECK(snd_pcm_hw_params_set_rate(pcm, hw, rate, 0), "rate");
    unsigned buf_us = buffer_us;
    CHECK(snd_pcm_hw_params_set_buffer_time_near(pcm, hw, &buf_us, &dir), "buffer time");
    unsigned per_us = period_us;
    dir = 0;
    CHECK(snd_pcm_hw_params_set_period_time_near(pcm, hw, &per_us, &dir), "period time");
    CHECK(snd_pcm_hw_params(pcm, hw), "apply hw params");
    snd_pcm_uframes_t buffer = 0, period = 0;
    snd_pcm_hw_params_get_buffer_size(hw, &buffer);
    snd_pcm_hw_params_get_period_size(hw, &period, &dir);

    CHECK(snd_pcm_sw_params_malloc(&sw), "allocate sw params");
    CHECK(snd_pcm_sw_params_current(pcm, sw), "read sw params");
    snd_pcm_uframes_t boundary = 0;
    CHECK(snd_pcm_sw_params_get_boundary(sw, &boundary), "boundary");
    CHECK(snd_pcm_sw_params_set_avail_min(pcm, sw, period), "avail min");
    CHECK(snd_pcm_sw_params_set_start_threshold(pcm, sw, buffer), "start threshold");
    // Never stop on underrun; the driver plays silence for whatever we failed to write.
    CHECK(snd_pcm_sw_params_set_stop_threshold(pcm, sw, boundary), "stop threshold");
    CHECK(snd_pcm_sw_params_set_silence_threshold(pcm, sw, 0), "silence threshold");
    CHECK(snd_pcm_sw_params_set_silence_size(pcm, sw, boundary), "silence size");
    CHECK(snd_pcm_sw_params(pcm, sw), "apply sw params");
    CHECK(snd_pcm_prepare(pcm), "prepare");

    qa_pcm *result = calloc(1, sizeof *result);
    if (!result) { err = -ENOMEM; *stage = "allocate"; goto fail; }
    result->handle = pcm;
    result->channels = ch;
    result->buffer = buffer;
    snd_pcm_type_t type = snd_pcm_type(pcm);
    config->rate = rate;
    config->channels = ch;
    config->period_frames = period;
    config->buffer_frames = buffer;
    config->needs_pacing = (type == SND_PCM_TYPE_NULL || type == SND_PCM_TYPE_FILE);
    /* Parking relies on the kernel's silence fill and on moving the application pointer
     * with snd_pcm_forward: a hardware PCM (or plughw: straight over one) and null. Mixing
     * and sharing plugins (dmix, pulse, pipewire) keep being written; so does a file, whose
     * output is the stream's time line. */
    int hardware = type == SND_PCM_TYPE_HW || (type == SND_PCM_TYPE_PLUG && strncmp(name, "plughw:", 7) == 0);
    config->can_park = hardware || type == SND_PCM_TYPE_NULL;
    result->detects_late = hardware;
    snd_pcm_hw_params_free(hw);
    snd_pcm_sw_params_free(sw);
    /* The configuration tree alsa-lib parsed from alsa.conf and its includes stays cached for
     * the next open; an open PCM holds no reference to it (alsa-lib 1.1.2 and later), and the
     * box opens again only after losing its device, when the tree is simply read again. */
    snd_config_update_free_global();
    *out = result;
    *stage = "";
    return 0;
fail:
    if (hw) snd_pcm_hw_params_free(hw);
    if (sw) snd_pcm_sw_params_free(sw);
    if (pcm) snd_pcm_close(pcm);
    snd_config_update_free_global();
    return err;
}

int qa_pcm_write(qa_pcm *pcm, const int16_t *samples, unsigned long frames, unsigned *recovered,
                 unsigned long *late, long *queued, int64_t *checked_at) {
    *late = 0;
    *queued = -1;
    *checked_at = 0;
    if (pcm->detects_late && snd_pcm_state(pcm->handle) == SND_PCM_STATE_RUNNING) {
        /* Wait for room here rather than inside snd_pcm_writei, so the check below sees
         * where the card is at the moment the data lands: a stall during a blocked write
         * would otherwise go unseen, its first frames written into the past. */
        snd_pcm_sframes_t avail = snd_pcm_avail(pcm->handle);
        if (avail >= 0 && (unsigned long)avail < frames) {
            snd_pcm_wait(pcm->handle, 1000);
            avail = snd_pcm_avail(pcm->handle);
        }
        if (avail >= 0) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            *checked_at = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
            *queued = avail > (snd_pcm_sframes_t)pcm->buffer ? 0 : (long)(pcm->buffer - (unsigned long)avail);
        }
        if (avail > (snd_pcm_sframes_t)pcm->buffer) *late = (unsigned long)avail - pcm->buffer;
    }
    while (frames > 0) {
        snd_pcm_sframes_t n = snd_pcm_writei(pcm->handle, samples, frames);
        if (n == -EAGAIN || n == -EINTR) continue;
        if (n == -EPIPE || n == -ESTRPIPE) {
            int err = snd_pcm_recover(pcm->handle, (int)n, 1);
            if (err < 0) return err;
            (*recovered)++;
            continue;
        }
        if (n < 0) return (int)n;
        samples += (size_t)n * pcm->channels;
        frames -= (unsigned long)n;
    }
    return 0;
}

int qa_pcm_rejoin(qa_pcm *pcm, unsigned long lead) {
    snd_pcm_t *h = pcm->handle;
    if (snd_pcm_state(h) != SND_PCM_STATE_RUNNING) return 0;  /* not started yet: writes fill it */
    snd_pcm_sframes_t avail = snd_pcm_avail(h);
    if (avail < 0) return (int)avail;
    /* Frames still queued ahead of the hardware; negative once it has played past what we
     * wrote (the kernel has been playing its silence fill since). */
    snd_pcm_sframes_t queued = (snd_pcm_sframes_t)pcm->buffer - avail;
    if (queued >= (snd_pcm_sframes_t)lead) return 0;
    snd_pcm_sframes_t n = snd_pcm_forward(h, (snd_pcm_uframes_t)((snd_pcm_sframes_t)lead - queued));
    return n < 0 ? (int)n : 0;
}

void qa_pcm_close(qa_pcm *pcm) {
    if (!pcm) return;
    snd_pcm_drop(pcm->handle);
    snd_pcm_close(pcm->handle);
    free(pcm);
}

const char *qa_strerror(int err) { return snd_strerror(err); }

static void quiet_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

void qa_quiet_library_errors(void) { snd_lib_error_set_handler(quiet_handler); }

int64_t qa_thread_cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void qa_sleep_until(int64_t at_ns) {
    struct timespec t = { .tv_sec = at_ns / 1000000000LL, .tv_nsec = at_ns % 1000000000LL };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR) {}
}

int qa_try_realtime(int priority) {
    struct sched_param p = { .sched_priority = priority };
    return pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == 0 ? 1 : 0;
}

#include <signal.h>
#include <sys/prctl.h>
void qa_name_current_thread(const char *name) {
    prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

void qa_block_async_signals(void) {
    sigset_t set;
    sigfillset(&set);
    // Faults stay deliverable to the thread that caused them (crash reports).
    sigdelset(&set, SIGSEGV);
    sigdelset(&set, SIGBUS);
    sigdelset(&set, SIGFPE);
    sigdelset(&set, SIGILL);
    sigdelset(&set, SIGABRT);
    sigdelset(&set, SIGTRAP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
}
