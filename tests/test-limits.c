/* The documented limits (include/votecl.h, "Limits"): one step beyond each, the call
 * returns VOTECL_INVALID_ARGUMENT with a message naming the field, before it reads a byte;
 * at the limit, where that is cheap, it works. On the 'ref' context: no device needed. */
#include "votecl-private.h"

#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static uint8_t pixels[4096] __attribute__((aligned(16)));

/* Views that describe no memory: refused by every call that takes a view. */
static void
test_image_views(void)
{
    votecl_hist_params p;
    votecl_hist_plan *plan = NULL;
    uint32_t bins[256];
    votecl_image v = {pixels, 16, 16, 16, 1, VOTECL_DTYPE_U8};

    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    g_assert_cmpint(votecl_hist_plan_new(tu_ref_context, &p, &plan), ==, VOTECL_OK);
    memset(bins, 0xA5, sizeof bins);
    /* stride below the row */
    v.stride = 15;
    tu_expect_invalid(tu_ref_context, votecl_hist_run_image(plan, &v, bins), "image.stride");
    /* row bytes overflow */
    v = (votecl_image){pixels, SIZE_MAX / 2 + 1, 1, 0, 1, VOTECL_DTYPE_U8};
    p.channels = 1;
    tu_expect_invalid(tu_ref_context, votecl_hist_run_image(plan, &v, bins), "image.width");
    /* width x height overflow, and more than 2^31 - 1 pixels */
    v = (votecl_image){pixels, SIZE_MAX / 4, 8, SIZE_MAX / 4, 1, VOTECL_DTYPE_U8};
    tu_expect_invalid(tu_ref_context, votecl_hist_run_image(plan, &v, bins), "image.height");
    v = (votecl_image){pixels, 65536, 32768, 65536, 1, VOTECL_DTYPE_U8};
    tu_expect_invalid(tu_ref_context, votecl_hist_run_image(plan, &v, bins), "image.width");
    /* the last row ends beyond the address space */
    v = (votecl_image){pixels, 16, 3, SIZE_MAX / 2, 1, VOTECL_DTYPE_U8};
    tu_expect_invalid(tu_ref_context, votecl_hist_run_image(plan, &v, bins), "image.stride");
    /* nothing was written */
    for (size_t i = 0; i < 256; i++)
        g_assert_cmpuint(bins[i], ==, 0xA5A5A5A5u);
    votecl_hist_plan_free(plan);
}

/* Histograms: a frame of more than 2^31 - 1 elements could wrap a u32 bin. */
static void
test_hist_elements(void)
{
    votecl_hist_params p;
    votecl_hist_plan *plan = NULL;
    uint32_t bins[256];

    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    g_assert_cmpint(votecl_hist_plan_new(tu_ref_context, &p, &plan), ==, VOTECL_OK);
    tu_expect_invalid(tu_ref_context,
                      votecl_hist_run(plan, pixels, NULL, NULL, (size_t)INT32_MAX + 1, bins), "n");
    tu_expect_invalid(tu_ref_context,
                      votecl_hist_run_batch(plan, pixels, NULL, NULL, 1u << 30, SIZE_MAX / 2, bins),
                      "frames");
    votecl_hist_plan_free(plan);
    /* bins */
    p.nbins[0] = VOTECL_HIST_MAX_BINS + 1;
    p.max[0] = 256;
    plan = (votecl_hist_plan *)&plan;
    tu_expect_invalid(tu_ref_context, votecl_hist_plan_new(tu_ref_context, &p, &plan), "nbins");
    g_assert_null(plan);
}

static void
test_vote_spaces(void)
{
    votecl_vote_spec s;
    votecl_vote_plan *plan = NULL;

    votecl_vote_spec_init(&s);
    s.spaces = 1u << 10;
    s.nbins = (VOTECL_VOTE_MAX_BINS >> 10) + 1;
    tu_expect_invalid(tu_ref_context, votecl_vote_plan_new(tu_ref_context, &s, &plan), "spaces");
    votecl_vote_spec_init(&s);
    s.table = (const float *)pixels;
    s.table_size = VOTECL_VOTE_MAX_TABLE + 1;
    tu_expect_invalid(tu_ref_context, votecl_vote_plan_new(tu_ref_context, &s, &plan),
                      "table_size");
    g_assert_null(plan);
}

static void
test_hough(void)
{
    votecl_hough_params p;
    votecl_hough_plan *plan = NULL;

    votecl_hough_params_init(&p);
    tu_expect_invalid(
        tu_ref_context,
        votecl_hough_plan_new(tu_ref_context, &p, VOTECL_HOUGH_MAX_SIDE + 1, 8, &plan), "width");
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, SIZE_MAX, 8, &plan),
                      "width");
    p.angles = VOTECL_HOUGH_MAX_ANGLES + 1;
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 64, 64, &plan),
                      "angles");
    votecl_hough_params_init(&p);
    p.angles = 4096;
    p.rho_bins = (VOTECL_VOTE_MAX_BINS >> 12) + 1;
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 64, 64, &plan),
                      "rho_bins");
    votecl_hough_params_init(&p);
    p.peak_window = VOTECL_HOUGH_MAX_WINDOW + 2;
    tu_expect_invalid(tu_ref_context, votecl_hough_plan_new(tu_ref_context, &p, 64, 64, &plan),
                      "peak_window");
    p.peak_window = VOTECL_HOUGH_MAX_WINDOW;
    g_assert_cmpint(votecl_hough_plan_new(tu_ref_context, &p, 64, 64, &plan), ==, VOTECL_OK);
    votecl_hough_plan_free(plan);
}

static void
test_lines(void)
{
    votecl_lines_params p;
    votecl_lines_plan *plan = NULL;

    votecl_lines_params_init(&p);
    tu_expect_invalid(
        tu_ref_context,
        votecl_lines_plan_new(tu_ref_context, &p, VOTECL_LINES_MAX_SIDE + 1, 8, &plan), "width");
    p.distance = VOTECL_LINES_MAX_DISTANCE + 1;
    tu_expect_invalid(tu_ref_context, votecl_lines_plan_new(tu_ref_context, &p, 64, 64, &plan),
                      "distance");
    /* 2d x V beyond 2^31 - 1 cells */
    p.distance = VOTECL_LINES_MAX_DISTANCE;
    p.rows = VOTECL_LINES_MAX_ROWS;
    tu_expect_invalid(tu_ref_context, votecl_lines_plan_new(tu_ref_context, &p, 64, 64, &plan),
                      "rows");
    /* a threshold beyond every gradient finds nothing, without overflow */
    votecl_lines_params_init(&p);
    p.edge_threshold = UINT32_MAX;
    g_assert_cmpint(votecl_lines_plan_new(tu_ref_context, &p, 64, 64, &plan), ==, VOTECL_OK);
    votecl_image v = {pixels, 64, 64, 64, 1, VOTECL_DTYPE_U8};
    size_t found = 1;
    g_assert_cmpint(votecl_lines_run(plan, &v, NULL, 0, &found), ==, VOTECL_OK);
    g_assert_cmpuint(found, ==, 0);
    votecl_lines_plan_free(plan);
}

static void
test_subsample_ght_hog(void)
{
    votecl_subsample_params sp;
    votecl_subsample_plan *splan = NULL;
    votecl_ght_params gp;
    votecl_ght_model *model = NULL;
    votecl_ght_edge edges[2] = {{1, 1, 1, 0}, {2, 2, 0, 1}};
    votecl_hog_params hp;
    votecl_hog *hog = NULL;

    votecl_subsample_params_init(&sp, VOTECL_SUBSAMPLE_MAX_SIDE + 1, 8, 2, VOTECL_DTYPE_U8);
    tu_expect_invalid(tu_ref_context, votecl_subsample_plan_new(tu_ref_context, &sp, &splan),
                      "width");
    votecl_ght_params_init(&gp, VOTECL_GHT_BALLARD);
    tu_expect_invalid(tu_ref_context,
                      votecl_ght_model_new_edges(tu_ref_context, &gp, edges, 2,
                                                 VOTECL_GHT_MAX_SIDE + 1, 8, 1, 1, &model),
                      "width");
    tu_expect_invalid(
        tu_ref_context,
        votecl_ght_model_new_edges(tu_ref_context, &gp, edges, 2, 8, 8, 1.0 / 0.0, 1, &model),
        "cx");
    gp.levels = VOTECL_GHT_MAX_LEVELS + 1;
    tu_expect_invalid(tu_ref_context,
                      votecl_ght_model_new_edges(tu_ref_context, &gp, edges, 2, 8, 8, 1, 1, &model),
                      "levels");
    votecl_ght_params_init(&gp, VOTECL_GHT_GUIL);
    gp.angle_epsilon = 0x80000000u; /* 2 eps + 1 wraps to 1 in 32-bit arithmetic */
    tu_expect_invalid(tu_ref_context,
                      votecl_ght_model_new_edges(tu_ref_context, &gp, edges, 2, 8, 8, 1, 1, &model),
                      "angle_epsilon");
    g_assert_null(model);
    votecl_hog_params_init(&hp);
    hp.window_width = VOTECL_HOG_MAX_SIDE + 8;
    tu_expect_invalid(tu_ref_context, votecl_hog_new(tu_ref_context, &hp, NULL, &hog),
                      "window_width");
    g_assert_null(hog);
}

/* More rotation steps than gradient levels (Guil): the rotation histogram once overran
 * a buffer sized by the levels. */
static void
test_ght_rotations(void)
{
    votecl_ght_params p;
    votecl_ght_model *model = NULL;
    votecl_ght_edge edges[64];
    votecl_ght_pose poses[4];
    size_t found = 0;

    for (int i = 0; i < 64; i++) {
        double a = i * 2 * 3.14159265358979 / 64;
        edges[i] =
            (votecl_ght_edge){(uint32_t)(20 + 12 * cos(a) + (i % 3)), (uint32_t)(20 + 8 * sin(a)),
                              (int32_t)(100 * cos(a)), (int32_t)(100 * sin(a)) + (i == 0)};
    }
    votecl_ght_params_init(&p, VOTECL_GHT_GUIL);
    p.levels = 16;
    p.angle_epsilon = 1;
    p.angle_step = 1; /* 360 rotations, 16 levels */
    p.min_scale = p.max_scale = 1;
    g_assert_cmpint(
        votecl_ght_model_new_edges(tu_ref_context, &p, edges, 64, 40, 40, 20, 20, &model), ==,
        VOTECL_OK);
    g_assert_cmpint(votecl_ght_detect_edges(model, edges, 64, 40, 40, poses, 4, &found), ==,
                    VOTECL_OK);
    votecl_ght_model_free(model);
}

/* Regressions of the parameter fuzzer's findings not covered above. */
static void
test_fuzz_findings(void)
{
    votecl_hog_params hp;
    votecl_hog *hog = NULL;
    votecl_hog_detection boxes[3], out[3];
    votecl_ght_params gp;
    votecl_ght_model *model = NULL;
    votecl_ght_edge edges[2] = {{1, 1, 1, 0}, {2, 2, 0, 1}};
    votecl_subsample_params sp;
    votecl_subsample_plan *splan = NULL;
    size_t found = 0;
    float means[4];

    /* HOG levels enlarged beyond the largest side by a tiny min_scale */
    votecl_hog_model *hm = NULL;
    size_t length = 0;
    votecl_hog_params_init(&hp);
    hp.min_scale = 1e-300;
    g_assert_cmpint(votecl_hog_descriptor_length(&hp, &length), ==, VOTECL_OK);
    float *weights = g_new0(float, length);
    g_assert_cmpint(votecl_hog_model_new(tu_ref_context, &hp, weights, length, 0, &hm), ==,
                    VOTECL_OK);
    g_assert_cmpint(votecl_hog_new(tu_ref_context, &hp, hm, &hog), ==, VOTECL_OK);
    votecl_hog_model_free(hm);
    g_free(weights);
    votecl_image v = {pixels, 64, 48, 64, 1, VOTECL_DTYPE_U8};
    tu_expect_invalid(tu_ref_context, votecl_hog_detect(hog, &v, NULL, 0, NULL, 0, &found),
                      "min_scale");
    votecl_hog_free(hog);
    /* fusion of boxes at the ends of int32_t */
    for (int i = 0; i < 3; i++)
        boxes[i] =
            (votecl_hog_detection){{INT32_MAX - i, INT32_MIN + i, INT32_MAX, INT32_MAX}, 1.0, 1.0};
    hp.fusion = VOTECL_HOG_FUSION_GROUP;
    hp.group_threshold = 0;
    g_assert_cmpint(votecl_hog_fuse(&hp, boxes, 3, out, 3, &found), ==, VOTECL_OK);
    /* a view without pixels and without data */
    votecl_ght_params_init(&gp, VOTECL_GHT_BALLARD);
    g_assert_cmpint(votecl_ght_model_new_edges(tu_ref_context, &gp, edges, 2, 8, 8, 4, 4, &model),
                    ==, VOTECL_OK);
    votecl_image empty = {NULL, 0, 5, 64, 1, VOTECL_DTYPE_U8};
    (void)votecl_ght_detect(model, &empty, NULL, 0, &found);
    votecl_ght_model_free(model);
    /* f32 rows at an odd byte stride in the sub-sampling reference */
    float rows[2][3] = {{1, 2, 3}, {4, 5, 6}};
    unsigned char *buffer = g_malloc(2 * 13 + 1);
    memcpy(buffer + 1, rows[0], 12);
    memcpy(buffer + 1 + 13, rows[1], 12);
    votecl_image f = {buffer + 1, 2, 2, 13, 1, VOTECL_DTYPE_F32};
    votecl_subsample_params_init(&sp, 2, 2, 2, VOTECL_DTYPE_F32);
    g_assert_cmpint(votecl_subsample_plan_new(tu_ref_context, &sp, &splan), ==, VOTECL_OK);
    g_assert_cmpint(votecl_subsample_run(splan, &f, means, 4), ==, VOTECL_OK);
    g_assert_cmpfloat(means[0], ==, (1 + 2 + 4 + 5) / 4.0f);
    votecl_subsample_plan_free(splan);
    g_free(buffer);
    /* one row whose stride would wrap the address space: nothing past the row is addressed
     * (the sum reference stepped its row pointer past the last row: UBSan) */
    uint8_t row[5] = {1, 2, 3, 4, 5};
    votecl_image one = {row, 5, 1, SIZE_MAX - 15, 1, VOTECL_DTYPE_U8};
    votecl_sum_params sump;
    votecl_sum_plan *sum_plan = NULL;
    double sum = 0;
    votecl_sum_params_init(&sump, VOTECL_DTYPE_U8);
    g_assert_cmpint(votecl_sum_plan_new(tu_ref_context, &sump, &sum_plan), ==, VOTECL_OK);
    g_assert_cmpint(votecl_sum_run_image(sum_plan, &one, &sum), ==, VOTECL_OK);
    g_assert_cmpfloat(sum, ==, 15.0);
    votecl_sum_plan_free(sum_plan);
}

/* Views whose stride is in bytes, not elements: f32 rows starting anywhere read right. */
static void
test_unaligned_rows(void)
{
    float values[3][5];
    unsigned char *buffer = g_malloc(3 * 21 + 4);
    votecl_sum_params p;
    votecl_sum_plan *plan = NULL;
    double sum = 0, want = 0;

    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++) {
            values[y][x] = (float)(y * 5 + x) + 0.5f;
            want += values[y][x];
            memcpy(buffer + 1 + y * 21 + x * 4, &values[y][x], 4);
        }
    votecl_image v = {buffer + 1, 5, 3, 21, 1, VOTECL_DTYPE_F32};
    votecl_sum_params_init(&p, VOTECL_DTYPE_F32);
    g_assert_cmpint(votecl_sum_plan_new(tu_ref_context, &p, &plan), ==, VOTECL_OK);
    g_assert_cmpint(votecl_sum_run_image(plan, &v, &sum), ==, VOTECL_OK);
    g_assert_cmpfloat(sum, ==, want);
    votecl_sum_plan_free(plan);
    g_free(buffer);
}

/* Sums of u8 data are exact beyond what one u32 bin holds. */
static void
test_sum_beyond_u32(void)
{
    size_t n = VOTECL_SUM_U8_RUN_MAX + 1000;
    uint8_t *data = g_malloc(n);
    votecl_sum_params p;
    votecl_sum_plan *plan = NULL;
    double sum = 0;

    memset(data, 255, n);
    votecl_sum_params_init(&p, VOTECL_DTYPE_U8);
    g_assert_cmpint(votecl_sum_plan_new(tu_ref_context, &p, &plan), ==, VOTECL_OK);
    g_assert_cmpint(votecl_sum_run(plan, data, n, &sum), ==, VOTECL_OK);
    g_assert_cmpfloat(sum, ==, 255.0 * (double)n);
    votecl_sum_plan_free(plan);
    g_free(data);
}

/* Issue 16, item 16: the API's odd corners. */
static void
test_api_corners(void)
{
    votecl_sum_params sp;
    votecl_sum_plan *plan = NULL;
    votecl_hough_params hp;
    votecl_hough_plan *hough = NULL;
    double sum = 0;

    votecl_calibrate_options_init(NULL); /* like the other _init functions: no crash */
    votecl_sum_params_init(&sp, VOTECL_DTYPE_U8);
    g_assert_cmpint(votecl_sum_plan_new(tu_ref_context, &sp, &plan), ==, VOTECL_OK);
    tu_expect_invalid(tu_ref_context, votecl_sum_run(plan, pixels, SIZE_MAX, &sum), "n");
    tu_expect_invalid(tu_ref_context, votecl_sum_run(plan, pixels, SIZE_MAX / 2 + 1, &sum), "n");
    votecl_sum_plan_free(plan);
    votecl_hough_params_init(&hp);
    /* each side allowed, the pixels not (2^31 - 1 at most) */
    tu_expect_invalid(tu_ref_context,
                      votecl_hough_plan_new(tu_ref_context, &hp, 65535, 65535, &hough), "width");
    g_assert_null(hough);
}

/* --- the disk cache's trust rules (docs/env.md), issue 16 items 9, 10, 11, 12, 13 --- */

static const uint8_t cache_key[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9};

static int
cache_loads(const char *dir)
{
    void *payload = NULL;
    size_t size = 0;
    int r = votecl__diskcache_load(dir, cache_key, &payload, &size);
    free(payload);
    return r == 0;
}

/* A directory with one entry for cache_key; caller frees (tu_rmtree, g_free). */
static char *
cache_with_entry(char **entry)
{
    char *dir = tu_mkdtemp();
    g_assert_cmpint(chmod(dir, 0700), ==, 0);
    g_assert_cmpint(votecl__diskcache_store(dir, cache_key, "payload", 7), ==, 0);
    g_assert_true(cache_loads(dir));
    *entry = votecl__diskcache_filename(dir, cache_key);
    return dir;
}

/* A uid that is not ours, for chown (only root can give a file away). */
static uid_t
other_uid(void)
{
    return geteuid() == 65534 ? 65533 : 65534;
}

static void
test_cache_owner(void)
{
    char *entry, *dir = cache_with_entry(&entry);

    /* group- or world-writable entry: anyone could have written it */
    g_assert_cmpint(chmod(entry, 0620), ==, 0);
    g_assert_false(cache_loads(dir));
    g_assert_cmpint(chmod(entry, 0602), ==, 0);
    g_assert_false(cache_loads(dir));
    g_assert_cmpint(chmod(entry, 0600), ==, 0);
    g_assert_true(cache_loads(dir));
    /* group- or world-writable directory: entries could be planted, nothing loads or stores */
    g_assert_cmpint(chmod(dir, 0770), ==, 0);
    g_assert_false(cache_loads(dir));
    g_assert_cmpint(votecl__diskcache_store(dir, cache_key, "payload", 7), ==, -1);
    g_assert_cmpint(chmod(dir, 0707), ==, 0);
    g_assert_false(cache_loads(dir));
    g_assert_cmpint(chmod(dir, 0700), ==, 0);
    g_assert_true(cache_loads(dir));
    /* an entry, then the directory, owned by another user (CI runs as root: chown works) */
    if (chown(entry, other_uid(), (gid_t)-1) == 0) {
        g_assert_false(cache_loads(dir));
        g_assert_cmpint(chown(entry, geteuid(), (gid_t)-1), ==, 0);
        g_assert_true(cache_loads(dir));
        g_assert_cmpint(chown(dir, other_uid(), (gid_t)-1), ==, 0);
        g_assert_false(cache_loads(dir));
        g_assert_cmpint(votecl__diskcache_store(dir, cache_key, "payload", 7), ==, -1);
        g_assert_cmpint(chown(dir, geteuid(), (gid_t)-1), ==, 0);
    } else {
        g_test_message("chown to uid %u refused (not root): ownership part not run",
                       (unsigned)other_uid());
    }
    free(entry);
    tu_rmtree(dir);
    g_free(dir);
}

static void
on_alarm(int sig)
{
    (void)sig;
    g_printerr("a cache load blocked\n");
    _exit(1);
}

static void
test_cache_fifo(void)
{
    char *entry, *dir = cache_with_entry(&entry);

    g_assert_cmpint(unlink(entry), ==, 0);
    g_assert_cmpint(mkfifo(entry, 0600), ==, 0);
    signal(SIGALRM, on_alarm);
    alarm(20); /* a blocking open() would wait forever */
    g_assert_false(cache_loads(dir));
    alarm(0);
    g_assert_cmpint(unlink(entry), ==, 0);
    g_assert_cmpint(symlink("/dev/zero", entry), ==, 0);
    g_assert_false(cache_loads(dir));
    free(entry);
    tu_rmtree(dir);
    g_free(dir);
}

/* The pid of a process that has exited (reaped). */
static long
dead_pid(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    g_assert_cmpint(pid, >, 0);
    g_assert_cmpint(waitpid(pid, NULL, 0), ==, pid);
    return (long)pid;
}

static void
touch(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
}

static void
test_cache_poisoned(void)
{
    char *entry, *dir = cache_with_entry(&entry);
    char marker[4096];
    size_t n = strlen(entry) - 4; /* without ".bin" */

    /* this process's own marker, or a live one's, is a load in progress: still a hit */
    votecl__diskcache_loading(dir, cache_key);
    g_assert_true(cache_loads(dir));
    votecl__diskcache_loaded(dir, cache_key);
    g_assert_cmpint(tu_count_entries(dir), ==, 1);
    snprintf(marker, sizeof marker, "%.*s.loading-%ld", (int)n, entry, (long)getppid());
    touch(marker);
    g_assert_true(cache_loads(dir));
    unlink(marker);
    /* a dead process's marker: it died in the driver on this entry, which goes */
    snprintf(marker, sizeof marker, "%.*s.loading-%ld", (int)n, entry, dead_pid());
    touch(marker);
    g_assert_false(cache_loads(dir));
    g_assert_cmpint(access(entry, F_OK), !=, 0);
    g_assert_cmpint(access(marker, F_OK), !=, 0);
    /* and the next store makes it again */
    g_assert_cmpint(votecl__diskcache_store(dir, cache_key, "payload", 7), ==, 0);
    g_assert_true(cache_loads(dir));
    free(entry);
    tu_rmtree(dir);
    g_free(dir);
}

static void
test_cache_stale_temporaries(void)
{
    char *entry, *dir = cache_with_entry(&entry);
    char dead[4096], live[4096];
    size_t n = strlen(dir);
    static const uint8_t other_key[32] = {9, 9, 9};

    snprintf(dead, sizeof dead, "%s/.tmp-%064d-%ld-AbCdEf", dir, 0, dead_pid());
    snprintf(live, sizeof live, "%s/.tmp-%064d-%ld-AbCdEf", dir, 0, (long)getppid());
    touch(dead);
    touch(live);
    g_assert_cmpint(votecl__diskcache_store(dir, other_key, "x", 1), ==, 0);
    g_assert_cmpint(access(dead, F_OK), !=, 0);  /* kill -9 during a store: cleaned */
    g_assert_cmpint(access(live, F_OK), ==, 0);  /* a store in progress elsewhere: kept */
    (void)n;
    free(entry);
    tu_rmtree(dir);
    g_free(dir);
}

static void
test_cache_relative_env(void)
{
    votecl_context_options o;
    votecl_context *c = NULL;
    const char *saved_home = g_getenv("HOME");
    char *home = g_strdup(saved_home);

    votecl_context_options_init(&o);
    o.backend = VOTECL_BACKEND_REF;
    g_setenv("VOTECL_CACHE_DIR", "relative-cache", TRUE);
    g_setenv("XDG_CACHE_HOME", "relative-xdg", TRUE);
    g_setenv("HOME", "/nonexistent-home", TRUE);
    g_assert_cmpint(votecl_context_new(&o, &c), ==, VOTECL_OK);
    /* neither relative value: the current directory is no place for code */
    g_assert_cmpstr(votecl_context_get_cache_dir(c), ==, "/nonexistent-home/.cache/votecl");
    votecl_context_free(c);
    g_setenv("XDG_CACHE_HOME", "/abs-xdg", TRUE);
    g_assert_cmpint(votecl_context_new(&o, &c), ==, VOTECL_OK);
    g_assert_cmpstr(votecl_context_get_cache_dir(c), ==, "/abs-xdg/votecl");
    votecl_context_free(c);
    g_unsetenv("VOTECL_CACHE_DIR");
    g_unsetenv("XDG_CACHE_HOME");
    if (home != NULL)
        g_setenv("HOME", home, TRUE);
    g_free(home);
}

/* HOG fusion takes at most its limit of windows (issue 16 item 8): one more is refused
 * before any quadratic work; three identical windows still fuse into one. */
static void
test_hog_fuse_limits(void)
{
    static const struct {
        votecl_hog_fusion fusion;
        size_t limit;
    } cases[] = {{VOTECL_HOG_FUSION_GROUP, VOTECL_HOG_MAX_GROUP_WINDOWS},
                 {VOTECL_HOG_FUSION_MEANSHIFT, VOTECL_HOG_MAX_MEANSHIFT_WINDOWS}};
    size_t n = VOTECL_HOG_MAX_GROUP_WINDOWS + 1;
    votecl_hog_detection *w = g_new0(votecl_hog_detection, n), out[4];
    votecl_hog_params p;
    size_t found = 99;

    for (size_t i = 0; i < n; i++) {
        votecl_hog_rect r = {10, 20, 64, 128};
        w[i].box = r;
        w[i].score = 1.0;
        w[i].scale = 1.0;
    }
    votecl_hog_params_init(&p);
    for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
        p.fusion = cases[c].fusion;
        g_assert_cmpint(votecl_hog_fuse(&p, w, cases[c].limit + 1, out, 4, &found), ==,
                        VOTECL_INVALID_ARGUMENT);
        /* a few fuse as ever (at the limit: seconds of quadratic work, left to tool-cli.sh) */
        g_assert_cmpint(votecl_hog_fuse(&p, w, 3, out, 4, &found), ==, VOTECL_OK);
        g_assert_cmpuint(found, ==, 1);
    }
    p.fusion = VOTECL_HOG_FUSION_NONE;
    g_assert_cmpint(votecl_hog_fuse(&p, w, n, out, 4, &found), ==, VOTECL_OK);
    g_assert_cmpuint(found, ==, n);
    g_free(w);
}

static const tu_test tests[] = {
    {TU_PATH, "/ref/limits/image-views", {test_image_views}},
    {TU_PATH, "/ref/limits/hist-elements", {test_hist_elements}},
    {TU_PATH, "/ref/limits/vote-spaces", {test_vote_spaces}},
    {TU_PATH, "/ref/limits/hough", {test_hough}},
    {TU_PATH, "/ref/limits/lines", {test_lines}},
    {TU_PATH, "/ref/limits/subsample-ght-hog", {test_subsample_ght_hog}},
    {TU_PATH, "/ref/limits/ght-rotations", {test_ght_rotations}},
    {TU_PATH, "/ref/limits/fuzz-findings", {test_fuzz_findings}},
    {TU_PATH, "/ref/limits/unaligned-rows", {test_unaligned_rows}},
    {TU_PATH, "/ref/limits/sum-beyond-u32", {test_sum_beyond_u32}},
    {TU_PATH, "/ref/limits/api-corners", {test_api_corners}},
    {TU_PATH, "/nodevice/limits/hog-fuse", {test_hog_fuse_limits}},
    {TU_PATH, "/nodevice/cache/owner", {test_cache_owner}},
    {TU_PATH, "/nodevice/cache/fifo", {test_cache_fifo}},
    {TU_PATH, "/nodevice/cache/poisoned", {test_cache_poisoned}},
    {TU_PATH, "/nodevice/cache/stale-temporaries", {test_cache_stale_temporaries}},
    {TU_PATH, "/nodevice/cache/relative-env", {test_cache_relative_env}},
};

int
main(int argc, char **argv)
{
    return TU_MAIN(tests, TU_NONFATAL);
}
