/* The list of algorithms the votecl tool iterates (tools/algorithms.h), and the helpers
 * their hooks share. */
#include "config.h"

#include <string.h>

#include "algorithms.h"

/* Adding an algorithm is one line here (its descriptor lives in tools/algo-<name>.c). */
const tool_algorithm *const tool_algorithms[] = {
    &tool_algo_hist,
    &tool_algo_hough,
    &tool_algo_lines,
    &tool_algo_subsample,
    &tool_algo_hog,
    &tool_algo_ght,
    &tool_algo_circles,
    NULL,
};

const tool_algorithm *
tool_algorithm_find(const char *name)
{
    for (size_t i = 0; tool_algorithms[i] != NULL; i++)
        if (strcmp(tool_algorithms[i]->name, name) == 0)
            return tool_algorithms[i];
    return NULL;
}

/* --- helpers of the hooks --- */

/* An 8-bit copy (16-bit samples shifted down; gray+alpha to gray), as votecl hog reads. */
int
tool_image_u8(const tool_image *image, tool_image *out, char *error, size_t size)
{
    unsigned ch = image->channels == 2 ? 1 : image->channels;
    if (tool_image_alloc(out, image->width, image->height, ch, VOTECL_DTYPE_U8, error, size) < 0)
        return -1;
    for (size_t y = 0; y < image->height; y++) {
        const unsigned char *row = image->data + y * image->stride;
        for (size_t x = 0; x < image->width; x++)
            for (unsigned c = 0; c < ch; c++) {
                size_t i = x * image->channels + c;
                out->data[y * out->stride + x * ch + c] =
                    image->dtype == VOTECL_DTYPE_U8
                        ? row[i]
                        : (unsigned char)(((const uint16_t *)row)[i] >> 8);
            }
    }
    return 0;
}

int
tool_gray_u8(const tool_image *image, tool_image *gray, char *error, size_t size)
{
    tool_image g = {0};
    int rc = 0;
    if (tool_image_to_gray(image, &g, error, size) < 0)
        return -1;
    if (g.dtype == VOTECL_DTYPE_U8) {
        *gray = g;
        return 0;
    }
    rc = tool_image_u8(&g, gray, error, size);
    tool_image_free(&g);
    return rc;
}

/* The status of a tool_*_annotate() call: its only failure is memory. */
votecl_status
tool_annotate_status(int rc)
{
    return rc < 0 ? VOTECL_OUT_OF_HOST_MEMORY : VOTECL_OK;
}
