/* A deliberately broken histogram.cl for the build-error test (tests/test-histogram.c,
 * /opencl/build/broken). It is found before cl/histogram.cl because the test puts this
 * directory first on VOTECL_KERNEL_PATH. The compiler must reject it, so that
 * votecl_hist_plan_new() returns VOTECL_BUILD_FAILED with a non-empty build log.
 *
 * Kernels defined: none that compile. */

__kernel void votecl_broken_kernel(__global uint *bins)
{
    /* A syntax error: a missing semicolon and an undeclared identifier. */
    uint i = get_global_id(0)
    bins[i] = this_is_not_declared;
}
