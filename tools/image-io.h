/* Images for the votecl tool: PNG (through libpng, when built with it) and PGM/PPM readers,
 * a PNG writer, gray conversion. Readers take untrusted input: every size is checked for
 * overflow and against the bytes actually present, and malformed files are rejected with a
 * message, never a crash. */
#ifndef VOTECL_TOOL_IMAGE_IO_H
#define VOTECL_TOOL_IMAGE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <votecl/votecl-image.h>

/* Largest image the readers accept: width and height each, and bytes in all. */
#define TOOL_IMAGE_MAX_SIDE (1u << 20)
#define TOOL_IMAGE_MAX_BYTES ((size_t)1 << 31)

/* An image that owns its pixels: rows of width * channels elements (u8 or u16 in host byte
 * order), interleaved channels, rows stride bytes apart. */
typedef struct tool_image {
    unsigned char *data; /* owned; free with tool_image_free() */
    size_t width;
    size_t height;
    size_t stride;       /* bytes */
    unsigned channels;   /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA */
    votecl_dtype dtype;  /* VOTECL_DTYPE_U8 or VOTECL_DTYPE_U16 */
} tool_image;

/* Allocates a zeroed image (stride = width * channels * element size). image: caller-owned
 * output. Returns 0, or -1 with a message in error (capacity error_size). */
int tool_image_alloc(tool_image *image, size_t width, size_t height, unsigned channels,
                     votecl_dtype dtype, char *error, size_t error_size);

/* Frees the pixels and clears the struct; a cleared struct is fine. */
void tool_image_free(tool_image *image);

/* Decodes a PNG, PGM or PPM (P2, P3, P5, P6) file held in memory (borrowed), chosen by its
 * first bytes. PNG: 1-16 bit gray, gray+alpha, RGB, RGBA; palettes expand to RGB(A); 16-bit
 * gives u16. PNM: maxval up to 255 gives u8, up to 65535 u16; samples keep their values.
 * Returns 0, or -1 with a message in error. */
int tool_image_decode(const unsigned char *bytes, size_t size, tool_image *image, char *error,
                      size_t error_size);

/* Reads and decodes a file. Returns 0, or -1 with a message naming the file. */
int tool_image_read(const char *path, tool_image *image, char *error, size_t error_size);

/* Writes an 8-bit image (1-4 channels) as PNG, or as PGM/PPM when path ends in .pgm or
 * .ppm (always possible, also without libpng). Returns 0, or -1 with a message. */
int tool_image_write(const char *path, const tool_image *image, char *error, size_t error_size);

/* A one-channel image of the same dtype: RGB(A) by the integer weights (299, 587, 114) / 1000
 * rounded, gray(+alpha) by copying the gray channel. gray: caller-owned output.
 * Returns 0, or -1 with a message. */
int tool_image_to_gray(const tool_image *image, tool_image *gray, char *error, size_t error_size);

/* A borrowed view for the library. */
votecl_image tool_image_view(const tool_image *image);

/* Element size of dtype in bytes (1, 2 or 4). */

/* "u8", "u16", "u32", "f32". */
const char *tool_dtype_name(votecl_dtype dtype);

#endif
