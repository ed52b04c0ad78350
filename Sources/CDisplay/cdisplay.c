#define _GNU_SOURCE
#include "cdisplay.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fb.h>
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <pthread.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

// Opens a device for writing, or -errno. Only a character device: a regular file or FIFO
// named in a profile must not be written.
static int open_char_device(const char *path) {
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
        close(fd);
        return -ENOTTY;
    }
    return fd;
}

int qb_i2c_open(const char *path, int address) {
    int fd = open_char_device(path);
    if (fd < 0) return fd;
    if (ioctl(fd, I2C_SLAVE, (unsigned long)address) < 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    return fd;
}

int qb_i2c_can_write_oled(int fd) {
    unsigned long funcs = 0;
    if (ioctl(fd, I2C_FUNCS, &funcs) < 0) return -errno;
    unsigned long needed = I2C_FUNC_SMBUS_WRITE_BYTE_DATA | I2C_FUNC_SMBUS_WRITE_I2C_BLOCK;
    return (funcs & needed) == needed ? 1 : 0;
}

static int smbus_write(int fd, uint8_t command, int size, union i2c_smbus_data *data) {
    struct i2c_smbus_ioctl_data args;
    args.read_write = I2C_SMBUS_WRITE;
    args.command = command;
    args.size = size;
    args.data = data;
    for (;;) {
        if (ioctl(fd, I2C_SMBUS, &args) == 0) return 0;
        if (errno != EINTR) return -errno;
    }
}

int qb_i2c_write_byte_data(int fd, uint8_t command, uint8_t value) {
    union i2c_smbus_data data;
    data.byte = value;
    return smbus_write(fd, command, I2C_SMBUS_BYTE_DATA, &data);
}

int qb_i2c_write_block(int fd, uint8_t command, const uint8_t *bytes, int count) {
    if (count < 1 || count > I2C_SMBUS_BLOCK_MAX) return -EINVAL;
    union i2c_smbus_data data;
    data.block[0] = (uint8_t)count;
    memcpy(&data.block[1], bytes, (size_t)count);
    return smbus_write(fd, command, I2C_SMBUS_I2C_BLOCK_DATA, &data);
}

int qb_fb_open(const char *path, qb_fb_info *info) {
    memset(info, 0, sizeof *info);
    int fd = open_char_device(path);
    if (fd < 0) return fd;
    struct fb_var_screeninfo var;
    struct fb_fix_screeninfo fix;
    memset(&var, 0, sizeof var);
    memset(&fix, 0, sizeof fix);
    if (ioctl(fd, FBIOGET_VSCREENINFO, &var) < 0 || ioctl(fd, FBIOGET_FSCREENINFO, &fix) < 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    info->width = var.xres;
    info->height = var.yres;
    info->bits_per_pixel = var.bits_per_pixel;
    info->line_length = fix.line_length;
    info->memory_length = fix.smem_len;
    info->x_offset = var.xoffset;
    info->y_offset = var.yoffset;
    info->mono_inverted = fix.visual == FB_VISUAL_MONO10;
    memcpy(info->name, fix.id, sizeof fix.id < sizeof info->name ? sizeof fix.id : sizeof info->name - 1);
    info->name[sizeof info->name - 1] = 0;
    return fd;
}

void qb_display_close(int fd) {
    if (fd >= 0) close(fd);
}

void qb_display_name_thread(const char *name) {
    char short_name[16];
    strncpy(short_name, name, sizeof short_name - 1);
    short_name[sizeof short_name - 1] = 0;
    pthread_setname_np(pthread_self(), short_name);
}
