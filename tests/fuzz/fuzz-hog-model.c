/* The HOG SVM model loader (votecl_hog_model_load, docs/hog-model.md) on files of any
 * content. Properties: a failure returns a status (with a message on a context) and a NULL
 * model; a model that loads saves and loads again to the same weights and bias. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <votecl.h>

static votecl_context *context;
static char file[64], saved[80];

static void
remove_files(void)
{
    unlink(file);
    unlink(saved);
}

static int
setup(void)
{
    votecl_context_options o;
    const char *tmp = getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp";
    int fd;

    votecl_context_options_init(&o);
    o.backend = VOTECL_BACKEND_REF;
    o.disable_disk_cache = 1;
    if (votecl_context_new(&o, &context) != VOTECL_OK)
        return -1;
    snprintf(file, sizeof file, "%.30s/votecl-fuzz-XXXXXX", tmp);
    if ((fd = mkstemp(file)) < 0)
        return -1;
    close(fd);
    snprintf(saved, sizeof saved, "%s.saved", file);
    atexit(remove_files);
    return 0;
}

static void
write_file(const uint8_t *data, size_t size)
{
    FILE *f = fopen(file, "wb");
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(fwrite(data, 1, size, f) == size);
    FUZZ_CHECK(fclose(f) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    votecl_hog_model *model = (votecl_hog_model *)&model, *again = NULL;
    votecl_status status;

    if (!ready) {
        FUZZ_CHECK(setup() == 0);
        ready = 1;
    }
    write_file(data, size);
    /* Without a context: only a status. */
    status = votecl_hog_model_load(NULL, file, &model);
    FUZZ_CHECK((status == VOTECL_OK) == (model != NULL));
    votecl_hog_model_free(model);

    model = (votecl_hog_model *)&model;
    status = votecl_hog_model_load(context, file, &model);
    if (status != VOTECL_OK) {
        FUZZ_CHECK(model == NULL);
        FUZZ_CHECK(votecl_status_name(status) != NULL);
        FUZZ_CHECK(votecl_context_get_error(context)[0] != '\0');
        return 0;
    }
    FUZZ_CHECK(votecl_hog_model_save(context, model, saved) == VOTECL_OK);
    FUZZ_CHECK(votecl_hog_model_load(context, saved, &again) == VOTECL_OK);
    size_t n1, n2;
    const float *w1, *w2;
    float b1, b2;
    votecl_hog_model_get(model, &n1, &w1, &b1);
    votecl_hog_model_get(again, &n2, &w2, &b2);
    FUZZ_CHECK(n1 == n2 && b1 == b2 && memcmp(w1, w2, n1 * sizeof *w1) == 0);
    votecl_hog_model_free(again);
    votecl_hog_model_free(model);
    return 0;
}
