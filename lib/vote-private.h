/* The voting engine's internal interface (GPU-vote stage 2), shared by the built-ins. */
#ifndef VOTECL_VOTE_PRIVATE_H
#define VOTECL_VOTE_PRIVATE_H

#include "votecl-private.h"

/* Everything about the strategy that is fixed at plan time and becomes kernel defines. */
typedef struct votecl__vote_config {
    votecl_variant variant;
    unsigned wg;          /* work-group size of the vote kernel */
    unsigned merge_wg;    /* work-group size of the merge kernel */
    uint64_t nbins;       /* N per vote space */
    int kind;             /* VOTE_KIND: 0 unity, 1 u32 number votes, 2 f32 number votes */
    int frames;           /* 1: vote space g reads frame g; 0: every space reads all */
    int finish;           /* the merge applies vote_finish: always merge */
    unsigned vec;         /* elements per 16-byte load (1: no vector path) */
    size_t elem_bytes;    /* bytes per element of x, for the alignment of frames */
    uint32_t nmax;        /* local: 32-bit bins in local memory */
    uint32_t npass;       /* local: bins per pass */
    unsigned stretch_s;   /* local: S of Eq. 3 */
    unsigned stretch;     /* local: S' actually used */
    unsigned passes;      /* local: ceil(N / npass) */
    unsigned priv_copies; /* private: sub-histograms per work-item */
    int priv_local;       /* private: the copies are 16-bit counters in local memory */
    int local_agg;        /* local: LOCAL_AGG bits of cl/vote.cl (unity vector votes) */
    int fused;            /* local: the last group merges (FUSED_MERGE), no merge launch */
    unsigned loads;       /* local: 16-byte loads in flight per work-item (LOCAL_LOADS) */
    unsigned groups_per_cu; /* local: groups per compute unit the layout aims at */
    int pipelined;        /* local: the vector votes run software-pipelined (LOCAL_LOADS) */
} votecl__vote_config;

typedef struct votecl__vote_engine {
    votecl_context *context;
    votecl__vote_config cfg;
    void *k_vote;
    void *k_merge;
    votecl_buffer *partials;
    votecl_buffer *tickets; /* FUSED_MERGE: one counter per space and pass, kept zero */
} votecl__vote_engine;

/* Chooses the strategy (requested, else the context's VOTECL_FORCE_VARIANT, else from the
 * device facts) and its sizes. stretch_cap: upper bound for S' (0: the paper's S'). */
/* The shape of a vote: N per space, the vote kind and frames mode (see the config), and
 * the elements' vector width and bytes. */
typedef struct votecl__vote_shape {
    uint64_t nbins;
    unsigned spaces; /* G, for the model's choice (1 for histograms: frames vary per run) */
    int kind;
    int frames;
    int finish;
    unsigned vec;
    size_t elem_bytes;
    int unpack; /* the algorithm file defines vote_unpack (histograms) */
} votecl__vote_shape;

votecl_status votecl__vote_configure(votecl_context *context, votecl_variant requested,
                                     unsigned stretch_cap, unsigned wg,
                                     const votecl__vote_shape *shape, votecl__vote_config *cfg);

/* The engine's defines ("NAME=VALUE") into defs; returns how many (at most 14). */
size_t votecl__vote_defines(const votecl__vote_config *cfg, char defs[][64]);

/* Fetches the kernels of the configured strategy from program (composed with
 * votecl__vote_defines, the algorithm file and vote.cl). */
votecl_status votecl__vote_engine_init(votecl__vote_engine *engine, votecl_context *context,
                                       const votecl__vote_config *cfg,
                                       votecl__program *program);
void votecl__vote_engine_release(votecl__vote_engine *engine);

/* The inputs of one stage-2 run: device buffers (y, w, aux and count may be NULL; aux is the
 * algorithm's own table, passed to its element functions), n elements
 * (per frame in frames mode; an upper bound when count holds the real number), the image
 * width for packed locations (0: 1-D), and the number of vote spaces. */
typedef struct votecl__vote_input {
    votecl_buffer *x, *y, *w, *aux, *count;
    size_t n;
    size_t width;
    size_t spaces;
} votecl__vote_input;

/* Votes into spaces * nbins words of out. Asynchronous. */
votecl_status votecl__vote_run(votecl__vote_engine *engine, const votecl__vote_input *in,
                               votecl_buffer *out);

/* Vote work-groups of cfg resident per compute unit at once (an estimate: see vote.c). */
unsigned votecl__vote_resident(const votecl_context *context, const votecl__vote_config *cfg);

void votecl__vote_describe(const votecl__vote_engine *engine, size_t n, size_t spaces,
                           votecl_vote_plan_info *info);
/* The describe of a plan that runs on the vote plan vote: info for elements, or
 * VOTECL_UNSUPPORTED with why when vote is NULL; a NULL info is VOTECL_INVALID_ARGUMENT. */
votecl_status votecl__vote_plan_describe_of(votecl_context *context, const votecl_vote_plan *vote,
                                            const char *why, size_t elements,
                                            votecl_vote_plan_info *info);

/* What the engine asks the execution-time model: lib/model.c implements it
 * (votecl__model_hooks), the context holds it (context->model). The model configures and
 * describes plans to predict them, so it sits above the engine, which reaches it only through
 * these pointers. None records an error in the context. */
struct votecl__model_hooks {
    /* The strategy predicted fastest for G = spaces vote spaces of nbins bins over
     * elements_hint elements (0: a 1920x1080 frame) of which eta_hint pass stage 1 (<= 0: 1);
     * VOTECL_VARIANT_AUTO when the device is not calibrated. */
    votecl_variant (*choose)(votecl_context *context, uint64_t nbins, unsigned spaces,
                             size_t elements_hint, double eta_hint);
    /* The device's stored model into model; 0, or -1 when the device is not calibrated. */
    int (*get)(const votecl_context *context, votecl_model *model);
    /* Stage 2's seconds by model for a plan configured as cfg with G = spaces, voting a
     * 1920x1080 frame's elements; 0 with the seconds, -1 when model has no fit for cfg's
     * strategy. */
    int (*predict_config)(votecl_context *context, const votecl_model *model,
                          const votecl__vote_config *cfg, unsigned spaces, double *seconds);
    /* The seconds for a plan described by info (for elements elements, eta of them kept),
     * location_based when the plan has a stage 1; VOTECL_UNSUPPORTED when the device has no
     * fit for info->variant. */
    votecl_status (*predict_info)(votecl_context *context, const votecl_vote_plan_info *info,
                                  int location_based, size_t elements, double eta, double *seconds);
};

/* Elements per frame the kernels index with 32-bit arithmetic. */
#define VOTECL__MAX_FRAME_ELEMENTS ((size_t)VOTECL_VOTE_MAX_ELEMENTS)

#endif
