/* The collection of votecl batch (batch-source.h). Videos are decoded frame after frame from
 * their start (no seeking), so frame numbers are positions in decoding order and the same on
 * every run and rank, whatever --start asks. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#ifdef HAVE_FFMPEG
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#endif

#include "batch-source.h"

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
} video;

struct batch_source {
    batch_source_options o;
    char **paths; /* owned */
    size_t n, cap;
    size_t next; /* the next path */
    video *v;    /* the open video, NULL between files */
    size_t v_path;
};

static const char *const image_ext[] = {".png", ".pgm", ".ppm", ".pnm", NULL};
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
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        char **p = realloc(s->paths, cap * sizeof *p);
        if (p == NULL)
            return -1;
        s->paths = p;
        s->cap = cap;
    }
    if ((s->paths[s->n] = strdup(path)) == NULL)
        return -1;
    s->n++;
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

static int
add_list(batch_source *s, const char *list, char *error, size_t size)
{
    FILE *f = fopen(list, "r");
    char line[4096];
    int rc = 0;
    if (f == NULL) {
        snprintf(error, size, "--list %s: %s", list, strerror(errno));
        return -1;
    }
    while (rc == 0 && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] != '\0' && line[0] != '#')
            rc = add_input(s, line, error, size);
    }
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

static int
video_open(const char *path, int threads, video **out, char *error, size_t size)
{
    video *v = calloc(1, sizeof *v);
    const AVCodec *codec = NULL;
    AVStream *stream;
    int err;
    *out = NULL;
    if (v == NULL)
        return snprintf(error, size, "out of memory"), -1;
    if ((err = avformat_open_input(&v->format, path, NULL, NULL)) < 0 ||
        (err = avformat_find_stream_info(v->format, NULL)) < 0 ||
        (err = av_find_best_stream(v->format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0)) < 0) {
        video_close(v);
        return av_fail(path, "no video stream", err, error, size);
    }
    v->stream = err;
    stream = v->format->streams[v->stream];
    v->time_base = av_q2d(stream->time_base);
    if ((v->codec = avcodec_alloc_context3(codec)) == NULL ||
        (err = avcodec_parameters_to_context(v->codec, stream->codecpar)) < 0 ||
        (v->codec->thread_count = threads, /* 0: FFmpeg's choice, one a core */
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
    if (tool_image_alloc(image, (size_t)f->width, (size_t)f->height, colour ? 3 : 1,
                         VOTECL_DTYPE_U8, error, size) < 0)
        return -1;
    v->sws = sws_getCachedContext(v->sws, f->width, f->height, f->format, f->width, f->height, to,
                                  SWS_POINT | SWS_ACCURATE_RND | SWS_BITEXACT, NULL, NULL, NULL);
    if (v->sws == NULL) {
        tool_image_free(image);
        return snprintf(error, size, "no conversion from the video's pixel format"), -1;
    }
    dst[0] = image->data;
    lines[0] = (int)image->stride;
    sws_scale(v->sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height, dst, lines);
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
        if (video_open(s->paths[s->v_path], (int)s->o.decode_threads, &s->v, error, size) < 0)
            return -1;
    }
    rc = video_next(s, pixels, meta, image, error, size);
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
