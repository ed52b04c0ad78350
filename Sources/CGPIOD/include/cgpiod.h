#ifndef CGPIOD_H
#define CGPIOD_H
// A small, version-neutral face of libgpiod for the box: the same calls whether the system
// has libgpiod 1.6 (v1 API, Debian bookworm) or 2.x (v2 API, trixie, current Raspberry Pi
// OS). The .c file picks the API at compile time; Swift never sees the difference.
#include <stddef.h>
#include <stdint.h>

/// 1 for the v1 API, 2 for the v2 API.
int qb_gpiod_api(void);
/// The libgpiod library's own version string.
const char *qb_gpiod_version(void);

typedef struct {
    char chip_path[128];   // e.g. /dev/gpiochip0
    char chip_label[64];   // e.g. pinctrl-bcm2711, questbox
    unsigned int offset;
} qb_line_location;

/// Finds a line by name on the chip labelled `chip_label` (NULL or "" for every chip).
/// Returns 0 when found; -1 when not, with the chips searched ("gpiochip0 (label), …", or
/// "no GPIO chips") in `searched`.
int qb_find_line(const char *line_name, const char *chip_label, qb_line_location *out, char *searched, size_t searched_size);

/// 1 when another consumer holds the line (its name in `consumer`), 0 when free, -1 on error.
int qb_line_in_use(const qb_line_location *line, char *consumer, size_t consumer_size);

enum { QB_BIAS_AS_IS = 0, QB_BIAS_DISABLED = 1, QB_BIAS_PULL_UP = 2, QB_BIAS_PULL_DOWN = 3 };

typedef struct qb_request qb_request;

/// Requests input lines on one chip with edge events on both edges. Edges are logical:
/// with `active_low`, pressing a button wired to ground is a rising edge.
qb_request *qb_request_inputs(const char *chip_path, const unsigned int *offsets, size_t count, int active_low, int bias,
                              const char *consumer, char *error, size_t error_size);

/// Requests output lines on one chip, initially inactive.
qb_request *qb_request_outputs(const char *chip_path, const unsigned int *offsets, size_t count, int active_low,
                               const char *consumer, char *error, size_t error_size);

/// The file descriptors to poll for edge events (v1: one per line, v2: one). Returns how
/// many were written to `fds`.
size_t qb_request_fds(qb_request *request, int *fds, size_t max);

typedef struct {
    unsigned int offset;
    int rising;               // 1 rising (logically active), 0 falling
    uint64_t timestamp_ns;    // the kernel's CLOCK_MONOTONIC time of the edge
} qb_edge_event;

/// Reads the pending edge events behind `fd` (call after poll says it is readable).
/// Returns the number read, or -1 with errno set.
int qb_read_events(qb_request *request, int fd, qb_edge_event *events, size_t max);

/// The output lines a press lights the moment its edge is read, before the loop's own work
/// (#49: under emulation that work held the LED back by a millisecond). The loop arms it with
/// what it worked out ahead; a press it does not cover waits for the loop's step.
enum { QB_LIGHT_LINES = 4, QB_LIGHT_BUTTONS = 8 };
typedef struct {
    const qb_request *input;   // the button's request, and its line there
    unsigned int offset;
    int armed;                 // 0: this button's press is the loop's to light
    uint64_t from_ns;          // a press stamped earlier is the loop's too (debounce, grace)
    int values[QB_LIGHT_LINES];// the outputs' values, in `offsets`' order
} qb_press_light;

typedef struct {
    qb_request *outputs;       // NULL: nothing is lit ahead
    unsigned int offsets[QB_LIGHT_LINES];
    size_t count;
    qb_press_light lights[QB_LIGHT_BUTTONS];
    size_t light_count;
} qb_press_lights;

/// `qb_read_events`, and when the first event read is a press an armed light covers, its
/// outputs set before returning. `*lit`: the light's index, or -1 (none, or the set failed:
/// the loop's step sets the LED then).
int qb_read_events_lighting(qb_request *request, int fd, qb_edge_event *events, size_t max, const qb_press_lights *plan,
                            int *lit);

/// Edges read the moment poll returns (#49), in the poll's own C call (CEventLoop's
/// `qb_poll_then` calls `qb_read_ready_edges` with this as its context): each readable input
/// descriptor read into its entry, the first press among them lit by `plan` as
/// `qb_read_events_lighting` would. The loop's Swift then takes the entries in place of reading.
enum { QB_READ_AHEAD_FDS = 16, QB_READ_AHEAD_EVENTS = 16 };
enum { QB_READ_AHEAD_EMPTY = 0, QB_READ_AHEAD_FULL = 1 };
typedef struct {
    qb_request *request;       // the descriptor's request (NULL: an unused entry)
    int fd;
    int state;                 // FULL: read, not yet taken (a FULL entry is not read again)
    int count;                 // events read, or -1 (the read failed: errno in `error`)
    int error;
    int lit;                   // the light `plan` set for its first event, or -1
    qb_edge_event events[QB_READ_AHEAD_EVENTS];
} qb_read_ahead;

typedef struct {
    qb_read_ahead entries[QB_READ_AHEAD_FDS];
    size_t entry_count;
    const qb_press_lights *plan; // NULL: read without lighting
} qb_reads_ahead;

/// A `qb_after_poll`: reads every EMPTY entry whose descriptor poll found readable, in the
/// poll set's order; the plan lights at most the first read that brings events.
void qb_read_ready_edges(const int *fds, const int *ready, int count, void *context);

/// Sets an output line (logical value). Returns 0 or -1.
int qb_set_value(qb_request *request, unsigned int offset, int value);
/// Several lines of one request in one step (an RGB LED changes colour at once).
int qb_set_values(qb_request *request, const unsigned int *offsets, const int *values, size_t count);
/// Reads a line's logical value: 0, 1, or -1.
int qb_get_value(qb_request *request, unsigned int offset);

/// Releases the lines and frees everything the request holds.
void qb_release(qb_request *request);

#endif
