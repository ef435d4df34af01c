#!/usr/bin/env python3
"""Offline builds of libvotecl's kernels for AMD and NVIDIA GPUs (issue 24, item 3).

No second composer: the library writes every program it composes, exactly as the compiler
sees it, when VOTECL_DUMP_PROGRAMS names a directory (lib/program.c, docs/env.md). This script

1. captures: runs the device test programs' /opencl/ tests on the OpenCL device at hand
   (PoCL in CI) once per device profile the targets need, with VOTECL_DEVICE_PROFILE set to
   the profile and VOTECL_LOCAL_MEM_BYTES to the target's local memory, and the dump on;
   (or reads dumps made elsewhere: --dumps DIR holding one directory per profile);
2. compiles every captured program for every target whose profile captured it, with Debian's
   clang-14 and the libclc-14 builtins (/usr/lib/clc), translating the library's build
   options; only the device-fact defines (VOTECL_DEVICE_*, VOTECL_VENDOR_*,
   VOTECL_PLATFORM_*, VOTECL_LOCAL_MEM_BYTES: lib/program.c's device_defines()) are set to
   what the target's driver would report, where the capture device's still show through;
3. reads each kernel's resources from the compiler (AMDGPU: the code object metadata and
   LLVM's kernel info comments; NVPTX: the PTX's .shared and .local declarations, .reqntid,
   its instructions, and ptxas -v where a ptxas can assemble it) and checks them against the
   target's limits (the TARGETS table below, each figure cited);
4. writes the kernel x target table (--table docs/offline-builds.md).

Exit status 1 when a program fails to compile for a target, a kernel exceeds a limit, a
kernel uses an instruction its target lacks, or a kernel of cl/*.cl was never built for a
target (a gap in the capture); 2 on a usage or setup error. Python 3 standard library only.

usage: tools/offline-compile.py [--builddir DIR] [--srcdir DIR] [--work DIR] [--dumps DIR]
                                [--targets gfx900,...] [--tests quick|all] [--jobs N]
                                [--table FILE]
"""
import argparse
import concurrent.futures
import hashlib
import os
import re
import resource
import shutil
import subprocess
import sys
import time

CLANG = os.environ.get("CLANG", "clang-14")
CLC_DIR = os.environ.get("CLC_DIR", "/usr/lib/clc")
# The ptxas that reports register use for the NVPTX targets when it can (see ptxas_proxy).
PTXAS = os.environ.get("PTXAS") or shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"

KIB = 1024


class Target:
    def __init__(self, name, **kw):
        self.name = name
        self.__dict__.update(kw)


# Limits, with their sources:
# [llvm] LLVM's AMDGPUUsage (llvm.org/docs/AMDGPUUsage.html, "Processors" and "Memory
#        Spaces"): LDS 64 KiB per work-group on GFX9 and GFX10; wavefront 64 on GFX9, 32 by
#        default on GFX10+; at most 1024 work-items per work-group.
# [gcn]  AMD "Vega" ISA reference (GFX9), ch. 2-3: a compute unit of 4 SIMDs sharing 64 KiB
#        of LDS; 256 VGPRs a wave addresses; 10 waves per SIMD.
# [mi200] AMD Instinct MI200 (CDNA2) ISA reference, ch. 2-3: 4 SIMDs and 64 KiB of LDS per
#        compute unit; 512 VGPRs per lane per SIMD, unified between arch and acc VGPRs, at
#        most 256 arch VGPRs a wave; 8 waves per SIMD.
# [rdna] AMD RDNA2 ISA reference, ch. 2-3: a work-group processor (WGP) of 4 SIMD32s sharing
#        128 KiB of LDS (work-groups run in WGP mode by default); 256 VGPRs a wave addresses;
#        16 waves per SIMD (LLVM's getMaxWavesPerEU for GFX10.3).
# [cuda] CUDA C++ Programming Guide, "Compute Capabilities", technical specifications per
#        compute capability: 2.0 (Fermi): 48 KiB shared per block and per SM, 1024 threads
#        per block, 1536 per SM, 8 blocks per SM, 63 registers per thread; 3.5 (Kepler):
#        48 KiB shared per block and per SM (the 48 KiB split of 64 KiB), 1024 threads per
#        block, 2048 per SM, 16 blocks per SM, 255 registers per thread. GPU-vote's section
#        2-3.3 gives the same Fermi figures (lib/device-profile.c). Shared memory is
#        allocated per block in units of 128 bytes (2.x) and 256 bytes (3.x) (the CUDA
#        Occupancy Calculator's GPU data).
# [ptx]  PTX ISA, each instruction's "Target ISA notes": the oldest sm_XX it needs.
TARGETS = {
    "gfx900": Target("gfx900", family="amdgcn", profile="gcn", cpu="gfx900", lds=64 * KIB,
                     max_wg=1024, vgprs=256, cu_lds=64 * KIB, simds=4,
                     label="GCN5 / Vega, wave64"),
    "gfx90a": Target("gfx90a", family="amdgcn", profile="gcn", cpu="gfx90a", lds=64 * KIB,
                     max_wg=1024, vgprs=256, cu_lds=64 * KIB, simds=4,
                     label="CDNA2 / MI200, wave64"),
    "gfx1030": Target("gfx1030", family="amdgcn", profile="rdna", cpu="gfx1030", lds=64 * KIB,
                      max_wg=1024, vgprs=256, cu_lds=128 * KIB, simds=4,
                      label="RDNA2, wave32"),
    "sm_20": Target("sm_20", family="nvptx", profile="fermi", cpu="sm_20", lds=48 * KIB,
                    max_wg=1024, sm=20, sm_shared=48 * KIB, sm_threads=1536, sm_blocks=8,
                    smem_unit=128, maxrreg=63, label="Fermi"),
    "sm_35": Target("sm_35", family="nvptx", profile="fermi", cpu="sm_35", lds=48 * KIB,
                    max_wg=1024, sm=35, sm_shared=48 * KIB, sm_threads=2048, sm_blocks=16,
                    smem_unit=256, maxrreg=255, label="Kepler"),
}

# What each profile is when the library applies it (issue 24 item 2): the work-group limit
# the plans must respect there. Checked only where the capture shows the profile applied.
PROFILE_MAX_WG = {"gcn": 256, "rdna": 1024, "fermi": 1024}

# Instructions (PTX mnemonic prefixes) newer than the oldest targets, with the first sm that
# has them [ptx]; a kernel using one on an older target fails the check.
PTX_MIN_SM = [
    ("match.", 70), ("redux.", 80), ("nanosleep", 70), ("activemask", 30), ("shfl.", 30),
    ("fns.", 30), ("vote.sync", 30), ("bar.warp.sync", 30), ("atom.add.f64", 60),
    ("atom.global.add.f64", 60), ("atom.shared.add.f64", 60), ("red.add.f64", 60),
    ("red.global.add.f64", 60),
]

# The device test programs, the longest first (the capture runs them in that order).
TEST_PROGRAMS = ["histogram", "ght", "pclines", "hog", "uservote", "subsample", "hough", "sum",
                 "hog-windows", "circles", "edges"]

# --tests quick: the /opencl/ tests that reach every kernel and each kind of variant (element
# types, strategies, weights, 2-D and two-array histograms, multi-pass and stretched plans,
# location-based user votes, every GHT stage) for about half the programs of --tests all
# (chosen from a capture of all of them; the coverage check below catches a kernel that a
# change of the tests leaves out). Programs not named here run all their /opencl/ tests.
QUICK_TESTS = {
    # (the warm-up's 18 default programs per profile are in `all` only: compiling them cold on
    # PoCL under three profiles took CI about 20 minutes of CPU)
    "histogram": ["/opencl/auto", "/opencl/local/stretch",
                  "/opencl/local/many-bins", "/opencl/global/many-bins",
                  "/opencl/private/many-bins", "/opencl/local-refinements",
                  "/opencl/local/u8/random", "/opencl/local/u16/random",
                  "/opencl/local/u32/random", "/opencl/local/f32/random",
                  "/opencl/local/u8/2d-channels", "/opencl/local/u8/2d-arrays",
                  "/opencl/local/f32/weighted", "/opencl/local/u32/multipass",
                  "/opencl/global/u8/random", "/opencl/global/f32/random",
                  "/opencl/private/u8/random", "/opencl/private/f32/random"],
    "uservote": ["/opencl/uservote/passes", "/opencl/uservote/histogram-builtin",
                 "/opencl/uservote/stage1", "/opencl/uservote/stage1-large",
                 "/opencl/uservote/spaces-7", "/opencl/uservote/u32-votes",
                 "/opencl/uservote/f32-votes-finish"],
    "ght": ["/opencl/ght/guil-spaces", "/opencl/ght/ballard-space", "/opencl/ght/detect-equal",
            "/opencl/ght/front-edges", "/opencl/ght/front-pairs", "/opencl/ght/front-ballard",
            "/opencl/ght/front-degenerate"],
    "hog": ["/opencl/hog/stages", "/opencl/hog/stages-other-shape"],
    # one case per strategy or kernel set (the sweeps compose the same kernels with other
    # sizes; `all` runs them); pclines/shapes forces the CPU shape's kernels, which the
    # GPU-shaped profiles never choose
    "hough": ["/opencl/local/hough/planted", "/opencl/global/hough/planted",
              "/opencl/private/hough/planted", "/opencl/auto/hough/gray",
              "/opencl/auto/hough/opencv"],
    "pclines": ["/opencl/pclines/equal-image", "/opencl/pclines/equal-edges",
                "/opencl/pclines/tiles", "/opencl/pclines/shapes"],
    "sum": ["/opencl/sum/u8/local", "/opencl/sum/u8/global", "/opencl/sum/u8/private",
            "/opencl/sum/f32/local"],
    "subsample": ["/opencl/subsample/u8/local", "/opencl/subsample/u8/global",
                  "/opencl/subsample/u8/private"],
    "circles": ["/opencl/auto/circles/odd"],
    "hog-windows": ["/opencl/hog/windows/grid"],
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# --- capture ---------------------------------------------------------------------------

def test_paths(program, selection):
    """The /opencl/ test paths of a test program (GLib's -l), filtered by the selection."""
    out = subprocess.run([program, "-l"], capture_output=True, text=True, check=False).stdout
    paths = [line.strip() for line in out.splitlines() if line.startswith("/opencl/")]
    name = os.path.basename(program)[len("test-"):]
    if selection == "quick" and name in QUICK_TESTS:
        wanted = QUICK_TESTS[name]
        paths = [p for p in paths if any(p == w or p.startswith(w + "/") for w in wanted)]
    return paths


def run_tests(program, paths, env, logfile):
    """Runs the paths; where the program dies (an assertion aborts it), runs the rest after
    the dead one. Returns (ok, not ok, crashed) counts."""
    ok = bad = crashed = 0
    with open(logfile, "a") as f:
        while paths:
            args = [program, "--tap"]
            for p in paths:
                args += ["-p", p]
            r = subprocess.run(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, check=False)
            f.write(r.stdout)
            done = re.findall(r"^(ok|not ok) \d+ (\S+)", r.stdout, re.M)
            ok += sum(1 for v, _ in done if v == "ok")
            bad += sum(1 for v, _ in done if v != "ok")
            if r.returncode in (0, 1) or len(done) >= len(paths):
                break
            crashed += 1
            paths = paths[len(done) + 1:]
    return ok, bad, crashed


def capture(args, profiles):
    """Runs the test programs under each profile with the dump on; returns {profile: dir}."""
    dirs = {}
    jobs = []
    for name in os.listdir(args.work):
        if name.startswith("capture-") and name.endswith(".log"):
            os.remove(os.path.join(args.work, name))
    for profile in profiles:
        d = os.path.join(args.work, "dumps", profile)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        dirs[profile] = d
        lds = min(t.lds for t in TARGETS.values() if t.profile == profile)
        env = dict(os.environ)
        env.update({
            "VOTECL_DEVICE_PROFILE": profile,
            "VOTECL_LOCAL_MEM_BYTES": str(lds),
            "VOTECL_DUMP_PROGRAMS": os.path.abspath(d),
            "VOTECL_KERNEL_PATH": os.path.join(os.path.abspath(args.srcdir), "cl"),
            "VOTECL_TEST_SRCDIR": os.path.join(os.path.abspath(args.srcdir), "tests"),
            "VOTECL_TEST_BUILDDIR": os.path.join(os.path.abspath(args.builddir), "tests"),
            # a run's shared kernel cache where one is named (CI: make check's), so that
            # PoCL compiles each program once; the dump is written before the cache lookup
            "VOTECL_CACHE_DIR": os.environ.get("VOTECL_CHECK_CACHE_DIR") or
            os.path.abspath(os.path.join(args.work, "cache", profile)),
            "VOTECL_BACKEND": "opencl",
        })
        for name in TEST_PROGRAMS:
            program = os.path.join(args.builddir, "tests", "test-" + name)
            if not os.access(program, os.X_OK):
                raise SystemExit("offline-compile: %s is not built (make check-offline "
                                 "builds it)" % program)
            paths = test_paths(program, args.tests)
            if paths:
                jobs.append((profile, name, program, paths, env))
    jobs.sort(key=lambda job: (TEST_PROGRAMS.index(job[1]), job[0]))
    t0 = time.time()
    results = {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_tests, program, paths, env,
                               os.path.join(args.work, "capture-%s-%s.log" % (profile, name))):
                   (profile, name, len(paths))
                   for profile, name, program, paths, env in jobs}
        for fut in concurrent.futures.as_completed(futures):
            profile, name, n = futures[fut]
            results[(profile, name)] = fut.result() + (n,)
    for (profile, name), (ok, bad, crashed, n) in sorted(results.items()):
        note = "" if bad == 0 and crashed == 0 else \
            " (%d not ok, %d crashed: the suite's verdict is make check's)" % (bad, crashed)
        log("capture %-5s test-%-11s %3d tests%s" % (profile, name, n, note))
    log("capture: %.0f s" % (time.time() - t0))
    return dirs


# --- programs and their device facts -----------------------------------------------------

class Program:
    def __init__(self, path, profile):
        self.key = os.path.basename(path)[:-len(".cl")]
        self.profile = profile
        with open(path) as f:
            self.text = f.read()
        with open(path[:-len(".cl")] + ".options") as f:
            self.options = f.read().split()
        self.files = re.findall(r'^#line 1 "([^"]+)"$', self.text, re.M)
        self.defines = define_block(self.text)[0]


def define_block(text):
    """The composed program's leading #define lines as the library's define strings
    (NAME or NAME=VALUE, lib/program.c's append_define() inverted), and the rest."""
    defines, lines = [], text.split("\n")
    for i, line in enumerate(lines):
        m = re.match(r"#define (\S+)(?: (.*))?$", line)
        if not m:
            return defines, "\n".join(lines[i:])
        defines.append(m.group(1) if m.group(2) is None else m.group(1) + "=" + m.group(2))
    return defines, ""


def load_programs(dump_dir, profile):
    """The captured programs the device built (a <key>.log marks one it rejected: the tests'
    deliberately broken kernels), and the number of rejected ones."""
    programs, rejected = [], 0
    for name in sorted(os.listdir(dump_dir)):
        if not name.endswith(".cl"):
            continue
        path = os.path.join(dump_dir, name)
        if os.path.exists(path[:-len(".cl")] + ".log"):
            rejected += 1
        elif os.path.exists(path[:-len(".cl")] + ".options"):
            programs.append(Program(path, profile))
    return programs, rejected


DEVICE_FACT = re.compile(r"VOTECL_(DEVICE_|VENDOR_|PLATFORM_|LOCAL_MEM_BYTES=)")
# What lib/program.c's device_defines() derives from the device and its profile (the facts
# column of the table); DEVICE_FACT is the part retarget() sets to the target's.
DEVICE_DEFINE = re.compile(r"VOTECL_(DEVICE_|VENDOR_|PLATFORM_|LOCAL_MEM_BYTES=|SHAPE_|"
                           r"SIMD_WIDTH=|MAX_WORK_GROUP_SIZE=|FEATURE_)")


def target_facts(target):
    """lib/program.c's device_defines() for the target's device under its OpenCL driver."""
    vendor = "VOTECL_VENDOR_NVIDIA" if target.family == "nvptx" else "VOTECL_VENDOR_AMD"
    return ["VOTECL_LOCAL_MEM_BYTES=%d" % target.lds, "VOTECL_DEVICE_GPU", vendor]


def retarget(program, target):
    """The program as the library composes it for the target's device: the same text with the
    device-fact defines the target's driver gives (the capture device's may show through
    where the library did not apply the profile), sorted as the library sorts them (strcmp).
    Returns (text, changed)."""
    defines, rest = define_block(program.text)
    kept = [d for d in defines if not DEVICE_FACT.match(d)]
    new = sorted(kept + target_facts(target), key=lambda s: s.encode())
    if new == defines:
        return program.text, False
    block = "".join("#define %s\n" % d.replace("=", " ", 1) for d in new)
    return block + rest, True


CL_OPTIONS = re.compile(r"-cl-(std=CL\d\.\d|opt-disable|mad-enable|no-signed-zeros|"
                        r"unsafe-math-optimizations|finite-math-only|fast-relaxed-math|"
                        r"denorms-are-zero|fp32-correctly-rounded-divide-sqrt|"
                        r"single-precision-constant|kernel-arg-info)$|-D\S+$|-w$|-Werror$")


def clang_options(options):
    """The library's build options as clang's (OpenCL's spellings are clang's own); an option
    clang would not take the same way stops the run, so that the script learns it."""
    bad = [o for o in options if not CL_OPTIONS.match(o)]
    if bad:
        raise SystemExit("offline-compile: build option(s) %s: teach clang_options()" % bad)
    return list(options)


# --- compiling -------------------------------------------------------------------------

def clang_command(target, options, src, out):
    if target.family == "amdgcn":
        triple, clc = "amdgcn-unknown-amdhsa", "amdgcn--amdhsa.bc"
        arch = ["-mcpu=" + target.cpu]
    else:
        triple, clc = "nvptx64-unknown-nvidiacl", "nvptx64--nvidiacl.bc"
        arch = ["-march=" + target.cpu]
    # -O3 as AMD's and NVIDIA's OpenCL compilers optimise; -nogpulib: libclc, not ROCm's
    # device libraries, provides the built-ins (linked as builtins, so only what is used).
    return ([CLANG, "-x", "cl"] + options + ["-target", triple] + arch +
            ["-nogpulib", "-Xclang", "-mlink-builtin-bitcode", "-Xclang",
             os.path.join(CLC_DIR, clc), "-O3", "-S", "-o", out, src])


def compile_one(work, target, program):
    """Compiles one program for one target; returns a result dict with kernels parsed."""
    text, changed = retarget(program, target)
    base = os.path.join(work, "build", target.name, program.key[:16])
    os.makedirs(os.path.dirname(base), exist_ok=True)
    with open(base + ".cl", "w") as f:
        f.write(text)
    out = base + (".s" if target.family == "amdgcn" else ".ptx")
    cmd = clang_command(target, clang_options(program.options), base + ".cl", out)
    r = subprocess.run(cmd, capture_output=True, text=True, check=False)
    result = {"program": program, "target": target, "retargeted": changed, "kernels": [],
              "error": None, "unresolved": [], "command": cmd}
    if r.returncode != 0:
        result["error"] = first_error(r.stderr)
        return result
    with open(out) as f:
        asm = f.read()
    result["unresolved"] = unresolved(asm, target.family)
    if target.family == "amdgcn":
        result["kernels"] = amdgpu_kernels(asm)
    else:
        result["kernels"] = ptx_kernels(asm, target)
        sizes = reqd_sizes(base + ".cl")
        for k in result["kernels"]:
            k["wg"] = sizes.get(k["name"])
        ptxas_proxy(asm, target, base, result["kernels"])
    return result


def unresolved(asm, family):
    """Functions the code calls but does not define: OpenCL C's inline is C99's (no
    definition is emitted), so a helper the compiler chose not to inline is left to a linker
    that will not find it (the driver's link fails). PTX declares them .extern .func; AMDGPU
    code calls them through sym@rel32 relocations with no sym: label."""
    if family == "nvptx":
        return sorted(set(re.findall(r"^\.extern\s+\.func\s+(?:\([^)]*\)\s*)?(\w+)", asm,
                                     re.M)))
    called = set(re.findall(r"\b([A-Za-z_][\w.$]*)@(?:rel32|gotpcrel32)@lo", asm))
    return sorted(c for c in called if not re.search(r"^%s:" % re.escape(c), asm, re.M))


def first_error(stderr):
    for line in stderr.splitlines():
        if "error" in line:
            return line.strip()
    return stderr.strip().splitlines()[-1] if stderr.strip() else "clang failed"


# --- AMDGPU resources ------------------------------------------------------------------

AMD_KEYS = {"name", "group_segment_fixed_size", "private_segment_fixed_size", "sgpr_count",
            "vgpr_count", "sgpr_spill_count", "vgpr_spill_count",
            "max_flat_workgroup_size", "wavefront_size", "reqd_workgroup_size"}


def amdgpu_kernels(asm):
    """Per kernel: the code object metadata (.amdgpu_metadata, AMDGPUUsage's "Code Object V3
    Metadata") and the occupancy LLVM computes (the "; Occupancy:" kernel info line: waves
    per SIMD from VGPRs, SGPRs and LDS at the kernel's maximum work-group size)."""
    meta = asm[asm.find(".amdgpu_metadata"):asm.find(".end_amdgpu_metadata")]
    kernels, current, key = [], None, None
    for line in meta.splitlines():
        if line.startswith("  - ."):  # a new entry of amdhsa.kernels
            current = {"reqd": []}
            kernels.append(current)
            line = "    " + line[4:]
        m = re.match(r"    \.(\w+):\s*(.*)$", line)
        if m:
            key = m.group(1)
            if current is not None and key in AMD_KEYS:
                current[key] = m.group(2).strip()
        elif current is not None and key == "reqd_workgroup_size":
            m = re.match(r"      - (\d+)$", line)
            if m:
                current["reqd"].append(int(m.group(1)))
    # LLVM's kernel info comments, after each kernel's code: occupancy, and on gfx90a the
    # VGPRs with the AGPRs (TotalNumVgprs), which share one file there.
    info, name = {}, None
    for line in asm.splitlines():
        m = re.match(r"^([A-Za-z_]\w*):\s*(;.*)?$", line)
        if m:
            name = m.group(1)
        m = re.match(r"^; (Occupancy|TotalNumVgprs): (\d+)", line)
        if m and name is not None:
            info.setdefault(name, {})[m.group(1)] = int(m.group(2))
    out = []
    for k in kernels:
        name = k.get("name", "?")
        reqd = k["reqd"]
        out.append({
            "name": name,
            "lds": int(k.get("group_segment_fixed_size", 0)),
            "private": int(k.get("private_segment_fixed_size", 0)),
            "vgpr": int(k.get("vgpr_count", 0)),
            "total_vgpr": info.get(name, {}).get("TotalNumVgprs"),
            "sgpr": int(k.get("sgpr_count", 0)),
            "spills": int(k.get("vgpr_spill_count", 0)) + int(k.get("sgpr_spill_count", 0)),
            "wg": product(reqd) if reqd else None,
            "max_wg": int(k.get("max_flat_workgroup_size", 0)),
            "wave": int(k.get("wavefront_size", 0)),
            "occupancy": info.get(name, {}).get("Occupancy"),
        })
    return out


def product(xs):
    p = 1
    for x in xs:
        p *= x
    return p


# --- NVPTX resources -------------------------------------------------------------------

def ptx_entries(ptx):
    """{name: body} of the PTX's kernels (.entry), and the module-scope lines."""
    entries, module, name, depth, body = {}, [], None, 0, []
    for line in ptx.splitlines():
        m = re.match(r"^(?:\.visible\s+)?\.entry\s+(\w+)\s*\(", line)
        if m and name is None:
            name, depth, body = m.group(1), 0, []
            continue
        if name is None:
            module.append(line)
            continue
        body.append(line)
        depth += line.count("{") - line.count("}")
        if line.startswith("}") and depth <= 0:
            entries[name] = "\n".join(body)
            name = None
    return entries, module


SHARED = re.compile(r"^\s*(?:\.extern\s+)?\.shared\s+(?:\.align\s+\d+\s+)?\.(?:b|u|s|f)(\d+)\s+"
                    r"([\w$.]+)(?:\[(\d*)\])?\s*;", re.M)
LOCAL = re.compile(r"^\s*\.local\s+(?:\.align\s+\d+\s+)?\.(?:b|u|s|f)(\d+)\s+[\w$.]+"
                   r"(?:\[(\d+)\])?\s*;", re.M)


def declared_bytes(regex, text):
    total = 0
    for m in regex.finditer(text):
        count = m.groups()[-1]
        total += int(m.group(1)) // 8 * (int(count) if count else 1)
    return total


def ptx_kernels(ptx, target):
    """Per kernel: static shared bytes (its own .shared declarations plus the module-scope ones
    it names), .local bytes (private arrays and the stack), the PTX's virtual registers (an
    upper bound on nothing: ptxas allocates the real ones), and instructions its target
    lacks [ptx]."""
    entries, module = ptx_entries(ptx)
    module_text = "\n".join(module)
    module_shared = {m.group(2): declared_bytes(SHARED, m.group(0))
                     for m in SHARED.finditer(module_text)}
    out = []
    for name, body in entries.items():
        shared = declared_bytes(SHARED, body)
        shared += sum(b for var, b in module_shared.items()
                      if re.search(r"\b%s\b" % re.escape(var), body))
        virtual = sum(int(n) for n in re.findall(r"\.reg\s+\.\w+\s+%\w+<(\d+)>", body))
        missing = set()
        for line in body.splitlines():
            m = re.match(r"\s*(?:@!?%\w+\s+)?([a-z][\w.]*)", line)
            if m and any(m.group(1).startswith(op) and sm > target.sm for op, sm in PTX_MIN_SM):
                missing.add(m.group(1))
        out.append({"name": name, "lds": shared, "private": declared_bytes(LOCAL, body),
                    "virtual_regs": virtual, "missing": sorted(missing), "wg": None,
                    "regs": None, "spills": None, "stack": None})
    return out


def ptxas_arch():
    """The oldest sm_XX this machine's ptxas assembles (CUDA 13: sm_75), or None."""
    if not os.access(PTXAS, os.X_OK):
        return None
    r = subprocess.run([PTXAS, "--help"], capture_output=True, text=True, check=False)
    archs = sorted(int(a) for a in re.findall(r"'compute_(\d+)'", r.stdout))
    return "sm_%d" % archs[0] if archs else None


PTXAS_ARCH = None


def ptxas_proxy(ptx, target, base, kernels):
    """Registers and spills from this machine's ptxas where it cannot assemble the target
    itself (CUDA 12 dropped sm_35, CUDA 9 sm_20): the same PTX assembled for its oldest sm
    with the target's register limit (--maxrregcount) as a labelled proxy. Fermi and Kepler
    allocate differently; the figure is an estimate of the pressure, not the target's."""
    if PTXAS_ARCH is None:
        return
    text = re.sub(r"^\.version \d+\.\d+", ".version 6.4", ptx, count=1, flags=re.M)
    text = re.sub(r"^\.target sm_\d+", ".target " + PTXAS_ARCH, text, count=1, flags=re.M)
    with open(base + ".proxy.ptx", "w") as f:
        f.write(text)
    r = subprocess.run([PTXAS, "-arch=" + PTXAS_ARCH, "--maxrregcount=%d" % target.maxrreg,
                        "-v", "-o", os.devnull, base + ".proxy.ptx"],
                       capture_output=True, text=True, check=False)
    by_name = {k["name"]: k for k in kernels}
    current = None
    for line in (r.stdout + r.stderr).splitlines():
        m = re.search(r"Function properties for (\w+)", line) or \
            re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            current = by_name.get(m.group(1))
            continue
        if current is None:
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores", line)
        if m:
            current["stack"], current["spills"] = int(m.group(1)), int(m.group(2))
        m = re.search(r"Used (\d+) registers", line)
        if m:
            current["regs"] = int(m.group(1))


def int_expr(text):
    """An integer constant expression of the preprocessed source, or None."""
    text = re.sub(r"(\d+)[uUlL]+", r"\1", text.strip()).replace("/", "//")
    if not re.fullmatch(r"[\d\s+*/()-]+", text):
        return None
    try:
        return int(eval(text, {"__builtins__": {}}))  # digits and operators only
    except (SyntaxError, ZeroDivisionError):
        return None


def reqd_sizes(src):
    """{kernel: work-items} from reqd_work_group_size in the preprocessed program (clang's
    NVPTX code has no .reqntid for OpenCL kernels)."""
    r = subprocess.run([CLANG, "-x", "cl", "-E", "-P", src], capture_output=True, text=True,
                       check=False)
    sizes = {}
    for m in re.finditer(r"reqd_work_group_size\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*\)\s*\)"
                         r"\s*void\s+(\w+)", r.stdout):
        dims = [int_expr(d) for d in m.group(1).split(",")]
        if None not in dims:
            sizes[m.group(2)] = product(dims)
    return sizes


# --- limits and occupancy --------------------------------------------------------------

def profile_applied(program):
    """Whether the library composed the program under a GPU-shaped profile (the context's
    shape reached the defines: VOTECL_SHAPE_GPU, lib/program.c), not the capture device's
    own facts."""
    return "VOTECL_SHAPE_GPU" in program.defines or "VOTECL_DEVICE_GPU" in program.defines


def check(result):
    """Limit violations of each kernel of a compiled program [llvm] [gcn] [mi200] [rdna]
    [cuda] [ptx]; adds each kernel's occupancy estimate. Returns the problems."""
    target, program = result["target"], result["program"]
    problems = []
    profile_wg = PROFILE_MAX_WG[target.profile] if profile_applied(program) else None
    for k in result["kernels"]:
        where = "%s %s (%s)" % (target.name, k["name"], program.key[:16])
        if k["lds"] > target.lds:
            problems.append("%s: %d bytes of local memory, limit %d" % (where, k["lds"],
                                                                        target.lds))
        if k["wg"] is not None and k["wg"] > target.max_wg:
            problems.append("%s: work-group of %d, limit %d" % (where, k["wg"], target.max_wg))
        elif k["wg"] is not None and profile_wg is not None and k["wg"] > profile_wg:
            problems.append("%s: work-group of %d beyond the %s profile's %d" %
                            (where, k["wg"], target.profile, profile_wg))
        if target.family == "amdgcn":
            if k["vgpr"] > target.vgprs or (k["total_vgpr"] or 0) > 512:
                problems.append("%s: %d VGPRs, limit %d" % (where, k["vgpr"], target.vgprs))
            k["occupancy"] = amd_waves(target, k)
        else:
            if k["missing"]:
                problems.append("%s: %s need a newer GPU than %s" %
                                (where, ", ".join(k["missing"]), target.name))
            k["occupancy"] = nvidia_blocks(target, k)
    return problems


def amd_waves(target, k):
    """Waves per SIMD: LLVM's figure (VGPRs, SGPRs, LDS), bounded by the LDS of a compute unit
    (a WGP on RDNA) shared by its SIMDs [gcn] [mi200] [rdna], which LLVM 14's
    getOccupancyWithLocalMemSize leaves undivided; at the kernel's required work-group size,
    else at the largest LLVM assumed (.max_flat_workgroup_size)."""
    waves = k["occupancy"]
    wg = k["wg"] or k["max_wg"]
    if k["lds"] > 0 and wg and k["wave"]:
        groups = target.cu_lds // k["lds"]
        lds_waves = groups * ((wg + k["wave"] - 1) // k["wave"]) / target.simds
        waves = lds_waves if waves is None else min(waves, lds_waves)
    if waves is None or waves == int(waves):
        return None if waves is None else int(waves)
    return round(waves, 2)


def nvidia_blocks(target, k):
    """Resident blocks per SM from the block limit, resident threads and shared memory [cuda]
    (registers left out: ptxas cannot build these targets here); None where the kernel's
    work-group size is fixed only at launch and shared memory does not bound it."""
    blocks = target.sm_blocks
    if k["lds"] > 0:
        unit = target.smem_unit
        blocks = min(blocks, target.sm_shared // ((k["lds"] + unit - 1) // unit * unit))
    if k["wg"] is None:
        k["occ_bound"] = True  # an upper bound: the launch's size is not known here
        return blocks if blocks < target.sm_blocks else None
    warps = (k["wg"] + 31) // 32
    return min(blocks, target.sm_threads // (32 * warps))


# --- coverage and the table ------------------------------------------------------------

KERNEL_DEF = re.compile(r"\b(?:KERNEL|__kernel|kernel)\b[^;{}]*?\bvoid\s+(\w+)\s*(##)?")


def kernel_index(srcdir):
    """(file, name, prefix) of every kernel defined in cl/*.cl; prefix where the name is made
    with ## (pclines.cl's per-type kernels). A kernel whose name is a macro's parameter
    (hog-cpu.cl's HOG_LEVEL_KERNEL(NAME, CH)) is listed under each name the macro is
    invoked with."""
    index = []
    cl = os.path.join(srcdir, "cl")
    for name in sorted(os.listdir(cl)):
        if not name.endswith(".cl"):
            continue
        with open(os.path.join(cl, name)) as f:
            text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S).replace("\\\n", " ")
        macros = {}
        for m in re.finditer(r"^#define\s+(\w+)\(([^)]*)\)(.*)$", text, re.M):
            params = [p.strip() for p in m.group(2).split(",")]
            for k in KERNEL_DEF.finditer(m.group(3)):
                if k.group(1) in params:
                    macros[m.group(1)] = params.index(k.group(1))
        body = "\n".join(line for line in text.splitlines() if not line.startswith("#define"))
        for m in KERNEL_DEF.finditer(text):
            if not re.search(r"#define\s+\w+\([^)]*\b%s\b" % m.group(1), text):
                index.append((name, m.group(1), m.group(2) is not None))
        for macro, at in macros.items():
            for m in re.finditer(r"^\s*%s\(([^)]*)\)" % macro, body, re.M):
                args = [a.strip() for a in m.group(1).split(",")]
                index.append((name, args[at], False))
    return sorted(set(index))


def kernel_file(index, kernel):
    for file, name, prefix in index:
        if kernel == name or (prefix and kernel.startswith(name)):
            return file
    return "(user)"


def fmt(value, suffix=""):
    return "-" if value is None else "%s%s" % (value, suffix)


def aggregate(results, index):
    """{(target, file, kernel): row} over every variant (program) of the kernel: the worst
    figure of each column."""
    rows = {}
    for r in results:
        for k in r["kernels"]:
            key = (r["target"].name, kernel_file(index, k["name"]), k["name"])
            row = rows.setdefault(key, {"variants": 0, "lds": 0, "private": 0, "regs": None,
                                        "sgpr": None, "spills": 0, "wg": set(), "occ": None,
                                        "occ_bound": False, "virtual": 0, "unassembled": 0})
            row["variants"] += 1
            row["lds"] = max(row["lds"], k["lds"])
            row["private"] = max(row["private"], k["private"], k.get("stack") or 0)
            regs = k["vgpr"] if "vgpr" in k else k.get("regs")
            if regs is not None:
                row["regs"] = max(row["regs"] or 0, regs)
            elif "vgpr" not in k:
                row["unassembled"] += 1  # ptxas could not take this variant's PTX
            if "sgpr" in k:
                row["sgpr"] = max(row["sgpr"] or 0, k["sgpr"])
            row["virtual"] = max(row["virtual"], k.get("virtual_regs", 0))
            row["spills"] = max(row["spills"], k.get("spills") or 0)
            row["wg"].add(k["wg"])
            occ = k.get("occupancy")
            if occ is not None and (row["occ"] is None or occ < row["occ"]):
                row["occ"], row["occ_bound"] = occ, k.get("occ_bound", False)
    return rows


def wg_label(sizes):
    known = sorted(s for s in sizes if s is not None)
    text = ", ".join(str(s) for s in known) if len(known) <= 3 else \
        "%d-%d" % (known[0], known[-1])
    if None in sizes:
        text = (text + ", " if text else "") + "launch"
    return text


def table_capture(w, args, captures):
    w("# Offline builds for AMD and NVIDIA GPUs\n")
    w("Generated by `make offline-table` (`tools/offline-compile.py --tests %s --table ...`); "
      "do not edit." % args.tests)
    w("Every program the device tests compose (captured through `VOTECL_DUMP_PROGRAMS`, "
      "docs/env.md) is compiled offline by Debian's clang-14 with the libclc-14 built-ins for "
      "five GPUs and each kernel's resources are read from the compiler and checked against "
      "the GPU's limits. The script's head cites each limit. Issue 24, item 3.\n")
    w("## Capture\n")
    w("| profile | targets | programs | rejected by the device | device facts in the programs |")
    w("| --- | --- | ---: | ---: | --- |")
    for profile, info in sorted(captures.items()):
        targets = ", ".join(t for t in args.targets if TARGETS[t].profile == profile)
        w("| %s | %s | %d | %d | %s |" % (profile, targets, info["programs"],
                                          info["rejected"], info["facts"]))
    w("\nTests: `--tests %s` (the /opencl/ paths of %s). *Rejected*: programs the capture "
      "device refused (the tests' deliberately broken kernels), not compiled here. The "
      "facts are the device defines the library composed under the profile (a few tests set "
      "their own local memory or shape). The profile's shape, SIMD width, work-group limit and "
      "features are the target's; the capture device's type, vendor and platform are not, "
      "and those defines (and the local memory) are set to the target's before compiling "
      "(`retarget()`). Where no `VOTECL_SHAPE_GPU` shows, the library had no profiles and "
      "the plans saw the capture device with `VOTECL_LOCAL_MEM_BYTES` alone." %
      (args.tests, ", ".join("test-" + t for t in TEST_PROGRAMS)))


def table_summary(w, args, results, rows, problems):
    w("\n## Summary\n")
    w("| target | GPU | programs compiled | kernels (distinct) | problems | kernels "
      "spilling | kernels with scratch / local memory |")
    w("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for t in args.targets:
        rs = [r for r in results if r["target"].name == t]
        krows = [v for (tt, _, _), v in rows.items() if tt == t]
        w("| %s | %s | %d / %d | %d | %d | %d | %d |" % (
            t, TARGETS[t].label, sum(1 for r in rs if r["error"] is None), len(rs), len(krows),
            sum(1 for p in problems if p.startswith(t + " ") or p.startswith(t + ":")),
            sum(1 for v in krows if v["spills"] > 0), sum(1 for v in krows if v["private"] > 0)))
    if problems:
        w("\nProblems:\n")
        for p in problems:
            w("- %s" % p)
    w("\nRegisters: AMD's are the VGPRs the code object declares (the wave's allocation), "
      "spills its spilled VGPRs and SGPRs. NVIDIA's come from this machine's ptxas, which "
      "cannot assemble sm_20 or sm_35 (CUDA 9 dropped Fermi, CUDA 12 Kepler): the same PTX "
      "assembled for %s with the target's register limit (63 on Fermi, 255 on Kepler) stands "
      "in for them, marked *p*, spills in bytes; where ptxas could not take a variant the PTX's "
      "virtual registers show, marked *v*, which are no register count. Occupancy: AMD's is "
      "waves per SIMD, LLVM's figure (VGPRs, SGPRs) bounded by the LDS the SIMDs of a compute "
      "unit (a WGP on RDNA) share, at the kernel's required work-group size or else the largest "
      "LLVM assumes; NVIDIA's is resident blocks per SM from threads, blocks and shared memory "
      "(registers left out), *<=* where the work-group size is fixed at launch and only shared "
      "memory bounds it. Each column is the worst over the kernel's variants (programs)."
      % (PTXAS_ARCH or "no sm (no ptxas here)"))


def table_target(w, target, rows, gaps):
    w("\n## %s (%s)\n" % (target.name, target.label))
    if target.family == "amdgcn":
        w("| file | kernel | variants | LDS bytes | VGPRs | SGPRs | spills | scratch bytes | "
          "work-group | waves/SIMD |")
        w("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    else:
        w("| file | kernel | variants | shared bytes | registers | spill bytes | local bytes | "
          "work-group | blocks/SM |")
        w("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    for (t, file, name), v in sorted(rows.items()):
        if t != target.name:
            continue
        occ = ("<=" if v["occ_bound"] and v["occ"] is not None else "") + fmt(v["occ"])
        if target.family == "amdgcn":
            w("| %s | %s | %d | %d | %s | %s | %d | %d | %s | %s |" % (
                file, name, v["variants"], v["lds"], fmt(v["regs"]), fmt(v["sgpr"]),
                v["spills"], v["private"], wg_label(v["wg"]), occ))
            continue
        regs = "%s *p*" % v["regs"] if v["regs"] is not None else "%d *v*" % v["virtual"]
        if v["regs"] is not None and v["unassembled"]:
            regs += " (%d *v*)" % v["virtual"]
        w("| %s | %s | %d | %d | %s | %d | %d | %s | %s |" % (
            file, name, v["variants"], v["lds"], regs, v["spills"], v["private"],
            wg_label(v["wg"]), occ))
    if gaps.get(target.name):
        w("\nNot composed under the %s profile by the tests run: %s." %
          (target.profile, ", ".join(sorted(gaps[target.name]))))


def write_table(path, args, results, problems, captures, index, gaps):
    rows = aggregate(results, index)
    out = []
    table_capture(out.append, args, captures)
    table_summary(out.append, args, results, rows, problems)
    for t in args.targets:
        table_target(out.append, TARGETS[t], rows, gaps)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def coverage(results, index, targets):
    """Per target, the kernels of cl/*.cl that no compiled program defined."""
    built = {t: set() for t in targets}
    for r in results:
        built[r["target"].name].update(k["name"] for k in r["kernels"])
    gaps = {}
    for t in targets:
        for file, name, prefix in index:
            if not any(k == name or (prefix and k.startswith(name)) for k in built[t]):
                gaps.setdefault(t, set()).add("%s:%s%s" % (file, name, "*" if prefix else ""))
    return gaps


# --- the checks' own test --------------------------------------------------------------

SELF_TEST_PTX = """.version 3.2
.target sm_20
.extern .func  (.param .b32 func_retval0) helper
(
	.param .b32 helper_param_0
)
;
.shared .align 4 .b8 big_table[50000];
.visible .entry warp_kernel(
	.param .u64 warp_kernel_param_0
)
{
	.reg .b32 	%r<4>;
	ld.shared.u32 	%r1, [big_table];
	// begin inline asm
	match.any.sync.b32 %r2, %r1, %r3;
	// end inline asm
	ret;
}
"""

SELF_TEST_AMD = """warp_kernel:
	s_add_u32 s4, s4, helper@rel32@lo+4
; Occupancy: 4
	.amdgpu_metadata
---
amdhsa.kernels:
  - .args:
      - .name: x
        .size: 8
    .group_segment_fixed_size: 70000
    .max_flat_workgroup_size: 512
    .name:           warp_kernel
    .private_segment_fixed_size: 16
    .reqd_workgroup_size:
      - 512
      - 1
      - 1
    .sgpr_count:     20
    .vgpr_count:     300
amdhsa.version:
  - 1
  - 1
	.end_amdgpu_metadata
"""


def self_test():
    """The checks on two made-up kernels that break every limit they test, so that a check
    that can no longer fail is caught here rather than passing everything."""
    class Fake:
        key, defines = "0" * 64, ["VOTECL_SHAPE_GPU"]
    for target, kernels in ((TARGETS["sm_20"], ptx_kernels(SELF_TEST_PTX, TARGETS["sm_20"])),
                            (TARGETS["gfx900"], amdgpu_kernels(SELF_TEST_AMD))):
        kernels[0]["wg"] = kernels[0]["wg"] or 2048
        problems = check({"target": target, "program": Fake, "kernels": kernels})
        text = SELF_TEST_PTX if target.family == "nvptx" else SELF_TEST_AMD
        if len(problems) != 3 or kernels[0]["name"] != "warp_kernel" or \
                unresolved(text, target.family) != ["helper"]:
            raise SystemExit("offline-compile: self-test failed for %s: %s" %
                             (target.name, problems))


# --- main ------------------------------------------------------------------------------

def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--srcdir", default=".", help="source tree (cl/, tests/)")
    ap.add_argument("--builddir", default=".", help="build tree (tests/test-*)")
    ap.add_argument("--work", default="offline-build", help="scratch directory (replaced)")
    ap.add_argument("--dumps", help="use these captures (DIR/<profile>/) instead of running "
                    "the tests")
    ap.add_argument("--targets", default=",".join(TARGETS),
                    help="comma-separated, from %s" % ", ".join(TARGETS))
    ap.add_argument("--tests", choices=["quick", "all"], default="quick",
                    help="which /opencl/ tests capture the programs (default quick)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-ptxas", action="store_true", help="skip the ptxas register proxy")
    ap.add_argument("--table", help="write the kernel x target table (markdown) here")
    args = ap.parse_args()
    args.targets = [t for t in args.targets.split(",") if t]
    unknown = [t for t in args.targets if t not in TARGETS]
    if unknown or not args.targets:
        ap.error("unknown target(s) %s; use %s" % (unknown, ", ".join(TARGETS)))
    return args


def check_tools(args):
    if shutil.which(CLANG) is None:
        raise SystemExit("offline-compile: %s not found (apt-get install clang-14)" % CLANG)
    for family, clc in (("amdgcn", "amdgcn--amdhsa.bc"), ("nvptx", "nvptx64--nvidiacl.bc")):
        if any(TARGETS[t].family == family for t in args.targets) and \
                not os.path.exists(os.path.join(CLC_DIR, clc)):
            raise SystemExit("offline-compile: %s/%s not found (apt-get install libclc-14)"
                             % (CLC_DIR, clc))


def load_captures(dirs):
    programs, captures = {}, {}
    for profile, d in dirs.items():
        if not os.path.isdir(d):
            raise SystemExit("offline-compile: no capture for profile %s in %s" % (profile, d))
        progs, rejected = load_programs(d, profile)
        programs[profile] = progs
        facts = sorted({x for p in progs for x in p.defines if DEVICE_DEFINE.match(x)})
        captures[profile] = {"programs": len(progs), "rejected": rejected,
                             "facts": ", ".join("`%s`" % x for x in facts) or "-"}
    return programs, captures


def compile_all(args, programs):
    jobs = [(TARGETS[t], p) for t in args.targets for p in programs[TARGETS[t].profile]]
    results = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for r in pool.map(lambda job: compile_one(args.work, *job), jobs):
            results.append(r)
    return results


def cpu_seconds():
    """CPU time of the finished child processes (the tests, clang, ptxas)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main():
    global PTXAS_ARCH
    args = parse_args()
    self_test()
    check_tools(args)
    t0, c0 = time.time(), cpu_seconds()
    if not args.no_ptxas and any(TARGETS[t].family == "nvptx" for t in args.targets):
        PTXAS_ARCH = ptxas_arch()
    os.makedirs(args.work, exist_ok=True)
    shutil.rmtree(os.path.join(args.work, "build"), ignore_errors=True)
    profiles = sorted({TARGETS[t].profile for t in args.targets})
    if args.dumps:
        dirs = {p: os.path.join(args.dumps, p) for p in profiles}
    else:
        dirs = capture(args, profiles)
    programs, captures = load_captures(dirs)
    t1, c1 = time.time(), cpu_seconds()
    results = compile_all(args, programs)
    problems = []
    for r in results:
        if r["error"] is not None:
            problems.append("%s: %s (%s) does not compile: %s" % (
                r["target"].name, " ".join(r["program"].files[2:]), r["program"].key[:16],
                r["error"]))
        else:
            problems += check(r)
        if r["unresolved"]:
            problems.append("%s: %s (%s) calls functions it does not define: %s" % (
                r["target"].name, " ".join(r["program"].files[2:]), r["program"].key[:16],
                ", ".join(r["unresolved"])))
    index = kernel_index(args.srcdir)
    gaps = coverage(results, index, args.targets)
    # Without profiles (a library before issue 24's item 2) PoCL composes only the CPU shape,
    # and kernels of the GPU shape alone cannot be reached: then a gap is only reported.
    profiled = all(any(profile_applied(p) for p in progs) for progs in programs.values())
    for file, name, prefix in index:
        label = "%s:%s%s" % (file, name, "*" if prefix else "")
        if all(label in gaps.get(t, ()) for t in args.targets):
            gap = "%s: never built for any target (no test composed it)" % label
            if profiled:
                problems.append(gap)
            else:
                log("note: " + gap + "; the library applied no device profile")
    if args.table:
        write_table(args.table, args, results, problems, captures, index, gaps)
    for t in args.targets:
        rs = [r for r in results if r["target"].name == t]
        log("%-7s %3d programs, %3d compiled, %d retargeted" % (
            t, len(rs), sum(1 for r in rs if r["error"] is None),
            sum(1 for r in rs if r["retargeted"])))
    for p in problems:
        log("problem: " + p)
    log("offline-compile: capture %.0f s (%.0f s of CPU), compile %.0f s (%.0f s of CPU), "
        "%d problem(s)" % (t1 - t0, c1 - c0, time.time() - t1, cpu_seconds() - c1,
                           len(problems)))
    print("offline builds: %d programs x targets compiled, %d problem(s)" %
          (sum(1 for r in results if r["error"] is None), len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
