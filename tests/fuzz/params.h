/* What the targets of tests/fuzz/fuzz-params.c share: the decoder of the input, the field
 * tables that mutate a params struct, the checks, image views backed by the pool. Each
 * algorithm's target lives in tests/fuzz/params-<algo>.c. */
#ifndef VOTECL_FUZZ_PARAMS_H
#define VOTECL_FUZZ_PARAMS_H

#include "votecl-private.h"

#include "fuzz.h"

#include <stddef.h>
#include <stdint.h>

#define POOL (1u << 20)
/* Most elements a ref run may touch per input: keeps an execution in milliseconds. */
#define WORK (1u << 18)

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

/* Field tables: a few fields of a params struct get decoded values. */
typedef enum ftype { F_UINT, F_U32, F_SIZE, F_U64, F_DOUBLE, F_FLOAT, F_INT } ftype;
typedef struct field {
    size_t offset;
    ftype type;
} field;
#define FIELD(s, m, t)                                                                             \
    {                                                                                              \
        offsetof(s, m), t                                                                          \
    }
typedef struct fields {
    const field *list;
    size_t n;
} fields;
/* The tables of the params structs, NAME_fields for votecl_NAME_params (or _spec), generated
 * from the headers by tests/fuzz/gen-fields.py. */
#include "params-fields.h"

/* A constructor's result: a status, and NULL in *out on failure. */
#define CHECK_NEW(status, object)                                                                  \
    do {                                                                                           \
        check_status(status);                                                                      \
        FUZZ_CHECK(((status) == VOTECL_OK) == ((object) != NULL));                                 \
    } while (0)
/* CHECK_NEW, and the target returns when the constructor failed. */
#define CHECK_NEW_OR_RETURN(status, object)                                                        \
    do {                                                                                           \
        CHECK_NEW(status, object);                                                                 \
        if ((status) != VOTECL_OK)                                                                 \
            return;                                                                                \
    } while (0)

typedef enum view_kind {
    VIEW_FITS,   /* valid and inside the pool: safe to pass */
    VIEW_BAD,    /* breaks a documented rule: must be rejected */
    VIEW_TOO_BIG /* valid, but the pool cannot back it: skipped */
} view_kind;

/* The 'ref' context every call runs on, and the memory behind every view and array (the
 * input repeated). */
extern votecl_context *ctx;
extern unsigned char pool[POOL];

/* --- decoding --- */

uint64_t take(reader *r, unsigned bytes);
unsigned take8(reader *r);
/* Mostly small, sometimes a boundary, sometimes raw. */
uint64_t take_count(reader *r, uint64_t max_raw);
size_t take_size(reader *r);
uint32_t take_u32(reader *r);
double take_double(reader *r);
float take_float(reader *r);
/* A few of the fields of base (a params struct) get decoded values. */
void mutate(reader *r, void *base, const fields *table);

/* --- checks --- */

/* A known status, and a message on the context when it is a failure. */
void check_status(votecl_status status);
view_kind classify(const votecl_image *v);
/* Mostly the expected layout and a small size; sometimes anything. */
votecl_image take_view(reader *r, votecl_dtype dtype, unsigned channels, size_t width,
                       size_t height);
/* After a call with view: a bad view must have been rejected. */
void check_view_call(const votecl_image *v, votecl_status status);
size_t pixels_of(const votecl_image *v);
/* An output array of count elements of size bytes, NULL for 0 (or sometimes anyway). */
void *take_output(reader *r, size_t count, size_t size);
/* take_output's array of *capacity items, *capacity set to 0 when there is none. */
void *take_items(reader *r, size_t *capacity, size_t size);
/* Sometimes any sides: *width and *height replaced by decoded sizes. */
void take_any_sides(reader *r, size_t *width, size_t *height);

/* --- the algorithms' targets (tests/fuzz/params-<algo>.c) --- */

void fuzz_hist(reader *r);
void fuzz_hough(reader *r);
void fuzz_sum(reader *r);
void fuzz_subsample(reader *r);
void fuzz_lines(reader *r);
void fuzz_hog(reader *r);
void fuzz_ght(reader *r);
void fuzz_vote(reader *r);
void fuzz_circles(reader *r);
void fuzz_canny(reader *r);

#endif
