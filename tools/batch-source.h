/* The collection of votecl batch: image files, directories of them, list files and video
 * files decoded with FFmpeg's libraries (when built with them), walked in one fixed order so
 * that every run and every MPI rank sees the same items with the same numbers. */
#ifndef VOTECL_TOOL_BATCH_SOURCE_H
#define VOTECL_TOOL_BATCH_SOURCE_H

#include <stddef.h>
#include <stdio.h>

#include "image-io.h"

typedef struct batch_source_options {
    unsigned long every; /* video: frames whose index is a multiple of this (1: all) */
    double start, end; /* video: frames with start <= timestamp < end (seconds; end < 0: no end) */
    int force_video;   /* every file is a video, whatever its name */
    int colour;        /* video frames as RGB (else gray) */
    unsigned long decode_threads; /* video: the decoder's threads; 0: as many as cores */
    int quiet;                    /* -q: FFmpeg's log silenced too */
} batch_source_options;

/* One item: an image file, or one frame of a video. */
typedef struct batch_item_meta {
    const char *source; /* borrowed from the source: the path as given or found */
    long frame;         /* frame index in the video; -1 for an image file */
    double timestamp;   /* seconds, video only */
} batch_item_meta;

typedef struct batch_source batch_source;

/* Gathers the paths: each input is a file or a directory (its image and video files, sorted by
 * name); list (may be NULL) names a file of paths, one a line ('#' lines and blank lines
 * skipped). out: caller-owned. Returns 0, or -1 with a message in error. */
int batch_source_open(char **inputs, int n, const char *list, const batch_source_options *o,
                      batch_source **out, char *error, size_t error_size);
void batch_source_free(batch_source *s);

/* The longest path a list file may hold on one line (a longer line is an error, not a
 * path cut in two). */
#define BATCH_LIST_MAX_LINE 4096

/* Reads a list file: one path a line, '#' lines and blank lines skipped, CR LF taken as LF;
 * calls add for each path (borrowed for the call), stopping at its first -1. name is for
 * messages. Returns 0, or -1 with a message in error (add's own message when add failed). */
int batch_list_read(FILE *f, const char *name, int (*add)(void *user, const char *path), void *user,
                    char *error, size_t size);

/* Whether video files can be decoded in this build. */
int batch_source_has_video(void);

/* The next item. pixels: whether image is wanted (else the item is only counted: an image
 * file is not read, a video frame is decoded but not converted). image: caller-owned output,
 * filled when pixels. Returns 1 for an item, 0 at the end, -1 when an item cannot be read:
 * meta names it and error says why (the walk goes on with the next call). */
int batch_source_next(batch_source *s, int pixels, batch_item_meta *meta, tool_image *image,
                      char *error, size_t error_size);

#endif
