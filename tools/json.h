/* A tiny streaming JSON writer for the tool's output: objects, arrays, escaped strings,
 * numbers. Commas and indentation are handled by the writer; the caller only nests. */
#ifndef VOTECL_TOOL_JSON_H
#define VOTECL_TOOL_JSON_H

#include <stdint.h>
#include <stdio.h>

#define TOOL_JSON_MAX_DEPTH 32
/* The version of the shape every command's document starts with (tool_json_header in
 * votecl.c): raised when a common field changes meaning or goes. */
#define TOOL_JSON_SCHEMA 2

typedef struct tool_json {
    FILE *file;             /* borrowed */
    int depth;
    int count[TOOL_JSON_MAX_DEPTH]; /* values written at each depth */
    int after_key;          /* a key was written, its value comes next */
    int compact_depth;      /* containers deeper than this are written on one line; 0: none */
} tool_json;

/* Starts a document on file (borrowed). */
void tool_json_init(tool_json *json, FILE *file);

void tool_json_begin_object(tool_json *json);
void tool_json_end_object(tool_json *json);
void tool_json_begin_array(tool_json *json);
/* An array written on one line (for long lists of numbers). */
void tool_json_begin_array_compact(tool_json *json);
void tool_json_end_array(tool_json *json);

/* The key of the next value in an object. */
void tool_json_key(tool_json *json, const char *key);
/* key: [x0, y0, x1, y1] on one line (a line segment's ends). */
void tool_json_kv_segment(tool_json *json, const char *key, double x0, double y0, double x1,
                          double y1);

/* NULL writes null; bytes that are not UTF-8 are written as U+FFFD (the text stays JSON). */
void tool_json_string(tool_json *json, const char *value);
void tool_json_double(tool_json *json, double value);      /* NaN and infinities write null */
void tool_json_int(tool_json *json, int64_t value);
void tool_json_uint(tool_json *json, uint64_t value);
void tool_json_bool(tool_json *json, int value);
void tool_json_null(tool_json *json);
/* A value that is already JSON text (a document another writer made), written verbatim. */
void tool_json_raw(tool_json *json, const char *text);

/* Key and value in one call. */
void tool_json_kv_string(tool_json *json, const char *key, const char *value);
void tool_json_kv_double(tool_json *json, const char *key, double value);
void tool_json_kv_int(tool_json *json, const char *key, int64_t value);
void tool_json_kv_uint(tool_json *json, const char *key, uint64_t value);
void tool_json_kv_bool(tool_json *json, const char *key, int value);

/* Ends the document with a newline. */
void tool_json_finish(tool_json *json);

#endif
