/* The execution-time model file (votecl_model_load, docs/env.md) of a 'ref' context, read
 * from its cache directory. Properties: a file either loads or is "not calibrated"
 * (VOTECL_UNSUPPORTED, the model zeroed); a loaded model has finite, non-negative terms and
 * stores and loads again to the same values. */
#include "fuzz.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <votecl.h>

static votecl_context *context;
static char dir[64], path[4096];

static void
remove_dir(void)
{
    votecl_context_free(context);
    unlink(path);
    rmdir(dir);
}

static void
setup(void)
{
    const char *tmp = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    votecl_context_options o;

    snprintf(dir, sizeof dir, "%.30s/votecl-fuzz-XXXXXX", tmp);
    FUZZ_CHECK(mkdtemp(dir) != NULL);
    votecl_context_options_init(&o);
    o.backend = VOTECL_BACKEND_REF;
    o.cache_dir = dir;
    FUZZ_CHECK(votecl_context_new(&o, &context) == VOTECL_OK);
    FUZZ_CHECK(votecl_model_path(context, path, sizeof path) == VOTECL_OK);
    atexit(remove_dir);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    static const votecl_model zero;
    votecl_model model, again;
    FILE *f;

    if (!ready) {
        setup();
        ready = 1;
    }
    f = fopen(path, "wb");
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(fwrite(data, 1, size, f) == size);
    FUZZ_CHECK(fclose(f) == 0);
    votecl_status status = votecl_model_load(context, &model);
    if (status != VOTECL_OK) {
        FUZZ_CHECK(status == VOTECL_UNSUPPORTED);
        FUZZ_CHECK(memcmp(&model, &zero, sizeof model) == 0);
        return 0;
    }
    for (int v = 0; v < 4; v++)
        for (int t = 0; t < VOTECL_MODEL_NTERMS; t++)
            FUZZ_CHECK(isfinite(model.strategy[v].param[t]) && model.strategy[v].param[t] >= 0);
    FUZZ_CHECK(votecl_model_store(context, &model) == VOTECL_OK);
    FUZZ_CHECK(votecl_model_load(context, &again) == VOTECL_OK);
    for (int v = 0; v < 4; v++) {
        FUZZ_CHECK(again.strategy[v].fitted == model.strategy[v].fitted);
        FUZZ_CHECK(again.strategy[v].samples == model.strategy[v].samples);
        FUZZ_CHECK(memcmp(again.strategy[v].param, model.strategy[v].param,
                          sizeof model.strategy[v].param) == 0);
    }
    return 0;
}
