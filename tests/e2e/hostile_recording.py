#!/usr/bin/env python3
"""Write the hostile recordings of issue 10 next to a real one (its header gives this build's struct
sizes and its schema block, which every file here carries): each a file whose checksums are right,
so only validation stands between it and the detector. Usage: hostile_recording.py REAL.pwrec
OUTDIR; prints "name sample_size" per file."""
import os
import struct
import sys
import zlib

HEADER = 72
KEYFRAME, SEGMENT = 1, 2


def align8(n):
    return (n + 7) & ~7


def schema(real):
    """The schema block after the header (format version 3)."""
    return real[HEADER : HEADER + struct.unpack_from("<I", real, 64)[0]]


def header(real, cpu_cap, line_cap, matrix=False, interval_ns=10**9, sample_size=None):
    sample_struct, cpu_struct, line_struct = struct.unpack_from("<III", real, 16)
    size = align8(sample_struct) + align8(cpu_cap * cpu_struct) + align8(line_cap * line_struct)
    size += line_cap * cpu_cap * 8 if matrix else 0
    size = size if sample_size is None else sample_size
    h = bytearray(real[:HEADER])
    struct.pack_into("<IIIII", h, 28, cpu_cap, line_cap, size, int(matrix), 100)
    struct.pack_into("<q", h, 56, interval_ns)
    struct.pack_into("<I", h, 68, zlib.crc32(bytes(h[:68])))
    return bytes(h) + schema(real), size


def record(sample, flags=KEYFRAME | SEGMENT):
    payload = zlib.compress(sample, 1)
    frame = struct.pack("<III", len(payload), flags, zlib.crc32(payload))
    return frame + struct.pack("<I", zlib.crc32(frame)) + payload


def first_sample(real):
    at = HEADER + len(schema(real))
    length = struct.unpack_from("<I", real, at)[0]
    return bytearray(zlib.decompress(real[at + 16 : at + 16 + length]))


def main():
    real = open(sys.argv[1], "rb").read()
    out = sys.argv[2]
    files = {}
    line_struct = struct.unpack_from("<I", real, 24)[0]

    # The last IRQ line in use, at the end of the sample, with no NUL in its names nor after them:
    # "%s" of its name runs off the end of the buffer.
    s = first_sample(real)
    line_cap, off_lines = struct.unpack_from("<I", s, 44)[0], struct.unpack_from("<I", s, 52)[0]
    struct.pack_into("<I", s, 68, line_cap)  # nlines
    last = off_lines + (line_cap - 1) * line_struct
    s[last : last + line_struct] = b"A" * line_struct
    files["unterminated"] = (real[:HEADER] + schema(real) + record(bytes(s)), len(s))

    # A schema block whose first row lies far outside its struct (its CRC made right): refused before
    # a sample is read, never used as an offset.
    block = bytearray(schema(real))
    struct.pack_into("<I", block, 8, 0xFFFFFFF0)
    struct.pack_into("<I", block, len(block) - 4, zlib.crc32(bytes(block[:-4])))
    files["schema-row"] = (real[:HEADER] + bytes(block) + record(bytes(s)), len(s))

    # Headers: the sampling interval 2^62 (3 * interval overflows), a 163 MB sample (8192 CPUs,
    # 2^20 lines), a 259 MB one (1024 CPUs x 31000 lines with the matrix: the old check allowed 256 MiB).
    h, size = header(real, 2, 94, interval_ns=1 << 62)
    files["interval"] = (h, size)
    h, size = header(real, 8192, 1 << 20)
    files["huge-header"] = (h, size)
    h, size = header(real, 1024, 31000, matrix=True)
    files["256mib-header"] = (h, size)

    # The largest sample the format accepts (29.6 MB: 1024 CPUs x 3500 lines with the matrix), one
    # 3.5 MB record of noise that inflates to all of it: the worst a file can make the reader hold.
    h, size = header(real, 1024, 3500, matrix=True)
    files["largest-record"] = (h + record(os.urandom(3 << 20) + bytes(size - (3 << 20))), size)

    # Valid, and as large as the format allows (32.1 MB: 1024 CPUs x 3800 lines with the matrix),
    # three records: the decoder's two buffers and replay's copy all filled, the most a file that
    # replays cleanly makes the reader hold.
    h, size = header(real, 1024, 3800, matrix=True)
    s = bytearray(size)
    sample_struct, cpu_struct = struct.unpack_from("<II", real, 16)
    s[:sample_struct] = first_sample(real)[:sample_struct]
    off_cpus = align8(sample_struct)
    off_lines = off_cpus + align8(1024 * cpu_struct)
    off_matrix = off_lines + align8(3800 * line_struct)
    struct.pack_into("<IIIIIIII", s, 40, 1024, 3800, off_cpus, off_lines, off_matrix, size, 1024, 0)
    data = h + record(bytes(s))
    for t in range(1, 3):
        struct.pack_into("<q", s, 8, struct.unpack_from("<q", s, 8)[0] + 10**9)  # mono_ns
        data += record(bytes(s), flags=KEYFRAME)
    files["largest-valid"] = (data, size)

    for name, (data, size) in files.items():
        with open(os.path.join(out, name + ".pwrec"), "wb") as f:
            f.write(data)
        print(name, size)


main()
