/* votecl batch's video reader (tools/batch-source.c through FFmpeg's libraries): container
 * probing, the stream's size against the memory budget, decoding, conversion. The input is
 * written to a memory file and read as a video, at most 8 items, under a 64 MB budget.
 * Properties: each item is a frame of a sane size (or an error naming the file); the budget
 * bounds what is decoded (libFuzzer's -malloc_limit_mb and -rss_limit_mb catch the rest);
 * the walk ends. Without FFmpeg the reader refuses every video: checked too. */
#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* memfd_create */
#endif
#include "batch-source.h"
#include "fuzz.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void
walk(char *path)
{
    batch_source_options o = {
        .every = 1, .end = -1, .force_video = 1, .decode_threads = 1, .quiet = 1};
    batch_source *s = NULL;
    char error[600];
    char *inputs[1] = {path};
    if (batch_source_open(inputs, 1, NULL, &o, &s, error, sizeof error) < 0)
        return;
    for (int k = 0; k < 8; k++) {
        batch_item_meta meta;
        tool_image image = {0};
        int rc = batch_source_next(s, 1, &meta, &image, error, sizeof error);
        FUZZ_CHECK(rc >= -1 && rc <= 1);
        if (rc == 0)
            break;
        FUZZ_CHECK(meta.source != NULL && strcmp(meta.source, path) == 0);
        if (rc == 1) {
            FUZZ_CHECK(image.data != NULL && image.channels == 1);
            FUZZ_CHECK(image.width >= 1 && image.height >= 1);
            FUZZ_CHECK(image.width * image.height <= tool_memory_max_pixels(1));
        } else {
            FUZZ_CHECK(image.data == NULL && strlen(error) > 0);
        }
        tool_image_free(&image);
    }
    batch_source_free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = memfd_create("fuzz-video", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        tool_memory_budget_set((uint64_t)64 << 20);
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        walk(path);
    }
    close(fd);
    return 0;
}
