#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus that need no library: small valid inputs
of each format, and a few broken ones. Run from tests/fuzz; the model-file seeds come from
the library itself (votecl_model_store on a 'ref' context), see docs/reliability.md."""
import os
import struct
import zlib


def write(target, name, data):
    os.makedirs(os.path.join("corpus", target), exist_ok=True)
    with open(os.path.join("corpus", target, name), "wb") as f:
        f.write(data)


def png(width, height, colour, depth, rows, interlace=0, extra=b""):
    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))
    ihdr = struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, interlace)
    raw = b"".join(b"\0" + r for r in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def images():
    w, h = 5, 3
    write("image", "gray8.png", png(w, h, 0, 8, [bytes((x * 50 + y) % 256 for x in range(w))
                                                 for y in range(h)]))
    write("image", "rgb8.png", png(w, h, 2, 8, [bytes(range(3 * w)) for _ in range(h)]))
    write("image", "rgba16.png", png(2, 2, 6, 16, [bytes(range(16)) for _ in range(2)]))
    write("image", "gray1.png", png(9, 2, 0, 1, [b"\xaa\x80", b"\x55\x00"]))
    plte = struct.pack(">I", 6) + b"PLTE" + b"\0\0\0\xff\xff\xff"
    plte += struct.pack(">I", zlib.crc32(b"PLTE\0\0\0\xff\xff\xff") & 0xffffffff)
    write("image", "palette.png", png(4, 2, 3, 8, [b"\0\1\0\1", b"\1\0\1\0"], extra=plte))
    write("image", "interlaced.png", png(8, 8, 0, 8, [bytes(range(8))] * 15, interlace=1))
    write("image", "p5.pgm", b"P5\n# comment\n3 2\n255\n" + bytes(range(6)))
    write("image", "p5-16.pgm", b"P5 2 1 65535\n" + b"\x12\x34\xff\xfe")
    write("image", "p2.pgm", b"P2\n2 2\n15\n0 5\n10 15\n")
    write("image", "p6.ppm", b"P6\n2 1\n255\n" + bytes(range(6)))
    write("image", "p3.ppm", b"P3 1 1 255 1 2 3\n")
    write("image", "truncated.png", png(64, 64, 0, 8, [bytes(64)] * 64)[:60])
    write("image", "huge-header.pgm", b"P5\n1048576 1048576\n255\n\0")


def hog_models():
    head = ("votecl-hog-model 1\nwindow 16 16\nblock 8 8\nblock-stride 8 8\ncell 8 8\n"
            "bins 2\nlength 32\nbias -0.5\nweights\n")
    body = " ".join("%g" % (i / 7.0) for i in range(32))
    write("hog-model", "small.model", (head + body + "\nend\n").encode())
    write("hog-model", "comments.model",
          ("# a comment\n" + head + "# weights follow\n" + body + "\nend\n").encode())
    write("hog-model", "short.model", (head + "1 2 3\nend\n").encode())
    write("hog-model", "version2.model", head.replace(" 1\n", " 2\n", 1).encode())
    write("hog-model", "nan.model", (head + " ".join(["nan"] * 32) + "\nend\n").encode())


def disk_cache():
    # fix byte, then an entry (see fuzz-diskcache.c): all fields right, and broken ones
    payload = b"binary of a program"
    header = b"VOTECLBC" + struct.pack("<II", 1, 88) + bytes(32) + struct.pack("<Q", len(payload))
    header += bytes(32)
    write("diskcache", "all-fixed", b"\x0f" + header + payload)
    write("diskcache", "bad-size", b"\x0b" + header + payload)
    write("diskcache", "bad-hash", b"\x07" + header + payload)
    write("diskcache", "short", b"\x0f" + header[:40])
    write("diskcache", "empty-payload", b"\x0f" + header[:48] + bytes(40))


def params():
    # one seed per entry point of fuzz-params.c (the first byte picks it)
    for i in range(13):
        write("params", "entry-%02d" % i, bytes([i]) + bytes((i * 37 + k * 11) % 256
                                                              for k in range(48)))


def jpeg_header(width, height, components, progressive=False, adobe=None):
    """SOI, a quantisation table, a frame header and a scan header (what libjpeg's
    jpeg_read_header reads), no entropy-coded data: the decoder's header paths."""
    comps = b"".join(bytes([i + 1, 0x11, 0]) for i in range(components))
    app14 = b""
    if adobe is not None:
        app14 = b"\xff\xee" + struct.pack(">H", 14) + b"Adobe" + struct.pack(">HHHB", 100, 0, 0,
                                                                             adobe)
    sof = (b"\xff\xc2" if progressive else b"\xff\xc0") + struct.pack(
        ">HBHHB", 8 + 3 * components, 8, height, width, components) + comps
    sos = b"\xff\xda" + struct.pack(">HB", 6 + 2 * components, components) + b"".join(
        bytes([i + 1, 0]) for i in range(components)) + b"\x00\x3f\x00"
    dqt = b"\xff\xdb" + struct.pack(">H", 67) + b"\x00" + bytes([1] * 64)
    return b"\xff\xd8" + dqt + app14 + sof + sos + b"\x00" * 16 + b"\xff\xd9"


def jpegs():
    # issue 28: JPEG through the image reader (real files: tests/fuzz/corpus/image/*.jpg)
    write("image", "jpeg-cmyk.jpg", jpeg_header(16, 16, 4, adobe=0))
    write("image", "jpeg-ycck.jpg", jpeg_header(16, 16, 4, adobe=2))
    write("image", "jpeg-two-components.jpg", jpeg_header(8, 8, 2))
    write("image", "jpeg-progressive-12000.jpg", jpeg_header(12000, 12000, 3, True))


def batch_lists():
    # the first byte picks which path's add fails (fuzz-batch-list.c)
    write("batch-list", "plain", b"\0a.png\nb.png\n")
    write("batch-list", "comments-crlf", b"\0# a list\r\n\r\nx.mp4\r\n#\ny\n")
    write("batch-list", "long-line", b"\0" + b"p" * 4096 + b"\n" + b"q" * 4097 + b"\n")
    write("batch-list", "no-newline-stop", b"\2a\nb\nc")


def batch_out():
    rec = b'{"source":"a.png","frame":-1,"batch":"hist","timestamp":null,"schema":2}\n'
    write("batch-out", "records", rec * 3)
    write("batch-out", "cut", rec * 2 + rec[:20])
    write("batch-out", "empty-lines", b"\n\n" + rec + b"\n")


def videos():
    # y4m needs no encoder; mp4 and NUT seeds were made by ffmpeg (docs/reliability.md)
    head = b"YUV4MPEG2 W16 H8 F25:1 Ip A1:1 Cmono\n"
    write("video", "mono.y4m", head + (b"FRAME\n" + bytes(range(128))) * 2)
    write("video", "no-frame.y4m", head)
    write("video", "huge.y4m", b"YUV4MPEG2 W16000 H16000 F25:1 Ip A1:1 Cmono\nFRAME\n")
    write("video", "short-frame.y4m", head + b"FRAME\n" + bytes(17))


if __name__ == "__main__":
    images()
    hog_models()
    disk_cache()
    params()
    jpegs()
    batch_lists()
    batch_out()
    videos()
