/* Images for the votecl tool: PNG (through libpng, when built with it) and PGM/PPM readers,
 * a PNG writer, gray conversion. Readers take untrusted input: every size is checked for
 * overflow and against the bytes actually present, and malformed files are rejected with a
 * message, never a crash. */
#ifndef VOTECL_TOOL_IMAGE_IO_H
#define VOTECL_TOOL_IMAGE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/* Decodes a PNG, JPEG (through libjpeg, when built with it), PGM or PPM (P2, P3, P5, P6)
 * file held in memory (borrowed), chosen by its first bytes. PNG: 1-16 bit gray,
 * gray+alpha, RGB, RGBA; palettes expand to RGB(A); 16-bit gives u16. JPEG: u8 gray or RGB
 * (a truncated or corrupt stream is an error). PNM: maxval up to 255 gives u8, up to 65535
 * u16; samples keep their values. The declared size is checked before anything is
 * allocated for the pixels (tool_image_check_declared).
 * Returns 0, or -1 with a message in error. */
int tool_image_decode(const unsigned char *bytes, size_t size, tool_image *image, char *error,
                      size_t error_size);

/* Reads and decodes a file ("-": standard input). Only regular files are read (a FIFO, a
 * device or a directory is refused without blocking), and only up to the size the limits
 * allow; every file read is noted (tool_input_note). Returns 0, or -1 with a message
 * naming the file. */
int tool_image_read(const char *path, tool_image *image, char *error, size_t error_size);

/* Writes an 8-bit image (1-4 channels) as PNG, or as PGM/PPM when path ends in .pgm or
 * .ppm (always possible, also without libpng), through tool_output ("-": standard output;
 * the old file survives any failure). Returns 0, or -1 with a message. */
int tool_image_write(const char *path, const tool_image *image, char *error, size_t error_size);

/* The images tool_image_read() decoded in this run, in order (the first TOOL_IMAGE_RECORDS),
 * for the JSON header. */
#define TOOL_IMAGE_RECORDS 8
typedef struct tool_image_record {
    char path[1024]; /* as given, cut at 1023 bytes */
    size_t width, height;
    unsigned channels;
    votecl_dtype dtype;
} tool_image_record;
size_t tool_images_read(const tool_image_record **list);

/* Set when a failure was the caller's argument (an output naming an input): main() exits
 * 2, not 1. */
extern int tool_invalid_argument;

/* Notes path (when it exists) as an input of this run: outputs never overwrite it. */
void tool_input_note(const char *path);

/* 1 when path names a file noted as an input of this run (the same file, by device and
 * inode, whatever its name), or when an input could not be noted (out of memory). */
int tool_is_input(const char *path);

/* 1 when bytes start like an image the readers know (PNG, JPEG, PNM). */
int tool_image_magic(const unsigned char *bytes, size_t size);

/* Lowers the largest side tool_image_read() and tool_image_decode() accept (never above
 * TOOL_IMAGE_MAX_SIDE) to what the command's library call takes (VOTECL_HOG_MAX_SIDE,
 * VOTECL_GHT_MAX_SIDE, ...), so that an image the command would refuse is refused from its
 * header, before its pixels are decoded. */
void tool_image_limit_side(size_t side);

/* The memory budget: what one run of a command may use for an image (its file, its decoded
 * pixels and the command's work on them, tool_image_cost), checked from the image's header
 * (a video's stream parameters) before its pixels are decoded (docs/reliability.md). The
 * default holds the process under 512 MB with the library's own. */
#define TOOL_MEMORY_BUDGET_DEFAULT ((uint64_t)256 << 20)
void tool_memory_budget_set(uint64_t bytes); /* --memory-budget */
/* The budget of one image: all of it, or its share where several work at once. */
uint64_t tool_memory_budget(void);
/* The whole budget, not shared among the workers (one allocation never exceeds it). */
uint64_t tool_memory_budget_whole(void);
/* votecl batch: workers images are worked on at once, each within budget / workers. */
void tool_memory_budget_share(unsigned workers);

/* The command's own working memory per pixel of its input, beyond the decoded image (its
 * copies, the library's buffers, the device's on a host device such as PoCL). Set by a
 * command before it reads its image; 0 (the default) counts only the decoded image. */
void tool_image_cost(unsigned bytes_per_pixel);

/* Returns 0 when width x height pixels of bytes_per_pixel plus the command's cost plus extra
 * bytes fit the budget, else -1 with a message naming the budget. */
int tool_image_check_memory(uint64_t width, uint64_t height, uint64_t bytes_per_pixel,
                            uint64_t extra, char *error, size_t error_size);

/* The most pixels of bytes_per_pixel (plus the command's cost) the budget allows. */
uint64_t tool_memory_max_pixels(uint64_t bytes_per_pixel);

/* Checks an image's declared size before anything is allocated for it: sides, pixels and
 * decoded bytes within the limits, and stored_bytes (what the file's compressed data must
 * inflate to; 0 when not compressed) possible from a file of file_size bytes, and all of it
 * within the memory budget (tool_image_check_memory). Returns 0, or -1 with a message. */
int tool_image_check_declared(uint64_t width, uint64_t height, unsigned channels,
                              unsigned sample_bytes, uint64_t stored_bytes, size_t file_size,
                              char *error, size_t error_size);

/* An output file written whole or not at all: into a temporary beside path, renamed over
 * path by tool_output_close; "-" is standard output; a path that is not a regular file
 * (/dev/null, a FIFO) is written in place. A path naming an input of this run is refused
 * (tool_invalid_argument is set). */
typedef struct tool_output {
    FILE *file; /* write here; borrowed stdout for "-" */
    char *path; /* owned: the final name; NULL when written in place */
    char *temp; /* owned: the temporary's name; NULL when written in place */
} tool_output;

/* Returns 0, or -1 with a message (out cleared). */
int tool_output_open(tool_output *out, const char *path, char *error, size_t error_size);
/* Ends the output: ok nonzero commits it (flush, fsync, rename), checking every write;
 * ok 0 discards it (the previous file stays). Returns 0, or -1 with a message (then
 * nothing changed at path). */
int tool_output_close(tool_output *out, int ok, char *error, size_t error_size);

/* Writes rows x cols float32 values (host order) through tool_output: a NumPy .npy file
 * (shape (rows, cols)) when path ends in .npy, else the raw values. Returns 0, or -1 with a
 * message. */
int tool_array_write(const char *path, const float *data, size_t rows, size_t cols,
                     char *error, size_t error_size);

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
