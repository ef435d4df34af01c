/* Tests that need no device: status strings, kernel lookup, the disk cache (round trip,
 * corruption, concurrent writers), the stretching arithmetic of GPU-vote, SHA-256, and the
 * validation of bad input through the reference backend. */
#include "votecl-private.h"
#include "vote-private.h"
#include "parallel.h"

#include "testutil.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* --- status strings --- */

#define STATUS_VALUE(name, value, text) name,
#define STATUS_NAME(name, value, text) #name,
static const votecl_status all_statuses[] = {VOTECL_STATUS_LIST(STATUS_VALUE)};
static const char *const all_status_names[] = {VOTECL_STATUS_LIST(STATUS_NAME)};
#define NSTATUS (sizeof all_statuses / sizeof all_statuses[0])

static void
test_status_strings(void)
{
    for (size_t i = 0; i < NSTATUS; i++) {
        const char *text = votecl_status_string(all_statuses[i]);
        const char *name = votecl_status_name(all_statuses[i]);
        g_assert_nonnull(text);
        g_assert_cmpuint(strlen(text), >, 0);
        g_assert_cmpstr(name, ==, all_status_names[i]);
        for (size_t j = 0; j < i; j++) {
            g_assert_cmpint(all_statuses[i], !=, all_statuses[j]);
            g_assert_cmpstr(text, !=, votecl_status_string(all_statuses[j]));
            g_assert_cmpstr(name, !=, votecl_status_name(all_statuses[j]));
        }
    }
    /* Pinned values: a code keeps its number forever. */
    g_assert_cmpint(VOTECL_OK, ==, 0);
    g_assert_cmpint(VOTECL_INVALID_ARGUMENT, ==, 1);
    g_assert_cmpint(VOTECL_BUILD_FAILED, ==, 7);

    const votecl_status unknown[] = {(votecl_status)-1, (votecl_status)1000,
                                     (votecl_status)(all_statuses[NSTATUS - 1] + 1)};
    for (size_t i = 0; i < G_N_ELEMENTS(unknown); i++) {
        const char *text = votecl_status_string(unknown[i]);
        g_assert_nonnull(text);
        g_assert_cmpuint(strlen(text), >, 0);
        g_assert_null(votecl_status_name(unknown[i]));
    }
}

static void
test_names(void)
{
    g_assert_cmpstr(votecl_variant_name(VOTECL_VARIANT_AUTO), ==, "auto");
    g_assert_cmpstr(votecl_variant_name(VOTECL_VARIANT_LOCAL), ==, "local");
    g_assert_cmpstr(votecl_variant_name(VOTECL_VARIANT_GLOBAL), ==, "global");
    g_assert_cmpstr(votecl_variant_name(VOTECL_VARIANT_PRIVATE), ==, "private");
    g_assert_null(votecl_variant_name((votecl_variant)99));
    g_assert_cmpstr(votecl_backend_name(VOTECL_BACKEND_OPENCL), ==, "opencl");
    g_assert_cmpstr(votecl_backend_name(VOTECL_BACKEND_CUDA), ==, "cuda");
    g_assert_cmpstr(votecl_backend_name(VOTECL_BACKEND_REF), ==, "ref");
    g_assert_null(votecl_backend_name((votecl_backend)99));
    g_assert_true(votecl_backend_is_built(VOTECL_BACKEND_REF));
    g_assert_true(votecl_backend_is_built(VOTECL_BACKEND_OPENCL));
}

/* --- SHA-256 --- */

static char *
sha256_hex_of(const void *data, size_t size, size_t chunk)
{
    votecl__sha256 h;
    votecl__sha256_init(&h);
    const uint8_t *p = data;
    for (size_t done = 0; done < size;) {
        size_t n = chunk == 0 || size - done < chunk ? size - done : chunk;
        votecl__sha256_update(&h, p + done, n);
        done += n;
    }
    uint8_t digest[32];
    char hex[65];
    votecl__sha256_final(&h, digest);
    votecl__sha256_hex(digest, hex);
    return g_strdup(hex);
}

static void
test_sha256_vectors(void)
{
    /* FIPS 180-2 appendix B and the NIST examples. */
    static const struct {
        const char *text;
        const char *hex;
    } vectors[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
         "klmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(vectors); i++) {
        size_t len = strlen(vectors[i].text);
        for (size_t chunk = 0; chunk < 4; chunk++) {
            char *hex = sha256_hex_of(vectors[i].text, len, chunk);
            g_assert_cmpstr(hex, ==, vectors[i].hex);
            g_free(hex);
        }
    }

    size_t million = 1000000;
    char *a = g_malloc(million);
    memset(a, 'a', million);
    const char *expected = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
    size_t chunks[] = {0, 1, 63, 64, 65, 1000};
    for (size_t i = 0; i < G_N_ELEMENTS(chunks); i++) {
        char *hex = sha256_hex_of(a, million, chunks[i]);
        g_assert_cmpstr(hex, ==, expected);
        g_free(hex);
    }
    g_free(a);
}

/* Every length around the block and padding boundaries, in several chunkings, against
 * GLib's independent implementation. */
static void
test_sha256_lengths(void)
{
    uint8_t data[300];
    tu_rng rng;
    tu_rng_init(&rng, 256);
    tu_fill_u8(&rng, data, sizeof data);
    for (size_t len = 0; len <= sizeof data; len++) {
        char *want = g_compute_checksum_for_data(G_CHECKSUM_SHA256, data, len);
        size_t chunks[] = {0, 1, 7, 55, 56, 64};
        for (size_t c = 0; c < G_N_ELEMENTS(chunks); c++) {
            char *got = sha256_hex_of(data, len, chunks[c]);
            g_assert_cmpstr(got, ==, want);
            g_free(got);
        }
        g_free(want);
    }
}

/* --- GPU-vote stretching (Eq. 3 and 5) --- */

static void
check_stretch(uint64_t nmax, uint64_t n, unsigned want_s, unsigned want_sp)
{
    unsigned s = 0, sp = 0;
    votecl__stretch_factors(nmax, n, &s, &sp);
    if (s != want_s || sp != want_sp)
        g_test_message("Nmax %" G_GUINT64_FORMAT " N %" G_GUINT64_FORMAT ": S %u S' %u, want %u %u",
                       nmax, n, s, sp, want_s, want_sp);
    g_assert_cmpuint(s, ==, want_s);
    g_assert_cmpuint(sp, ==, want_sp);
}

static void
test_stretch_gtx470(void)
{
    /* The paper's GTX 470: 48 KiB of shared memory = 12288 32-bit bins. */
    const uint64_t nmax = 12288;
    check_stretch(nmax, 32, 384, 383);
    check_stretch(nmax, 64, 192, 191);
    check_stretch(nmax, 256, 48, 48);
    check_stretch(nmax, 4200, 2, 2);
    /* Around S = 64, where S' becomes odd. */
    check_stretch(nmax, 195, 63, 63);
    check_stretch(nmax, 192, 64, 63);
    check_stretch(nmax, 189, 65, 65);
    /* N = Nmax and N > Nmax: one copy. */
    check_stretch(nmax, 12288, 1, 1);
    check_stretch(nmax, 12289, 1, 1);
    check_stretch(nmax, 100000, 1, 1);
    check_stretch(nmax, (uint64_t)1 << 24, 1, 1);
    /* N = 1 on PoCL's 1 MiB of local memory. */
    check_stretch(262144, 1, 262144, 262143);
}

/* The GPU-vote paper's figures on its GTX 470 profile, through the plan's arithmetic
 * (votecl__vote_configure on a context holding the profile's facts) and the model's. */
static votecl__vote_config
configure_on(votecl_context *context, uint64_t nbins, unsigned spaces, unsigned stretch_cap,
             unsigned wg)
{
    votecl__vote_shape shape = {.nbins = nbins, .spaces = spaces, .vec = 1, .elem_bytes = 1};
    votecl__vote_config cfg;
    g_assert_cmpint(votecl__vote_configure(context, VOTECL_VARIANT_LOCAL, stretch_cap, wg, &shape,
                                           &cfg),
                    ==, VOTECL_OK);
    return cfg;
}

static void
test_gtx470_paper(void)
{
    votecl__device_profile gtx;
    votecl__device_profile_gtx470(&gtx);
    g_assert_cmpuint(gtx.info.compute_units, ==, 14);
    g_assert_cmpuint(gtx.info.local_mem_bytes, ==, 48 * 1024);
    g_assert_cmpuint(gtx.info.preferred_work_group_multiple, ==, 32);
    g_assert_cmpuint(gtx.banks, ==, 32);
    g_assert_cmpuint(gtx.threads_per_unit, ==, 1536);
    g_assert_cmpuint(gtx.groups_per_unit, ==, 8);

    votecl_context *context = tu_ref_context_new();
    if (context == NULL)
        return;
    context->info = gtx.info;
    votecl__shape_resolve(NULL, VOTECL__FEATURES_ALL, &context->info, &context->shape);
    g_assert_false(context->shape.cpu);
    g_assert_cmpuint(context->shape.banks, ==, gtx.banks);
    /* Section 3.2: 48 kB of on-chip memory hold Nmax = 12,288 32-bit bins. */
    votecl__vote_config cfg = configure_on(context, 32, 1, UINT_MAX, 1024);
    g_assert_cmpuint(cfg.nmax, ==, 12288);
    /* Fig. 2b: the 32-bin histogram at 1024 threads, S = 384 (Eq. 3) and S' = 383 (Eq. 5). */
    g_assert_cmpuint(cfg.stretch_s, ==, 384);
    g_assert_cmpuint(cfg.stretch, ==, 383);
    g_assert_cmpuint(cfg.passes, ==, 1);
    /* Left to itself the plan takes the measured S' = the bank count (lib/vote.c). */
    cfg = configure_on(context, 32, 1, 0, 1024);
    g_assert_cmpuint(cfg.stretch, ==, gtx.banks);
    /* Section 3.3: at 128 threads, S = 192 leaves on-chip memory for two parts per SM, S = 193
     * for one; 1024 threads of 1536 leave room for one block whatever S. */
    g_assert_cmpuint(votecl__profile_resident_groups(&gtx, 128, 32 * 192 * 4), ==, 2);
    g_assert_cmpuint(votecl__profile_resident_groups(&gtx, 128, 32 * 193 * 4), ==, 1);
    g_assert_cmpuint(votecl__profile_resident_groups(&gtx, 128, 0), ==, 8);
    g_assert_cmpuint(votecl__profile_resident_groups(&gtx, 1024, 32 * 383 * 4), ==, 1);
    g_assert_cmpuint(votecl__profile_resident_groups(&gtx, 2048, 4), ==, 0);
    /* Section 5: the Hough transform of 64 angles x 4200 bins: S = S' = 2 in one pass;
     * Eq. 8 gives P = max(floor(14 / 64), 1) = 1 and Eq. 9 F = ceil(64 / 14) = 5. */
    cfg = configure_on(context, 4200, 64, UINT_MAX, 256);
    g_assert_cmpuint(cfg.stretch_s, ==, 2);
    g_assert_cmpuint(cfg.stretch, ==, 2);
    g_assert_cmpuint(cfg.passes, ==, 1);
    g_assert_cmpfloat(votecl_model_factor(64, cfg.passes, 1, gtx.info.compute_units), ==, 5.0);
    /* A 256-bin histogram: S = S' = 48; one space splits into P = 14 parts, F = 1 / 14. */
    cfg = configure_on(context, 256, 1, UINT_MAX, 256);
    g_assert_cmpuint(cfg.stretch, ==, 48);
    g_assert_cmpfloat_with_epsilon(votecl_model_factor(1, 1, 14, 14), 1.0 / 14, 1e-12);
    /* N > Nmax: ceil(N / Nmax) passes, which Eq. 9 multiplies with G. */
    cfg = configure_on(context, 4 * 12288 + 1, 64, UINT_MAX, 256);
    g_assert_cmpuint(cfg.passes, ==, 5);
    g_assert_cmpuint(cfg.stretch, ==, 1);
    g_assert_cmpfloat(votecl_model_factor(64, cfg.passes, 1, 14), ==, 23.0);
    votecl_context_free(context);
}

static void
test_stretch_properties(void)
{
    for (uint64_t nmax = 1000; nmax <= 262144; nmax *= 4) {
        for (uint64_t n = 1; n <= nmax * 2; n = n * 3 / 2 + 1) {
            unsigned s, sp;
            votecl__stretch_factors(nmax, n, &s, &sp);
            uint64_t want_s = nmax / n > 1 ? nmax / n : 1;
            g_assert_cmpuint(s, ==, want_s);
            g_assert_cmpuint(sp, <=, s);
            g_assert_cmpuint(sp, >=, 1);
            if (s >= 64) {
                g_assert_cmpuint(sp % 2, ==, 1);
                g_assert_cmpuint(sp, >=, s - 1);
            } else {
                g_assert_cmpuint(sp, ==, s);
            }
            /* The stretched bins fit in local memory. */
            if (n <= nmax)
                g_assert_cmpuint((uint64_t)sp * n, <=, nmax);
        }
    }
}

/* --- kernel path --- */

static char *
make_file(const char *dir, const char *name, const char *content)
{
    char *path = g_build_filename(dir, name, NULL);
    g_assert_true(g_file_set_contents(path, content, -1, NULL));
    g_assert_cmpint(g_chmod(path, 0644), ==, 0); /* whatever the umask: trusted */
    return path;
}

static void
test_kernel_path_join(void)
{
    char *p = votecl__kernel_path_join("/e1:/e2", "/o1", "/inst");
    g_assert_cmpstr(p, ==, "/e1:/e2:/o1:/inst");
    free(p);
    p = votecl__kernel_path_join(NULL, NULL, "/inst");
    g_assert_cmpstr(p, ==, "/inst");
    free(p);
    /* Empty entries are dropped. */
    p = votecl__kernel_path_join(":/e1::/e2:", "", "/inst");
    g_assert_cmpstr(p, ==, "/e1:/e2:/inst");
    free(p);
    p = votecl__kernel_path_join(NULL, "/o1", NULL);
    g_assert_cmpstr(p, ==, "/o1");
    free(p);
    p = votecl__kernel_path_join(NULL, NULL, NULL);
    g_assert_cmpstr(p, ==, "");
    free(p);
}

static void
expect_found(const char *path, const char *file, const char *want)
{
    char *found = NULL;
    votecl_status status = votecl__kernel_path_find(path, file, &found);
    g_assert_cmpint(status, ==, VOTECL_OK);
    g_assert_cmpstr(found, ==, want);
    free(found);
}

static void
expect_not_found(const char *path, const char *file)
{
    char *found = (char *)"x";
    votecl_status status = votecl__kernel_path_find(path, file, &found);
    g_assert_cmpint(status, ==, VOTECL_KERNEL_NOT_FOUND);
    g_assert_null(found);
}

/* Group write is refused in a group another user may belong to, and accepted in the user's
 * private group (umask 002 checkouts): a file moved to a group that is not the user's
 * primary one (root may take any; others one of their supplementary groups) is refused;
 * back in a primary group that lists no other member, it is found. */
static void
expect_group_write(const char *file, const char *path)
{
    struct passwd *pw = getpwuid(geteuid());
    struct group *gr = pw != NULL ? getgrgid(pw->pw_gid) : NULL;
    gid_t other = geteuid() == 0 ? (pw != NULL && pw->pw_gid == 1 ? 2 : 1) : (gid_t)-1;
    gid_t groups[64];
    int n = getgroups(64, groups);

    g_assert_nonnull(pw);
    for (int i = 0; other == (gid_t)-1 && i < n; i++)
        if (groups[i] != pw->pw_gid)
            other = groups[i];
    g_assert_cmpint(g_chmod(file, 0664), ==, 0);
    if (other != (gid_t)-1) {
        g_assert_cmpint(chown(file, (uid_t)-1, other), ==, 0);
        expect_not_found(path, "k.cl");
    }
    g_assert_cmpint(chown(file, (uid_t)-1, pw->pw_gid), ==, 0);
    if (gr != NULL && (gr->gr_mem[0] == NULL ||
                       (strcmp(gr->gr_mem[0], pw->pw_name) == 0 && gr->gr_mem[1] == NULL)))
        expect_found(path, "k.cl", file);
    else
        expect_not_found(path, "k.cl");
    g_assert_cmpint(g_chmod(file, 0644), ==, 0);
}

/* Kernel files are code: one that another user could change is refused, not skipped for a
 * later directory (issue 28 item 10): a file others may write (group write only outside the
 * user's private group), or one below a
 * directory writable by others without the sticky bit. */
static void
test_kernel_path_untrusted(void)
{
    char *root = tu_mkdtemp();
    char *env = g_build_filename(root, "env", NULL);
    char *inst = g_build_filename(root, "inst", NULL);
    g_mkdir(env, 0700);
    g_mkdir(inst, 0700);
    char *path = votecl__kernel_path_join(env, NULL, inst);
    char *in_env = make_file(env, "k.cl", "env");
    char *in_inst = make_file(inst, "k.cl", "inst");
    char *named;

    expect_found(path, "k.cl", in_env);
    g_assert_null(votecl__kernel_path_untrusted(path, "k.cl"));
    g_assert_cmpint(g_chmod(in_env, 0646), ==, 0);
    expect_not_found(path, "k.cl");
    named = votecl__kernel_path_untrusted(path, "k.cl");
    g_assert_cmpstr(named, ==, in_env);
    free(named);
    expect_group_write(in_env, path);
    g_assert_cmpint(g_chmod(in_env, 0644), ==, 0);
    g_assert_cmpint(g_chmod(env, 0777), ==, 0); /* its directory: anyone may replace it */
    expect_not_found(path, "k.cl");
    g_assert_cmpint(g_chmod(env, 01777), ==, 0); /* sticky, but the file's own directory */
    expect_found(path, "k.cl", in_env);
    g_assert_cmpint(g_chmod(env, 0700), ==, 0);
    expect_found(path, "k.cl", in_env);

    free(path);
    g_free(in_env);
    g_free(in_inst);
    g_free(env);
    g_free(inst);
    tu_rmtree(root);
    g_free(root);
}

static void
test_kernel_path_order(void)
{
    char *root = tu_mkdtemp();
    char *env = g_build_filename(root, "env", NULL);
    char *opt = g_build_filename(root, "opt", NULL);
    char *inst = g_build_filename(root, "inst", NULL);
    g_mkdir(env, 0700);
    g_mkdir(opt, 0700);
    g_mkdir(inst, 0700);

    char *path = votecl__kernel_path_join(env, opt, inst);
    char *want = g_strjoin(":", env, opt, inst, NULL);
    g_assert_cmpstr(path, ==, want);

    expect_not_found(path, "k.cl");
    char *in_inst = make_file(inst, "k.cl", "inst");
    expect_found(path, "k.cl", in_inst);
    char *in_opt = make_file(opt, "k.cl", "opt");
    expect_found(path, "k.cl", in_opt);
    char *in_env = make_file(env, "k.cl", "env");
    expect_found(path, "k.cl", in_env);
    /* A directory of the wanted name is not a kernel. */
    char *subdir = g_build_filename(env, "d.cl", NULL);
    g_mkdir(subdir, 0700);
    char *d_inst = make_file(inst, "d.cl", "inst");
    expect_found(path, "d.cl", d_inst);

    /* A trailing slash on a directory does not double. */
    char *slashed = g_strconcat(opt, "/", NULL);
    expect_found(slashed, "k.cl", in_opt);

    /* The environment entry comes first, also when given as a list. */
    char *env_list = g_strconcat(root, "/missing:", env, NULL);
    char *path2 = votecl__kernel_path_join(env_list, opt, inst);
    expect_found(path2, "k.cl", in_env);

    expect_not_found(path, "");
    expect_not_found("", "k.cl");

    free(path);
    free(path2);
    g_free(want);
    g_free(env_list);
    g_free(slashed);
    g_free(in_inst);
    g_free(in_opt);
    g_free(in_env);
    g_free(subdir);
    g_free(d_inst);
    tu_rmtree(root);
    g_free(env);
    g_free(opt);
    g_free(inst);
    g_free(root);
}

/* Relative entries and the current directory are never searched, even when they have the
 * file. */
static void
test_kernel_path_no_cwd(void)
{
    char *root = tu_mkdtemp();
    char *old_cwd = g_get_current_dir();
    g_assert_cmpint(g_chdir(root), ==, 0);

    g_assert_true(g_file_set_contents("cwd.cl", "cwd", -1, NULL));
    g_mkdir("rel", 0700);
    g_assert_true(g_file_set_contents("rel/cwd.cl", "rel", -1, NULL));

    expect_not_found(".", "cwd.cl");
    expect_not_found("./", "cwd.cl");
    expect_not_found("rel", "cwd.cl");
    expect_not_found("./rel:rel:.:", "cwd.cl");
    char *path = votecl__kernel_path_join(".:rel", "rel", NULL);
    expect_not_found(path, "cwd.cl");
    free(path);
    /* An absolute entry after the relative ones is still found. */
    char *want = g_build_filename(root, "cwd.cl", NULL);
    char *list = g_strconcat(".:rel:", root, NULL);
    expect_found(list, "cwd.cl", want);
    g_free(list);
    g_free(want);

    g_assert_cmpint(g_chdir(old_cwd), ==, 0);
    g_free(old_cwd);
    tu_rmtree(root);
    g_free(root);
}

/* Through a context: VOTECL_KERNEL_PATH first, then the option, then the installed
 * directory. */
static void
test_kernel_path_context(void)
{
    char *saved = tu_env_set("VOTECL_KERNEL_PATH", "/e1:/e2");
    votecl_context_options options;
    votecl_context_options_init(&options);
    options.backend = VOTECL_BACKEND_REF;
    options.kernel_path = "/o1";
    votecl_context *context = NULL;
    votecl_status status = votecl_context_new(&options, &context);
    tu_env_restore("VOTECL_KERNEL_PATH", saved);
    g_assert_cmpint(status, ==, VOTECL_OK);
    if (context == NULL)
        return;
    const char *path = votecl_context_get_kernel_path(context);
    g_assert_nonnull(path);
    g_test_message("kernel path: %s", path);
    g_assert_true(g_str_has_prefix(path, "/e1:/e2:/o1:"));
    g_assert_true(g_str_has_suffix(path, VOTECL_KERNELDIR));
    votecl_context_free(context);
}

/* --- disk cache --- */

static void
make_key(uint8_t key[32], unsigned id)
{
    char text[32];
    snprintf(text, sizeof text, "key %u", id);
    votecl__sha256 h;
    votecl__sha256_init(&h);
    votecl__sha256_update(&h, text, strlen(text));
    votecl__sha256_final(&h, key);
}

/* Payloads of varied sizes whose bytes depend on the key, so a torn or mixed file shows. */
static size_t
payload_size(unsigned id)
{
    return 1 + (size_t)id * 7919 % 65536;
}

static uint8_t *
make_payload(unsigned id, size_t *size)
{
    *size = payload_size(id);
    uint8_t *p = g_malloc(*size);
    tu_rng rng;
    tu_rng_init(&rng, 1000 + id);
    tu_fill_u8(&rng, p, *size);
    return p;
}

static int
payload_ok(unsigned id, const void *payload, size_t size)
{
    size_t want_size;
    uint8_t *want = make_payload(id, &want_size);
    int ok = size == want_size && memcmp(payload, want, size) == 0;
    g_free(want);
    return ok;
}

static void
store_id(const char *dir, unsigned id)
{
    uint8_t key[32];
    size_t size;
    make_key(key, id);
    uint8_t *payload = make_payload(id, &size);
    g_assert_cmpint(votecl__diskcache_store(dir, key, payload, size), ==, 0);
    g_free(payload);
}

static int
load_id(const char *dir, unsigned id)
{
    uint8_t key[32];
    make_key(key, id);
    void *payload = NULL;
    size_t size = 0;
    if (votecl__diskcache_load(dir, key, &payload, &size) != 0) {
        g_assert_null(payload);
        return -1;
    }
    int ok = payload_ok(id, payload, size);
    free(payload);
    return ok ? 0 : 1;
}

static void
test_cache_round_trip(void)
{
    char *dir = tu_mkdtemp();
    /* A nested directory that does not exist yet is created. */
    char *sub = g_build_filename(dir, "a", "b", NULL);

    g_assert_cmpint(load_id(sub, 1), ==, -1);
    for (unsigned id = 0; id < 20; id++)
        store_id(sub, id);
    for (unsigned id = 0; id < 20; id++)
        g_assert_cmpint(load_id(sub, id), ==, 0);
    g_assert_cmpint(load_id(sub, 20), ==, -1);
    g_assert_cmpint(tu_count_entries(sub), ==, 20);

    /* One file per key, named by votecl__diskcache_filename. */
    uint8_t key[32];
    make_key(key, 3);
    char *name = votecl__diskcache_filename(sub, key);
    g_assert_true(g_str_has_prefix(name, sub));
    g_assert_true(g_file_test(name, G_FILE_TEST_IS_REGULAR));
    free(name);

    /* Storing again replaces the entry. */
    size_t size;
    uint8_t *other = make_payload(7, &size);
    g_assert_cmpint(votecl__diskcache_store(sub, key, other, size), ==, 0);
    void *got = NULL;
    size_t got_size = 0;
    g_assert_cmpint(votecl__diskcache_load(sub, key, &got, &got_size), ==, 0);
    g_assert_cmpuint(got_size, ==, size);
    g_assert_cmpmem(got, got_size, other, size);
    free(got);
    g_free(other);
    g_assert_cmpint(tu_count_entries(sub), ==, 20);

    tu_rmtree(dir);
    g_free(sub);
    g_free(dir);
}

static void
test_cache_unusable_dir(void)
{
    char *dir = tu_mkdtemp();
    uint8_t key[32];
    make_key(key, 1);
    void *payload = (void *)1;
    size_t size = 1;

    g_assert_cmpint(votecl__diskcache_load("/nonexistent-votecl-dir", key, &payload, &size), ==,
                    -1);
    g_assert_null(payload);

    /* A directory below a regular file cannot be made: the store fails cleanly. */
    char *file = make_file(dir, "file", "x");
    char *below = g_build_filename(file, "cache", NULL);
    g_assert_cmpint(votecl__diskcache_store(below, key, "abc", 3), ==, -1);
    g_assert_cmpint(votecl__diskcache_load(below, key, &payload, &size), ==, -1);
    g_assert_cmpint(votecl__diskcache_store(file, key, "abc", 3), ==, -1);
    g_assert_cmpint(tu_count_entries(dir), ==, 1);

    tu_rmtree(dir);
    g_free(file);
    g_free(below);
    g_free(dir);
}

typedef enum corruption {
    FLIP_LAST_BYTE,
    FLIP_MIDDLE_OF_PAYLOAD,
    TRUNCATE_ONE,
    TRUNCATE_TO_PAYLOAD_START,
    TRUNCATE_EMPTY,
    APPEND_BYTE,
    WRONG_MAGIC,
    WRONG_VERSION_BYTE,
} corruption;

static void
corrupt_and_check(const char *dir, corruption how)
{
    const unsigned id = 5;
    store_id(dir, id);
    g_assert_cmpint(load_id(dir, id), ==, 0);

    uint8_t key[32];
    make_key(key, id);
    char *name = votecl__diskcache_filename(dir, key);
    char *contents = NULL;
    gsize length = 0;
    g_assert_true(g_file_get_contents(name, &contents, &length, NULL));
    size_t psize = payload_size(id);
    g_assert_cmpuint(length, >, psize);
    size_t header = length - psize;

    switch (how) {
    case FLIP_LAST_BYTE:
        contents[length - 1] ^= 0x01;
        break;
    case FLIP_MIDDLE_OF_PAYLOAD:
        contents[header + psize / 2] ^= 0x80;
        break;
    case TRUNCATE_ONE:
        length -= 1;
        break;
    case TRUNCATE_TO_PAYLOAD_START:
        length = header;
        break;
    case TRUNCATE_EMPTY:
        length = 0;
        break;
    case APPEND_BYTE:
        contents = g_realloc(contents, length + 1);
        contents[length++] = 0;
        break;
    case WRONG_MAGIC:
        contents[0] ^= 0x20;
        break;
    case WRONG_VERSION_BYTE:
        contents[8] ^= 0x7f;
        break;
    }
    g_assert_true(g_file_set_contents(name, contents, (gssize)length, NULL));
    g_assert_cmpint(load_id(dir, id), ==, -1);

    /* A new store repairs the entry. */
    store_id(dir, id);
    g_assert_cmpint(load_id(dir, id), ==, 0);
    g_free(contents);
    free(name);
}

static void
test_cache_corrupt(void)
{
    char *dir = tu_mkdtemp();
    const corruption all[] = {FLIP_LAST_BYTE, FLIP_MIDDLE_OF_PAYLOAD,
                              TRUNCATE_ONE,   TRUNCATE_TO_PAYLOAD_START,
                              TRUNCATE_EMPTY, APPEND_BYTE,
                              WRONG_MAGIC,    WRONG_VERSION_BYTE};
    for (size_t i = 0; i < G_N_ELEMENTS(all); i++) {
        g_test_message("corruption %zu", i);
        corrupt_and_check(dir, all[i]);
    }
    tu_rmtree(dir);
    g_free(dir);
}

/* A valid entry for key A placed under key B's name is a miss for B. */
static void
test_cache_mismatched_key(void)
{
    char *dir = tu_mkdtemp();
    store_id(dir, 1);
    uint8_t key1[32], key2[32];
    make_key(key1, 1);
    make_key(key2, 2);
    char *name1 = votecl__diskcache_filename(dir, key1);
    char *name2 = votecl__diskcache_filename(dir, key2);
    g_assert_cmpstr(name1, !=, name2);
    char *contents = NULL;
    gsize length = 0;
    g_assert_true(g_file_get_contents(name1, &contents, &length, NULL));
    g_assert_true(g_file_set_contents(name2, contents, (gssize)length, NULL));

    void *payload = NULL;
    size_t size = 0;
    g_assert_cmpint(votecl__diskcache_load(dir, key2, &payload, &size), ==, -1);
    g_assert_null(payload);
    g_assert_cmpint(load_id(dir, 1), ==, 0);

    g_free(contents);
    free(name1);
    free(name2);
    tu_rmtree(dir);
    g_free(dir);
}

/* Writers of the same and of different keys at once: every load is either a miss or the
 * whole right payload, and afterwards every entry is whole and no temporary file is left. */
#define SHARED_KEYS 6
#define OWN_KEYS 3
#define WRITERS 4
#define ROUNDS 60

static int
hammer_cache(const char *dir, unsigned writer)
{
    int bad = 0;
    for (unsigned round = 0; round < ROUNDS; round++) {
        for (unsigned k = 0; k < SHARED_KEYS + OWN_KEYS; k++) {
            unsigned id = k < SHARED_KEYS ? k : 100 + writer * OWN_KEYS + (k - SHARED_KEYS);
            uint8_t key[32];
            make_key(key, id);
            size_t size;
            uint8_t *payload = make_payload(id, &size);
            if (votecl__diskcache_store(dir, key, payload, size) != 0)
                bad++;
            g_free(payload);
            /* Read a key another writer is storing right now. */
            unsigned other = (k + round + writer) % SHARED_KEYS;
            void *got = NULL;
            size_t got_size = 0;
            if (votecl__diskcache_load(dir, key, &got, &got_size) != 0 ||
                !payload_ok(id, got, got_size))
                bad++;
            free(got);
            got = NULL;
            make_key(key, other);
            if (votecl__diskcache_load(dir, key, &got, &got_size) == 0 &&
                !payload_ok(other, got, got_size))
                bad++;
            free(got);
        }
    }
    return bad;
}

static void
check_cache_after_writers(const char *dir)
{
    unsigned expected = 0;
    for (unsigned k = 0; k < SHARED_KEYS; k++, expected++)
        g_assert_cmpint(load_id(dir, k), ==, 0);
    for (unsigned w = 0; w < WRITERS; w++)
        for (unsigned k = 0; k < OWN_KEYS; k++, expected++)
            g_assert_cmpint(load_id(dir, 100 + w * OWN_KEYS + k), ==, 0);

    /* Exactly one file per key: anything else is a leftover temporary file. */
    GDir *d = g_dir_open(dir, 0, NULL);
    g_assert_nonnull(d);
    const char *name;
    unsigned files = 0;
    while ((name = g_dir_read_name(d)) != NULL) {
        files++;
        if (!g_str_has_suffix(name, ".bin") || name[0] == '.')
            g_test_message("unexpected file left in the cache: %s", name);
    }
    g_dir_close(d);
    g_assert_cmpuint(files, ==, expected);
}

static void
test_cache_processes(void)
{
    char *dir = tu_mkdtemp();
    pid_t pids[WRITERS];
    for (unsigned w = 0; w < WRITERS; w++) {
        pids[w] = fork();
        g_assert_cmpint(pids[w], >=, 0);
        if (pids[w] == 0)
            _exit(hammer_cache(dir, w) == 0 ? 0 : 1);
    }
    for (unsigned w = 0; w < WRITERS; w++) {
        int wstatus = 0;
        g_assert_cmpint(waitpid(pids[w], &wstatus, 0), ==, pids[w]);
        g_assert_true(WIFEXITED(wstatus));
        g_assert_cmpint(WEXITSTATUS(wstatus), ==, 0);
    }
    check_cache_after_writers(dir);
    tu_rmtree(dir);
    g_free(dir);
}

typedef struct writer_job {
    const char *dir;
    unsigned writer;
    int bad;
} writer_job;

static void *
writer_thread(void *arg)
{
    writer_job *job = arg;
    job->bad = hammer_cache(job->dir, job->writer);
    return NULL;
}

static void
test_cache_threads(void)
{
    char *dir = tu_mkdtemp();
    pthread_t threads[WRITERS];
    writer_job jobs[WRITERS];
    for (unsigned w = 0; w < WRITERS; w++) {
        jobs[w] = (writer_job){dir, w, 0};
        g_assert_cmpint(pthread_create(&threads[w], NULL, writer_thread, &jobs[w]), ==, 0);
    }
    for (unsigned w = 0; w < WRITERS; w++) {
        pthread_join(threads[w], NULL);
        g_assert_cmpint(jobs[w].bad, ==, 0);
    }
    check_cache_after_writers(dir);
    tu_rmtree(dir);
    g_free(dir);
}

/* --- contexts --- */

static void
test_free_null(void)
{
    votecl_context_free(NULL);
    votecl_hist_plan_free(NULL);
    votecl_buffer_free(NULL);
}

/* --- device profiles (context.c, device-profile.c; docs/profiles.md) --- */

/* An H100-like device: the named profiles shrink it to their figures. */
static void
test_profiles_named(void)
{
    static const struct {
        const char *name;
        int cpu;
        uint64_t local;
        size_t wg;
        unsigned simd, off;
    } want[] = {
        {"fermi", 0, 48 * 1024, 1024, 32, VOTECL__FEATURE_WARP_MATCH | VOTECL__FEATURE_SUBGROUPS},
        {"gcn", 0, 64 * 1024, 256, 64, VOTECL__FEATURE_WARP_MATCH},
        {"rdna", 0, 64 * 1024, 1024, 32, VOTECL__FEATURE_WARP_MATCH},
        {"ocl-min", 0, 32 * 1024, 64, 32, VOTECL__FEATURES_ALL},
        {"cpu", 1, 227 * 1024, 1024, 32, 0},
    };

    g_assert_null(votecl__profile_named("no-such-profile"));
    for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
        votecl_device_info info = {.type = VOTECL_DEVICE_GPU,
                                   .max_work_group_size = 1024,
                                   .preferred_work_group_multiple = 32,
                                   .local_mem_bytes = 227 * 1024,
                                   .local_mem_dedicated = 1};
        votecl__shape shape;
        const votecl__profile *p = votecl__profile_named(want[i].name);

        g_assert_nonnull(p);
        votecl__shape_resolve(p, VOTECL__FEATURES_ALL, &info, &shape);
        g_assert_cmpstr(shape.profile, ==, want[i].name);
        g_assert_cmpint(shape.cpu, ==, want[i].cpu);
        g_assert_cmpuint(info.local_mem_bytes, ==, want[i].local);
        g_assert_cmpuint(info.max_work_group_size, ==, want[i].wg);
        g_assert_cmpuint(shape.simd, ==, want[i].simd);
        g_assert_cmpuint(info.preferred_work_group_multiple, ==, want[i].simd);
        g_assert_cmpuint(shape.features, ==, VOTECL__FEATURES_ALL & ~want[i].off);
        g_assert_cmpuint(shape.banks, ==, want[i].cpu ? 1 : 32);
    }
}

/* A profile only shrinks: a device smaller than the profile keeps its own figures and lacks
 * what it lacks; unprofiled, a CPU or emulated local memory is CPU-shaped. */
static void
test_profiles_shrink_only(void)
{
    votecl_device_info info = {.type = VOTECL_DEVICE_GPU,
                               .max_work_group_size = 128,
                               .preferred_work_group_multiple = 32,
                               .local_mem_bytes = 16 * 1024,
                               .local_mem_dedicated = 1};
    votecl_device_info cpu = {.type = VOTECL_DEVICE_CPU,
                              .max_work_group_size = 4096,
                              .preferred_work_group_multiple = 8,
                              .local_mem_bytes = 2 << 20};
    votecl__shape shape;

    votecl__shape_resolve(votecl__profile_named("rdna"), VOTECL__FEATURE_FP64, &info, &shape);
    g_assert_cmpuint(info.local_mem_bytes, ==, 16 * 1024);
    g_assert_cmpuint(info.max_work_group_size, ==, 128);
    g_assert_cmpuint(shape.features, ==, VOTECL__FEATURE_FP64);
    votecl__shape_resolve(NULL, VOTECL__FEATURES_ALL, &cpu, &shape);
    g_assert_true(shape.cpu);
    g_assert_cmpuint(shape.banks, ==, 1);
    /* warp match needs warps of 32 */
    g_assert_false(shape.features & VOTECL__FEATURE_WARP_MATCH);
    cpu.type = VOTECL_DEVICE_GPU; /* a GPU whose local memory is emulated */
    votecl__shape_resolve(NULL, 0, &cpu, &shape);
    g_assert_true(shape.cpu);
}

/* A ref context made with the variables in env (NAME=VALUE, NULL-terminated); its status. */
static votecl_status
context_with_env(const char *const *env, votecl_context **out, char *error, size_t size)
{
    char *saved[8];
    size_t n = 0;
    votecl_context_options options;
    votecl_status status;

    votecl_context_options_init(&options);
    options.backend = VOTECL_BACKEND_REF;
    for (; env[n] != NULL; n++) {
        char **kv = g_strsplit(env[n], "=", 2);
        saved[n] = tu_env_set(kv[0], kv[1]);
        g_strfreev(kv);
    }
    status = votecl_context_new_with_error(&options, out, error, size);
    while (n-- > 0) {
        char **kv = g_strsplit(env[n], "=", 2);
        tu_env_restore(kv[0], saved[n]);
        g_strfreev(kv);
    }
    return status;
}

/* The variables are read once per context, every one of them checked. */
static void
test_profiles_env(void)
{
    static const struct {
        const char *env[4];
        const char *named; /* the variable the message names */
    } bad[] = {
        {{"VOTECL_DEVICE_PROFILE=volta", NULL}, "VOTECL_DEVICE_PROFILE"},
        {{"VOTECL_FORCE_SHAPE=dsp", NULL}, "VOTECL_FORCE_SHAPE"},
        {{"VOTECL_SIMD_WIDTH=48", NULL}, "VOTECL_SIMD_WIDTH"},
        {{"VOTECL_MAX_WORK_GROUP_SIZE=0", NULL}, "VOTECL_MAX_WORK_GROUP_SIZE"},
        {{"VOTECL_LOCAL_MEM_BYTES=12x", NULL}, "VOTECL_LOCAL_MEM_BYTES"},
        {{"VOTECL_DISABLE_FEATURES=fp64,tensor-cores", NULL}, "VOTECL_DISABLE_FEATURES"},
        {{"VOTECL_HOST_THREADS=0", NULL}, "VOTECL_HOST_THREADS"},
        {{"VOTECL_HOST_THREADS=2000", NULL}, "VOTECL_HOST_THREADS"},
    };
    static const char *const gcn[] = {"VOTECL_DEVICE_PROFILE=gcn", NULL};
    static const char *const gcn_cpu[] = {"VOTECL_DEVICE_PROFILE=GCN", "VOTECL_FORCE_SHAPE=cpu",
                                          "VOTECL_DISABLE_FEATURES=fp64,atomics64", NULL};
    static const char *const compat[] = {"VOTECL_FORCE_VARIANT=local", NULL};
    static const char *const both[] = {"VOTECL_FORCE_VARIANT=private", "VOTECL_FORCE_SHAPE=gpu",
                                       NULL};
    votecl_context *ctx = NULL;
    char error[512];

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_assert_cmpint(context_with_env(bad[i].env, &ctx, error, sizeof error), ==,
                        VOTECL_INVALID_ARGUMENT);
        g_assert_null(ctx);
        g_assert_true(tu_message_names(error, bad[i].named));
    }
    g_assert_cmpint(context_with_env(gcn, &ctx, error, sizeof error), ==, VOTECL_OK);
    g_assert_cmpstr(ctx->shape.profile, ==, "gcn");
    g_assert_cmpuint(ctx->host_threads, ==, 0);
    g_assert_false(ctx->shape.cpu);
    g_assert_cmpuint(ctx->shape.simd, ==, 64);
    g_assert_false(ctx->shape.features & VOTECL__FEATURE_WARP_MATCH);
    g_assert_true(ctx->shape.features & VOTECL__FEATURE_FP64);
    votecl_context_free(ctx);
    g_assert_cmpint(context_with_env(gcn_cpu, &ctx, error, sizeof error), ==, VOTECL_OK);
    g_assert_true(ctx->shape.cpu);
    g_assert_cmpuint(ctx->shape.features, ==,
                     VOTECL__FEATURE_SUBGROUPS); /* the ref's all, less gcn's and these */
    votecl_context_free(ctx);
    /* VOTECL_FORCE_VARIANT alone still sets the shape; VOTECL_FORCE_SHAPE wins over it */
    g_assert_cmpint(context_with_env(compat, &ctx, error, sizeof error), ==, VOTECL_OK);
    g_assert_false(ctx->shape.cpu);
    votecl_context_free(ctx);
    g_assert_cmpint(context_with_env(both, &ctx, error, sizeof error), ==, VOTECL_OK);
    g_assert_false(ctx->shape.cpu);
    g_assert_cmpint(ctx->force_variant, ==, VOTECL_VARIANT_PRIVATE);
    votecl_context_free(ctx);
}

static void
test_backend_env(void)
{
    char *saved = tu_env_set("VOTECL_BACKEND", "ref");
    votecl_context *context = NULL;
    votecl_status status = votecl_context_new(NULL, &context);
    g_assert_cmpint(status, ==, VOTECL_OK);
    g_assert_cmpint(votecl_context_get_backend(context), ==, VOTECL_BACKEND_REF);
    votecl_device_info info;
    g_assert_cmpint(votecl_context_get_device_info(context, &info), ==, VOTECL_OK);
    g_assert_cmpint(info.backend, ==, VOTECL_BACKEND_REF);
    votecl_context_free(context);

    /* An unknown backend name fails and says so. */
    g_setenv("VOTECL_BACKEND", "no-such-backend", TRUE);
    context = (votecl_context *)1;
    char error[512] = "";
    status = votecl_context_new_with_error(NULL, &context, error, sizeof error);
    g_assert_cmpint(status, !=, VOTECL_OK);
    g_assert_null(context);
    g_assert_cmpuint(strlen(error), >, 0);

    /* The explicit option wins over the environment. */
    votecl_context_options options;
    votecl_context_options_init(&options);
    options.backend = VOTECL_BACKEND_REF;
    status = votecl_context_new(&options, &context);
    g_assert_cmpint(status, ==, VOTECL_OK);
    g_assert_cmpint(votecl_context_get_backend(context), ==, VOTECL_BACKEND_REF);
    votecl_context_free(context);
    tu_env_restore("VOTECL_BACKEND", saved);
}

/* Without --enable-cuda the CUDA backend is unavailable and names the configure option; with
 * it, a machine without the NVIDIA driver or NVRTC answers with a status and a message naming
 * what is missing, never a crash, and the default order falls back to OpenCL. */
static void
test_cuda_unavailable(void)
{
    votecl_context_options options;
    votecl_context_options_init(&options);
    options.backend = VOTECL_BACKEND_CUDA;
    votecl_context *context = (votecl_context *)1;
    char error[1024] = "";
    size_t found = 99;
    votecl_status status = votecl_context_new_with_error(&options, &context, error, sizeof error);
    g_test_message("CUDA context: %s: %s", votecl_status_name(status), error);
    if (!votecl_backend_is_built(VOTECL_BACKEND_CUDA)) {
        g_assert_cmpint(status, ==, VOTECL_BACKEND_UNAVAILABLE);
        g_assert_null(context);
        g_assert_nonnull(strstr(error, "--enable-cuda"));
        g_assert_cmpint(votecl_devices_list(VOTECL_BACKEND_CUDA, NULL, 0, &found), ==,
                        VOTECL_BACKEND_UNAVAILABLE);
        return;
    }
    g_assert_cmpint(votecl_devices_list(VOTECL_BACKEND_CUDA, NULL, 0, &found), ==, VOTECL_OK);
    if (status == VOTECL_OK) {
        g_assert_cmpint(votecl_context_get_backend(context), ==, VOTECL_BACKEND_CUDA);
        g_assert_cmpuint(found, >=, 1);
        votecl_context_free(context);
        return;
    }
    g_assert_true(status == VOTECL_NO_DEVICE || status == VOTECL_BACKEND_UNAVAILABLE);
    g_assert_null(context);
    g_assert_cmpuint(strlen(error), >, 0);
}

/* Nothing named: CUDA when it is built and has a device, else OpenCL (never ref). */
static void
test_backend_default(void)
{
    char *saved = tu_env_set("VOTECL_BACKEND", NULL);
    votecl_context *context = NULL;
    size_t cuda_devices = 0;
    votecl_status status = votecl_context_new(NULL, &context);
    tu_env_restore("VOTECL_BACKEND", saved);
    if (status == VOTECL_NO_DEVICE || status == VOTECL_BACKEND_UNAVAILABLE) {
        g_test_skip("no device on any backend");
        return;
    }
    g_assert_cmpint(status, ==, VOTECL_OK);
    votecl_devices_list(VOTECL_BACKEND_CUDA, NULL, 0, &cuda_devices);
    g_assert_cmpint(votecl_context_get_backend(context), ==,
                    cuda_devices > 0 ? VOTECL_BACKEND_CUDA : VOTECL_BACKEND_OPENCL);
    votecl_context_free(context);
}

static void
test_context_options(void)
{
    votecl_context_options options;
    memset(&options, 0x5a, sizeof options);
    votecl_context_options_init(&options);
    g_assert_cmpint(options.backend, ==, VOTECL_BACKEND_DEFAULT);
    g_assert_null(options.device);
    g_assert_null(options.kernel_path);
    g_assert_null(options.cache_dir);
    g_assert_cmpint(options.disable_disk_cache, ==, 0);

    g_assert_cmpint(votecl_context_new(&options, NULL), ==, VOTECL_INVALID_ARGUMENT);
    options.backend = (votecl_backend)42;
    votecl_context *context = (votecl_context *)1;
    g_assert_cmpint(votecl_context_new(&options, &context), !=, VOTECL_OK);
    g_assert_null(context);
}

/* --- bad input through the reference backend --- */

/* Checks a failed call: the status, and the context's message naming field (one of a
 * '|'-separated list). */
static void
expect_invalid(votecl_context *context, votecl_status status, const char *fields, const char *what)
{
    const char *message = votecl_context_get_error(context);
    if (status != VOTECL_INVALID_ARGUMENT)
        g_test_message("%s: got %s (%s), want VOTECL_INVALID_ARGUMENT", what,
                       votecl_status_string(status), message);
    g_assert_cmpint(status, ==, VOTECL_INVALID_ARGUMENT);
    g_assert_nonnull(message);
    int named = 0;
    char **names = g_strsplit(fields, "|", -1);
    for (char **f = names; *f != NULL; f++)
        named |= tu_message_names(message, *f);
    g_strfreev(names);
    if (!named)
        g_test_message("%s: message \"%s\" does not name %s", what, message, fields);
    g_assert_true(named);
}

/* Plan creation with params p must fail naming field. */
static void
expect_bad_params(votecl_context *context, const votecl_hist_params *p, const char *fields,
                  const char *what)
{
    votecl_hist_plan *plan = NULL;
    votecl_status status = votecl_hist_plan_new(context, p, &plan);
    expect_invalid(context, status, fields, what);
    if (status == VOTECL_OK)
        votecl_hist_plan_free(plan);
}

static void
test_bad_params(void)
{
    votecl_context *context = tu_ref_context_new();
    if (context == NULL)
        return;
    votecl_hist_params p;
    votecl_hist_plan *plan = NULL;

    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    g_assert_cmpint(votecl_hist_plan_new(NULL, &p, &plan), ==, VOTECL_INVALID_ARGUMENT);
    expect_invalid(context, votecl_hist_plan_new(context, NULL, &plan), "params", "NULL params");
    expect_invalid(context, votecl_hist_plan_new(context, &p, NULL), "out", "NULL out");

    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.nbins[0] = 0;
    expect_bad_params(context, &p, "nbins", "zero bins");

    votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
    p.min[0] = 1.0;
    p.max[0] = 1.0;
    expect_bad_params(context, &p, "min|max", "min == max");
    p.min[0] = 2.0;
    expect_bad_params(context, &p, "min|max", "min > max");

    votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
    p.min[0] = NAN;
    expect_bad_params(context, &p, "min", "NaN min");
    votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
    p.max[0] = NAN;
    expect_bad_params(context, &p, "max", "NaN max");
    /* An infinite edge makes every bin infinitely wide: rejected like NaN. */
    votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
    p.min[0] = -INFINITY;
    expect_bad_params(context, &p, "min", "infinite min");
    votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
    p.max[0] = INFINITY;
    expect_bad_params(context, &p, "max", "infinite max");

    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.min[0] = 0.5;
    expect_bad_params(context, &p, "min", "non-integer min for u8");
    votecl_hist_params_init(&p, VOTECL_DTYPE_U16);
    p.max[0] = 1000.25;
    expect_bad_params(context, &p, "max", "non-integer max for u16");

    /* Integer ranges lie within [0, 2^32] (the library's rule; votecl-vote.h should say so). */
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.min[0] = -10;
    expect_bad_params(context, &p, "min", "negative min for u8");
    votecl_hist_params_init(&p, VOTECL_DTYPE_U32);
    p.max[0] = 8589934592.0;
    expect_bad_params(context, &p, "max", "max above 2^32 for u32");

    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.nbins[0] = VOTECL_HIST_MAX_BINS + 1;
    expect_bad_params(context, &p, "nbins", "nbins above VOTECL_HIST_MAX_BINS");
    p.nbins[0] = UINT32_MAX;
    expect_bad_params(context, &p, "nbins", "nbins UINT32_MAX");

    const uint32_t products[][2] = {{65536, 65536},
                                    {65537, 65537},
                                    {1u << 20, 1u << 20},
                                    {UINT32_MAX, UINT32_MAX},
                                    {16385, 16384}};
    for (size_t i = 0; i < G_N_ELEMENTS(products); i++) {
        votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
        votecl_hist_params_set_2d(&p, products[i][0], 0, 256, products[i][1], 0, 256);
        p.channels = 2;
        p.channel[0] = 0;
        p.channel[1] = 1;
        expect_bad_params(context, &p, "nbins", "2-D bins product too large");
    }
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    votecl_hist_params_set_2d(&p, 16, 0, 256, 0, 0, 256);
    p.channels = 2;
    p.channel[1] = 1;
    expect_bad_params(context, &p, "nbins", "2-D zero bins");
    votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
    votecl_hist_params_set_2d(&p, 16, 0, 1, 16, 1, 0);
    p.channels = 2;
    p.channel[1] = 1;
    expect_bad_params(context, &p, "min|max", "2-D second range reversed");

    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.channels = 0;
    expect_bad_params(context, &p, "channels", "channels 0");
    p.channels = VOTECL_HIST_MAX_DIMS + 1; /* 9: one beyond the limit */
    expect_bad_params(context, &p, "channels", "channels 9");
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.channels = 3;
    p.channel[0] = 3;
    expect_bad_params(context, &p, "channel", "channel >= channels");
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    votecl_hist_params_set_2d(&p, 16, 0, 256, 16, 0, 256);
    p.channels = 2;
    p.channel[0] = 0;
    p.channel[1] = 2;
    p.two_arrays = 0;
    expect_bad_params(context, &p, "channel", "2-D channel[1] >= channels");

    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.dims = VOTECL_HIST_MAX_DIMS + 1;
    expect_bad_params(context, &p, "dims", "dims 9");
    p.dims = 0;
    expect_bad_params(context, &p, "dims", "dims 0");

    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.dtype = (votecl_dtype)99;
    expect_bad_params(context, &p, "dtype", "unknown dtype");
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.variant = (votecl_variant)17;
    expect_bad_params(context, &p, "variant", "unknown variant");

    votecl_context_free(context);
}

typedef struct bad_run_fixture {
    votecl_context *context;
    votecl_hist_plan *plan;
    uint32_t bins[256 * 4];
} bad_run_fixture;

#define SENTINEL 0xA5u

static void
fill_sentinel(void *bins, size_t size)
{
    memset(bins, SENTINEL, size);
}

static void
check_sentinel(const void *bins, size_t size, const char *what)
{
    const unsigned char *p = bins;
    for (size_t i = 0; i < size; i++) {
        if (p[i] != SENTINEL) {
            g_test_message("%s: output byte %zu was written on failure", what, i);
            g_assert_cmpuint(p[i], ==, SENTINEL);
            return;
        }
    }
}

static votecl_hist_plan *
ref_plan(votecl_context *context, const votecl_hist_params *p)
{
    votecl_hist_plan *plan = NULL;
    votecl_status status = votecl_hist_plan_new(context, p, &plan);
    if (status != VOTECL_OK)
        g_test_message("plan: %s", votecl_context_get_error(context));
    g_assert_cmpint(status, ==, VOTECL_OK);
    return plan;
}

static void
test_bad_run(void)
{
    votecl_context *context = tu_ref_context_new();
    if (context == NULL)
        return;
    uint8_t x[1024];
    float w[1024];
    uint32_t bins[256 * 4];
    tu_rng rng;
    tu_rng_init(&rng, 9);
    tu_fill_u8(&rng, x, sizeof x);
    tu_fill_f32(&rng, w, G_N_ELEMENTS(w), 0.0f, 1.0f);

    votecl_hist_params p;
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    votecl_hist_plan *plan = ref_plan(context, &p);
    if (plan == NULL)
        goto out;

    g_assert_cmpint(votecl_hist_run(NULL, x, NULL, NULL, 10, bins), ==, VOTECL_INVALID_ARGUMENT);

    fill_sentinel(bins, sizeof bins);
    expect_invalid(context, votecl_hist_run(plan, NULL, NULL, NULL, 10, bins), "x",
                   "NULL x with n > 0");
    check_sentinel(bins, sizeof bins, "NULL x");
    expect_invalid(context, votecl_hist_run(plan, x, NULL, NULL, 10, NULL), "bins", "NULL bins");

    /* More than 2^32 - 1 elements per frame (checked before x is read). */
    fill_sentinel(bins, sizeof bins);
    expect_invalid(context, votecl_hist_run(plan, x, NULL, NULL, (size_t)UINT32_MAX + 1, bins), "n",
                   "n above 2^32 - 1");
    check_sentinel(bins, sizeof bins, "n above 2^32 - 1");

    /* n * frames overflows size_t. */
    fill_sentinel(bins, sizeof bins);
    expect_invalid(context,
                   votecl_hist_run_batch(plan, x, NULL, NULL, (size_t)1 << 31,
                                         SIZE_MAX / ((size_t)1 << 30), bins),
                   "n|frames", "n * frames overflows");
    check_sentinel(bins, sizeof bins, "n * frames overflows");
    fill_sentinel(bins, sizeof bins);
    expect_invalid(context, votecl_hist_run_batch(plan, x, NULL, NULL, 3, SIZE_MAX / 2, bins),
                   "n|frames", "frames * nbins overflows");
    check_sentinel(bins, sizeof bins, "frames * nbins overflows");

    /* A failed call does not disturb the next good one. */
    g_assert_cmpint(votecl_hist_run(plan, x, NULL, NULL, 1024, bins), ==, VOTECL_OK);
    votecl_hist_plan_free(plan);

    /* Weighted without weights. */
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.weighted = 1;
    plan = ref_plan(context, &p);
    fill_sentinel(bins, sizeof bins);
    expect_invalid(context, votecl_hist_run(plan, x, NULL, NULL, 100, bins), "weights",
                   "weighted with NULL weights");
    check_sentinel(bins, sizeof bins, "weighted with NULL weights");
    g_assert_cmpint(votecl_hist_run(plan, x, NULL, w, 100, bins), ==, VOTECL_OK);
    votecl_hist_plan_free(plan);

    /* Two arrays without y. */
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.two_arrays = 1;
    votecl_hist_params_set_2d(&p, 16, 0, 256, 16, 0, 256);
    p.two_arrays = 1;
    p.channels = 1;
    p.channel[0] = p.channel[1] = 0;
    plan = ref_plan(context, &p);
    fill_sentinel(bins, sizeof bins);
    expect_invalid(context, votecl_hist_run(plan, x, NULL, NULL, 100, bins), "y",
                   "two arrays with NULL y");
    check_sentinel(bins, sizeof bins, "two arrays with NULL y");
    /* An image view has no second array. */
    votecl_image gray = {x, 16, 8, 16, 1, VOTECL_DTYPE_U8};
    votecl_status status = votecl_hist_run_image(plan, &gray, bins);
    g_assert_cmpint(status, ==, VOTECL_INVALID_ARGUMENT);
    g_assert_cmpuint(strlen(votecl_context_get_error(context)), >, 0);
    check_sentinel(bins, sizeof bins, "image with a two-array plan");
    votecl_hist_plan_free(plan);

    /* Images: stride too small, wrong dtype, wrong channels, NULL image or data,
     * a size whose product overflows. */
    votecl_hist_params_init(&p, VOTECL_DTYPE_U8);
    p.channels = 2;
    plan = ref_plan(context, &p);
    votecl_image image = {x, 16, 8, 32, 2, VOTECL_DTYPE_U8};
    g_assert_cmpint(votecl_hist_run_image(plan, &image, bins), ==, VOTECL_OK);

    fill_sentinel(bins, sizeof bins);
    image.stride = 31;
    expect_invalid(context, votecl_hist_run_image(plan, &image, bins), "stride",
                   "stride < width * channels");
    check_sentinel(bins, sizeof bins, "stride");
    image.stride = 32;
    image.dtype = VOTECL_DTYPE_U16;
    expect_invalid(context, votecl_hist_run_image(plan, &image, bins), "dtype",
                   "image dtype mismatch");
    check_sentinel(bins, sizeof bins, "dtype");
    image.dtype = VOTECL_DTYPE_U8;
    image.channels = 1;
    expect_invalid(context, votecl_hist_run_image(plan, &image, bins), "channels",
                   "image channels mismatch");
    check_sentinel(bins, sizeof bins, "channels");
    image.channels = 2;
    expect_invalid(context, votecl_hist_run_image(plan, NULL, bins), "image", "NULL image");
    image.data = NULL;
    expect_invalid(context, votecl_hist_run_image(plan, &image, bins), "data|image",
                   "NULL image data");
    image.data = x;
    image.width = SIZE_MAX / 4;
    image.stride = SIZE_MAX / 2 + 1;
    image.height = 4;
    expect_invalid(context, votecl_hist_run_image(plan, &image, bins), "width|height|stride",
                   "image size overflows");
    check_sentinel(bins, sizeof bins, "image size overflows");
    votecl_hist_plan_free(plan);

    /* An f32 image stride must hold whole rows of floats. */
    votecl_hist_params_init(&p, VOTECL_DTYPE_F32);
    plan = ref_plan(context, &p);
    votecl_image fimage = {w, 10, 4, 39, 1, VOTECL_DTYPE_F32};
    fill_sentinel(bins, sizeof bins);
    expect_invalid(context, votecl_hist_run_image(plan, &fimage, bins), "stride",
                   "f32 stride < width * 4");
    check_sentinel(bins, sizeof bins, "f32 stride");
    votecl_hist_plan_free(plan);

    /* describe */
    votecl_vote_plan_info info;
    g_assert_cmpint(votecl_hist_plan_describe(NULL, 10, 1, &info), ==, VOTECL_INVALID_ARGUMENT);
out:
    votecl_context_free(context);
}

/* Build-log locations of a compiler that ignores #line file names, translated back. */
static void
test_relocate_log(void)
{
    const char *source = "#define A 1\n"      /* 1 */
                         "#line 1 \"prelude.h\"\n" /* 2 */
                         "int p;\n"           /* 3: prelude.h:1 */
                         "int q;\n"           /* 4: prelude.h:2 */
                         "#line 1 \"user\"\n"    /* 5 */
                         "uint vote_index(\n" /* 6: user:1 */
                         "  x y\n"            /* 7: user:2 */
                         "#line 1 \"ght.cl\"\n"  /* 8 */
                         "kernel void k() {}\n"; /* 9: ght.cl:1 */
    char *log = votecl__relocate_log(source, "<kernel>:7:5: error: expected ';'\n"
                                             "<kernel>:4:1: note: here\n<kernel>:9:3: x\n");

    g_assert_nonnull(log);
    g_assert_cmpstr(log, ==, "user:2:5: error: expected ';'\nprelude.h:2:1: note: here\n"
                             "ght.cl:1:3: x\n");
    g_free(log);
    g_assert_null(votecl__relocate_log(source, "user:2:5: error\n")); /* nothing to do */
    g_assert_null(votecl__relocate_log(source, NULL));
    log = votecl__relocate_log(source, "<kernel>:1:1: before any #line; <kernel>:x\n");
    g_assert_cmpstr(log, ==, "<kernel>:1:1: before any #line; <kernel>:x\n");
    g_free(log);
}

/* --- kernel sources: no return ahead of a barrier --- */

/* A barrier must be reached by every work-item of a group. A return ahead of one is legal
 * where it is uniform, yet PoCL 5.0's work-item loops miscompiled vote.cl's local_merge,
 * which returned without tickets before its barriers: every work-item of the merging group
 * stored, writing past the caller's spaces * nbins words (issue 24). So no kernel function
 * returns before its last barrier, or before its last call of a function with one. */

typedef struct kernel_fn {
    char *name;
    const char *file;
    const char *text;   /* the whole blanked file */
    size_t open, close; /* the body's braces */
} kernel_fn;

/* Blanks text[from, to) but its newlines, so that offsets still give line numbers. */
static void
kernel_blank_range(char *text, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (text[i] != '\n')
            text[i] = ' ';
}

/* The source with comments and preprocessor lines (macro bodies among them) blanked. */
static char *
kernel_blank(const char *source)
{
    char *t = g_strdup(source), *end;
    size_t n = strlen(t), i = 0;

    while (i < n) {
        if (t[i] == '/' && t[i + 1] == '*') {
            end = strstr(t + i + 2, "*/");
            end = end != NULL ? end + 2 : t + n;
        } else if (t[i] == '/' && t[i + 1] == '/') {
            end = t + i + strcspn(t + i, "\n");
        } else {
            i++;
            continue;
        }
        kernel_blank_range(t, i, (size_t)(end - t));
        i = (size_t)(end - t);
    }
    for (i = 0; i < n; i = (size_t)(end - t) + 1) {
        size_t first = i + strspn(t + i, " \t");
        for (end = t + first; *end != '\0' && (*end != '\n' || (end > t && end[-1] == '\\')); end++)
            ;
        if (t[first] == '#')
            kernel_blank_range(t, first, (size_t)(end - t));
    }
    return t;
}

static int
kernel_ident_char(char c)
{
    return g_ascii_isalnum(c) || c == '_';
}

/* The name of the function whose body opens at text[open], or NULL (a struct, an array). */
static char *
kernel_fn_name(const char *text, size_t open)
{
    size_t i = open, end;
    int depth = 0;
    while (i > 0 && g_ascii_isspace(text[i - 1]))
        i--;
    if (i == 0 || text[i - 1] != ')')
        return NULL;
    do { /* back to the parameter list's '(' */
        i--;
        depth += text[i] == ')' ? 1 : text[i] == '(' ? -1 : 0;
    } while (i > 0 && depth != 0);
    while (i > 0 && g_ascii_isspace(text[i - 1]))
        i--;
    for (end = i; i > 0 && kernel_ident_char(text[i - 1]); i--)
        ;
    return i < end ? g_strndup(text + i, end - i) : NULL;
}

static void
kernel_functions(const char *file, const char *text, GArray *fns)
{
    size_t depth = 0, open = 0;
    for (size_t i = 0; text[i] != '\0'; i++) {
        if (text[i] == '{' && depth++ == 0)
            open = i;
        if (text[i] != '}' || depth == 0 || --depth != 0)
            continue;
        kernel_fn f = {kernel_fn_name(text, open), file, text, open, i};
        if (f.name != NULL)
            g_array_append_val(fns, f);
    }
}

/* Where the last call of name( in the body starts, or 0 (none). */
static size_t
kernel_last_call(const kernel_fn *f, const char *name)
{
    size_t len = strlen(name), last = 0;
    for (size_t i = f->open + 1; i + len < f->close; i++) {
        if (strncmp(f->text + i, name, len) != 0 || kernel_ident_char(f->text[i - 1]) ||
            kernel_ident_char(f->text[i + len]))
            continue;
        size_t j = i + len;
        while (g_ascii_isspace(f->text[j]))
            j++;
        if (f->text[j] == '(')
            last = i;
    }
    return last;
}

/* Where the body's last barrier, or call of a function with one, starts (0: none). */
static size_t
kernel_last_barrier(const kernel_fn *f, GPtrArray *barriers)
{
    size_t last = 0;
    for (guint b = 0; b < barriers->len; b++) {
        size_t at =
            strcmp(barriers->pdata[b], f->name) != 0 ? kernel_last_call(f, barriers->pdata[b]) : 0;
        last = at > last ? at : last;
    }
    return last;
}

/* The barrier builtins, then every function that reaches one (to a fixed point). */
static GPtrArray *
kernel_barrier_names(GArray *fns)
{
    static const char *const builtins[] = {"barrier", "LOCAL_BARRIER", "work_group_barrier",
                                           "__syncthreads"};
    GPtrArray *names = g_ptr_array_new();
    gboolean grew = TRUE;
    for (size_t i = 0; i < G_N_ELEMENTS(builtins); i++)
        g_ptr_array_add(names, (gpointer)builtins[i]);
    while (grew) {
        grew = FALSE;
        for (guint i = 0; i < fns->len; i++) {
            kernel_fn *f = &g_array_index(fns, kernel_fn, i);
            if (!g_ptr_array_find_with_equal_func(names, f->name, g_str_equal, NULL) &&
                kernel_last_barrier(f, names) > 0) {
                g_ptr_array_add(names, f->name);
                grew = TRUE;
            }
        }
    }
    return names;
}

/* "file:line: name" for every return ahead of a barrier, one a line. */
static char *
kernel_early_returns(GArray *fns, GPtrArray *barriers)
{
    GString *found = g_string_new("");
    for (guint i = 0; i < fns->len; i++) {
        kernel_fn *f = &g_array_index(fns, kernel_fn, i);
        size_t last = kernel_last_barrier(f, barriers);
        for (size_t at = f->open; last > 0 && at < last; at++) {
            if (strncmp(f->text + at, "return", 6) != 0 || kernel_ident_char(f->text[at - 1]) ||
                kernel_ident_char(f->text[at + 6]))
                continue;
            size_t line = 1;
            for (size_t k = 0; k < at; k++)
                line += f->text[k] == '\n';
            g_string_append_printf(found, "%s:%zu: %s\n", f->file, line, f->name);
        }
    }
    return g_string_free(found, FALSE);
}

static void
kernel_functions_clear(GArray *fns)
{
    for (guint i = 0; i < fns->len; i++)
        g_free(g_array_index(fns, kernel_fn, i).name);
    g_array_free(fns, TRUE);
}

/* The checker itself: local_merge as it was is found, the same with the return after the
 * barriers is not, and a helper's barrier counts in its caller. */
static void
test_kernel_barrier_checker(void)
{
    static const char bad[] =
        "INLINE void merge(GLOBAL uint *t, uint lid) /* { */\n"
        "{\n    if (t == 0)\n        return;\n    LOCAL_BARRIER();\n}\n"
        "KERNEL void k(GLOBAL uint *t)\n{\n    if (t == 0) return;\n    merge(t, 0);\n}\n"
        "#define F(x) { return x; }\n  #  define G(x) \\\n    { return x; }\n"
        "INLINE uint good(uint v)\n{\n    barrier(CLK_LOCAL_MEM_FENCE);\n    return v; }\n";
    char *text = kernel_blank(bad), *found;
    GArray *fns = g_array_new(FALSE, FALSE, sizeof(kernel_fn));
    GPtrArray *barriers;

    kernel_functions("bad.cl", text, fns);
    g_assert_cmpuint(fns->len, ==, 3);
    barriers = kernel_barrier_names(fns);
    found = kernel_early_returns(fns, barriers);
    g_assert_cmpstr(found, ==, "bad.cl:4: merge\nbad.cl:9: k\n");
    g_free(found);
    g_ptr_array_free(barriers, TRUE);
    kernel_functions_clear(fns);
    g_free(text);
}

/* Every kernel file of the source tree. */
static void
test_kernel_barriers(void)
{
    const char *srcdir = g_getenv("VOTECL_TEST_SRCDIR");
    char *dir, *found;
    GPtrArray *texts = g_ptr_array_new_with_free_func(g_free);
    GArray *fns = g_array_new(FALSE, FALSE, sizeof(kernel_fn));
    GPtrArray *barriers;
    GDir *d;
    const char *name;

    if (srcdir == NULL) {
        g_test_skip("VOTECL_TEST_SRCDIR is not set (run through make check)");
        g_ptr_array_free(texts, TRUE);
        g_array_free(fns, TRUE);
        return;
    }
    dir = g_build_filename(srcdir, "..", "cl", NULL);
    d = g_dir_open(dir, 0, NULL);
    g_assert_nonnull(d);
    while ((name = g_dir_read_name(d)) != NULL) {
        char *path = g_build_filename(dir, name, NULL), *source = NULL;
        if (g_str_has_suffix(name, ".cl") && g_file_get_contents(path, &source, NULL, NULL)) {
            g_ptr_array_add(texts, kernel_blank(source));
            g_ptr_array_add(texts, g_strdup(name)); /* kept for the messages */
            kernel_functions(texts->pdata[texts->len - 1], texts->pdata[texts->len - 2], fns);
        }
        g_free(source);
        g_free(path);
    }
    g_dir_close(d);
    barriers = kernel_barrier_names(fns);
    /* not vacuous: the engine's kernel and its merge are seen to hold barriers */
    g_assert_true(g_ptr_array_find_with_equal_func(barriers, "vote_local", g_str_equal, NULL));
    g_assert_true(g_ptr_array_find_with_equal_func(barriers, "local_merge", g_str_equal, NULL));
    found = kernel_early_returns(fns, barriers);
    g_assert_cmpstr(found, ==, "");
    g_free(found);
    g_ptr_array_free(barriers, TRUE);
    kernel_functions_clear(fns);
    g_ptr_array_free(texts, TRUE);
    g_free(dir);
}

/* --- the host team (parallel.h) --- */

typedef struct {
    uint32_t *hits;      /* per item: times run */
    uint32_t *by;        /* per item: the worker that ran it + 1 */
    unsigned workers;
    size_t fail_at;      /* an item whose claim fails; SIZE_MAX: none */
} team_case;

static votecl_status
team_items(void *user, size_t begin, size_t end, unsigned worker)
{
    team_case *c = user;

    g_assert_cmpuint(worker, <, c->workers);
    g_assert_cmpuint(begin, <, end);
    for (size_t i = begin; i < end; i++) {
        if (i == c->fail_at)
            return VOTECL_OUT_OF_HOST_MEMORY;
        __atomic_fetch_add(&c->hits[i], 1, __ATOMIC_RELAXED);
        c->by[i] = worker + 1;
    }
    return VOTECL_OK;
}

/* Every item runs exactly once, on a worker below team.workers, for set thread counts above
 * and below the claims (the host's core count plays no part: a set count is taken as it is)
 * and for the shared budget (0); a failing claim is the run's status; a run of one claim
 * stays on the caller's thread. */
static void
test_team(void)
{
    static const unsigned threads[] = {1, 2, 3, 8, 0};
    static const size_t ns[] = {0, 1, 7, 64, 1000};
    static const size_t grains[] = {1, 3, 64};
    uint32_t hits[1000], by[1000];

    for (size_t t = 0; t < G_N_ELEMENTS(threads); t++)
        for (size_t k = 0; k < G_N_ELEMENTS(ns); k++)
            for (size_t g = 0; g < G_N_ELEMENTS(grains); g++) {
                size_t n = ns[k], claims = (n + grains[g] - 1) / grains[g];
                votecl__team team;
                team_case c = {hits, by, 0, SIZE_MAX};
                memset(hits, 0, sizeof hits);
                votecl__team_open(&team, threads[t], n, grains[g]);
                c.workers = team.workers;
                g_assert_cmpuint(team.workers, >=, 1);
                g_assert_cmpuint(team.workers, <=, claims > 1 ? claims : 1);
                if (threads[t] > 0)
                    g_assert_cmpuint(team.workers, ==, MIN(threads[t], MAX(claims, 1)));
                g_assert_cmpint(votecl__team_run(&team, team_items, &c), ==, VOTECL_OK);
                for (size_t i = 0; i < n; i++)
                    g_assert_cmpuint(hits[i], ==, 1);
                if (claims <= 1)
                    for (size_t i = 0; i < n; i++)
                        g_assert_cmpuint(by[i], ==, 1);
            }
    for (unsigned t = 1; t <= 4; t++) {
        votecl__team team;
        team_case c = {hits, by, 0, 500};
        votecl__team_open(&team, t, 1000, 10);
        c.workers = team.workers;
        g_assert_cmpint(votecl__team_run(&team, team_items, &c), ==, VOTECL_OUT_OF_HOST_MEMORY);
    }
}

/* The shared budget comes back whole: teams opened and closed (run or not) leave as many
 * helpers for the next team as there were before. */
static void
test_team_budget(void)
{
    votecl__team a, b;
    unsigned first;
    team_case c = {NULL, NULL, 0, SIZE_MAX};
    uint32_t hits[4096], by[4096];

    c.hits = hits;
    c.by = by;
    votecl__team_open(&a, 0, 4096, 1);
    first = a.workers;
    g_assert_cmpuint(first, ==, MIN(votecl__host_cores(), 65));
    votecl__team_open(&b, 0, 4096, 1); /* while a holds the helpers, b gets what is left */
    g_assert_cmpuint(b.workers, ==, 1 + (votecl__host_cores() - first));
    votecl__team_close(&b);
    votecl__team_close(&a);
    votecl__team_close(&a);
    votecl__team_open(&a, 0, 4096, 1);
    g_assert_cmpuint(a.workers, ==, first);
    c.workers = a.workers;
    memset(hits, 0, sizeof hits);
    g_assert_cmpint(votecl__team_run(&a, team_items, &c), ==, VOTECL_OK);
    votecl__team_open(&a, 0, 4096, 1);
    g_assert_cmpuint(a.workers, ==, first);
    votecl__team_close(&a);
}

/* Runs of teams from several threads at once (as a batch's contexts make them), and a forked
 * child's own runs: every item once, each run's status its own. */
typedef struct {
    unsigned threads;
    int ok;
} team_stress;

static void *
team_stress_main(void *p)
{
    team_stress *t = p;
    uint32_t hits[300], by[300];

    t->ok = 1;
    for (int round = 0; round < 40 && t->ok; round++) {
        votecl__team team;
        team_case c = {hits, by, 0, round % 7 == 3 ? (size_t)round : SIZE_MAX};
        votecl_status st;
        memset(hits, 0, sizeof hits);
        votecl__team_open(&team, t->threads, 300, 1 + round % 5);
        c.workers = team.workers;
        st = votecl__team_run(&team, team_items, &c);
        if (c.fail_at != SIZE_MAX)
            t->ok = st == VOTECL_OUT_OF_HOST_MEMORY;
        else
            for (size_t i = 0; i < 300; i++)
                t->ok = t->ok && st == VOTECL_OK && hits[i] == 1;
    }
    return NULL;
}

static void
test_team_concurrent(void)
{
    pthread_t ids[4];
    team_stress t[4] = {{3, 0}, {5, 0}, {0, 0}, {2, 0}};
    pid_t child;
    int wstatus = 0;

    for (int i = 0; i < 4; i++)
        g_assert_cmpint(pthread_create(&ids[i], NULL, team_stress_main, &t[i]), ==, 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(ids[i], NULL);
        g_assert_true(t[i].ok);
    }
    /* the pool's threads are parked now; the child has none of them */
    child = fork();
    g_assert_cmpint(child, >=, 0);
    if (child == 0) {
        team_stress c = {4, 0};
        team_stress_main(&c);
        _exit(c.ok ? 0 : 1);
    }
    g_assert_cmpint(waitpid(child, &wstatus, 0), ==, child);
    g_assert_true(WIFEXITED(wstatus));
    g_assert_cmpint(WEXITSTATUS(wstatus), ==, 0);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_set_nonfatal_assertions();

    g_test_add_func("/nodevice/status/strings", test_status_strings);
    g_test_add_func("/nodevice/team/items", test_team);
    g_test_add_func("/nodevice/team/budget", test_team_budget);
    g_test_add_func("/nodevice/team/concurrent", test_team_concurrent);
    g_test_add_func("/nodevice/status/names", test_names);
    g_test_add_func("/nodevice/sha256/vectors", test_sha256_vectors);
    g_test_add_func("/nodevice/program/relocate-log", test_relocate_log);
    g_test_add_func("/nodevice/kernels/barrier-checker", test_kernel_barrier_checker);
    g_test_add_func("/nodevice/kernels/no-return-before-barrier", test_kernel_barriers);
    g_test_add_func("/nodevice/sha256/lengths", test_sha256_lengths);
    g_test_add_func("/nodevice/stretch/gtx470", test_stretch_gtx470);
    g_test_add_func("/nodevice/stretch/properties", test_stretch_properties);
    g_test_add_func("/nodevice/gtx470/paper", test_gtx470_paper);
    g_test_add_func("/nodevice/kernel-path/join", test_kernel_path_join);
    g_test_add_func("/nodevice/kernel-path/order", test_kernel_path_order);
    g_test_add_func("/nodevice/kernel-path/untrusted", test_kernel_path_untrusted);
    g_test_add_func("/nodevice/kernel-path/no-cwd", test_kernel_path_no_cwd);
    g_test_add_func("/nodevice/kernel-path/context", test_kernel_path_context);
    g_test_add_func("/nodevice/cache/round-trip", test_cache_round_trip);
    g_test_add_func("/nodevice/cache/unusable-dir", test_cache_unusable_dir);
    g_test_add_func("/nodevice/cache/corrupt", test_cache_corrupt);
    g_test_add_func("/nodevice/cache/mismatched-key", test_cache_mismatched_key);
    g_test_add_func("/nodevice/cache/processes", test_cache_processes);
    g_test_add_func("/nodevice/cache/threads", test_cache_threads);
    g_test_add_func("/nodevice/context/free-null", test_free_null);
    g_test_add_func("/nodevice/context/options", test_context_options);
    g_test_add_func("/nodevice/context/backend-env", test_backend_env);
    g_test_add_func("/nodevice/context/profiles-named", test_profiles_named);
    g_test_add_func("/nodevice/context/profiles-shrink-only", test_profiles_shrink_only);
    g_test_add_func("/nodevice/context/profiles-env", test_profiles_env);
    g_test_add_func("/nodevice/context/backend-default", test_backend_default);
    g_test_add_func("/nodevice/context/cuda-unavailable", test_cuda_unavailable);
    g_test_add_func("/nodevice/bad-input/params", test_bad_params);
    g_test_add_func("/nodevice/bad-input/run", test_bad_run);
    return g_test_run();
}
