/* Reference device profiles: devices the papers measured on, kept as data so that their
 * figures stay checkable against the library's plan and model arithmetic (tests/test-nodevice.c)
 * on any machine. */
#include "votecl-private.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

void
votecl__device_profile_gtx470(votecl__device_profile *profile)
{
    votecl_device_info *info = &profile->info;

    memset(profile, 0, sizeof *profile);
    /* GPU-vote section 2: Fermi, 14 SMs of 32 CUDA cores, 48 kB of on-chip memory per SM,
     * 1280 MB of off-chip memory; section 3.3: 32 banks, at most 1536 resident threads and 8
     * resident thread blocks per SM. */
    info->backend = VOTECL_BACKEND_CUDA;
    info->type = VOTECL_DEVICE_GPU;
    snprintf(info->name, sizeof info->name, "GeForce GTX 470");
    snprintf(info->vendor, sizeof info->vendor, "NVIDIA Corporation");
    snprintf(info->platform, sizeof info->platform, "NVIDIA CUDA");
    snprintf(info->version, sizeof info->version,
             "compute capability 2.0 / the GPU-vote paper's reference profile");
    info->compute_units = 14;
    info->max_work_group_size = 1024;
    info->preferred_work_group_multiple = 32;
    info->local_mem_bytes = 48 * 1024;
    info->global_mem_bytes = (uint64_t)1280 << 20;
    info->max_alloc_bytes = info->global_mem_bytes;
    info->local_mem_dedicated = 1;
    info->local_atomics = 1;
    info->global_atomics = 1;
    profile->banks = 32;
    profile->local_mem_per_unit = 48 * 1024;
    profile->threads_per_unit = 1536;
    profile->groups_per_unit = 8;
}

unsigned
votecl__profile_resident_groups(const votecl__device_profile *profile, unsigned wg,
                                uint64_t local_bytes)
{
    /* GPU-vote section 3.3: resident threads, resident blocks or on-chip memory, whichever
     * runs out first. */
    uint64_t groups = profile->groups_per_unit;

    if (wg == 0 || wg > profile->threads_per_unit)
        return 0;
    if (profile->threads_per_unit / wg < groups)
        groups = profile->threads_per_unit / wg;
    if (local_bytes > 0 && profile->local_mem_per_unit / local_bytes < groups)
        groups = profile->local_mem_per_unit / local_bytes;
    return (unsigned)groups;
}

/* The targets of docs/profiles.md, as the context should see them on PoCL. Every GPU profile
 * takes warp match away: only NVIDIA's sm_70 and later have it. */
static const votecl__profile named_profiles[] = {
    /* GPU-vote section 2's GTX 470: 48 KiB of shared memory, blocks of 1024, warps of 32;
     * no __match_any_sync (sm_70) and no shuffles (Kepler). */
    {.name = "fermi",
     .shape = VOTECL__SHAPE_GPU,
     .local_mem_bytes = 48 * 1024,
     .max_work_group_size = 1024,
     .simd = 32,
     .features_off = VOTECL__FEATURE_WARP_MATCH | VOTECL__FEATURE_SUBGROUPS,
     .unit_threads = 1536, /* section 3.3 */
     .unit_local_mem = 48 * 1024},
    /* GCN and CDNA: 64 KiB of LDS per work-group and per compute unit, AMD's default limit
     * of 256 work-items, wavefronts of 64, 40 wavefronts resident per compute unit. */
    {.name = "gcn",
     .shape = VOTECL__SHAPE_GPU,
     .local_mem_bytes = 64 * 1024,
     .max_work_group_size = 256,
     .simd = 64,
     .features_off = VOTECL__FEATURE_WARP_MATCH,
     .unit_threads = 40 * 64,
     .unit_local_mem = 64 * 1024},
    /* RDNA: 64 KiB of LDS per work-group, 1024 work-items, wave32; OpenCL's compute unit is
     * a work-group processor (two CUs) with 128 KiB of LDS and 64 resident wave32s. */
    {.name = "rdna",
     .shape = VOTECL__SHAPE_GPU,
     .local_mem_bytes = 64 * 1024,
     .max_work_group_size = 1024,
     .simd = 32,
     .features_off = VOTECL__FEATURE_WARP_MATCH,
     .unit_threads = 64 * 32,
     .unit_local_mem = 128 * 1024},
    /* What OpenCL 1.2's full profile guarantees: 32 KiB of local memory, no optional
     * extension. The specification puts no floor above 1 on the work-group limit (its
     * CL_DEVICE_MAX_WORK_ITEM_SIZES minimum is (1, 1, 1)); 64, one wavefront, is the least any
     * GPU the library targets reports, and the least that keeps the fixed-size kernels' groups
     * of 64 (docs/profiles.md). */
    {.name = "ocl-min",
     .shape = VOTECL__SHAPE_GPU,
     .local_mem_bytes = 32 * 1024,
     .max_work_group_size = 64,
     .simd = 32,
     .features_off = VOTECL__FEATURES_ALL,
     .unit_threads = 256, /* a guess for a small GPU: four groups of 64 */
     .unit_local_mem = 32 * 1024},
    /* A CPU as PoCL shows it: the CPU shape, the device's own figures. */
    {.name = "cpu", .shape = VOTECL__SHAPE_CPU},
};

const votecl__profile *
votecl__profile_named(const char *name)
{
    for (size_t i = 0; i < sizeof named_profiles / sizeof named_profiles[0]; i++)
        if (strcasecmp(name, named_profiles[i].name) == 0)
            return &named_profiles[i];
    return NULL;
}
