/* A tiny streaming JSON writer. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "json.h"

void
tool_json_init(tool_json *json, FILE *file)
{
    memset(json, 0, sizeof *json);
    json->file = file;
}

static int
compact(const tool_json *json)
{
    return json->compact_depth > 0 && json->depth >= json->compact_depth;
}

static void
newline_indent(tool_json *json)
{
    if (compact(json))
        return;
    fputc('\n', json->file);
    for (int i = 0; i < json->depth; i++)
        fputs("  ", json->file);
}

/* Writes the separator that precedes a value (or a key) at the current depth. */
static void
before_value(tool_json *json)
{
    if (json->after_key) {
        json->after_key = 0;
        return;
    }
    if (json->depth == 0)
        return;
    if (json->count[json->depth]++ > 0)
        fputc(',', json->file);
    if (compact(json) && json->count[json->depth] > 1)
        fputc(' ', json->file);
    newline_indent(json);
}

static void
begin(tool_json *json, char open, int one_line)
{
    before_value(json);
    fputc(open, json->file);
    if (json->depth + 1 < TOOL_JSON_MAX_DEPTH)
        json->depth++;
    json->count[json->depth] = 0;
    if (one_line && json->compact_depth == 0)
        json->compact_depth = json->depth;
}

static void
end(tool_json *json, char close)
{
    int had_values = json->count[json->depth] > 0;
    int was_compact_root = json->compact_depth == json->depth;
    if (json->depth > 0)
        json->depth--;
    if (was_compact_root)
        json->compact_depth = 0;
    if (had_values && !was_compact_root)
        newline_indent(json);
    fputc(close, json->file);
}

void
tool_json_begin_object(tool_json *json)
{
    begin(json, '{', 0);
}

void
tool_json_end_object(tool_json *json)
{
    end(json, '}');
}

void
tool_json_begin_array(tool_json *json)
{
    begin(json, '[', 0);
}

void
tool_json_begin_array_compact(tool_json *json)
{
    begin(json, '[', 1);
}

void
tool_json_end_array(tool_json *json)
{
    end(json, ']');
}

void
tool_json_kv_segment(tool_json *json, const char *key, double x0, double y0, double x1,
                     double y1)
{
    tool_json_key(json, key);
    tool_json_begin_array_compact(json);
    tool_json_double(json, x0);
    tool_json_double(json, y0);
    tool_json_double(json, x1);
    tool_json_double(json, y1);
    tool_json_end_array(json);
}

/* The length of the well-formed UTF-8 sequence at p (1-4), or 0 when it is not one (a
 * stray continuation byte, an overlong form, a surrogate, above U+10FFFF, cut short). */
static int
utf8_length(const unsigned char *p)
{
    int n;
    uint32_t c;
    if (p[0] < 0x80)
        return 1;
    if (p[0] >= 0xc2 && p[0] <= 0xdf)
        n = 2, c = p[0] & 0x1f;
    else if (p[0] >= 0xe0 && p[0] <= 0xef)
        n = 3, c = p[0] & 0x0f;
    else if (p[0] >= 0xf0 && p[0] <= 0xf4)
        n = 4, c = p[0] & 0x07;
    else
        return 0;
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) /* also stops at the NUL */
            return 0;
        c = c << 6 | (p[i] & 0x3f);
    }
    if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
        (c >= 0xd800 && c <= 0xdfff))
        return 0;
    return n;
}

/* JSON text is UTF-8: a byte that starts no well-formed sequence (a file name in another
 * encoding) is written as U+FFFD, so the document always parses. */
static void
write_escaped(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        int n = utf8_length(p);
        if (n == 0) {
            fputs("\\ufffd", f);
            continue;
        }
        if (n > 1) {
            fwrite(p, 1, (size_t)n, f);
            p += n - 1;
            continue;
        }
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

void
tool_json_key(tool_json *json, const char *key)
{
    before_value(json);
    write_escaped(json->file, key);
    fputs(": ", json->file);
    json->after_key = 1;
}

void
tool_json_string(tool_json *json, const char *value)
{
    if (!value) {
        tool_json_null(json);
        return;
    }
    before_value(json);
    write_escaped(json->file, value);
}

void
tool_json_double(tool_json *json, double value)
{
    if (!isfinite(value)) {
        tool_json_null(json);
        return;
    }
    before_value(json);
    fprintf(json->file, "%.10g", value);
}

void
tool_json_int(tool_json *json, int64_t value)
{
    before_value(json);
    fprintf(json->file, "%" PRId64, value);
}

void
tool_json_uint(tool_json *json, uint64_t value)
{
    before_value(json);
    fprintf(json->file, "%" PRIu64, value);
}

void
tool_json_bool(tool_json *json, int value)
{
    before_value(json);
    fputs(value ? "true" : "false", json->file);
}

void
tool_json_null(tool_json *json)
{
    before_value(json);
    fputs("null", json->file);
}

void
tool_json_raw(tool_json *json, const char *text)
{
    before_value(json);
    fputs(text, json->file);
}

/* tool_json_kv_<kind>: the key, then the value as tool_json_<kind> writes it. */
#define TOOL_JSON_KV(kind, T)                                                                      \
    void tool_json_kv_##kind(tool_json *json, const char *key, T value)                            \
    {                                                                                              \
        tool_json_key(json, key);                                                                  \
        tool_json_##kind(json, value);                                                             \
    }
TOOL_JSON_KV(string, const char *)
TOOL_JSON_KV(double, double)
TOOL_JSON_KV(int, int64_t)
TOOL_JSON_KV(uint, uint64_t)
TOOL_JSON_KV(bool, int)
#undef TOOL_JSON_KV

void
tool_json_finish(tool_json *json)
{
    fputc('\n', json->file);
    fflush(json->file);
}
