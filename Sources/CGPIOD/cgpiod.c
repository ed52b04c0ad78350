#include "cgpiod.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gpiod.h>

static void set_error(char *error, size_t size, const char *what, const char *path) {
    if (error && size) snprintf(error, size, "%s %s: %s", what, path, strerror(errno));
}

static void append(char *buffer, size_t size, const char *text) {
    if (!buffer || !size) return;
    size_t used = strlen(buffer);
    if (used + 1 < size) snprintf(buffer + used, size - used, "%s", text);
}

#if defined(GPIOD_LINE_BULK_MAX_LINES)
/* ------------------------------------------------------------------ libgpiod 1.x (v1 API) */

#define QB_MAX_LINES GPIOD_LINE_BULK_MAX_LINES

struct qb_request {
    struct gpiod_chip *chip;
    struct gpiod_line_bulk bulk;
    int fds[QB_MAX_LINES];
    unsigned int offsets[QB_MAX_LINES];
    /* v1 sets an output request's lines all at once, by position (a one-line set on a
     * multi-line request would land on its first line), so the request keeps every value. */
    int values[QB_MAX_LINES];
    size_t count;
};

int qb_gpiod_api(void) { return 1; }
const char *qb_gpiod_version(void) { return gpiod_version_string(); }

int qb_find_line(const char *line_name, const char *chip_label, qb_line_location *out, char *searched, size_t searched_size) {
    if (searched && searched_size) searched[0] = '\0';
    struct gpiod_chip_iter *iter = gpiod_chip_iter_new();
    if (!iter) {
        append(searched, searched_size, "no GPIO chips");
        return -1;
    }
    int found = -1, chips = 0;
    struct gpiod_chip *chip;
    // gpiod_chip_iter_next closes the previous chip; the last one is closed by iter_free.
    while ((chip = gpiod_chip_iter_next(iter)) != NULL) {
        const char *label = gpiod_chip_label(chip);
        if (chip_label && chip_label[0] && strcmp(label, chip_label) != 0) continue;
        char entry[160];
        snprintf(entry, sizeof entry, "%s%.60s (%.60s)", chips++ ? ", " : "", gpiod_chip_name(chip), label);
        append(searched, searched_size, entry);
        struct gpiod_line *line = gpiod_chip_find_line(chip, line_name);
        if (line) {
            snprintf(out->chip_path, sizeof out->chip_path, "/dev/%s", gpiod_chip_name(chip));
            snprintf(out->chip_label, sizeof out->chip_label, "%s", label);
            out->offset = gpiod_line_offset(line);
            found = 0;
            break;
        }
    }
    gpiod_chip_iter_free(iter);
    if (found != 0 && chips == 0) append(searched, searched_size, chip_label && chip_label[0] ? "no chip with that label" : "no GPIO chips");
    return found;
}

int qb_line_in_use(const qb_line_location *where, char *consumer, size_t consumer_size) {
    struct gpiod_chip *chip = gpiod_chip_open(where->chip_path);
    if (!chip) return -1;
    struct gpiod_line *line = gpiod_chip_get_line(chip, where->offset);
    int used = -1;
    if (line) {
        used = gpiod_line_is_used(line) ? 1 : 0;
        const char *name = gpiod_line_consumer(line);
        if (consumer && consumer_size) snprintf(consumer, consumer_size, "%s", name ? name : "");
    }
    gpiod_chip_close(chip);
    return used;
}

static qb_request *request_lines(const char *chip_path, const unsigned int *offsets, size_t count, int flags, int output,
                                 const char *consumer, char *error, size_t error_size) {
    if (count == 0 || count > QB_MAX_LINES) {
        errno = EINVAL;
        set_error(error, error_size, "bad line count for", chip_path);
        return NULL;
    }
    qb_request *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->chip = gpiod_chip_open(chip_path);
    if (!r->chip) {
        set_error(error, error_size, "cannot open", chip_path);
        free(r);
        return NULL;
    }
    gpiod_line_bulk_init(&r->bulk);
    for (size_t i = 0; i < count; i++) {
        struct gpiod_line *line = gpiod_chip_get_line(r->chip, offsets[i]);
        if (!line) {
            set_error(error, error_size, "no such line on", chip_path);
            gpiod_chip_close(r->chip);
            free(r);
            return NULL;
        }
        gpiod_line_bulk_add(&r->bulk, line);
        r->offsets[i] = offsets[i];
    }
    r->count = count;
    int rc;
    if (output) {
        int defaults[QB_MAX_LINES] = {0};
        rc = gpiod_line_request_bulk_output_flags(&r->bulk, consumer, flags, defaults);
    } else {
        rc = gpiod_line_request_bulk_both_edges_events_flags(&r->bulk, consumer, flags);
    }
    if (rc != 0) {
        set_error(error, error_size, "cannot request lines on", chip_path);
        gpiod_chip_close(r->chip);
        free(r);
        return NULL;
    }
    for (size_t i = 0; i < count; i++) r->fds[i] = output ? -1 : gpiod_line_event_get_fd(r->bulk.lines[i]);
    return r;
}

static int bias_flags(int bias) {
    switch (bias) {
    case QB_BIAS_DISABLED: return GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
    case QB_BIAS_PULL_UP: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
    case QB_BIAS_PULL_DOWN: return GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
    default: return 0;
    }
}

qb_request *qb_request_inputs(const char *chip_path, const unsigned int *offsets, size_t count, int active_low, int bias,
                              const char *consumer, char *error, size_t error_size) {
    int flags = bias_flags(bias) | (active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0);
    return request_lines(chip_path, offsets, count, flags, 0, consumer, error, error_size);
}

qb_request *qb_request_outputs(const char *chip_path, const unsigned int *offsets, size_t count, int active_low,
                               const char *consumer, char *error, size_t error_size) {
    return request_lines(chip_path, offsets, count, active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0, 1, consumer, error, error_size);
}

size_t qb_request_fds(qb_request *r, int *fds, size_t max) {
    size_t n = 0;
    for (size_t i = 0; i < r->count && n < max; i++)
        if (r->fds[i] >= 0) fds[n++] = r->fds[i];
    return n;
}

int qb_read_events(qb_request *r, int fd, qb_edge_event *events, size_t max) {
    size_t index = 0;
    while (index < r->count && r->fds[index] != fd) index++;
    if (index == r->count) {
        errno = EBADF;
        return -1;
    }
    struct gpiod_line_event buffer[16];
    unsigned int want = max < 16 ? (unsigned int)max : 16;
    int n = gpiod_line_event_read_fd_multiple(fd, buffer, want);
    if (n < 0) return -1;
    for (int i = 0; i < n; i++) {
        events[i].offset = r->offsets[index];
        events[i].rising = buffer[i].event_type == GPIOD_LINE_EVENT_RISING_EDGE;
        events[i].timestamp_ns = (uint64_t)buffer[i].ts.tv_sec * 1000000000ull + (uint64_t)buffer[i].ts.tv_nsec;
    }
    return n;
}

static struct gpiod_line *line_at(qb_request *r, unsigned int offset) {
    for (size_t i = 0; i < r->count; i++)
        if (r->offsets[i] == offset) return r->bulk.lines[i];
    errno = EINVAL;
    return NULL;
}

int qb_set_values(qb_request *r, const unsigned int *offsets, const int *values, size_t count) {
    for (size_t k = 0; k < count; k++) {
        size_t i = 0;
        while (i < r->count && r->offsets[i] != offsets[k]) i++;
        if (i == r->count) {
            errno = EINVAL;
            return -1;
        }
        r->values[i] = values[k] ? 1 : 0;
    }
    return gpiod_line_set_value_bulk(&r->bulk, r->values);
}

int qb_set_value(qb_request *r, unsigned int offset, int value) { return qb_set_values(r, &offset, &value, 1); }

int qb_get_value(qb_request *r, unsigned int offset) {
    struct gpiod_line *line = line_at(r, offset);
    return line ? gpiod_line_get_value(line) : -1;
}

void qb_release(qb_request *r) {
    if (!r) return;
    gpiod_line_release_bulk(&r->bulk);
    gpiod_chip_close(r->chip);
    free(r);
}

#else
/* ------------------------------------------------------------------ libgpiod 2.x (v2 API) */

struct qb_request {
    struct gpiod_chip *chip;
    struct gpiod_line_request *request;
    struct gpiod_edge_event_buffer *events;
    int fd;
};

int qb_gpiod_api(void) { return 2; }
const char *qb_gpiod_version(void) { return gpiod_api_version(); }

static int is_chip_entry(const struct dirent *entry) { return strncmp(entry->d_name, "gpiochip", 8) == 0; }

int qb_find_line(const char *line_name, const char *chip_label, qb_line_location *out, char *searched, size_t searched_size) {
    if (searched && searched_size) searched[0] = '\0';
    struct dirent **entries = NULL;
    int n = scandir("/dev", &entries, is_chip_entry, alphasort);
    int found = -1, chips = 0;
    for (int i = 0; i < n; i++) {
        char path[128];
        snprintf(path, sizeof path, "/dev/%.100s", entries[i]->d_name);
        if (found == 0 || !gpiod_is_gpiochip_device(path)) continue;
        struct gpiod_chip *chip = gpiod_chip_open(path);
        if (!chip) continue;
        struct gpiod_chip_info *info = gpiod_chip_get_info(chip);
        const char *label = info ? gpiod_chip_info_get_label(info) : "";
        if (!chip_label || !chip_label[0] || strcmp(label, chip_label) == 0) {
            char entry[160];
            snprintf(entry, sizeof entry, "%s%.60s (%.60s)", chips++ ? ", " : "", entries[i]->d_name, label);
            append(searched, searched_size, entry);
            int offset = gpiod_chip_get_line_offset_from_name(chip, line_name);
            if (offset >= 0) {
                snprintf(out->chip_path, sizeof out->chip_path, "%s", path);
                snprintf(out->chip_label, sizeof out->chip_label, "%s", label);
                out->offset = (unsigned int)offset;
                found = 0;
            }
        }
        if (info) gpiod_chip_info_free(info);
        gpiod_chip_close(chip);
    }
    for (int i = 0; i < n; i++) free(entries[i]);
    free(entries);
    if (found != 0 && chips == 0) append(searched, searched_size, chip_label && chip_label[0] ? "no chip with that label" : "no GPIO chips");
    return found;
}

int qb_line_in_use(const qb_line_location *where, char *consumer, size_t consumer_size) {
    struct gpiod_chip *chip = gpiod_chip_open(where->chip_path);
    if (!chip) return -1;
    struct gpiod_line_info *info = gpiod_chip_get_line_info(chip, where->offset);
    int used = -1;
    if (info) {
        used = gpiod_line_info_is_used(info) ? 1 : 0;
        const char *name = gpiod_line_info_get_consumer(info);
        if (consumer && consumer_size) snprintf(consumer, consumer_size, "%s", name ? name : "");
        gpiod_line_info_free(info);
    }
    gpiod_chip_close(chip);
    return used;
}

static qb_request *request_lines(const char *chip_path, const unsigned int *offsets, size_t count, int active_low, int bias,
                                 int output, const char *consumer, char *error, size_t error_size) {
    qb_request *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->fd = -1;
    r->chip = gpiod_chip_open(chip_path);
    if (!r->chip) {
        set_error(error, error_size, "cannot open", chip_path);
        free(r);
        return NULL;
    }
    struct gpiod_line_settings *settings = gpiod_line_settings_new();
    struct gpiod_line_config *config = gpiod_line_config_new();
    struct gpiod_request_config *request_config = gpiod_request_config_new();
    int ok = settings && config && request_config;
    if (ok) {
        gpiod_line_settings_set_active_low(settings, active_low != 0);
        if (output) {
            ok = gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_OUTPUT) == 0
                 && gpiod_line_settings_set_output_value(settings, GPIOD_LINE_VALUE_INACTIVE) == 0;
        } else {
            enum gpiod_line_bias b = bias == QB_BIAS_DISABLED ? GPIOD_LINE_BIAS_DISABLED
                                   : bias == QB_BIAS_PULL_UP ? GPIOD_LINE_BIAS_PULL_UP
                                   : bias == QB_BIAS_PULL_DOWN ? GPIOD_LINE_BIAS_PULL_DOWN : GPIOD_LINE_BIAS_AS_IS;
            ok = gpiod_line_settings_set_direction(settings, GPIOD_LINE_DIRECTION_INPUT) == 0
                 && gpiod_line_settings_set_edge_detection(settings, GPIOD_LINE_EDGE_BOTH) == 0
                 && gpiod_line_settings_set_bias(settings, b) == 0;
        }
    }
    if (ok) ok = gpiod_line_config_add_line_settings(config, offsets, count, settings) == 0;
    if (ok) {
        gpiod_request_config_set_consumer(request_config, consumer);
        r->request = gpiod_chip_request_lines(r->chip, request_config, config);
        ok = r->request != NULL;
    }
    if (ok && !output) {
        r->events = gpiod_edge_event_buffer_new(16);
        ok = r->events != NULL;
        r->fd = ok ? gpiod_line_request_get_fd(r->request) : -1;
    }
    if (settings) gpiod_line_settings_free(settings);
    if (config) gpiod_line_config_free(config);
    if (request_config) gpiod_request_config_free(request_config);
    if (!ok) {
        set_error(error, error_size, "cannot request lines on", chip_path);
        qb_release(r);
        return NULL;
    }
    return r;
}

qb_request *qb_request_inputs(const char *chip_path, const unsigned int *offsets, size_t count, int active_low, int bias,
                              const char *consumer, char *error, size_t error_size) {
    return request_lines(chip_path, offsets, count, active_low, bias, 0, consumer, error, error_size);
}

qb_request *qb_request_outputs(const char *chip_path, const unsigned int *offsets, size_t count, int active_low,
                               const char *consumer, char *error, size_t error_size) {
    return request_lines(chip_path, offsets, count, active_low, QB_BIAS_AS_IS, 1, consumer, error, error_size);
}

size_t qb_request_fds(qb_request *r, int *fds, size_t max) {
    if (r->fd < 0 || max == 0) return 0;
    fds[0] = r->fd;
    return 1;
}

int qb_read_events(qb_request *r, int fd, qb_edge_event *events, size_t max) {
    if (fd != r->fd || !r->events) {
        errno = EBADF;
        return -1;
    }
    size_t want = max < 16 ? max : 16;
    int n = gpiod_line_request_read_edge_events(r->request, r->events, want);
    if (n < 0) return -1;
    for (int i = 0; i < n; i++) {
        struct gpiod_edge_event *e = gpiod_edge_event_buffer_get_event(r->events, (unsigned long)i);
        events[i].offset = gpiod_edge_event_get_line_offset(e);
        events[i].rising = gpiod_edge_event_get_event_type(e) == GPIOD_EDGE_EVENT_RISING_EDGE;
        events[i].timestamp_ns = gpiod_edge_event_get_timestamp_ns(e);
    }
    return n;
}

int qb_set_value(qb_request *r, unsigned int offset, int value) {
    return gpiod_line_request_set_value(r->request, offset, value ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE);
}

int qb_set_values(qb_request *r, const unsigned int *offsets, const int *values, size_t count) {
    enum gpiod_line_value v[64];
    if (count > 64) {
        errno = EINVAL;
        return -1;
    }
    for (size_t k = 0; k < count; k++) v[k] = values[k] ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
    return gpiod_line_request_set_values_subset(r->request, count, offsets, v);
}

int qb_get_value(qb_request *r, unsigned int offset) {
    enum gpiod_line_value v = gpiod_line_request_get_value(r->request, offset);
    return v == GPIOD_LINE_VALUE_ERROR ? -1 : (v == GPIOD_LINE_VALUE_ACTIVE ? 1 : 0);
}

void qb_release(qb_request *r) {
    if (!r) return;
    if (r->events) gpiod_edge_event_buffer_free(r->events);
    if (r->request) gpiod_line_request_release(r->request);
    if (r->chip) gpiod_chip_close(r->chip);
    free(r);
}

#endif

/* ------------------------------------------------------------------ both APIs */

int qb_read_events_lighting(qb_request *request, int fd, qb_edge_event *events, size_t max, const qb_press_lights *plan,
                            int *lit) {
    *lit = -1;
    int n = qb_read_events(request, fd, events, max);
    if (n < 1 || !plan || !plan->outputs || !events[0].rising) return n;
    for (size_t i = 0; i < plan->light_count && i < QB_LIGHT_BUTTONS; i++) {
        const qb_press_light *light = &plan->lights[i];
        if (!light->armed || light->input != request || light->offset != events[0].offset) continue;
        if (events[0].timestamp_ns < light->from_ns) break;
        int saved = errno;
        if (qb_set_values(plan->outputs, plan->offsets, light->values, plan->count) == 0) *lit = (int)i;
        errno = saved;
        break;
    }
    return n;
}

void qb_read_ready_edges(const int *fds, const int *ready, int count, void *context) {
    qb_reads_ahead *ahead = context;
    if (!ahead) return;
    const qb_press_lights *plan = ahead->plan;
    for (int i = 0; i < count; i++) {
        if (!(ready[i] & 1)) continue;
        for (size_t k = 0; k < ahead->entry_count && k < QB_READ_AHEAD_FDS; k++) {
            qb_read_ahead *entry = &ahead->entries[k];
            if (entry->fd != fds[i] || !entry->request || entry->state != QB_READ_AHEAD_EMPTY) continue;
            entry->count = qb_read_events_lighting(entry->request, entry->fd, entry->events, QB_READ_AHEAD_EVENTS, plan, &entry->lit);
            entry->error = entry->count < 0 ? errno : 0;
            entry->state = QB_READ_AHEAD_FULL;
            // As the loop does: only the tick's first edge may be lit by its read.
            if (entry->count > 0) plan = NULL;
            break;
        }
    }
}
