/* The algorithms as the tests that call every one of them see them: one descriptor per
 * algorithm (tests/case-<algo>.c) and one list, tc_algorithms[] (tests/cases.c).
 *
 * A case is one small call of the public API: a constructor (make) on a context and a run
 * of the object on small synthetic inputs (tc_in), with the comparisons the tests need.
 * tests/test-fault.c sweeps every case of every algorithm under injected faults;
 * tests/test-concurrency.c runs each algorithm's concurrent case from many threads and
 * compares it with the 'ref' backend's result; tests/test-api.c checks the struct_size scheme
 * of each algorithm's parameter structs. Adding an algorithm to these tests is one file
 * tests/case-<algo>.c defining its tc_algorithm, one line in tc_algorithms[] and one in
 * Makefile.am's CASE_SOURCES (docs/adding-an-algorithm.md). The tools' side of the same
 * algorithm is tools/algorithms.h; the library's warm-up is lib/warmup.c's list. */
#ifndef VOTECL_TEST_CASES_H
#define VOTECL_TEST_CASES_H

#include "testutil.h"

#include <stddef.h>
#include <string.h>

enum {
    TC_DEVICE_ONLY = 1u << 0,       /* needs a device context (user OpenCL C, calibration) */
    TC_REPORT_ON_FAILURE = 1u << 1, /* the output is documented as a report of what was done
                                       also on failure: not checked for the sentinel */
};

typedef struct tc_case {
    const char *name; /* the test path's last part: /ref/fault/<name> */
    unsigned flags;   /* TC_* */
    size_t out_size;  /* bytes of the run's output, found counts included */
    /* The constructor: fills *object (NULL on failure). */
    votecl_status (*make)(votecl_context *context, void **object);
    /* The run: the object on tc_in, writing out_size bytes at most. */
    votecl_status (*run)(void *object, void *out);
    void (*destroy)(void *object);
    /* Nonzero when two outputs of the same backend differ (NULL: bytewise); structs compare
     * by field, as the library need not copy their padding. */
    int (*differ)(const void *a, const void *b);
    /* Nonzero when a device output equals the reference's within the documented margins
     * (NULL: !differ). */
    int (*matches)(const void *device, const void *reference);
    /* The reference result computed here, for a case the 'ref' backend cannot run (user
     * OpenCL C); NULL: the 'ref' backend runs the case. */
    void (*reference)(void *out);
} tc_case;

/* A parameter struct of the algorithm, for tests/test-api.c's struct_size checks (votecl.h). */
enum {
    TC_PARAMS_NO_CONTEXT = 1u << 0, /* call takes no context (it is given NULL) */
    TC_PARAMS_OK = 1u << 1,         /* call must succeed on the struct as _init leaves it */
};

typedef struct tc_params {
    size_t size;                /* sizeof the struct; struct_size is its first member */
    void (*init)(void *params); /* its _init: struct_size and the defaults */
    /* A call reading the struct, which must check struct_size (on a 'ref' context), freeing
     * what it makes; NULL: only _init is checked. */
    votecl_status (*call)(votecl_context *context, void *params);
    unsigned flags; /* TC_PARAMS_* */
} tc_params;

typedef struct tc_algorithm {
    const char *name;
    const tc_case *cases; /* each swept by test-fault, in this order */
    size_t ncases;
    const tc_case *concurrent; /* the one test-concurrency's threads run */
    const tc_params *params;   /* its parameter structs */
    size_t nparams;
} tc_algorithm;

/* One-line definitions of the small functions a descriptor points at (the struct declaration
 * at the end takes the semicolon):
 *   TC_DESTROY(name, free_fn)       void name(void *object): free_fn(object)
 *   TC_RUN(name, type, call)        votecl_status name(void *object, void *out): the status of
 *                                   call, which reads object and o (out as a type *)
 *   TC_PARAMS_INIT(name, call)      void name(void *p): call, which reads p
 *   TC_PARAMS_CALL(name, type, new) votecl_status name(votecl_context *context, void *p): a
 *                                   type *plan = NULL, the status of new (which reads context,
 *                                   p and &plan), then type_free(plan) */
#define TC_DESTROY(name, free_fn)                                                                  \
    static void name(void *object)                                                                 \
    {                                                                                              \
        free_fn(object);                                                                           \
    }                                                                                              \
    struct tc_semicolon
#define TC_RUN(name, type, call)                                                                   \
    static votecl_status name(void *object, void *out)                                             \
    {                                                                                              \
        type *o = out;                                                                             \
        return call;                                                                               \
    }                                                                                              \
    struct tc_semicolon
#define TC_PARAMS_INIT(name, call)                                                                 \
    static void name(void *p)                                                                      \
    {                                                                                              \
        call;                                                                                      \
    }                                                                                              \
    struct tc_semicolon
#define TC_PARAMS_CALL(name, type, new)                                                            \
    static votecl_status name(votecl_context *context, void *p)                                    \
    {                                                                                              \
        type *plan = NULL;                                                                         \
        votecl_status status = new;                                                                \
        type##_free(plan);                                                                         \
        return status;                                                                             \
    }                                                                                              \
    struct tc_semicolon

/* The fields every case sets, in a tc_case initializer: {TC_CASE(...), .differ = ...}. */
#define TC_CASE(case_name, size, make_fn, run_fn, destroy_fn)                                      \
    .name = case_name, .out_size = size, .make = make_fn, .run = run_fn, .destroy = destroy_fn

/* Defines name(a, b) for an items output type, whose items differ where test, an expression
 * of x and y (two const pointers to items of type's array), is nonzero (TC_ITEMS_DIFFER):
 * with want TC_DIFFER nonzero when the outputs differ (a differ), with TC_MATCH nonzero when
 * they do not (a matches). */
enum { TC_DIFFER, TC_MATCH };
#define TC_ITEMS_FN(name, want, type, array, test)                                                 \
    static int name##_item(const void *pa, const void *pb)                                         \
    {                                                                                              \
        const __typeof__(((type *)0)->array[0]) *x = pa, *y = pb;                                  \
        return test;                                                                               \
    }                                                                                              \
    static int name(const void *a, const void *b)                                                  \
    {                                                                                              \
        int differ = TC_ITEMS_DIFFER(a, b, type, array, name##_item);                              \
        return want == TC_MATCH ? !differ : differ;                                                \
    }                                                                                              \
    struct tc_semicolon

/* Defines tc_<id>, the descriptor of an algorithm from its file's <id>_cases[] and
 * <id>_params[] and its concurrent case. */
#define TC_ALGORITHM(id, concurrent_case)                                                          \
    const tc_algorithm tc_##id = {#id,                                                             \
                                  id##_cases,                                                      \
                                  G_N_ELEMENTS(id##_cases),                                        \
                                  concurrent_case,                                                 \
                                  id##_params,                                                     \
                                  G_N_ELEMENTS(id##_params)}

/* NULL-terminated, in the order the tests run them. */
extern const tc_algorithm *const tc_algorithms[];

/* The inputs every case reads (tc_init makes them), and the people model's file. */
extern tu_inputs tc_in;
extern char *tc_hog_model_file;
/* Views of tc_in's images, made with them: the gray image, the edge image, the people, the
 * GHT's template and its scene. */
extern votecl_image tc_view_gray, tc_view_edges, tc_view_people, tc_view_template, tc_view_scene;

/* Makes the inputs from seed and finds the model file (VOTECL_KERNEL_PATH, else cl/). */
void tc_init(uint64_t seed);
void tc_free(void);
/* The algorithm called name, NULL when none. */
const tc_algorithm *tc_find(const char *name);
/* c->matches, or equality by c->differ (bytewise when NULL). */
int tc_matches(const tc_case *c, const void *device, const void *reference);
int tc_differ(const tc_case *c, const void *a, const void *b);

#define TC_FIELD_DIFFERS(a, b, f) (memcmp(&(a)->f, &(b)->f, sizeof(a)->f) != 0)

/* For outputs { size_t found; T items[N]; } (found first): nonzero when the counts differ or
 * item_differ says one of the first found items does. */
int tc_items_differ(const void *a, const void *b, size_t offset, size_t size, size_t capacity,
                    int (*item_differ)(const void *x, const void *y));
#define TC_ITEMS_DIFFER(a, b, type, array, item_differ)                                            \
    tc_items_differ(a, b, offsetof(type, array), sizeof((type *)0)->array[0],                      \
                    G_N_ELEMENTS(((type *)0)->array), item_differ)

extern const tc_algorithm tc_hist, tc_hough, tc_sum, tc_subsample, tc_vote, tc_lines, tc_hog,
    tc_ght, tc_circles, tc_edges;

#endif
