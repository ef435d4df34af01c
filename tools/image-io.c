/* Images for the votecl tool: PNG and PGM/PPM readers, PNG/PNM writer, gray conversion. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_PNG
#include <png.h>
#endif
#ifdef HAVE_JPEG
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>
#endif

#include "grow.h"
#include "image-io.h"

/* Files larger than this are rejected before decoding (ASCII PNM needs more than the pixels). */
#define TOOL_IMAGE_MAX_FILE (TOOL_IMAGE_MAX_BYTES + ((size_t)1 << 20))
/* The largest ancillary chunk libpng may allocate. */
#define TOOL_PNG_MAX_CHUNK ((png_alloc_size_t)8 << 20)
/* zlib's deflate expands by at most 1032:1 (RFC 1951 stored lengths of runs of 258 bytes in
 * 2 bits at best, and the zlib FAQ); a little more for headers. A file that declares more
 * filtered bytes than this times its size cannot hold them: a truncated file or a bomb,
 * refused before the image is allocated. */
#define TOOL_DEFLATE_MAX_RATIO 1100u

static int
fail(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(char *error, size_t error_size, const char *format, ...)
{
    va_list ap;
    if (error && error_size) {
        va_start(ap, format);
        vsnprintf(error, error_size, format, ap);
        va_end(ap);
    }
    return -1;
}

/* The decoder of a format left out of the build (configure found no library): every image
 * refused, empty, with message. */
#define DECODER_NOT_BUILT(name, message)                                                           \
    static int name(const unsigned char *bytes, size_t size, tool_image *image, char *error,       \
                    size_t error_size)                                                             \
    {                                                                                              \
        (void)bytes;                                                                               \
        (void)size;                                                                                \
        memset(image, 0, sizeof *image);                                                           \
        return fail(error, error_size, message);                                                   \
    }
#ifndef HAVE_PNG
DECODER_NOT_BUILT(png_decode, "PNG support was not built (libpng missing); use PGM/PPM")
#endif
#ifndef HAVE_JPEG
DECODER_NOT_BUILT(jpeg_decode, "JPEG support was not built (libjpeg missing); use PNG")
#endif

static int
host_is_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

const char *
tool_dtype_name(votecl_dtype dtype)
{
    switch (dtype) {
    case VOTECL_DTYPE_U8: return "u8";
    case VOTECL_DTYPE_U16: return "u16";
    case VOTECL_DTYPE_U32: return "u32";
    case VOTECL_DTYPE_F32: return "f32";
    default: return "unknown";
    }
}

/* --- inputs and outputs: nothing the tool read is overwritten, outputs appear whole --- */

int tool_invalid_argument;

/* Every input of the run (a batch has thousands): a growing array, sorted before a search.
 * When it cannot grow, an output is refused rather than checked against part of it. */
typedef struct input_id {
    dev_t dev;
    ino_t ino;
} input_id;
static input_id *inputs;
static size_t ninputs, inputs_cap, inputs_sorted;
static int inputs_lost; /* an input could not be noted */

static void
note_input(const struct stat *st)
{
    if (tool_grow((void **)&inputs, &inputs_cap, ninputs + 1, sizeof *inputs, 64) != 0) {
        inputs_lost = 1;
        return;
    }
    inputs[ninputs].dev = st->st_dev;
    inputs[ninputs].ino = st->st_ino;
    ninputs++;
}

void
tool_input_note(const char *path)
{
    struct stat st;
    if (path && strcmp(path, "-") != 0 && stat(path, &st) == 0)
        note_input(&st);
}

static int
compare_ids(const void *a, const void *b)
{
    const input_id *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static int
is_input(const struct stat *st)
{
    input_id key = {st->st_dev, st->st_ino};
    if (inputs_lost)
        return 1;
    if (inputs_sorted != ninputs) {
        qsort(inputs, ninputs, sizeof *inputs, compare_ids);
        inputs_sorted = ninputs;
    }
    return ninputs > 0 && bsearch(&key, inputs, ninputs, sizeof *inputs, compare_ids) != NULL;
}

int
tool_is_input(const char *path)
{
    struct stat st;
    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && is_input(&st);
}

int
tool_image_magic(const unsigned char *bytes, size_t size)
{
    static const unsigned char png[4] = {0x89, 'P', 'N', 'G'};
    if (size >= 4 && memcmp(bytes, png, 4) == 0)
        return 1;
    if (size >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 && bytes[2] == 0xff)
        return 1;
    return size >= 2 && bytes[0] == 'P' && bytes[1] >= '1' && bytes[1] <= '6';
}

/* A new file's mode: the old file's where there is one, else 0666 less the umask. */
static mode_t
new_file_mode(const struct stat *old, int exists)
{
    mode_t mask;
    if (exists)
        return old->st_mode & 07777;
    mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

int
tool_output_open(tool_output *out, const char *path, char *error, size_t error_size)
{
    struct stat st;
    int exists, fd = -1;
    char *copy = NULL;
    memset(out, 0, sizeof *out);
    if (strcmp(path, "-") == 0) {
        out->file = stdout;
        return 0;
    }
    exists = stat(path, &st) == 0;
    if (exists && is_input(&st)) {
        tool_invalid_argument = 1;
        return fail(error, error_size, "%s: is an input of this command; not overwritten",
                    path);
    }
    if (exists && S_ISDIR(st.st_mode))
        return fail(error, error_size, "%s: is a directory", path);
    if (exists && !S_ISREG(st.st_mode)) {
        /* /dev/null, /dev/stdout, a FIFO: written in place, a rename would replace it */
        out->file = fopen(path, "wb");
        if (!out->file)
            return fail(error, error_size, "%s: %s", path, strerror(errno));
        return 0;
    }
    /* A temporary beside the final name (one file system, so rename is atomic): the old
     * file stays whole until the new one is complete. */
    copy = strdup(path);
    out->path = strdup(path);
    size_t cap = strlen(path) + 32;
    out->temp = malloc(cap);
    if (!copy || !out->path || !out->temp) {
        fail(error, error_size, "out of memory");
        goto error;
    }
    snprintf(out->temp, cap, "%s/.votecl-out-XXXXXX", dirname(copy));
    fd = mkstemp(out->temp);
    if (fd < 0) {
        fail(error, error_size, "%s: %s", path, strerror(errno));
        goto error;
    }
    if (fchmod(fd, new_file_mode(&st, exists)) != 0 || !(out->file = fdopen(fd, "wb"))) {
        fail(error, error_size, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(out->temp);
        goto error;
    }
    free(copy);
    return 0;
error:
    free(copy);
    free(out->path);
    free(out->temp);
    memset(out, 0, sizeof *out);
    return -1;
}

int
tool_output_close(tool_output *out, int ok, char *error, size_t error_size)
{
    int result = ok ? 0 : -1;
    const char *name = out->path ? out->path : "standard output";
    if (!out->file)
        return -1;
    if (fflush(out->file) != 0 || ferror(out->file)) {
        if (ok)
            fail(error, error_size, "%s: write error: %s", name, strerror(errno));
        result = -1;
    }
    if (out->temp && result == 0 && fsync(fileno(out->file)) != 0) {
        fail(error, error_size, "%s: write error: %s", name, strerror(errno));
        result = -1;
    }
    if (out->file != stdout && fclose(out->file) != 0 && result == 0) {
        fail(error, error_size, "%s: write error: %s", name, strerror(errno));
        result = -1;
    }
    if (out->temp) {
        if (result == 0 && rename(out->temp, out->path) != 0) {
            fail(error, error_size, "%s: %s", name, strerror(errno));
            result = -1;
        }
        if (result != 0)
            unlink(out->temp);
    }
    free(out->path);
    free(out->temp);
    memset(out, 0, sizeof *out);
    return result;
}

/* --- allocation --- */

int
tool_image_alloc(tool_image *image, size_t width, size_t height, unsigned channels,
                 votecl_dtype dtype, char *error, size_t error_size)
{
    size_t stride, bytes;
    memset(image, 0, sizeof *image);
    if (width == 0 || height == 0 || width > TOOL_IMAGE_MAX_SIDE || height > TOOL_IMAGE_MAX_SIDE)
        return fail(error, error_size, "image size %zux%zu is not in 1..%u", width, height,
                    TOOL_IMAGE_MAX_SIDE);
    if (channels < 1 || channels > 4 || (dtype != VOTECL_DTYPE_U8 && dtype != VOTECL_DTYPE_U16))
        return fail(error, error_size, "unsupported image layout (%u channels, %s)", channels,
                    tool_dtype_name(dtype));
    if (__builtin_mul_overflow(width, (size_t)channels * votecl_dtype_size(dtype), &stride) ||
        __builtin_mul_overflow(stride, height, &bytes) || bytes > TOOL_IMAGE_MAX_BYTES)
        return fail(error, error_size, "image of %zux%zu is too large", width, height);
    image->data = calloc(1, bytes);
    if (!image->data)
        return fail(error, error_size, "out of memory for a %zux%zu image", width, height);
    image->width = width;
    image->height = height;
    image->stride = stride;
    image->channels = channels;
    image->dtype = dtype;
    return 0;
}

void
tool_image_free(tool_image *image)
{
    free(image->data);
    memset(image, 0, sizeof *image);
}

/* --- the memory budget (docs/reliability.md) --- */

static uint64_t memory_budget = TOOL_MEMORY_BUDGET_DEFAULT;
static unsigned budget_sharers = 1; /* batch: workers computing at once */
static uint64_t command_cost; /* bytes a pixel of the command's own work (tool_image_cost) */

void
tool_memory_budget_set(uint64_t bytes)
{
    memory_budget = bytes;
}

uint64_t
tool_memory_budget(void)
{
    return memory_budget / budget_sharers;
}

uint64_t
tool_memory_budget_whole(void)
{
    return memory_budget;
}

void
tool_memory_budget_share(unsigned workers)
{
    budget_sharers = workers > 0 ? workers : 1;
}

void
tool_image_cost(unsigned bytes_per_pixel)
{
    command_cost = bytes_per_pixel;
}

uint64_t
tool_memory_max_pixels(uint64_t bytes_per_pixel)
{
    return tool_memory_budget() / (bytes_per_pixel + command_cost);
}

int
tool_image_check_memory(uint64_t width, uint64_t height, uint64_t bytes_per_pixel, uint64_t extra,
                        char *error, size_t error_size)
{
    uint64_t per = bytes_per_pixel + command_cost, need;
    /* each side below 2^32 and per below 2^20: no overflow; extra at most a file's size */
    need = width * height * per + extra;
    char shared[96] = "";
    if (width <= UINT32_MAX && height <= UINT32_MAX && per < (1u << 20) &&
        need <= tool_memory_budget())
        return 0;
    if (budget_sharers > 1)
        snprintf(shared, sizeof shared, ", %llu MB shared by %u workers",
                 (unsigned long long)(memory_budget >> 20), budget_sharers);
    return fail(error, error_size,
                "image of %llux%llu needs about %llu MB, over the memory budget of %llu MB%s "
                "(--memory-budget MB raises it)",
                (unsigned long long)width, (unsigned long long)height,
                (unsigned long long)(need >> 20) + 1,
                (unsigned long long)(tool_memory_budget() >> 20), shared);
}

/* the side limit of this run's command (tool_image_limit_side) */
static size_t max_side = TOOL_IMAGE_MAX_SIDE;

void
tool_image_limit_side(size_t side)
{
    max_side = side < TOOL_IMAGE_MAX_SIDE ? side : TOOL_IMAGE_MAX_SIDE;
}

int
tool_image_check_declared(uint64_t width, uint64_t height, unsigned channels,
                          unsigned sample_bytes, uint64_t stored_bytes, size_t file_size,
                          char *error, size_t error_size)
{
    uint64_t pixels = width * height; /* each side below 2^32 */
    if (width == 0 || height == 0 || width > TOOL_IMAGE_MAX_SIDE || height > TOOL_IMAGE_MAX_SIDE)
        return fail(error, error_size, "image size %llux%llu is not in 1..%u",
                    (unsigned long long)width, (unsigned long long)height, TOOL_IMAGE_MAX_SIDE);
    if (width > max_side || height > max_side)
        return fail(error, error_size, "image size %llux%llu: this command takes sides up to %zu",
                    (unsigned long long)width, (unsigned long long)height, max_side);
    if (pixels > VOTECL_IMAGE_MAX_PIXELS ||
        pixels * channels * sample_bytes > (uint64_t)TOOL_IMAGE_MAX_BYTES)
        return fail(error, error_size,
                    "image of %llux%llu is above the limits (%u pixels, %zu bytes decoded)",
                    (unsigned long long)width, (unsigned long long)height,
                    VOTECL_IMAGE_MAX_PIXELS, TOOL_IMAGE_MAX_BYTES);
    if (tool_image_check_memory(width, height, (uint64_t)channels * sample_bytes, file_size, error,
                                error_size) < 0)
        return -1;
    if (stored_bytes / TOOL_DEFLATE_MAX_RATIO > file_size)
        return fail(error, error_size,
                    "image of %llux%llu needs %llu bytes inflated from a %zu-byte file: truncated "
                    "or a decompression bomb",
                    (unsigned long long)width, (unsigned long long)height,
                    (unsigned long long)stored_bytes, file_size);
    return 0;
}

votecl_image
tool_image_view(const tool_image *image)
{
    votecl_image view = {.data = image->data,
                         .width = image->width,
                         .height = image->height,
                         .stride = image->stride,
                         .channels = image->channels,
                         .dtype = image->dtype};
    return view;
}

/* --- PGM / PPM --- */

typedef struct pnm_cursor {
    const unsigned char *p;
    const unsigned char *end;
} pnm_cursor;

static int
pnm_is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Skips whitespace and comments (from '#' to the end of the line). */
static void
pnm_skip(pnm_cursor *c)
{
    while (c->p < c->end) {
        if (*c->p == '#') {
            while (c->p < c->end && *c->p != '\n' && *c->p != '\r')
                c->p++;
        } else if (pnm_is_space(*c->p)) {
            c->p++;
        } else {
            break;
        }
    }
}

/* A decimal number in [0, max] after optional whitespace and comments. */
static int
pnm_number(pnm_cursor *c, unsigned long max, unsigned long *out)
{
    unsigned long v = 0;
    const unsigned char *start;
    pnm_skip(c);
    start = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        v = v * 10 + (unsigned long)(*c->p - '0');
        if (v > max)
            return -1;
        c->p++;
    }
    if (c->p == start || (c->p < c->end && !pnm_is_space(*c->p) && *c->p != '#'))
        return -1;
    *out = v;
    return 0;
}

typedef struct pnm_header {
    int binary;
    unsigned channels;
    unsigned long width, height, maxval;
} pnm_header;

static int
pnm_read_header(pnm_cursor *c, pnm_header *h, char *error, size_t error_size)
{
    char kind = (char)c->p[1];
    h->binary = kind == '5' || kind == '6';
    h->channels = kind == '3' || kind == '6' ? 3 : 1;
    c->p += 2;
    if (pnm_number(c, TOOL_IMAGE_MAX_SIDE, &h->width) < 0 ||
        pnm_number(c, TOOL_IMAGE_MAX_SIDE, &h->height) < 0)
        return fail(error, error_size, "PNM: bad or too large width/height (max %u)",
                    TOOL_IMAGE_MAX_SIDE);
    if (h->width == 0 || h->height == 0)
        return fail(error, error_size, "PNM: empty image (%lux%lu)", h->width, h->height);
    if (pnm_number(c, 65535, &h->maxval) < 0 || h->maxval == 0)
        return fail(error, error_size, "PNM: maxval must be in 1..65535");
    /* Binary data starts after exactly one whitespace byte. */
    if (c->p >= c->end || !pnm_is_space(*c->p))
        return fail(error, error_size, "PNM: truncated header");
    c->p++;
    return 0;
}

static int
pnm_read_binary(pnm_cursor *c, const pnm_header *h, tool_image *image, char *error,
                size_t error_size)
{
    size_t count = image->width * image->height * image->channels; /* checked by alloc */
    size_t bps = image->dtype == VOTECL_DTYPE_U16 ? 2 : 1;
    if ((size_t)(c->end - c->p) / bps < count)
        return fail(error, error_size, "PNM: truncated pixel data (%zu bytes, want %zu)",
                    (size_t)(c->end - c->p), count * bps);
    if (bps == 1) {
        memcpy(image->data, c->p, count);
    } else {
        uint16_t *out = (uint16_t *)image->data;
        for (size_t i = 0; i < count; i++)
            out[i] = (uint16_t)(c->p[2 * i] << 8 | c->p[2 * i + 1]);
    }
    for (size_t i = 0; i < count; i++) {
        unsigned v = bps == 1 ? image->data[i] : ((uint16_t *)image->data)[i];
        if (v > h->maxval)
            return fail(error, error_size, "PNM: sample %u above maxval %lu", v, h->maxval);
    }
    return 0;
}

static int
pnm_read_ascii(pnm_cursor *c, const pnm_header *h, tool_image *image, char *error,
               size_t error_size)
{
    size_t count = image->width * image->height * image->channels;
    for (size_t i = 0; i < count; i++) {
        unsigned long v;
        if (pnm_number(c, h->maxval, &v) < 0)
            return fail(error, error_size, "PNM: sample %zu missing, malformed or above maxval",
                        i);
        if (image->dtype == VOTECL_DTYPE_U16)
            ((uint16_t *)image->data)[i] = (uint16_t)v;
        else
            image->data[i] = (unsigned char)v;
    }
    return 0;
}

static int
pnm_decode(const unsigned char *bytes, size_t size, tool_image *image, char *error,
           size_t error_size)
{
    pnm_cursor c = {bytes, bytes + size};
    pnm_header h;
    size_t count;
    if (pnm_read_header(&c, &h, error, error_size) < 0)
        return -1;
    if (tool_image_check_declared(h.width, h.height, h.channels, h.maxval > 255 ? 2 : 1, 0,
                                  size, error, error_size) < 0)
        return -1;
    /* Refuse before allocating when the file cannot hold the samples it announces. */
    count = (size_t)h.width * h.height * h.channels; /* each below 2^20: no overflow in 64 bit */
    if (count > (size_t)(c.end - c.p))
        return fail(error, error_size, "PNM: truncated pixel data for %lux%lu", h.width,
                    h.height);
    if (tool_image_alloc(image, h.width, h.height, h.channels,
                         h.maxval > 255 ? VOTECL_DTYPE_U16 : VOTECL_DTYPE_U8, error,
                         error_size) < 0)
        return -1;
    if ((h.binary ? pnm_read_binary : pnm_read_ascii)(&c, &h, image, error, error_size) < 0) {
        tool_image_free(image);
        return -1;
    }
    return 0;
}

static int
is_pnm(const unsigned char *bytes, size_t size)
{
    return size >= 2 && bytes[0] == 'P' &&
           (bytes[1] == '2' || bytes[1] == '3' || bytes[1] == '5' || bytes[1] == '6');
}

/* --- PNG --- */

static const unsigned char png_magic[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

#ifdef HAVE_PNG
typedef struct png_io {
    const unsigned char *bytes;
    size_t size;
    size_t pos;
    char *error;
    size_t error_size;
    png_bytep *rows; /* lives here, in memory, so a longjmp cannot lose it */
    uint64_t raw_bytes; /* the declared image's filtered rows, before decoding */
} png_io;

static void
png_io_read(png_structp png, png_bytep out, png_size_t n)
{
    png_io *io = png_get_io_ptr(png);
    if (n > io->size - io->pos)
        png_error(png, "truncated file");
    memcpy(out, io->bytes + io->pos, n);
    io->pos += n;
}

static void
png_io_error(png_structp png, png_const_charp message)
{
    png_io *io = png_get_error_ptr(png);
    fail(io->error, io->error_size, "PNG: %s", message);
    png_longjmp(png, 1);
}

static void
png_io_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

/* Expands everything to 8 or 16 bits per sample of gray, gray+alpha, RGB or RGBA. */
static void
png_set_transforms(png_structp png, png_infop info)
{
    int color = png_get_color_type(png, info);
    int depth = png_get_bit_depth(png, info);
    if (color == PNG_COLOR_TYPE_PALETTE)
        png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8)
        png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS))
        png_set_tRNS_to_alpha(png);
    if (depth == 16 && host_is_little_endian())
        png_set_swap(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
}

/* The part of decoding that may longjmp; the caller owns cleanup. */
static int
png_decode_rows(png_structp png, png_infop info, png_io *io, tool_image *image)
{
    png_uint_32 width, height;
    unsigned channels, depth;
    png_read_info(png, info);
    /* The filtered rows as stored (before expansion): what the zlib stream must inflate to. */
    io->raw_bytes = (uint64_t)png_get_image_height(png, info) *
                    ((uint64_t)png_get_rowbytes(png, info) + 1);
    png_set_transforms(png, info);
    width = png_get_image_width(png, info);
    height = png_get_image_height(png, info);
    channels = png_get_channels(png, info);
    depth = png_get_bit_depth(png, info);
    if (tool_image_check_declared(width, height, channels, depth > 8 ? 2 : 1, io->raw_bytes,
                                  io->size, io->error, io->error_size) < 0)
        return -1;
    if (depth != 8 && depth != 16)
        return fail(io->error, io->error_size, "PNG: unsupported bit depth %u", depth);
    if (tool_image_alloc(image, width, height, channels,
                         depth == 16 ? VOTECL_DTYPE_U16 : VOTECL_DTYPE_U8, io->error,
                         io->error_size) < 0)
        return -1;
    if (png_get_rowbytes(png, info) != image->stride)
        return fail(io->error, io->error_size, "PNG: unexpected row size");
    io->rows = malloc(height * sizeof *io->rows);
    if (!io->rows)
        return fail(io->error, io->error_size, "out of memory");
    for (size_t y = 0; y < height; y++)
        io->rows[y] = image->data + y * image->stride;
    png_read_image(png, io->rows);
    return 0;
}

/* Walks the chunk list before libpng sees it: every chunk must fit in the file. libpng
 * allocates a chunk's declared length before reading it (a 44-byte file declaring a
 * 2^31 - 1-byte tEXt made it map 2 GiB, png_set_chunk_malloc_max notwithstanding in
 * Debian 12's 1.6.39), so a length beyond the bytes present is refused here. */
static int
png_check_chunks(const unsigned char *bytes, size_t size, char *error, size_t error_size)
{
    size_t pos = sizeof png_magic;
    while (size - pos >= 8) {
        uint32_t length = (uint32_t)bytes[pos] << 24 | (uint32_t)bytes[pos + 1] << 16 |
                          (uint32_t)bytes[pos + 2] << 8 | bytes[pos + 3];
        if (length > 0x7fffffffu || length > size - pos - 8 ||
            size - pos - 8 - length < 4)
            return fail(error, error_size,
                        "PNG: chunk '%.4s' at byte %zu declares %u bytes, the file holds %zu: "
                        "truncated or corrupt",
                        (const char *)bytes + pos + 4, pos, length, size - pos - 8);
        if (memcmp(bytes + pos + 4, "IEND", 4) == 0)
            break;
        pos += 12 + (size_t)length;
    }
    return 0;
}

static int
png_decode(const unsigned char *bytes, size_t size, tool_image *image, char *error,
           size_t error_size)
{
    png_io io = {bytes, size, 0, error, error_size, NULL, 0};
    png_structp png = NULL;
    png_infop info = NULL;
    volatile int result = -1; /* set after setjmp */
    memset(image, 0, sizeof *image);
    if (png_check_chunks(bytes, size, error, error_size) < 0)
        return -1;
    png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &io, png_io_error, png_io_warning);
    if (!png || !(info = png_create_info_struct(png))) {
        fail(error, error_size, "out of memory");
        goto out;
    }
    png_set_read_fn(png, &io, png_io_read);
    png_set_user_limits(png, TOOL_IMAGE_MAX_SIDE, TOOL_IMAGE_MAX_SIDE);
    /* Ancillary chunks are skipped, but libpng allocates what a chunk declares: bounded
     * here too (and by png_check_chunks). No chunk we need (IHDR, PLTE, tRNS; IDAT
     * streams) comes near these. */
    png_set_chunk_malloc_max(png, TOOL_PNG_MAX_CHUNK);
    png_set_chunk_cache_max(png, 128);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    /* tests/fuzz/fuzz-image: mutated chunks still reach the decoder */
    png_set_crc_action(png, PNG_CRC_QUIET_USE, PNG_CRC_QUIET_USE);
#endif
    /* Nothing local changes between setjmp and a longjmp out of png_decode_rows(). */
    if (setjmp(png_jmpbuf(png)) == 0)
        result = png_decode_rows(png, info, &io, image);
out:
    png_destroy_read_struct(&png, info ? &info : NULL, NULL);
    free(io.rows);
    if (result < 0)
        tool_image_free(image);
    return result;
}
#endif

/* --- JPEG --- */

#ifdef HAVE_JPEG
typedef struct jpeg_guard {
    struct jpeg_error_mgr mgr; /* first: libjpeg hands back this pointer */
    jmp_buf jump;
    char *error;
    size_t error_size;
    unsigned char *row; /* lives here so a longjmp cannot lose it */
} jpeg_guard;

static void
jpeg_guard_exit(j_common_ptr cinfo)
{
    jpeg_guard *g = (jpeg_guard *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    cinfo->err->format_message(cinfo, text);
    if (cinfo->err->msg_code == JERR_NO_BACKING_STORE)
        fail(g->error, g->error_size,
             "JPEG: decoding needs more working memory than the budget allows (%s)", text);
    else
        fail(g->error, g->error_size, "JPEG: %s", text);
    longjmp(g->jump, 1);
}

/* Warnings (a truncated file among them) are errors: no gray-filled guesses. */
static void
jpeg_guard_warning(j_common_ptr cinfo, int level)
{
    if (level < 0)
        jpeg_guard_exit(cinfo);
}

/* The part that may longjmp; the caller owns cleanup. */
static int
jpeg_decode_rows(struct jpeg_decompress_struct *cinfo, jpeg_guard *g, size_t size,
                 tool_image *image)
{
    unsigned channels;
    jpeg_read_header(cinfo, TRUE);
    if (cinfo->jpeg_color_space == JCS_CMYK || cinfo->jpeg_color_space == JCS_YCCK)
        return fail(g->error, g->error_size,
                    "JPEG: CMYK colour is not supported; convert the image to RGB or gray");
    if (cinfo->num_components != 1 && cinfo->num_components != 3)
        return fail(g->error, g->error_size,
                    "JPEG: %d colour components are not supported (gray or RGB only)",
                    cinfo->num_components);
    channels = cinfo->num_components == 1 ? 1 : 3;
    cinfo->out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    /* Sequential Huffman-coded JPEG stores at least about 2 bits per 8x8 block and
     * component: at most 683 samples per byte, below the deflate bound used for PNG.
     * Progressive scans (runs of empty blocks) and arithmetic coding can do better: only
     * the limits apply there. */
    uint64_t samples = (uint64_t)cinfo->image_width * cinfo->image_height * channels;
    if (tool_image_check_declared(cinfo->image_width, cinfo->image_height, channels, 1,
                                  cinfo->progressive_mode || cinfo->arith_code ? 0 : samples,
                                  size, g->error,
                                  g->error_size) < 0)
        return -1;
    /* A progressive image is decoded from a whole-image array of 16-bit coefficients: two
     * bytes a sample more, which libjpeg may take (max_memory_to_use) within the budget. */
    if (cinfo->progressive_mode &&
        tool_image_check_memory(cinfo->image_width, cinfo->image_height, 3 * (uint64_t)channels,
                                size, g->error, g->error_size) < 0)
        return -1;
    cinfo->mem->max_memory_to_use =
        (long)(tool_memory_budget() > LONG_MAX ? LONG_MAX : tool_memory_budget());
    jpeg_start_decompress(cinfo);
    if (cinfo->output_components != (int)channels)
        return fail(g->error, g->error_size, "JPEG: unexpected %d components",
                    cinfo->output_components);
    if (tool_image_alloc(image, cinfo->output_width, cinfo->output_height, channels,
                         VOTECL_DTYPE_U8, g->error, g->error_size) < 0)
        return -1;
    while (cinfo->output_scanline < cinfo->output_height) {
        JSAMPROW row = image->data + (size_t)cinfo->output_scanline * image->stride;
        jpeg_read_scanlines(cinfo, &row, 1);
    }
    jpeg_finish_decompress(cinfo);
    return 0;
}

static int
jpeg_decode(const unsigned char *bytes, size_t size, tool_image *image, char *error,
            size_t error_size)
{
    struct jpeg_decompress_struct cinfo;
    jpeg_guard g;
    volatile int result = -1; /* set after setjmp */
    memset(&g, 0, sizeof g);
    g.error = error;
    g.error_size = error_size;
    cinfo.err = jpeg_std_error(&g.mgr);
    g.mgr.error_exit = jpeg_guard_exit;
    g.mgr.emit_message = jpeg_guard_warning;
    if (setjmp(g.jump) == 0) {
        jpeg_create_decompress(&cinfo);
        jpeg_mem_src(&cinfo, bytes, (unsigned long)size);
        result = jpeg_decode_rows(&cinfo, &g, size, image);
    }
    jpeg_destroy_decompress(&cinfo);
    if (result < 0)
        tool_image_free(image);
    return result;
}
#endif

int
tool_image_decode(const unsigned char *bytes, size_t size, tool_image *image, char *error,
                  size_t error_size)
{
    memset(image, 0, sizeof *image);
    if (size >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 && bytes[2] == 0xff)
        return jpeg_decode(bytes, size, image, error, error_size);
    if (size >= sizeof png_magic && memcmp(bytes, png_magic, sizeof png_magic) == 0)
        return png_decode(bytes, size, image, error, error_size);
    if (is_pnm(bytes, size))
        return pnm_decode(bytes, size, image, error, error_size);
    return fail(error, error_size, "not a PNG, JPEG, PGM (P2/P5) or PPM (P3/P6) file");
}

/* Reads all of f (a pipe: standard input) up to the file limit. The first bytes must look
 * like an image, so that "votecl hist - < /dev/zero" stops at once instead of buffering
 * gigabytes. */
static int
read_stream(FILE *f, const char *path, unsigned char **out, size_t *size, char *error,
            size_t error_size)
{
    unsigned char *buffer = NULL;
    size_t used = 0, capacity = 0;
    for (;;) {
        if (used == capacity) {
            size_t grown = capacity ? capacity * 2 : 1 << 16;
            unsigned char *bigger;
            if (capacity > 0 && !tool_image_magic(buffer, used)) {
                fail(error, error_size, "%s: not a PNG, JPEG, PGM or PPM stream", path);
                goto error;
            }
            if (capacity >= TOOL_IMAGE_MAX_FILE) {
                fail(error, error_size, "%s: file too large (over %zu bytes)", path,
                     (size_t)TOOL_IMAGE_MAX_FILE);
                goto error;
            }
            bigger = realloc(buffer, grown);
            if (!bigger) {
                fail(error, error_size, "%s: out of memory", path);
                goto error;
            }
            buffer = bigger;
            capacity = grown;
        }
        size_t n = fread(buffer + used, 1, capacity - used, f);
        used += n;
        if (n == 0)
            break;
    }
    if (ferror(f)) {
        fail(error, error_size, "%s: read error: %s", path, strerror(errno));
        goto error;
    }
    *out = buffer;
    *size = used;
    return 0;
error:
    free(buffer);
    return -1;
}

/* A regular file is read in one allocation of its size, refused first when too large;
 * anything else (a FIFO, a device such as /dev/zero, a directory) is refused without
 * reading: opening with O_NONBLOCK, a FIFO without a writer does not hang. */
static int
read_file(const char *path, unsigned char **out, size_t *size, char *error, size_t error_size)
{
    struct stat st;
    unsigned char *buffer = NULL;
    size_t want, used = 0;
    int fd;
    if (strcmp(path, "-") == 0)
        return read_stream(stdin, "standard input", out, size, error, error_size);
    fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail(error, error_size, "%s: %s", path, strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fail(error, error_size, "%s: %s", path,
             S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
        goto error;
    }
    note_input(&st);
    if ((uint64_t)st.st_size > TOOL_IMAGE_MAX_FILE) {
        fail(error, error_size, "%s: file too large (%lld bytes, at most %zu)", path,
             (long long)st.st_size, (size_t)TOOL_IMAGE_MAX_FILE);
        goto error;
    }
    want = (size_t)st.st_size;
    buffer = malloc(want > 0 ? want : 1);
    if (!buffer) {
        fail(error, error_size, "%s: out of memory", path);
        goto error;
    }
    while (used < want) {
        ssize_t n = read(fd, buffer + used, want - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fail(error, error_size, "%s: read error: %s", path, strerror(errno));
            goto error;
        }
        if (n == 0)
            break; /* shrank while we read: decode what is there */
        used += (size_t)n;
    }
    close(fd);
    *out = buffer;
    *size = used;
    return 0;
error:
    close(fd);
    free(buffer);
    return -1;
}

static tool_image_record records[TOOL_IMAGE_RECORDS];
static size_t nrecords;

size_t
tool_images_read(const tool_image_record **list)
{
    *list = records;
    return nrecords;
}

static void
record_image(const char *path, const tool_image *image)
{
    if (nrecords == TOOL_IMAGE_RECORDS)
        return;
    tool_image_record *r = &records[nrecords++];
    snprintf(r->path, sizeof r->path, "%s", path);
    r->width = image->width;
    r->height = image->height;
    r->channels = image->channels;
    r->dtype = image->dtype;
}

int
tool_image_read(const char *path, tool_image *image, char *error, size_t error_size)
{
    unsigned char *bytes = NULL;
    size_t size = 0;
    char detail[512];
    int result;
    memset(image, 0, sizeof *image);
    if (read_file(path, &bytes, &size, error, error_size) < 0)
        return -1;
    result = tool_image_decode(bytes, size, image, detail, sizeof detail);
    if (result < 0)
        fail(error, error_size, "%s: %s", path, detail);
    else
        record_image(path, image);
    free(bytes);
    return result;
}

/* --- writers --- */

static int
has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int
write_pnm(FILE *f, const tool_image *image)
{
    unsigned out_channels = image->channels >= 3 ? 3 : 1;
    fprintf(f, "P%c\n%zu %zu\n255\n", out_channels == 3 ? '6' : '5', image->width,
            image->height);
    for (size_t y = 0; y < image->height; y++) {
        const unsigned char *row = image->data + y * image->stride;
        for (size_t x = 0; x < image->width; x++)
            if (fwrite(row + x * image->channels, 1, out_channels, f) != out_channels)
                return -1;
    }
    return 0;
}

#ifdef HAVE_PNG
static int
write_png(FILE *f, const tool_image *image, char *error, size_t error_size)
{
    static const int color_types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                      PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    png_io io = {NULL, 0, 0, error, error_size, NULL, 0};
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &io, png_io_error,
                                              png_io_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    int result = -1;
    if (!info) {
        fail(error, error_size, "out of memory");
        goto out;
    }
    if (setjmp(png_jmpbuf(png)) == 0) {
        png_init_io(png, f);
        png_set_IHDR(png, info, (png_uint_32)image->width, (png_uint_32)image->height, 8,
                     color_types[image->channels - 1], PNG_INTERLACE_NONE,
                     PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_write_info(png, info);
        for (size_t y = 0; y < image->height; y++)
            png_write_row(png, image->data + y * image->stride);
        png_write_end(png, NULL);
        result = 0;
    }
out:
    png_destroy_write_struct(&png, info ? &info : NULL);
    return result;
}
#else
static int
write_png(FILE *f, const tool_image *image, char *error, size_t error_size)
{
    (void)f;
    (void)image;
    return fail(error, error_size, "PNG support was not built (libpng missing); write .ppm");
}
#endif

int
tool_image_write(const char *path, const tool_image *image, char *error, size_t error_size)
{
    int pnm = has_suffix(path, ".pgm") || has_suffix(path, ".ppm");
    tool_output out;
    int result;
    if (image->dtype != VOTECL_DTYPE_U8 || image->channels < 1 || image->channels > 4)
        return fail(error, error_size, "%s: only 8-bit images with 1-4 channels are written",
                    path);
    if (tool_output_open(&out, path, error, error_size) < 0)
        return -1;
    result = pnm ? write_pnm(out.file, image) : write_png(out.file, image, error, error_size);
    if (result < 0 && pnm)
        fail(error, error_size, "%s: write error: %s", path, strerror(errno));
    return tool_output_close(&out, result == 0, error, error_size);
}

/* --- arrays --- */

/* NumPy's .npy format 1.0: magic, version, a little-endian header length, a Python dict
 * literal padded with spaces to a multiple of 64 bytes with the magic, then the data. */
static int
write_npy_header(FILE *f, size_t rows, size_t cols)
{
    char dict[160];
    unsigned char head[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0, 0};
    int n = snprintf(dict, sizeof dict,
                     "{'descr': '%cf4', 'fortran_order': False, 'shape': (%zu, %zu), }",
                     host_is_little_endian() ? '<' : '>', rows, cols);
    size_t total = 10 + (size_t)n + 1, padded = (total + 63) / 64 * 64;
    head[8] = (unsigned char)((padded - 10) & 0xff);
    head[9] = (unsigned char)((padded - 10) >> 8);
    if (fwrite(head, 1, 10, f) != 10 || fwrite(dict, 1, (size_t)n, f) != (size_t)n)
        return -1;
    for (size_t i = total; i < padded; i++)
        if (fputc(' ', f) == EOF)
            return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

int
tool_array_write(const char *path, const float *data, size_t rows, size_t cols, char *error,
                 size_t error_size)
{
    tool_output out;
    int ok;
    if (tool_output_open(&out, path, error, error_size) < 0)
        return -1;
    ok = (!has_suffix(path, ".npy") || write_npy_header(out.file, rows, cols) == 0) &&
         fwrite(data, sizeof *data, rows * cols, out.file) == rows * cols;
    if (!ok)
        fail(error, error_size, "%s: write error: %s", path, strerror(errno));
    return tool_output_close(&out, ok, error, error_size);
}

/* --- gray conversion --- */

static unsigned
sample(const tool_image *image, const unsigned char *row, size_t index)
{
    return image->dtype == VOTECL_DTYPE_U16 ? ((const uint16_t *)row)[index] : row[index];
}

static unsigned
gray_of(const tool_image *image, const unsigned char *row, size_t x)
{
    size_t i = x * image->channels;
    if (image->channels < 3)
        return sample(image, row, i);
    uint64_t sum = 299u * (uint64_t)sample(image, row, i) +
                   587u * (uint64_t)sample(image, row, i + 1) +
                   114u * (uint64_t)sample(image, row, i + 2);
    return (unsigned)((sum + 500) / 1000);
}

int
tool_image_to_gray(const tool_image *image, tool_image *gray, char *error, size_t error_size)
{
    if (tool_image_alloc(gray, image->width, image->height, 1, image->dtype, error,
                         error_size) < 0)
        return -1;
    for (size_t y = 0; y < image->height; y++) {
        const unsigned char *row = image->data + y * image->stride;
        unsigned char *out = gray->data + y * gray->stride;
        for (size_t x = 0; x < image->width; x++) {
            unsigned v = gray_of(image, row, x);
            if (gray->dtype == VOTECL_DTYPE_U16)
                ((uint16_t *)out)[x] = (uint16_t)v;
            else
                out[x] = (unsigned char)v;
        }
    }
    return 0;
}
