/* The collection of votecl batch (batch-source.h). Videos are decoded frame after frame from
 * their start (no seeking), so frame numbers are positions in decoding order and the same on
 * every run and rank, whatever --start asks. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef HAVE_FFMPEG
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/mem.h>
#include <libswscale/swscale.h>
#endif

#include "batch-source.h"
#include "grow.h"

typedef struct video {
#ifdef HAVE_FFMPEG
    AVFormatContext *format;
    AVCodecContext *codec;
    struct SwsContext *sws;
    AVPacket *packet;
    AVFrame *frame;
    int stream;
    double time_base;
    int draining, done;
#endif
    long next_frame;
    int yielded; /* an item came from it */
} video;

struct batch_source {
    batch_source_options o;
    char **paths; /* owned */
    size_t n, cap;
    size_t next; /* the next path */
    video *v;    /* the open video, NULL between files */
    size_t v_path;
};

static const char *const image_ext[] = {".png", ".pgm", ".ppm", ".pnm", ".jpg", ".jpeg", NULL};
static const char *const video_ext[] = {".mp4", ".mkv",  ".avi", ".mov", ".webm",
                                        ".mpg", ".mpeg", ".m4v", ".ogv", ".y4m",
                                        ".ts",  ".flv",  ".wmv", ".nut", NULL};

static int
has_ext(const char *path, const char *const *ext)
{
    size_t n = strlen(path);
    for (; *ext != NULL; ext++) {
        size_t k = strlen(*ext);
        if (n > k && strcasecmp(path + n - k, *ext) == 0)
            return 1;
    }
    return 0;
}

static int
is_video(const batch_source *s, const char *path)
{
    return s->o.force_video || has_ext(path, video_ext);
}

int
batch_source_has_video(void)
{
#ifdef HAVE_FFMPEG
    return 1;
#else
    return 0;
#endif
}

static int
add_path(batch_source *s, const char *path)
{
    if (tool_grow((void **)&s->paths, &s->cap, s->n + 1, sizeof *s->paths, 64) != 0)
        return -1;
    if ((s->paths[s->n] = strdup(path)) == NULL)
        return -1;
    s->n++;
    tool_input_note(path); /* no output of the run may overwrite it */
    return 0;
}

static int
compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The image and video files of a directory, sorted by name. */
static int
add_directory(batch_source *s, const char *dir, char *error, size_t size)
{
    DIR *d = opendir(dir);
    size_t first = s->n;
    struct dirent *e;
    char path[4096];
    if (d == NULL) {
        snprintf(error, size, "%s: %s", dir, strerror(errno));
        return -1;
    }
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !(has_ext(e->d_name, image_ext) || is_video(s, e->d_name)))
            continue;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) >= sizeof path ||
            add_path(s, path) < 0) {
            closedir(d);
            snprintf(error, size, "%s: path too long or out of memory", dir);
            return -1;
        }
    }
    closedir(d);
    qsort(s->paths + first, s->n - first, sizeof *s->paths, compare_names);
    return 0;
}

static int
add_input(batch_source *s, const char *path, char *error, size_t size)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return add_directory(s, path, error, size);
    if (add_path(s, path) < 0) {
        snprintf(error, size, "out of memory");
        return -1;
    }
    return 0;
}

/* A regular file only, opened without blocking: a FIFO without a writer, /dev/zero or
 * /dev/urandom would hang the run or feed it forever. Returns the open file or NULL with a
 * message. */
static int
open_regular_fd(const char *what, const char *path, char *error, size_t size)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return snprintf(error, size, "%s%s: %s", what, path, strerror(errno)), -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(error, size, "%s%s: %s", what, path,
                 S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
        close(fd);
        return -1;
    }
    return fd;
}

static FILE *
open_regular(const char *what, const char *path, char *error, size_t size)
{
    FILE *f;
    int fd = open_regular_fd(what, path, error, size);
    if (fd < 0)
        return NULL;
    if ((f = fdopen(fd, "r")) == NULL) {
        snprintf(error, size, "%s%s: %s", what, path, strerror(errno));
        close(fd);
    }
    return f;
}

int
batch_list_read(FILE *f, const char *name, int (*add)(void *user, const char *path), void *user,
                char *error, size_t size)
{
    char line[BATCH_LIST_MAX_LINE + 2]; /* the longest path, its newline, the terminator */
    unsigned long number = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t n = strlen(line);
        number++;
        if (n == sizeof line - 1 && line[n - 1] != '\n')
            return snprintf(error, size, "--list %s: line %lu is longer than %d bytes", name,
                            number, BATCH_LIST_MAX_LINE),
                   -1;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] != '\0' && line[0] != '#' && add(user, line) < 0)
            return -1;
    }
    if (ferror(f))
        return snprintf(error, size, "--list %s: %s", name, strerror(errno)), -1;
    return 0;
}

typedef struct list_adder {
    batch_source *s;
    char *error;
    size_t size;
} list_adder;

static int
add_listed(void *user, const char *path)
{
    list_adder *a = user;
    return add_input(a->s, path, a->error, a->size);
}

static int
add_list(batch_source *s, const char *list, char *error, size_t size)
{
    FILE *f = open_regular("--list ", list, error, size);
    list_adder adder = {s, error, size};
    int rc;
    if (f == NULL)
        return -1;
    tool_input_note(list);
    rc = batch_list_read(f, list, add_listed, &adder, error, size);
    fclose(f);
    return rc;
}

int
batch_source_open(char **inputs, int n, const char *list, const batch_source_options *o,
                  batch_source **out, char *error, size_t size)
{
    batch_source *s = calloc(1, sizeof *s);
    int rc = 0;
    *out = NULL;
    if (s == NULL) {
        snprintf(error, size, "out of memory");
        return -1;
    }
    s->o = *o;
    if (s->o.every == 0)
        s->o.every = 1;
#ifdef HAVE_FFMPEG
    if (s->o.quiet)
        av_log_set_level(AV_LOG_QUIET);
#endif
    for (int i = 0; rc == 0 && i < n; i++)
        rc = add_input(s, inputs[i], error, size);
    if (rc == 0 && list != NULL)
        rc = add_list(s, list, error, size);
    if (rc == 0 && s->n == 0) {
        snprintf(error, size, "no images or videos in the collection");
        rc = -1;
    }
    if (rc < 0) {
        batch_source_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

/* --- video --- */

#ifdef HAVE_FFMPEG
static void
video_close(video *v)
{
    if (v == NULL)
        return;
    sws_freeContext(v->sws);
    av_frame_free(&v->frame);
    av_packet_free(&v->packet);
    avcodec_free_context(&v->codec);
    avformat_close_input(&v->format);
    free(v);
}

static int
av_fail(const char *path, const char *what, int err, char *error, size_t size)
{
    char text[128];
    av_strerror(err, text, sizeof text);
    snprintf(error, size, "%s: %s: %s", path, what, text);
    return -1;
}

/* The memory a video's frames take, checked from the stream's parameters before the decoder
 * allocates them: each decoder thread holds a frame (and frame threads their references),
 * at most 16 reference frames (H.264, HEVC), the converted image and the command's own. */
static int
video_check_budget(const char *path, const AVCodecParameters *par, int threads, int colour,
                   char *error, size_t size)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t frames = (uint64_t)(threads > 0 ? threads : cores > 0 ? cores : 1) + 16;
    char detail[512];
    /* a YUV 4:2:0 frame of 8 bits is 1.5 bytes a pixel; 4:4:4 or 16 bits up to 6 */
    unsigned frame_bytes =
        par->format == AV_PIX_FMT_YUV420P || par->format == AV_PIX_FMT_NV12 ? 2 : 6;
    if (par->width <= 0 || par->height <= 0)
        return 0; /* not known yet: the decoder's frame is checked when it comes */
    if (tool_image_check_memory((uint64_t)par->width, (uint64_t)par->height,
                                frames * frame_bytes + (colour ? 3 : 1), 0, detail,
                                sizeof detail) < 0)
        return snprintf(error, size, "%s: %s", path, detail), -1;
    return 0;
}

/* The largest frame the decoder may allocate: what the budget allows with every
 * frame it may hold at 6 bytes a pixel (checked again in ff_get_buffer for every frame, so a
 * stream that grows its frames after its header is bounded too). */
static int64_t
video_max_pixels(int threads, int colour)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t frames = (uint64_t)(threads > 0 ? threads : cores > 0 ? cores : 1) + 16;
    uint64_t n = tool_memory_max_pixels(frames * 6 + (colour ? 3 : 1));
    return n > INT32_MAX ? INT32_MAX : n < 1 ? 1 : (int64_t)n;
}

/* avformat_find_stream_info with the decoders it opens to probe bounded like ours. */
static int
find_stream_info(AVFormatContext *format, int64_t max_pixels)
{
    unsigned n = format->nb_streams;
    AVDictionary **options = calloc(n > 0 ? n : 1, sizeof *options);
    int err;
    if (options == NULL)
        return AVERROR(ENOMEM);
    for (unsigned i = 0; i < n; i++)
        av_dict_set_int(&options[i], "max_pixels", max_pixels, 0);
    err = avformat_find_stream_info(format, options);
    for (unsigned i = 0; i < n; i++)
        av_dict_free(&options[i]);
    free(options);
    return err;
}

/* Opens the file, finds its video stream and checks its size against the budget, before
 * any frame is decoded (probing decodes some: it runs with one thread and its size is known
 * from most containers' headers, checked first). */
static int
video_probe(video *v, const char *path, int threads, int colour, const AVCodec **codec, char *error,
            size_t size)
{
    int err, fd = open_regular_fd("", path, error, size);
    if (fd < 0)
        return -1;
    close(fd); /* FFmpeg opens it by name */
    /* A demuxer sizes some tables from the file's header (an MP4's sample tables: a 1.8 KB
     * file asked for 2 GB under the fuzzer); no single allocation of FFmpeg's may exceed
     * the whole memory budget, so such a file is refused as one FFmpeg cannot open. */
    av_max_alloc(tool_memory_budget_whole() < INT_MAX ? (size_t)tool_memory_budget_whole()
                                                      : (size_t)INT_MAX);
    if ((err = avformat_open_input(&v->format, path, NULL, NULL)) < 0)
        return av_fail(path, "not a video FFmpeg can open", err, error, size);
    for (unsigned i = 0; i < v->format->nb_streams; i++)
        if (v->format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO &&
            video_check_budget(path, v->format->streams[i]->codecpar, 1, colour, error, size) < 0)
            return -1;
    if ((err = find_stream_info(v->format, video_max_pixels(1, colour))) < 0 ||
        (err = av_find_best_stream(v->format, AVMEDIA_TYPE_VIDEO, -1, -1, codec, 0)) < 0)
        return av_fail(path, "no video stream", err, error, size);
    v->stream = err;
    return video_check_budget(path, v->format->streams[err]->codecpar, threads, colour, error,
                              size);
}

static int
video_open(const char *path, int threads, int colour, video **out, char *error, size_t size)
{
    video *v = calloc(1, sizeof *v);
    const AVCodec *codec = NULL;
    AVStream *stream;
    int err = 0;
    *out = NULL;
    if (v == NULL)
        return snprintf(error, size, "out of memory"), -1;
    if (video_probe(v, path, threads, colour, &codec, error, size) < 0) {
        video_close(v);
        return -1;
    }
    stream = v->format->streams[v->stream];
    v->time_base = av_q2d(stream->time_base);
    if ((v->codec = avcodec_alloc_context3(codec)) == NULL ||
        (err = avcodec_parameters_to_context(v->codec, stream->codecpar)) < 0 ||
        (v->codec->max_pixels = video_max_pixels(threads, colour), /* a larger frame: refused */
         v->codec->thread_count = threads, /* 0: FFmpeg's choice, one a core */
         err = avcodec_open2(v->codec, codec, NULL)) < 0 ||
        (v->packet = av_packet_alloc()) == NULL || (v->frame = av_frame_alloc()) == NULL) {
        video_close(v);
        return av_fail(path, "cannot open the decoder", err < 0 ? err : AVERROR(ENOMEM), error,
                       size);
    }
    *out = v;
    return 0;
}

/* The next decoded frame into v->frame: 1, 0 at the end, -1 on an error. */
static int
video_decode(video *v, const char *path, char *error, size_t size)
{
    for (;;) {
        int err = avcodec_receive_frame(v->codec, v->frame);
        if (err == 0)
            return 1;
        if (err == AVERROR_EOF)
            return 0;
        if (err != AVERROR(EAGAIN))
            return av_fail(path, "decoding", err, error, size);
        if (v->draining)
            return 0;
        err = av_read_frame(v->format, v->packet);
        if (err == AVERROR_EOF) {
            v->draining = 1;
            avcodec_send_packet(v->codec, NULL);
            continue;
        }
        if (err < 0)
            return av_fail(path, "reading", err, error, size);
        if (v->packet->stream_index == v->stream)
            err = avcodec_send_packet(v->codec, v->packet);
        av_packet_unref(v->packet);
        if (err < 0 && err != AVERROR(EAGAIN))
            return av_fail(path, "decoding", err, error, size);
    }
}

/* v->frame as a u8 gray or RGB image; exact point conversion so every run gives the same
 * pixels. */
static int
video_convert(video *v, int colour, tool_image *image, char *error, size_t size)
{
    AVFrame *f = v->frame;
    enum AVPixelFormat to = colour ? AV_PIX_FMT_RGB24 : AV_PIX_FMT_GRAY8;
    uint8_t *dst[4] = {NULL};
    int lines[4] = {0};
    if (tool_image_check_memory((uint64_t)f->width, (uint64_t)f->height, colour ? 6 : 2, 0, error,
                                size) < 0 ||
        tool_image_alloc(image, (size_t)f->width, (size_t)f->height, colour ? 3 : 1,
                         VOTECL_DTYPE_U8, error, size) < 0)
        return -1;
    v->sws = sws_getCachedContext(v->sws, f->width, f->height, f->format, f->width, f->height, to,
                                  SWS_POINT | SWS_ACCURATE_RND | SWS_BITEXACT, NULL, NULL, NULL);
    /* swscale writes whole aligned blocks past a row's end (a 1-pixel-wide frame overran an
     * 8-byte image: tests/fuzz/fuzz-video): into its own padded buffer, then copied */
    if (v->sws == NULL || av_image_alloc(dst, lines, f->width, f->height + 1, to, 64) < 0) {
        tool_image_free(image);
        return snprintf(error, size, "no conversion from the video's pixel format"), -1;
    }
    sws_scale(v->sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height, dst, lines);
    for (size_t y = 0; y < image->height; y++)
        memcpy(image->data + y * image->stride, dst[0] + y * (size_t)lines[0], image->stride);
    av_freep(&dst[0]);
    return 0;
}

/* The next frame of the open video that --every and the time range keep: 1, 0, -1. */
static int
video_next(batch_source *s, int pixels, batch_item_meta *meta, tool_image *image, char *error,
           size_t size)
{
    video *v = s->v;
    const char *path = s->paths[s->v_path];
    for (;;) {
        int64_t pts;
        double t;
        long index;
        int rc = video_decode(v, path, error, size);
        if (rc <= 0)
            return rc;
        index = v->next_frame++;
        pts = v->frame->best_effort_timestamp;
        t = pts == AV_NOPTS_VALUE ? 0.0 : (double)pts * v->time_base;
        if (index % (long)s->o.every != 0 || t < s->o.start)
            continue;
        if (s->o.end >= 0 && t >= s->o.end)
            return 0; /* the range is over: no need to decode the rest */
        *meta = (batch_item_meta){.source = path, .frame = index, .timestamp = t};
        v->yielded = 1;
        if (pixels && video_convert(v, s->o.colour, image, error, size) < 0)
            return -1;
        return 1;
    }
}
#endif

static int
next_video_frame(batch_source *s, int pixels, batch_item_meta *meta, tool_image *image, char *error,
                 size_t size)
{
#ifdef HAVE_FFMPEG
    int rc;
    if (s->v == NULL) {
        s->v_path = s->next++;
        *meta = (batch_item_meta){.source = s->paths[s->v_path], .frame = -1};
        if (video_open(s->paths[s->v_path], (int)s->o.decode_threads, s->o.colour, &s->v, error,
                       size) < 0)
            return -1;
    }
    rc = video_next(s, pixels, meta, image, error, size);
    if (rc == 0 && !s->v->yielded) {
        /* a video that gives no item gets an error record, not silence */
        *meta = (batch_item_meta){.source = s->paths[s->v_path], .frame = -1};
        snprintf(error, size, "%s: %s", meta->source,
                 s->v->next_frame == 0 ? "no frame could be decoded"
                                       : "no frame in the range of --every, --start, --end");
        rc = -1;
    }
    if (rc <= 0) {
        if (rc < 0)
            *meta = (batch_item_meta){.source = s->paths[s->v_path], .frame = s->v->next_frame};
        video_close(s->v); /* a broken video ends after its error record */
        s->v = NULL;
    }
    return rc;
#else
    *meta = (batch_item_meta){.source = s->paths[s->next++], .frame = -1};
    snprintf(error, size,
             "%s: this votecl was built without FFmpeg's libraries "
             "(./configure --with-ffmpeg)",
             meta->source);
    return -1;
#endif
}

int
batch_source_next(batch_source *s, int pixels, batch_item_meta *meta, tool_image *image,
                  char *error, size_t size)
{
    for (;;) {
        const char *path;
        if (s->v != NULL || (s->next < s->n && is_video(s, s->paths[s->next]))) {
            int rc = next_video_frame(s, pixels, meta, image, error, size);
            if (rc != 0)
                return rc;
            continue; /* this video is over: the next path */
        }
        if (s->next >= s->n)
            return 0;
        path = s->paths[s->next++];
        *meta = (batch_item_meta){.source = path, .frame = -1};
        if (pixels && tool_image_read(path, image, error, size) < 0)
            return -1;
        return 1;
    }
}

void
batch_source_free(batch_source *s)
{
    if (s == NULL)
        return;
#ifdef HAVE_FFMPEG
    video_close(s->v);
#endif
    for (size_t i = 0; i < s->n; i++)
        free(s->paths[i]);
    free(s->paths);
    free(s);
}
