#ifndef CDISPLAY_H
#define CDISPLAY_H
// The Linux devices a box's screen is reached through: an I2C adapter (i2c-dev) for an
// SSD1306/SH1106 OLED, and a framebuffer (/dev/fbN). The ioctls and their structs live here
// in C so that no struct layout or ioctl number is written by hand in Swift.
#include <stddef.h>
#include <stdint.h>

/// Opens `path` (/dev/i2c-N) and selects the 7-bit `address`. Returns the fd, or -errno.
int qb_i2c_open(const char *path, int address);
/// 1 when the adapter can do SMBus byte-data and I2C-block writes (what the OLED driver
/// sends), 0 when not, -errno when it could not be asked.
int qb_i2c_can_write_oled(int fd);
/// One SMBus write-byte-data: [address, command, value]. 0, or -errno.
int qb_i2c_write_byte_data(int fd, uint8_t command, uint8_t value);
/// One SMBus I2C-block write: [address, command, bytes…], 1…32 bytes. 0, or -errno.
int qb_i2c_write_block(int fd, uint8_t command, const uint8_t *bytes, int count);

typedef struct {
    uint32_t width;          // visible pixels
    uint32_t height;
    uint32_t bits_per_pixel;
    uint32_t line_length;    // bytes from one row to the next
    uint32_t memory_length;  // bytes the device can be written
    uint32_t x_offset;       // the visible area's place in the virtual screen
    uint32_t y_offset;
    int mono_inverted;       // 1 when 1 bpp and a set bit is dark (FB_VISUAL_MONO10)
    char name[20];           // the driver's id, as in /sys/class/graphics/fbN/name
} qb_fb_info;

/// Opens `path` (/dev/fbN) for writing and reads its geometry. Returns the fd, or -errno.
int qb_fb_open(const char *path, qb_fb_info *info);

/// Closes an fd from either open.
void qb_display_close(int fd);

/// Names the calling thread (at most 15 bytes are kept), as /proc/PID/task/TID/comm shows it.
void qb_display_name_thread(const char *name);

#endif
