/* The list of algorithms the tests iterate (tests/cases.h). */
#include "cases.h"

/* Adding an algorithm is one line here (its descriptor lives in tests/case-<algo>.c). */
const tc_algorithm *const tc_algorithms[] = {
    &tc_hist, &tc_hough, &tc_sum,     &tc_subsample, &tc_vote, &tc_lines,
    &tc_hog,  &tc_ght,   &tc_circles, &tc_edges,     NULL,
};

tu_inputs tc_in;
char *tc_hog_model_file;
votecl_image tc_view_gray, tc_view_edges, tc_view_people, tc_view_template, tc_view_scene;

void
tc_init(uint64_t seed)
{
    const char *dir = g_getenv("VOTECL_KERNEL_PATH");

    tu_inputs_make(&tc_in, seed);
    tc_view_gray = tu_view_u8(tc_in.image, 64, 48);
    tc_view_edges = tu_view_u8(tc_in.edges, 96, 72);
    tc_view_people = tu_view_u8(tc_in.people, 80, 144);
    tc_view_template = tu_view_u8(tc_in.ght_template, 48, 40);
    tc_view_scene = tu_view_u8(tc_in.ght_scene, 96, 80);
    g_free(tc_hog_model_file);
    tc_hog_model_file = g_build_filename(dir != NULL ? dir : "cl", VOTECL_HOG_PEOPLE_MODEL, NULL);
}

void
tc_free(void)
{
    g_free(tc_hog_model_file);
    tc_hog_model_file = NULL;
}

const tc_algorithm *
tc_find(const char *name)
{
    const tc_algorithm *const *a = tc_algorithms;
    while (*a != NULL && strcmp((*a)->name, name) != 0)
        a++;
    return *a;
}

int
tc_differ(const tc_case *c, const void *a, const void *b)
{
    return c->differ != NULL ? c->differ(a, b) : memcmp(a, b, c->out_size) != 0;
}

int
tc_items_differ(const void *a, const void *b, size_t offset, size_t size, size_t capacity,
                int (*item_differ)(const void *x, const void *y))
{
    size_t found = *(const size_t *)a;

    if (found != *(const size_t *)b)
        return 1;
    for (size_t i = 0; i < found && i < capacity; i++)
        if (item_differ((const char *)a + offset + i * size, (const char *)b + offset + i * size))
            return 1;
    return 0;
}

int
tc_matches(const tc_case *c, const void *device, const void *reference)
{
    return c->matches != NULL ? c->matches(device, reference) : !tc_differ(c, device, reference);
}
