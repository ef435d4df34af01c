/* Reference device profiles: devices the papers measured on, kept as data so that their
 * figures stay checkable against the library's plan and model arithmetic (tests/test-nodevice.c)
 * on any machine. */
#include "votecl-private.h"

#include <stdio.h>
#include <string.h>

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
