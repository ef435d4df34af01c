/* fuzz-params: the generic engine (tests/fuzz/params.h). */
#include "params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void
fuzz_vote(reader *r)
{
    votecl_vote_spec s;
    votecl_vote_plan *plan = (votecl_vote_plan *)&plan;
    char source[256];
    size_t len = take8(r);

    votecl_vote_spec_init(&s);
    mutate(r, &s, &vote_fields);
    for (size_t i = 0; i < len; i++)
        source[i] = (char)take8(r);
    source[len] = '\0';
    if (take8(r) & 1)
        s.source = source;
    if (take8(r) & 1)
        s.table = (const float *)pool;
    if (s.table != NULL && s.table_size > POOL / 4)
        s.table_size = POOL / 4 + (take8(r) & 1); /* past the documented limit anyway */
    votecl_status status = votecl_vote_plan_new(ctx, &s, &plan);
    CHECK_NEW(status, plan);
    FUZZ_CHECK(status != VOTECL_OK); /* no OpenCL C on 'ref' */
    votecl_vote_plan_free(plan);
}
