#!/usr/bin/env python3
"""Writes the hostile inputs of tests/hostile/run.sh into DIR (docs/reliability.md).

    tests/hostile/gen.py DIR

Each file is built from its description here (no binary blobs in the tree): truncated and
corrupt PNG, PNGs declaring huge sizes or chunks (decompression and allocation bombs), every
odd PNG type, PGM/PPM edge cases, JPEG corner cases. The special files (a FIFO, a directory,
/dev/zero, a sparse file beyond the size limit) are made by run.sh. Standard library only."""
import os
import struct
import sys
import zlib


def chunk(kind, data, length=None):
    head = struct.pack(">I", len(data) if length is None else length) + kind
    return head + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)


def png(width, height, depth=8, color=0, rows=None, interlace=0, extra=b"", idat=None,
        plte=None, trns=None, end=True):
    sig = b"\x89PNG\r\n\x1a\n"
    ihdr = chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, interlace))
    if idat is None:
        channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(color, 1)
        rowbytes = (width * channels * depth + 7) // 8
        raw = rows if rows is not None else b"".join(
            b"\x00" + bytes((x * 37 + y * 11) & 0xff for x in range(rowbytes))
            for y in range(height))
        idat = zlib.compress(raw, 9)
    body = sig + ihdr + extra
    if plte is not None:
        body += chunk(b"PLTE", plte)
    if trns is not None:
        body += chunk(b"tRNS", trns)
    body += chunk(b"IDAT", idat)
    return body + (chunk(b"IEND", b"") if end else b"")


def bomb_idat(width, height, depth, channels):
    """The zlib stream of height all-zero rows, compressed in pieces (never all in memory)."""
    rowbytes = (width * channels * depth + 7) // 8
    row = b"\x00" * (rowbytes + 1)
    z = zlib.compressobj(9)
    out = []
    block = row * max(1, (1 << 20) // len(row))
    rows_per_block = len(block) // len(row)
    left = height
    while left > 0:
        n = min(left, rows_per_block)
        out.append(z.compress(block[: n * len(row)]))
        left -= n
    out.append(z.flush())
    return b"".join(out)


def adam7_rows(width, height, channels):
    """The filtered rows of an 8-bit Adam7-interlaced image, pass after pass."""
    passes = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
              (0, 1, 1, 2))
    out = []
    for x0, y0, dx, dy in passes:
        cols = (width - x0 + dx - 1) // dx
        rows = (height - y0 + dy - 1) // dy
        if cols <= 0 or rows <= 0:
            continue
        for r in range(rows):
            y = y0 + r * dy
            out.append(b"\x00" + bytes((x0 + c * dx + y * 3 + k) & 0xff
                                       for c in range(cols) for k in range(channels)))
    return b"".join(out)


def jpeg_header(width, height, components=1, progressive=False):
    soi = b"\xff\xd8"
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    dqt = b"\xff\xdb" + struct.pack(">H", 67) + b"\x00" + bytes([1] * 64)
    comps = b"".join(bytes([i + 1, 0x11, 0]) for i in range(components))
    sof = (b"\xff\xc2" if progressive else b"\xff\xc0") + struct.pack(
        ">HBHHB", 8 + 3 * components, 8, height, width, components) + comps
    return soi + app0 + dqt + sof


def jpeg_scan(components=1, adobe_transform=None):
    """A start of scan of every component (tables 0), after an Adobe marker when asked: what
    libjpeg's jpeg_read_header() reads up to."""
    app14 = b""
    if adobe_transform is not None:
        app14 = b"\xff\xee" + struct.pack(">H", 14) + b"Adobe" + struct.pack(
            ">HHHB", 100, 0, 0, adobe_transform)
    sos = b"\xff\xda" + struct.pack(">HB", 6 + 2 * components, components) + b"".join(
        bytes([i + 1, 0]) for i in range(components)) + b"\x00\x3f\x00"
    return app14 + sos


def cases():
    good = png(16, 12)
    yield "png-good-16x12", good
    for cut in (1, 8, 16, 29, 33, 41, 60, len(good) - 12, len(good) - 1):
        yield "png-truncated-%d" % cut, good[:cut]
    yield "empty", b""
    yield "one-byte", b"\x89"
    # a 44-byte file whose tEXt chunk declares 2^31 - 1 bytes (issue 16, item 6)
    sig_ihdr = good[:33]
    yield "png-text-2g", sig_ihdr + struct.pack(">I", 0x7fffffff) + b"tEXt" + b"k\x00v"
    yield "png-zTXt-1g", sig_ihdr + struct.pack(">I", 1 << 30) + b"zTXt" + b"k\x00\x00"
    yield "png-iCCP-big", sig_ihdr + chunk(b"iCCP", b"p\x00\x00" + zlib.compress(b"\x00" * (16 << 20)))
    yield "png-unknown-chunk-huge", sig_ihdr + struct.pack(">I", 0x7ffffff0) + b"abCd"
    # sizes beyond or at the limits, with little or no data (bombs and liars)
    yield "png-huge-declared-tiny-idat", png(30000, 30000, idat=zlib.compress(b"\x00" * 100))
    yield "png-16384-rgba-41b", png(16384, 16384, color=6, idat=b"")[:41]
    yield "png-width-zero", png(0, 10, idat=b"")
    yield "png-width-2g", png(0x7fffffff, 1, idat=b"")
    yield "png-width-4g", png(0xffffffff, 1, idat=b"")
    yield "png-65535-square", png(65535, 65535, idat=zlib.compress(b"\x00" * 1000))
    # a real bomb: 46340 x 46340 1-bit gray of zeros, 2^31 pixels decoded from ~250 KB
    yield "png-bomb-46340", png(46340, 46340, depth=1, idat=bomb_idat(46340, 46340, 1, 1))
    yield "png-bomb-rgba-4096", png(4096, 4096, color=6, idat=bomb_idat(4096, 4096, 8, 4))
    # odd types: every bit depth and colour type, palettes, transparency, interlacing
    for depth in (1, 2, 4, 8, 16):
        yield "png-gray-%d" % depth, png(13, 7, depth=depth)
    yield "png-gray16-alpha", png(9, 5, depth=16, color=4)
    yield "png-rgb16", png(9, 5, depth=16, color=2)
    yield "png-rgba8", png(9, 5, color=6)
    yield "png-palette-4", png(9, 5, depth=4, color=3, plte=bytes(range(48)))
    yield "png-palette-trns", png(9, 5, color=3, plte=bytes(range(256)) * 3, trns=b"\x00\x80")
    yield "png-palette-missing", png(9, 5, color=3)
    yield "png-palette-index-out", png(9, 5, color=3, plte=b"\x00\x00\x00",
                                       rows=b"".join(b"\x00" + b"\xff" * 9 for _ in range(5)))
    yield "png-gray-trns", png(9, 5, trns=b"\x00\x10")
    yield "png-interlaced", png(33, 17, color=2, interlace=1, rows=adam7_rows(33, 17, 3))
    yield "png-interlace-bad", png(9, 5, interlace=7)
    yield "png-color-5", png(9, 5, color=5)
    yield "png-depth-3", png(9, 5, depth=3)
    yield "png-rgb-depth-4", png(9, 5, depth=4, color=2)
    yield "png-bad-zlib", png(9, 5, idat=b"\x78\x9c garbage not deflate")
    yield "png-short-idat", png(64, 64, idat=zlib.compress(b"\x00" * 100))
    yield "png-long-idat", png(4, 4, rows=b"\x00" * 5000)
    yield "png-bad-filter", png(4, 4, rows=b"\x09\x00\x00\x00\x00" * 4)
    yield "png-no-iend", png(9, 5, end=False)
    bad = bytearray(good)
    bad[29] ^= 0xff  # the IHDR's CRC
    yield "png-bad-crc", bytes(bad)
    # PGM / PPM
    pixels = bytes(range(12))
    yield "pgm-good", b"P5\n4 3\n255\n" + pixels
    yield "pgm-maxval-0", b"P5\n4 3\n0\n" + pixels
    yield "pgm-maxval-65536", b"P5\n4 3\n65536\n" + pixels * 2
    yield "pgm-maxval-big", b"P5\n4 3\n99999999999999999999\n" + pixels
    yield "pgm-above-maxval", b"P5\n4 3\n7\n" + pixels
    yield "pgm-width-0", b"P5\n0 3\n255\n"
    yield "pgm-width-huge", b"P5\n1048577 1\n255\n" + pixels
    yield "pgm-side-limit", b"P5\n1048576 1048576\n255\n" + pixels
    yield "pgm-negative", b"P5\n-4 3\n255\n" + pixels
    yield "pgm-truncated", b"P5\n4 3\n255\n" + pixels[:5]
    yield "pgm-16-truncated", b"P5\n4 3\n65535\n" + pixels
    yield "pgm-header-only", b"P5\n4 3\n255"
    yield "pgm-no-space", b"P5\n4 3\n255" + pixels
    yield "pgm-comments", b"P5 # a\n# b\n4 # c\n3\n#d\n255\n" + pixels
    yield "pgm-comment-eof", b"P5\n# never ends"
    yield "pgm-ascii", b"P2\n4 3\n15\n" + b" ".join(b"%d" % (v % 16) for v in range(12))
    yield "pgm-ascii-above", b"P2\n2 1\n15\n3 16\n"
    yield "pgm-ascii-short", b"P2\n4 3\n15\n1 2 3"
    yield "pgm-ascii-junk", b"P2\n2 1\n15\n1 x\n"
    yield "pgm-ascii-huge-declared", b"P2\n65535 65535\n255\n1 2 3\n"
    yield "ppm-good", b"P6\n2 2\n255\n" + pixels
    yield "ppm-truncated", b"P6\n4 3\n255\n" + pixels
    yield "ppm-ascii", b"P3\n2 1\n255\n1 2 3 4 5 6\n"
    yield "ppm-16", b"P6\n2 1\n65535\n" + pixels
    yield "pbm-p1", b"P1\n2 2\n0 1 1 0\n"
    yield "pbm-p4", b"P4\n8 1\n\x55"
    yield "pnm-p7", b"P7\nWIDTH 2\nHEIGHT 2\nDEPTH 1\nMAXVAL 255\nENDHDR\n" + pixels[:4]
    yield "pnm-p", b"P"
    # JPEG
    yield "jpeg-soi-only", b"\xff\xd8\xff"
    yield "jpeg-header-no-scan", jpeg_header(64, 64)
    yield "jpeg-huge-no-data", jpeg_header(65500, 65500, 3) + b"\xff\xd9"
    yield "jpeg-huge-progressive", jpeg_header(60000, 60000, 3, True) + b"\xff\xd9"
    yield "jpeg-zero-size", jpeg_header(0, 10)
    # issue 28: CMYK (Adobe, no transform) and a progressive image whose coefficients alone
    # are 1.3 GB (libjpeg said "Backing store not supported" after trying to allocate them)
    yield "jpeg-cmyk", jpeg_header(16, 16, 4) + jpeg_scan(4, adobe_transform=0) + b"\xff\xd9"
    yield "jpeg-progressive-12000", (jpeg_header(12000, 12000, 3, True) + jpeg_scan(3)
                                     + b"\x00" * 64 + b"\xff\xd9")
    yield "jpeg-garbage", b"\xff\xd8\xff\xe0" + b"\x00\x10JFIF" + os.urandom(0) + b"\x13" * 200
    # issue 28, the GHT's memory: 1024 x 1024 of concentric 2-pixel rings every 40 pixels
    # (18 KB; 41692 edge points in every gradient bin, 117 M pairings: 5.6 GB on PoCL before
    # the limit) and a 48 x 48 ring template
    yield "png-ght-rings-1024", png(1024, 1024, rows=b"".join(
        b"\x00" + bytes(255 if int(((x - 511.5) ** 2 + (y - 511.5) ** 2) ** 0.5) % 40 < 2 else 0
                         for x in range(1024)) for y in range(1024)))
    yield "png-ght-ring-48", png(48, 48, rows=b"".join(
        b"\x00" + bytes(255 if 15 <= ((x - 23.5) ** 2 + (y - 23.5) ** 2) ** 0.5 <= 19 else 0
                         for x in range(48)) for y in range(48)))
    # not images at all
    yield "text", b"hello, not an image\n"
    yield "binary-noise", bytes((i * 131 + 7) & 0xff for i in range(4096))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, data in cases():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
