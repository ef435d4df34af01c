/* What the truth suites (tests/truth-*.c) share: their seeded generators and the lookup of a
 * suite's families. Header only: the tools compile the suites too (tools/eval-*.c). */
#ifndef VOTECL_TRUTH_COMMON_H
#define VOTECL_TRUTH_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A suite's own generator, never shared with another user of random numbers, so that a
 * (seed, family, index) names the same case on every machine: xorshift64* (Vigna), or
 * splitmix64 (Steele, Lea and Flood) where splitmix is set. s is the state. */
typedef struct truth_rng {
    uint64_t s;
    int splitmix;
} truth_rng;

static inline uint64_t
truth_rng_next(truth_rng *r)
{
    if (r->splitmix) {
        uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545f4914f6cdd1dull;
}

/* Uniform in [lo, hi): the top 53 bits over 2^53. */
static inline double
truth_rng_uniform(truth_rng *r, double lo, double hi)
{
    return lo + (hi - lo) * (double)(truth_rng_next(r) >> 11) / 9007199254740992.0;
}

static inline uint32_t
truth_rng_below(truth_rng *r, uint32_t n)
{
    return (uint32_t)(truth_rng_next(r) % n);
}

/* Standard normal (Box-Muller). */
static inline double
truth_rng_gauss(truth_rng *r)
{
    double u = truth_rng_uniform(r, 1e-12, 1.0), v = truth_rng_uniform(r, 0.0, 1.0);
    return sqrt(-2.0 * log(u)) * cos(2.0 * 3.14159265358979323846 * v);
}

/* w x h bytes of fill in *pixels (NULL when out of memory: -1), w and h in *width and
 * *height. */
static inline int
truth_pixels_new(uint8_t **pixels, uint32_t *width, uint32_t *height, uint32_t w, uint32_t h,
                 uint8_t fill)
{
    *width = w;
    *height = h;
    *pixels = malloc((size_t)w * h);
    if (*pixels == NULL)
        return -1;
    memset(*pixels, fill, (size_t)w * h);
    return 0;
}

/* part / whole, 1 when whole is 0: a recall or precision where there was nothing to find. */
static inline double
truth_ratio(size_t part, size_t whole)
{
    return whole > 0 ? (double)part / (double)whole : 1.0;
}

/* Counts one scored case into score (a suite's score struct): its n truths, matched of them
 * found, among detections. */
#define TRUTH_SCORE_CASE(score, n, found, detected)                                                \
    do {                                                                                           \
        (score)->truths += (n);                                                                    \
        (score)->matched += (found);                                                               \
        (score)->detections += (detected);                                                         \
        (score)->cases++;                                                                          \
        (score)->cases_all_found += (found) == (n);                                                \
    } while (0)

/* Declares prefix_families(), the families terminated by an entry with name NULL (transfer
 * none), and prefix_family_find(name), the family of that name or NULL. */
#define TRUTH_FAMILIES_DECLARE(type, prefix)                                                       \
    const type *prefix##_families(void);                                                           \
    const type *prefix##_family_find(const char *name)

/* Defines them over the file's static families[]. */
#define TRUTH_FAMILIES_DEFINE(type, prefix)                                                        \
    const type *prefix##_families(void)                                                            \
    {                                                                                              \
        return families;                                                                           \
    }                                                                                              \
    const type *prefix##_family_find(const char *name)                                             \
    {                                                                                              \
        for (const type *f = families; f->name != NULL; f++)                                       \
            if (strcmp(f->name, name) == 0)                                                        \
                return f;                                                                          \
        return NULL;                                                                               \
    }                                                                                              \
    struct truth_semicolon

#endif
