/* The image readers of the votecl tool (tools/image-io.c): PNG, PGM and PPM from memory.
 * Properties: a decoded image has a sane size, stride and layout, its view passes the
 * library's checks, and the gray conversion of it succeeds. */
#include "config.h"

#include "fuzz.h"
#include "image-io.h"

#include <string.h>

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tool_image image, gray;
    char error[256];

    if (tool_image_decode(data, size, &image, error, sizeof error) != 0) {
        FUZZ_CHECK(image.data == NULL);
        FUZZ_CHECK(strlen(error) > 0);
        return 0;
    }
    FUZZ_CHECK(image.data != NULL);
    FUZZ_CHECK(image.width >= 1 && image.width <= TOOL_IMAGE_MAX_SIDE);
    FUZZ_CHECK(image.height >= 1 && image.height <= TOOL_IMAGE_MAX_SIDE);
    FUZZ_CHECK(image.channels >= 1 && image.channels <= 4);
    FUZZ_CHECK(image.stride == image.width * image.channels * votecl_dtype_size(image.dtype));
    /* Every byte is readable (ASan checks) */
    volatile unsigned char sink;
    for (size_t i = 0; i < image.stride * image.height; i += 61)
        sink = image.data[i];
    sink = image.data[image.stride * image.height - 1];
    (void)sink;
    if (tool_image_to_gray(&image, &gray, error, sizeof error) == 0) {
        FUZZ_CHECK(gray.width == image.width && gray.height == image.height);
        FUZZ_CHECK(gray.channels == 1 && gray.dtype == image.dtype);
        tool_image_free(&gray);
    }
    tool_image_free(&image);
    return 0;
}
