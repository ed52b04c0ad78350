/* Records what the box plays, from the capture side of the ALSA loopback card, with the
 * CLOCK_MONOTONIC time of every frame, so a press (also on CLOCK_MONOTONIC) can be set
 * against the first sample it caused. Test equipment for the HIL scenarios, not the box.
 *
 *   hil-capture DEVICE SECONDS OUT.raw OUT.times
 *
 * OUT.raw: S16_LE, 2 channels, 48 kHz, interleaved. OUT.times: one line per read,
 * "monotonic_ns frames_read_so_far frames_waiting" (snd_pcm_delay right after the read):
 * frame k became readable no later than monotonic_ns - (frames_read + waiting - k) / 48 kHz.
 * If the recorder is starved past its 2 s buffer (an overrun), frames are lost: it writes
 * "gap frames_read_so_far" and goes on, so what follows starts a new time base. */
#include <alsa/asoundlib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { RATE = 48000, CHANNELS = 2, PERIOD = 240 };

static volatile sig_atomic_t stopping;
static void on_term(int sig) { (void)sig; stopping = 1; }

static long long monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int fail(const char *what, int err) {
    fprintf(stderr, "hil-capture: %s: %s\n", what, snd_strerror(err));
    return 1;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: hil-capture DEVICE SECONDS OUT.raw OUT.times\n");
        return 2;
    }
    double seconds = atof(argv[2]);
    FILE *raw = fopen(argv[3], "wb"), *times = fopen(argv[4], "w");
    if (!raw || !times) { perror("hil-capture: output"); return 1; }
    signal(SIGTERM, on_term);
    signal(SIGINT, on_term);

    snd_pcm_t *pcm;
    int err = snd_pcm_open(&pcm, argv[1], SND_PCM_STREAM_CAPTURE, 0);
    if (err < 0) return fail(argv[1], err);
    /* 5 ms periods (fine time stamps) in a 2 s buffer: under emulation on a busy host a
     * vCPU can stall for far longer than one period. */
    snd_pcm_hw_params_t *hw;
    snd_pcm_hw_params_alloca(&hw);
    snd_pcm_uframes_t period = PERIOD, buffer = 2 * RATE;
    unsigned int rate = RATE;
    if ((err = snd_pcm_hw_params_any(pcm, hw)) < 0
        || (err = snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED)) < 0
        || (err = snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE)) < 0
        || (err = snd_pcm_hw_params_set_channels(pcm, hw, CHANNELS)) < 0
        || (err = snd_pcm_hw_params_set_rate(pcm, hw, rate, 0)) < 0
        || (err = snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, NULL)) < 0
        || (err = snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer)) < 0
        || (err = snd_pcm_hw_params(pcm, hw)) < 0)
        return fail("hw_params", err);
    if ((err = snd_pcm_start(pcm)) < 0) return fail("start", err);
    printf("capturing\n");
    fflush(stdout);

    short buf[PERIOD * CHANNELS];
    long long total = 0, gaps = 0, deadline = monotonic_ns() + (long long)(seconds * 1e9);
    while (!stopping && monotonic_ns() < deadline) {
        snd_pcm_sframes_t n = snd_pcm_readi(pcm, buf, PERIOD);
        if (n < 0) {
            if (n == -EINTR) continue;
            fprintf(stderr, "hil-capture: overrun or error at frame %lld: %s\n", total, snd_strerror((int)n));
            if ((err = snd_pcm_recover(pcm, (int)n, 1)) < 0) return fail("recover", err);
            if ((err = snd_pcm_start(pcm)) < 0 && err != -EBADFD) return fail("restart", err);
            fprintf(times, "gap %lld\n", total);
            gaps++;
            continue;
        }
        long long now = monotonic_ns();
        snd_pcm_sframes_t waiting = 0;
        if (snd_pcm_delay(pcm, &waiting) < 0) waiting = 0;
        fwrite(buf, sizeof(short) * CHANNELS, (size_t)n, raw);
        total += n;
        fprintf(times, "%lld %lld %ld\n", now, total, (long)waiting);
    }
    snd_pcm_close(pcm);
    if (gaps) fprintf(stderr, "hil-capture: %lld gaps (frames lost to overruns)\n", gaps);
    fclose(raw);
    fclose(times);
    return 0;
}
