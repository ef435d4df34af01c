/* The generic engine in the tests that call every algorithm (tests/cases.h): a
 * location-based vote (stage 1 and 2) of user OpenCL C, so device-only; its reference is
 * the same vote in C. */
#include "cases.h"

#define VOTE_SPACES 3
#define VOTE_BINS 50

static const char user_source[] =
    "bool vote_test(uint x, uint y, VALUE_T value) { return value >= 100; }\n"
    "uint vote_index(uint space, uint index, VALUE_T value, uint nbins)\n"
    "{ return (value + vote_x(index) + space) % nbins; }\n";

static votecl_status
vote_make(votecl_context *context, void **object)
{
    votecl_vote_spec s;
    votecl_vote_spec_init(&s);
    s.spaces = VOTE_SPACES;
    s.nbins = VOTE_BINS;
    s.source = user_source;
    return votecl_vote_plan_new(context, &s, (votecl_vote_plan **)object);
}

TC_RUN(vote_run, uint32_t, votecl_vote_run_image(object, &tc_view_gray, o, NULL));

TC_DESTROY(vote_destroy, votecl_vote_plan_free);

/* user_source in C (the 'ref' backend runs no user OpenCL C). */
static void
vote_reference(void *out)
{
    uint32_t *bins = out;

    memset(bins, 0, VOTE_SPACES * VOTE_BINS * sizeof *bins);
    for (uint32_t y = 0; y < 48; y++)
        for (uint32_t x = 0; x < 64; x++) {
            uint32_t v = tc_in.image[y * 64 + x];
            if (v < 100)
                continue;
            for (uint32_t s = 0; s < VOTE_SPACES; s++)
                bins[s * VOTE_BINS + (v + x + s) % VOTE_BINS]++;
        }
}

TC_PARAMS_INIT(vote_spec_init, votecl_vote_spec_init(p));

/* Its constructor needs a device: only _init is checked here. */
static const tc_params vote_params[] = {
    {sizeof(votecl_vote_spec), vote_spec_init, NULL, 0},
};

static const tc_case vote_cases[] = {
    {.name = "vote",
     .flags = TC_DEVICE_ONLY,
     .out_size = VOTE_SPACES * VOTE_BINS * 4,
     .make = vote_make,
     .run = vote_run,
     .destroy = vote_destroy,
     .reference = vote_reference},
};

TC_ALGORITHM(vote, &vote_cases[0]);
